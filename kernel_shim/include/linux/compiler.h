/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's: branch hints, READ_ONCE/WRITE_ONCE, barriers. */
#ifndef _DMASIM_LINUX_COMPILER_H
#define _DMASIM_LINUX_COMPILER_H

#include <linux/compiler_types.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define likely_notrace(x)	likely(x)
#define unlikely_notrace(x)	unlikely(x)

#define barrier()	__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, val) \
	do { *(volatile typeof(x) *)&(x) = (val); } while (0)
#define data_race(expr)	(expr)

#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#define ___PASTE(a, b) a##b
#define __PASTE(a, b) ___PASTE(a, b)

/* 0 for an array; a build error for a pointer (both arms are compiled). */
#define __must_be_array(a) \
	((int)(sizeof(struct { int:(-!!__same_type((a), &(a)[0])); })))
#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))

#define OPTIMIZER_HIDE_VAR(var) __asm__ ("" : "=r" (var) : "0" (var))
#define RELOC_HIDE(ptr, off) ((typeof(ptr))((unsigned long)(ptr) + (off)))
#define unreachable()	__builtin_unreachable()

#endif
