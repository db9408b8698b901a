/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared pieces of the dmasim subcommands, and the one option parser they
 * all use.
 *
 * Conventions (every command):
 * - results on stdout, messages on stderr;
 * - exit 0: done; 1: the run failed (the message says at which step);
 *   2: bad command line (the message names the option or argument and
 *   says why), nothing on stdout, nothing run;
 * - `-h`/`--help` prints the command's options, each with its default,
 *   on stdout and exits 0 (`dmasim help COMMAND` too);
 * - no value is silently replaced or dropped: out-of-range values are
 *   refused, not clamped;
 * - a command that runs kernel code (.kernel = 1) also takes
 *   `--param MODULE.NAME=VALUE` (repeatable), which sets a module
 *   parameter of the simulated kernel before the run, as the kernel's
 *   command line does (`dmasim params` lists them).
 *
 * Adding a command NAME:
 * 1. cli/cmd_NAME.c: a struct of its options, a table of them (one
 *    CLI_OPT_* row each: name, kind, default, limits, help; CLI_OPT_END
 *    last), a run function (int NAME_run(void *opts): 0 or 1), optionally
 *    a check function for rules between options (0, or a message and
 *    nonzero: exit 2), and
 *      const struct cli_command cli_cmd_NAME = {
 *              .name = "NAME", .summary = "...", .about = "...",
 *              .opts = NAME_opts, .opts_size = sizeof(struct NAME_opts),
 *              .run = NAME_run, .kernel = 1,
 *      };
 *    The table both parses the command line and writes --help: defaults
 *    are the text a user would type, parsed by the same code.
 * 2. Declare cli_cmd_NAME below, add it to `commands` in dmasim.c and the
 *    file to cli/meson.build.
 * 3. A row in README's command table, and rows for its options in
 *    tests/cli_bad_input.py (the test fails for a command it does not
 *    know).
 * If the run itself sets a module parameter (as `heap` sets
 * system_heap.orders from --orders), list it in .sets_params so that
 * `--param` of it is refused rather than silently overridden.
 */
#ifndef DMASIM_CLI_H
#define DMASIM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <dmasim/sim.h>

#include "json.h"

enum cli_opt_kind {
	CLI_FLAG,	/* --name, no value: int 1 (default 0) */
	CLI_SIZE,	/* bytes with a K/M/G/T suffix: unsigned long long */
	CLI_UINT,	/* an unsigned integer: unsigned long long */
	CLI_ENUM,	/* one of a list of names: int (index or values[index]) */
	CLI_LIST,	/* comma-separated unsigned integers: const char * */
	CLI_LEVEL,	/* a number in [0, 1] or a named preset: double + name */
	CLI_PARAM,	/* MODULE.NAME=VALUE, repeatable: applied at once */
	CLI_PATH,	/* a file or directory name, not empty: const char * (NULL: none) */
};

struct cli_opt {
	const char *name;		/* without the leading "--" */
	enum cli_opt_kind kind;
	size_t off;			/* of the field in the options struct */
	size_t off_name;		/* CLI_LEVEL: the const char * name */
	const char *def;		/* default as typed; NULL: flag off */
	const char *metavar;		/* "SIZE", "N", ... (help) */
	unsigned long long min, max;	/* SIZE, UINT, LIST: each value */
	unsigned long long step;	/* SIZE: a multiple of this (0: any) */
	unsigned int max_items;		/* LIST: at most this many values */
	unsigned int descending;	/* LIST: strictly descending */
	const char *const *names;	/* ENUM, LEVEL: NULL-terminated */
	const char *(*name_of)(unsigned int i); /* ENUM: or names by index */
	const int *values;		/* ENUM: stored value; NULL: the index */
	double (*preset)(const char *name); /* LEVEL: value of a name */
	const char *help;
};

/*
 * Offset of field f of struct T, which must have type `type` (a compile
 * error otherwise), so a row cannot write the wrong kind of field.
 */
