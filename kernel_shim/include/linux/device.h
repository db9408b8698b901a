/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The driver model's struct device, as the kernel's <linux/device.h>, kept
 * to what the code under test and the shims touch.
 *
 * (a) Definitions that must match the kernel: the member names below
 *     (parent, init_name, devt, driver_data, dma_mask, coherent_dma_mask,
 *     bus_dma_limit, iommu, iommu_group, dma_coherent, release) and the
 *     accessors dev_name(), dev_set_name(), dev_get_drvdata(),
 *     dev_set_drvdata(), get_device()/put_device(), device_add()/
 *     device_del(), dev_iommu_priv_get() (in <linux/iommu.h>).
 * Simplified: there is no kobject, sysfs or driver binding.  The name
 *     dev_set_name() builds lives in @name (the kernel keeps it in the
 *     kobject); dev_name() returns init_name if set, else @name.  The
 *     reference count is a plain (atomic) counter: put_device() dropping
 *     the last reference frees the name and calls ->release (the owner's
 *     free), as the kernel's device_release() does; device_add() only
 *     records the node devtmpfs would make (kernel_shim/fs.c, as
 *     device_create() in <linux/device/class.h>; no sysfs, no uevent, no
 *     reference on the parent) and device_del() takes it away; a device
 *     that was never device_initialize()d is owned by whoever allocated
 *     it, who frees the name with dev_free_name() (shim helper, no kernel
 *     counterpart).
 *     The bus (@bus, read by 6.1's VFIO type1 to allocate an IOMMU domain
 *     with iommu_domain_alloc(dev->bus)) holds only what that needs: a
 *     simulated IOMMU device sits alone on its own bus, whose dmasim_dev
 *     is the device (kernel_shim/drivers/iommu_sim.c), so the bus's
 *     domains are those of the device's IOMMU instance; other devices
 *     have no bus (NULL), as a device no bus driver claimed.
 * (b) Nothing here is a stub.
 * Owners of other members: the DMA layer (heap work) added class (device
 * classes, <linux/device/class.h>) and dma_parms with struct
 * device_dma_parameters (segment limits, read by <linux/dma-mapping.h>);
 * untrusted (pci_dev's in the kernel; no PCI device here) and
 * dma_io_tlb_mem (its bounce slots) belong to kernel_shim/dma_iommu.c;
 * IOMMU members belong to kernel_shim/drivers/iommu_sim.c and
 * core/drivers/iommu/iommu.c.
 */
#ifndef _DMASIM_LINUX_DEVICE_H
#define _DMASIM_LINUX_DEVICE_H

#include <linux/compiler.h>
#include <linux/device/class.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/printk.h>
#include <linux/types.h>

struct dev_iommu;
struct iommu_group;
struct device;

/* A bus, reduced to the device whose IOMMU serves it (see above). */
struct bus_type {
	const char		*name;
	struct device		*dmasim_dev;
};

/* Segment limits the DMA layer honours (0: the kernel's defaults). */
struct io_tlb_mem;

struct device_dma_parameters {
	unsigned int max_segment_size;
	unsigned int min_align_mask;
	unsigned long segment_boundary_mask;
};

struct device {
	struct device		*parent;
	const char		*init_name;	/* initial name, if any */
	char			*name;		/* set by dev_set_name() */
	dev_t			devt;
	const struct class	*class;
	void			*driver_data;	/* dev_set_drvdata() */
	u64			*dma_mask;	/* streaming DMA mask */
	u64			coherent_dma_mask;
	u64			bus_dma_limit;	/* 0: no bus limit */
	struct device_dma_parameters *dma_parms;
	struct dev_iommu	*iommu;		/* per-device IOMMU data */
	struct iommu_group	*iommu_group;
	const struct bus_type	*bus;		/* NULL: on no bus */
	bool			dma_coherent;
	bool			dma_iommu;	/* DMA API goes through dma-iommu */
	/*
	 * The kernel's pci_dev->untrusted (a device behind an external-facing
	 * port): dma-iommu bounces its unaligned buffers through swiotlb.
	 */
	bool			untrusted;
	struct io_tlb_mem	*dma_io_tlb_mem;	/* its bounce slots in use */
	int			refcount;	/* get_device()/put_device() */
	void (*release)(struct device *dev);
};

static inline const char *dev_name(const struct device *dev)
{
	if (dev->init_name)
		return dev->init_name;
	return dev->name ? dev->name : "(null)";
}

/* Replaces any previous name; 0 or -ENOMEM (fault point shim/slab/kmalloc). */
__printf(2, 3) int dev_set_name(struct device *dev, const char *fmt, ...);
/* Shim helper: free what dev_set_name() allocated. */
void dev_free_name(struct device *dev);

static inline void *dev_get_drvdata(const struct device *dev)
{
	return dev->driver_data;
}

static inline void dev_set_drvdata(struct device *dev, void *data)
{
	dev->driver_data = data;
}

/* Takes the first reference. */
void device_initialize(struct device *dev);
struct device *get_device(struct device *dev);
void put_device(struct device *dev);
/* Its node (kernel_shim/fs.c): 0 or -ENOMEM; device_del() takes it away. */
int device_add(struct device *dev);
void device_del(struct device *dev);

#define dev_printk(level, dev, fmt, ...) \
	printk(level "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_emerg(dev, fmt, ...)  dev_printk(KERN_EMERG, dev, fmt, ##__VA_ARGS__)
#define dev_crit(dev, fmt, ...)   dev_printk(KERN_CRIT, dev, fmt, ##__VA_ARGS__)
#define dev_err(dev, fmt, ...)    dev_printk(KERN_ERR, dev, fmt, ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)   dev_printk(KERN_WARNING, dev, fmt, ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...) dev_printk(KERN_NOTICE, dev, fmt, ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)   dev_printk(KERN_INFO, dev, fmt, ##__VA_ARGS__)
#define dev_dbg(dev, fmt, ...)    dev_printk(KERN_DEBUG, dev, fmt, ##__VA_ARGS__)
#define dev_err_ratelimited	dev_err
#define dev_warn_ratelimited	dev_warn
#define dev_WARN(dev, fmt, ...) \
	WARN(1, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)

#endif
