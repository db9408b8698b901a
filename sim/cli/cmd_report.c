// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim report: the project's seed figures, simulated beside the published
 * ones.  The dma-buf system heap's 2 MiB order (before {8,4,0}, after
 * {9,8,4,0}) on a fresh and an aged machine for every IOMMU format; then the
 * figures of the patch posting and of its review, with a sentence on where
 * and why the simulation differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_heap.h"

#define BEFORE_ORDERS	"8,4,0"
#define AFTER_ORDERS	"9,8,4,0"
#define REPORT_SIZE	(1ULL << 30)
#define REPORT_SEEDS	5

struct report_opts {
	int json;
	unsigned long long ram;
	unsigned int seeds;
};

static void heap_params_for(struct heap_params *p, const struct report_opts *o,
			    int fmt, int aged, const char *orders,
			    unsigned long long seed)
{
	memset(p, 0, sizeof(*p));
	cli_machine_defaults(&p->machine);
	p->machine.ram = o->ram;
	p->machine.seed = seed;
	if (aged) {
		p->machine.frag = sim_age_preset("aged");
		p->machine.frag_name = "aged";
	}
	p->size = REPORT_SIZE;
	p->orders = orders;
	p->iommu = fmt;
}

/* results[fmt][aged][after] for seed 1 */
struct heap_grid {
	struct heap_result r[SIM_NR_IOMMU_FORMATS][2][2];
};

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

static void print_heap_table(const struct heap_grid *g)
{
	char chunks[64], leaves[64];

	printf("== dma-buf system heap: one 1 GiB buffer, before (orders %s) and after (orders %s)\n",
	       BEFORE_ORDERS, AFTER_ORDERS);
	printf("   modelled microseconds (cost model, docs/cost-model.md); windows = 2 MiB IOVA\n"
	       "   windows mapped by one leaf of 2 MiB or more\n\n");
	printf("%-13s %-6s %-6s %-18s %-9s %-20s %9s %9s %9s %6s %6s\n",
	       "iommu", "state", "orders", "chunks(nxorder)", "windows", "iommu leaves",
	       "alloc us", "map us", "unmap us", "zlock", "o9fail");
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int aged = 0; aged < 2; aged++)
			for (int after = 0; after < 2; after++) {
				const struct heap_result *r = &g->r[f][aged][after];

				if (r->err) {
					printf("%-13s %-6s %-6s failed at %s: %s\n",
					       sim_iommu_format(f)->name, aged ? "aged" : "fresh",
					       after ? "after" : "before", r->failed_step,
					       strerror(-r->err));
					continue;
				}
				chunks_text(r, chunks, sizeof(chunks));
				leaves_text(r, leaves, sizeof(leaves));
				printf("%-13s %-6s %-6s %-18s %4llu/%-4llu %-20s %9.0f %9.1f %9.2f %6llu %6llu\n",
				       sim_iommu_format(f)->name, aged ? "aged" : "fresh",
				       after ? "after" : "before", chunks,
				       r->cover.windows_2m_superpage, r->cover.windows_2m,
				       leaves, r->sim_ns[HEAP_ALLOC] / 1e3,
				       r->sim_ns[HEAP_MAP] / 1e3, r->sim_ns[HEAP_UNMAP] / 1e3,
				       r->total.c[SIM_CNT_ZONE_LOCK],
				       r->high_order_failures[9]);
			}
	printf("\n");
}

struct seed_ratios {
	double map_avg, map_worst, unmap_avg, alloc_free_avg;
	double o9_fail_rate;		/* failed / tried, order 9, aged, after */
	unsigned long long windows_before, windows_total;
	unsigned int n;
};

