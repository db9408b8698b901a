/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <asm/page.h> for the simulated machine.
 *
 * (a) Definitions that must match the kernel: PAGE_SHIFT (12, or 14/16 for
 *     an arm64-like build: DMASIM_PAGE_SHIFT), PAGE_SIZE, PAGE_MASK,
 *     get_order() (asm-generic/getorder.h's contract, size 0 included),
 *     pgprot_t and PAGE_KERNEL (x86-64's __PAGE_KERNEL bits: present, rw,
 *     accessed, dirty, global, nx).  pgprot_t lives here rather than in
 *     asm/pgtable_types.h so that the page-allocation and vmap shims do not
 *     depend on the page-table headers (which another part of the shim owns).
 *     PFN_PHYS()/PHYS_PFN() come along from <linux/pfn.h>, as through the
 *     kernel's asm-generic/memory_model.h.
 * (b) The direct map is the simulator's (sim/physmem.c): __va()/__pa()
 *     translate through it; virt_addr_valid() is true for RAM in it only.
 *     clear_page()/copy_page() are the C library's memset/memcpy.
 */
#ifndef _DMASIM_ASM_PAGE_H
#define _DMASIM_ASM_PAGE_H

#include <linux/const.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>

#include <dmasim/sim.h>

#define PAGE_SHIFT		DMASIM_PAGE_SHIFT
#define PAGE_SIZE		(_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))

typedef struct {
	unsigned long pgprot;
} pgprot_t;

#define pgprot_val(x)		((x).pgprot)
#define __pgprot(x)		((pgprot_t) { (x) })

#ifndef PAGE_KERNEL
/* _PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_GLOBAL | _PAGE_NX */
#define PAGE_KERNEL		__pgprot(0x163UL | (1UL << 63))
#define PAGE_KERNEL_RO		__pgprot(0x161UL | (1UL << 63))
#endif

#define __pa(x)			((phys_addr_t)sim_virt_to_phys((const void *)(x)))
#define __va(x)			((void *)sim_phys_to_virt((sim_phys_t)(x)))
#define virt_addr_valid(kaddr)	(sim_virt_to_page((const void *)(kaddr)) != NULL)

static inline void clear_page(void *page)
{
	memset(page, 0, PAGE_SIZE);
}

static inline void copy_page(void *to, void *from)
{
	memcpy(to, from, PAGE_SIZE);
}

/* The order of the smallest power-of-two number of pages holding size. */
static inline __attribute__((__const__)) int get_order(unsigned long size)
{
	if (!size)
		return BITS_PER_LONG - PAGE_SHIFT;
	if (size <= PAGE_SIZE)
		return 0;
	return fls_long((size - 1) >> PAGE_SHIFT);
}

/* The kernel's asm/page.h makes PFN_PHYS() and friends visible too. */
#include <linux/pfn.h>

#endif
