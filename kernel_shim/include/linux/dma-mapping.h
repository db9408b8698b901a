/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The streaming DMA API, as the kernel's <linux/dma-mapping.h>, for
 * scatter-gather tables (kernel_shim/dma_mapping.c).
 *
 * (a) Definitions that must match the kernel: DMA_ATTR_* bits,
 *     DMA_MAPPING_ERROR, DMA_BIT_MASK, the prototypes, the return
 *     conventions (dma_map_sg_attrs: mapped segments or 0; dma_map_sgtable:
 *     0 or -EINVAL / -ENOMEM / -EIO, with sgt->nents set to the number of DMA
 *     segments and orig_nents untouched), and the device limits'
 *     defaults: max segment 64 KiB and no segment boundary when the device
 *     has no dma_parms.
 * Emulated: a device whose IOMMU domain is a DMA domain is mapped as the
 *     kernel's dma-iommu does it: entries aligned to the IOVA granule (the
 *     domain's smallest page) and laid out back to back in one size-aligned
 *     IOVA allocation below min(dma_mask, bus_dma_limit, aperture end),
 *     mapped with one iommu_map_sg() (which merges physically contiguous
 *     runs and picks leaf sizes), then concatenated into DMA segments where
 *     IOVA-contiguous within max_segment_size and the segment boundary.
 *     Unmap finds the IOVA range from the segments, unmaps it and frees the
 *     IOVA.  Any other device is mapped direct (dma address = physical
 *     address, one segment per entry, -EIO beyond the DMA mask).
 *     An untrusted device takes dma-iommu's swiotlb path (one IOVA per
 *     entry, unaligned entries bounced; kernel_shim/dma_iommu.c).  Every
 *     map, unmap and sync is checked as dma-debug checks it
 *     (<shim/dma_debug.h>), and dma_map_sg's errors other than -EINVAL,
 *     -ENOMEM, -EIO and -EREMOTEIO become a WARN and -EIO.
 * Simplified: no swiotlb for dma-direct, no P2P; the machine is
 *     cache-coherent, so the dma_sync_*() calls do no cache maintenance
 *     (they walk the entries, counted as SIM_CNT_SG_SEGMENT, and copy a
 *     bounced list's slots).
 * (c) Test doubles: "shim/dma/map_sg" fails a map (-ENOMEM, nothing left
 *     mapped), "shim/dma/iova_alloc" fails the IOVA allocation.
 */
#ifndef _DMASIM_LINUX_DMA_MAPPING_H
#define _DMASIM_LINUX_DMA_MAPPING_H

#include <linux/bug.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/err.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/types.h>

#define DMA_ATTR_WEAK_ORDERING		(1UL << 1)
#define DMA_ATTR_WRITE_COMBINE		(1UL << 2)
#define DMA_ATTR_NO_KERNEL_MAPPING	(1UL << 4)
#define DMA_ATTR_SKIP_CPU_SYNC		(1UL << 5)
#define DMA_ATTR_FORCE_CONTIGUOUS	(1UL << 6)
#define DMA_ATTR_ALLOC_SINGLE_PAGES	(1UL << 7)
#define DMA_ATTR_NO_WARN		(1UL << 8)
#define DMA_ATTR_PRIVILEGED		(1UL << 9)
/*
 * Mainline's system heap passes DMA_ATTR_CC_SHARED when mapping its
 * "system_cc_shared" heap's buffers.  The simulated machine has no memory
 * encryption (cc_platform_has() is false), so that heap is never
 * registered and the bit reaches no mapping; the mapping code ignores it.
 */
#define DMA_ATTR_CC_SHARED		(1UL << 13)

#define DMA_MAPPING_ERROR		(~(dma_addr_t)0)

#define DMA_BIT_MASK(n)	(((n) == 64) ? ~0ULL : ((1ULL << (n)) - 1))

static inline int dma_mapping_error(struct device *dev, dma_addr_t dma_addr)
{
	return unlikely(dma_addr == DMA_MAPPING_ERROR) ? -ENOMEM : 0;
}

unsigned int dma_map_sg_attrs(struct device *dev, struct scatterlist *sg,
			      int nents, enum dma_data_direction dir,
			      unsigned long attrs);
void dma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg,
			int nents, enum dma_data_direction dir,
			unsigned long attrs);
int dma_map_sgtable(struct device *dev, struct sg_table *sgt,
		    enum dma_data_direction dir, unsigned long attrs);
void dma_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg,
			 int nelems, enum dma_data_direction dir);
void dma_sync_sg_for_device(struct device *dev, struct scatterlist *sg,
			    int nelems, enum dma_data_direction dir);

#define dma_map_sg(d, s, n, r)		dma_map_sg_attrs(d, s, n, r, 0)
#define dma_unmap_sg(d, s, n, r)	dma_unmap_sg_attrs(d, s, n, r, 0)

/* Unmap with the CPU entry count, as the table was mapped. */
static inline void dma_unmap_sgtable(struct device *dev, struct sg_table *sgt,
				     enum dma_data_direction dir,
				     unsigned long attrs)
{
	dma_unmap_sg_attrs(dev, sgt->sgl, sgt->orig_nents, dir, attrs);
}

static inline void dma_sync_sgtable_for_cpu(struct device *dev,
					    struct sg_table *sgt,
					    enum dma_data_direction dir)
{
	dma_sync_sg_for_cpu(dev, sgt->sgl, sgt->orig_nents, dir);
}

static inline void dma_sync_sgtable_for_device(struct device *dev,
					       struct sg_table *sgt,
					       enum dma_data_direction dir)
{
	dma_sync_sg_for_device(dev, sgt->sgl, sgt->orig_nents, dir);
}

/* A device that never set a mask gets the 32-bit default. */
static inline u64 dma_get_mask(struct device *dev)
{
	return dev->dma_mask && *dev->dma_mask ? *dev->dma_mask :
						 DMA_BIT_MASK(32);
}

static inline int dma_set_mask(struct device *dev, u64 mask)
{
	if (!dev->dma_mask || mask < DMA_BIT_MASK(32))
		return -EIO;
	*dev->dma_mask = mask;
	return 0;
}

static inline int dma_set_coherent_mask(struct device *dev, u64 mask)
{
	if (mask < DMA_BIT_MASK(32))
		return -EIO;
	dev->coherent_dma_mask = mask;
	return 0;
}

static inline int dma_set_mask_and_coherent(struct device *dev, u64 mask)
{
	int ret = dma_set_mask(dev, mask);

	if (!ret)
		ret = dma_set_coherent_mask(dev, mask);
	return ret;
}

/* Segment limits: unset (no dma_parms, or 0) means 64 KiB, no boundary. */
static inline unsigned int dma_get_max_seg_size(struct device *dev)
{
	unsigned int size = dev->dma_parms ? dev->dma_parms->max_segment_size : 0;

	return size ? size : SZ_64K;
}

static inline unsigned long dma_get_seg_boundary(struct device *dev)
{
	unsigned long mask = dev->dma_parms ?
			     dev->dma_parms->segment_boundary_mask : 0;

	return mask ? mask : ULONG_MAX;
}

/* Setting a limit needs dma_parms (the bus code provides them). */
static inline void dma_set_max_seg_size(struct device *dev, unsigned int size)
{
	if (!WARN_ON_ONCE(!dev->dma_parms))
		dev->dma_parms->max_segment_size = size;
}

static inline void dma_set_seg_boundary(struct device *dev, unsigned long mask)
{
	if (!WARN_ON_ONCE(!dev->dma_parms))
		dev->dma_parms->segment_boundary_mask = mask;
}

#endif
