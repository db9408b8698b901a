// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sweep driver itself (tests/sweep.c) and the sim's fail-nth mode:
 * calls are numbered across points, transient and persistent loops run to
 * the end, and a scenario that leaks, or returns an errno it should not,
 * on one error path is caught on exactly that path.  The "kernel" here is
 * a few fake functions that ask the fault points as shims do.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <fiu.h>
#include <fiu-control.h>

#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"

#define NR_OBJECTS 3

/* A fake kmalloc and alloc_pages, fallible as the shim's are. */
static void *fallible_kmalloc(void)
{
	if (sim_should_fail(SIM_FP_KMALLOC))
		return NULL;
	return sim_kmalloc(32, 0);
}

static struct sim_page *fallible_alloc_page(void)
{
	if (sim_should_fail(SIM_FP_ALLOC_PAGES))
		return NULL;
	return sim_buddy_alloc(0, 0);
}

/* What each fake scenario does wrong, if anything. */
enum defect {
	NO_DEFECT,
	LEAKS_OBJECT_WHEN_SECOND_FAILS,	/* forgets object 0 on that path */
	LEAKS_PAGE_WHEN_PAGE_FAILS,	/* ... the page of the call before */
	EIO_WHEN_LAST_FAILS,		/* returns an errno not in the list */
	TEARDOWN_REPORTS_LEAK,		/* teardown calls sweep_leak() */
};

static void *objects[NR_OBJECTS];
static struct sim_page *page;
/* What the defective paths lose, freed after the sweep (for LSan). */
static void *lost[64];
static unsigned int nr_lost;
static int second_kmalloc_failed;

static int start_empty(const void *param)
{
	for (int i = 0; i < NR_OBJECTS; i++)
		objects[i] = NULL;
	page = NULL;
	second_kmalloc_failed = 0;
	return 0;
}

/*
 * Calls: #1 kmalloc, #2 kmalloc, #3 alloc_pages, #4 kmalloc; then the page
 * and object 2 are freed again: 4 points.
 */
static int allocate_three_objects_and_a_page(const void *param)
{
	enum defect d = *(const enum defect *)param;

	for (int i = 0; i < 2; i++) {
		objects[i] = fallible_kmalloc();
		if (!objects[i]) {
			second_kmalloc_failed = i == 1;
			if (i == 1 && d == LEAKS_OBJECT_WHEN_SECOND_FAILS) {
				lost[nr_lost++] = objects[0];
				objects[0] = NULL;	/* a leak */
			}
			return -ENOMEM;
		}
	}
	page = fallible_alloc_page();
	if (!page)
		return -ENOMEM;
	objects[2] = fallible_kmalloc();
	if (!objects[2]) {
		if (d == LEAKS_PAGE_WHEN_PAGE_FAILS)
			page = NULL;		/* lost */
		return d == EIO_WHEN_LAST_FAILS ? -EIO : -ENOMEM;
	}
	sim_buddy_free(page, 0);
	page = NULL;
	sim_kfree(objects[2]);
	objects[2] = NULL;
	return 0;
}

static void free_what_is_left(const void *param)
{
	enum defect d = *(const enum defect *)param;

	for (int i = 0; i < NR_OBJECTS; i++)
		sim_kfree(objects[i]);
	if (page)
		sim_buddy_free(page, 0);
	if (d == TEARDOWN_REPORTS_LEAK)
		sweep_leak("test objects", 1);
}

static const int enomem_only[] = { -ENOMEM, 0 };

/*
 * A known upstream leak, as <dmasim/impl.h> would name one: object 0 is
 * lost when call #2 (the second kmalloc) is the one that fails.
 */
static unsigned long second_kmalloc_failure_leaks_one(const void *param)
{
	return second_kmalloc_failed;
}

