// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim params: the kernel module parameters, their types and values
 * (after any --param given, so `dmasim params --param X=V` shows what a
 * command given the same --param runs with).
 */
#include <stdio.h>

#include <dmasim/kapi.h>

#include "cli.h"

struct params_opts {
	int unused;
};

static const struct cli_opt params_opts[] = {
	CLI_OPT_END,
};

static void print_param(void *arg __attribute__((unused)), const char *name,
			const char *type)
{
	char val[256];

	if (kapi_param_get(name, val, sizeof(val)))
		val[0] = '\0';
	printf("%-40s %-6s %s\n", name, type, val);
}

static int params_run(void *opts __attribute__((unused)))
{
	kapi_param_for_each(print_param, NULL);
	return 0;
}

const struct cli_command cli_cmd_params = {
	.name = "params",
	.summary = "list the kernel module parameters and their values",
	.about = "Every module parameter of the simulated kernel (MODULE.NAME), its type\n"
		 "and its value, after the --param options given.",
	.opts = params_opts,
	.opts_size = sizeof(struct params_opts),
	.run = params_run,
	.kernel = 1,
};
