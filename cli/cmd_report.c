// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim report: the project's seed figures, simulated beside the published
 * ones.
 *
 * 1. The dma-buf system heap's 2 MiB order: a 1 GiB buffer before (orders
 *    8,4,0) and after (9,8,4,0), for every IOMMU format, on a fresh machine,
 *    on a busy one (fragmentation level 0.3: the buffer still fits in free
 *    memory) and on an aged one (the "aged" preset).
 * 2. The same on intel-sl across fragmentation levels and seeds: how often
 *    the first order-9 attempt fails, how much of the buffer still comes in
 *    2 MiB chunks, what mapping costs.
 * 3. The published figures beside the simulated ones, with a sentence on
 *    where and why they differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "scenario_heap.h"

#define BEFORE_ORDERS	"8,4,0"
#define AFTER_ORDERS	"9,8,4,0"
#define REPORT_SIZE	(1ULL << 30)

static const double sweep_levels[] = { 0.2, 0.3, 0.35, 0.4, 0.5, 0.8 };
#define NR_LEVELS	(sizeof(sweep_levels) / sizeof(sweep_levels[0]))
#define MAX_SEEDS	20

struct report_opts {
	int json;
	unsigned long long ram;
	unsigned long long seeds;
};

static const struct cli_opt report_options[] = {
	CLI_OPT_UINT(struct report_opts, seeds, "seeds", "3", 1, MAX_SEEDS,
		     "machines (seeds) per fragmentation level of section 2"),
	CLI_OPT_SIZE(struct report_opts, ram, "ram", "16G", 4ULL << 30, 1ULL << 44, 0,
		     "RAM of the simulated machines (the 1 GiB buffer must fit when aged)"),
	CLI_OPT_FLAG(struct report_opts, json, "json", "one JSON object instead of tables"),
	CLI_OPT_END,
};

static const char *const report_sets_params[] = { "system_heap.orders", NULL };

enum { ST_FRESH, ST_BUSY, ST_AGED, NR_STATES };
static const char *const state_names[NR_STATES] = { "fresh", "0.3", "aged" };

/* [format][after] on one machine state */
struct format_grid {
	struct heap_result r[SIM_NR_IOMMU_FORMATS][2];
};

/* intel-sl, [level][seed][after] */
struct sweep {
	struct heap_result r[NR_LEVELS][MAX_SEEDS][2];
};

static void machine_for(struct cli_machine *m, const struct report_opts *o,
			double level, const char *name, unsigned long long seed)
{
	cli_machine_defaults(m);
	m->ram = o->ram;
	m->seed = seed;
	m->frag = level;
	m->frag_name = name;
}

static double state_level(int st)
{
	return st == ST_FRESH ? 0 : st == ST_BUSY ? 0.3 : sim_age_preset("aged");
}

static void run_formats(const struct report_opts *o, int st, struct format_grid *g)
{
	struct heap_params p[SIM_NR_IOMMU_FORMATS * 2];
	struct heap_result *res = calloc(SIM_NR_IOMMU_FORMATS * 2, sizeof(*res));
	unsigned int n = 0;

	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int after = 0; after < 2; after++) {
			memset(&p[n], 0, sizeof(p[n]));
			machine_for(&p[n].machine, o, state_level(st), state_names[st], 1);
			p[n].size = REPORT_SIZE;
			p[n].orders = after ? AFTER_ORDERS : BEFORE_ORDERS;
			p[n].iommu = f;
			n++;
		}
	heap_run_variants(p, n, res);
	for (int f = 0, i = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int after = 0; after < 2; after++)
			g->r[f][after] = res[i++];
	free(res);
}

static void run_sweep(const struct report_opts *o, struct sweep *sw)
{
	for (unsigned int l = 0; l < NR_LEVELS; l++)
		for (unsigned int s = 0; s < o->seeds; s++) {
			struct heap_params p[2];
			char name[16];

			snprintf(name, sizeof(name), "%.2f", sweep_levels[l]);
			for (int after = 0; after < 2; after++) {
				memset(&p[after], 0, sizeof(p[after]));
				machine_for(&p[after].machine, o, sweep_levels[l], name, s + 1);
				p[after].size = REPORT_SIZE;
				p[after].orders = after ? AFTER_ORDERS : BEFORE_ORDERS;
				p[after].iommu = SIM_IOMMU_INTEL_SL;
			}
			heap_run_variants(p, 2, sw->r[l][s]);
		}
}

