/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/mm_inline.h>: only num_pages_contiguous() (mainline, used by
 * vfio type1 to batch physically contiguous pinned pages; the kernel
 * declares it in <linux/mm.h>, which includes this file).
 * (a) Definition that must match the kernel: the number of leading entries
 *     of pages[] that are consecutive struct pages, i.e. consecutive pfns
 *     (at least 1; nr_pages must be at least 1).  The kernel also stops at
 *     a memory-section boundary, where the memmap need not be contiguous;
 *     the simulated memmap is one flat array (SPARSEMEM_VMEMMAP-like), so
 *     pointer contiguity is pfn contiguity everywhere.
 * (b) Simplified for the simulated layout: a run never steps onto or off
 *     the shared zero page.  The kernel's zero page lies in the kernel image
 *     (empty_zero_page), which no page a process can pin adjoins, so no
 *     kernel run ever crosses it; the sim's zero page is an ordinary buddy
 *     page that may follow a THP folio, and without this cut type1 would
 *     count it into the folio's run and charge it to locked_vm (the
 *     fuzz/corpus/type1 input 4d7e082c... does exactly that).
 */
#ifndef _DMASIM_LINUX_MM_INLINE_H
#define _DMASIM_LINUX_MM_INLINE_H

#include <linux/mm.h>
#include <linux/types.h>

static inline size_t num_pages_contiguous(struct page **pages, size_t nr_pages)
{
	size_t n = 1;

	while (n < nr_pages && pages[n] == pages[0] + n &&
	       is_zero_page(pages[n]) == is_zero_page(pages[0]))
		n++;
	return n;
}

#endif
