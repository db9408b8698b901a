/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VFIO core's kernel interface (<linux/vfio.h>), as far as an IOMMU
 * backend uses it: the device a backend tells about unmaps, and the
 * capability-chain builder of the info ioctls.  Implemented by
 * kernel_shim/vfio.c.
 *
 * (a) Definitions that must match the kernel: struct vfio_device's
 *     ops/iommu_entry members, vfio_device_ops.dma_unmap, struct
 *     vfio_info_cap and the contracts of vfio_info_cap_add() (grow the
 *     buffer, zero the new capability, fill id/version, link it at the end
 *     of the chain with offsets relative to the buffer; ERR_PTR(-ENOMEM)
 *     with the buffer freed on failure), vfio_info_cap_shift() (add an
 *     offset to every link) and vfio_info_add_capability().
 * Simplified: struct vfio_device keeps only what a backend or dmasim's
 *     container and group code (core/drivers/vfio/container.c, group.c)
 *     touch (no embedded struct device, cdev, device set, migration or
 *     iommufd state; the registration count and its completion are the
 *     kernel's); vfio_device_ops has the name, open_device,
 *     close_device, ioctl, mmap, request, device_feature and dma_unmap
 *     callbacks, by the kernel's names and types; vfio_check_feature()
 *     is the kernel's helper of the same contract.  vfio_register_group_dev() and
 *     vfio_unregister_group_dev() are the kernel's prototypes; group.c
 *     implements them.
 * (c) Test double: none here; kapi/kapi_vfio.c provides the
 *     devices (an emulated one that unpins on dma_unmap).
 */
#ifndef _DMASIM_LINUX_VFIO_H
#define _DMASIM_LINUX_VFIO_H

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <uapi/linux/vfio.h>

struct device;
struct iommu_group;
struct vfio_device;

struct vm_area_struct;
struct vfio_group;

struct vfio_device_ops {
	char *name;
	/* The first open of the device fd; close_device after the last. */
	int (*open_device)(struct vfio_device *vdev);
	void (*close_device)(struct vfio_device *vdev);
	long (*ioctl)(struct vfio_device *vdev, unsigned int cmd,
		      unsigned long arg);
	int (*mmap)(struct vfio_device *vdev, struct vm_area_struct *vma);
	/*
	 * The device is being unregistered while fds are open: ask the
	 * user to let it go (count: how many times asked before).
	 */
	void (*request)(struct vfio_device *vdev, unsigned int count);
	/*
	 * VFIO_DEVICE_FEATURE for the features the core leaves to the
	 * driver, after the core's checks; argsz is the payload's size.
	 */
	int (*device_feature)(struct vfio_device *vdev, u32 flags,
			      void __user *arg, size_t argsz);
	/* The range [iova, iova + length) is going away: drop its pins. */
	void (*dma_unmap)(struct vfio_device *vdev, u64 iova, u64 length);
};

struct vfio_device {
	struct device *dev;
	const struct vfio_device_ops *ops;
	struct iommu_group *iommu_group;	/* dmasim: the group it is in */
	struct list_head iommu_entry;		/* on the backend's list */
	struct vfio_group *group;		/* group.c: the VFIO group */
	struct list_head group_next;		/* on the group's devices */
	unsigned int open_count;		/* device fds open */
	/* 1 while registered, + 1 per device fd; comp: it reached 0. */
	refcount_t refcount;
	struct completion comp;
};

/*
 * A physical device (dev behind an IOMMU) joins the VFIO group of its
 * IOMMU group, which is created with the first device: 0 or -EINVAL (no
 * IOMMU group), -EBUSY (already registered), -ENOMEM.
 */
int vfio_register_group_dev(struct vfio_device *device);
/* Leaves its group (the last device takes the group away). */
void vfio_unregister_group_dev(struct vfio_device *device);

/*
 * A driver's check of a VFIO_DEVICE_FEATURE call for one of its features,
 * which supports the GET and SET of supported_ops and needs minsz bytes
 * of payload: -EINVAL for an operation it does not support, 0 for a
 * probe (nothing to do), -EINVAL when neither GET nor SET is asked or
 * the payload is short, else 1: do it.
 */
static inline int vfio_check_feature(u32 flags, size_t argsz,
				     u32 supported_ops, size_t minsz)
{
	u32 ops = flags & (VFIO_DEVICE_FEATURE_GET | VFIO_DEVICE_FEATURE_SET);

	if (ops & ~supported_ops)
		return -EINVAL;
	if (flags & VFIO_DEVICE_FEATURE_PROBE)
		return 0;
	if (!ops || argsz < minsz)
		return -EINVAL;
	return 1;
}

/* A capability chain being built: buf holds size bytes. */
struct vfio_info_cap {
	struct vfio_info_cap_header *buf;	/* krealloc'd as it grows */
	size_t size;
};

/* Append a zeroed capability of size bytes; ERR_PTR(-ENOMEM). */
struct vfio_info_cap_header *
vfio_info_cap_add(struct vfio_info_cap *caps, size_t size, u16 id, u16 version);
/* The chain is about to be copied out at offset: relocate its links. */
void vfio_info_cap_shift(struct vfio_info_cap *caps, size_t offset);
/* Append a copy of a filled-in capability of size bytes. */
int vfio_info_add_capability(struct vfio_info_cap *caps,
			     struct vfio_info_cap_header *cap, size_t size);

#endif
