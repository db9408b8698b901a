// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine's small shared parts: fault points, the kernel heap counter,
 * the cost model, size parsing and boot with no module.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <fiu.h>
#include <fiu-control.h>

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

#include "shared.h"

/* Every fault point has a distinct libfiu name under shim/. */
static void test_fault_names_are_unique(void **state)
{
	for (int i = 0; i < SIM_NR_FAULT_POINTS; i++) {
		assert_int_equal(strncmp(sim_fault_name(i), "shim/", 5), 0);
		assert_int_equal(sim_fault_lookup(sim_fault_name(i)), i);
		for (int j = i + 1; j < SIM_NR_FAULT_POINTS; j++)
			assert_string_not_equal(sim_fault_name(i), sim_fault_name(j));
	}
	assert_int_equal(sim_fault_lookup("shim/no/such/point"), -1);
}

/* An enabled libfiu point fails its shim call only while armed, and is counted. */
static void test_fault_point_fails_when_enabled_and_armed(void **state)
{
	sim_fault_calls_reset();
	assert_false(sim_should_fail(SIM_FP_KMALLOC));
	sim_faults_arm(1);
	assert_int_equal(fiu_enable("shim/slab/kmalloc", 1, NULL, 0), 0);
	assert_true(sim_should_fail(SIM_FP_KMALLOC));
	assert_false(sim_should_fail(SIM_FP_ALLOC_PAGES));
	sim_faults_arm(0);
	assert_false(sim_should_fail(SIM_FP_KMALLOC));
	fiu_disable("shim/slab/kmalloc");
	assert_int_equal(sim_fault_calls[SIM_FP_KMALLOC], 3);
	assert_int_equal(sim_fault_calls[SIM_FP_ALLOC_PAGES], 1);
}

/* Every kernel heap object is counted until it is freed. */
static void test_kmalloc_outstanding_returns_to_start(void **state)
{
	unsigned long long start = sim_kmalloc_outstanding();
	void *a = sim_kmalloc(10, 0), *b = sim_kmalloc(100, 1);

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(((unsigned char *)b)[99], 0);
	assert_int_equal(sim_kmalloc_outstanding(), start + 2);
	sim_kfree(a);
	sim_kfree(NULL);
	sim_kfree(b);
	assert_int_equal(sim_kmalloc_outstanding(), start);
}

/*
 * A zeroed object the size of a vmalloc area (type1's dirty bitmap of a
 * large mapping; sim/slab.c maps such an object on its own): zero
 * throughout, counted, its red zone checked when freed, and reallocated
 * smaller and larger again with its bytes.
 */
static void test_large_zeroed_kmalloc(void **state)
{
	const unsigned long big = 4UL << 20;
	unsigned long long start = sim_kmalloc_outstanding();
	unsigned long long hits = sim_slab_redzone_hits();
	unsigned char *p = sim_kmalloc(big, 1), *q;

	assert_non_null(p);
	assert_int_equal(p[0] | p[big / 2] | p[big - 1], 0);
	assert_int_equal(sim_kmalloc_outstanding(), start + 1);
	p[0] = 1;
	p[big - 1] = 2;
	q = sim_krealloc(p, big / 2);
	assert_non_null(q);
	assert_int_equal(q[0], 1);
	p = sim_krealloc(q, big);
	assert_non_null(p);
	assert_int_equal(p[0], 1);
	sim_kfree(p);
	assert_int_equal(sim_slab_redzone_hits(), hits);

	p = sim_kmalloc(big, 1);
	assert_non_null(p);
	p[big] = 0;	/* the first byte of its red zone */
	sim_kfree(p);
	assert_int_equal(sim_slab_redzone_hits(), hits + 1);
	assert_int_equal(sim_kmalloc_outstanding(), start);
}

/* Modelled time is the dot product of counts and per-operation costs. */
static void test_cost_is_counts_times_costs(void **state)
{
	struct sim_counters before, after, delta;

	sim_counters_snapshot(&before);
	sim_count(SIM_CNT_PFN_LOOKUP, 1000);
	sim_count(SIM_CNT_IOTLB_SYNC, 2);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &delta);
	assert_int_equal(delta.c[SIM_CNT_PFN_LOOKUP], 1000);
	assert_true(sim_cost_ns(&delta) ==
		    1000 * sim_counter_cost_ns(SIM_CNT_PFN_LOOKUP) +
		    2 * sim_counter_cost_ns(SIM_CNT_IOTLB_SYNC));
	for (int i = 0; i < SIM_NR_COUNTERS; i++) {
		assert_true(sim_counter_cost_ns(i) >= 0);
		assert_non_null(sim_counter_name(i));
	}
}

