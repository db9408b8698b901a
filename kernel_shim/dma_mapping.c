// SPDX-License-Identifier: GPL-2.0-only
/*
 * The streaming DMA API for scatterlists (<linux/dma-mapping.h> says what
 * is emulated), as the kernel's kernel/dma/mapping.c: checks, the fault
 * point "shim/dma/map_sg", then dma-iommu (kernel_shim/dma_iommu.c) for a
 * device in a DMA domain, dma-direct for the rest.
 */
#include <linux/dma-mapping.h>
#include <linux/iommu-dma.h>
#include <linux/scatterlist.h>

#include <dmasim/sim.h>
#include <shim/dma_debug.h>

/* dma-direct: the bus address is the physical address. */
static int dma_direct_map_sg(struct device *dev, struct scatterlist *sgl,
			     int nents)
{
	u64 limit = dma_get_mask(dev);
	struct scatterlist *s;
	int i;

	if (dev->bus_dma_limit && dev->bus_dma_limit < limit)
		limit = dev->bus_dma_limit;
	for_each_sg(sgl, s, nents, i) {
		dma_addr_t addr = sg_phys(s);

		if (s->length && addr + s->length - 1 > limit) {
			/* No swiotlb to bounce through: undo and fail. */
			struct scatterlist *t;
			int j;

			for_each_sg(sgl, t, i, j) {
				sg_dma_address(t) = DMA_MAPPING_ERROR;
				sg_dma_len(t) = 0;
			}
			return -EIO;
		}
		sg_dma_address(s) = addr;
		sg_dma_len(s) = s->length;
	}
	sim_count(SIM_CNT_SG_SEGMENT, nents);
	return nents;
}

static int __dma_map_sg(struct device *dev, struct scatterlist *sgl,
			int nents, enum dma_data_direction dir,
			unsigned long attrs)
{
	int ents;

	BUG_ON(!valid_dma_direction(dir));
	if (WARN_ON_ONCE(!dev->dma_mask))
		return 0;
	if (sim_should_fail(SIM_FP_DMA_MAP_SG))
		return -ENOMEM;
	if (use_dma_iommu(dev))
		ents = iommu_dma_map_sg(dev, sgl, nents, dir, attrs);
	else
		ents = dma_direct_map_sg(dev, sgl, nents);
	if (ents > 0) {
		debug_dma_map_sg(dev, sgl, nents, ents, dir);
		return ents;
	}
	/* The DMA API's errors; anything else is a bug of the mapper. */
	if (ents == -EINVAL || ents == -ENOMEM || ents == -EIO ||
	    ents == -EREMOTEIO || !ents)
		return ents;
	WARN_ONCE(1, "dma_map_sg: unexpected error %d\n", ents);
	return -EIO;
}

unsigned int dma_map_sg_attrs(struct device *dev, struct scatterlist *sg,
			      int nents, enum dma_data_direction dir,
			      unsigned long attrs)
{
	int ret = __dma_map_sg(dev, sg, nents, dir, attrs);

	return ret < 0 ? 0 : ret;
}

int dma_map_sgtable(struct device *dev, struct sg_table *sgt,
		    enum dma_data_direction dir, unsigned long attrs)
{
	int nents = __dma_map_sg(dev, sgt->sgl, sgt->orig_nents, dir, attrs);

	if (nents < 0)
		return nents;
	sgt->nents = nents;
	return 0;
}

void dma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg,
			int nents, enum dma_data_direction dir,
			unsigned long attrs)
{
	BUG_ON(!valid_dma_direction(dir));
	debug_dma_unmap_sg(dev, sg, nents, dir);
	if (use_dma_iommu(dev))
		iommu_dma_unmap_sg(dev, sg, nents, dir, attrs);
	else
		sim_count(SIM_CNT_SG_SEGMENT, nents);
}

/*
 * The machine is coherent: a sync walks the CPU entries it is given and
 * maintains nothing (a bounced list copies, kernel_shim/dma_iommu.c).
 */
void dma_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg,
			 int nelems, enum dma_data_direction dir)
{
	BUG_ON(!valid_dma_direction(dir));
	if (use_dma_iommu(dev))
		iommu_dma_sync_sg_for_cpu(dev, sg, nelems, dir);
	else
		sim_count(SIM_CNT_SG_SEGMENT, nelems);
	debug_dma_sync_sg(dev, sg, nelems, dir);
}

void dma_sync_sg_for_device(struct device *dev, struct scatterlist *sg,
			    int nelems, enum dma_data_direction dir)
{
	BUG_ON(!valid_dma_direction(dir));
	if (use_dma_iommu(dev))
		iommu_dma_sync_sg_for_device(dev, sg, nelems, dir);
	else
		sim_count(SIM_CNT_SG_SEGMENT, nelems);
	debug_dma_sync_sg(dev, sg, nelems, dir);
}
