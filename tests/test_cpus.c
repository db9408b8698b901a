// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated CPUs interleaved in modelled time (sim/cpus.c): the zone lock
 * as a contended resource, per-cpu lists per CPU, deterministic counts.
 *
 * Every scenario runs on a small fresh machine (68 MiB with 4 KiB pages),
 * one zone, with as many simulated CPUs as threads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/sim.h>

#include "shared.h"

#define SMALL_RAM (17ULL * SIM_PAGE_SIZE * (1UL << SIM_MAX_ORDER))
#define MAX_CPUS 4

static double cost_of(enum sim_counter id, unsigned long long n)
{
	return sim_counter_cost_ns(id) * (double)n;
}

static void boot_machine_with_cpus(unsigned int cpus)
{
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = cpus, .seed = 1 });
}

struct workload {
	unsigned int order, gfp, rounds;
};

/* Each CPU: rounds of allocate one block and free it. */
static void allocate_and_free_rounds(unsigned int cpu, void *arg)
{
	const struct workload *w = arg;

	(void)cpu;
	for (unsigned int r = 0; r < w->rounds; r++) {
		struct sim_page *page = sim_buddy_alloc(w->order, w->gfp);

		assert_non_null(page);
		sim_buddy_free(page, w->order);
	}
}

/* Each CPU: one max-order allocation (zone lock), kept until the end. */
static struct sim_page *held[MAX_CPUS];

static void allocate_one_max_order_block(unsigned int cpu, void *arg)
{
	(void)arg;
	held[cpu] = sim_buddy_alloc(SIM_MAX_ORDER, 0);
}

/*
 * Two CPUs start at modelled time 0 and both take the zone lock for one
 * max-order block: CPU 0 goes first (the lower number wins a tie), CPU 1
 * waits exactly as long as CPU 0 held the lock (one zone-lock take and one
 * block off the free list), and the wait is counted in nanoseconds.
 */
static void test_second_cpu_waits_for_the_zone_lock_the_first_holds(void **state)
{
	struct sim_cpu_stats st[2];
	double hold = cost_of(SIM_CNT_ZONE_LOCK, 1) + cost_of(SIM_CNT_BUDDY_ALLOC, 1);

	(void)state;
	boot_machine_with_cpus(2);
	sim_counters_reset();
	assert_int_equal(sim_cpus_run(2, allocate_one_max_order_block, NULL, 0, st), 0);
	assert_non_null(held[0]);
	assert_non_null(held[1]);
	assert_true(sim_page_to_pfn(held[0]) < sim_page_to_pfn(held[1]));
	assert_true(st[0].wait_ns == 0);
	assert_true(st[1].wait_ns == hold);
	assert_int_equal(sim_counters.c[SIM_CNT_ZONE_LOCK_WAIT], (unsigned long long)hold);
	assert_true(st[1].clock_ns == st[0].clock_ns + hold);
	assert_int_equal(st[0].lock_sections, 1);
	assert_int_equal(st[1].lock_sections, 1);
	sim_buddy_free(held[0], SIM_MAX_ORDER);
	sim_buddy_free(held[1], SIM_MAX_ORDER);
	sim_machine_destroy();
}

struct cpus_case {
	const char *what;
	unsigned int cpus;
	struct workload w;
};

static const struct cpus_case cpus_cases[] = {
	{ "order 0 from the per-cpu lists, 4 CPUs", 4, { 0, SIM_GFP_ZERO, 50 } },
	{ "PMD order from the per-cpu lists, 3 CPUs", 3, { SIM_PMD_ORDER <= SIM_MAX_ORDER ?
							   SIM_PMD_ORDER : 0, 0, 20 } },
	{ "order 8 under the zone lock, 4 CPUs", 4, { 8, SIM_GFP_ZERO, 20 } },
};

static void run_case(const struct cpus_case *c, unsigned long long exclude,
		     struct sim_cpu_stats *st, struct sim_counters *counts)
{
	boot_machine_with_cpus(c->cpus);
	sim_counters_reset();
	assert_int_equal(sim_cpus_run(c->cpus, allocate_and_free_rounds, (void *)&c->w,
				      exclude, st), 0);
	sim_counters_snapshot(counts);
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	sim_machine_destroy();
}

/*
 * The same workload twice gives the same counts and the same modelled
 * clocks on every CPU: the interleaving depends on modelled time only.
 * Blocks that come from the per-cpu lists take the zone lock only to
 * refill and drain (far fewer sections than allocations); order 8 takes
 * it for every allocation and every free.  Leaving zeroing out of the
 * clocks (pages that came zeroed) lowers each by no more than its zeroing.
 */
