/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's min()/max()/clamp() family. */
#ifndef _DMASIM_LINUX_MINMAX_H
#define _DMASIM_LINUX_MINMAX_H

#include <linux/compiler.h>

#define __cmp_once(op, x, y) ({				\
	typeof(x) __x = (x);				\
	typeof(y) __y = (y);				\
	(void)(&__x == &__y);				\
	__x op __y ? __x : __y; })

#define min(x, y)	__cmp_once(<, x, y)
#define max(x, y)	__cmp_once(>, x, y)
#define min_t(type, x, y) ({ type __a = (x); type __b = (y); __a < __b ? __a : __b; })
#define max_t(type, x, y) ({ type __a = (x); type __b = (y); __a > __b ? __a : __b; })
#define min3(x, y, z)	min((typeof(x))min(x, y), z)
#define max3(x, y, z)	max((typeof(x))max(x, y), z)
#define umin(x, y)	min_t(unsigned long long, x, y)
#define umax(x, y)	max_t(unsigned long long, x, y)
#define clamp(val, lo, hi) min((typeof(val))max(val, lo), hi)
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define clamp_val(val, lo, hi) clamp_t(typeof(val), val, lo, hi)
#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#endif
