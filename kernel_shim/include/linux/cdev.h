/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Character devices, as the kernel's <linux/cdev.h>.
 * (a) Definitions that must match the kernel: struct cdev's ops, owner, dev
 *     and count members, and cdev_init/cdev_add/cdev_del.
 * (c) Test double: cdev_add() records the (dev, count) range in the shim's
 *     table (kernel_shim/fs.c), from which an open of a device node finds
 *     the cdev and calls its ->open, as chrdev_open() does.  cdev_add()
 *     fails with -ENOMEM when the fault point "shim/slab/kmalloc" fires,
 *     as the kernel's does when kobj_map() cannot allocate its probe
 *     records.
 *
 * Lifetime: there is no kobject, only its count (refs).  As in the
 * kernel, the table holds one reference from cdev_add() to cdev_del(),
 * and an open takes one at its lookup (chrdev_open()'s cdev_get()) and
 * holds it through ->open; cdev_del() only stops new lookups, so an open
 * that found the cdev before it still calls ->open afterwards (a test
 * makes that happen: shim_chrdev_open_race_set(), <shim/fs.h>).
 * Simplified: the open drops its reference when ->open returns, where the
 * kernel's file keeps it until its last fput; the last reference releases
 * nothing (no cdev_alloc(), and no parent: cdev_device_add(), whose cdev
 * holds its device, is not provided), so an owner must keep a deleted
 * cdev's memory itself for as long as an open may hold it.
 */
#ifndef _DMASIM_LINUX_CDEV_H
#define _DMASIM_LINUX_CDEV_H

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/types.h>

struct cdev {
	struct module *owner;
	const struct file_operations *ops;
	struct list_head list;
	dev_t dev;
	unsigned int count;
	unsigned int refs;	/* the kobject's count, under the shim's lock */
};

void cdev_init(struct cdev *cdev, const struct file_operations *fops);
int cdev_add(struct cdev *p, dev_t dev, unsigned int count);
void cdev_del(struct cdev *p);

#endif
