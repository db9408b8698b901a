// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fail-nth and choose-nth sweep driver (see sweep.h for the contract).
 * It relies on the sim's fail-nth and choose-nth modes for the numbering of
 * fallible calls and choice hits and on the
 * sim's and kapi's counters for the invariants.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"

/* Print at most this many problem lines per scenario. */
#define SWEEP_MAX_REPORTS	12
/* A loop gives up after points * this + SWEEP_RUN_SLACK runs. */
#define SWEEP_RUN_FACTOR	4
#define SWEEP_RUN_SLACK		64

/* What one run injects: fallible call nth fails, or hit choice_nth takes choice_alt. */
struct sweep_injection {
	unsigned long long nth;
	int persist;
	unsigned long long choice_nth;
	unsigned int choice_alt;
};

struct sweep_run_state {
	const struct sweep_scenario *sc;
	unsigned long long injected_at_start[SIM_NR_FAULT_POINTS];
	unsigned long long taken_at_start[SIM_NR_CHOICE_POINTS];
	struct sweep_result *res;
	unsigned int reports;
	struct sweep_injection inj;
	int leaked;			/* sweep_leak() during this run */
};

static struct sweep_run_state *cur;
static struct sweep_totals totals;

static const char *run_kind(const struct sweep_run_state *st)
{
	if (!st->inj.nth)
		return "no failure injected";
	return st->inj.persist ? "persistent" : "transient";
}

/*
 * DMASIM_SWEEP_ABORT=1: abort at the sweep's first problem instead of
 * running every point (tools/mutation.py sets it, with cmocka's
 * CMOCKA_TEST_ABORT=1: one failure kills a mutant).
 */
static void stop_here_if_asked(void)
{
	const char *env = getenv("DMASIM_SWEEP_ABORT");

	if (env && !strcmp(env, "1")) {
		fflush(stdout);
		abort();
	}
}

static void report(struct sweep_run_state *st, const char *fmt, long long a,
		   const char *b)
{
	int fp = sim_fault_nth_first_point();
	int cp = sim_choice_nth_first_point();

	if (st->reports++ >= SWEEP_MAX_REPORTS)
		return;
	if (st->inj.choice_nth)
		printf("%s: choice #%llu (%s, alternative %u): ", st->sc->name,
		       st->inj.choice_nth, cp >= 0 ? sim_choice_name(cp) : "-",
		       st->inj.choice_alt);
	else
		printf("%s: call #%llu (%s, %s): ", st->sc->name, st->inj.nth,
		       fp >= 0 ? sim_fault_name(fp) : "-", run_kind(st));
	printf(fmt, a, b);
	putchar('\n');
	stop_here_if_asked();
}

void sweep_leak(const char *what, long long delta)
{
	if (!cur)
		return;
	cur->leaked = 1;
	report(cur, "%+lld %s left after teardown", delta, what);
}

/* The last WARN is the one the scenario says the kernel gives here. */
static int warning_expected(const struct sweep_scenario *sc)
{
	const char *last = sim_klog_last();

	return sc->expected_warning && last &&
	       strstr(last, sc->expected_warning);
}

unsigned long long sweep_run_failures_at(enum sim_fault_point fp)
{
	if (!cur)
		return 0;
	return sim_fault_injected[fp] - cur->injected_at_start[fp];
}

unsigned long long sweep_run_choices_at(enum sim_choice_point cp)
{
	if (!cur)
		return 0;
	return sim_choice_taken[cp] - cur->taken_at_start[cp];
}

int sweep_run_killed(void)
{
	return sweep_run_failures_at(SIM_FP_ACCOUNT_LOCKED_VM) ||
	       sweep_run_choices_at(SIM_CH_FATAL_SIGNAL);
}

static void report_after_teardown(void *ctx, const char *msg)
{
	/* "%.0lld" prints nothing for the unused number. */
	report(ctx, "%.0lld%s after teardown", 0, msg);
}

/* Compare after against before; report every difference; 1 if any. */
static int check_nothing_left(struct sweep_run_state *st,
			      const struct leak_snapshot *b,
			      const struct leak_snapshot *a,
			      unsigned long expected_kmalloc)
{
	return leak_snapshot_diff(b, a, LEAK_ALL, expected_kmalloc,
				   warning_expected(st->sc),
				   report_after_teardown, st);
}

