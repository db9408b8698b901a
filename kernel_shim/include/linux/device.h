/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Devices, as the kernel's <linux/device.h>: the members of struct device
 * that the DMA layer, the IOMMU core and device classes use.
 *
 * (a) Definitions that must match the kernel: member names and types of
 *     what is here (parent, init_name, devt, class, driver_data, dma_mask,
 *     coherent_dma_mask, bus_dma_limit, dma_parms, iommu_group, iommu,
 *     dma_coherent), struct device_dma_parameters, dev_name(),
 *     dev_set_name(), dev_get/set_drvdata(), the dev_*() log macros.
 * Simplified: no kobject, no bus/driver binding, no sysfs; dev_set_name()
 *     keeps the name in dmasim_name (freed by dev_free_name(), the shim's
 *     own helper for whoever frees a struct device).  get_device() /
 *     put_device() only count (kernel_shim/device.c); the owner frees.
 * (b) Stubs: device_initialize()/device_add() do nothing else.
 */
#ifndef _DMASIM_LINUX_DEVICE_H
#define _DMASIM_LINUX_DEVICE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/device/class.h>
#include <linux/gfp_types.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/printk.h>
#include <linux/types.h>

struct dev_iommu;
struct iommu_group;

struct device_dma_parameters {
	unsigned int max_segment_size;
	unsigned int min_align_mask;
	unsigned long segment_boundary_mask;
};

struct device {
	struct device *parent;
	const char *init_name;
	char *dmasim_name;
	dev_t devt;
	const struct class *class;
	void *driver_data;
	u64 *dma_mask;
	u64 coherent_dma_mask;
	u64 bus_dma_limit;
	struct device_dma_parameters *dma_parms;
	struct iommu_group *iommu_group;
	struct dev_iommu *iommu;
	bool dma_coherent;
	atomic_t dmasim_refs;
	void (*release)(struct device *dev);
};

static inline const char *dev_name(const struct device *dev)
{
	if (dev->init_name)
		return dev->init_name;
	return dev->dmasim_name ? dev->dmasim_name : "";
}

__printf(2, 3) int dev_set_name(struct device *dev, const char *fmt, ...);
void dev_free_name(struct device *dev);

static inline void *dev_get_drvdata(const struct device *dev)
{
	return dev->driver_data;
}

static inline void dev_set_drvdata(struct device *dev, void *data)
{
	dev->driver_data = data;
}

struct device *get_device(struct device *dev);
void put_device(struct device *dev);

static inline void device_initialize(struct device *dev)
{
	atomic_set(&dev->dmasim_refs, 1);
}

#define dev_printk(level, dev, fmt, ...) \
	printk(level "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_emerg(dev, fmt, ...)  dev_printk(KERN_EMERG, dev, fmt, ##__VA_ARGS__)
#define dev_crit(dev, fmt, ...)   dev_printk(KERN_CRIT, dev, fmt, ##__VA_ARGS__)
#define dev_err(dev, fmt, ...)    dev_printk(KERN_ERR, dev, fmt, ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)   dev_printk(KERN_WARNING, dev, fmt, ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...) dev_printk(KERN_NOTICE, dev, fmt, ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)   dev_printk(KERN_INFO, dev, fmt, ##__VA_ARGS__)
#define dev_dbg(dev, fmt, ...)    dev_printk(KERN_DEBUG, dev, fmt, ##__VA_ARGS__)
#define dev_err_ratelimited(dev, fmt, ...) dev_err(dev, fmt, ##__VA_ARGS__)
#define dev_warn_ratelimited(dev, fmt, ...) dev_warn(dev, fmt, ##__VA_ARGS__)
#define dev_WARN(dev, fmt, ...) WARN(1, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_WARN_ONCE(dev, cond, fmt, ...) \
	WARN_ONCE(cond, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)

#endif
