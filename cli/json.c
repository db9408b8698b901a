// SPDX-License-Identifier: GPL-2.0-only
/* Streaming JSON writer (see json.h). */
#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
}

static void indent(struct json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* Comma, newline and key before a value at the current level. */
static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->count[j->depth]++)
			fputc(',', j->out);
		indent(j);
	}
	if (key) {
		put_string(j->out, key);
		fputs(": ", j->out);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void json_close(struct json *j, char c)
{
	int had = j->count[j->depth];

	j->depth--;
	if (had)
		indent(j);
	fputc(c, j->out);
}

void json_begin_object(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_end_object(struct json *j)
{
	json_close(j, '}');
}

void json_begin_array(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_end_array(struct json *j)
{
	json_close(j, ']');
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	member(j, key);
	fprintf(j->out, "%llu", v);
}

void json_i64(struct json *j, const char *key, long long v)
{
	member(j, key);
	fprintf(j->out, "%lld", v);
}

void json_double(struct json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json_string(struct json *j, const char *key, const char *v)
{
	member(j, key);
	put_string(j->out, v);
}

void json_bool(struct json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void json_finish(struct json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
}
