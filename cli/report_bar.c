// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VFIO type1 sections of `dmasim report` and `dmasim bench`: a 32 GiB
 * BAR mapped for DMA with PUD, PMD and PTE leaves, before the huge-pfnmap
 * series (follow_pfnmap reports PAGE_MASK: one lookup per 4 KiB page) and
 * after it (addr_mask: one lookup per leaf), and 4 GiB of anonymous memory
 * pinned and mapped.
 */
#include <stdio.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_vfio.h>

#include "bench.h"
#include "cli.h"
#include "report.h"
#include "scenario_bar.h"

#define BAR_SIZE	(32ULL << 30)

static const struct {
	int leaf;
	const char *name;
} bar_leaves[] = {
	{ KAPI_MM_LEAF_PUD, "pud" },
	{ KAPI_MM_LEAF_PMD, "pmd" },
	{ KAPI_MM_LEAF_PTE, "pte" },
};
#define NR_BAR_LEAVES	(sizeof(bar_leaves) / sizeof(bar_leaves[0]))

/* [leaf][after] */
static struct bar_result bar_grid[NR_BAR_LEAVES][2];
static int bar_err[NR_BAR_LEAVES][2];
static int bar_done;

static void run_bar_grid(void)
{
	if (bar_done)
		return;
	for (unsigned int l = 0; l < NR_BAR_LEAVES; l++)
		for (int after = 0; after < 2; after++) {
			struct bar_opts o;

			bar_opts_defaults(&o);
			o.size = BAR_SIZE;
			o.leaf = bar_leaves[l].leaf;
			o.legacy_mask = !after;
			bar_err[l][after] = bar_run(&o, &bar_grid[l][after]);
		}
	bar_done = 1;
}

void report_bar_text(void)
{
	const struct bar_result *pb, *pa;
	char sim[64];

	run_bar_grid();
	printf("== 6. VFIO type1: a 32 GiB BAR mapped with VFIO_IOMMU_MAP_DMA and unmapped\n"
	       "   (intel-sl).  before: follow_pfnmap reports PAGE_MASK (Linux < 6.15);\n"
	       "   after: addr_mask.  Modelled time, and the simulator's own wall time.\n\n");
	printf("%-4s %-6s %11s %10s %12s %10s %12s %10s\n", "leaf", "", "pfn lookups",
	       "GUP calls", "map model", "map wall", "unmap model", "unmap wall");
	printf("%-4s %-6s %11s %10s %12s %10s %12s %10s\n", "", "", "", "", "ms", "ms", "ms",
	       "ms");
	for (unsigned int l = 0; l < NR_BAR_LEAVES; l++)
		for (int after = 0; after < 2; after++) {
			const struct bar_result *r = &bar_grid[l][after];

			if (bar_err[l][after]) {
				printf("%-4s %-6s failed\n", bar_leaves[l].name,
				       after ? "after" : "before");
				continue;
			}
			printf("%-4s %-6s %11llu %10llu %12.3f %10.1f %12.3f %10.1f\n",
			       bar_leaves[l].name, after ? "after" : "before",
			       r->map.c[SIM_CNT_PFN_LOOKUP], r->map.c[SIM_CNT_GUP_CALL],
			       sim_cost_ns(&r->map) / 1e6, r->map_ms,
			       sim_cost_ns(&r->unmap) / 1e6, r->unmap_ms);
		}
	pb = &bar_grid[0][0];
	pa = &bar_grid[0][1];
	printf("\n%-30s %-24s %s\n", "figure", "published", "simulated");
	snprintf(sim, sizeof(sim), "%llu lookups, %.3f s modelled",
		 pb->map.c[SIM_CNT_PFN_LOOKUP], sim_cost_ns(&pb->map) / 1e9);
	printf("%-30s %-24s %s\n", "32 GiB PUD BAR, before", "8,388,608 lookups, ~1 s", sim);
	snprintf(sim, sizeof(sim), "%llu lookups, %.3f ms modelled",
		 pa->map.c[SIM_CNT_PFN_LOOKUP], sim_cost_ns(&pa->map) / 1e6);
	printf("%-30s %-24s %s\n", "32 GiB PUD BAR, after", "32 lookups, sub-ms", sim);
	printf("\nWhere and why the simulation differs: lookup counts are exact (the loop is\n"
	       "the code under test); the modelled time prices one pfn lookup, one GUP\n"
	       "attempt (which fails on a pfnmap VMA) and the walk's page-table reads with\n"
	       "constants calibrated so the 8,388,608-lookup loop costs about the published\n"
	       "1 s; the simulator itself ran it in %.0f ms of wall time.  With PTE leaves\n"
	       "the series cannot help: every leaf is one page.  Unmap is the same before\n"
	       "and after: vfio_unmap_unpin() walks the IOMMU table for contiguous runs in\n"
	       "every kernel version, and the series did not change it.\n\n", pb->map_ms);
}

static void bar_json(struct json *j, const struct bar_result *r, const char *leaf,
		     int after)
{
	char name[16];

	json_begin_object(j, NULL);
	json_u64(j, "bar_bytes", BAR_SIZE);
	json_string(j, "leaf", leaf);
	json_bool(j, "addr_mask", after);
	json_u64(j, "pfn_lookups", r->map.c[SIM_CNT_PFN_LOOKUP]);
	json_u64(j, "gup_calls", r->map.c[SIM_CNT_GUP_CALL]);
	json_u64(j, "iommu_map_calls", r->map.c[SIM_CNT_IOMMU_MAP_CALL]);
	json_begin_object(j, "iommu_leaves");
	for (int s = 0; s < 64; s++)
		if (r->leaves_by_shift[s])
			json_u64(j, cli_size_name(1ULL << s, name, sizeof(name)),
				 r->leaves_by_shift[s]);
	json_end_object(j);
	json_begin_object(j, "sim_us");
	json_double(j, "map", sim_cost_ns(&r->map) / 1e3);
	json_double(j, "unmap", sim_cost_ns(&r->unmap) / 1e3);
	json_end_object(j);
	json_begin_object(j, "wall_ms");
	json_double(j, "map", r->map_ms);
	json_double(j, "unmap", r->unmap_ms);
	json_end_object(j);
	json_end_object(j);
}

