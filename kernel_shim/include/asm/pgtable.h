/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 page-table entry accessors (<asm/pgtable.h>), reading the sim's
 * tables directly (plain loads of 64-bit words; the format is in
 * include/dmasim/sim_mm.h).
 *
 * (a) Definitions that must match the kernel: *_present, *_none, *_leaf,
 *     *_pfn, *_write, *_special, *_pgprot, pte_mk*, pfn_pte and friends,
 *     with x86's meaning (a PUD/PMD entry with PSE set is a leaf; pfn bits
 *     PAGE_SHIFT..51).
 * (c) Test double: pud_leaf_size()/pmd_leaf_size() report PAGE_SIZE while
 *     the sim's legacy switch (sim_mm_set_legacy_addr_mask) is on, so a
 *     follow_pfnmap_start() that takes its address mask from the leaf size
 *     reports PAGE_MASK for every leaf as kernels before 6.15 effectively
 *     did; the page tables themselves are unchanged.
 *     Non-present entries as x86 reads them: pte_present() and
 *     pmd_present() are true for PROT_NONE (_PAGE_PROTNONE) entries,
 *     pmd_present() also for a PMD leaf mid-split (PSE kept, present
 *     cleared by pmdp_invalidate()); pud_present() is the present bit
 *     alone; *_devmap() read _PAGE_DEVMAP.
 * Simplified: swap and migration entries are the sim's encoding (present
 * and PSE clear, sim_mm.h), not x86's swp_entry_t layout, and nothing
 * here decodes them (no pte_to_swp_entry); no soft-dirty, no uffd-wp
 * bits; *_bad() is "present table entry whose flags are not the table
 * flags".
 */
#ifndef _DMASIM_ASM_PGTABLE_H
#define _DMASIM_ASM_PGTABLE_H

#include <dmasim/sim.h>
#include <linux/types.h>
#include <asm/pgtable_types.h>

/* ---- ptes ---- */
static inline int pte_present(pte_t pte)
{
	return pte_val(pte) & (_PAGE_PRESENT | _PAGE_PROTNONE);
}

static inline int pte_protnone(pte_t pte)
{
	return (pte_val(pte) & (_PAGE_PROTNONE | _PAGE_PRESENT)) ==
	       _PAGE_PROTNONE;
}

static inline int pte_devmap(pte_t pte)
{
	return !!(pte_val(pte) & _PAGE_DEVMAP);
}

static inline int pte_none(pte_t pte)
{
	return !pte_val(pte);
}

static inline unsigned long pte_pfn(pte_t pte)
{
	return (pte_val(pte) & PTE_PFN_MASK) >> PAGE_SHIFT;
}

static inline int pte_write(pte_t pte)
{
	return !!(pte_val(pte) & _PAGE_RW);
}

static inline int pte_dirty(pte_t pte)
{
	return !!(pte_val(pte) & _PAGE_DIRTY);
}

static inline int pte_young(pte_t pte)
{
	return !!(pte_val(pte) & _PAGE_ACCESSED);
}

static inline int pte_special(pte_t pte)
{
	return !!(pte_val(pte) & _PAGE_SPECIAL);
}

static inline pgprot_t pte_pgprot(pte_t pte)
{
	return __pgprot(pte_val(pte) & PTE_FLAGS_MASK);
}

static inline pte_t pfn_pte(unsigned long pfn, pgprot_t prot)
{
	return __pte(((pteval_t)pfn << PAGE_SHIFT & PTE_PFN_MASK) |
		     pgprot_val(prot));
}

static inline pte_t pte_mkspecial(pte_t pte)
{
	return __pte(pte_val(pte) | _PAGE_SPECIAL);
}

static inline pte_t pte_mkwrite_novma(pte_t pte)
{
	return __pte(pte_val(pte) | _PAGE_RW);
}

static inline pte_t pte_wrprotect(pte_t pte)
{
	return __pte(pte_val(pte) & ~_PAGE_RW);
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	return __pte(pte_val(pte) | _PAGE_DIRTY);
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	return __pte(pte_val(pte) | _PAGE_ACCESSED);
}

/* ---- pmds ---- */
static inline int pmd_present(pmd_t pmd)
{
	return pmd_val(pmd) & (_PAGE_PRESENT | _PAGE_PROTNONE | _PAGE_PSE);
}

static inline int pmd_devmap(pmd_t pmd)
{
	return !!(pmd_val(pmd) & _PAGE_DEVMAP);
}

static inline int pmd_none(pmd_t pmd)
{
	return !pmd_val(pmd);
}

static inline bool pmd_leaf(pmd_t pmd)
{
	return pmd_val(pmd) & _PAGE_PSE;
}

