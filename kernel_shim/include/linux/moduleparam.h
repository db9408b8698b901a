/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Module parameters.  Test double: module_param() and module_param_array()
 * record name, type and storage in the "dmasim_param" section, and
 * kapi_param_set("modname.name", "value") parses the value as the kernel's
 * param_set_*() would (-EINVAL on bad input, arrays up to their size).
 * Permissions are ignored: every parameter is writable from tests.
 */
#ifndef _DMASIM_LINUX_MODULEPARAM_H
#define _DMASIM_LINUX_MODULEPARAM_H

#include <linux/compiler.h>
#include <linux/array_size.h>
#include <linux/stringify.h>
#include <linux/types.h>

struct dmasim_param {
	const char *modname;
	const char *name;
	const char *type;	/* "bool", "int", "uint", "ulong", "ullong", "charp" */
	void *arg;
	unsigned int *num;	/* arrays: element count; NULL for scalars */
	unsigned int max;	/* arrays: capacity */
};

#define __dmasim_param(pname, ptype, parg, pnum, pmax)			\
	static const struct dmasim_param __dmasim_param_##pname		\
	__used __section("dmasim_param") __aligned(8) =			\
	{ KBUILD_MODNAME, #pname, #ptype, parg, pnum, pmax }

#define module_param_named(name, value, type, perm) \
	__dmasim_param(name, type, &(value), NULL, 0)
#define module_param(name, type, perm) module_param_named(name, name, type, perm)
#define module_param_array_named(name, array, type, nump, perm) \
	__dmasim_param(name, type, array, nump, ARRAY_SIZE(array))
#define module_param_array(name, type, nump, perm) \
	module_param_array_named(name, name, type, nump, perm)
#define MODULE_PARM_DESC(parm, desc)

#endif
