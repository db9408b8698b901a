/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scatter-gather lists, as the kernel's <linux/scatterlist.h>.
 *
 * (a) Definitions that must match the kernel: struct scatterlist (page_link
 *     with the SG_CHAIN / SG_END low bits, offset, length, dma_address,
 *     dma_length, dma_flags: x86-64 with an IOMMU has both
 *     CONFIG_NEED_SG_DMA_LENGTH and CONFIG_NEED_SG_DMA_FLAGS), struct
 *     sg_table (sgl, nents = mapped DMA segments, orig_nents = CPU entries),
 *     struct sg_page_iter, SG_MAX_SINGLE_ALLOC, and every accessor and
 *     iterator kernel code uses.
 * Reproduced: sg_alloc_table() builds the kernel's chained table.  A table
 *     of at most SG_MAX_SINGLE_ALLOC entries (a page of entries: 128 with
 *     4 KiB pages, 2048 with 64 KiB) is one array; a longer one is a chain
 *     of arrays of SG_MAX_SINGLE_ALLOC entries whose last slot is the
 *     SG_CHAIN link to the next (SG_MAX_SINGLE_ALLOC - 1 entries of data
 *     each), closed by an array as long as the entries left, as the
 *     kernel's __sg_alloc_table() lays it out.  A chunk that cannot be had
 *     fails the call with -ENOMEM after the chunks already taken are freed;
 *     sg_free_table() follows the links and frees every chunk.  sg_next()
 *     and so every iterator here steps over the links, so nothing may index
 *     a table as a flat array.
 * Simplified: every chunk comes from the kernel heap (sim_kmalloc, so
 *     sim_kmalloc_outstanding() counts one object per chunk), where the
 *     kernel takes a full chunk from the page allocator and only shorter
 *     ones from kmalloc; gfp_mask is not looked at.  The fault point
 *     "shim/scatterlist/sg_alloc_table" is asked before each chunk, so a
 *     sweep can fail the second chunk of a table as well as the first
 *     (kernel_shim/scatterlist.c).  Not provided: caller-supplied first
 *     chunks (__sg_alloc_table, sg_alloc_table_chained), append tables
 *     built from pages, and architectures without chaining.
 * Nothing here is a stub.
 */
#ifndef _DMASIM_LINUX_SCATTERLIST_H
#define _DMASIM_LINUX_SCATTERLIST_H

#include <linux/bug.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/types.h>

struct scatterlist {
	unsigned long page_link;	/* struct page * | SG_CHAIN | SG_END */
	unsigned int offset;		/* into the page */
	unsigned int length;		/* bytes */
	dma_addr_t dma_address;		/* set by dma_map_sg*() */
	unsigned int dma_length;
	unsigned int dma_flags;		/* SG_DMA_* */
};

struct sg_table {
	struct scatterlist *sgl;
	unsigned int nents;
	unsigned int orig_nents;
};

struct sg_append_table {
	struct sg_table sgt;
	struct scatterlist *prv;
	unsigned int total_nents;
};

#define sg_dma_address(sg)	((sg)->dma_address)
#define sg_dma_len(sg)		((sg)->dma_length)

/* Low bits of page_link: a chain link, and the last entry of the list. */
#define SG_CHAIN		0x01UL
#define SG_END			0x02UL
#define SG_PAGE_LINK_MASK	(SG_CHAIN | SG_END)

static inline unsigned int __sg_flags(struct scatterlist *sg)
{
	return (unsigned int)(sg->page_link & (SG_CHAIN | SG_END));
}

static inline bool sg_is_chain(struct scatterlist *sg)
{
	return sg->page_link & SG_CHAIN;
}

static inline bool sg_is_last(struct scatterlist *sg)
{
	return sg->page_link & SG_END;
}

/* A chain entry's page_link is the next array, tagged SG_CHAIN. */
static inline struct scatterlist *sg_chain_ptr(struct scatterlist *sg)
{
	return (struct scatterlist *)(sg->page_link - SG_CHAIN);
}

static inline void sg_assign_page(struct scatterlist *sg, struct page *page)
{
	BUG_ON((unsigned long)page & SG_PAGE_LINK_MASK);
	sg->page_link = (unsigned long)page |
			(sg->page_link & SG_PAGE_LINK_MASK);
}

static inline void sg_set_page(struct scatterlist *sg, struct page *page,
			       unsigned int len, unsigned int offset)
{
	sg_assign_page(sg, page);
	sg->length = len;
	sg->offset = offset;
}

static inline struct page *sg_page(struct scatterlist *sg)
{
	return (struct page *)(sg->page_link & ~SG_PAGE_LINK_MASK);
}

static inline void sg_mark_end(struct scatterlist *sg)
{
	sg->page_link = (sg->page_link & ~SG_CHAIN) | SG_END;
}

static inline void sg_unmark_end(struct scatterlist *sg)
{
	sg->page_link &= ~SG_END;
}

static inline void __sg_chain(struct scatterlist *chain_sg,
			      struct scatterlist *sgl)
{
	chain_sg->offset = 0;
	chain_sg->length = 0;
	chain_sg->page_link = ((unsigned long)sgl | SG_CHAIN) & ~SG_END;
}

