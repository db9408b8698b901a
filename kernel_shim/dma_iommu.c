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
 *
 * An untrusted device (dev->untrusted, the kernel's pci_dev->untrusted)
 * takes the swiotlb path instead (iommu_dma_map_sg_swiotlb()): the first
 * entry is marked SG_DMA_SWIOTLB (never unmarked, as in the kernel) and
 * each entry is mapped on its own, one IOVA each, never merged, so the
 * result is nents; an entry whose (phys | length) is not granule-aligned
 * is first copied into a bounce slot at the same offset within its
 * granule, whose padding up to the granule edges is zeroed, so the device
 * sees no other kernel data.  Failure unmaps what was mapped and returns
 * -EIO.  Unmap copies back (FROM_DEVICE, BIDIRECTIONAL), the syncs copy
 * the way their direction says.
 * Simplified: the kernel's swiotlb is a pool reserved at boot and handed
 * out in 2 KiB slots; here a slot is alloc_pages(GFP_ATOMIC) of the
 * granule-rounded size, freed at unmap (so it shows in the buddy counts
 * while mapped), listed per device in dev->dma_io_tlb_mem.  The
 * kmalloc-bouncing reason (CONFIG_DMA_BOUNCE_UNALIGNED_KMALLOC, for
 * non-coherent devices) does not arise: the machine is coherent.
 *
 * A domain whose IOVA granule is larger than PAGE_SIZE cannot back the DMA
 * API (the kernel's init_iova_domain() BUG()s on it, so the drivers
 * refuse it first: apple_dart_finalize_domain() fails with -EINVAL):
 * iommu_dma_init_domain() refuses it and iommu_setup_dma_ops() leaves the
 * device off dma-iommu with a warning in the log; whoever set the device
 * up for DMA then fails its probe (kapi_dev_create(): -EINVAL).
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/iommu.h>
#include <linux/iommu-dma.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dmasim/sim.h>
#include <shim/iommu_sim.h>

static unsigned long dma_iommu_granule(struct iommu_domain *domain)
{
	return 1UL << __ffs(domain->pgsize_bitmap);
}

int iommu_dma_init_domain(struct iommu_domain *domain, struct device *dev)
{
	if (dma_iommu_granule(domain) > PAGE_SIZE)
		return -EINVAL;
	return 0;
}

void iommu_setup_dma_ops(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);

	dev->dma_iommu = domain && iommu_is_dma_domain(domain);
	if (dev->dma_iommu && iommu_dma_init_domain(domain, dev)) {
		pr_warn("Failed to set up IOMMU for device %s; retaining platform DMA ops\n",
			dev_name(dev));
		dev->dma_iommu = false;
	}
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

/* ------------------------------------------------------------------------
 * The swiotlb path of an untrusted device.
 */
struct io_tlb_mem {
	struct list_head slots;
	unsigned int nr;
};

/* One bounce buffer: tlb_addr holds a copy of [orig, +size). */
struct dma_bounce_slot {
	struct list_head list;
	struct page *pages;
	unsigned int order;
	phys_addr_t tlb_addr;
	phys_addr_t orig;
	size_t size;
};

/* Copy len bytes between physical ranges, a page of either at a time. */
static void dma_bounce_copy(phys_addr_t dst, phys_addr_t src, size_t len)
{
	while (len) {
		size_t n = min3(len, PAGE_SIZE - offset_in_page(dst),
				PAGE_SIZE - offset_in_page(src));

		memcpy(sim_phys_to_virt(dst), sim_phys_to_virt(src), n);
		dst += n;
		src += n;
		len -= n;
	}
}

static void dma_bounce_zero(phys_addr_t dst, size_t len)
{
	while (len) {
		size_t n = min(len, PAGE_SIZE - offset_in_page(dst));

		memset(sim_phys_to_virt(dst), 0, n);
		dst += n;
		len -= n;
	}
}

static struct dma_bounce_slot *dma_bounce_find(struct device *dev,
					       phys_addr_t tlb_addr)
{
	struct dma_bounce_slot *slot;

	if (!dev->dma_io_tlb_mem)
		return NULL;
	list_for_each_entry(slot, &dev->dma_io_tlb_mem->slots, list)
		if (slot->tlb_addr == tlb_addr)
			return slot;
	return NULL;
}

/*
 * swiotlb_tbl_map_single() with the granule as alignment mask: a slot at
 * the same offset within its granule as orig, the data copied in whatever
 * the direction (a device that writes only part of it must not expose the
 * rest), the padding to the granule edges zeroed (the device is untrusted).
 */
static phys_addr_t dma_bounce_map(struct device *dev, phys_addr_t orig,
				  size_t size, unsigned long granule)
{
	size_t head = orig & (granule - 1);
	size_t span = ALIGN(head + size, granule);
	struct dma_bounce_slot *slot;
	struct io_tlb_mem *mem = dev->dma_io_tlb_mem;

	if (!mem) {
		mem = kzalloc(sizeof(*mem), GFP_ATOMIC);
		if (!mem)
			return DMA_MAPPING_ERROR;
		INIT_LIST_HEAD(&mem->slots);
		dev->dma_io_tlb_mem = mem;
	}
	slot = kzalloc(sizeof(*slot), GFP_ATOMIC);
	if (!slot)
		goto free_mem;
	slot->order = get_order(span);
	slot->pages = alloc_pages(GFP_ATOMIC, slot->order);
	if (!slot->pages) {
		kfree(slot);
		goto free_mem;
	}
	slot->tlb_addr = page_to_phys(slot->pages) + head;
	slot->orig = orig;
	slot->size = size;
	dma_bounce_copy(slot->tlb_addr, orig, size);
	dma_bounce_zero(slot->tlb_addr - head, head);
	dma_bounce_zero(slot->tlb_addr + size, span - head - size);
	list_add(&slot->list, &mem->slots);
	mem->nr++;
	return slot->tlb_addr;

free_mem:
	if (!mem->nr) {
		kfree(mem);
		dev->dma_io_tlb_mem = NULL;
	}
	return DMA_MAPPING_ERROR;
}

/* swiotlb_tbl_unmap_single(): copy back if the device wrote, free. */
static void dma_bounce_unmap(struct device *dev, phys_addr_t tlb_addr,
			     enum dma_data_direction dir, unsigned long attrs)
{
	struct dma_bounce_slot *slot = dma_bounce_find(dev, tlb_addr);

	if (!slot)
		return;
	if (!(attrs & DMA_ATTR_SKIP_CPU_SYNC) &&
	    (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL))
		dma_bounce_copy(slot->orig, slot->tlb_addr, slot->size);
	list_del(&slot->list);
	__free_pages(slot->pages, slot->order);
	kfree(slot);
	if (!--dev->dma_io_tlb_mem->nr) {
		kfree(dev->dma_io_tlb_mem);
		dev->dma_io_tlb_mem = NULL;
	}
}

/* __iommu_dma_map(): one IOVA range for [phys, +size), granule-widened. */
static dma_addr_t dma_iommu_map_one(struct device *dev, phys_addr_t phys,
				    size_t size, int prot)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	struct sim_iommu_domain *sdom = sim_iommu_domain_of(domain);
	unsigned long granule = dma_iommu_granule(domain);
	size_t head = phys & (granule - 1);
	size_t span = ALIGN(head + size, granule);
	unsigned long long iova;

	if (sim_should_fail(SIM_FP_IOVA_ALLOC) ||
	    sim_iova_alloc(sdom, span, dma_iommu_limit(dev, domain), &iova))
		return DMA_MAPPING_ERROR;
	if (iommu_map(domain, iova, phys - head, span, prot, GFP_ATOMIC)) {
		sim_iova_free(sdom, iova, span);
		return DMA_MAPPING_ERROR;
	}
	return iova + head;
}

