/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VFIO user ABI, as the kernel's uapi <linux/vfio.h> (6.12 and
 * mainline agree on every definition here).
 *
 * (a) Definitions that must match the kernel: every extension id, ioctl
 *     number, flag and capability id below, and the layout of each struct
 *     (field order, widths, alignment), so a struct a VMM builds is the one
 *     the kernel parses.  Written out again in this file's own words.
 * Simplified: the container part of the ABI (extensions, the type1 IOMMU
 * ioctls and their capability chain), the group ioctls, and the device
 * ioctls a VMM sizes a device with (DEVICE_GET_INFO, GET_REGION_INFO with
 * the vfio-pci region indexes and the MSI-X-mappable capability) and
 * VFIO_DEVICE_FEATURE (its header, flags and feature numbers, and the
 * low-power-with-wakeup argument vfio-pci parses) are here; IRQ, reset,
 * migration and dirty-logging payloads and iommufd ioctls are left out
 * because nothing dmasim runs handles them.  Extension 6 is spelled both ways: 6.12's
 * VFIO_TYPE1_NESTING_IOMMU and, from the kernel that dropped nesting
 * (linux-next type1 opens it as a plain v2 container),
 * __VFIO_RESERVED_TYPE1_NESTING_IOMMU; a superset, so either tree's type1
 * compiles.
 * No stubs and no test doubles.
 */
#ifndef _DMASIM_UAPI_LINUX_VFIO_H
#define _DMASIM_UAPI_LINUX_VFIO_H

#include <linux/types.h>
#include <uapi/linux/ioctl.h>

#define VFIO_API_VERSION	0

/* Extensions (VFIO_CHECK_EXTENSION arguments, VFIO_SET_IOMMU types). */
#define VFIO_TYPE1_IOMMU		1
#define VFIO_SPAPR_TCE_IOMMU		2
#define VFIO_TYPE1v2_IOMMU		3
#define VFIO_DMA_CC_IOMMU		4	/* DMA is cache coherent */
#define VFIO_EEH			5
#define VFIO_TYPE1_NESTING_IOMMU	6
#define __VFIO_RESERVED_TYPE1_NESTING_IOMMU	6	/* implies v2 */
#define VFIO_SPAPR_TCE_v2_IOMMU		7
#define VFIO_NOIOMMU_IOMMU		8
#define VFIO_UNMAP_ALL			9	/* VFIO_DMA_UNMAP_FLAG_ALL works */
#define VFIO_UPDATE_VADDR		10	/* the VADDR map/unmap flags work */

/* Every VFIO ioctl is _IO(';', 100 + n): no size encoded, argsz instead. */
#define VFIO_TYPE	(';')
#define VFIO_BASE	100

/*
 * Capability chain header: capabilities follow the fixed part of an info
 * struct; next is the offset of the following one from the start of the
 * info struct, 0 at the end of the chain.
 */
struct vfio_info_cap_header {
	__u16	id;
	__u16	version;
	__u32	next;
};

#define VFIO_GET_API_VERSION		_IO(VFIO_TYPE, VFIO_BASE + 0)
#define VFIO_CHECK_EXTENSION		_IO(VFIO_TYPE, VFIO_BASE + 1)
#define VFIO_SET_IOMMU			_IO(VFIO_TYPE, VFIO_BASE + 2)

/* ---- groups ---- */

/* VFIO_GROUP_GET_STATUS: argsz >= 8. */
struct vfio_group_status {
	__u32	argsz;
	__u32	flags;
#define VFIO_GROUP_FLAGS_VIABLE		(1 << 0)
#define VFIO_GROUP_FLAGS_CONTAINER_SET	(1 << 1)
};

#define VFIO_GROUP_GET_STATUS		_IO(VFIO_TYPE, VFIO_BASE + 3)
/* The argument points to an int: the container's fd. */
#define VFIO_GROUP_SET_CONTAINER	_IO(VFIO_TYPE, VFIO_BASE + 4)
#define VFIO_GROUP_UNSET_CONTAINER	_IO(VFIO_TYPE, VFIO_BASE + 5)
/* The argument points to the device's name, NUL terminated. */
#define VFIO_GROUP_GET_DEVICE_FD	_IO(VFIO_TYPE, VFIO_BASE + 6)

