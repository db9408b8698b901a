// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOMMU core, the map path: iommu_map(), iommu_map_sg(), iommu_unmap(),
 * iommu_unmap_fast(), iommu_iova_to_phys() and the page-size selection
 * they share.  In the kernel these are part of drivers/iommu/iommu.c; here
 * they are a file of their own so that upstream mode can link a tree's own
 * map path (taken out of its drivers/iommu/iommu.c function by function,
 * tools/extract-functions.py) instead of this one, and never both.  The
 * rest of the IOMMU core (groups, domains, probing, attach) is iommu.c.
 *
 * Written for dmasim from the behaviour of Linux 6.12's
 * drivers/iommu/iommu.c (see shared/kernel-notes/iommu.md), with
 * mainline's range checks (a range may end at 2^64, never wrap past it).
 */

#define pr_fmt(fmt)	"iommu: " fmt

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/gfp_types.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <trace/events/iommu.h>

/*
 * Pick the page size for the next driver call mapping [iova, iova + size)
 * to paddr: the largest size the domain supports that fits in what is left
 * and that both addresses are aligned to, and in @count how many pages of
 * that size to map in one call: all that fit, except that a run of
 * small pages stops at the next boundary of the next larger supported size
 * when iova and paddr cross it together, so that the following call can use
 * the larger page.
 */
static size_t iommu_pgsize(struct iommu_domain *domain, unsigned long iova,
			   phys_addr_t paddr, size_t size, size_t *count)
{
	unsigned long bitmap = domain->pgsize_bitmap;
	phys_addr_t both = (phys_addr_t)iova | paddr;
	unsigned long fits, bigger;
	unsigned int shift;
	size_t run = size, next, to_edge, edge_plus_page;

	/* Not larger than what is left... */
	fits = bitmap & GENMASK(__fls(size), 0);
	/* ...nor than the alignment iova and paddr have in common. */
	if (both)
		fits &= GENMASK(__ffs(both), 0);
	/* Callers checked that iova, paddr and size fit the smallest page. */
	BUG_ON(!fits); /* GCOVR_EXCL_BR_LINE: so the smallest always fits */

	shift = __fls(fits);
	bigger = bitmap & ~GENMASK(shift, 0);
	if (bigger) {
		next = BIT(__ffs(bigger));
		/* Only worth it if both addresses reach the boundary at once. */
		if (!(((phys_addr_t)iova ^ paddr) & (next - 1))) {
			to_edge = next - (both & (next - 1));
			if (!check_add_overflow(to_edge, next, &edge_plus_page) &&
			    edge_plus_page <= size)
				run = to_edge;
		}
	}

	*count = run >> shift;
	return BIT(shift);
}

/*
 * Map without the final IOTLB sync.  What a failing driver call had
 * already mapped is unmapped again, together with every earlier call's.
 */
static int iommu_map_nosync(struct iommu_domain *domain, unsigned long iova,
			    phys_addr_t paddr, size_t size, int prot,
			    gfp_t gfp)
{
	const struct iommu_domain_ops *ops = domain->ops;
	unsigned long cur_iova = iova, last;
	phys_addr_t cur_paddr = paddr, last_pa;
	unsigned long min_pagesz;
	size_t left = size;
	int ret = 0;

	if (unlikely(!(domain->type & __IOMMU_DOMAIN_PAGING)))
		return -EINVAL;
	if (WARN_ON(!ops->map_pages || !domain->pgsize_bitmap))
		return -ENODEV;

	/* iova, paddr and size must all be multiples of the smallest page */
	min_pagesz = BIT(__ffs(domain->pgsize_bitmap));
	if ((iova | paddr | size) & (min_pagesz - 1)) {
		pr_err("unaligned map: iova 0x%lx pa 0x%llx size 0x%zx min_pagesz 0x%lx\n",
		       iova, (unsigned long long)paddr, size, min_pagesz);
		return -EINVAL;
	}
	/*
	 * Neither range may run past the end of its address space (the last
	 * byte of each is representable; a range may end exactly at 2^64).
	 */
	if (size && (check_add_overflow(iova, size - 1, &last) ||
		     check_add_overflow(paddr, (phys_addr_t)size - 1, &last_pa)))
		return -EINVAL;

	while (left) {
		size_t pgsize, count, done = 0;

		pgsize = iommu_pgsize(domain, cur_iova, cur_paddr, left,
				      &count);
		ret = ops->map_pages(domain, cur_iova, cur_paddr, pgsize,
				     count, prot, gfp, &done);
		/* Partial progress counts, so that it is undone below. */
		left -= done;
		if (ret)
			break;
		if (WARN_ON_ONCE(!done)) {
			ret = -EINVAL;
			break;
		}
		/* A range ending at 2^64 has no next address: stop, not wrap. */
		if (!left)
			break;
		cur_iova += done;
		cur_paddr += done;
	}

	if (ret) {
		iommu_unmap(domain, iova, size - left);
		return ret;
	}
	trace_map(iova, paddr, size);
	return 0;
}

static int iommu_sync_map(struct iommu_domain *domain, unsigned long iova,
			  size_t size)
{
	const struct iommu_domain_ops *ops = domain->ops;

	if (!ops->iotlb_sync_map)
		return 0;
	return ops->iotlb_sync_map(domain, iova, size);
}

