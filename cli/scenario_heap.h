/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One dma-buf heap scenario, as the CLI, the report and the benchmarks run
 * it: on a machine in a given state, allocate a buffer from the system heap
 * with a given order set, attach it to a device behind an IOMMU of a given
 * format, map it, unmap it, release it, and measure every phase.
 */
#ifndef DMASIM_CLI_SCENARIO_HEAP_H
#define DMASIM_CLI_SCENARIO_HEAP_H

#include <dmasim/kapi_heap.h>
#include <dmasim/sim.h>

#include "cli.h"

struct heap_params {
	struct cli_machine machine;
	unsigned long long size;	/* buffer length */
	const char *orders;		/* "9,8,4,0"; NULL keeps the module's */
	int iommu;			/* enum sim_iommu_format_id */
};

enum heap_phase { HEAP_ALLOC, HEAP_MAP, HEAP_UNMAP, HEAP_FREE, HEAP_NR_PHASES };

struct heap_result {
	int err;			/* 0, or the -errno that stopped the run */
	const char *failed_step;	/* which step returned err */
	struct kapi_heap_layout layout;
	unsigned int sg_entries;	/* orig_nents */
	unsigned int dma_segments;	/* nents */
	struct kapi_iommu_cover cover;
	struct sim_counters phase[HEAP_NR_PHASES];
	struct sim_counters total;
	double sim_ns[HEAP_NR_PHASES];
	double wall_ms[HEAP_NR_PHASES];
	double wall_ms_total;		/* machine build and ageing included */
	unsigned long long high_order_attempts[SIM_NR_ORDERS];
	unsigned long long high_order_failures[SIM_NR_ORDERS];
	int leaked;			/* something was left behind after release */
	unsigned long free_pages;	/* free pages when the scenario began */
	unsigned long ram_pages;
};

extern const char *const heap_phase_names[HEAP_NR_PHASES];

/* The scenario on the machine as it is now (built, booted, aged). */
void heap_run_here(const struct heap_params *p, struct heap_result *res);
/* Run the scenario on a freshly built machine; fills *res (res->err). */
void heap_run(const struct heap_params *p, struct heap_result *res);
/*
 * Run n (at most HEAP_MAX_VARIANTS) variants (orders, IOMMU format, size)
 * on one machine built and aged once from p[0].machine: each variant runs
 * in a forked copy of the aged machine, so every one starts from the very
 * same free lists (and ageing is paid once).  Variants that allocate alike
 * (size and orders: the IOMMU format is not the allocator's business)
 * share one allocation: it is made once in a copy of the machine, and each
 * of them maps, unmaps and releases it in a copy of that.  Results land in
 * res[0..n).
 */
#define HEAP_MAX_VARIANTS	(2 * SIM_NR_IOMMU_FORMATS)
void heap_run_variants(const struct heap_params *p, unsigned int n,
		       struct heap_result *res);

/* Print one result as JSON (the `dmasim heap --json` object). */
void heap_result_json(struct json *j, const struct heap_params *p,
		      const struct heap_result *res);

#endif
