/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What vfio_iommu_type1.c needs of the VFIO core's private header: how a
 * group reaches memory, the callbacks an IOMMU backend registers, and the
 * registration calls.  The kernel's drivers/vfio/vfio.h also carries the
 * group, container, device-file, cdev, iommufd and KVM glue of the VFIO
 * core, which a backend does not use and dmasim does not have.
 *
 * Kernel contract (6.12 through mainline agree): the enum's values and the
 * ops' members, types and order; the last member, notify, is 6.1's, kept
 * so the layout is the one every tree's backend is called through.  The shim's VFIO core, which calls these
 * ops, sees the same contract in kernel_shim/include/shim/vfio_iommu_driver.h;
 * the two must stay identical.  Same include guard as the kernel's header,
 * so either one stands in for the other.
 */
#ifndef __VFIO_VFIO_H__
#define __VFIO_VFIO_H__

#include <linux/device.h>
#include <linux/module.h>
#include <linux/vfio.h>

struct iommu_domain;
struct iommu_group;
struct page;

enum vfio_group_type {
	/* A physical device translated by an IOMMU. */
	VFIO_IOMMU,
	/* A mediated device: it reaches memory by pinning through us. */
	VFIO_EMULATED_IOMMU,
	/* A physical device with no IOMMU at all (explicit, unsafe opt-in). */
	VFIO_NO_IOMMU,
};

/* Events for the notify op (6.1's core sends them; later cores have none). */
enum vfio_iommu_notify_type {
	VFIO_IOMMU_CONTAINER_CLOSE = 0,
};

/* The backend behind a container (VFIO_SET_IOMMU picks one by type). */
struct vfio_iommu_driver_ops {
	char *name;
	struct module *owner;
	/* A new container of type arg (VFIO_TYPE1v2_IOMMU ...). */
	void *(*open)(unsigned long arg);
	void (*release)(void *iommu_data);
	long (*ioctl)(void *iommu_data, unsigned int cmd, unsigned long arg);
	int (*attach_group)(void *iommu_data, struct iommu_group *group,
			    enum vfio_group_type type);
	void (*detach_group)(void *iommu_data, struct iommu_group *group);
	/* Mediated devices: pin npage pages from user_iova, one by one. */
	int (*pin_pages)(void *iommu_data, struct iommu_group *group,
			 dma_addr_t user_iova, int npage, int prot,
			 struct page **pages);
	void (*unpin_pages)(void *iommu_data, dma_addr_t user_iova,
			    int npage);
	void (*register_device)(void *iommu_data, struct vfio_device *vdev);
	void (*unregister_device)(void *iommu_data, struct vfio_device *vdev);
	/* Copy to or from the user memory behind user_iova. */
	int (*dma_rw)(void *iommu_data, dma_addr_t user_iova, void *data,
		      size_t count, bool write);
	struct iommu_domain *(*group_iommu_domain)(void *iommu_data,
						   struct iommu_group *group);
	/* 6.1: the container's file was closed (NULL here and after 6.1). */
	void (*notify)(void *iommu_data, enum vfio_iommu_notify_type event);
};

int vfio_register_iommu_driver(const struct vfio_iommu_driver_ops *ops);
void vfio_unregister_iommu_driver(const struct vfio_iommu_driver_ops *ops);

#endif
