/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's ilog2() and power-of-two helpers. */
#ifndef _DMASIM_LINUX_LOG2_H
#define _DMASIM_LINUX_LOG2_H

#include <linux/bitops.h>

#define ilog2(n) ((n) ? (int)(sizeof(n) <= 4 ? fls((u32)(n)) - 1 : fls64((u64)(n)) - 1) : -1)

static inline __attribute__((const)) bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline __attribute__((const)) unsigned long __roundup_pow_of_two(unsigned long n)
{
	return 1UL << fls_long(n - 1);
}

static inline __attribute__((const)) unsigned long __rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (fls_long(n) - 1);
}

#define roundup_pow_of_two(n) __roundup_pow_of_two(n)
#define rounddown_pow_of_two(n) __rounddown_pow_of_two(n)
#define order_base_2(n) ((n) > 1 ? ilog2((n) - 1) + 1 : 0)

#endif