static void print_published(const struct heap_grid *g, const struct seed_ratios *s)
{
	const struct heap_result *fb = &g->r[SIM_IOMMU_INTEL_SL][0][0];
	const struct heap_result *fa = &g->r[SIM_IOMMU_INTEL_SL][0][1];
	const struct heap_result *ab = &g->r[SIM_IOMMU_INTEL_SL][1][0];
	const struct heap_result *aa = &g->r[SIM_IOMMU_INTEL_SL][1][1];

	printf("== published figures (DESIGN.md) beside the simulation (intel-sl, 1 GiB)\n\n");
	printf("%-52s %-26s %s\n", "figure", "published", "simulated");
	printf("%-52s %-26s %lu x 1 MiB, %llu of %llu windows (aged seed 1)\n",
	       "before: chunks, 2 MiB windows superpage-mapped", "1024 x 1 MiB, 1 of 512",
	       ab->layout.chunks_by_order[8], ab->cover.windows_2m_superpage,
	       ab->cover.windows_2m);
	printf("%-52s %-26s %lu x 2 MiB, %llu of %llu windows (fresh); %lu x 2 MiB aged\n",
	       "after: chunks, 2 MiB windows superpage-mapped", "512 x 2 MiB, all 512",
	       fa->layout.chunks_by_order[9], fa->cover.windows_2m_superpage,
	       fa->cover.windows_2m, aa->layout.chunks_by_order[9]);
	printf("%-52s %-26s %.1fx average, %.1fx worst (%u aged seeds); %.1fx fresh\n",
	       "dma_buf_map_attachment() cheaper by", "~16x average, 32x worst",
	       s->map_avg, s->map_worst, s->n,
	       ratio(fb->sim_ns[HEAP_MAP], fa->sim_ns[HEAP_MAP]));
	printf("%-52s %-26s %.1f us -> %.2f us (aged seed 1)\n",
	       "unmap", "~500 us -> 1.25 us",
	       ab->sim_ns[HEAP_UNMAP] / 1e3, aa->sim_ns[HEAP_UNMAP] / 1e3);
	printf("%-52s %-26s %.2fx (aged average); zone-lock takes %llu -> %llu\n",
	       "alloc + close faster by", "3-7x across thread counts",
	       s->alloc_free_avg, ab->total.c[SIM_CNT_ZONE_LOCK],
	       aa->total.c[SIM_CNT_ZONE_LOCK]);
	printf("%-52s %-26s %.0f%% of order-9 attempts failed (aged, %u seeds)\n",
	       "review: order 9 without reclaim on fragmented x86", "\"fails on most machines\"",
	       100 * s->o9_fail_rate, s->n);
	printf("\nWhere and why the simulation differs:\n");
	printf("- Windows before the change: the simulated buddy allocator hands out 1 MiB\n"
	       "  blocks in address order when they come from splitting one larger block, so\n"
	       "  on a fresh machine neighbouring chunks are contiguous and the DMA layer\n"
	       "  merges them into 2 MiB leaves (%llu of %llu windows); the reported run was\n"
	       "  on a long-running machine, which the aged state models (%llu of %llu).\n",
	       fb->cover.windows_2m_superpage, fb->cover.windows_2m,
	       ab->cover.windows_2m_superpage, ab->cover.windows_2m);
	printf("- Map cost: the model prices every IOMMU PTE write, page-table page, map\n"
	       "  call and scatterlist segment; the ratio follows the PTE count (512 vs\n"
	       "  262,144 leaves) damped by the per-chunk costs, which is where the model's\n"
	       "  constants were calibrated (docs/cost-model.md). The published worst case\n"
	       "  depends on the real machine's cache state, which the model does not have.\n");
	printf("- Alloc + close: the model counts zone-lock takes and per-cpu hits (the\n"
	       "  mechanism the patch cites) but not lock contention between threads, and\n"
	       "  zeroing 1 GiB costs the same in both; so its speed-up is smaller than the\n"
	       "  3-7x measured with several threads.\n");
	printf("- Order 9 on a fragmented machine: without reclaim or compaction an order-9\n"
	       "  attempt succeeds only where a whole free pageblock exists; the aged preset\n"
	       "  is one calibrated fragmentation level (docs/fragmentation.md); run\n"
	       "  `dmasim heap --frag 0..1` for the curve. When order 9 fails the heap falls\n"
	       "  back to order 8 and the result equals the 'before' layout, never worse.\n");
	printf("\n");
}

static void collect_seed_ratios(const struct report_opts *o, struct seed_ratios *s,
				struct heap_result *before, struct heap_result *after)
{
	struct heap_params pb, pa;
	unsigned long long tried = 0, failed = 0;