static void chunks_text(const struct heap_result *r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int o = SIM_NR_ORDERS - 1; o >= 0 && off < len; o--)
		if (r->layout.chunks_by_order[o])
			off += snprintf(buf + off, len - off, "%s%lux%d",
					off ? "+" : "", r->layout.chunks_by_order[o], o);
}

static void leaves_text(const struct heap_result *r, char *buf, size_t len)
{
	size_t off = 0;
	char sz[16];

	buf[0] = '\0';
	for (int s = 63; s >= 0 && off < len; s--)
		if (r->cover.leaves_by_shift[s])
			off += snprintf(buf + off, len - off, "%s%llux%s",
					off ? "+" : "", r->cover.leaves_by_shift[s],
					cli_size_name(1ULL << s, sz, sizeof(sz)));
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static double free_pct(const struct heap_result *r)
{
	return r->ram_pages ? 100.0 * r->free_pages / r->ram_pages : 0;
}

static void print_format_tables(struct format_grid g[NR_STATES])
{
	char chunks[48], leaves[48];

	printf("== 1. dma-buf system heap, one 1 GiB buffer: before (orders %s) and after (%s)\n",
	       BEFORE_ORDERS, AFTER_ORDERS);
	printf("   windows: 2 MiB-aligned IOVA windows mapped by one leaf of 2 MiB or more.\n"
	       "   us: modelled microseconds (docs/cost-model.md).  state: fresh, fragmentation\n"
	       "   level 0.3 (a busy machine; the buffer fits in free memory), aged preset.\n\n");
	printf("%-13s %-6s %-6s %-20s %-9s %-22s %9s %9s %9s %6s\n",
	       "iommu", "state", "orders", "chunks (n x order)", "windows", "iommu leaves",
	       "alloc us", "map us", "unmap us", "zlock");
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int st = 0; st < NR_STATES; st++)
			for (int after = 0; after < 2; after++) {
				const struct heap_result *r = &g[st].r[f][after];

				if (r->err) {
					printf("%-13s %-6s %-6s failed at %s: %s\n",
					       sim_iommu_format(f)->name, state_names[st],
					       after ? "after" : "before", r->failed_step,
					       strerror(-r->err));
					continue;
				}
				chunks_text(r, chunks, sizeof(chunks));
				leaves_text(r, leaves, sizeof(leaves));
				printf("%-13s %-6s %-6s %-20s %4llu/%-4llu %-22s %9.0f %9.1f %9.2f %6llu\n",
				       sim_iommu_format(f)->name, state_names[st],
				       after ? "after" : "before", chunks,
				       r->cover.windows_2m_superpage, r->cover.windows_2m,
				       leaves, r->sim_ns[HEAP_ALLOC] / 1e3,
				       r->sim_ns[HEAP_MAP] / 1e3, r->sim_ns[HEAP_UNMAP] / 1e3,
				       r->total.c[SIM_CNT_ZONE_LOCK]);
			}
	printf("\n   A format whose smallest IOMMU page is larger than the CPU page (arm-lpae-16k\n"
	       "   and -64k under 4 KiB pages) cannot map a 4 KiB chunk that is not aligned to\n"
	       "   its granule: dma-iommu pads the segment to the granule but iommu_map()\n"
	       "   refuses the unaligned physical address, -EINVAL, as the kernel does.  Those\n"
	       "   formats belong with 16/64 KiB-page kernels (meson -Dpage_shift=14/16).\n\n");
}

/* Figures of one fragmentation level over the seeds. */
struct level_stats {
	double free_pct;
	unsigned int seeds, o9_first_failed, before_all_order8, after_all_order9;
	double after_2m_share;		/* of the buffer, in 2 MiB chunks */
	double win_before, win_after;	/* mean windows superpage-mapped */
	double map_ratio_avg, map_ratio_worst;
	double unmap_before_us, unmap_after_us;
	double allocfree_ratio;
	unsigned long long o9_tried, o9_failed;
};