/* ---- devices ---- */

struct vfio_device_info {
	__u32	argsz;
	__u32	flags;
#define VFIO_DEVICE_FLAGS_RESET	(1 << 0)
#define VFIO_DEVICE_FLAGS_PCI	(1 << 1)
#define VFIO_DEVICE_FLAGS_CAPS	(1 << 7)
	__u32	num_regions;
	__u32	num_irqs;
	__u32	cap_offset;
	__u32	pad;
};
#define VFIO_DEVICE_GET_INFO		_IO(VFIO_TYPE, VFIO_BASE + 7)

struct vfio_region_info {
	__u32	argsz;
	__u32	flags;
#define VFIO_REGION_INFO_FLAG_READ	(1 << 0)
#define VFIO_REGION_INFO_FLAG_WRITE	(1 << 1)
#define VFIO_REGION_INFO_FLAG_MMAP	(1 << 2)
#define VFIO_REGION_INFO_FLAG_CAPS	(1 << 3)
	__u32	index;
	__u32	cap_offset;
	__aligned_u64	size;
	__aligned_u64	offset;
};
#define VFIO_DEVICE_GET_REGION_INFO	_IO(VFIO_TYPE, VFIO_BASE + 8)

/*
 * VFIO_DEVICE_FEATURE: the low 16 bits of flags pick a feature, GET, SET
 * and PROBE say what to do with it; data[] is the feature's own payload,
 * argsz - 8 bytes of it.
 */
struct vfio_device_feature {
	__u32	argsz;
	__u32	flags;
#define VFIO_DEVICE_FEATURE_MASK	(0xffff)
#define VFIO_DEVICE_FEATURE_GET		(1 << 16)
#define VFIO_DEVICE_FEATURE_SET		(1 << 17)
#define VFIO_DEVICE_FEATURE_PROBE	(1 << 18)
	__u8	data[];
};
#define VFIO_DEVICE_FEATURE		_IO(VFIO_TYPE, VFIO_BASE + 17)

/* Feature numbers (the flags' low 16 bits). */
#define VFIO_DEVICE_FEATURE_PCI_VF_TOKEN		0
#define VFIO_DEVICE_FEATURE_MIGRATION			1
#define VFIO_DEVICE_FEATURE_MIG_DEVICE_STATE		2
#define VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY		3
#define VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY_WITH_WAKEUP	4
#define VFIO_DEVICE_FEATURE_LOW_POWER_EXIT		5
#define VFIO_DEVICE_FEATURE_DMA_LOGGING_START		6
#define VFIO_DEVICE_FEATURE_DMA_LOGGING_STOP		7
#define VFIO_DEVICE_FEATURE_DMA_LOGGING_REPORT		8
#define VFIO_DEVICE_FEATURE_MIG_DATA_SIZE		9
#define VFIO_DEVICE_FEATURE_BUS_MASTER			10

/* LOW_POWER_ENTRY_WITH_WAKEUP's payload: the eventfd to signal. */
struct vfio_device_low_power_entry_with_wakeup {
	__s32	wakeup_eventfd;
	__u32	reserved;
};

/* The MSI-X table's BAR may be mmapped whole (a bare header). */
#define VFIO_REGION_INFO_CAP_MSIX_MAPPABLE	3

/* vfio-pci's fixed region indexes, then its interrupt count. */
enum {
	VFIO_PCI_BAR0_REGION_INDEX,
	VFIO_PCI_BAR1_REGION_INDEX,
	VFIO_PCI_BAR2_REGION_INDEX,
	VFIO_PCI_BAR3_REGION_INDEX,
	VFIO_PCI_BAR4_REGION_INDEX,
	VFIO_PCI_BAR5_REGION_INDEX,
	VFIO_PCI_ROM_REGION_INDEX,
	VFIO_PCI_CONFIG_REGION_INDEX,
	VFIO_PCI_VGA_REGION_INDEX,
	VFIO_PCI_NUM_REGIONS = 9
};
#define VFIO_PCI_NUM_IRQS	5

/* ---- type1 IOMMU ---- */

