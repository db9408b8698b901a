// SPDX-License-Identifier: GPL-2.0-only
/*
 * follow_pfnmap_start() when the leaf it found changes before it holds the
 * leaf's lock, as it can when another CPU zaps the mapping or splits a huge
 * leaf into a table: the walk reads the entry again under the lock, fails
 * -EINVAL if it went away and walks again if it became a table.  The
 * change is made on demand by the sim's race hook (sim_pt_lock_race_hook),
 * run just before pud_lock()/pmd_lock() take the lock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "shared.h"

/* What the other CPU does to the leaf [start, start + size). */
static struct {
	unsigned long start, size, pfn;
	int split_to;		/* a smaller leaf level; 0: zap only */
	int ran;
} other_cpu;

static void other_cpu_changes_the_leaf(struct sim_mm *mm, const void *entry)
{
	other_cpu.ran++;
	sim_mm_zap_range(mm, other_cpu.start, other_cpu.start + other_cpu.size);
	if (other_cpu.split_to)
		assert_int_equal(sim_mm_remap_pfn_range(mm, other_cpu.start,
							other_cpu.pfn,
							other_cpu.size,
							other_cpu.split_to, 1), 0);
}

struct race_case {
	const char *what;
	int leaf;		/* the leaf level the BAR is mapped with */
	int split_to;		/* 0: the leaf is zapped */
	int ret;
	unsigned long lookups;	/* walks made (a retry walks twice) */
};

/*
 *  VA    va              va+leaf           va+2*leaf
 *        |=====leaf======|=====leaf========|     two leaves of a BAR
 *            ^ lookup here; the other CPU zaps or splits the first leaf
 * (Two leaves, so the table holding the first one stays allocated: a zap
 * frees no table that a walker may still be reading, as in the kernel,
 * where only munmap with the mmap lock held for write frees tables.)
 */
static const struct race_case race_cases[] = {
	{ "PUD leaf zapped: -EINVAL", KAPI_MM_LEAF_PUD, 0, -EINVAL, 1 },
	{ "PUD leaf split into PMD leaves: walk again", KAPI_MM_LEAF_PUD,
	  KAPI_MM_LEAF_PMD, 0, 2 },
	{ "PMD leaf zapped: -EINVAL", KAPI_MM_LEAF_PMD, 0, -EINVAL, 1 },
	{ "PMD leaf split into PTEs: walk again", KAPI_MM_LEAF_PMD,
	  KAPI_MM_LEAF_PTE, 0, 2 },
};

/*
 * A leaf that went away under the lookup fails it; one that became a
 * table is walked again and the smaller leaf reported, with the exact pfn.
 */
static void test_leaf_changed_before_the_lock(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(race_cases); i++) {
		const struct race_case *c = &race_cases[i];
		unsigned long leaf = ~mask_of_level(c->leaf) + 1, va, lookups;
		unsigned long bar_pfn;
		struct kapi_pfnmap r;

		given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
		given_a_process();
		va = map_bar(&(struct kapi_mm_map){
			.len = 2 * leaf, .writable = 1, .populate = 1,
			.max_leaf = c->leaf, .align = PUD,
		}, NULL, &bar_pfn);
		/* Without the other CPU: the leaf as mapped. */
		assert_int_equal(kapi_mm_follow_pfnmap(va + 3 * PAGE, &r), 0);
		assert_int_equal(r.addr_mask,
				 expected_addr_mask(mask_of_level(c->leaf)));

		other_cpu.start = va;
		other_cpu.size = leaf;
		other_cpu.pfn = bar_pfn;
		other_cpu.split_to = c->split_to;
		other_cpu.ran = 0;
		sim_pt_lock_race_set(other_cpu_changes_the_leaf);
		lookups = sim_counters.c[SIM_CNT_PFN_LOOKUP];
		assert_int_equal(kapi_mm_follow_pfnmap(va + 3 * PAGE, &r), c->ret);
		assert_int_equal(sim_counters.c[SIM_CNT_PFN_LOOKUP] - lookups,
				 c->lookups);
		assert_int_equal(other_cpu.ran, 1);
		assert_null(sim_pt_lock_race_hook);
		if (!c->ret) {
			assert_int_equal(r.pfn, bar_pfn + 3);
			assert_int_equal(r.addr_mask,
					 expected_addr_mask(mask_of_level(c->split_to)));
			assert_true(r.special);
		}
		/* The second leaf is untouched. */
		assert_int_equal(kapi_mm_follow_pfnmap(va + leaf, &r), 0);
		assert_int_equal(r.addr_mask,
				 expected_addr_mask(mask_of_level(c->leaf)));

		check_and_destroy();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_changed_before_the_lock),
	};

	/* The page walk under test, over the leaves each test builds. */
	kapi_mm_set_exact_pfnmap_leaves(1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