/* gfp bits that make no sense for page-table allocations */
#define IOMMU_BAD_GFP	(__GFP_COMP | __GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM)

int iommu_map(struct iommu_domain *domain, unsigned long iova,
	      phys_addr_t paddr, size_t size, int prot, gfp_t gfp)
{
	int ret;

	if (WARN_ON_ONCE(gfp & IOMMU_BAD_GFP))
		return -EINVAL;

	ret = iommu_map_nosync(domain, iova, paddr, size, prot, gfp);
	if (ret)
		return ret;

	ret = iommu_sync_map(domain, iova, size);
	if (ret)
		iommu_unmap(domain, iova, size);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_map);

/*
 * Map a scatterlist back to back from @iova.  Entries whose physical ranges
 * continue one another form one run, mapped by one iommu_map_nosync() call
 * so that the page-size choice sees the whole run; bus-address (P2P)
 * entries are skipped and end a run.  One iotlb_sync_map covers it all.
 * Returns the bytes mapped, or a negative errno with nothing left mapped.
 */
ssize_t iommu_map_sg(struct iommu_domain *domain, unsigned long iova,
		     struct scatterlist *sg, unsigned int nents, int prot,
		     gfp_t gfp)
{
	size_t run_len = 0, mapped = 0;
	phys_addr_t run_start = 0;
	unsigned int i;
	int ret;

	if (WARN_ON_ONCE(gfp & IOMMU_BAD_GFP))
		return -EINVAL;

	for (i = 0; i < nents; i++, sg = sg_next(sg)) {
		bool bus = sg_dma_is_bus_address(sg);
		phys_addr_t phys = sg_phys(sg);

		if (run_len && (bus || phys != run_start + run_len)) {
			ret = iommu_map_nosync(domain, iova + mapped, run_start,
					       run_len, prot, gfp);
			if (ret)
				goto undo;
			mapped += run_len;
			run_len = 0;
		}
		if (bus)
			continue;
		if (!run_len)
			run_start = phys;
		run_len += sg->length;
	}
	if (run_len) {
		ret = iommu_map_nosync(domain, iova + mapped, run_start,
				       run_len, prot, gfp);
		if (ret)
			goto undo;
		mapped += run_len;
	}

	ret = iommu_sync_map(domain, iova, mapped);
	if (ret)
		goto undo;
	return mapped;

undo:
	iommu_unmap(domain, iova, mapped);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_map_sg);

/*
 * Unmap at least @size bytes from @iova, or stop at the first hole.  The
 * driver may unmap more than asked (a larger page that covers the range
 * goes whole), so the result can exceed @size.
 */
static size_t __iommu_unmap(struct iommu_domain *domain, unsigned long iova,
			    size_t size, struct iommu_iotlb_gather *gather)
{
	const struct iommu_domain_ops *ops = domain->ops;
	unsigned long cur = iova, last;
	unsigned long min_pagesz;
	size_t total = 0;

	if (unlikely(!(domain->type & __IOMMU_DOMAIN_PAGING)))
		return 0;
	if (WARN_ON(!ops->unmap_pages || !domain->pgsize_bitmap))
		return 0;

	min_pagesz = BIT(__ffs(domain->pgsize_bitmap));
	if ((iova | size) & (min_pagesz - 1)) {
		pr_err("unaligned unmap: iova 0x%lx size 0x%zx min_pagesz 0x%lx\n",
		       iova, size, min_pagesz);
		return 0;
	}
	/* A range past 2^64 would go on at IOVA 0: unmap nothing. */
	if (size && check_add_overflow(iova, size - 1, &last))
		return 0;

	while (total < size) {
		size_t pgsize, count, got;

		/* Only iova's alignment matters: pass it as paddr too. */
		pgsize = iommu_pgsize(domain, cur, cur, size - total, &count);
		got = ops->unmap_pages(domain, cur, pgsize, count, gather);
		if (!got)
			break;
		total += got;
		/* A range ending at 2^64 has no next address: stop, not wrap. */
		if (total >= size)
			break;
		cur += got;
	}

	trace_unmap(iova, size, total);
	return total;
}

size_t iommu_unmap(struct iommu_domain *domain, unsigned long iova,
		   size_t size)
{
	struct iommu_iotlb_gather gather;
	size_t unmapped;

	iommu_iotlb_gather_init(&gather);
	unmapped = __iommu_unmap(domain, iova, size, &gather);
	iommu_iotlb_sync(domain, &gather);
	return unmapped;
}
EXPORT_SYMBOL_GPL(iommu_unmap);

/* As iommu_unmap(), leaving the IOTLB sync to the caller's gather. */
size_t iommu_unmap_fast(struct iommu_domain *domain, unsigned long iova,
			size_t size, struct iommu_iotlb_gather *iotlb_gather)
{
	return __iommu_unmap(domain, iova, size, iotlb_gather);
}
EXPORT_SYMBOL_GPL(iommu_unmap_fast);

phys_addr_t iommu_iova_to_phys(struct iommu_domain *domain, dma_addr_t iova)
{
	switch (domain->type) {
	case IOMMU_DOMAIN_IDENTITY:
		return iova;
	case IOMMU_DOMAIN_BLOCKED:
		return 0;
	default:
		return domain->ops->iova_to_phys(domain, iova);
	}
}
EXPORT_SYMBOL_GPL(iommu_iova_to_phys);