#define CLI_OFF(T, f, type) \
	(offsetof(T, f) + 0 * sizeof(char[_Generic(((T *)0)->f, type: 1, default: -1)]))

#define CLI_OPT_FLAG(T, f, nm, hlp) \
	{ .name = nm, .kind = CLI_FLAG, .off = CLI_OFF(T, f, int), .help = hlp }
#define CLI_OPT_SIZE(T, f, nm, dflt, lo, hi, stp, hlp) \
	{ .name = nm, .kind = CLI_SIZE, .off = CLI_OFF(T, f, unsigned long long), \
	  .def = dflt, .metavar = "SIZE", .min = lo, .max = hi, .step = stp, .help = hlp }
#define CLI_OPT_UINT(T, f, nm, dflt, lo, hi, hlp) \
	{ .name = nm, .kind = CLI_UINT, .off = CLI_OFF(T, f, unsigned long long), \
	  .def = dflt, .metavar = "N", .min = lo, .max = hi, .help = hlp }
/* nms: a NULL-terminated array of names; vals: what each stores, or NULL. */
#define CLI_OPT_ENUM(T, f, nm, dflt, nms, vals, hlp) \
	{ .name = nm, .kind = CLI_ENUM, .off = CLI_OFF(T, f, int), \
	  .def = dflt, .names = nms, .values = vals, .help = hlp }
/* fn(i): the i-th name, NULL past the last; stores the index. */
#define CLI_OPT_ENUM_FN(T, f, nm, dflt, mv, fn, hlp) \
	{ .name = nm, .kind = CLI_ENUM, .off = CLI_OFF(T, f, int), \
	  .def = dflt, .metavar = mv, .name_of = fn, .help = hlp }
#define CLI_OPT_LIST(T, f, nm, dflt, lo, hi, items, desc, hlp) \
	{ .name = nm, .kind = CLI_LIST, .off = CLI_OFF(T, f, const char *), \
	  .def = dflt, .metavar = "LIST", .min = lo, .max = hi, \
	  .max_items = items, .descending = desc, .help = hlp }
#define CLI_OPT_LEVEL(T, f, fname, nm, dflt, nms, fn, hlp) \
	{ .name = nm, .kind = CLI_LEVEL, .off = CLI_OFF(T, f, double), \
	  .off_name = CLI_OFF(T, fname, const char *), .def = dflt, \
	  .names = nms, .preset = fn, .help = hlp }
#define CLI_OPT_PATH(T, f, nm, mv, hlp) \
	{ .name = nm, .kind = CLI_PATH, .off = CLI_OFF(T, f, const char *), \
	  .metavar = mv, .help = hlp }
#define CLI_OPT_END { .name = NULL }

struct cli_command {
	const char *name;
	const char *summary;		/* one line for `dmasim --help` */
	const char *about;		/* a paragraph for its --help */
	const struct cli_opt *opts;	/* CLI_OPT_END-terminated */
	size_t opts_size;		/* of the struct the rows point into */
	int (*check)(void *opts);	/* rules between options: 0 or !0 */
	int (*run)(void *opts);		/* 0, or 1 when the run failed */
	const char *const *sets_params;	/* parameters the run sets itself */
	unsigned int kernel;		/* runs kernel code: takes --param */
	const char *arg_name;		/* one positional argument ("FILE"), required */
	size_t arg_off;			/* its const char * in the options struct */
};

extern const struct cli_command cli_cmd_bar, cli_cmd_bench, cli_cmd_heap,
	cli_cmd_report, cli_cmd_params, cli_cmd_threads, cli_cmd_replay;

