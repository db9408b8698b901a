/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DMA API's entry into dma-iommu, as the kernel's <linux/iommu-dma.h>
 * (6.12): use_dma_iommu() and the scatterlist calls
 * (kernel_shim/dma_iommu.c).
 * (a) The kernel's contract: iommu_setup_dma_ops() sets dev->dma_iommu when
 *     the device's default domain is a DMA domain; the DMA API then maps
 *     through dma-iommu.  (The kernel calls it when the device is probed;
 *     here whoever creates a simulated device for the DMA API calls it.)
 *     A domain whose granule is larger than PAGE_SIZE leaves the device
 *     off dma-iommu (iommu_dma_init_domain() refuses it).
 */
#ifndef _DMASIM_LINUX_IOMMU_DMA_H
#define _DMASIM_LINUX_IOMMU_DMA_H

#include <linux/device.h>
#include <linux/dma-direction.h>

struct scatterlist;

static inline bool use_dma_iommu(struct device *dev)
{
	return dev->dma_iommu;
}

void iommu_setup_dma_ops(struct device *dev);
int iommu_dma_map_sg(struct device *dev, struct scatterlist *sg, int nents,
		     enum dma_data_direction dir, unsigned long attrs);
void iommu_dma_unmap_sg(struct device *dev, struct scatterlist *sg, int nents,
			enum dma_data_direction dir, unsigned long attrs);
void iommu_dma_sync_sg_for_cpu(struct device *dev, struct scatterlist *sgl,
			       int nelems, enum dma_data_direction dir);
void iommu_dma_sync_sg_for_device(struct device *dev, struct scatterlist *sgl,
				  int nelems, enum dma_data_direction dir);
/*
 * The IOVA domain's setup for the DMA API: 0, or -EINVAL for a granule
 * larger than PAGE_SIZE (the kernel's drivers refuse such a domain; see
 * kernel_shim/dma_iommu.c).
 */
struct iommu_domain;
int iommu_dma_init_domain(struct iommu_domain *domain, struct device *dev);

#endif
