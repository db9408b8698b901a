/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's page allocator API (<linux/gfp.h>), backed by the simulated
 * buddy allocator (sim/buddy.c) through kernel_shim/page_alloc.c.
 *
 * (a) Definitions that must match the kernel: the GFP bits
 *     (<linux/gfp_types.h>), the 6.12 signatures, gfp_zone() and
 *     gfp_migratetype() (no HIGHMEM: __GFP_HIGHMEM alone means Normal,
 *     with __GFP_MOVABLE it means ZONE_MOVABLE), alloc_pages() returning a
 *     page with refcount 1, __GFP_COMP making a compound page,
 *     __free_pages() dropping one reference (and, on a non-compound
 *     high-order page with other references, freeing all but the first
 *     page, as 6.12 does).
 * (b) Simplified: one node, so the _node variants ignore nid.  The gfp ->
 *     simulator translation (which bits matter: zone, migratetype, zeroing,
 *     compound, reclaim, NORETRY, NOWARN) is in one place, page_alloc.c.
 * (c) Every allocating call asks a fault point first:
 *     "shim/mm/alloc_pages" (alloc_pages, alloc_pages_node, folio_alloc) and
 *     "shim/mm/get_free_page" (__get_free_pages, get_zeroed_page).
 */
#ifndef _DMASIM_LINUX_GFP_H
#define _DMASIM_LINUX_GFP_H

#include <linux/gfp_types.h>
#include <linux/mmzone.h>
#include <linux/types.h>
#include <shim/page_types.h>

#define NUMA_NO_NODE	(-1)
#define GFP_MOVABLE_MASK	(__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define GFP_MOVABLE_SHIFT	3

struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct folio *folio_alloc(gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp_mask, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp_mask);
/* Make a non-compound high-order page into 1 << order order-0 pages. */
void split_page(struct page *page, unsigned int order);

#define alloc_page(gfp_mask)		alloc_pages(gfp_mask, 0)
#define __get_free_page(gfp_mask)	__get_free_pages((gfp_mask), 0)
#define __free_page(page)		__free_pages((page), 0)
#define free_page(addr)			free_pages((addr), 0)

static inline struct page *alloc_pages_node(int nid, gfp_t gfp,
					    unsigned int order)
{
	return alloc_pages(gfp, order);
}

static inline struct page *__alloc_pages_node(int nid, gfp_t gfp,
					      unsigned int order)
{
	return alloc_pages(gfp, order);
}

static inline int gfp_migratetype(const gfp_t gfp_flags)
{
	return (__force unsigned int)(gfp_flags & GFP_MOVABLE_MASK) >> GFP_MOVABLE_SHIFT;
}

static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

static inline enum zone_type gfp_zone(gfp_t flags)
{
	if (flags & __GFP_DMA)
		return ZONE_DMA;
	if (flags & __GFP_DMA32)
		return ZONE_DMA32;
	if ((flags & (__GFP_HIGHMEM | __GFP_MOVABLE)) ==
	    (__GFP_HIGHMEM | __GFP_MOVABLE))
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

#endif
