// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma-iommu: the DMA API for a device whose IOMMU domain is a DMA domain
 * (the kernel's drivers/iommu/dma-iommu.c, scatterlist part), entered from
 * kernel_shim/dma_mapping.c when use_dma_iommu(dev).
 *
 * Mapping a list, as the kernel's iommu_dma_map_sg() does it:
 *  1. each entry is widened to whole IOVA granules (the domain's smallest
 *     page); its offset into the first granule and its true length are
 *     parked in dma_address and dma_length, so they can be put back;
 *  2. entries are laid out back to back (padded only where a segment
 *     boundary would otherwise be crossed) and one IOVA range of the total
 *     length is allocated, size-aligned, below min(DMA mask, bus limit,
 *     aperture end) (sim_iova_alloc(); fault point "shim/dma/iova_alloc");
 *  3. one iommu_map_sg() maps them all: the IOMMU core merges physically
 *     contiguous entries into single iommu_map() calls, which pick the leaf
 *     sizes, so an aligned 2 MiB run becomes one 2 MiB leaf;
 *  4. the entries are put back and concatenated into DMA segments: an
 *     entry joins the segment before it when it starts on a granule, does
 *     not start a new segment-boundary window and keeps the segment within
 *     max_segment_size.  The segment count is the result (nents).
 * Failure anywhere undoes everything: no IOVA, no leaf, entries restored.
 * Unmapping finds the IOVA range from the segments, unmaps it with one
 * iommu_unmap_fast() and one IOTLB sync, and frees the IOVA.
 */
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/iommu-dma.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>

#include <dmasim/sim.h>
#include <shim/iommu_sim.h>

void iommu_setup_dma_ops(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);

	dev->dma_iommu = domain && iommu_is_dma_domain(domain);
}

static unsigned long dma_iommu_granule(struct iommu_domain *domain)
{
	return 1UL << __ffs(domain->pgsize_bitmap);
}

/* The device reads what goes to it and writes what comes from it. */
static const int dma_dir_prot[] = {
	[DMA_BIDIRECTIONAL] = IOMMU_READ | IOMMU_WRITE,
	[DMA_TO_DEVICE] = IOMMU_READ,
	[DMA_FROM_DEVICE] = IOMMU_WRITE,
	[DMA_NONE] = 0,
};

static int dma_iommu_prot(enum dma_data_direction dir, bool coherent,
			  unsigned long attrs)
{
	if (!dma_dir_prot[dir])
		return 0;
	return dma_dir_prot[dir] | (coherent ? IOMMU_CACHE : 0) |
	       (attrs & DMA_ATTR_PRIVILEGED ? IOMMU_PRIV : 0);
}

static u64 dma_iommu_limit(struct device *dev, struct iommu_domain *domain)
{
	u64 limit = dma_get_mask(dev);

	if (dev->bus_dma_limit && dev->bus_dma_limit < limit)
		limit = dev->bus_dma_limit;
	if (domain->geometry.force_aperture &&
	    domain->geometry.aperture_end < limit)
		limit = domain->geometry.aperture_end;
	return limit;
}

/* Put back what step 1 changed, and mark every entry unmapped. */
static void dma_iommu_restore_sg(struct scatterlist *sgl, int nents)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sgl, s, nents, i) {
		if (sg_dma_address(s) != DMA_MAPPING_ERROR)
			s->offset += sg_dma_address(s);
		if (sg_dma_len(s))
			s->length = sg_dma_len(s);
		sg_dma_address(s) = DMA_MAPPING_ERROR;
		sg_dma_len(s) = 0;
	}
}

/* Step 4: restore the entries and build the DMA segments from iova on. */
static int dma_iommu_finalise_sg(struct device *dev, struct scatterlist *sgl,
				 int nents, dma_addr_t iova)
{
	unsigned long boundary = dma_get_seg_boundary(dev);
	unsigned int max_len = dma_get_max_seg_size(dev);
	struct scatterlist *s, *seg = sgl;
	unsigned int seg_len = 0;
	int i, count = 0;

	for_each_sg(sgl, s, nents, i) {
		unsigned int head = sg_dma_address(s);
		unsigned int len = sg_dma_len(s);
		unsigned int span = s->length;
		bool join;

		sg_dma_address(s) = DMA_MAPPING_ERROR;
		sg_dma_len(s) = 0;
		s->offset += head;
		s->length = len;

		join = seg_len && !head && (iova & boundary) &&
		       max_len - seg_len >= len;
		if (join) {
			seg_len += len;
		} else {
			if (i)
				seg = sg_next(seg);
			seg_len = len;
			count++;
			sg_dma_address(seg) = iova + head;
		}
		sg_dma_len(seg) = seg_len;
		iova += span;
		/* A segment ending short of its granule cannot be extended. */
		if (head + len < span)
			seg_len = 0;
	}
	sim_count(SIM_CNT_SG_SEGMENT, nents);
	return count;
}

