// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VFIO core's part of a device fd's ioctls.  dmasim's own code,
 * written from the contract of the kernel's drivers/vfio/vfio_main.c
 * (Linux 6.12, vfio_device_fops_unl_ioctl() and the VFIO_DEVICE_FEATURE
 * ioctl behind it):
 *
 *  - VFIO_DEVICE_FEATURE is the core's: the header's argsz must cover
 *    argsz and flags, flags may hold only a feature number and GET, SET
 *    and PROBE, and GET with SET needs PROBE; each refusal is -EINVAL
 *    before any driver sees the call;
 *  - migration (MIGRATION, MIG_DEVICE_STATE, MIG_DATA_SIZE) and DMA dirty
 *    logging (DMA_LOGGING_START, _STOP, _REPORT) are served by the core
 *    itself for a driver that gives it migration or logging ops, and are
 *    -ENOTTY for one that does not, without asking the driver;
 *  - every other feature goes to the driver's device_feature with the
 *    payload's size (argsz less the header), -ENOTTY without one;
 *  - every other command goes to the driver's ioctl, -EINVAL without one.
 *
 * No driver here has migration or logging ops (struct vfio_device has no
 * such members: <linux/vfio.h>), so the core's own features all answer
 * -ENOTTY, as 6.12 does for such a driver.  Group and file handling are
 * in group.c.
 */
#include <linux/err.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include "vfio_group.h"

#define VFIO_DEVICE_FEATURE_KNOWN_FLAGS					\
	(VFIO_DEVICE_FEATURE_MASK | VFIO_DEVICE_FEATURE_GET |		\
	 VFIO_DEVICE_FEATURE_SET | VFIO_DEVICE_FEATURE_PROBE)

/* The features the core serves itself, given the driver's ops for them. */
static bool vfio_feature_is_core(u32 feature)
{
	switch (feature) {
	case VFIO_DEVICE_FEATURE_MIGRATION:
	case VFIO_DEVICE_FEATURE_MIG_DEVICE_STATE:
	case VFIO_DEVICE_FEATURE_MIG_DATA_SIZE:
	case VFIO_DEVICE_FEATURE_DMA_LOGGING_START:
	case VFIO_DEVICE_FEATURE_DMA_LOGGING_STOP:
	case VFIO_DEVICE_FEATURE_DMA_LOGGING_REPORT:
		return true;
	}
	return false;
}

static int vfio_device_feature(struct vfio_device *device,
			       struct vfio_device_feature __user *uarg)
{
	const size_t minsz = offsetofend(struct vfio_device_feature, flags);
	struct vfio_device_feature hdr;
	bool get, set;

	if (copy_from_user(&hdr, uarg, minsz))
		return -EFAULT;
	if (hdr.argsz < minsz)
		return -EINVAL;
	if (hdr.flags & ~VFIO_DEVICE_FEATURE_KNOWN_FLAGS)
		return -EINVAL;
	get = hdr.flags & VFIO_DEVICE_FEATURE_GET;
	set = hdr.flags & VFIO_DEVICE_FEATURE_SET;
	if (get && set && !(hdr.flags & VFIO_DEVICE_FEATURE_PROBE))
		return -EINVAL;

	/* No migration or logging ops: the core has nothing to serve. */
	if (vfio_feature_is_core(hdr.flags & VFIO_DEVICE_FEATURE_MASK))
		return -ENOTTY;
	if (!device->ops->device_feature)
		return -ENOTTY;
	return device->ops->device_feature(device, hdr.flags, uarg->data,
					   hdr.argsz - minsz);
}

long vfio_device_ioctl(struct vfio_device *device, unsigned int cmd,
		       unsigned long arg)
{
	const struct vfio_device_ops *ops = device->ops;

	if (cmd == VFIO_DEVICE_FEATURE)
		return vfio_device_feature(device, (void __user *)arg);
	return ops->ioctl ? ops->ioctl(device, cmd, arg) : -EINVAL;
}
