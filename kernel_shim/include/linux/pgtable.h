/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic page-table walk helpers (<linux/pgtable.h>) over the sim's
 * four-level tables.
 *
 * (a) Definitions that must match the kernel: pgd_offset(), p4d_offset()
 *     (folded), pud_offset(), pmd_offset(), pte_offset_map(),
 *     pte_offset_map_lock()/pte_unmap_unlock(), pud_lock()/pmd_lock()
 *     returning the held spinlock_t, pXdp_get(), pmdp_get_lockless(),
 *     the *_index() helpers, pXd_leaf_size() defaults, is_zero_pfn().
 *     Locks: PUD leaves are guarded by mm->page_table_lock; PMD entries by
 *     the split lock of their PMD table; PTEs by the split lock of their
 *     PTE table (the kernel's split ptlocks with USE_SPLIT_*_PTLOCKS).
 *     pte_offset_map() returns NULL when the pmd is not a PTE table (none,
 *     or a leaf), as the kernel's __pte_offset_map() does.
 *     pte_offset_map_lock() asks the fault point shim/mm/pte_offset_map
 *     first: the kernel's returns NULL when the PMD changed between the
 *     read and the lock (a racing THP collapse), which callers must handle.
 * (c) Test double: pud_lock() and pmd_lock() first run the sim's
 *     race-on-demand hook (sim_pt_lock_race(), off unless a test sets it),
 *     so a test can change the entry between a walk's lockless read and
 *     its lock, as another CPU could; then, as the kernel's would, wait
 *     for the splitter of a leaf mid-split (which holds the lock: the sim
 *     finishes the split), and ask choice point pt_leaf_changed whether
 *     another task zapped or split a present pfnmap leaf meanwhile.
 * (c) Counting (the cost model): every entry read by a walk accessor
 *     (pXdp_get, pmdp_get_lockless, and the pXd_offset/pte_offset_map that
 *     reads its parent entry) counts SIM_CNT_PT_READ.  pgd_offset() on an
 *     mm counts SIM_CNT_PFN_LOOKUP: in the simulated kernel only
 *     follow_pfnmap_start() starts a walk from an mm (the shim's own GUP,
 *     fault and remap code walks through sim/ and counts nothing here),
 *     so it is one count per lookup (a walk retried after a racing change
 *     counts twice, as it costs twice).
 * (c) Checking: a successful pte_offset_map() enters an RCU read-side
 *     section and pte_unmap() leaves it, as the kernel's do (since 6.5,
 *     so that a page table freed by RCU stays valid while mapped); the
 *     lock checker (sim_rcu_read_lock(), <dmasim/sim.h>) reports a
 *     pte_unmap() without a map, and a map still open when a kapi door
 *     returns to user space.
 * Simplified: no highmem pte mapping (no kmap_local), no RCU freeing of
 * page tables.
 */
#ifndef _DMASIM_LINUX_PGTABLE_H
#define _DMASIM_LINUX_PGTABLE_H

#include <dmasim/sim.h>
#include <linux/mm_types.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <asm/pgtable.h>

static_assert(sizeof(spinlock_t) == sizeof(struct sim_pt_lock) &&
	      __builtin_offsetof(spinlock_t, locked) ==
	      __builtin_offsetof(struct sim_pt_lock, locked),
	      "spinlock_t and the sim's page-table lock differ");

static inline unsigned long pgd_index(unsigned long address)
{
	return (address >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1);
}

static inline unsigned long pud_index(unsigned long address)
{
	return (address >> PUD_SHIFT) & (PTRS_PER_PUD - 1);
}

static inline unsigned long pmd_index(unsigned long address)
{
	return (address >> PMD_SHIFT) & (PTRS_PER_PMD - 1);
}

static inline unsigned long pte_index(unsigned long address)
{
	return (address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1);
}

static inline pgd_t *pgd_offset_pgd(pgd_t *pgd, unsigned long address)
{
	return pgd + pgd_index(address);
}

static inline pgd_t *pgd_offset(struct mm_struct *mm, unsigned long address)
{
	sim_count(SIM_CNT_PFN_LOOKUP, 1);
	return pgd_offset_pgd(mm->pgd, address);
}

static inline pgd_t pgdp_get(pgd_t *pgdp)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return READ_ONCE(*pgdp);
}

/* Folded: the p4d is the pgd entry itself. */
static inline p4d_t *p4d_offset(pgd_t *pgd, unsigned long address)
{
	return (p4d_t *)pgd;
}

