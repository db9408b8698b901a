/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Module boilerplate.  Stubs: MODULE_*() record nothing, THIS_MODULE is
 * NULL, try_module_get() always succeeds.  module_init/module_exit come from
 * <linux/init.h> (see there), module_param from <linux/moduleparam.h>.
 */
#ifndef _DMASIM_LINUX_MODULE_H
#define _DMASIM_LINUX_MODULE_H

#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/stat.h>

struct module;

#define THIS_MODULE		((struct module *)0)
#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_ALIAS(x)
#define MODULE_ALIAS_MISCDEV(x)
#define MODULE_SOFTDEP(x)
#define MODULE_IMPORT_NS(ns)
#define MODULE_INFO(tag, info)

#define module_init(fn)		__dmasim_initcall(fn, 6)
#define module_exit(fn)		__dmasim_exitcall(fn)

static inline bool try_module_get(struct module *module)
{
	return true;
}

static inline void module_put(struct module *module)
{
}

static inline void __module_get(struct module *module)
{
}

#endif
