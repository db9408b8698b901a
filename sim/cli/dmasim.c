// SPDX-License-Identifier: GPL-2.0-only
/* dmasim: the command-line front end (subcommands arrive with their issues). */
#include <stdio.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

int dmasim_cmd_bar(int argc, char **argv);

static int usage(FILE *out)
{
	fprintf(out, "usage: dmasim <command> [options]\n"
		     "commands:\n"
		     "  params   list the kernel module parameters\n"
		     "  bar      map a BAR through VFIO type1, report the cost\n");
	return out == stderr ? 2 : 0;
}

static void print_param(void *arg __attribute__((unused)), const char *name, const char *type)
{
	char val[256];

	if (kapi_param_get(name, val, sizeof(val)))
		val[0] = '\0';
	printf("%-40s %-6s %s\n", name, type, val);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "params")) {
		kapi_param_for_each(print_param, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "bar"))
		return dmasim_cmd_bar(argc - 1, argv + 1);
	fprintf(stderr, "dmasim: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
