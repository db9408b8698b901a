/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pages and the memmap: the part of <linux/mm.h> (and <linux/page-flags.h>,
 * <linux/page_ref.h>, <asm/memory_model.h>) about struct page.
 *
 * (a) Definitions that must match the kernel's contracts: page_to_pfn() and
 *     pfn_to_page() go through the simulator's memory sections (as
 *     SPARSEMEM without VMEMMAP: a pfn's section gives its memmap), so
 *     page + n is the page of pfn + n only within a RAM range, and
 *     nth_page() goes through the pfn, as the kernel's does there;
 *     pfn_valid() is true for RAM only (BARs have no struct page);
 *     pfn_valid() counts SIM_CNT_PFN_VALID (the cost model: the kernel
 *     code's per-pfn checks, type1's put_pfn() of a reserved run);
 *     compound pages (head/tail, compound_head(), compound_order()); folios
 *     as views of head pages; reference counts: alloc_pages() returns a
 *     page with refcount 1, put_page() on the last reference frees the
 *     whole compound page.
 * (b) Simplified: page flags are the simulator's SIM_PG_* bits under
 *     kernel names (PG_reserved, PG_head, PG_dirty; the values differ from
 *     the kernel's, only the accessors are used); PageTail() reads a flag
 *     as well as compound_head bit 0.  page_address() is the simulator's
 *     direct map and marks the page's data as possibly nonzero
 *     (SIM_PG_TOUCHED) so __GFP_ZERO knows what to clear.  One node
 *     (page_to_nid() is 0).
 */
#ifndef _DMASIM_SHIM_MM_PAGE_H
#define _DMASIM_SHIM_MM_PAGE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/pfn.h>
#include <linux/types.h>
#include <asm/page.h>
#include <shim/page_types.h>

#include <dmasim/sim.h>

#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)
#define PAGE_ALIGN_DOWN(addr)	ALIGN_DOWN(addr, PAGE_SIZE)
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

/* ---- the memmap ---- */
#define page_to_pfn(page)	sim_page_to_pfn((const struct sim_page *)(page))
#define pfn_to_page(pfn)	((struct page *)sim_pfn_to_page(pfn))
#define page_to_phys(page)	PFN_PHYS(page_to_pfn(page))
#define phys_to_page(phys)	pfn_to_page(PHYS_PFN(phys))
#define nth_page(page, n)	pfn_to_page(page_to_pfn(page) + (n))

static inline int page_to_nid(const struct page *page)
{
	return 0;
}

static inline int pfn_valid(unsigned long pfn)
{
	sim_count(SIM_CNT_PFN_VALID, 1);
	return sim_pfn_valid(pfn);
}

static inline void *page_address(const struct page *page)
{
	return sim_page_address((struct sim_page *)page);
}

#define lowmem_page_address(page)	page_address(page)
#define virt_to_page(addr)	((struct page *)sim_virt_to_page((const void *)(addr)))
#define virt_to_pfn(addr)	PHYS_PFN(__pa(addr))
#define pfn_to_virt(pfn)	__va(PFN_PHYS(pfn))

/* ---- page flags ---- */
enum pageflags {
	PG_reserved = SIM_PG_RESERVED,
	PG_head = SIM_PG_HEAD,
	PG_dirty = SIM_PG_DIRTY,
};

#define DMASIM_PAGEFLAG(Name, bit)					\
static inline bool Page##Name(const struct page *page)			\
{									\
	return test_bit(bit, &page->flags);				\
}									\
static inline void SetPage##Name(struct page *page)			\
{									\
	set_bit(bit, &page->flags);					\
}									\
static inline void __SetPage##Name(struct page *page)			\
{									\
	page->flags |= 1UL << (bit);					\
}									\
static inline void ClearPage##Name(struct page *page)			\
{									\
	clear_bit(bit, &page->flags);					\
}									\
static inline void __ClearPage##Name(struct page *page)			\
{									\
	page->flags &= ~(1UL << (bit));					\
}
DMASIM_PAGEFLAG(Reserved, PG_reserved)
DMASIM_PAGEFLAG(Dirty, PG_dirty)
#undef DMASIM_PAGEFLAG

static inline bool PageHead(const struct page *page)
{
	return (page->flags >> PG_head) & 1;
}

static inline bool PageTail(const struct page *page)
{
	return (page->compound_head & 1) ||
	       ((page->flags >> SIM_PG_TAIL) & 1);
}

static inline bool PageCompound(const struct page *page)
{
	return PageHead(page) || PageTail(page);
}

static inline unsigned long _compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (head & 1)
		return head - 1;
	return (unsigned long)page;
}

#define compound_head(page)	((typeof(page))_compound_head(page))

static inline unsigned int compound_order(const struct page *page)
{
	if (!PageHead(page))
		return 0;
	return page->_dmasim_compound_order;
}

static inline unsigned long compound_nr(const struct page *page)
{
	return 1UL << compound_order(page);
}

static inline unsigned long page_size(const struct page *page)
{
	return PAGE_SIZE << compound_order(page);
}

static inline unsigned int page_shift(const struct page *page)
{
	return PAGE_SHIFT + compound_order(page);
}

/* ---- folios: views of head pages ---- */
#define page_folio(p)		((struct folio *)_compound_head(p))
#define folio_page(folio, n)	(&(folio)->page + (n))

static inline unsigned int folio_order(const struct folio *folio)
{
	return compound_order(&folio->page);
}

static inline long folio_nr_pages(const struct folio *folio)
{
	return 1L << folio_order(folio);
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline bool folio_test_large(const struct folio *folio)
{
	return PageHead(&folio->page);
}

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

static inline void *folio_address(const struct folio *folio)
{
	return page_address(&folio->page);
}

/* ---- reference counts ---- */
static inline int page_ref_count(const struct page *page)
{
	return atomic_read(&page->_refcount);
}

static inline void set_page_count(struct page *page, int v)
{
	atomic_set(&page->_refcount, v);
}

static inline void page_ref_inc(struct page *page)
{
	atomic_inc(&page->_refcount);
}

static inline bool page_ref_dec_and_test(struct page *page)
{
	return atomic_dec_and_test(&page->_refcount);
}

static inline int folio_ref_count(const struct folio *folio)
{
	return page_ref_count(&folio->page);
}

/* The folio's references: its head page's count. */
static inline int page_count(const struct page *page)
{
	return page_ref_count(compound_head(page));
}

static inline bool put_page_testzero(struct page *page)
{
	WARN_ON(page_ref_count(page) <= 0);
	return page_ref_dec_and_test(page);
}

static inline bool get_page_unless_zero(struct page *page)
{
	return atomic_inc_not_zero(&page->_refcount);
}

/* Frees a folio whose last reference went (kernel_shim/page_alloc.c). */
void __folio_put(struct folio *folio);

static inline void folio_get(struct folio *folio)
{
	WARN_ON(folio_ref_count(folio) <= 0);
	page_ref_inc(&folio->page);
}

static inline void folio_put(struct folio *folio)
{
	if (put_page_testzero(&folio->page))
		__folio_put(folio);
}

static inline void get_page(struct page *page)
{
	folio_get(page_folio(page));
}

static inline void put_page(struct page *page)
{
	folio_put(page_folio(page));
}

#endif