static struct sweep_result sweep_expecting_leak(enum defect d,
						int expect_second_kmalloc_leak)
{
	static enum defect param;
	struct sweep_scenario s = {
		.name = "driver_selftest",
		.ram_bytes = 64 * MiB,
		.setup = start_empty,
		.run = allocate_three_objects_and_a_page,
		.teardown = free_what_is_left,
		.param = &param,
		.errnos = enomem_only,
		.expected_kmalloc_leak = expect_second_kmalloc_leak ?
			second_kmalloc_failure_leaks_one : NULL,
	};
	struct sweep_result res;

	param = d;
	sweep_run(&s, &res);
	while (nr_lost)
		sim_kfree(lost[--nr_lost]);
	return res;
}

static struct sweep_result sweep_with_defect(enum defect d)
{
	return sweep_expecting_leak(d, 0);
}

/* A clean scenario: 4 points, each failed once and from then on. */
static void test_clean_scenario_has_one_run_per_point_and_mode(void **state)
{
	struct sweep_result res = sweep_with_defect(NO_DEFECT);

	assert_int_equal(res.points, 4);
	assert_int_equal(res.runs, 8);
	assert_int_equal(res.failed_runs, 8);
	assert_int_equal(res.leaks, 0);
	assert_int_equal(res.bad_errnos, 0);
	assert_false(res.setup_failed);
	assert_false(res.did_not_end);
}

/* A leaked kmalloc on one error path: that path's two runs leak. */
static void test_leaked_object_on_one_error_path_is_caught(void **state)
{
	struct sweep_result res = sweep_with_defect(LEAKS_OBJECT_WHEN_SECOND_FAILS);

	assert_int_equal(res.runs, 8);
	assert_int_equal(res.leaks, 2);		/* call #2 transient, persistent */
}

/* A leaked buddy page: caught by the buddy counts. */
static void test_leaked_page_is_caught(void **state)
{
	struct sweep_result res = sweep_with_defect(LEAKS_PAGE_WHEN_PAGE_FAILS);

	assert_int_equal(res.leaks, 2);		/* call #4, both modes */
}

/* An errno the scenario does not list is counted, not a leak. */
static void test_unexpected_errno_is_caught(void **state)
{
	struct sweep_result res = sweep_with_defect(EIO_WHEN_LAST_FAILS);

	assert_int_equal(res.bad_errnos, 2);
	assert_int_equal(res.leaks, 0);
}

/* A leak the scenario expects (a known upstream bug) is counted apart. */
static void test_expected_upstream_leak_is_counted_not_failed(void **state)
{
	struct sweep_result res =
		sweep_expecting_leak(LEAKS_OBJECT_WHEN_SECOND_FAILS, 1);

	assert_int_equal(res.runs, 8);
	assert_int_equal(res.leaks, 0);
	assert_int_equal(res.expected_leaks, 2);
}

/* An expected leak that does not happen (the tree was fixed) fails. */
static void test_expected_leak_that_does_not_happen_is_caught(void **state)
{
	struct sweep_result res = sweep_expecting_leak(NO_DEFECT, 1);

	assert_int_equal(res.leaks, 2);
	assert_int_equal(res.expected_leaks, 0);
}

/* A second leak beside the expected one is still a leak. */
static void test_leak_beside_the_expected_one_is_caught(void **state)
{
	struct sweep_result res =
		sweep_expecting_leak(LEAKS_PAGE_WHEN_PAGE_FAILS, 1);

	/* call #2: expected leak missing; call #4: the page (both modes) */
	assert_int_equal(res.leaks, 4);
	assert_int_equal(res.expected_leaks, 0);
}

/* What teardown reports with sweep_leak() is a leak of every run. */
static void test_teardown_can_report_leaks(void **state)
{
	struct sweep_result res = sweep_with_defect(TEARDOWN_REPORTS_LEAK);

	/* + the counting run and the last run of each loop (nothing fails) */
	assert_int_equal(res.leaks, res.runs + 3);
}

