/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small streaming JSON writer for the CLI: objects, arrays, keys and
 * scalars, with commas and indentation handled by a nesting stack; and a
 * small reader (json_read.c) that takes a document back into a tree, for
 * the commands that read their own output again (report --from-json).
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

/* A parsed value: objects have keys[] beside items[], arrays items[] only. */
enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };
struct json_value {
	enum json_type type;
	double num;			/* JSON_NUMBER; JSON_BOOL 0 or 1 */
	char *str;			/* JSON_STRING */
	size_t n;			/* members of an array or object */
	struct json_value *items;
	char **keys;			/* JSON_OBJECT */
};
/*
 * text (NUL-terminated) into *v; 0, or -1 with *err saying why and *at the
 * offset where reading stopped (nothing to free then).
 */
int json_parse(const char *text, struct json_value *v, const char **err, size_t *at);
void json_value_free(struct json_value *v);
/* obj's member key, arr's item i: NULL if absent or not an object/array. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
const struct json_value *json_item(const struct json_value *arr, size_t i);
/* 0 and the number, or -1 when v is not a number (or NULL). */
int json_number(const struct json_value *v, double *out);
/* The string, or NULL when v is not one. */
const char *json_str(const struct json_value *v);

#endif
