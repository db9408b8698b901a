// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named fault points.  The names are libfiu's: a test (or fiu-run with
 * fiu-ctrl) enables "shim/mm/alloc_pages" and arms the sim; every shim call
 * that can fail then asks libfiu through sim_fault_check().
 *
 * Fail-nth mode (sim_fault_nth_start(), for sweeps): while it is on, every
 * armed check, at whichever point, is numbered 1, 2, ... in call order, and
 * the nth fails (with persist, the nth and every later one); libfiu is still
 * asked for the calls that mode lets through, so an enabled point keeps
 * failing.  The mode is process-global and meant for one thread: a sweep
 * drives one scenario at a time.
 */
#include <string.h>

#include <fiu.h>

#include <dmasim/sim.h>

union sim_armed sim_armed;
unsigned long long sim_fault_calls[SIM_NR_FAULT_POINTS];

static const struct {
	const char *name;
	const char *what;
} fault_info[SIM_NR_FAULT_POINTS] = {
#define SIM_FAULT(id, fname, descr) [SIM_FP_##id] = { fname, descr },
#include <dmasim/faults.def>
#undef SIM_FAULT
};

unsigned long long sim_fault_injected[SIM_NR_FAULT_POINTS];

static struct {
	int on;
	int persist;
	int was_armed;
	int first_point;		/* the point that failed first */
	unsigned long long nth;		/* 0: count only */
	unsigned long long calls;	/* checks numbered so far */
	unsigned long long injected;	/* failures this mode made */
} nth_mode = { .first_point = -1 };

int sim_fault_check(enum sim_fault_point fp)
{
	if (nth_mode.on) {
		unsigned long long n = ++nth_mode.calls;

		if (nth_mode.nth &&
		    (n == nth_mode.nth || (nth_mode.persist && n > nth_mode.nth))) {
			if (!nth_mode.injected++)
				nth_mode.first_point = fp;
			sim_fault_injected[fp]++;
			return 1;
		}
	}
	return fiu_fail(fault_info[fp].name) != 0;
}

void sim_fault_nth_start(unsigned long long nth, int persist)
{
	nth_mode.was_armed = sim_faults_armed;
	nth_mode.nth = nth;
	nth_mode.persist = persist;
	nth_mode.calls = 0;
	nth_mode.injected = 0;
	nth_mode.first_point = -1;
	sim_faults_arm(1);
	nth_mode.on = 1;
}

unsigned long long sim_fault_nth_stop(void)
{
	nth_mode.on = 0;
	sim_faults_arm(nth_mode.was_armed);
	return nth_mode.calls;
}

unsigned long long sim_fault_nth_calls(void)
{
	return nth_mode.calls;
}

unsigned long long sim_fault_nth_injected(void)
{
	return nth_mode.injected;
}

int sim_fault_nth_first_point(void)
{
	return nth_mode.first_point;
}

const char *sim_fault_name(enum sim_fault_point fp)
{
	return fault_info[fp].name;
}

const char *sim_fault_what(enum sim_fault_point fp)
{
	return fault_info[fp].what;
}

int sim_fault_lookup(const char *name)
{
	for (int i = 0; i < SIM_NR_FAULT_POINTS; i++)
		if (!strcmp(fault_info[i].name, name))
			return i;
	return -1;
}

void sim_faults_arm(int armed)
{
	static int fiu_ready;

	if (armed && !fiu_ready) {
		fiu_init(0);
		fiu_ready = 1;
	}
	sim_faults_armed = armed != 0;
}

void sim_fault_calls_reset(void)
{
	memset(sim_fault_calls, 0, sizeof(sim_fault_calls));
}
