/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim's VFIO container and group layer: what container.c, group.c and
 * vfio_main.c share.  The kernel keeps these in drivers/vfio/vfio.h; they
 * live apart here so that the backend's header (vfio.h beside this one)
 * stays the kernel contract a backend sees, nothing more.
 */
#ifndef __VFIO_GROUP_LAYER_H__
#define __VFIO_GROUP_LAYER_H__

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/vfio.h>
#include "vfio.h"

struct vfio_container;

/* One IOMMU group as user space sees it: /dev/vfio/$id. */
struct vfio_group {
	/* Its memory: the release of dev, which the cdev holds (parent). */
	struct device dev;
	struct cdev cdev;
	struct iommu_group *iommu_group;
	enum vfio_group_type type;
	struct list_head vfio_next;	/* on the list of every group */
	/* Everything below. */
	struct mutex group_lock;
	struct list_head device_list;	/* struct vfio_device.group_next */
	struct file *opened_file;	/* the one open of the node */
	struct vfio_container *container;
	struct list_head container_next;	/* under the container's lock */
	/* 1 with a container, + 1 per open device; each holds the file. */
	unsigned int container_users;
};

/* container.c */
const struct vfio_iommu_driver_ops *vfio_shim_first_backend(void);
int vfio_container_init(void);
void vfio_container_cleanup(void);
/* The container behind a file, or NULL if it is not a container's. */
struct vfio_container *vfio_container_from_file(struct file *file);
int vfio_container_attach_group(struct vfio_container *container,
				struct vfio_group *group);
void vfio_group_detach_container(struct vfio_group *group);
/*
 * A device's first fd opens (-EINVAL before SET_IOMMU) and its last one
 * closes; close returns the group file the device held, to fput() once
 * the group's group_lock is dropped.
 */
int vfio_container_open_device(struct vfio_device *device);
struct file *vfio_container_close_device(struct vfio_device *device);

/* vfio_main.c: a device fd's ioctl (VFIO_DEVICE_FEATURE, the driver's). */
long vfio_device_ioctl(struct vfio_device *device, unsigned int cmd,
		       unsigned long arg);

#endif