/* Fail-nth numbers calls across points and remembers the first failure. */
static void test_fail_nth_numbers_calls_across_points(void **state)
{
	unsigned long long kmalloc_before = sim_fault_injected[SIM_FP_KMALLOC];

	sim_fault_nth_start(3, 0);
	assert_false(sim_should_fail(SIM_FP_KMALLOC));
	assert_false(sim_should_fail(SIM_FP_ALLOC_PAGES));
	assert_true(sim_should_fail(SIM_FP_KMALLOC));
	assert_false(sim_should_fail(SIM_FP_GUP));
	assert_int_equal(sim_fault_nth_first_point(), SIM_FP_KMALLOC);
	assert_int_equal(sim_fault_nth_injected(), 1);
	assert_int_equal(sim_fault_nth_stop(), 4);
	assert_false(sim_faults_armed);
	assert_int_equal(sim_fault_injected[SIM_FP_KMALLOC], kmalloc_before + 1);

	sim_fault_nth_start(2, 1);
	assert_false(sim_should_fail(SIM_FP_GUP));
	assert_true(sim_should_fail(SIM_FP_VMAP));
	assert_true(sim_should_fail(SIM_FP_GUP));
	assert_int_equal(sim_fault_nth_first_point(), SIM_FP_VMAP);
	assert_int_equal(sim_fault_nth_injected(), 2);
	sim_fault_nth_stop();
}

/* A point enabled in libfiu still fails while fail-nth only counts. */
static void test_libfiu_points_still_work_in_fail_nth_mode(void **state)
{
	sim_fault_nth_start(0, 0);
	assert_int_equal(fiu_enable("shim/mm/alloc_pages", 1, NULL, 0), 0);
	assert_true(sim_should_fail(SIM_FP_ALLOC_PAGES));
	assert_false(sim_should_fail(SIM_FP_KMALLOC));
	fiu_disable("shim/mm/alloc_pages");
	assert_false(sim_should_fail(SIM_FP_ALLOC_PAGES));
	assert_int_equal(sim_fault_nth_injected(), 0);
	assert_int_equal(sim_fault_nth_stop(), 3);
}

/*
 * A fake kernel loop with choice points: three two-way hits; the
 * alternative of the second forgets an object.
 */
static void *choice_object;

static int start_without_object(const void *param)
{
	choice_object = NULL;
	return 0;
}

static int loop_with_three_choice_hits(const void *param)
{
	sim_choose(SIM_CH_COND_RESCHED, 2);
	choice_object = sim_kmalloc(16, 0);
	if (sim_choose(SIM_CH_COND_RESCHED, 2)) {
		lost[nr_lost++] = choice_object;
		choice_object = NULL;		/* a leak */
	}
	if (sim_choose(SIM_CH_FATAL_SIGNAL, 2))
		return -EINTR;
	sim_choose(SIM_CH_FATAL_SIGNAL, 1);	/* one way only: not numbered */
	return 0;
}

static void free_choice_object(const void *param)
{
	sim_kfree(choice_object);
}

/* Choose-nth numbers hits across points, logs them, and takes alt at nth. */
static void test_choose_nth_numbers_hits_and_logs_what_each_offered(void **state)
{
	unsigned long long before = sim_choice_taken_alt[SIM_CH_FATAL_SIGNAL][1];
	const struct sim_choice_hit *log;
	unsigned long long nr;

	sim_choice_nth_start(2, 1);
	assert_int_equal(sim_choose(SIM_CH_COND_RESCHED, 2), 0);
	assert_int_equal(sim_choose(SIM_CH_FATAL_SIGNAL, 1), 0);
	assert_int_equal(sim_choose(SIM_CH_FATAL_SIGNAL, 2), 1);
	assert_int_equal(sim_choose(SIM_CH_COND_RESCHED, 2), 0);
	assert_int_equal(sim_choice_nth_first_point(), SIM_CH_FATAL_SIGNAL);
	assert_int_equal(sim_choice_nth_taken(), 1);
	assert_int_equal(sim_choice_nth_stop(), 3);
	assert_false(sim_choices_armed);
	assert_int_equal(sim_choose(SIM_CH_FATAL_SIGNAL, 2), 0);
	assert_int_equal(sim_choice_taken_alt[SIM_CH_FATAL_SIGNAL][1], before + 1);
	log = sim_choice_nth_log(&nr);
	assert_int_equal(nr, 3);
	assert_int_equal(log[0].point, SIM_CH_COND_RESCHED);
	assert_int_equal(log[1].point, SIM_CH_FATAL_SIGNAL);
	assert_int_equal(log[1].nalt, 2);
	assert_int_equal(log[2].point, SIM_CH_COND_RESCHED);
}

