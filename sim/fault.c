// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named fault points.  The names are libfiu's: a test (or fiu-run with
 * fiu-ctrl) enables "shim/mm/alloc_pages" and arms the sim; every shim call
 * that can fail then asks libfiu through sim_fault_check().
 */
#include <string.h>

#include <fiu.h>

#include <dmasim/sim.h>

int sim_faults_armed;
unsigned long long sim_fault_calls[SIM_NR_FAULT_POINTS];

static const struct {
	const char *name;
	const char *what;
} fault_info[SIM_NR_FAULT_POINTS] = {
#define SIM_FAULT(id, fname, descr) [SIM_FP_##id] = { fname, descr },
#include <dmasim/faults.def>
#undef SIM_FAULT
};

int sim_fault_check(enum sim_fault_point fp)
{
	return fiu_fail(fault_info[fp].name) != 0;
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
	sim_faults_armed = armed;
}

void sim_fault_calls_reset(void)
{
	memset(sim_fault_calls, 0, sizeof(sim_fault_calls));
}