static inline int pmd_bad(pmd_t pmd)
{
	return (pmd_val(pmd) & ~PTE_PFN_MASK) != SIM_PTE_TABLE &&
	       !pmd_leaf(pmd);
}

static inline unsigned long pmd_pfn(pmd_t pmd)
{
	return (pmd_val(pmd) & PTE_PFN_MASK) >> PAGE_SHIFT;
}

static inline int pmd_write(pmd_t pmd)
{
	return !!(pmd_val(pmd) & _PAGE_RW);
}

static inline bool pmd_special(pmd_t pmd)
{
	return pmd_val(pmd) & _PAGE_SPECIAL;
}

static inline pgprot_t pmd_pgprot(pmd_t pmd)
{
	return __pgprot(pmd_val(pmd) & PTE_FLAGS_MASK & ~_PAGE_PSE);
}

static inline pmd_t pfn_pmd(unsigned long pfn, pgprot_t prot)
{
	return __pmd(((pmdval_t)pfn << PAGE_SHIFT & PTE_PFN_MASK) |
		     pgprot_val(prot));
}

static inline pmd_t pmd_mkhuge(pmd_t pmd)
{
	return __pmd(pmd_val(pmd) | _PAGE_PSE);
}

/* Host address of the PTE table a (table) pmd points to. */
static inline unsigned long pmd_page_vaddr(pmd_t pmd)
{
	return (unsigned long)sim_pt_table_of(pmd_val(pmd));
}

/* ---- puds ---- */
static inline int pud_present(pud_t pud)
{
	return pud_val(pud) & _PAGE_PRESENT;
}

static inline int pud_none(pud_t pud)
{
	return !pud_val(pud);
}

static inline int pud_devmap(pud_t pud)
{
	return !!(pud_val(pud) & _PAGE_DEVMAP);
}

static inline bool pud_leaf(pud_t pud)
{
	return (pud_val(pud) & (_PAGE_PSE | _PAGE_PRESENT)) ==
	       (_PAGE_PSE | _PAGE_PRESENT);
}

static inline int pud_bad(pud_t pud)
{
	return (pud_val(pud) & ~PTE_PFN_MASK) != SIM_PTE_TABLE &&
	       !pud_leaf(pud);
}

static inline unsigned long pud_pfn(pud_t pud)
{
	return (pud_val(pud) & PTE_PFN_MASK) >> PAGE_SHIFT;
}

static inline int pud_write(pud_t pud)
{
	return !!(pud_val(pud) & _PAGE_RW);
}

static inline bool pud_special(pud_t pud)
{
	return pud_val(pud) & _PAGE_SPECIAL;
}

static inline pgprot_t pud_pgprot(pud_t pud)
{
	return __pgprot(pud_val(pud) & PTE_FLAGS_MASK & ~_PAGE_PSE);
}

static inline pud_t pfn_pud(unsigned long pfn, pgprot_t prot)
{
	return __pud(((pudval_t)pfn << PAGE_SHIFT & PTE_PFN_MASK) |
		     pgprot_val(prot));
}

static inline unsigned long pud_pgtable_vaddr(pud_t pud)
{
	return (unsigned long)sim_pt_table_of(pud_val(pud));
}

/* ---- p4ds (folded into the pgd: a p4d is its pgd entry) ---- */
static inline int p4d_none(p4d_t p4d)
{
	return !p4d_val(p4d);
}

static inline int p4d_present(p4d_t p4d)
{
	return p4d_val(p4d) & _PAGE_PRESENT;
}

static inline int p4d_bad(p4d_t p4d)
{
	return (p4d_val(p4d) & ~PTE_PFN_MASK) != SIM_PTE_TABLE;
}

static inline bool p4d_leaf(p4d_t p4d)
{
	return false;
}

/* ---- pgds ---- */
static inline int pgd_none(pgd_t pgd)
{
	return !pgd_val(pgd);
}

static inline int pgd_present(pgd_t pgd)
{
	return pgd_val(pgd) & _PAGE_PRESENT;
}

static inline int pgd_bad(pgd_t pgd)
{
	return (pgd_val(pgd) & ~PTE_PFN_MASK) != SIM_PTE_TABLE;
}

static inline bool pgd_leaf(pgd_t pgd)
{
	return false;
}

/* The test double described at the top. */
#define pud_leaf_size(pud) \
	(sim_mm_legacy_addr_mask ? PAGE_SIZE : PUD_SIZE)
#define pmd_leaf_size(pmd) \
	(sim_mm_legacy_addr_mask ? PAGE_SIZE : PMD_SIZE)

#endif