/* __iommu_dma_unmap(): the granule-widened range, one sync, the IOVA. */
static void dma_iommu_unmap_one(struct device *dev, dma_addr_t addr,
				size_t size)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	unsigned long granule = dma_iommu_granule(domain);
	size_t head = addr & (granule - 1);
	size_t span = ALIGN(head + size, granule);
	struct iommu_iotlb_gather gather;

	iommu_iotlb_gather_init(&gather);
	WARN_ON(iommu_unmap_fast(domain, addr - head, span, &gather) != span);
	iommu_iotlb_sync(domain, &gather);
	sim_iova_free(sim_iommu_domain_of(domain), addr - head, span);
}

/* iommu_dma_map_page(): bounce what is not granule-aligned, map. */
static dma_addr_t dma_iommu_map_page(struct device *dev, struct page *page,
				     unsigned long offset, size_t size,
				     enum dma_data_direction dir,
				     unsigned long attrs)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	unsigned long granule = dma_iommu_granule(domain);
	phys_addr_t phys = page_to_phys(page) + offset;
	bool bounced = false;
	dma_addr_t iova;

	if ((phys | size) & (granule - 1)) {
		phys = dma_bounce_map(dev, phys, size, granule);
		if (phys == DMA_MAPPING_ERROR)
			return DMA_MAPPING_ERROR;
		bounced = true;
	}
	iova = dma_iommu_map_one(dev, phys, size,
				 dma_iommu_prot(dir, dev->dma_coherent, attrs));
	if (iova == DMA_MAPPING_ERROR && bounced)
		dma_bounce_unmap(dev, phys, dir, attrs | DMA_ATTR_SKIP_CPU_SYNC);
	return iova;
}