void report_bar_json(struct json *j)
{
	run_bar_grid();
	json_begin_array(j, "bar_32g");
	for (unsigned int l = 0; l < NR_BAR_LEAVES; l++)
		for (int after = 0; after < 2; after++)
			if (!bar_err[l][after])
				bar_json(j, &bar_grid[l][after], bar_leaves[l].name, after);
	json_end_array(j);
	json_begin_object(j, "bar_published");
	json_u64(j, "pud_before_lookups", 8388608);
	json_double(j, "pud_before_s", 1.0);
	json_u64(j, "pud_after_lookups", 32);
	json_end_object(j);
}

/* 4 GiB of anonymous memory pinned and mapped: pages per second. */
static double bench_anon(unsigned long long bytes, double *wall_ms)
{
	struct sim_config cfg = { .ram_bytes = 8ULL << 30, .seed = 1 };
	struct kapi_mm_map m = { .len = bytes, .kind = KAPI_MM_ANON, .writable = 1 };
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;
	unsigned long long unmapped;
	unsigned long va;
	double t;
	long ret;

	if (sim_machine_init(&cfg) || kapi_boot() || !kapi_proc_create())
		return -1;
	kapi_mm_set_rlimit_memlock(~0ULL);
	ret = kapi_mm_mmap(&m, &va);
	if (!ret)
		ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c);
	if (!ret) {
		ret = kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev);
		if (!ret) {
			t = cli_now_ms();
			ret = kapi_vfio_map_dma(c, va, 0, bytes, KAPI_VFIO_DMA_MAP_RW);
			*wall_ms = cli_now_ms() - t;
			if (!ret)
				kapi_vfio_unmap_dma(c, 0, bytes, 0, &unmapped);
		}
		kapi_vfio_close(c);
	}
	kapi_proc_destroy(kapi_proc_current());
	sim_machine_destroy();
	return ret ? -1 : (bytes >> SIM_PAGE_SHIFT) / (*wall_ms / 1e3);
}

/*
 * The simulator's own CPU time for `dmasim bar --size 32G --leaf pud
 * --no-addr-mask`, map and unmap (issue #13): 8,388,608 pfn lookups and as
 * many IOMMU walks, each to cost about what a few dependent loads do.
 */
#define BAR_BEFORE_TARGET_CPU_MS	150

void bench_bar(struct json *j, unsigned int repeat)
{
	json_begin_array(j, "bar_32g_pud");
	for (int after = 0; after < 2; after++) {
		struct bar_opts o;
		struct bar_result r;
		double best = -1, unmap_ms = 0;
		double best_cpu = -1, map_cpu = 0, unmap_cpu = 0;
		unsigned long long rss = 0;

		bar_opts_defaults(&o);
		o.legacy_mask = !after;
		for (unsigned int i = 0; i < repeat; i++) {
			if (bar_run(&o, &r))
				break;
			if (best < 0 || r.map_ms < best) {
				best = r.map_ms;
				unmap_ms = r.unmap_ms;
			}
			if (best_cpu < 0 ||
			    r.map_cpu_ms + r.unmap_cpu_ms < best_cpu) {
				best_cpu = r.map_cpu_ms + r.unmap_cpu_ms;
				map_cpu = r.map_cpu_ms;
				unmap_cpu = r.unmap_cpu_ms;
			}
			rss = (unsigned long long)r.max_rss_kib * 1024;
		}
		/*
		 * The target is on VFIO_IOMMU_MAP_DMA, the path the series
		 * changed.  Unmap walks the IOMMU table page by page in every
		 * kernel version (vfio_unmap_unpin's contiguity search), so it
		 * costs the same before and after; it is reported beside.
		 */
		json_begin_object(j, NULL);
		json_bool(j, "addr_mask", after);
		json_u64(j, "pfn_lookups", r.map.c[SIM_CNT_PFN_LOOKUP]);
		json_double(j, "wall_ms", best);
		json_double(j, "unmap_wall_ms", unmap_ms);
		json_u64(j, "peak_rss_bytes", rss);
		json_double(j, "target_wall_ms", after ? 5 : 1000);
		json_u64(j, "target_peak_rss_bytes", 256ULL << 20);
		json_bool(j, "met", best >= 0 && best < (after ? 5 : 1000) &&
			  rss <= (256ULL << 20));
		/*
		 * CPU time, map and unmap: what the simulator spent, however
		 * busy the machine (wall time on a shared one is not).
		 */
		json_double(j, "cpu_ms", best_cpu);
		json_double(j, "map_cpu_ms", map_cpu);
		json_double(j, "unmap_cpu_ms", unmap_cpu);
		if (!after) {
			json_double(j, "target_cpu_ms", BAR_BEFORE_TARGET_CPU_MS);
			json_bool(j, "cpu_met", best_cpu >= 0 &&
				  best_cpu <= BAR_BEFORE_TARGET_CPU_MS);
		}
		json_end_object(j);
	}
	json_end_array(j);

	json_begin_object(j, "anon_4g_pin_map");
	{
		double wall = 0, best = 0;

		for (unsigned int i = 0; i < repeat; i++) {
			double pps = bench_anon(4ULL << 30, &wall);

			if (pps > best)
				best = pps;
		}
		json_double(j, "pages_per_second", best);
	}
	json_end_object(j);
}