static int errno_expected(const struct sweep_scenario *sc, int ret)
{
	if (!ret)
		return 1;
	for (const int *e = sc->errnos; e && *e; e++)
		if (*e == ret)
			return 1;
	return 0;
}

static int new_machine(const struct sweep_scenario *sc)
{
	struct sim_config cfg = {
		.ram_bytes = sc->ram_bytes ? sc->ram_bytes : 256 * MiB,
	};
	int ret = sim_machine_init(&cfg);

	if (!ret)
		ret = kapi_boot();
	return ret;
}

/*
 * One run on a fresh machine, injecting what inj says (nothing: all 0).
 * Returns the number of fallible calls run made; the outcome goes into
 * st/res.
 */
static unsigned long long run_once(struct sweep_run_state *st,
				   const struct sweep_injection *inj,
				   int check)
{
	const struct sweep_scenario *sc = st->sc;
	struct leak_snapshot before, after;
	unsigned long long calls, injected;
	unsigned long expected = 0;
	int ret, bad = 0;

	st->inj = *inj;
	st->leaked = 0;
	if (new_machine(sc)) {
		printf("%s: the machine cannot be built\n", sc->name);
		st->res->setup_failed = 1;
		return 0;
	}
	leak_snapshot_take(&before);
	if (sc->setup && sc->setup(sc->param)) {
		printf("%s: setup failed\n", sc->name);
		st->res->setup_failed = 1;
		sim_machine_destroy();
		return 0;
	}
	memcpy(st->injected_at_start, sim_fault_injected,
	       sizeof(st->injected_at_start));
	memcpy(st->taken_at_start, sim_choice_taken,
	       sizeof(st->taken_at_start));
	sim_fault_nth_start(inj->nth, inj->persist);
	sim_choice_nth_start(inj->choice_nth, inj->choice_alt);
	ret = sc->run(sc->param);
	injected = sim_fault_nth_injected() + sim_choice_nth_taken();
	calls = sim_fault_nth_stop();
	sim_choice_nth_stop();
	/* A SIGKILL a choice sent was delivered: teardown runs unsignalled. */
	kapi_task_set_fatal_signal(0);

	cur = check ? st : NULL;
	if (sc->teardown)
		sc->teardown(sc->param);
	if (sc->expected_kmalloc_leak)
		expected = sc->expected_kmalloc_leak(sc->param);
	cur = NULL;
	leak_snapshot_take(&after);
	sim_machine_destroy();
	if (!check)
		return calls;

	if (!errno_expected(sc, ret)) {
		report(st, "returned %lld%s", ret, "");
		st->res->bad_errnos++;
	}
	if (!injected && ret) {
		report(st, "failed with %lld when nothing was made to fail", ret, "");
		st->res->setup_failed = 1;
	}
	bad = check_nothing_left(st, &before, &after, expected) || st->leaked;
	st->res->leaks += bad;
	st->res->expected_leaks += expected && !bad;
	if (injected) {
		if (inj->choice_nth)
			st->res->choice_runs++;
		else
			st->res->runs++;
		st->res->failed_runs += ret != 0;
	}
	return calls;
}

static void sweep_loop(struct sweep_run_state *st, int persist,
		       unsigned long long limit)
{
	for (unsigned long long nth = 1; ; nth++) {
		if (nth > limit) {
			printf("%s: %s loop still injecting after %llu runs\n",
			       st->sc->name, persist ? "persistent" : "transient",
			       limit);
			st->res->did_not_end = 1;
			stop_here_if_asked();
			return;
		}
		struct sweep_injection inj = { .nth = nth, .persist = persist };

		if (run_once(st, &inj, 1) < nth)
			return;
	}
}

/*
 * Choose-nth: every alternative of every choice hit the clean run logged,
 * one per run.  Runs before hit n are the clean run's, so hit n offers
 * what the log says.
 */
