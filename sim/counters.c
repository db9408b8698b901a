// SPDX-License-Identifier: GPL-2.0-only
/* Counters of primitive operations and the cost model that prices them. */
#include <string.h>

#include <dmasim/sim.h>

struct sim_counters sim_counters;

static const struct {
	const char *name;
	const char *what;
	double cost_ns;
} counter_info[SIM_NR_COUNTERS] = {
#define SIM_COUNTER(id, jname, cost, descr) \
	[SIM_CNT_##id] = { .name = jname, .what = descr, .cost_ns = cost },
#include <dmasim/counters.def>
#undef SIM_COUNTER
};

const char *sim_counter_name(enum sim_counter id)
{
	return counter_info[id].name;
}

const char *sim_counter_what(enum sim_counter id)
{
	return counter_info[id].what;
}

double sim_counter_cost_ns(enum sim_counter id)
{
	return counter_info[id].cost_ns;
}

void sim_counters_reset(void)
{
	memset(&sim_counters, 0, sizeof(sim_counters));
}

void sim_counters_snapshot(struct sim_counters *snap)
{
	*snap = sim_counters;
}

void sim_counters_delta(const struct sim_counters *before,
			const struct sim_counters *after,
			struct sim_counters *delta)
{
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		delta->c[i] = after->c[i] - before->c[i];
}

double sim_cost_ns(const struct sim_counters *delta)
{
	double ns = 0;

	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		ns += (double)delta->c[i] * counter_info[i].cost_ns;
	return ns;
}
