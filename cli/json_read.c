// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON reader (see json.h): the whole document into a tree of values, by
 * recursive descent.  It reads what json.c writes (and any other RFC 8259
 * text, nested at most JSON_MAX_DEPTH deep); a \u escape is kept as the
 * character when it is ASCII and as '?' otherwise: the CLI reads numbers
 * and its own names back, never free text.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct reader {
	const char *s;
	int depth;
	const char *err;
};

static void skip_space(struct reader *r)
{
	while (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')
		r->s++;
}

static int fail(struct reader *r, const char *why)
{
	if (!r->err)
		r->err = why;
	return -1;
}

/* The string at r->s (after its '"') into a new buffer; r->s past the '"'. */
static char *read_string(struct reader *r)
{
	size_t len = 0, cap = 16;
	char *buf = malloc(cap);

	while (buf && *r->s != '"') {
		char c = *r->s++;

		if (!c || (unsigned char)c < 0x20) {
			fail(r, "unterminated string");
			break;
		}
		if (c == '\\') {
			c = *r->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u': {
				unsigned int u = 0;

				for (int i = 0; i < 4; i++, r->s++) {
					if (!isxdigit((unsigned char)*r->s)) {
						fail(r, "bad \\u escape");
						goto out;
					}
					u = u * 16 + (isdigit((unsigned char)*r->s) ?
						      *r->s - '0' : (*r->s | 0x20) - 'a' + 10);
				}
				c = u && u < 0x80 ? (char)u : '?';
				break;
			}
			default:
				fail(r, "bad escape");
				goto out;
			}
		}
		if (len + 1 >= cap) {
			char *more = realloc(buf, cap *= 2);

			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
		}
		buf[len++] = c;
	}
out:
	if (!buf) {
		fail(r, "out of memory");
		return NULL;
	}
	if (r->err) {
		free(buf);
		return NULL;
	}
	r->s++;
	buf[len] = '\0';
	return buf;
}

static int read_value(struct reader *r, struct json_value *v);

/* Members (object) or items (array) up to the closing bracket. */
static int read_members(struct reader *r, struct json_value *v, char close)
{
	size_t cap = 0;

	skip_space(r);
	if (*r->s == close) {
		r->s++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			struct json_value *items;
			char **keys = NULL;

			cap = cap ? 2 * cap : 8;
			items = realloc(v->items, cap * sizeof(*items));
			if (items)
				v->items = items;
			if (items && close == '}') {
				keys = realloc(v->keys, cap * sizeof(*keys));
				if (keys)
					v->keys = keys;
			}
			if (!items || (close == '}' && !keys))
				return fail(r, "out of memory");
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		skip_space(r);
		if (close == '}') {
			if (*r->s != '"')
				return fail(r, "expected a key");
			r->s++;
			v->keys[v->n] = read_string(r);
			if (!v->keys[v->n])
				return -1;
			skip_space(r);
			if (*r->s != ':') {
				v->n++;		/* the key is freed with the object */
				return fail(r, "expected ':'");
			}
			r->s++;
		}
		v->n++;
		if (read_value(r, &v->items[v->n - 1]))
			return -1;
		skip_space(r);
		if (*r->s == ',') {
			r->s++;
			continue;
		}
		if (*r->s != close)
			return fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		r->s++;
		return 0;
	}
}

static int read_value(struct reader *r, struct json_value *v)
{
	static const struct { const char *word; enum json_type type; int b; } words[] = {
		{ "true", JSON_BOOL, 1 }, { "false", JSON_BOOL, 0 }, { "null", JSON_NULL, 0 },
	};
	int ret;

	skip_space(r);
	switch (*r->s) {
	case '{':
	case '[':
		if (r->depth == JSON_MAX_DEPTH)
			return fail(r, "nested too deep");
		v->type = *r->s == '{' ? JSON_OBJECT : JSON_ARRAY;
		r->s++;
		r->depth++;
		ret = read_members(r, v, v->type == JSON_OBJECT ? '}' : ']');
		r->depth--;
		return ret;
	case '"':
		r->s++;
		v->type = JSON_STRING;
		v->str = read_string(r);
		return v->str ? 0 : -1;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strncmp(r->s, words[i].word, strlen(words[i].word))) {
			r->s += strlen(words[i].word);
			v->type = words[i].type;
			v->num = words[i].b;
			return 0;
		}
	if (*r->s == '-' || isdigit((unsigned char)*r->s)) {
		char *end;

		errno = 0;
		v->num = strtod(r->s, &end);
		if (end == r->s || errno == ERANGE)
			return fail(r, "bad number");
		r->s = end;
		v->type = JSON_NUMBER;
		return 0;
	}
	return fail(r, "expected a value");
}

static void free_members(struct json_value *v)
{
	for (size_t i = 0; i < v->n; i++) {
		json_value_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void json_value_free(struct json_value *v)
{
	free_members(v);
	memset(v, 0, sizeof(*v));
}

int json_parse(const char *text, struct json_value *v, const char **err, size_t *at)
{
	struct reader r = { .s = text };

	memset(v, 0, sizeof(*v));
	if (!read_value(&r, v)) {
		skip_space(&r);
		if (*r.s)
			fail(&r, "text after the value");
	}
	*err = r.err;
	*at = (size_t)(r.s - text);
	if (r.err)
		json_value_free(v);
	return r.err ? -1 : 0;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const struct json_value *json_item(const struct json_value *arr, size_t i)
{
	return arr && arr->type == JSON_ARRAY && i < arr->n ? &arr->items[i] : NULL;
}

int json_number(const struct json_value *v, double *out)
{
	if (!v || v->type != JSON_NUMBER)
		return -1;
	*out = v->num;
	return 0;
}

const char *json_str(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->str : NULL;
}