/* VFIO_IOMMU_GET_INFO: page sizes and, with argsz room, capabilities. */
struct vfio_iommu_type1_info {
	__u32		argsz;
	__u32		flags;
#define VFIO_IOMMU_INFO_PGSIZES	(1 << 0)
#define VFIO_IOMMU_INFO_CAPS	(1 << 1)
	__aligned_u64	iova_pgsizes;
	__u32		cap_offset;
	__u32		pad;
};

/* Capability: the usable IOVA ranges (inclusive ends). */
#define VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE	1

struct vfio_iova_range {
	__u64	start;	/* first usable IOVA */
	__u64	end;	/* last usable IOVA */
};

struct vfio_iommu_type1_info_cap_iova_range {
	struct vfio_info_cap_header	header;	/* id 1, version 1 */
	__u32				nr_iovas;
	__u32				reserved;
	struct vfio_iova_range		iova_ranges[];	/* sorted */
};

/* Capability: dirty-page tracking parameters. */
#define VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION	2

struct vfio_iommu_type1_info_cap_migration {
	struct vfio_info_cap_header	header;
	__u32				flags;
	__u64				pgsize_bitmap;
	__u64				max_dirty_bitmap_size;	/* bytes */
};

/* Capability: how many more MAP_DMA entries the container accepts. */
#define VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL	3

struct vfio_iommu_type1_info_dma_avail {
	struct vfio_info_cap_header	header;	/* id 3, version 1 */
	__u32				avail;	/* entries left */
};

#define VFIO_IOMMU_GET_INFO		_IO(VFIO_TYPE, VFIO_BASE + 12)

/* VFIO_IOMMU_MAP_DMA */
struct vfio_iommu_type1_dma_map {
	__u32	argsz;
	__u32	flags;
#define VFIO_DMA_MAP_FLAG_READ	(1 << 0)	/* the device may read */
#define VFIO_DMA_MAP_FLAG_WRITE	(1 << 1)	/* the device may write */
#define VFIO_DMA_MAP_FLAG_VADDR	(1 << 2)	/* re-supply vaddr only */
	__u64	vaddr;
	__u64	iova;
	__u64	size;
};

#define VFIO_IOMMU_MAP_DMA		_IO(VFIO_TYPE, VFIO_BASE + 13)

/* A user bitmap: one bit per pgsize page, size in bytes. */
struct vfio_bitmap {
	__u64		pgsize;
	__u64		size;
	__u64 __user	*data;
};

/* VFIO_IOMMU_UNMAP_DMA; size is written back with the bytes unmapped. */
struct vfio_iommu_type1_dma_unmap {
	__u32	argsz;	/* 24, or 48 with the dirty bitmap */
	__u32	flags;	/* VFIO_DMA_UNMAP_FLAG_* */
	__u64	iova;
	__u64	size;
	__u8	data[];	/* struct vfio_bitmap with GET_DIRTY_BITMAP */
};
#define VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP	(1 << 0)
#define VFIO_DMA_UNMAP_FLAG_ALL			(1 << 1)
#define VFIO_DMA_UNMAP_FLAG_VADDR		(1 << 2)

#define VFIO_IOMMU_UNMAP_DMA		_IO(VFIO_TYPE, VFIO_BASE + 14)
#define VFIO_IOMMU_ENABLE		_IO(VFIO_TYPE, VFIO_BASE + 15)
#define VFIO_IOMMU_DISABLE		_IO(VFIO_TYPE, VFIO_BASE + 16)

/* VFIO_IOMMU_DIRTY_PAGES: exactly one flag per call. */
struct vfio_iommu_type1_dirty_bitmap {
	__u32	argsz;
	__u32	flags;	/* one VFIO_IOMMU_DIRTY_PAGES_FLAG_* */
	__u8	data[];	/* struct vfio_iommu_type1_dirty_bitmap_get */
};
#define VFIO_IOMMU_DIRTY_PAGES_FLAG_START	(1 << 0)
#define VFIO_IOMMU_DIRTY_PAGES_FLAG_STOP	(1 << 1)
#define VFIO_IOMMU_DIRTY_PAGES_FLAG_GET_BITMAP	(1 << 2)

struct vfio_iommu_type1_dirty_bitmap_get {
	__u64			iova;
	__u64			size;
	struct vfio_bitmap	bitmap;
};

#define VFIO_IOMMU_DIRTY_PAGES		_IO(VFIO_TYPE, VFIO_BASE + 17)

#endif
