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
 * still there, its thread id, CPU number, held locks and RCU read depth
 * stay its own and differ from the others' and the caller's, and the
 * caller finds its own again.
 */
#define STACK_KEPT	(256 * 1024)

struct own_state {
	unsigned long thread_id;
	unsigned int cpu_seen;
	int stack_kept, locks_own;
};
static struct own_state own[MAX_CPUS];
/* One lock per CPU (and one for the caller), each of a class of its own. */
static unsigned long own_lock[MAX_CPUS + 1];
static int own_lock_key[MAX_CPUS + 1];

static void own_lock_take(unsigned int i)
{
	assert_int_equal(sim_lock_acquire(&own_lock[i], &own_lock_key[i], 0,
					  SIM_LOCK_WRITE, "own_lock", __FILE__,
					  __LINE__), 0);
}

/* Locks held: exactly own_lock[i], and an RCU read depth of depth. */
static int holds_only(unsigned int i, unsigned int depth)
{
	int ok = sim_locks_held() == 1 && sim_rcu_read_depth() == depth;

	for (unsigned int j = 0; j <= MAX_CPUS; j++)
		ok &= sim_lock_held(&own_lock[j], -1) == (j == i);
	return ok;
}

static void keep_stack_and_thread_locals(unsigned int cpu, void *arg)
{
	unsigned char kept[STACK_KEPT];
	int ok = 1, locks_ok = 1;

	(void)arg;
	memset(kept, 0x11 * (cpu + 1), sizeof(kept));
	own[cpu].thread_id = sim_thread_id();
	/* a new thread's: nothing held, no RCU read side */
	locks_ok &= sim_locks_held() == 0 && sim_rcu_read_depth() == 0;
	own_lock_take(cpu);
	for (unsigned int i = 0; i < cpu + 1; i++)
		sim_rcu_read_lock();
	for (unsigned int r = 0; r < 8; r++) {
		struct sim_page *page = sim_buddy_alloc(0, 0);

		if (!page || sim_current_cpu() != cpu || sim_thread_id() != own[cpu].thread_id)
			ok = 0;
		locks_ok &= holds_only(cpu, cpu + 1);
		if (page)
			sim_buddy_free(page, 0);
	}
	for (size_t i = 0; i < sizeof(kept); i++)
		ok &= kept[i] == (unsigned char)(0x11 * (cpu + 1));
	for (unsigned int i = 0; i < cpu + 1; i++)
		sim_rcu_read_unlock(__FILE__, __LINE__);
	sim_lock_release(&own_lock[cpu], "own_lock", __FILE__, __LINE__);
	own[cpu].cpu_seen = sim_current_cpu();
	own[cpu].stack_kept = ok;
	own[cpu].locks_own = locks_ok;
}

static void test_each_cpu_has_a_stack_and_thread_locals_of_its_own(void **state)
{
	unsigned long caller_id;
	unsigned long long reports;
	struct sim_cpu_stats st[MAX_CPUS];

	(void)state;
	boot_machine_with_cpus(MAX_CPUS);
	caller_id = sim_thread_id();
	reports = sim_lockdep_reports_total();
	memset(own, 0, sizeof(own));
	own_lock_take(MAX_CPUS);
	sim_rcu_read_lock();
	assert_int_equal(sim_cpus_run(MAX_CPUS, keep_stack_and_thread_locals, NULL, 0, st), 0);
	for (unsigned int i = 0; i < MAX_CPUS; i++) {
		assert_true(own[i].stack_kept);
		assert_true(own[i].locks_own);
		assert_int_equal(own[i].cpu_seen, i);
		assert_int_not_equal(own[i].thread_id, caller_id);
		for (unsigned int j = 0; j < i; j++)
			assert_int_not_equal(own[i].thread_id, own[j].thread_id);
		/* eight allocator calls each: the CPUs took turns */
		assert_true(st[i].clock_ns > 0);
	}
	assert_int_equal(sim_thread_id(), caller_id);
	assert_int_equal(sim_current_cpu(), 0);
	assert_true(holds_only(MAX_CPUS, 1));
	sim_rcu_read_unlock(__FILE__, __LINE__);
	sim_lock_release(&own_lock[MAX_CPUS], "own_lock", __FILE__, __LINE__);
	assert_int_equal(sim_lockdep_reports_total(), reports);
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	sim_machine_destroy();
}

/*
 * The lock checker's memos are each CPU's own, and forgetting the lock
 * order (sim_lockdep_forget_order(), here on CPU 0 while the others wait
 * at an allocator call) empties every CPU's: each checks its next A -> B
 * in full again, where before it hit its memos.
 */
static unsigned long order_a, order_b;
static int order_a_key, order_b_key;
static int order_forgotten;
static unsigned long long full_before[MAX_CPUS], full_after[MAX_CPUS];

static unsigned long long take_a_then_b(void)
{
	unsigned long long before = sim_lockdep_full_checks();

	assert_int_equal(sim_lock_acquire(&order_a, &order_a_key, 0, SIM_LOCK_WRITE,
					  "order_a", __FILE__, __LINE__), 0);
	assert_int_equal(sim_lock_acquire(&order_b, &order_b_key, 0, SIM_LOCK_WRITE,
					  "order_b", __FILE__, __LINE__), 0);
	sim_lock_release(&order_b, "order_b", __FILE__, __LINE__);
	sim_lock_release(&order_a, "order_a", __FILE__, __LINE__);
	return sim_lockdep_full_checks() - before;
}

static void allocate_and_free_one(void)
{
	struct sim_page *page = sim_buddy_alloc(0, 0);

	assert_non_null(page);
	sim_buddy_free(page, 0);
}

static void forget_order_on_cpu_0(unsigned int cpu, void *arg)
{
	(void)arg;
	take_a_then_b();
	full_before[cpu] = take_a_then_b();
	allocate_and_free_one();
	if (cpu == 0) {
		sim_lockdep_forget_order();
		order_forgotten = 1;
	}
	while (!order_forgotten)
		allocate_and_free_one();
	full_after[cpu] = take_a_then_b();
}

static void test_forgetting_the_lock_order_reaches_every_cpu(void **state)
{
	unsigned long long reports;

	(void)state;
	boot_machine_with_cpus(MAX_CPUS);
	reports = sim_lockdep_reports_total();
	order_forgotten = 0;
	assert_int_equal(sim_cpus_run(MAX_CPUS, forget_order_on_cpu_0, NULL, 0, NULL), 0);
	for (unsigned int i = 0; i < MAX_CPUS; i++) {
		print_message("CPU %u: full checks %llu before, %llu after\n", i,
			      full_before[i], full_after[i]);
		assert_int_equal(full_before[i], 0);
		assert_int_equal(full_after[i], 2);
	}
	assert_int_equal(sim_lockdep_reports_total(), reports);
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
		cmocka_unit_test(test_forgetting_the_lock_order_reaches_every_cpu),
		cmocka_unit_test(test_bad_cpu_counts_are_refused),
	};

	return cmocka_run_group_tests_name("cpus", tests, NULL, NULL);
}