static void test_parse_size(void **state)
{
	static const struct {
		const char *text;
		int ret;
		unsigned long long bytes;
	} cases[] = {
		{ "4096", 0, 4096 },
		{ "64K", 0, 64 * KiB },
		{ "1G", 0, 1 * GiB },
		{ "32GiB", 0, 32 * GiB },
		{ "2m", 0, 2 * MiB },
		{ "1T", 0, 1 * TiB },
		{ "0x1000", 0, 0x1000 },
		{ "", -1, 0 },
		{ "G", -1, 0 },
		{ "12Q", -1, 0 },
		{ "99999999999T", -1, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long long v = 0;

		assert_int_equal(sim_parse_size(cases[i].text, &v), cases[i].ret);
		if (!cases[i].ret)
			assert_int_equal(v, cases[i].bytes);
	}
}

/* Boot is idempotent; unknown parameters are -ENOENT, malformed names too. */
static void test_boot_and_unknown_params(void **state)
{
	char buf[16];

	assert_int_equal(kapi_boot(), 0);
	assert_int_equal(kapi_boot(), 0);
	assert_int_equal(kapi_param_set("nosuchmodule.param", "1"), -ENOENT);
	assert_int_equal(kapi_param_set("nodot", "1"), -ENOENT);
	assert_int_equal(kapi_param_get("nosuchmodule.param", buf, sizeof(buf)), -ENOENT);
}

/*
 * A machine booted after another gets the earlier one's page-table chunk
 * back (sim/mm.c keeps it) as a fresh mapping would be: its first table
 * is the earlier machine's first, every entry of it zero (a freed table
 * holds a free-list link until the chunk is kept), its lock clear, and a
 * walk of what the earlier machine mapped finds nothing until it is
 * mapped again.
 */
static void test_page_tables_of_a_later_machine_start_empty(void **state)
{
	const struct sim_config cfg = { .ram_bytes = 64ULL << 20 };
	const unsigned long addr = 4UL << 30;
	struct sim_vma_info info = {
		.start = addr, .end = addr + 4 * SIM_PAGE_SIZE,
		.kind = SIM_VMA_ANON, .flags = SIM_VMA_WRITE | SIM_VMA_POPULATE,
	};
	struct sim_pt_lock *lock;
	struct sim_walk w;
	struct sim_mm *mm;
	unsigned long *first;

	(void)state;
	sim_machine_release_host_memory();
	assert_int_equal(sim_machine_init(&cfg), 0);
	mm = sim_mm_create(NULL);
	assert_non_null(mm);
	first = sim_mm_pgd(mm);
	assert_int_equal(sim_mm_map(mm, &info, NULL), 0);
	assert_int_equal(sim_mm_walk(mm, addr, &w), 0);
	lock = sim_pt_lock_of(w.entryp);
	lock->locked = 1;	/* as a holder would leave it behind */
	sim_mm_destroy_one(mm);
	sim_machine_destroy();

	assert_int_equal(sim_machine_init(&cfg), 0);
	mm = sim_mm_create(NULL);
	assert_non_null(mm);
	assert_ptr_equal(sim_mm_pgd(mm), first);
	for (unsigned int i = 0; i < SIM_PAGE_SIZE / sizeof(*first); i++)
		assert_int_equal(first[i], 0);
	assert_int_equal(lock->locked, 0);
	assert_int_not_equal(sim_mm_walk(mm, addr, &w), 0);
	assert_int_equal(sim_mm_map(mm, &info, NULL), 0);
	assert_int_equal(sim_mm_walk(mm, addr, &w), 0);
	assert_int_equal(sim_mm_nr_anon_pages(mm), 4);
	sim_mm_destroy_one(mm);
	sim_machine_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_names_are_unique),
		cmocka_unit_test(test_fault_point_fails_when_enabled_and_armed),
		cmocka_unit_test(test_kmalloc_outstanding_returns_to_start),
		cmocka_unit_test(test_large_zeroed_kmalloc),
		cmocka_unit_test(test_cost_is_counts_times_costs),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_boot_and_unknown_params),
		cmocka_unit_test(test_page_tables_of_a_later_machine_start_empty),
	};

	return cmocka_run_group_tests_name("sim_base", tests, NULL, NULL);
}
