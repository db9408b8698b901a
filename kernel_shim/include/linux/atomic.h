/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's atomic_t/atomic64_t API on the compiler's __atomic builtins. */
#ifndef _DMASIM_LINUX_ATOMIC_H
#define _DMASIM_LINUX_ATOMIC_H

#include <linux/types.h>

#define ATOMIC_INIT(i)		{ (i) }
#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_add(i, v)	((void)__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST))
#define atomic_sub(i, v)	((void)__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST))
#define atomic_inc(v)		atomic_add(1, v)
#define atomic_dec(v)		atomic_sub(1, v)
#define atomic_add_return(i, v)	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_sub_return(i, v)	__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v)	atomic_add_return(1, v)
#define atomic_dec_return(v)	atomic_sub_return(1, v)
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)
#define atomic_inc_not_zero(v) ({					\
	typeof((v)->counter) __old = atomic_read(v);			\
	while (__old && !__atomic_compare_exchange_n(&(v)->counter,	\
			&__old, __old + 1, false,			\
			__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))		\
		;							\
	__old != 0; })

#define atomic64_read(v)	atomic_read(v)
#define atomic64_set(v, i)	atomic_set(v, i)
#define atomic64_add(i, v)	atomic_add(i, v)
#define atomic64_sub(i, v)	atomic_sub(i, v)
#define atomic64_add_return(i, v) atomic_add_return(i, v)
#define atomic64_sub_return(i, v) atomic_sub_return(i, v)
#define atomic_long_read(v)	atomic_read(v)
#define atomic_long_set(v, i)	atomic_set(v, i)
#define atomic_long_add(i, v)	atomic_add(i, v)
#define atomic_long_sub(i, v)	atomic_sub(i, v)
#define atomic_long_add_return(i, v) atomic_add_return(i, v)
#define atomic_long_sub_return(i, v) atomic_sub_return(i, v)
#define atomic_long_inc(v)	atomic_inc(v)
#define atomic_long_dec(v)	atomic_dec(v)
#define atomic_long_dec_and_test(v) atomic_dec_and_test(v)
#define atomic_long_inc_not_zero(v) atomic_inc_not_zero(v)

#endif
