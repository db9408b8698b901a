// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one option parser of the dmasim commands (see cli.h): a table of
 * options per command parses the command line and writes --help.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/kapi.h>

#include "cli.h"

#define MAX_PARAMS	64
#define HELP_COLUMN	27
#define HELP_WIDTH	79

/* The --param option every kernel command takes. */
static const struct cli_opt param_opt = {
	.name = "param", .kind = CLI_PARAM, .metavar = "MODULE.NAME=VALUE",
	.help = "set a kernel module parameter before the run, as on the kernel's "
		"command line; repeatable; `dmasim params` lists them",
};

static const char *params_given[MAX_PARAMS];
static unsigned int nr_params_given;

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dmasim %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void *field(void *opts, size_t off)
{
	return (char *)opts + off;
}

static const char *enum_name(const struct cli_opt *o, unsigned int i)
{
	return o->names ? o->names[i] : o->name_of(i);
}

/* "a, b, c" (sep ", ") or "a|b|c" (sep "|") into buf. */
static const char *join_names(const struct cli_opt *o, const char *sep,
			      char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; enum_name(o, i) && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? sep : "",
				enum_name(o, i));
	return buf;
}

/*
 * A decimal or 0x number with nothing before it (strtoull would take
 * " 1", "+1" and "-1"); 0, -EINVAL (not a number), -ERANGE (too large).
 * *end is left at the first character after the digits.
 */
static int parse_number(const char *s, unsigned long long *v, char **end)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 0);
	return errno ? -errno : 0;
}

static int parse_size(const struct cli_command *cmd, const struct cli_opt *o,
		      const char *val, unsigned long long *out)
{
	char lo[32], hi[32], st[32];

	if (*val < '0' || *val > '9' || sim_parse_size(val, out))
		return cli_usage_error(cmd, "--%s '%s' is not a size (a number with an "
				       "optional K, M, G or T suffix)", o->name, val);
	if (*out < o->min || *out > o->max)
		return cli_usage_error(cmd, "--%s %s is out of range: %s..%s", o->name, val,
				       cli_size_name(o->min, lo, sizeof(lo)),
				       cli_size_name(o->max, hi, sizeof(hi)));
	if (o->step && *out % o->step)
		return cli_usage_error(cmd, "--%s %s is not a multiple of %s", o->name, val,
				       cli_size_name(o->step, st, sizeof(st)));
	return 0;
}

static int parse_uint(const struct cli_command *cmd, const struct cli_opt *o,
		      const char *val, unsigned long long *out)
{
	char *end;
	int ret = parse_number(val, out, &end);

	if (ret == -EINVAL || (!ret && *end))
		return cli_usage_error(cmd, "--%s '%s' is not a whole number", o->name, val);
	if (ret || *out < o->min || *out > o->max)
		return cli_usage_error(cmd, "--%s %s is out of range: %llu..%llu", o->name,
				       val, o->min, o->max);
	return 0;
}

static int parse_enum(const struct cli_command *cmd, const struct cli_opt *o,
		      const char *val, int *out)
{
	char names[256];

	for (unsigned int i = 0; enum_name(o, i); i++)
		if (!strcmp(val, enum_name(o, i))) {
			*out = o->values ? o->values[i] : (int)i;
			return 0;
		}
	return cli_usage_error(cmd, "--%s '%s' is not one of %s", o->name, val,
			       join_names(o, ", ", names, sizeof(names)));
}

