/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Alloc + close on many CPUs: N simulated CPUs each run rounds of
 * DMA_HEAP_IOCTL_ALLOC of one buffer and close() of its fd, through the
 * kernel code, concurrently in modelled time (sim_cpus_run: the zone lock
 * contended, per-cpu lists per CPU), on a fresh machine.
 */
#ifndef DMASIM_CLI_SCENARIO_THREADS_H
#define DMASIM_CLI_SCENARIO_THREADS_H

#include "cli.h"

struct threads_params {
	unsigned long long size;	/* buffer length */
	const char *orders;		/* system_heap.orders */
	unsigned int cpus;
	unsigned int rounds;		/* alloc + close per CPU */
	unsigned long long ram;
	int zeroing;			/* 1: zeroing costed (the kernel); 0: pages come zeroed */
};

struct threads_result {
	int err;			/* 0, or the -errno that stopped a CPU */
	double us_per_buffer;		/* makespan / rounds: one CPU's time per buffer */
	double wait_us_per_buffer;	/* of it, zone-lock waiting (mean over CPUs) */
	double zero_us_per_buffer;	/* of it, zeroing (0 when not costed) */
	unsigned long long zone_lock_takes, lock_wait_ns, buffers;
	unsigned long long pcp_hits;
};

void threads_run(const struct threads_params *p, struct threads_result *r);
/* Rounds that make a run of this buffer size long enough to reach steady state. */
unsigned int threads_default_rounds(unsigned long long size);

#endif
