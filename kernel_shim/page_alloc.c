// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page allocator API over the simulated buddy allocator.
 *
 * This file holds the one translation of gfp_t into the simulator's
 * SIM_GFP_* flags (gfp_to_sim()); nothing else decides what a GFP bit does:
 *
 *   __GFP_ZERO            -> SIM_GFP_ZERO (touched pages cleared, all counted)
 *   __GFP_COMP            -> SIM_GFP_COMP (head/tail pages set up)
 *   __GFP_MOVABLE         -> SIM_GFP_MOVABLE      (migratetype movable)
 *   __GFP_RECLAIMABLE     -> SIM_GFP_RECLAIMABLE  (migratetype reclaimable)
 *                            neither: unmovable (GFP_KERNEL, GFP_HIGHUSER)
 *   __GFP_DMA, __GFP_DMA32 -> SIM_GFP_DMA32 (ZONE_DMA32 only; no ZONE_DMA)
 *   __GFP_DIRECT_RECLAIM  -> SIM_GFP_DIRECT_RECLAIM (reclaim aged page cache)
 *   __GFP_IO              -> SIM_GFP_COMPACT (the kernel's
 *                            gfp_compaction_allowed(): CONFIG_COMPACTION,
 *                            as Debian builds it, and __GFP_IO; direct
 *                            compaction needs __GFP_DIRECT_RECLAIM too)
 *   __GFP_THISNODE        -> SIM_GFP_THISNODE (one node: only the slow
 *                            path's NORETRY rule, compaction without reclaim)
 *   __GFP_RETRY_MAYFAIL   -> SIM_GFP_RETRY_MAYFAIL (reclaim + compaction retried)
 *   __GFP_KSWAPD_RECLAIM  -> SIM_GFP_KSWAPD_RECLAIM (accepted, no kswapd)
 *   __GFP_NORETRY         -> SIM_GFP_NORETRY (one reclaim round at most)
 *   __GFP_NOWARN          -> SIM_GFP_NOWARN (no allocation-failure report)
 *   __GFP_ACCOUNT         -> SIM_GFP_ACCOUNT (no memcg: recorded only)
 *   __GFP_HIGHMEM, __GFP_FS, __GFP_HARDWALL, __GFP_HIGH, __GFP_MEMALLOC,
 *   __GFP_NOMEMALLOC ... -> no effect
 *   __GFP_NOFAIL          -> as __GFP_DIRECT_RECLAIM; a failure WARNs and
 *                            returns NULL (the kernel would loop forever)
 *
 * A failed allocation without __GFP_NOWARN logs "page allocation failure"
 * at KERN_WARNING, as warn_alloc() does; order > MAX_PAGE_ORDER WARNs once
 * (unless __GFP_NOWARN) and fails.  __free_pages() of a compound page with
 * an order other than its own WARNs and frees the compound order (the kernel
 * has a VM_BUG_ON there).
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/printk.h>

#include <dmasim/sim.h>

static unsigned int gfp_to_sim(gfp_t gfp)
{
	unsigned int sim = 0;

	if (gfp & __GFP_ZERO)
		sim |= SIM_GFP_ZERO;
	if (gfp & __GFP_COMP)
		sim |= SIM_GFP_COMP;
	if (gfp & __GFP_MOVABLE)
		sim |= SIM_GFP_MOVABLE;
	else if (gfp & __GFP_RECLAIMABLE)
		sim |= SIM_GFP_RECLAIMABLE;
	if (gfp & (__GFP_DMA | __GFP_DMA32))
		sim |= SIM_GFP_DMA32;
	if (gfp & (__GFP_DIRECT_RECLAIM | __GFP_NOFAIL))
		sim |= SIM_GFP_DIRECT_RECLAIM;
	if (gfp & __GFP_KSWAPD_RECLAIM)
		sim |= SIM_GFP_KSWAPD_RECLAIM;
	if (gfp & __GFP_IO)
		sim |= SIM_GFP_COMPACT;
	if (gfp & __GFP_THISNODE)
		sim |= SIM_GFP_THISNODE;
	if (gfp & __GFP_RETRY_MAYFAIL)
		sim |= SIM_GFP_RETRY_MAYFAIL;
	if (gfp & __GFP_NORETRY)
		sim |= SIM_GFP_NORETRY;
	if (gfp & __GFP_NOWARN)
		sim |= SIM_GFP_NOWARN;
	if (gfp & __GFP_ACCOUNT)
		sim |= SIM_GFP_ACCOUNT;
	return sim;
}

static struct page *page_alloc(gfp_t gfp, unsigned int order)
{
	struct page *page;

	if (order > MAX_PAGE_ORDER) {
		if (!(gfp & __GFP_NOWARN))
			WARN_ON_ONCE(order > MAX_PAGE_ORDER);
		sim_count(SIM_CNT_ALLOC_FAIL, 1);
		return NULL;
	}
	page = (struct page *)sim_buddy_alloc(order, gfp_to_sim(gfp));
	if (page)
		return page;
	if (gfp & __GFP_NOFAIL)
		WARN(1, "__GFP_NOFAIL allocation of order %u failed\n", order);
	else if (!(gfp & __GFP_NOWARN))
		pr_warn("page allocation failure: order:%u, mode:%#x\n",
			order, (__force unsigned int)gfp);
	return NULL;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	if (sim_should_fail(SIM_FP_ALLOC_PAGES))
		return NULL;
	return page_alloc(gfp, order);
}

struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{
	return (struct folio *)alloc_pages(gfp | __GFP_COMP, order);
}

static void free_the_pages(struct page *page, unsigned int order)
{
	sim_buddy_free((struct sim_page *)page, order);
}

void __free_pages(struct page *page, unsigned int order)
{
	bool head;

	if (WARN(PageTail(page), "%s() of a tail page (pfn %#lx)\n",
		 __func__, page_to_pfn(page)))
		return;
	head = PageHead(page);
	if (head && order != compound_order(page)) {
		WARN(1, "%s(order %u) of a compound page of order %u\n",
		     __func__, order, compound_order(page));
		order = compound_order(page);
	}
	if (WARN(page_ref_count(page) <= 0, "%s() of a free page (pfn %#lx)\n",
		 __func__, page_to_pfn(page)))
		return;
	if (page_ref_dec_and_test(page)) {
		free_the_pages(page, order);
		return;
	}
	/* Someone else holds the first page: free the rest of the block. */
	if (!head)
		while (order-- > 0)
			free_the_pages(page + (1UL << order), order);
}

void __folio_put(struct folio *folio)
{
	free_the_pages(&folio->page, folio_order(folio));
}

unsigned long __get_free_pages(gfp_t gfp_mask, unsigned int order)
{
	struct page *page;

	if (sim_should_fail(SIM_FP_GET_FREE_PAGE))
		return 0;
	page = page_alloc(gfp_mask & ~__GFP_HIGHMEM, order);
	if (!page)
		return 0;
	return (unsigned long)page_address(page);
}

unsigned long get_zeroed_page(gfp_t gfp_mask)
{
	return __get_free_pages(gfp_mask | __GFP_ZERO, 0);
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (!addr)
		return;
	if (WARN(!virt_addr_valid(addr), "%s() of %#lx\n", __func__, addr))
		return;
	__free_pages(virt_to_page(addr), order);
}

void split_page(struct page *page, unsigned int order)
{
	unsigned long i;

	if (WARN_ON(PageCompound(page)) || WARN_ON(!page_ref_count(page)))
		return;
	for (i = 1; i < (1UL << order); i++)
		set_page_count(page + i, 1);
}