static void test_interleaving_is_deterministic_and_locks_as_the_kernel(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cpus_cases) / sizeof(cpus_cases[0]); k++) {
		const struct cpus_case *c = &cpus_cases[k];
		struct sim_cpu_stats a[MAX_CPUS], b[MAX_CPUS], z[MAX_CPUS];
		struct sim_counters ca, cb, cz;
		unsigned long long sections = 0, calls = 2ULL * c->cpus * c->w.rounds;

		print_message("%s\n", c->what);
		run_case(c, 0, a, &ca);
		run_case(c, 0, b, &cb);
		run_case(c, 1ULL << SIM_CNT_PAGE_ZEROED, z, &cz);
		assert_memory_equal(&ca, &cb, sizeof(ca));
		assert_memory_equal(a, b, c->cpus * sizeof(a[0]));
		for (unsigned int i = 0; i < c->cpus; i++) {
			sections += a[i].lock_sections;
			assert_true(z[i].clock_ns <= a[i].clock_ns);
		}
		assert_int_equal(ca.c[SIM_CNT_PAGE_ZEROED], cz.c[SIM_CNT_PAGE_ZEROED]);
		if (c->w.order <= 3 || c->w.order == SIM_PMD_ORDER)
			assert_true(sections * 4 < calls);
		else
			assert_int_equal(sections, calls);
	}
}

/*
 * Each CPU runs on a stack and with thread-locals of its own: what it
 * keeps on its stack across allocator calls (where the others run) is
 * still there, its thread id and CPU number stay its own and differ from
 * the others' and the caller's, and the caller finds its own again.
 */
#define STACK_KEPT	(256 * 1024)

struct own_state {
	unsigned long thread_id;
	unsigned int cpu_seen;
	int stack_kept;
};
static struct own_state own[MAX_CPUS];

static void keep_stack_and_thread_locals(unsigned int cpu, void *arg)
{
	unsigned char kept[STACK_KEPT];
	int ok = 1;

	(void)arg;
	memset(kept, 0x11 * (cpu + 1), sizeof(kept));
	own[cpu].thread_id = sim_thread_id();
	for (unsigned int r = 0; r < 8; r++) {
		struct sim_page *page = sim_buddy_alloc(0, 0);

		if (!page || sim_current_cpu() != cpu || sim_thread_id() != own[cpu].thread_id)
			ok = 0;
		if (page)
			sim_buddy_free(page, 0);
	}
	for (size_t i = 0; i < sizeof(kept); i++)
		ok &= kept[i] == (unsigned char)(0x11 * (cpu + 1));
	own[cpu].cpu_seen = sim_current_cpu();
	own[cpu].stack_kept = ok;
}

static void test_each_cpu_has_a_stack_and_thread_locals_of_its_own(void **state)
{
	unsigned long caller_id;
	struct sim_cpu_stats st[MAX_CPUS];

	(void)state;
	boot_machine_with_cpus(MAX_CPUS);
	caller_id = sim_thread_id();
	memset(own, 0, sizeof(own));
	assert_int_equal(sim_cpus_run(MAX_CPUS, keep_stack_and_thread_locals, NULL, 0, st), 0);
	for (unsigned int i = 0; i < MAX_CPUS; i++) {
		assert_true(own[i].stack_kept);
		assert_int_equal(own[i].cpu_seen, i);
		assert_int_not_equal(own[i].thread_id, caller_id);
		for (unsigned int j = 0; j < i; j++)
			assert_int_not_equal(own[i].thread_id, own[j].thread_id);
		/* eight allocator calls each: the CPUs took turns */
		assert_true(st[i].clock_ns > 0);
	}
	assert_int_equal(sim_thread_id(), caller_id);
	assert_int_equal(sim_current_cpu(), 0);
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	sim_machine_destroy();
}

/* More CPUs than the machine has, or none, is refused and runs nothing. */
static void test_bad_cpu_counts_are_refused(void **state)
{
	struct workload w = { 0, 0, 1 };

	(void)state;
	boot_machine_with_cpus(2);
	sim_counters_reset();
	assert_int_equal(sim_cpus_run(3, allocate_and_free_rounds, &w, 0, NULL), -EINVAL);
	assert_int_equal(sim_cpus_run(0, allocate_and_free_rounds, &w, 0, NULL), -EINVAL);
	assert_int_equal(sim_counters.c[SIM_CNT_BUDDY_ALLOC], 0);
	sim_machine_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_cpu_waits_for_the_zone_lock_the_first_holds),
		cmocka_unit_test(test_interleaving_is_deterministic_and_locks_as_the_kernel),
		cmocka_unit_test(test_each_cpu_has_a_stack_and_thread_locals_of_its_own),
		cmocka_unit_test(test_bad_cpu_counts_are_refused),
	};

	return cmocka_run_group_tests_name("cpus", tests, NULL, NULL);
}