/*
 * Fill opts (cmd->opts_size bytes) with the defaults, then with argv[1..]
 * (argv[0] is the command's name).  Returns 0 to run, 1 after printing
 * --help on stdout, 2 after a message on stderr.  --param values are set
 * as they are parsed.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts);
/* The command's --help. */
void cli_help(const struct cli_command *cmd, FILE *out);
/* "dmasim NAME: " + message on stderr; returns 2 (for check functions). */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The --param settings given, in order ("module.name=value"); count. */
unsigned int cli_params_given(const char *const **settings);
/* The --param settings as a JSON object (nothing if there were none). */
void cli_json_params(struct json *j);
/* The --param settings as a line of text (nothing if there were none). */
void cli_print_params(void);

/* IOMMU format names by index (an ENUM's name_of). */
const char *cli_iommu_name(unsigned int i);
/*
 * Why a device behind this IOMMU format cannot use the DMA API on this
 * build (its granule is larger than the CPU page: iommu-dma cannot back a
 * DMA-API domain with it, kapi_dev_format_backs_dma_api()), as one line
 * naming the build that can; NULL if it can.
 */
const char *cli_format_not_for_dma_api(unsigned int fmt);

/* Options every scenario takes: the machine and its state. */
struct cli_machine {
	unsigned long long ram;		/* bytes; default 16 GiB */
	unsigned long long seed;	/* default 1 */
	double frag;			/* 0 = fresh .. 1; default 0 */
	const char *frag_name;		/* "fresh", "aged" or the number given */
	unsigned long long cpus;
};

extern const char *const cli_frag_presets[];

/*
 * Rows for --seed, --frag and --cpus of a struct T whose member m is a
 * struct cli_machine (--ram has its own row: its limits differ).
 */
#define CLI_MACHINE_OPTS(T, m) \
	CLI_OPT_UINT(T, m.seed, "seed", "1", 0, ~0ULL, \
		     "seed of the machine's ageing workload"), \
	CLI_OPT_LEVEL(T, m.frag, m.frag_name, "frag", "fresh", cli_frag_presets, \
		      sim_age_preset, "age the machine to this fragmentation level"), \
	CLI_OPT_UINT(T, m.cpus, "cpus", "1", 1, 64, "CPUs of the simulated machine")

void cli_machine_defaults(struct cli_machine *m);
/* Build the machine, boot the kernel, age it; 0 or -errno (message printed). */
int cli_machine_start(const struct cli_machine *m);
/*
 * Build machine m once (booted, aged: the slow part), then call
 * run(i, res_i, arg) for each i < n in a forked copy of it, so that every
 * run starts from the very same state; res_i, at res + i * res_size, comes
 * back to the caller through a pipe.  status[i]: 0, the -errno of building
 * the machine, of pipe() or fork(), or -ECHILD if the child died.  The
 * machine is destroyed at the end.  Returns the machine's status.
 */
int cli_machine_fork_runs(const struct cli_machine *m, unsigned int n,
			  void (*run)(unsigned int i, void *res, void *arg), void *arg,
			  void *res, size_t res_size, int *status);
/*
 * The same on the machine as it is now (built, or a forked copy already):
 * run(i, res_i, arg) in a forked copy of it for each i < n; status[i] as
 * above but for building the machine.
 */
void cli_fork_runs(unsigned int n, void (*run)(unsigned int i, void *res, void *arg),
		  void *arg, void *res, size_t res_size, int *status);

/* "4K", "2M", "1G", "512G", "16K"... for a power-of-two size. */
const char *cli_size_name(unsigned long long bytes, char *buf, size_t len);
/* Human-readable bytes: "1 GiB", "64 KiB", "1.5 MiB". */
const char *cli_bytes(unsigned long long bytes, char *buf, size_t len);

/* Monotonic wall clock in milliseconds. */
double cli_now_ms(void);
/*
 * CPU time of this process in milliseconds: on a shared machine, where
 * other programs stretch the wall clock, what the simulator itself spent.
 */
double cli_cpu_ms(void);
/* Peak resident set size of this process, in bytes. */
unsigned long long cli_peak_rss(void);

/* Every counter in *c as a JSON object (zero counters included). */
void cli_json_counters(struct json *j, const char *key, const struct sim_counters *c);

#endif
