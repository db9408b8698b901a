/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/highmem.h> on a 64-bit machine without HIGHMEM:
 * every page is in the direct map, so kmap*() is page_address() and the
 * unmaps do nothing.
 *
 * (a) Definitions that must match the kernel's contract: kmap_local_page()
 *     and friends return the page's data; clear_highpage() zeroes it.
 * (b) Stubs that do nothing on purpose: kunmap*() and flush_dcache_page():
 *     the simulated machine's caches are coherent (x86 needs none either).
 * (c) Checked: flush_kernel_vmap_range() and invalidate_kernel_vmap_range()
 *     maintain nothing either, but on an aliasing-cache architecture (arm,
 *     parisc) they write back or drop the lines of a kernel vmap, so the
 *     range must be a live vmap: the simulator counts the calls and WARNs
 *     for a range no live vmap covers (sim_vmap_maintain()).
 */
#ifndef _DMASIM_LINUX_HIGHMEM_H
#define _DMASIM_LINUX_HIGHMEM_H

#include <linux/mm.h>
#include <linux/string.h>
#include <dmasim/sim_mem.h>

static inline void *kmap(struct page *page)
{
	return page_address(page);
}

static inline void kunmap(struct page *page)
{
}

static inline void *kmap_local_page(struct page *page)
{
	return page_address(page);
}

static inline void *kmap_atomic(struct page *page)
{
	return page_address(page);
}

#define kunmap_local(addr)	((void)(addr))
#define kunmap_atomic(addr)	((void)(addr))

static inline void *kmap_local_folio(struct folio *folio, size_t offset)
{
	return (char *)folio_address(folio) + offset;
}

static inline void clear_highpage(struct page *page)
{
	clear_page(kmap_local_page(page));
}

static inline void memcpy_from_page(char *to, struct page *page,
				    size_t offset, size_t len)
{
	memcpy(to, (char *)kmap_local_page(page) + offset, len);
}

static inline void memcpy_to_page(struct page *page, size_t offset,
				  const char *from, size_t len)
{
	memcpy((char *)kmap_local_page(page) + offset, from, len);
}

static inline void flush_kernel_vmap_range(void *vaddr, int size)
{
	sim_vmap_maintain(vaddr, size);
}

static inline void invalidate_kernel_vmap_range(void *vaddr, int size)
{
	sim_vmap_maintain(vaddr, size);
}

static inline void flush_dcache_page(struct page *page)
{
}

#endif
