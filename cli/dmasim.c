// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim: the command-line front end.  Each subcommand lives in its own
 * cmd_*.c file, is listed in `commands` below and parses its options with
 * the table it declares (cli.h says how to add one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_command *const commands[] = {
	&cli_cmd_bench,
	&cli_cmd_bar,
	&cli_cmd_heap,
	&cli_cmd_report,
	&cli_cmd_threads,
	&cli_cmd_params,
	&cli_cmd_replay,
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static int usage(FILE *out)
{
	fprintf(out, "usage: dmasim <command> [options]   (dmasim <command> --help)\n"
		     "commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	return out == stderr ? 2 : 0;
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	fprintf(stderr, "dmasim: unknown command '%s' (dmasim --help lists them)\n", name);
	return NULL;
}

static int run_command(const struct cli_command *cmd, int argc, char **argv)
{
	void *opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
	int ret;

	if (!opts) {
		fprintf(stderr, "dmasim %s: out of memory\n", cmd->name);
		return 1;
	}
	ret = cli_parse(cmd, argc, argv, opts);
	if (ret == 1)
		ret = 0;		/* --help */
	else if (!ret && cmd->check && cmd->check(opts))
		ret = 2;
	else if (!ret)
		ret = cmd->run(opts);
	free(opts);
	return ret;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc == 2)
			return usage(stdout);
		if (argc > 3) {
			fprintf(stderr, "dmasim help: unexpected argument '%s'\n", argv[3]);
			return 2;
		}
		cmd = find_command(argv[2]);
		if (!cmd)
			return 2;
		cli_help(cmd, stdout);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return 2;
	return run_command(cmd, argc - 1, argv + 1);
}