static void level_stats(const struct sweep *sw, unsigned int l, unsigned int seeds,
			struct level_stats *ls)
{
	memset(ls, 0, sizeof(*ls));
	for (unsigned int s = 0; s < seeds; s++) {
		const struct heap_result *b = &sw->r[l][s][0], *a = &sw->r[l][s][1];
		double rmap;

		if (b->err || a->err)
			continue;
		ls->seeds++;
		ls->free_pct += free_pct(a);
		ls->o9_tried += a->high_order_attempts[9];
		ls->o9_failed += a->high_order_failures[9];
		/* the heap stops trying order 9 after its first failure */
		ls->o9_first_failed += a->high_order_failures[9] > 0;
		ls->before_all_order8 += b->layout.chunks_by_order[8] == REPORT_SIZE >> (SIM_PAGE_SHIFT + 8);
		ls->after_all_order9 += a->layout.chunks_by_order[9] == REPORT_SIZE >> (SIM_PAGE_SHIFT + 9);
		ls->after_2m_share += (double)a->layout.chunks_by_order[9] * (SIM_PAGE_SIZE << 9) /
				      REPORT_SIZE;
		ls->win_before += b->cover.windows_2m_superpage;
		ls->win_after += a->cover.windows_2m_superpage;
		rmap = ratio(b->sim_ns[HEAP_MAP], a->sim_ns[HEAP_MAP]);
		ls->map_ratio_avg += rmap;
		if (rmap > ls->map_ratio_worst)
			ls->map_ratio_worst = rmap;
		ls->unmap_before_us += b->sim_ns[HEAP_UNMAP] / 1e3;
		ls->unmap_after_us += a->sim_ns[HEAP_UNMAP] / 1e3;
		ls->allocfree_ratio += ratio(b->sim_ns[HEAP_ALLOC] + b->sim_ns[HEAP_FREE],
					     a->sim_ns[HEAP_ALLOC] + a->sim_ns[HEAP_FREE]);
	}
	if (ls->seeds) {
		double n = ls->seeds;

		ls->free_pct /= n;
		ls->after_2m_share /= n;
		ls->win_before /= n;
		ls->win_after /= n;
		ls->map_ratio_avg /= n;
		ls->unmap_before_us /= n;
		ls->unmap_after_us /= n;
		ls->allocfree_ratio /= n;
	}
}

static void print_sweep(const struct sweep *sw, unsigned int seeds,
			struct level_stats ls[NR_LEVELS])
{
	printf("== 2. intel-sl, 1 GiB, across fragmentation levels (%u seeds each; means)\n\n",
	       seeds);
	printf("%-6s %6s %-13s %-11s %-17s %-15s %-21s\n", "level", "free", "o9 1st fails",
	       "2M share", "windows bef/aft", "map ratio avg/max", "unmap us bef -> aft");
	for (unsigned int l = 0; l < NR_LEVELS; l++) {
		level_stats(sw, l, seeds, &ls[l]);
		printf("%-6.2f %5.1f%% %5u of %-4u %9.0f%% %7.1f / %-7.1f %7.1fx / %-6.1fx %8.1f -> %-8.2f\n",
		       sweep_levels[l], ls[l].free_pct, ls[l].o9_first_failed, ls[l].seeds,
		       100 * ls[l].after_2m_share, ls[l].win_before, ls[l].win_after,
		       ls[l].map_ratio_avg, ls[l].map_ratio_worst,
		       ls[l].unmap_before_us, ls[l].unmap_after_us);
	}
	printf("\n   o9 1st fails: machines where the heap's first order-9 attempt failed (it then\n"
	       "   never tries order 9 again for that buffer); 2M share: of the buffer, in\n"
	       "   2 MiB chunks after the change.\n\n");
}

/*
 * The highest level at which, on every seed, the buffer came as the posting
 * reported: all 1 MiB chunks before and all 2 MiB chunks after.
 */
static int reported_like_level(const struct level_stats ls[NR_LEVELS])
{
	int best = -1;

	for (unsigned int l = 0; l < NR_LEVELS; l++)
		if (ls[l].seeds && ls[l].before_all_order8 == ls[l].seeds &&
		    ls[l].after_all_order9 == ls[l].seeds)
			best = l;
	return best;
}

