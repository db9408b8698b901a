/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's string functions, with the kernel's prototypes; linked to the
 * C library's implementations, which honour the same contracts.  kstrdup()
 * and kmemdup() are the shim's (kernel_shim/slab.c), so they are counted.
 */
#ifndef _DMASIM_LINUX_STRING_H
#define _DMASIM_LINUX_STRING_H

#include <linux/compiler.h>
#include <linux/types.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *s, const char *sub);
size_t strscpy(char *dst, const char *src, size_t size);
char *kstrdup(const char *s, gfp_t gfp);
void *kmemdup(const void *src, size_t len, gfp_t gfp);

static inline bool str_has_prefix(const char *str, const char *prefix)
{
	return strncmp(str, prefix, strlen(prefix)) == 0;
}

#define memset_after(obj, v, member) \
	memset((u8 *)(obj) + offsetofend(typeof(*(obj)), member), v, \
	       sizeof(*(obj)) - offsetofend(typeof(*(obj)), member))

#endif
