/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Definitions matching the kernel's printk levels and pr_*() macros.  Test
 * double: every message goes to the simulated kernel log (sim/klog.c),
 * counted per level; nothing is printed unless DMASIM_KLOG is set.
 * Rate limiting and once-only variants behave as the plain ones, except
 * _once, which prints once per call site as the kernel's does.  pr_debug()
 * is the kernel's without dynamic debug: compiled out unless DEBUG.
 */
#ifndef _DMASIM_LINUX_PRINTK_H
#define _DMASIM_LINUX_PRINTK_H

#include <linux/compiler.h>
#include <linux/sprintf.h>
#include <stdarg.h>

#define KERN_SOH	"\001"
#define KERN_SOH_ASCII	'\001'
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ALERT	KERN_SOH "1"
#define KERN_CRIT	KERN_SOH "2"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_DEFAULT	""
#define KERN_CONT	KERN_SOH "c"

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

__printf(1, 2) int _printk(const char *fmt, ...);
#define printk(fmt, ...) _printk(fmt, ##__VA_ARGS__)

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warning		pr_warn
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)

/*
 * pr_debug() and pr_devel() as a kernel without CONFIG_DYNAMIC_DEBUG builds
 * them: logged only in a file that defines DEBUG, otherwise checked for
 * their format and compiled out (no_printk()), so that kernel code's debug
 * messages (the tree's __iommu_unmap() logs every leaf) neither reach the
 * simulated log nor cost time.
 */
#define no_printk(fmt, ...) ({					\
	if (0)							\
		printk(fmt, ##__VA_ARGS__);			\
	0;							\
})
#ifdef DEBUG
#define pr_debug(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_devel(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_debug(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_devel(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif

#define printk_once(fmt, ...) ({				\
	static bool __print_once;				\
	if (!__print_once) {					\
		__print_once = true;				\
		printk(fmt, ##__VA_ARGS__);			\
	}							\
})
#define pr_err_once(fmt, ...)	printk_once(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	printk_once(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_once(fmt, ...)	printk_once(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define printk_ratelimited	printk
#define pr_err_ratelimited	pr_err
#define pr_warn_ratelimited	pr_warn
#define pr_info_ratelimited	pr_info
#define pr_debug_ratelimited	pr_debug
#define printk_ratelimit()	1

#endif
