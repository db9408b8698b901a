// SPDX-License-Identifier: GPL-2.0-only
/* Alloc + close on N simulated CPUs (see scenario_threads.h). */
#include <errno.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>

#include "scenario_threads.h"

struct worker {
	const struct threads_params *p;
	int heap_fd;
	int err;
};

static void alloc_close_rounds(unsigned int cpu, void *arg)
{
	struct worker *w = arg;

	(void)cpu;
	for (unsigned int r = 0; r < w->p->rounds && !w->err; r++) {
		int fd = kapi_heap_alloc(w->heap_fd, w->p->size, KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);

		if (fd < 0) {
			w->err = fd;
			break;
		}
		kapi_close(fd);
	}
}

unsigned int threads_default_rounds(unsigned long long size)
{
	unsigned long long r = (256ULL << 20) / (size ? size : 1);

	return r < 4 ? 4 : r > 64 ? 64 : (unsigned int)r;
}

void threads_run(const struct threads_params *p, struct threads_result *r)
{
	struct cli_machine m;
	struct sim_cpu_stats st[64];
	struct worker w = { .p = p, .heap_fd = -1 };
	double makespan = 0, wait = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	cli_machine_defaults(&m);
	m.ram = p->ram;
	m.cpus = p->cpus;
	ret = cli_machine_start(&m);
	if (!ret)
		ret = kapi_param_set("system_heap.orders", p->orders);
	if (!ret) {
		w.heap_fd = kapi_heap_open("system");
		ret = w.heap_fd < 0 ? w.heap_fd : 0;
	}
	if (!ret)
		ret = sim_cpus_run(p->cpus, alloc_close_rounds, &w,
				   p->zeroing ? 0 : 1ULL << SIM_CNT_PAGE_ZEROED, st);
	if (!ret)
		ret = w.err;
	if (!ret) {
		for (unsigned int i = 0; i < p->cpus; i++) {
			if (st[i].clock_ns > makespan)
				makespan = st[i].clock_ns;
			wait += st[i].wait_ns;
		}
		r->buffers = (unsigned long long)p->cpus * p->rounds;
		r->us_per_buffer = makespan / p->rounds / 1e3;
		r->wait_us_per_buffer = wait / r->buffers / 1e3;
		r->zone_lock_takes = sim_counters.c[SIM_CNT_ZONE_LOCK];
		r->lock_wait_ns = sim_counters.c[SIM_CNT_ZONE_LOCK_WAIT];
		r->pcp_hits = sim_counters.c[SIM_CNT_PCP_HIT];
		if (p->zeroing)
			r->zero_us_per_buffer = sim_counters.c[SIM_CNT_PAGE_ZEROED] *
				sim_counter_cost_ns(SIM_CNT_PAGE_ZEROED) / r->buffers / 1e3;
	}
	r->err = ret;
	if (w.heap_fd >= 0)
		kapi_close(w.heap_fd);
	sim_machine_destroy();
}
