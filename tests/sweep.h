/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fail-nth sweeps: make every error path of a scenario run, and prove that
 * each one unwinds completely (the pattern of the kernel's iommufd_fail_nth
 * selftest and of SQLite's out-of-memory loops).
 *
 * A scenario is setup (no faults), run (the part under injection) and
 * teardown (no faults; it undoes whatever run left, success or not).  The
 * driver, sweep_run():
 *  1. runs it twice with nothing failing: once to let one-time kernel state
 *     settle (caches, the fd table; nothing is checked), once counting the calls that could
 *     fail (C, "points": every sim_should_fail() call during run, at any
 *     fault point, via the sim's fail-nth mode, include/dmasim/sim.h);
 *  2. for N = 1, 2, ... fails call N only (transient), until a run makes no
 *     call N; then again failing call N and every later one (persistent);
 *     then, choose-nth: for every hit H of a choice point in the clean run
 *     (include/dmasim/choices.def: GUP pins fewer pages, a fatal signal
 *     arrives, ...) and every alternative K the call offered, a run where
 *     hit H takes alternative K and every other hit the default;
 *  3. after every run checks that run returned 0 or one of the scenario's
 *     errnos, and that after teardown nothing is left: the whole leak
 *     snapshot of shared.h (kmalloc'd objects, buddy pages allocated and
 *     free, pins, IOMMU domains and devices, IOMMU leaves freed with their
 *     domain, vmaps, WARNs, open descriptors, VFIO containers, locked_vm);
 *     plus what teardown itself reports with sweep_leak() (locked_vm of a
 *     process it destroyed, per-domain leaves).
 * Each run gets a freshly built machine (sim_machine_init), so no state
 * carries from one run into the next.
 *
 * It prints "<name>: P points, R runs, L leaks, H choice hits, C choice runs"
 * (R counts the runs that injected a failure, C those that took an
 * alternative, L counts both kinds; a scenario with expected_kmalloc_leak
 * adds ", E expected upstream leaks"), and one line per leak or unexpected
 * errno naming the call that failed.  Plain C, no cmocka: a test asserts on the result.
 * With DMASIM_SWEEP_ABORT=1 in the environment the first such line aborts
 * the program instead (as CMOCKA_TEST_ABORT=1 makes cmocka abort at a
 * test's first failure).
 */
#ifndef DMASIM_TESTS_SWEEP_H
#define DMASIM_TESTS_SWEEP_H

#include <stddef.h>

#include <dmasim/impl.h>
#include <dmasim/sim.h>

/*
 * For a type1 scenario's errnos: -EIO where a failed IOMMU domain
 * allocation fails the attach with it (6.1,
 * DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO), else -ENOMEM again (listed
 * already), so the entry never ends the list.
 */
#define SWEEP_DOMAIN_ALLOC_EIO \
	(DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO ? -EIO : -ENOMEM)

struct sweep_scenario {
	const char *name;
	/* Machine size; 0: 256 MiB. */
	unsigned long long ram_bytes;
	/* Build the starting state, faults off; nonzero aborts the sweep. */
	int (*setup)(const void *param);
	/* The part under injection: 0, or the negative errno it returned. */
	int (*run)(const void *param);
	/* Undo whatever run and setup left, faults off. */
	void (*teardown)(const void *param);
	const void *param;
	/* Negative errnos run may return besides 0, ended by 0. */
	const int *errnos;
	/*
	 * A WARN the kernel gives on one of the error paths (say which in the
	 * scenario): a run may WARN if the last kernel log message contains
	 * this.  NULL: any WARN is a defect.
	 */
	const char *expected_warning;
	/*
	 * A leak a kernel tree is known to have (a real upstream bug, named
	 * by a predicate of <dmasim/impl.h>): called after teardown, returns
	 * how many kmalloc'd objects this run must leave behind (0: none).
	 * A run that leaves exactly that many counts as an "expected upstream
	 * leak"; one that leaves fewer or more counts as a leak.  NULL: no
	 * leak is expected, and the report line has no expected count.
	 */
	unsigned long (*expected_kmalloc_leak)(const void *param);
};

struct sweep_result {
	unsigned long long points;	/* fallible calls of one clean run */
	unsigned long long runs;	/* runs that injected a failure */
	unsigned long long choice_hits;	/* choice hits of one clean run */
	unsigned long long choice_runs;	/* runs that took an alternative */
	unsigned long long leaks;	/* runs that left something behind */
	unsigned long long expected_leaks; /* runs that left just the expected upstream leak */
	unsigned long long bad_errnos;	/* runs that returned an errno not listed */
	unsigned long long failed_runs;	/* injecting runs whose run() returned an error */
	int setup_failed;		/* setup or a clean run failed */
	int did_not_end;		/* a loop hit its run limit */
};

/* Sweep one scenario; 0 if clean (no leak, no bad errno), else -1. */
int sweep_run(const struct sweep_scenario *sc, struct sweep_result *res);

/*
 * From teardown: report something left behind that only the scenario can
 * see (locked_vm of its process, leaves of its domain).  Counts as a leak
 * of the current run.
 */
void sweep_leak(const char *what, long long delta);

/*
 * From teardown: the failures injected at one point during this run (so a
 * teardown can tell a killed process, one whose killable lock failed, from
 * a live one).
 */
unsigned long long sweep_run_failures_at(enum sim_fault_point fp);
/* From teardown: the alternatives taken at one choice point this run. */
unsigned long long sweep_run_choices_at(enum sim_choice_point cp);
/*
 * From teardown: the run's process was being killed (a SIGKILL arrived, or
 * a killable lock gave -EINTR), so it exits and its mm's locked_vm goes
 * with it.
 */
int sweep_run_killed(void);

/* Totals over every sweep_run() of the process. */
struct sweep_totals {
	unsigned long long scenarios, points, runs, leaks, bad_errnos;
	unsigned long long choice_hits, choice_runs;
	unsigned long long expected_leaks;
};
void sweep_totals(struct sweep_totals *t);

/*
 * The fault points this process injected a failure at ("name") and the
 * alternatives of choice points it took ("name:k"), sweeps only, one a line, written atomically to path.  0 or -errno.
 */
int sweep_write_reached(const char *path);
/*
 * sweep_write_reached() beside the running executable: "<exe>.reached",
 * or "<exe>.part-K-of-N.reached" for a run of one part (--part K/N).
 */
int sweep_write_reached_beside_exe(void);

/* A sweep test's argv asks for its longer sweep (--slow, suite 'slow'). */
int sweep_slow_requested(int argc, char **argv);
/*
 * Parts: one long sweep run as N processes that meson runs at once
 * (tests/meson.build, sweep_parts).  "--part K/N" in argv (1 <= K <= N)
 * makes this process sweep only its share of the scenarios: the test asks
 * sweep_take_turn() once per scenario, in the same order in every part,
 * and sweeps the scenario when it answers 1 (every Nth, from the Kth).
 * The N parts together sweep every scenario exactly once.  Without
 * --part every turn is taken.  Returns 0, or -1 for a malformed --part
 * (the test then fails).
 */
int sweep_part_requested(int argc, char **argv);
int sweep_take_turn(void);
/*
 * A sweep test's exit status: its cmocka result, or 1 if the default
 * sweep's reach file (read by test_sweep_reach.c) cannot be written.
 */
int sweep_exit_status(int ret, int slow);

#endif
