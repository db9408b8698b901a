// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points for the page allocator and page helpers
 * (include/dmasim/kapi_mm_page.h): each calls the kernel API by its kernel
 * name, so tests exercise the same shim code kernel files do.
 */
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <dmasim/kapi_mm_page.h>
#include <dmasim/sim.h>

#define GFP_NAME(x) { #x, (__force unsigned int)(x) }

static const struct {
	const char *name;
	unsigned int value;
} gfp_names[] = {
	GFP_NAME(GFP_KERNEL), GFP_NAME(GFP_KERNEL_ACCOUNT),
	GFP_NAME(GFP_ATOMIC), GFP_NAME(GFP_NOWAIT), GFP_NAME(GFP_NOIO),
	GFP_NAME(GFP_NOFS), GFP_NAME(GFP_USER), GFP_NAME(GFP_DMA),
	GFP_NAME(GFP_DMA32), GFP_NAME(GFP_HIGHUSER),
	GFP_NAME(GFP_HIGHUSER_MOVABLE), GFP_NAME(GFP_TRANSHUGE_LIGHT),
	GFP_NAME(GFP_TRANSHUGE),
	GFP_NAME(__GFP_DMA), GFP_NAME(__GFP_HIGHMEM), GFP_NAME(__GFP_DMA32),
	GFP_NAME(__GFP_MOVABLE), GFP_NAME(__GFP_RECLAIMABLE),
	GFP_NAME(__GFP_HIGH), GFP_NAME(__GFP_IO), GFP_NAME(__GFP_FS),
	GFP_NAME(__GFP_ZERO), GFP_NAME(__GFP_DIRECT_RECLAIM),
	GFP_NAME(__GFP_KSWAPD_RECLAIM), GFP_NAME(__GFP_RECLAIM),
	GFP_NAME(__GFP_NOWARN), GFP_NAME(__GFP_RETRY_MAYFAIL),
	GFP_NAME(__GFP_NOFAIL), GFP_NAME(__GFP_NORETRY), GFP_NAME(__GFP_COMP),
	GFP_NAME(__GFP_ACCOUNT), GFP_NAME(__GFP_NOMEMALLOC),
	GFP_NAME(__GFP_THISNODE),
};

unsigned int kapi_gfp(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gfp_names); i++)
		if (!strcmp(gfp_names[i].name, name))
			return gfp_names[i].value;
	return ~0u;
}

static inline struct page *to_page(struct sim_page *page)
{
	return (struct page *)page;
}

static inline gfp_t to_gfp(unsigned int gfp)
{
	return (__force gfp_t)gfp;
}

struct sim_page *kapi_alloc_pages(unsigned int gfp, unsigned int order)
{
	return (struct sim_page *)alloc_pages(to_gfp(gfp), order);
}

struct sim_page *kapi_folio_alloc(unsigned int gfp, unsigned int order)
{
	struct folio *folio = folio_alloc(to_gfp(gfp), order);

	return folio ? (struct sim_page *)folio_page(folio, 0) : NULL;
}

void kapi___free_pages(struct sim_page *page, unsigned int order)
{
	__free_pages(to_page(page), order);
}

unsigned long kapi___get_free_pages(unsigned int gfp, unsigned int order)
{
	return __get_free_pages(to_gfp(gfp), order);
}

unsigned long kapi_get_zeroed_page(unsigned int gfp)
{
	return get_zeroed_page(to_gfp(gfp));
}

void kapi_free_pages(unsigned long addr, unsigned int order)
{
	free_pages(addr, order);
}

void kapi_get_page(struct sim_page *page)
{
	get_page(to_page(page));
}

void kapi_put_page(struct sim_page *page)
{
	put_page(to_page(page));
}

void kapi_split_page(struct sim_page *page, unsigned int order)
{
	split_page(to_page(page), order);
}

void kapi_set_page_reserved(struct sim_page *page, int reserved)
{
	if (reserved)
		SetPageReserved(to_page(page));
	else
		ClearPageReserved(to_page(page));
}

void kapi_page_info(struct sim_page *sp, struct kapi_page_info *info)
{
	struct page *page = to_page(sp);
	struct page *head = compound_head(page);

	info->pfn = page_to_pfn(page);
	info->pfn_valid = pfn_valid(info->pfn);
	info->reserved = PageReserved(page);
	info->head = PageHead(page);
	info->tail = PageTail(page);
	info->compound = PageCompound(page);
	info->head_pfn = page_to_pfn(head);
	info->compound_order = compound_order(head);
	info->size = page_size(head);
	info->folio_nr_pages = folio_nr_pages(page_folio(page));
	info->ref_count = page_ref_count(page);
	info->count = page_count(page);
	info->address_round_trips = virt_to_page(page_address(page)) == page &&
				    kmap_local_page(page) == page_address(page);
}

int kapi_pfn_valid(unsigned long pfn)
{
	return pfn_valid(pfn);
}

int kapi_get_order(unsigned long size)
{
	return get_order(size);
}

void *kapi_vmalloc(unsigned long size)
{
	return vmalloc(size);
}

void *kapi_vzalloc(unsigned long size)
{
	return vzalloc(size);
}

void kapi_vfree(const void *addr)
{
	vfree(addr);
}

void *kapi_vmap(struct sim_page **pages, unsigned int count)
{
	return vmap((struct page **)pages, count, VM_MAP, PAGE_KERNEL);
}

void kapi_vunmap(const void *addr)
{
	vunmap(addr);
}