/* The last entry of prv becomes the link to sgl. */
static inline void sg_chain(struct scatterlist *prv, unsigned int prv_nents,
			    struct scatterlist *sgl)
{
	__sg_chain(prv + prv_nents - 1, sgl);
}

/* dma_flags bits, set by the DMA layer on mapped entries. */
#define SG_DMA_BUS_ADDRESS	(1 << 0)
#define SG_DMA_SWIOTLB		(1 << 1)

static inline bool sg_dma_is_bus_address(struct scatterlist *sg)
{
	return sg->dma_flags & SG_DMA_BUS_ADDRESS;
}

static inline void sg_dma_mark_bus_address(struct scatterlist *sg)
{
	sg->dma_flags |= SG_DMA_BUS_ADDRESS;
}

static inline void sg_dma_unmark_bus_address(struct scatterlist *sg)
{
	sg->dma_flags &= ~SG_DMA_BUS_ADDRESS;
}

static inline bool sg_dma_is_swiotlb(struct scatterlist *sg)
{
	return sg->dma_flags & SG_DMA_SWIOTLB;
}

static inline void sg_dma_mark_swiotlb(struct scatterlist *sg)
{
	sg->dma_flags |= SG_DMA_SWIOTLB;
}

static inline dma_addr_t sg_phys(struct scatterlist *sg)
{
	return ((dma_addr_t)page_to_pfn(sg_page(sg)) << PAGE_SHIFT) +
	       sg->offset;
}

static inline void *sg_virt(struct scatterlist *sg)
{
	return (char *)page_address(sg_page(sg)) + sg->offset;
}

static inline void sg_init_marker(struct scatterlist *sgl, unsigned int nents)
{
	sg_mark_end(&sgl[nents - 1]);
}

/* Entries one chunk of a table holds: a page's worth. */
#define SG_MAX_SINGLE_ALLOC	(PAGE_SIZE / sizeof(struct scatterlist))

struct scatterlist *sg_next(struct scatterlist *sg);
int sg_nents(struct scatterlist *sg);
struct scatterlist *sg_last(struct scatterlist *s, unsigned int nents);
void sg_init_table(struct scatterlist *sgl, unsigned int nents);
int sg_alloc_table(struct sg_table *table, unsigned int nents, gfp_t gfp_mask);
void sg_free_table(struct sg_table *table);

#define for_each_sg(sglist, sg, nr, __i) \
	for (__i = 0, sg = (sglist); __i < (nr); __i++, sg = sg_next(sg))

/* Every CPU-side entry of a table, mapped or not. */
#define for_each_sgtable_sg(sgt, sg, i) \
	for_each_sg((sgt)->sgl, sg, (sgt)->orig_nents, i)

/* Every DMA segment of a mapped table. */
#define for_each_sgtable_dma_sg(sgt, sg, i) \
	for_each_sg((sgt)->sgl, sg, (sgt)->nents, i)

/*
 * Page iterator: visits every page of every entry, starting pgoffset pages
 * into the list.  sg is the entry, sg_pgoffset the page within it.
 */
struct sg_page_iter {
	struct scatterlist *sg;
	unsigned int sg_pgoffset;
	unsigned int __nents;
	int __pg_advance;
};

struct sg_dma_page_iter {
	struct sg_page_iter base;
};

void __sg_page_iter_start(struct sg_page_iter *piter, struct scatterlist *sglist,
			  unsigned int nents, unsigned long pgoffset);
bool __sg_page_iter_next(struct sg_page_iter *piter);
bool __sg_page_iter_dma_next(struct sg_dma_page_iter *dma_iter);

static inline struct page *sg_page_iter_page(struct sg_page_iter *piter)
{
	/* The memmap is linear, so nth page of a block is pointer arithmetic. */
	return sg_page(piter->sg) + piter->sg_pgoffset;
}

static inline dma_addr_t
sg_page_iter_dma_address(struct sg_dma_page_iter *dma_iter)
{
	return sg_dma_address(dma_iter->base.sg) +
	       ((dma_addr_t)dma_iter->base.sg_pgoffset << PAGE_SHIFT);
}

#define for_each_sg_page(sglist, piter, nents, pgoffset)		\
	for (__sg_page_iter_start((piter), (sglist), (nents), (pgoffset)); \
	     __sg_page_iter_next(piter);)

#define for_each_sg_dma_page(sglist, dma_iter, dma_nents, pgoffset)	\
	for (__sg_page_iter_start(&(dma_iter)->base, (sglist), (dma_nents), \
				  (pgoffset));				\
	     __sg_page_iter_dma_next(dma_iter);)

#define for_each_sgtable_page(sgt, piter, pgoffset) \
	for_each_sg_page((sgt)->sgl, piter, (sgt)->orig_nents, pgoffset)

#define for_each_sgtable_dma_page(sgt, dma_iter, pgoffset) \
	for_each_sg_dma_page((sgt)->sgl, dma_iter, (sgt)->nents, pgoffset)

#endif
