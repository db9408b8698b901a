/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's overflow helpers (compiler builtins). */
#ifndef _DMASIM_LINUX_OVERFLOW_H
#define _DMASIM_LINUX_OVERFLOW_H

#include <linux/compiler.h>
#include <linux/limits.h>

#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d) __builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define overflows_type(n, T) ({ typeof(T) __t; __builtin_add_overflow(n, 0, &__t); })

static inline size_t size_mul(size_t a, size_t b)
{
	size_t bytes;

	if (check_mul_overflow(a, b, &bytes))
		return SIZE_MAX;
	return bytes;
}

static inline size_t size_add(size_t a, size_t b)
{
	size_t bytes;

	if (check_add_overflow(a, b, &bytes))
		return SIZE_MAX;
	return bytes;
}

#define array_size(a, b)	size_mul(a, b)
#define array3_size(a, b, c)	size_mul(size_mul(a, b), c)
#define struct_size(p, member, count) \
	size_add(sizeof(*(p)), size_mul(sizeof(*(p)->member), count))
#define struct_size_t(type, member, count) \
	struct_size((type *)NULL, member, count)
#define flex_array_size(p, member, count) size_mul(count, sizeof(*(p)->member))

#endif
