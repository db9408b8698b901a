/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into the simulated kernel's page allocator
 * and page helpers (kapi/kapi_page.c), so tests can call
 * alloc_pages(), __free_pages(), put_page(), vmap() ... exactly as kernel
 * code does, with kernel gfp flags, and read what the kernel's own helpers
 * (compound_head(), page_size(), folio_nr_pages() ...) say about a page.
 *
 * Pages are passed as struct sim_page * (the same bytes as the kernel's
 * struct page).  gfp values come from kapi_gfp(): "GFP_KERNEL",
 * "GFP_HIGHUSER", "__GFP_ZERO", ... combined with |.
 */
#ifndef DMASIM_KAPI_MM_PAGE_H
#define DMASIM_KAPI_MM_PAGE_H

#include <dmasim/sim.h>

/* The kernel's value of a GFP flag or mask by name; ~0u if unknown. */
unsigned int kapi_gfp(const char *name);

struct sim_page *kapi_alloc_pages(unsigned int gfp, unsigned int order);
struct sim_page *kapi_folio_alloc(unsigned int gfp, unsigned int order);
void kapi___free_pages(struct sim_page *page, unsigned int order);
unsigned long kapi___get_free_pages(unsigned int gfp, unsigned int order);
unsigned long kapi_get_zeroed_page(unsigned int gfp);
void kapi_free_pages(unsigned long addr, unsigned int order);
void kapi_get_page(struct sim_page *page);
void kapi_put_page(struct sim_page *page);
void kapi_split_page(struct sim_page *page, unsigned int order);
void kapi_set_page_reserved(struct sim_page *page, int reserved);

/* What the kernel's page helpers say about a page. */
struct kapi_page_info {
	unsigned long pfn;		/* page_to_pfn() */
	int pfn_valid;			/* pfn_valid(pfn) */
	int reserved;			/* PageReserved() */
	int head, tail, compound;	/* PageHead(), PageTail(), PageCompound() */
	unsigned long head_pfn;		/* page_to_pfn(compound_head()) */
	unsigned int compound_order;	/* compound_order(compound_head()) */
	unsigned long size;		/* page_size(compound_head()) */
	long folio_nr_pages;		/* folio_nr_pages(page_folio()) */
	int ref_count;			/* page_ref_count() */
	int count;			/* page_count() (the folio's) */
	int address_round_trips;	/* virt_to_page(page_address()) == page */
};
void kapi_page_info(struct sim_page *page, struct kapi_page_info *info);
/* pfn_valid() of any pfn. */
int kapi_pfn_valid(unsigned long pfn);
/* get_order(size). */
int kapi_get_order(unsigned long size);

void *kapi_vmalloc(unsigned long size);
void *kapi_vzalloc(unsigned long size);
void kapi_vfree(const void *addr);
void *kapi_vmap(struct sim_page **pages, unsigned int count);
void kapi_vunmap(const void *addr);

#endif