static void choice_loop(struct sweep_run_state *st,
			const struct sim_choice_hit *log,
			unsigned long long nr)
{
	for (unsigned long long n = 1; n <= nr; n++) {
		for (unsigned int k = 1; k < log[n - 1].nalt; k++) {
			struct sweep_injection inj = {
				.choice_nth = n, .choice_alt = k,
			};

			run_once(st, &inj, 1);
		}
	}
}

int sweep_run(const struct sweep_scenario *sc, struct sweep_result *res)
{
	static const struct sweep_injection none;
	struct sweep_run_state st = { .sc = sc, .res = res };
	const struct sim_choice_hit *log;
	struct sim_choice_hit *hits;
	unsigned long long limit, nr;

	memset(res, 0, sizeof(*res));
	/* Warm-up: one-time kernel state (fd table, caches) settles here. */
	run_once(&st, &none, 0);
	res->points = run_once(&st, &none, 1);
	log = sim_choice_nth_log(&nr);
	res->choice_hits = nr;
	hits = malloc(nr * sizeof(*hits) + 1);
	if (!hits) {
		res->setup_failed = 1;
		nr = 0;
	} else if (nr) {
		memcpy(hits, log, nr * sizeof(*hits));
	}
	if (!res->setup_failed) {
		limit = res->points * SWEEP_RUN_FACTOR + SWEEP_RUN_SLACK;
		sweep_loop(&st, 0, limit);
		sweep_loop(&st, 1, limit);
		choice_loop(&st, hits, nr);
	}
	free(hits);
	printf("%s: %llu points, %llu runs, %llu leaks, %llu choice hits, %llu choice runs",
	       sc->name, res->points, res->runs, res->leaks, res->choice_hits,
	       res->choice_runs);
	if (sc->expected_kmalloc_leak)
		printf(", %llu expected upstream leaks", res->expected_leaks);
	putchar('\n');
	if (res->bad_errnos)
		printf("%s: %llu runs returned an errno the kernel does not return there\n",
		       sc->name, res->bad_errnos);
	fflush(stdout);

	totals.scenarios++;
	totals.points += res->points;
	totals.runs += res->runs;
	totals.choice_hits += res->choice_hits;
	totals.choice_runs += res->choice_runs;
	totals.leaks += res->leaks;
	totals.expected_leaks += res->expected_leaks;
	totals.bad_errnos += res->bad_errnos;
	return res->leaks || res->bad_errnos || res->setup_failed ||
	       res->did_not_end ? -1 : 0;
}

void sweep_totals(struct sweep_totals *t)
{
	*t = totals;
}

int sweep_write_reached(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	for (int fp = 0; fp < SIM_NR_FAULT_POINTS; fp++)
		if (sim_fault_injected[fp])
			fprintf(f, "%s\n", sim_fault_name(fp));
	for (int cp = 0; cp < SIM_NR_CHOICE_POINTS; cp++)
		for (unsigned int k = 1; k < sim_choice_nalt(cp); k++)
			if (sim_choice_taken_alt[cp][k])
				fprintf(f, "%s:%u\n", sim_choice_name(cp), k);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

/* This process's part of its sweep (--part K/N): 1/1 when whole. */
static unsigned int part_k = 1, part_n = 1, turns;

int sweep_write_reached_beside_exe(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);

	if (n < 0)
		return -errno;
	if (part_n > 1)
		snprintf(path + n, 64, ".part-%u-of-%u.reached", part_k, part_n);
	else
		strcpy(path + n, ".reached");
	return sweep_write_reached(path);
}

int sweep_slow_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--slow"))
			return 1;
	return 0;
}

int sweep_part_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		unsigned int k, n;
		char end;

		if (strcmp(argv[i], "--part"))
			continue;
		if (i + 1 >= argc ||
		    sscanf(argv[i + 1], "%u/%u%c", &k, &n, &end) != 2 ||
		    !k || k > n) {
			fprintf(stderr, "--part wants K/N with 1 <= K <= N\n");
			return -1;
		}
		part_k = k;
		part_n = n;
	}
	return 0;
}

int sweep_take_turn(void)
{
	return turns++ % part_n == part_k - 1;
}

int sweep_exit_status(int ret, int slow)
{
	/* The reach test reads what the default sweep reaches. */
	if (!slow && sweep_write_reached_beside_exe())
		return 1;
	return ret;
}