static int parse_list(const struct cli_command *cmd, const struct cli_opt *o,
		      const char *val)
{
	unsigned long long v, prev = 0;
	const char *s = val;
	unsigned int n = 0;
	char *end;
	int ret;

	for (;;) {
		ret = parse_number(s, &v, &end);
		if (ret == -EINVAL || (*end && *end != ','))
			return cli_usage_error(cmd, "--%s '%s' is not a comma-separated list "
					       "of whole numbers", o->name, val);
		if (ret || v < o->min || v > o->max)
			return cli_usage_error(cmd, "--%s %s: %.*s is out of range: %llu..%llu",
					       o->name, val, (int)(end - s), s,
					       o->min, o->max);
		if (++n > o->max_items)
			return cli_usage_error(cmd, "--%s %s: more than %u values", o->name,
					       val, o->max_items);
		if (o->descending && n > 1 && v >= prev)
			return cli_usage_error(cmd, "--%s %s: %llu after %llu: the list must "
					       "be strictly descending (largest first)",
					       o->name, val, v, prev);
		prev = v;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

static int parse_level(const struct cli_command *cmd, const struct cli_opt *o,
		       const char *val, double *out)
{
	char names[128];
	char *end;

	for (unsigned int i = 0; o->names[i]; i++)
		if (!strcmp(val, o->names[i])) {
			*out = o->preset(val);
			if (*out < 0)
				return cli_usage_error(cmd, "--%s: no preset '%s' (internal)",
						       o->name, val);
			return 0;
		}
	if ((*val >= '0' && *val <= '9') || *val == '.') {
		*out = strtod(val, &end);
		if (!*end && *out >= 0 && *out <= 1)
			return 0;
	}
	return cli_usage_error(cmd, "--%s '%s' is neither a number in 0..1 nor one of %s",
			       o->name, val, join_names(o, ", ", names, sizeof(names)));
}

/* Module "mod" and its parameter "mod.name", looked up by name. */
struct param_lookup {
	const char *name;
	size_t modlen;
	int module_found;
	const char *type;
};

static void param_lookup_one(void *arg, const char *name, const char *type)
{
	struct param_lookup *l = arg;

	if (!strncmp(name, l->name, l->modlen) && name[l->modlen] == '.') {
		l->module_found = 1;
		if (!strcmp(name, l->name))
			l->type = type;
	}
}

static int parse_param(const struct cli_command *cmd, const char *val)
{
	const char *eq = strchr(val, '='), *dot = strchr(val, '.');
	struct param_lookup l = { 0 };
	char name[128];
	int ret;

	if (!eq || !dot || dot > eq || dot == val || eq == dot + 1 ||
	    (size_t)(eq - val) >= sizeof(name))
		return cli_usage_error(cmd, "--param '%s' is not MODULE.NAME=VALUE", val);
	memcpy(name, val, eq - val);
	name[eq - val] = '\0';
	l.name = name;
	l.modlen = dot - val;
	kapi_param_for_each(param_lookup_one, &l);
	if (!l.module_found)
		return cli_usage_error(cmd, "--param %s: no module '%.*s' has parameters "
				       "(dmasim params lists them)", val, (int)l.modlen, val);
	if (!l.type)
		return cli_usage_error(cmd, "--param %s: module %.*s has no parameter '%s' "
				       "(dmasim params lists them)", val, (int)l.modlen, val,
				       name + l.modlen + 1);
	for (unsigned int i = 0; cmd->sets_params && cmd->sets_params[i]; i++)
		if (!strcmp(name, cmd->sets_params[i]))
			return cli_usage_error(cmd, "--param %s: dmasim %s sets this parameter "
					       "itself (see dmasim %s --help)", name,
					       cmd->name, cmd->name);
	for (unsigned int i = 0; i < nr_params_given; i++)
		if (!strncmp(params_given[i], val, eq - val + 1))
			return cli_usage_error(cmd, "--param %s given twice", name);
	if (nr_params_given == MAX_PARAMS)
		return cli_usage_error(cmd, "more than %d --param options", MAX_PARAMS);
	ret = kapi_param_set(name, eq + 1);
	if (ret)
		return cli_usage_error(cmd, "--param %s: '%s' is not a valid %s%s", name,
				       eq + 1, l.type, !strcmp(l.type, "bool") ?
				       " (y/n, 1/0, on/off)" : "");
	params_given[nr_params_given++] = val;
	return 0;
}

/*
 * Modules check some parameters only in their init function (the system
 * heap refuses orders that are not descending): boot the kernel once on a
 * small machine now, so that a refused --param is a usage error before
 * anything runs.  Initcalls run once per process and the machine may be
 * rebuilt after boot (kapi.h), so the run boots no second time.
 */
static int boot_with_params(const struct cli_command *cmd)
{
	struct sim_config cfg = { .ram_bytes = 64ULL << 20, .nr_cpus = 1, .seed = 1 };
	int ret = sim_machine_init(&cfg);

	if (ret) {
		fprintf(stderr, "dmasim %s: cannot build a machine to boot on: %s\n",
			cmd->name, strerror(-ret));
		return 1;
	}
	ret = kapi_boot();
	sim_machine_destroy();
	if (!ret)
		return 0;
	fprintf(stderr, "dmasim %s: the kernel's initcalls failed (%s) with", cmd->name,
		strerror(-ret));
	for (unsigned int i = 0; i < nr_params_given; i++)
		fprintf(stderr, " --param %s", params_given[i]);
	fputc('\n', stderr);
	return 2;
}

/* Parse one value of option o into opts; 0 or 2 (message printed). */
static int set_value(const struct cli_command *cmd, const struct cli_opt *o,
		     const char *val, void *opts)
{
	switch (o->kind) {
	case CLI_FLAG:
		*(int *)field(opts, o->off) = 1;
		return 0;
	case CLI_SIZE:
		return parse_size(cmd, o, val, field(opts, o->off));
	case CLI_UINT:
		return parse_uint(cmd, o, val, field(opts, o->off));
	case CLI_ENUM:
		return parse_enum(cmd, o, val, field(opts, o->off));
	case CLI_LIST:
		if (parse_list(cmd, o, val))
			return 2;
		*(const char **)field(opts, o->off) = val;
		return 0;
	case CLI_LEVEL:
		if (parse_level(cmd, o, val, field(opts, o->off)))
			return 2;
		*(const char **)field(opts, o->off_name) = val;
		return 0;
	case CLI_PARAM:
		return parse_param(cmd, val);
	case CLI_PATH:
		if (!*val)
			return cli_usage_error(cmd, "--%s '' is not a %s name", o->name,
					       o->metavar);
		*(const char **)field(opts, o->off) = val;
		return 0;
	}
	return 2;
}

static const struct cli_opt *find_opt(const struct cli_command *cmd, const char *name,
				      size_t len, unsigned int *index)
{
	unsigned int i;

	for (i = 0; cmd->opts[i].name; i++)
		if (strlen(cmd->opts[i].name) == len && !strncmp(cmd->opts[i].name, name, len)) {
			*index = i;
			return &cmd->opts[i];
		}
	if (cmd->kernel && len == strlen(param_opt.name) && !strncmp(param_opt.name, name, len)) {
		*index = i;
		return &param_opt;
	}
	return NULL;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts)
{
	unsigned long long seen = 0;

	memset(opts, 0, cmd->opts_size);
	/* DMASIM_PARAMS first, so that --param overrides it. */
	if (cmd->kernel && kapi_boot_params())
		return cli_usage_error(cmd, "DMASIM_PARAMS='%s' does not apply",
				       sim_boot_params());
	for (const struct cli_opt *o = cmd->opts; o->name; o++)
		if (o->def && set_value(cmd, o, o->def, opts))
			return cli_usage_error(cmd, "bad default of --%s (internal)", o->name);

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *name, *eq, *val;
		const struct cli_opt *o;
		unsigned int index;
		size_t len;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			cli_help(cmd, stdout);
			return 1;
		}
		if (strncmp(arg, "--", 2)) {
			if (arg[0] == '-' && arg[1])
				return cli_usage_error(cmd, "unknown option '%s' (dmasim %s --help "
						       "lists them)", arg, cmd->name);
			if (!cmd->arg_name || *(const char **)((char *)opts + cmd->arg_off))
				return cli_usage_error(cmd, "unexpected argument '%s'", arg);
			*(const char **)((char *)opts + cmd->arg_off) = arg;
			continue;
		}
		name = arg + 2;
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		o = find_opt(cmd, name, len, &index);
		if (!o)
			return cli_usage_error(cmd, "unknown option '--%.*s' (dmasim %s --help "
					       "lists them)", (int)len, name, cmd->name);
		if (o->kind != CLI_PARAM) {
			if (seen & (1ULL << index))
				return cli_usage_error(cmd, "--%s given twice", o->name);
			seen |= 1ULL << index;
		}
		if (o->kind == CLI_FLAG) {
			if (eq)
				return cli_usage_error(cmd, "--%s takes no value", o->name);
			val = NULL;
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return cli_usage_error(cmd, "--%s needs a value (%s)", o->name,
					       o->metavar ? o->metavar : "see --help");
		}
		if (set_value(cmd, o, val, opts))
			return 2;
	}
	if (cmd->arg_name && !*(const char **)((char *)opts + cmd->arg_off))
		return cli_usage_error(cmd, "%s missing (dmasim %s --help)", cmd->arg_name,
				       cmd->name);
	return nr_params_given ? boot_with_params(cmd) : 0;
}