static void print_published(const struct level_stats ls[NR_LEVELS], int rl,
			    const struct format_grid g[NR_STATES])
{
	const struct level_stats *r = rl >= 0 ? &ls[rl] : &ls[0];
	const struct level_stats *aged = &ls[NR_LEVELS - 1];
	const struct heap_result *fb = &g[ST_FRESH].r[SIM_IOMMU_INTEL_SL][0];
	const struct heap_result *fa = &g[ST_FRESH].r[SIM_IOMMU_INTEL_SL][1];

	printf("== 3. published figures beside the simulation (intel-sl, 1 GiB)\n\n");
	printf("   The posting's buffer came as 1024 x 1 MiB chunks before and 512 x 2 MiB\n"
	       "   after.  The highest swept level where both held on every seed is %.2f\n"
	       "   (%.1f%% of RAM free): 'reported-like' below.\n\n",
	       rl >= 0 ? sweep_levels[rl] : 0.0, r->free_pct);
	printf("%-44s %-24s %s\n", "figure", "published", "simulated");
	printf("%-44s %-24s %.1f of 512 (reported-like), %llu of %llu (fresh)\n",
	       "before: 2 MiB windows superpage-mapped", "1 of 512", r->win_before,
	       fb->cover.windows_2m_superpage, fb->cover.windows_2m);
	printf("%-44s %-24s %.1f of 512 (reported-like), %llu of %llu (fresh)\n",
	       "after: 2 MiB windows superpage-mapped", "all 512", r->win_after,
	       fa->cover.windows_2m_superpage, fa->cover.windows_2m);
	printf("%-44s %-24s %.1fx average, %.1fx worst\n",
	       "dma_buf_map_attachment() cheaper by", "~16x average, 32x worst",
	       r->map_ratio_avg, r->map_ratio_worst);
	printf("%-44s %-24s %.1f us -> %.2f us\n", "unmap", "~500 us -> 1.25 us",
	       r->unmap_before_us, r->unmap_after_us);
	printf("%-44s %-24s %.2fx; zone-lock takes %llu -> %llu (fresh)\n",
	       "alloc + close faster by", "3-7x (1..n threads)", r->allocfree_ratio,
	       fb->total.c[SIM_CNT_ZONE_LOCK], fa->total.c[SIM_CNT_ZONE_LOCK]);
	printf("%-44s %-24s first attempt failed on %u of %u aged machines\n",
	       "review: order 9 without reclaim", "fails on most fragmented",
	       aged->o9_first_failed, aged->seeds);
	printf("\nWhere and why the simulation differs:\n");
	printf("- Windows before the change: where order 9 still succeeds for the whole\n"
	       "  buffer, free 2 MiB blocks exist, and the kernel's buddy allocator (simulated\n"
	       "  as it is) splits one for two consecutive 1 MiB requests: those pairs are\n"
	       "  physically contiguous and map as one 2 MiB leaf (%.0f of 512 here, 512 on a\n"
	       "  fresh machine).  The posting's 1 of 512 needs free memory made of isolated\n"
	       "  1 MiB blocks, where (levels 0.35-0.5 above) order 9 mostly fails: no single\n"
	       "  simulated state gives both published layouts.\n", r->win_before);
	printf("- Map and unmap cost: the model prices IOMMU PTE writes and clears, table\n"
	       "  pages, map calls, scatterlist segments and IOTLB syncs with constants\n"
	       "  calibrated once against these published figures; the ratio then follows\n"
	       "  the counts (262,144 4 KiB leaves against 512 2 MiB leaves).  It cannot show\n"
	       "  cache and TLB effects of the real machine, which make the published worst\n"
	       "  case differ from the average.\n");
	printf("- Alloc + close: the counts show the mechanism the patch names (order 9 is\n"
	       "  served from the per-cpu lists: zone-lock takes fall), but the model has no\n"
	       "  contention between threads and charges the same 1 GiB of zeroing to both, so\n"
	       "  its single-threaded speed-up is far below the 3-7x measured with threads.\n");
	printf("- Order 9 on fragmented machines: with no reclaim or compaction an order-9\n"
	       "  attempt needs a free 2 MiB block.  On the aged preset (%.1f%% free) the first\n"
	       "  attempt failed on %u of %u machines and the heap fell back to the orders it\n"
	       "  has today, so the change never makes the buffer worse than before.\n",
	       aged->free_pct, aged->o9_first_failed, aged->seeds);
	printf("\n");
}