/*
 * An alternative the call does not offer is not taken (nor one beyond
 * choices.def); forced ones are, capped to what the call offers.
 */
static void test_choice_offers_cap_nth_and_forced_alternatives(void **state)
{
	sim_choice_nth_start(1, 2);
	assert_int_equal(sim_choose(SIM_CH_COND_RESCHED, 2), 0);
	sim_choice_nth_stop();
	sim_choice_nth_start(1, 2);
	assert_int_equal(sim_choose(SIM_CH_COND_RESCHED, 9), 0);
	sim_choice_nth_stop();
	sim_choice_force(SIM_CH_COND_RESCHED, 5);
	assert_true(sim_choices_armed);
	assert_int_equal(sim_choose(SIM_CH_COND_RESCHED, 2), 1);
	assert_int_equal(sim_choose(SIM_CH_FATAL_SIGNAL, 2), 0);
	sim_choice_force(SIM_CH_COND_RESCHED, 0);
	assert_false(sim_choices_armed);
}

/*
 * The sweep takes every alternative of every hit once (3 runs) and catches
 * the leak of exactly one of them.
 */
static void test_choice_sweep_takes_every_alternative_and_catches_a_leak(void **state)
{
	static const int eintr[] = { -EINTR, 0 };
	struct sweep_scenario s = {
		.name = "driver_choice_selftest",
		.ram_bytes = 64ULL << 20,
		.setup = start_without_object,
		.run = loop_with_three_choice_hits,
		.teardown = free_choice_object,
		.errnos = eintr,
	};
	struct sweep_result res;

	sweep_run(&s, &res);
	while (nr_lost)
		sim_kfree(lost[--nr_lost]);
	assert_int_equal(res.points, 0);
	assert_int_equal(res.choice_hits, 3);
	assert_int_equal(res.choice_runs, 3);
	assert_int_equal(res.failed_runs, 1);
	assert_int_equal(res.leaks, 1);
	assert_int_equal(res.bad_errnos, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_scenario_has_one_run_per_point_and_mode),
		cmocka_unit_test(test_leaked_object_on_one_error_path_is_caught),
		cmocka_unit_test(test_leaked_page_is_caught),
		cmocka_unit_test(test_unexpected_errno_is_caught),
		cmocka_unit_test(test_teardown_can_report_leaks),
		cmocka_unit_test(test_expected_upstream_leak_is_counted_not_failed),
		cmocka_unit_test(test_expected_leak_that_does_not_happen_is_caught),
		cmocka_unit_test(test_leak_beside_the_expected_one_is_caught),
		cmocka_unit_test(test_fail_nth_numbers_calls_across_points),
		cmocka_unit_test(test_libfiu_points_still_work_in_fail_nth_mode),
		cmocka_unit_test(test_choose_nth_numbers_hits_and_logs_what_each_offered),
		cmocka_unit_test(test_choice_offers_cap_nth_and_forced_alternatives),
		cmocka_unit_test(test_choice_sweep_takes_every_alternative_and_catches_a_leak),
	};

	/* These scenarios make the driver report on purpose: it must go on. */
	unsetenv("DMASIM_SWEEP_ABORT");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