/* iommu_dma_unmap_page(): find the buffer behind the IOVA, unmap, unbounce. */
static void dma_iommu_unmap_page(struct device *dev, dma_addr_t addr,
				 size_t size, enum dma_data_direction dir,
				 unsigned long attrs)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	phys_addr_t phys = iommu_iova_to_phys(domain, addr);

	if (WARN_ON(!phys))
		return;
	dma_iommu_unmap_one(dev, addr, size);
	dma_bounce_unmap(dev, phys, dir, attrs);
}

static void dma_iommu_unmap_sg_swiotlb(struct device *dev,
				       struct scatterlist *sgl, int nents,
				       enum dma_data_direction dir,
				       unsigned long attrs)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sgl, s, nents, i)
		dma_iommu_unmap_page(dev, sg_dma_address(s), sg_dma_len(s),
				     dir, attrs);
	sim_count(SIM_CNT_SG_SEGMENT, nents);
}

static int dma_iommu_map_sg_swiotlb(struct device *dev,
				    struct scatterlist *sgl, int nents,
				    enum dma_data_direction dir,
				    unsigned long attrs)
{
	struct scatterlist *s;
	int i;

	sg_dma_mark_swiotlb(sgl);
	for_each_sg(sgl, s, nents, i) {
		sg_dma_address(s) = dma_iommu_map_page(dev, sg_page(s),
						       s->offset, s->length,
						       dir, attrs);
		if (sg_dma_address(s) == DMA_MAPPING_ERROR)
			goto unmap;
		sg_dma_len(s) = s->length;
	}
	sim_count(SIM_CNT_SG_SEGMENT, nents);
	return nents;

unmap:
	dma_iommu_unmap_sg_swiotlb(dev, sgl, i, dir,
				   attrs | DMA_ATTR_SKIP_CPU_SYNC);
	return -EIO;
}

/*
 * The syncs of a bounced list copy each entry's CPU length between the
 * buffer and its slot; an unbounced list needs nothing on this coherent
 * machine.  Both walk the CPU entries they are given.
 */
static void dma_iommu_sync_sg(struct device *dev, struct scatterlist *sgl,
			      int nelems, bool for_cpu)
{
	struct iommu_domain *domain = iommu_get_dma_domain(dev);
	struct dma_bounce_slot *slot;
	struct scatterlist *s;
	int i;

	sim_count(SIM_CNT_SG_SEGMENT, nelems);
	if (!sg_dma_is_swiotlb(sgl))
		return;
	for_each_sg(sgl, s, nelems, i) {
		slot = dma_bounce_find(dev, iommu_iova_to_phys(domain,
							       sg_dma_address(s)));
		if (!slot)
			continue;
		if (for_cpu)
			dma_bounce_copy(slot->orig, slot->tlb_addr, s->length);
		else
			dma_bounce_copy(slot->tlb_addr, slot->orig, s->length);
	}
}

void iommu_dma_sync_sg_for_cpu(struct device *dev, struct scatterlist *sgl,
			       int nelems, enum dma_data_direction dir)
{
	if (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL)
		dma_iommu_sync_sg(dev, sgl, nelems, true);
	else
		sim_count(SIM_CNT_SG_SEGMENT, nelems);
}

void iommu_dma_sync_sg_for_device(struct device *dev, struct scatterlist *sgl,
				  int nelems, enum dma_data_direction dir)
{
	if (dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL)
		dma_iommu_sync_sg(dev, sgl, nelems, false);
	else
		sim_count(SIM_CNT_SG_SEGMENT, nelems);
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

	if (dev->untrusted)
		return dma_iommu_map_sg_swiotlb(dev, sgl, nents, dir, attrs);

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
	/* Only these pass through; everything else is -EINVAL. */
	if (ret != -ENOMEM && ret != -EREMOTEIO)
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

	if (sg_dma_is_swiotlb(sgl)) {
		dma_iommu_unmap_sg_swiotlb(dev, sgl, nents, dir, attrs);
		return;
	}
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