static void report_json(const struct report_opts *o, const struct format_grid g[NR_STATES],
			const struct level_stats ls[NR_LEVELS], int rl)
{
	struct json j;
	struct heap_params p;

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	cli_json_params(&j);
	json_begin_array(&j, "heap");
	for (int st = 0; st < NR_STATES; st++)
		for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
			for (int after = 0; after < 2; after++) {
				memset(&p, 0, sizeof(p));
				machine_for(&p.machine, o, state_level(st), state_names[st], 1);
				p.size = REPORT_SIZE;
				p.orders = after ? AFTER_ORDERS : BEFORE_ORDERS;
				p.iommu = f;
				heap_result_json(&j, &p, &g[st].r[f][after]);
			}
	json_end_array(&j);
	json_begin_array(&j, "heap_levels");
	for (unsigned int l = 0; l < NR_LEVELS; l++) {
		json_begin_object(&j, NULL);
		json_double(&j, "level", sweep_levels[l]);
		json_u64(&j, "seeds", ls[l].seeds);
		json_double(&j, "free_pct", ls[l].free_pct);
		json_u64(&j, "order9_first_attempt_failed", ls[l].o9_first_failed);
		json_double(&j, "after_2m_share", ls[l].after_2m_share);
		json_double(&j, "windows_before", ls[l].win_before);
		json_double(&j, "windows_after", ls[l].win_after);
		json_double(&j, "map_ratio_avg", ls[l].map_ratio_avg);
		json_double(&j, "map_ratio_worst", ls[l].map_ratio_worst);
		json_double(&j, "unmap_us_before", ls[l].unmap_before_us);
		json_double(&j, "unmap_us_after", ls[l].unmap_after_us);
		json_double(&j, "alloc_free_ratio", ls[l].allocfree_ratio);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_double(&j, "reported_like_level", rl >= 0 ? sweep_levels[rl] : -1);
	json_begin_object(&j, "published");
	json_double(&j, "map_ratio_avg", 16);
	json_double(&j, "map_ratio_worst", 32);
	json_double(&j, "unmap_us_before", 500);
	json_double(&j, "unmap_us_after", 1.25);
	json_string(&j, "alloc_close_speedup", "3-7x");
	json_u64(&j, "windows_before", 1);
	json_u64(&j, "windows_after", 512);
	json_end_object(&j);
	report_bar_json(&j);
	json_end_object(&j);
	json_finish(&j);
}

static int report_main(void *opts)
{
	const struct report_opts *o = opts;
	struct format_grid *g = calloc(NR_STATES, sizeof(*g));
	struct sweep *sw = calloc(1, sizeof(*sw));
	struct level_stats ls[NR_LEVELS];
	int rl;

	if (!g || !sw) {
		fprintf(stderr, "dmasim report: out of memory\n");
		free(g);
		free(sw);
		return 1;
	}
	for (int st = 0; st < NR_STATES; st++)
		run_formats(o, st, &g[st]);
	run_sweep(o, sw);
	for (unsigned int l = 0; l < NR_LEVELS; l++)
		level_stats(sw, l, o->seeds, &ls[l]);
	rl = reported_like_level(ls);

	if (o->json) {
		report_json(o, g, ls, rl);
	} else {
		cli_print_params();
		print_format_tables(g);
		print_sweep(sw, o->seeds, ls);
		print_published(ls, rl, g);
		report_bar_text();
	}
	free(sw);
	free(g);
	return 0;
}

const struct cli_command cli_cmd_report = {
	.name = "report",
	.summary = "the seed figures, simulated beside the published ones",
	.about = "The project's seed figures (the dma-buf system heap's 2 MiB order, the\n"
		 "VFIO type1 BAR walk), simulated beside the published ones.",
	.opts = report_options,
	.opts_size = sizeof(struct report_opts),
	.run = report_main,
	.sets_params = report_sets_params,
	.kernel = 1,
};