int iommu_dma_map_sg(struct device *dev, struct scatterlist *sgl, int nents,
		     enum dma_data_direction dir, unsigned long attrs)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	struct sim_iommu_domain *sdom = sim_iommu_domain_of(domain);
	unsigned long granule = dma_iommu_granule(domain);
	unsigned long boundary = dma_get_seg_boundary(dev);
	struct scatterlist *s, *prev = NULL;
	unsigned long long iova;
	size_t total = 0;
	ssize_t mapped;
	int i, ret;

	/* Step 1 and 2: widen the entries and add up the IOVA needed. */
	for_each_sg(sgl, s, nents, i) {
		unsigned int head = s->offset & (granule - 1);
		size_t span = ALIGN((size_t)s->length + head, granule);
		size_t pad = (boundary - total + 1) & boundary;

		sg_dma_address(s) = head;
		sg_dma_len(s) = s->length;
		s->offset -= head;
		if (span > UINT_MAX) {
			ret = -EOVERFLOW;
			goto restore;
		}
		s->length = span;
		/* Start the next boundary window rather than straddle one. */
		if (pad && pad < span - 1) {
			if (check_add_overflow(prev->length, (unsigned int)pad,
					       &prev->length)) {
				ret = -EOVERFLOW;
				goto restore;
			}
			total += pad;
		}
		total += span;
		prev = s;
	}
	if (!total)
		return dma_iommu_finalise_sg(dev, sgl, nents, 0);

	if (sim_should_fail(SIM_FP_IOVA_ALLOC) ||
	    sim_iova_alloc(sdom, total, dma_iommu_limit(dev, domain), &iova)) {
		ret = -ENOMEM;
		goto restore;
	}

	/* Step 3: the IOMMU core merges contiguous runs and picks leaves. */
	mapped = iommu_map_sg(domain, iova, sgl, nents,
			      dma_iommu_prot(dir, dev->dma_coherent, attrs),
			      GFP_ATOMIC);
	if (mapped < 0 || (size_t)mapped < total) {
		ret = mapped < 0 ? mapped : -EINVAL;
		sim_iova_free(sdom, iova, total);
		goto restore;
	}
	return dma_iommu_finalise_sg(dev, sgl, nents, iova);

restore:
	dma_iommu_restore_sg(sgl, nents);
	/* The DMA API reports only these three errors. */
	if (ret != -ENOMEM && ret != -EIO)
		ret = -EINVAL;
	return ret;
}

void iommu_dma_unmap_sg(struct device *dev, struct scatterlist *sgl, int nents,
			enum dma_data_direction dir, unsigned long attrs)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	struct sim_iommu_domain *sdom = sim_iommu_domain_of(domain);
	unsigned long granule = dma_iommu_granule(domain);
	struct iommu_iotlb_gather gather;
	dma_addr_t start = 0, last = 0;
	struct scatterlist *s;
	size_t size, unmapped;
	int i;

	/*
	 * The segments sit in one IOVA range: from the first to the last.  Track
	 * the last byte, not the end: a range at the top of a 64-bit aperture
	 * ends at 2^64, which is 0.
	 */
	for_each_sg(sgl, s, nents, i) {
		if (!sg_dma_len(s))
			break;
		if (!i)
			start = sg_dma_address(s);
		last = sg_dma_address(s) + sg_dma_len(s) - 1;
	}
	sim_count(SIM_CNT_SG_SEGMENT, i);
	if (!i)
		return;

	start = ALIGN_DOWN(start, granule);
	size = ALIGN(last - start + 1, granule);
	iommu_iotlb_gather_init(&gather);
	unmapped = iommu_unmap_fast(domain, start, size, &gather);
	WARN_ON(unmapped != size);
	iommu_iotlb_sync(domain, &gather);
	sim_iova_free(sdom, start, size);
}
