/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's rounding helpers. */
#ifndef _DMASIM_LINUX_MATH_H
#define _DMASIM_LINUX_MATH_H

#include <linux/types.h>

#define __round_mask(x, y) ((__typeof__(x))((y) - 1))
#define round_up(x, y) ((((x) - 1) | __round_mask(x, y)) + 1)
#define round_down(x, y) ((x) & ~__round_mask(x, y))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(ll, d) DIV_ROUND_UP((unsigned long long)(ll), (d))
#define roundup(x, y) ({ typeof(y) __y = y; (((x) + (__y - 1)) / __y) * __y; })
#define rounddown(x, y) ({ typeof(x) __x = (x); __x - (__x % (y)); })
#define abs(x) __builtin_choose_expr(sizeof(x) == sizeof(long long), \
	__builtin_llabs(x), __builtin_abs(x))

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
