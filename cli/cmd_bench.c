// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim bench: the simulator's own speed and memory, as JSON.  These are
 * the project's performance targets; they live here, not in timed unit
 * tests, because the machines that run the tests are shared and noisy.
 * Each figure is the best of --repeat runs (default 3) and carries its
 * target, so a reader (or a script) can compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/kapi.h>

#include "bench.h"
#include "cli.h"
#include "scenario_heap.h"

static void bench_heap(struct json *j, unsigned int repeat)
{
	static const char *const order_sets[] = { "8,4,0", "9,8,4,0" };
	struct heap_result *res = calloc(1, sizeof(*res));

	json_begin_array(j, "heap_1g");
	for (size_t k = 0; k < 2 && res; k++) {
		struct heap_params p = {
			.size = 1ULL << 30,
			.orders = order_sets[k],
			.iommu = SIM_IOMMU_INTEL_SL,
		};
		double best = -1, phases[HEAP_NR_PHASES] = { 0 };

		cli_machine_defaults(&p.machine);
		for (unsigned int r = 0; r < repeat; r++) {
			double sum = 0;

			heap_run(&p, res);
			if (res->err)
				break;
			for (int ph = 0; ph < HEAP_NR_PHASES; ph++)
				sum += res->wall_ms[ph];
			if (best < 0 || sum < best) {
				best = sum;
				memcpy(phases, res->wall_ms, sizeof(phases));
			}
		}
		json_begin_object(j, NULL);
		json_string(j, "orders", order_sets[k]);
		json_string(j, "iommu", "intel-sl");
		if (res->err) {
			json_i64(j, "error", res->err);
		} else {
			json_double(j, "wall_ms", best);
			json_begin_object(j, "wall_ms_by_phase");
			for (int ph = 0; ph < HEAP_NR_PHASES; ph++)
				json_double(j, heap_phase_names[ph], phases[ph]);
			json_end_object(j);
		}
		json_double(j, "target_wall_ms", 50);
		json_bool(j, "met", !res->err && best < 50);
		json_end_object(j);
	}
	json_end_array(j);
	free(res);
}

/* Host bytes per simulated page whose struct page was written. */
static void bench_memory(struct json *j)
{
	struct sim_config cfg = { .ram_bytes = 16ULL << 30, .seed = 1 };
	struct sim_config big = { .ram_bytes = 1ULL << 40, .seed = 1 };
	const unsigned long nr_blocks = 4096;	/* 4096 x 1 MiB = 4 GiB */
	struct sim_page **blocks = calloc(nr_blocks, sizeof(*blocks));
	unsigned long long host0, host1, meta0, meta1, pages = 0;
	double per_page, per_pageblock;
	double t0, start_ms;

	json_begin_object(j, "memory");
	if (!blocks || sim_machine_init(&cfg)) {
		json_string(j, "error", "cannot build a 16 GiB machine");
		json_end_object(j);
		free(blocks);
		return;
	}
	host0 = sim_mem_host_bytes();
	meta0 = sim_buddy_host_bytes();
	for (unsigned long i = 0; i < nr_blocks; i++) {
		blocks[i] = sim_buddy_alloc(8, 0);
		if (blocks[i])
			pages += 1UL << 8;
	}
	host1 = sim_mem_host_bytes();
	meta1 = sim_buddy_host_bytes();
	for (unsigned long i = 0; i < nr_blocks; i++)
		if (blocks[i])
			sim_buddy_free(blocks[i], 8);
	sim_machine_destroy();
	free(blocks);
	/*
	 * Per touched page: its struct page (and data, never written here).
	 * The allocator's per-pageblock metadata (a byte or two per 2 MiB)
	 * is reported apart: it is not a per-page cost.
	 */
	per_page = pages ? (double)((host1 - host0) - (meta1 - meta0)) / pages : -1;
	per_pageblock = pages ? (double)(meta1 - meta0) /
			(pages >> SIM_PAGEBLOCK_ORDER) : -1;
	json_u64(j, "pages_touched", pages);
	json_double(j, "host_bytes_per_touched_page", per_page);
	json_double(j, "allocator_bytes_per_pageblock", per_pageblock);
	json_double(j, "target_bytes_per_page", 64);
	json_bool(j, "met", pages && per_page <= 64);

	t0 = cli_now_ms();
	if (sim_machine_init(&big)) {
		json_string(j, "error_1t", "cannot build a 1 TiB machine");
	} else {
		start_ms = cli_now_ms() - t0;
		json_double(j, "start_1t_ms", start_ms);
		json_u64(j, "host_bytes_1t", sim_mem_host_bytes());
		json_double(j, "target_start_1t_ms", 100);
		json_bool(j, "start_1t_met", start_ms < 100);
		sim_machine_destroy();
	}
	json_end_object(j);
}

struct bench_opts {
	unsigned long long repeat;
	int only;
	int json;
};

enum { BENCH_ALL, BENCH_HEAP, BENCH_MEMORY, BENCH_BAR };
static const char *const bench_sections[] = { "all", "heap", "memory", "bar", NULL };

static const struct cli_opt bench_options[] = {
	CLI_OPT_UINT(struct bench_opts, repeat, "repeat", "3", 1, 100,
		     "runs of each figure; the best is reported"),
	CLI_OPT_ENUM(struct bench_opts, only, "only", "all", bench_sections, NULL,
		     "run one section"),
	CLI_OPT_FLAG(struct bench_opts, json, "json",
		     "accepted for scripts: the output is always JSON"),
	CLI_OPT_END,
};

static const char *const bench_sets_params[] = { "system_heap.orders", NULL };

static int bench_main(void *opts)
{
	const struct bench_opts *o = opts;
	struct json j;

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_u64(&j, "repeat", o->repeat);
	cli_json_params(&j);
	if (o->only == BENCH_ALL || o->only == BENCH_HEAP)
		bench_heap(&j, o->repeat);
	if (o->only == BENCH_ALL || o->only == BENCH_MEMORY)
		bench_memory(&j);
	if (o->only == BENCH_ALL || o->only == BENCH_BAR)
		bench_bar(&j, o->repeat);
	json_u64(&j, "peak_rss_bytes", cli_peak_rss());
	json_end_object(&j);
	json_finish(&j);
	return 0;
}

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.summary = "the simulator's speed and memory against its targets (JSON)",
	.about = "Wall time and memory of the simulator against its targets, as JSON; each\n"
		 "figure is the best of --repeat runs and carries its target.",
	.opts = bench_options,
	.opts_size = sizeof(struct bench_opts),
	.run = bench_main,
	.sets_params = bench_sets_params,
	.kernel = 1,
};
