/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's catch-all header: what <linux/kernel.h> makes visible in 6.12
 * that the code under test relies on.  Stubs: might_sleep() and friends
 * check nothing.
 */
#ifndef _DMASIM_LINUX_KERNEL_H
#define _DMASIM_LINUX_KERNEL_H

#include <linux/stdarg.h>
#include <linux/align.h>
#include <linux/array_size.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sprintf.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/bug.h>

#define might_sleep()		do { } while (0)
#define might_sleep_if(cond)	do { (void)(cond); } while (0)
#define might_fault()		do { } while (0)
#define cant_sleep()		do { } while (0)
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)(((n) >> 16) >> 16))
#define REPEAT_BYTE(x)		((~0ul / 0xff) * (x))
#define _RET_IP_		(unsigned long)__builtin_return_address(0)
#define typecheck(type, x)	({ type __dummy; typeof(x) __dummy2; (void)(&__dummy == &__dummy2); 1; })

#endif