/* Words of text from column col, wrapped at HELP_WIDTH under HELP_COLUMN. */
static void print_wrapped(FILE *out, const char *text, int col)
{
	const char *s = text;

	while (*s) {
		const char *word_end = strchr(s, ' ');
		int len = word_end ? (int)(word_end - s) : (int)strlen(s);

		if (col > HELP_COLUMN && col + 1 + len > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
		} else if (col > HELP_COLUMN) {
			fputc(' ', out);
			col++;
		}
		/* '\x01' stands for a space that must not break a line */
		for (int k = 0; k < len; k++)
			fputc(s[k] == '\x01' ? ' ' : s[k], out);
		col += len;
		s += len;
		while (*s == ' ')
			s++;
	}
	fputc('\n', out);
}

/* What a value of o is: limits, choices; and its default. */
static void describe(const struct cli_opt *o, char *buf, size_t len)
{
	char a[32], b[32], c[32], names[256];
	size_t off = snprintf(buf, len, "%s", o->help);

	switch (o->kind) {
	case CLI_SIZE:
		off += snprintf(buf + off, len - off, "; %s..%s",
				cli_size_name(o->min, a, sizeof(a)),
				cli_size_name(o->max, b, sizeof(b)));
		if (o->step)
			off += snprintf(buf + off, len - off, ", a multiple of %s",
					cli_size_name(o->step, c, sizeof(c)));
		break;
	case CLI_UINT:
		if (o->max == ~0ULL)
			off += snprintf(buf + off, len - off, "; %llu or more", o->min);
		else
			off += snprintf(buf + off, len - off, "; %llu..%llu", o->min, o->max);
		break;
	case CLI_LIST:
		off += snprintf(buf + off, len - off, "; up to %u values, each %llu..%llu%s",
				o->max_items, o->min, o->max,
				o->descending ? ", largest first" : "");
		break;
	case CLI_ENUM:
		if (o->name_of)
			off += snprintf(buf + off, len - off, ": %s",
					join_names(o, ", ", names, sizeof(names)));
		break;
	case CLI_LEVEL:
		off += snprintf(buf + off, len - off, "; 0..1 or %s",
				join_names(o, ", ", names, sizeof(names)));
		break;
	default:
		break;
	}
	if (off < len)
		snprintf(buf + off, len - off, " (default\x01%s)",
			 o->kind == CLI_FLAG ? "off" :
			 o->kind == CLI_PARAM || !o->def ? "none" : o->def);
}

