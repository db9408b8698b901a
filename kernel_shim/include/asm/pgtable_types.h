/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 page-table entry types and bits (<asm/pgtable_types.h>).
 *
 * (a) Definitions that must match the kernel: pgd_t/p4d_t/pud_t/pmd_t/pte_t
 *     as one-word structs (pgprot_t and PAGE_KERNEL come from <asm/page.h>),
 *     the _PAGE_BIT_* positions (present,
 *     rw, user, accessed, dirty, PSE, special = software bit 1), and the
 *     PAGE_* protections built from them.  The bits are also the sim's
 *     entry format (include/dmasim/sim_mm.h), asserted below.
 * Simplified: no PAT/PCD/PWT caching bits, no encryption bit, no
 * 5-level paging (P4D folded).
 */
#ifndef _DMASIM_ASM_PGTABLE_TYPES_H
#define _DMASIM_ASM_PGTABLE_TYPES_H

#include <dmasim/sim.h>
#include <linux/build_bug.h>
#include <linux/const.h>
#include <linux/types.h>
#include <asm/pgtable_64_types.h>
#include <asm/page.h>	/* PAGE_SHIFT, pgprot_t, PAGE_KERNEL */

enum {
	_PAGE_BIT_PRESENT, _PAGE_BIT_RW, _PAGE_BIT_USER, _PAGE_BIT_PWT,
	_PAGE_BIT_PCD, _PAGE_BIT_ACCESSED, _PAGE_BIT_DIRTY, _PAGE_BIT_PSE,
	_PAGE_BIT_GLOBAL, _PAGE_BIT_SOFTW1,	/* bits 0 .. 9 */
};
#define _PAGE_BIT_SPECIAL	_PAGE_BIT_SOFTW1

#define _PAGE_PRESENT	(1UL << _PAGE_BIT_PRESENT)
#define _PAGE_RW	(1UL << _PAGE_BIT_RW)
#define _PAGE_USER	(1UL << _PAGE_BIT_USER)
#define _PAGE_PWT	(1UL << _PAGE_BIT_PWT)
#define _PAGE_PCD	(1UL << _PAGE_BIT_PCD)
#define _PAGE_ACCESSED	(1UL << _PAGE_BIT_ACCESSED)
#define _PAGE_DIRTY	(1UL << _PAGE_BIT_DIRTY)
#define _PAGE_PSE	(1UL << _PAGE_BIT_PSE)
#define _PAGE_GLOBAL	(1UL << _PAGE_BIT_GLOBAL)
#define _PAGE_SPECIAL	(1UL << _PAGE_BIT_SPECIAL)
#define _PAGE_NX	(1UL << 63)
#define _PAGE_PROTNONE	_PAGE_GLOBAL	/* only with _PAGE_PRESENT clear */
#define _PAGE_BIT_DEVMAP	58	/* _PAGE_BIT_SOFTW4 */
#define _PAGE_DEVMAP	(1UL << _PAGE_BIT_DEVMAP)


typedef unsigned long pteval_t, pmdval_t, pudval_t, p4dval_t, pgdval_t;
typedef unsigned long pgprotval_t;

typedef struct { pteval_t pte; } pte_t;
typedef struct { pmdval_t pmd; } pmd_t;
typedef struct { pudval_t pud; } pud_t;
typedef struct { p4dval_t p4d; } p4d_t;
typedef struct { pgdval_t pgd; } pgd_t;

#define pte_val(x)	((x).pte)
#define pmd_val(x)	((x).pmd)
#define pud_val(x)	((x).pud)
#define p4d_val(x)	((x).p4d)
#define pgd_val(x)	((x).pgd)
#define __pte(x)	((pte_t) { (x) })
#define __pmd(x)	((pmd_t) { (x) })
#define __pud(x)	((pud_t) { (x) })
#define __p4d(x)	((p4d_t) { (x) })
#define __pgd(x)	((pgd_t) { (x) })
#define __pg(x)		__pgprot(x)

/* The pfn field of an entry (bits PAGE_SHIFT..51). */
#define PTE_PFN_MASK	((pteval_t)SIM_PTE_ADDR_MASK)
#define PTE_FLAGS_MASK	(~PTE_PFN_MASK)

#define PAGE_NONE	__pg(0)
#define PAGE_SHARED	__pg(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED)
#define PAGE_SHARED_EXEC PAGE_SHARED
#define PAGE_COPY	__pg(_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED)
#define PAGE_READONLY	PAGE_COPY
#define PAGE_READONLY_EXEC PAGE_COPY

static_assert(_PAGE_PRESENT == SIM_PTE_PRESENT && _PAGE_RW == SIM_PTE_WRITE &&
	      _PAGE_USER == SIM_PTE_USER && _PAGE_PSE == SIM_PTE_PSE &&
	      _PAGE_SPECIAL == SIM_PTE_SPECIAL &&
	      _PAGE_ACCESSED == SIM_PTE_ACCESSED && _PAGE_DIRTY == SIM_PTE_DIRTY &&
	      _PAGE_PROTNONE == SIM_PTE_PROTNONE && _PAGE_DEVMAP == SIM_PTE_DEVMAP,
	      "x86 entry bits and the sim's entry format differ");

#endif
