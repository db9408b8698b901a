/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contract between the VFIO core and an IOMMU backend (type1), which the
 * kernel keeps in the driver-local drivers/vfio/vfio.h rather than in
 * <linux/vfio.h>.  It lives here, in one place, for three users: the
 * project's own core/drivers/vfio/vfio.h, the container code (which
 * records the registered backends and calls their ops), and upstream mode's
 * displacement header upstream/include/vfio_local.h (which stands in for a
 * kernel tree's drivers/vfio/vfio.h).
 *
 * Definitions that must match the kernel: enum vfio_group_type (values and
 * order) and struct vfio_iommu_driver_ops (members, their types and order),
 * as in Linux 6.12 through mainline (v7.1-rc1), which agree, plus 6.1's
 * last member, notify, with enum vfio_iommu_notify_type (6.1 calls it with
 * VFIO_IOMMU_CONTAINER_CLOSE when the container's file is closed, before
 * the groups detach; later trees have no such op and leave it NULL).  Declarations
 * of vfio_register_iommu_driver() / vfio_unregister_iommu_driver(), which
 * the VFIO container code implements (core/drivers/vfio/container.c).  No stubs, no test doubles.
 */
#ifndef _DMASIM_SHIM_VFIO_IOMMU_DRIVER_H
#define _DMASIM_SHIM_VFIO_IOMMU_DRIVER_H

#include <linux/types.h>

struct iommu_domain;
struct iommu_group;
struct module;
struct page;
struct vfio_device;

/* How a group reaches memory: through an IOMMU, emulated, or not at all. */
enum vfio_group_type {
	VFIO_IOMMU,		/* a physical device behind an IOMMU */
	VFIO_EMULATED_IOMMU,	/* a mediated device: the VFIO core fakes the group */
	VFIO_NO_IOMMU,		/* a physical device without one (unsafe opt-in) */
};

/* 6.1: events for the backend's notify op. */
enum vfio_iommu_notify_type {
	VFIO_IOMMU_CONTAINER_CLOSE = 0,
};

/* The callbacks an IOMMU backend registers with the VFIO core. */
struct vfio_iommu_driver_ops {
	char *name;
	struct module *owner;
	void *(*open)(unsigned long type);
	void (*release)(void *backend);
	long (*ioctl)(void *backend, unsigned int cmd, unsigned long arg);
	int (*attach_group)(void *backend, struct iommu_group *group,
			    enum vfio_group_type type);
	void (*detach_group)(void *backend, struct iommu_group *group);
	/* External (mediated-device) pinning, one page per IOVA. */
	int (*pin_pages)(void *backend, struct iommu_group *group,
			 dma_addr_t iova, int npage, int prot,
			 struct page **pages);
	void (*unpin_pages)(void *backend, dma_addr_t iova, int npage);
	void (*register_device)(void *backend, struct vfio_device *vdev);
	void (*unregister_device)(void *backend, struct vfio_device *vdev);
	int (*dma_rw)(void *backend, dma_addr_t iova, void *buf, size_t len,
		      bool write);
	struct iommu_domain *(*group_iommu_domain)(void *backend,
						   struct iommu_group *group);
	void (*notify)(void *backend, enum vfio_iommu_notify_type event);
};

int vfio_register_iommu_driver(const struct vfio_iommu_driver_ops *ops);
void vfio_unregister_iommu_driver(const struct vfio_iommu_driver_ops *ops);

#endif
