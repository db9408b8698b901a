/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Initcalls.  Test double: module_init() and the *_initcall() levels record
 * the function in the "dmasim_initcall" section; kapi_boot() runs them in
 * level order, as the kernel's do_initcalls() does, once per process.
 * module_exit() and __exitcall() functions are recorded likewise and run by
 * kapi_shutdown().
 */
#ifndef _DMASIM_LINUX_INIT_H
#define _DMASIM_LINUX_INIT_H

#include <linux/compiler.h>
#include <linux/types.h>

typedef int (*initcall_t)(void);
typedef void (*exitcall_t)(void);

struct dmasim_initcall {
	initcall_t init;
	exitcall_t exit;
	int level;
	const char *name;
	const char *modname;
};

#define __dmasim_initcall(fn, lvl)					\
	static const struct dmasim_initcall __dmasim_initcall_##fn	\
	__used __section("dmasim_initcall") __aligned(8) =		\
	{ .init = fn, .level = lvl, .name = #fn, .modname = KBUILD_MODNAME }

#define __dmasim_exitcall(fn)						\
	static const struct dmasim_initcall __dmasim_exitcall_##fn	\
	__used __section("dmasim_initcall") __aligned(8) =		\
	{ .exit = fn, .level = 8, .name = #fn, .modname = KBUILD_MODNAME }

#define core_initcall(fn)	__dmasim_initcall(fn, 1)
#define postcore_initcall(fn)	__dmasim_initcall(fn, 2)
#define arch_initcall(fn)	__dmasim_initcall(fn, 3)
#define subsys_initcall(fn)	__dmasim_initcall(fn, 4)
#define fs_initcall(fn)		__dmasim_initcall(fn, 5)
#define device_initcall(fn)	__dmasim_initcall(fn, 6)
#define late_initcall(fn)	__dmasim_initcall(fn, 7)
#define __initcall(fn)		device_initcall(fn)
/* A built-in file's exit function (current dma-heap.c): as module_exit(). */
#define __exitcall(fn)		__dmasim_exitcall(fn)

#endif
