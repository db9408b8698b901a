/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Definitions matching the kernel's bit operations.  __ffs/__fls/fls/ffs use
 * the compiler builtins; set_bit and friends are atomic as the kernel's are,
 * the __ variants plain.
 */
#ifndef _DMASIM_LINUX_BITOPS_H
#define _DMASIM_LINUX_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

/* Index of the lowest set bit; undefined for 0, as the kernel's. */
static __always_inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

/* Index of the highest set bit; undefined for 0. */
static __always_inline unsigned long __fls(unsigned long word)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(word);
}

/* 1-based index of the highest set bit; 0 for 0. */
static __always_inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static __always_inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static __always_inline int fls_long(unsigned long l)
{
	return fls64(l);
}

/* 1-based index of the lowest set bit; 0 for 0. */
static __always_inline int ffs(int x)
{
	return __builtin_ffs(x);
}

static __always_inline unsigned long __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

static __always_inline unsigned long ffz(unsigned long word)
{
	return __ffs(~word);
}

static inline unsigned int hweight32(unsigned int w)
{
	return __builtin_popcount(w);
}

static inline unsigned long hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

static inline unsigned long hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr),
				 __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
				  __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] >> (nr % BITS_PER_LONG)) & 1;
}

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) < (size); (bit)++) \
		if (test_bit((bit), (addr)))

#endif