	memset(s, 0, sizeof(*s));
	for (unsigned int seed = 1; seed <= o->seeds; seed++) {
		double rmap, runmap, ralloc;

		heap_params_for(&pb, o, SIM_IOMMU_INTEL_SL, 1, BEFORE_ORDERS, seed);
		heap_params_for(&pa, o, SIM_IOMMU_INTEL_SL, 1, AFTER_ORDERS, seed);
		heap_run(&pb, before);
		heap_run(&pa, after);
		if (before->err || after->err)
			continue;
		rmap = ratio(before->sim_ns[HEAP_MAP], after->sim_ns[HEAP_MAP]);
		runmap = ratio(before->sim_ns[HEAP_UNMAP], after->sim_ns[HEAP_UNMAP]);
		ralloc = ratio(before->sim_ns[HEAP_ALLOC] + before->sim_ns[HEAP_FREE],
			       after->sim_ns[HEAP_ALLOC] + after->sim_ns[HEAP_FREE]);
		s->map_avg += rmap;
		s->unmap_avg += runmap;
		s->alloc_free_avg += ralloc;
		if (rmap > s->map_worst)
			s->map_worst = rmap;
		tried += after->high_order_attempts[9];
		failed += after->high_order_failures[9];
		s->n++;
	}
	if (s->n) {
		s->map_avg /= s->n;
		s->unmap_avg /= s->n;
		s->alloc_free_avg /= s->n;
	}
	s->o9_fail_rate = tried ? (double)failed / tried : 0;
}

static void report_json(const struct report_opts *o, const struct heap_grid *g,
			const struct seed_ratios *s)
{
	struct json j;
	struct heap_params p;

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_begin_array(&j, "heap");
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int aged = 0; aged < 2; aged++)
			for (int after = 0; after < 2; after++) {
				heap_params_for(&p, o, f, aged,
						after ? AFTER_ORDERS : BEFORE_ORDERS, 1);
				heap_result_json(&j, &p, &g->r[f][aged][after]);
			}
	json_end_array(&j);
	json_begin_object(&j, "heap_seeds");
	json_string(&j, "iommu", "intel-sl");
	json_string(&j, "frag", "aged");
	json_u64(&j, "seeds", s->n);
	json_double(&j, "map_ratio_avg", s->map_avg);
	json_double(&j, "map_ratio_worst", s->map_worst);
	json_double(&j, "unmap_ratio_avg", s->unmap_avg);
	json_double(&j, "alloc_free_ratio_avg", s->alloc_free_avg);
	json_double(&j, "order9_fail_rate", s->o9_fail_rate);
	json_begin_object(&j, "published");
	json_double(&j, "map_ratio_avg", 16);
	json_double(&j, "map_ratio_worst", 32);
	json_double(&j, "unmap_us_before", 500);
	json_double(&j, "unmap_us_after", 1.25);
	json_string(&j, "alloc_close_speedup", "3-7x");
	json_end_object(&j);
	json_end_object(&j);
	json_end_object(&j);
	json_finish(&j);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .ram = 16ULL << 30, .seeds = REPORT_SEEDS };
	struct heap_grid *g = calloc(1, sizeof(*g));
	struct heap_result *tmp = calloc(2, sizeof(*tmp));
	struct seed_ratios s;
	struct heap_params p;

	if (!g || !tmp)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			o.json = 1;
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			o.seeds = strtoul(argv[++i], NULL, 0);
			if (o.seeds < 1 || o.seeds > 100) {
				fprintf(stderr, "dmasim report: --seeds 1..100\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--ram") && i + 1 < argc) {
			if (sim_parse_size(argv[++i], &o.ram) || o.ram < (2ULL << 30)) {
				fprintf(stderr, "dmasim report: bad --ram (at least 2G)\n");
				return 2;
			}
		} else {
			printf("usage: dmasim report [--json] [--seeds N] [--ram 16G]\n"
			       "The seed figures of the project, simulated beside the published ones.\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}

	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int aged = 0; aged < 2; aged++)
			for (int after = 0; after < 2; after++) {
				heap_params_for(&p, &o, f, aged,
						after ? AFTER_ORDERS : BEFORE_ORDERS, 1);
				heap_run(&p, &g->r[f][aged][after]);
			}
	collect_seed_ratios(&o, &s, &tmp[0], &tmp[1]);

	if (o.json) {
		report_json(&o, g, &s);
	} else {
		print_heap_table(g);
		print_published(g, &s);
	}
	free(tmp);
	free(g);
	return 0;
}
