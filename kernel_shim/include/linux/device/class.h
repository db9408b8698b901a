/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device classes and class devices, as the kernel's <linux/device/class.h>
 * (and device_create()/device_destroy() of <linux/device.h>, which this
 * header also declares so either include works).
 * (a) Definitions that must match the kernel: struct class's name and
 *     devnode members, class_create(name) (the 6.4+ one-argument form;
 *     older trees' class_create(owner, name) and non-const devnode
 *     device, by version, below),
 *     class_destroy, device_create(class, parent, devt, drvdata, fmt, ...).
 * (c) Test double: class_create() allocates a struct class; device_create()
 *     allocates a struct device named from fmt and, as device_add(),
 *     records (class, devt, node name) in the shim's device-node table
 *     (device_destroy(): device_del(), then its last put_device() frees
 *     it), the node name being what
 *     class->devnode returns (as devtmpfs would create it) or else the
 *     device name.  <shim/fs.h> opens a node by that name.  As the
 *     kernel's, device_create() with no class (NULL or an error pointer,
 *     e.g. a driver whose class_create() failed) is -ENODEV.  No sysfs, no
 *     uevents.
 */
#ifndef _DMASIM_LINUX_DEVICE_CLASS_H
#define _DMASIM_LINUX_DEVICE_CLASS_H

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/types.h>
#include <linux/version.h>

struct device;

/*
 * Trees before 6.2 pass devnode() a device that is not const, and before
 * 6.4 class_create() also took the owning module (ignored here, as
 * THIS_MODULE is): selected by the tree's version.  The member's pointer
 * type differs only in that const; the layout is the same.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define DMASIM_CLASS_DEVNODE_DEVICE struct device
#else
#define DMASIM_CLASS_DEVNODE_DEVICE const struct device
#endif

struct class {
	const char *name;
	char *(*devnode)(DMASIM_CLASS_DEVNODE_DEVICE *dev, umode_t *mode);
	void (*class_release)(const struct class *class);
	void (*dev_release)(struct device *dev);
};

struct class *class_create(const char *name);
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define class_create(owner, name)	((void)(owner), class_create(name))
#endif
void class_destroy(const struct class *cls);

__printf(5, 6) struct device *
device_create(const struct class *cls, struct device *parent, dev_t devt,
	      void *drvdata, const char *fmt, ...);
void device_destroy(const struct class *cls, dev_t devt);

#endif
