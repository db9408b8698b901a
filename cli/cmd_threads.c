// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim threads: alloc + close of system-heap buffers on 1..N simulated
 * CPUs at once, with orders 8,4,0 (mainline) and 9,8,4,0 (the proposal):
 * the modelled time per buffer, the zone-lock waits, and their ratio, with
 * zeroing costed (the kernel) and without (pages that came zeroed: what
 * the allocator's own costs and contention alone give).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_threads.h"
#include "threads_table.h"

struct threads_opts {
	const char *cpus;
	unsigned long long size;
	unsigned long long rounds;	/* 0: by size */
	unsigned long long ram;
	int json;
};

static const struct cli_opt threads_options[] = {
	CLI_OPT_LIST(struct threads_opts, cpus, "cpus", "1,2,4,8,16", 1, 64, 8, 0,
		     "CPU counts to run, each a run of its own"),
	CLI_OPT_SIZE(struct threads_opts, size, "size", "1G", 4096, 1ULL << 40, 4096,
		     "buffer length"),
	CLI_OPT_UINT(struct threads_opts, rounds, "rounds", "0", 0, 1000,
		     "alloc + close per CPU (0: 4..64 by size, about 256 MiB per CPU)"),
	CLI_OPT_SIZE(struct threads_opts, ram, "ram", "64G", 64ULL << 20, 1ULL << 44, 0,
		     "RAM of the simulated machine (fresh; every CPU holds one buffer)"),
	CLI_OPT_FLAG(struct threads_opts, json, "json", "one JSON object instead of a table"),
	CLI_OPT_END,
};

static const char *const threads_sets_params[] = { "system_heap.orders", NULL };

static int threads_check(void *opts)
{
	const struct threads_opts *o = opts;
	unsigned int cpus[8], n = threads_parse_cpus(o->cpus, cpus);
	unsigned int most = 0;

	for (unsigned int i = 0; i < n; i++)
		if (cpus[i] > most)
			most = cpus[i];
	if ((unsigned long long)most * o->size > o->ram / 2)
		return cli_usage_error(&cli_cmd_threads, "--size %llu on %u CPUs needs more than "
				       "half of --ram %llu (every CPU holds a buffer)",
				       o->size, most, o->ram);
	return 0;
}

static int threads_main(void *opts)
{
	const struct threads_opts *o = opts;
	struct threads_row rows[8];
	unsigned int cpus[8], n = threads_parse_cpus(o->cpus, cpus);
	unsigned int rounds = o->rounds ? (unsigned int)o->rounds :
			      threads_default_rounds(o->size);
	int rc = 0;

	for (unsigned int i = 0; i < n; i++) {
		threads_run_row(o->size, cpus[i], rounds, o->ram, &rows[i]);
		if (rows[i].err) {
			fprintf(stderr, "dmasim threads: %u CPUs: %s (%d)\n", cpus[i],
				strerror(-rows[i].err), rows[i].err);
			rc = 1;
		}
	}
	if (rc)
		return rc;
	if (o->json) {
		struct json j;

		json_init(&j, stdout);
		json_begin_object(&j, NULL);
		cli_json_params(&j);
		threads_rows_json(&j, o->size, rounds, o->ram, rows, n);
		json_end_object(&j);
		json_finish(&j);
	} else {
		cli_print_params();
		threads_rows_text(o->size, rounds, o->ram, rows, n);
	}
	return 0;
}

const struct cli_command cli_cmd_threads = {
	.name = "threads",
	.summary = "alloc + close of heap buffers on N simulated CPUs, before and after",
	.about = "Run DMA_HEAP_IOCTL_ALLOC + close() of one buffer in rounds on each of N\n"
		 "simulated CPUs at once, through the kernel code, interleaved in modelled\n"
		 "time with the zone lock contended; for each CPU count print the modelled\n"
		 "time per buffer with orders 8,4,0 and 9,8,4,0 and their ratio, with\n"
		 "zeroing costed and without.",
	.opts = threads_options,
	.opts_size = sizeof(struct threads_opts),
	.check = threads_check,
	.run = threads_main,
	.sets_params = threads_sets_params,
	.kernel = 1,
};
