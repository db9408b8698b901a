/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Character devices, as the kernel's <linux/cdev.h>.
 * (a) Definitions that must match the kernel: struct cdev's ops, owner, dev
 *     and count members, and cdev_init/cdev_add/cdev_del.
 * (c) Test double: cdev_add() records the (dev, count) range in the shim's
 *     table (kernel_shim/fs.c), from which an open of a device node finds
 *     the cdev and calls its ->open, as chrdev_open() does.  There is no
 *     kobject.  cdev_add() fails with -ENOMEM when the fault point
 *     "shim/slab/kmalloc" fires, as the kernel's does when kobj_map()
 *     cannot allocate its probe records.
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
};

void cdev_init(struct cdev *cdev, const struct file_operations *fops);
int cdev_add(struct cdev *p, dev_t dev, unsigned int count);
void cdev_del(struct cdev *p);

#endif