static void help_row(FILE *out, const struct cli_opt *o)
{
	char left[128], names[256], text[1024];
	const char *mv = o->metavar;
	int col;

	if (o->kind == CLI_ENUM && !mv)
		mv = join_names(o, "|", names, sizeof(names));
	if (o->kind == CLI_LEVEL)
		mv = "LEVEL";
	col = snprintf(left, sizeof(left), "  --%s%s%s", o->name, mv ? " " : "", mv ? mv : "");
	describe(o, text, sizeof(text));
	fputs(left, out);
	if (col + 2 > HELP_COLUMN) {
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	} else {
		fprintf(out, "%*s", HELP_COLUMN - col, "");
	}
	print_wrapped(out, text, HELP_COLUMN);
}

void cli_help(const struct cli_command *cmd, FILE *out)
{
	fprintf(out, "usage: dmasim %s [options]%s%s\n%s\n\noptions:\n", cmd->name,
		cmd->arg_name ? " " : "", cmd->arg_name ? cmd->arg_name : "", cmd->about);
	for (const struct cli_opt *o = cmd->opts; o->name; o++)
		help_row(out, o);
	if (cmd->kernel)
		help_row(out, &param_opt);
	for (unsigned int i = 0; cmd->sets_params && cmd->sets_params[i]; i++)
		fprintf(out, "%*s(not %s: dmasim %s sets it)\n", HELP_COLUMN, "",
			cmd->sets_params[i], cmd->name);
	fprintf(out, "  -h, --help%*sthis text\n", HELP_COLUMN - 12, "");
	for (const struct cli_opt *o = cmd->opts; o->name; o++)
		if (o->kind == CLI_SIZE) {
			fprintf(out, "\nSizes take a K, M, G or T suffix (powers of 1024).");
			break;
		}
	fprintf(out, "\nResults go to stdout, messages to stderr; exit status 0: done, 1: the\n"
		     "run failed, 2: bad usage.\n");
}

unsigned int cli_params_given(const char *const **settings)
{
	*settings = params_given;
	return nr_params_given;
}

void cli_json_params(struct json *j)
{
	char name[128];

	if (!nr_params_given)
		return;
	json_begin_object(j, "params");
	for (unsigned int i = 0; i < nr_params_given; i++) {
		const char *eq = strchr(params_given[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - params_given[i]),
			 params_given[i]);
		json_string(j, name, eq + 1);
	}
	json_end_object(j);
}

void cli_print_params(void)
{
	if (!nr_params_given)
		return;
	printf("  kernel parameters:");
	for (unsigned int i = 0; i < nr_params_given; i++)
		printf(" %s", params_given[i]);
	printf("\n");
}
