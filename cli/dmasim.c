// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim: the command-line front end.  Each subcommand lives in its own
 * cmd_*.c file and is listed in `commands` below.
 */
#include <stdio.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

#include "cli.h"

static int cmd_params(int argc, char **argv);

static const struct cli_cmd commands[] = {
	{ "bench", cmd_bench, "the simulator's speed and memory against its targets (JSON)" },
	{ "bar", cmd_bar, "map a BAR through VFIO type1, report the cost" },
	{ "heap", cmd_heap, "allocate, map, unmap and release one system-heap buffer" },
	{ "report", cmd_report, "the seed figures, simulated beside the published ones" },
	{ "params", cmd_params, "list the kernel module parameters and their values" },
};

static int usage(FILE *out)
{
	fprintf(out, "usage: dmasim <command> [options]   (dmasim <command> --help)\n"
		     "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	return out == stderr ? 2 : 0;
}

static void print_param(void *arg __attribute__((unused)), const char *name,
			const char *type)
{
	char val[256];

	if (kapi_param_get(name, val, sizeof(val)))
		val[0] = '\0';
	printf("%-40s %-6s %s\n", name, type, val);
}

static int cmd_params(int argc __attribute__((unused)),
		      char **argv __attribute__((unused)))
{
	kapi_param_for_each(print_param, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "dmasim: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