static inline p4d_t p4dp_get(p4d_t *p4dp)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return READ_ONCE(*p4dp);
}

static inline pud_t *pud_offset(p4d_t *p4d, unsigned long address)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return (pud_t *)sim_pt_table_of(READ_ONCE(p4d->p4d)) +
	       pud_index(address);
}

static inline pud_t pudp_get(pud_t *pudp)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return READ_ONCE(*pudp);
}

static inline pmd_t *pmd_offset(pud_t *pud, unsigned long address)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return (pmd_t *)sim_pt_table_of(READ_ONCE(pud->pud)) +
	       pmd_index(address);
}

static inline pmd_t pmdp_get(pmd_t *pmdp)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return READ_ONCE(*pmdp);
}

static inline pmd_t pmdp_get_lockless(pmd_t *pmdp)
{
	return pmdp_get(pmdp);
}

static inline pte_t ptep_get(pte_t *ptep)
{
	sim_count(SIM_CNT_PT_READ, 1);
	return READ_ONCE(*ptep);
}

static inline pte_t *pte_offset_kernel(pmd_t *pmd, unsigned long address)
{
	return (pte_t *)pmd_page_vaddr(*pmd) + pte_index(address);
}

static inline pte_t *pte_offset_map(pmd_t *pmd, unsigned long address)
{
	pmd_t pmdval = pmdp_get(pmd);

	if (pmd_none(pmdval) || pmd_leaf(pmdval) || pmd_bad(pmdval))
		return NULL;
	sim_rcu_read_lock();
	return (pte_t *)pmd_page_vaddr(pmdval) + pte_index(address);
}

static inline void pte_unmap(pte_t *pte)
{
	sim_rcu_read_unlock(__FILE__, __LINE__);
}

static inline spinlock_t *pte_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	return (spinlock_t *)sim_pt_lock_of((void *)pmd_page_vaddr(*pmd));
}

static inline pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd,
					 unsigned long address,
					 spinlock_t **ptlp)
{
	pte_t *pte;
	spinlock_t *ptl;

	/* The kernel's fails when the PMD changed under it (THP collapse). */
	if (sim_should_fail(SIM_FP_PTE_OFFSET_MAP))
		return NULL;
	pte = pte_offset_map(pmd, address);
	if (!pte)
		return NULL;
	ptl = (spinlock_t *)sim_pt_lock_of(pte);
	spin_lock(ptl);
	*ptlp = ptl;
	return pte;
}

static inline void pte_unmap_unlock(pte_t *pte, spinlock_t *ptl)
{
	spin_unlock(ptl);
	pte_unmap(pte);
}

static inline spinlock_t *pmd_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	return (spinlock_t *)sim_pt_lock_of(pmd);
}

static inline spinlock_t *pmd_lock(struct mm_struct *mm, pmd_t *pmd)
{
	spinlock_t *ptl = pmd_lockptr(mm, pmd);

	sim_pt_lock_race(mm->dmasim_mm, pmd, SIM_PT_PMD);
	spin_lock(ptl);
	return ptl;
}

/* PUD leaves are few: one lock for the whole mm, as the kernel's. */
static inline spinlock_t *pud_lockptr(struct mm_struct *mm, pud_t *pud)
{
	return &mm->page_table_lock;
}

static inline spinlock_t *pud_lock(struct mm_struct *mm, pud_t *pud)
{
	sim_pt_lock_race(mm->dmasim_mm, pud, SIM_PT_PUD);
	spin_lock(&mm->page_table_lock);
	return &mm->page_table_lock;
}

#ifndef pud_leaf_size
#define pud_leaf_size(x)	PUD_SIZE
#endif
#ifndef pmd_leaf_size
#define pmd_leaf_size(x)	PMD_SIZE
#endif
#ifndef pte_leaf_size
#define pte_leaf_size(x)	PAGE_SIZE
#endif

/* The shared zero page (ZERO_PAGE(0)) by pfn; the sim owns it. */
static inline int is_zero_pfn(unsigned long pfn)
{
	return pfn == sim_zero_pfn;
}

static inline unsigned long my_zero_pfn(unsigned long addr)
{
	return sim_zero_pfn;
}

#define pgprot_noncached(prot)	__pgprot(pgprot_val(prot) | _PAGE_PCD | _PAGE_PWT)
#define pgprot_writecombine(prot) __pgprot(pgprot_val(prot) | _PAGE_PWT)
#define pgprot_decrypted(prot)	(prot)
#define pgprot_encrypted(prot)	(prot)

#endif
