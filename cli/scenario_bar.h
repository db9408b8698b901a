/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VFIO type1 BAR scenario (cmd_bar.c): a BAR mmap'd with leaves of one
 * level, mapped with VFIO_IOMMU_MAP_DMA and unmapped; shared by `dmasim
 * bar`, `dmasim report` and `dmasim bench`.
 */
#ifndef DMASIM_CLI_SCENARIO_BAR_H
#define DMASIM_CLI_SCENARIO_BAR_H

#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

struct bar_opts {
	unsigned long long size, offset, ram;
	int leaf;			/* KAPI_MM_LEAF_* */
	int legacy_mask;
	int json;
	int fmt;			/* enum sim_iommu_format_id */
};

struct bar_result {
	struct sim_counters map, unmap;	/* deltas */
	unsigned long long leaves_by_shift[64];
	unsigned long long unmapped;
	double map_ms, unmap_ms;	/* wall */
	double map_cpu_ms, unmap_cpu_ms;
	long max_rss_kib;
};

void bar_opts_defaults(struct bar_opts *o);
unsigned long long bar_leaf_bytes(int leaf);
/* 0, or -1 with a message on stderr.  Builds and destroys its machine. */
int bar_run(const struct bar_opts *o, struct bar_result *r);

#endif
