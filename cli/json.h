/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small streaming JSON writer for the CLI: objects, arrays, keys and
 * scalars, with commas and indentation handled by a nesting stack.
 */
#ifndef DMASIM_CLI_JSON_H
#define DMASIM_CLI_JSON_H

#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	int count[JSON_MAX_DEPTH];	/* members written at each level */
	int after_key;
};

void json_init(struct json *j, FILE *out);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
/* key is NULL inside arrays. */
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_i64(struct json *j, const char *key, long long v);
void json_double(struct json *j, const char *key, double v);
void json_string(struct json *j, const char *key, const char *v);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
