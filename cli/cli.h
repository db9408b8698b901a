/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared pieces of the dmasim subcommands. */
#ifndef DMASIM_CLI_H
#define DMASIM_CLI_H

#include <stdio.h>

#include <dmasim/sim.h>

#include "json.h"

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Options every scenario takes: the machine and its state. */
struct cli_machine {
	unsigned long long ram;		/* bytes; default 16 GiB */
	unsigned long long seed;	/* default 1 */
	double frag;			/* 0 = fresh .. 1; default 0 */
	const char *frag_name;		/* "fresh", "aged" or the number given */
	unsigned int cpus;
};

void cli_machine_defaults(struct cli_machine *m);
/*
 * Parse one machine option at argv[*i] (--ram, --seed, --frag, --cpus);
 * returns 1 if it was one (and advances *i past its value), 0 if not, -1 on
 * a bad value (message printed).
 */
int cli_machine_option(struct cli_machine *m, int argc, char **argv, int *i);
/* Build the machine, boot the kernel, age it; 0 or -errno (message printed). */
int cli_machine_start(const struct cli_machine *m);

/* "4K", "2M", "1G", "512G", "16K"... for a power-of-two size. */
const char *cli_size_name(unsigned long long bytes, char *buf, size_t len);
/* Human-readable bytes: "1 GiB", "64 KiB", "1.5 MiB". */
const char *cli_bytes(unsigned long long bytes, char *buf, size_t len);

/* Monotonic wall clock in milliseconds. */
double cli_now_ms(void);
/* Peak resident set size of this process, in bytes. */
unsigned long long cli_peak_rss(void);

/* Every counter in *c as a JSON object (zero counters included). */
void cli_json_counters(struct json *j, const char *key, const struct sim_counters *c);

int cmd_heap(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bar(int argc, char **argv);

#endif
