// SPDX-License-Identifier: GPL-2.0-only
/*
 * VMA lookup, GUP (pin_user_pages_remote and the unpin family),
 * fixup_user_fault() and remap_pfn_range(), over the sim's address spaces
 * (sim/mm.c).  The contracts are written in shim/mm_vma.h; the test hooks
 * are set through kapi_mm.h (kapi/kapi_mm.c).
 *
 * GUP walks the sim's page tables with the reference walk (sim_mm_walk),
 * faults a page in when its entry is missing (or read-only for FOLL_WRITE),
 * and pins the struct page behind it; a huge leaf's pages from there on
 * are taken in one step, one pin each, as the kernel's follow_page_mask()
 * page mask lets __get_user_pages() do.  The unpin family releases runs of
 * consecutive pages a folio at a time (sim_page_unpin_range), as the
 * kernel's gup_folio_next()/gup_folio_range_next() do.  Like the kernel's
 * __get_user_pages() it moves from one VMA to the next when they are
 * adjacent, stops at a hole or at a VMA it cannot pin from
 * (VM_IO|VM_PFNMAP, or read-only for FOLL_WRITE) and then returns what it
 * pinned, or -EFAULT if it pinned nothing.
 *
 * Choice points (include/dmasim/choices.def) take the other outcomes the
 * contracts allow: GUP pins fewer pages (gup_short), stops inside a huge
 * leaf (gup_folio_partial), sees a SIGKILL (fatal_signal_pending: -EINTR
 * or a short count), refuses a FOLL_LONGTERM pin with everything unpinned
 * (gup_longterm_refuse), finds its first entry not present
 * (gup_nonpresent); fixup_user_fault() drops the mmap lock while
 * another task changes the mapping (fixup_unlocked).
 *
 * Oracle: the unpin family WARNs on a page an IOMMU may still translate
 * to (sim_iommu_maybe_cached(): its leaf cleared by an unmap that no IOTLB
 * sync has covered yet), as handing it back would let a device write to
 * its next owner's memory.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include <dmasim/sim.h>
#include <dmasim/sim_iommu.h>

#include <shim/mm_internal.h>

struct gup_hook gup_hook;
bool fixup_unlock_once;
static unsigned long gup_calls;

void shim_gup_reset(void)
{
	gup_hook = (struct gup_hook){ 0 };
	shim_gup_hook_mode = GUP_HOOK_NONE;
	fixup_unlock_once = false;
	gup_calls = 0;
}

static inline struct vm_area_struct *vma_of(struct sim_vma *svma)
{
	return svma ? sim_vma_info(svma)->owner : NULL;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	return vma_of(sim_mm_find_vma_above(mm->dmasim_mm, addr));
}

/* Can GUP take pages from this VMA (the kernel's check_vma_flags)? */
static int gup_vma_allows(struct vm_area_struct *vma, unsigned int gup_flags)
{
	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return -EFAULT;
	if ((gup_flags & FOLL_WRITE) && !(vma->vm_flags & VM_WRITE))
		return -EFAULT;
	if (!(gup_flags & FOLL_WRITE) && !(vma->vm_flags & VM_READ))
		return -EFAULT;
	return 0;
}

/*
 * Choice point SIM_CH_GUP_NONPRESENT: the present anonymous leaf GUP is
 * about to follow turns out to be a migration entry (compaction is moving
 * the page) or a swap entry, so GUP must fault and look again.  Offered at
 * the first page of a call.  True if the entry changed.
 */
static bool gup_entry_goes_away(struct mm_struct *mm, unsigned long addr,
				const struct sim_walk *w)
{
	static const enum sim_pt_entry_kind kinds[] = {
		SIM_ENTRY_PRESENT, SIM_ENTRY_MIGRATION, SIM_ENTRY_SWAP,
	};
	unsigned int alt;

	if (!(w->entry & SIM_PTE_PRESENT) || (w->entry & SIM_PTE_SPECIAL) ||
	    w->pfn == sim_zero_pfn)
		return false;
	alt = sim_choose(SIM_CH_GUP_NONPRESENT, ARRAY_SIZE(kinds));
	return alt && !sim_mm_set_entry(mm->dmasim_mm, addr, w->level,
					kinds[alt]);
}

/*
 * The page mapped at addr, faulting it in as a CPU access would; *in_leaf
 * gets the pages from it to the end of the leaf that maps it (the kernel's
 * follow_page_mask() page mask: GUP takes a huge leaf's pages at once).
 * A non-present entry (swap, migration, a split in progress) is faulted
 * in; a PROT_NONE entry is followed as it is (pin_user_pages_remote() does
 * not set FOLL_HONOR_NUMA_FAULT, only GUP-fast does), unless FOLL_WRITE
 * needs it writable: then the NUMA-hinting fault restores it.
 */
static struct page *gup_one_page(struct mm_struct *mm, unsigned long addr,
				 unsigned int gup_flags, bool first,
				 unsigned long *in_leaf, int *err)
{
	bool write = gup_flags & FOLL_WRITE;
	unsigned long leaf;
	struct sim_walk w;
	int ret;

	ret = sim_mm_walk_any(mm->dmasim_mm, addr, &w);
	if (!ret && first && gup_entry_goes_away(mm, addr, &w))
		ret = sim_mm_walk_any(mm->dmasim_mm, addr, &w);
	if (ret || !(w.entry & (SIM_PTE_PRESENT | SIM_PTE_PROTNONE)) ||
	    (write && !(w.entry & SIM_PTE_WRITE))) {
		if (gup_flags & FOLL_NOFAULT) {
			*err = -EFAULT;
			return NULL;
		}
		ret = sim_mm_fault(mm->dmasim_mm, addr, write);
		if (!ret)
			ret = sim_mm_walk(mm->dmasim_mm, addr, &w);
		if (ret) {
			*err = ret == -ENOENT ? -EFAULT : ret;
			return NULL;
		}
	}
	leaf = w.level == SIM_PT_PTE ? PAGE_SIZE :
	       w.level == SIM_PT_PMD ? SIM_PMD_SIZE : SIM_PUD_SIZE;
	*in_leaf = (leaf - (addr & (leaf - 1))) >> PAGE_SHIFT;
	return (struct page *)sim_pfn_to_page(w.pfn);
}

/* What a test hook asks of this call: pages to allow, or an error/0. */
static long gup_hook_apply(unsigned long *nr_pages)
{
	unsigned long n = ++gup_calls;

	if (shim_gup_hook_mode == GUP_HOOK_NONE || n < gup_hook.nth ||
	    (n > gup_hook.nth && !gup_hook.persist))
		return 1;
	switch (shim_gup_hook_mode) {
	case GUP_HOOK_SHORT:
		if (*nr_pages > (unsigned long)gup_hook.value)
			*nr_pages = gup_hook.value;
		return *nr_pages ? 1 : 0;
	case GUP_HOOK_ZERO:
		return 0;
	case GUP_HOOK_ERRNO:
		return gup_hook.value;
	}
	return 1;
}

/*
 * Choice point SIM_CH_GUP_SHORT: GUP may stop early (the next page could
 * not be pinned; its error shows on the next call).  The number of pages
 * this call will pin at most: all, 1, half, or all but one.
 */
static unsigned long gup_short_limit(unsigned long nr_pages)
{
	switch (sim_choose(SIM_CH_GUP_SHORT, nr_pages >= 4 ? 4 :
					     nr_pages >= 2 ? 2 : 1)) {
	case 1:
		return 1;
	case 2:
		return nr_pages / 2;
	case 3:
		return nr_pages - 1;
	}
	return nr_pages;
}

/*
 * __get_user_pages() tests fatal_signal_pending() before every page or
 * huge-leaf step.  A SIGKILL at any step is either "nothing pinned:
 * -EINTR" (the first step) or "a short count, -EINTR on the next call"
 * (a later one); the choice is offered at the first step and at the step
 * that crosses half the request, which covers both outcomes without a
 * choice per page.  Every step still sees a signal already pending.
 */
static bool gup_step_killed(unsigned long i, unsigned long n_next,
			    unsigned long nr_pages)
{
	struct task_struct *t = current;
	bool offer = !i || (i < nr_pages / 2 && i + n_next >= nr_pages / 2);

	sim_yield(SIM_YIELD_SIGNAL, "__get_user_pages");
	if (!t->fatal_signal && offer &&
	    sim_choose(SIM_CH_FATAL_SIGNAL, 2))
		t->fatal_signal = true;
	return t->fatal_signal;
}

/*
 * Choice point SIM_CH_GUP_FOLIO_PARTIAL: a step over a huge leaf may end
 * inside it (GUP stops there: the rest of the folio could not be pinned),
 * after its first page or one page before its end.  n: the leaf's pages
 * from here.  Returns the pages to take and whether GUP stops after them.
 */
static unsigned long gup_folio_partial(unsigned long n, bool *stop)
{
	switch (sim_choose(SIM_CH_GUP_FOLIO_PARTIAL, n > 1 ? 3 : 1)) {
	case 1:
		*stop = true;
		return 1;
	case 2:
		*stop = true;
		return n - 1;
	}
	return n;
}

/*
 * Choice point SIM_CH_GUP_LONGTERM_REFUSE: FOLL_LONGTERM pins of memory
 * the kernel cannot keep pinned long-term fail after all: migration failed
 * (-ENOMEM), a device-coherent page could not move (-EBUSY), fsdax
 * (-EOPNOTSUPP), or a file mapping without long-term write pins (-EFAULT).
 * Every page of the call is unpinned first, as the kernel does.
 */
static const int gup_longterm_errnos[] = { 0, -ENOMEM, -EBUSY, -EOPNOTSUPP,
					   -EFAULT };

static void unpin_array(struct page **pages, unsigned long npages, bool dirty);

static long gup_longterm_refuse(struct page **pages, long pinned,
				unsigned int gup_flags, bool pin)
{
	unsigned int alt;

	if (pinned <= 0 || !pin || !pages || !(gup_flags & FOLL_LONGTERM))
		return pinned;
	alt = sim_choose(SIM_CH_GUP_LONGTERM_REFUSE,
			 ARRAY_SIZE(gup_longterm_errnos));
	if (!alt)
		return pinned;
	unpin_array(pages, pinned, false);
	return gup_longterm_errnos[alt];
}

/*
 * The pages of a call whose first VMA is known and allows the pin: kept
 * out of line, so that the calls that fail at once (type1 before 6.15
 * asks GUP first for every 4 KiB page of a BAR, a VM_PFNMAP VMA) run
 * gup_pages()'s short preamble only.
 */
static noinline long gup_pages_from(struct mm_struct *mm,
				    struct vm_area_struct *vma,
				    unsigned long addr, unsigned long nr_pages,
				    unsigned int gup_flags, struct page **pages,
				    bool pin)
{
	unsigned long i, k, n;
	bool stop = false;
	int err = 0;

	for (i = 0; i < nr_pages && !stop; i += n, addr += n * PAGE_SIZE) {
		struct page *page;

		if (addr >= vma->vm_end) {
			vma = vma_lookup(mm, addr);
			if (!vma) {
				err = -EFAULT;
				break;
			}
			err = gup_vma_allows(vma, gup_flags);
			if (err)
				break;
		}
		page = gup_one_page(mm, addr, gup_flags, !i, &n, &err);
		if (!page)
			break;
		/* The rest of a huge leaf in one go, one pin per page. */
		n = min(n, nr_pages - i);
		if (gup_step_killed(i, n, nr_pages)) {
			err = -EINTR;
			break;
		}
		n = gup_folio_partial(n, &stop);
		if (pin)
			sim_page_pin((struct sim_page *)page, n);
		if (pages)
			for (k = 0; k < n; k++)
				pages[i + k] = nth_page(page, k);
	}
	sim_count(SIM_CNT_GUP_PAGE, i);
	return gup_longterm_refuse(pages, i ? (long)i : err, gup_flags, pin);
}

static long gup_pages(struct mm_struct *mm, unsigned long start,
		      unsigned long nr_pages, unsigned int gup_flags,
		      struct page **pages, bool pin)
{
	struct vm_area_struct *vma;
	unsigned long addr;
	long hook;
	int err;

	sim_count(SIM_CNT_GUP_CALL, 1);
	mmap_assert_locked(mm);
	if (!nr_pages)
		return 0;
	hook = gup_hook_apply(&nr_pages);
	if (hook <= 0)
		return hook;
	if (sim_should_fail(SIM_FP_GUP))
		return -ENOMEM;
	nr_pages = gup_short_limit(nr_pages);

	/* Nothing pinned yet: an error is the call's result. */
	addr = untagged_addr(start) & PAGE_MASK;
	vma = vma_lookup(mm, addr);
	if (!vma)
		return -EFAULT;
	err = gup_vma_allows(vma, gup_flags);
	if (err)
		return err;
	return gup_pages_from(mm, vma, addr, nr_pages, gup_flags, pages, pin);
}

static noinline long pin_pages_checked(struct mm_struct *mm,
				       unsigned long start,
				       unsigned long nr_pages,
				       unsigned int gup_flags,
				       struct page **pages, int *locked)
{
	/* The kernel refuses these combinations (is_valid_gup_args). */
	if (WARN_ON_ONCE(gup_flags & FOLL_GET) || WARN_ON_ONCE(!pages) ||
	    (locked && WARN_ON_ONCE(!*locked)))
		return 0;
	return gup_pages(mm, start, nr_pages, gup_flags, pages, true);
}

/* The full way; the inline pin_user_pages_remote() (shim/mm_vma.h) first. */
long shim_pin_user_pages_remote(struct mm_struct *mm, unsigned long start,
				unsigned long nr_pages, unsigned int gup_flags,
				struct page **pages, int *locked)
{
	return pin_pages_checked(mm, start, nr_pages, gup_flags, pages,
				 locked);
}

long pin_user_pages(unsigned long start, unsigned long nr_pages,
		    unsigned int gup_flags, struct page **pages)
{
	return pin_user_pages_remote(current->mm, start, nr_pages, gup_flags,
				     pages, NULL);
}

/*
 * The IOTLB oracle (sim_iommu_maybe_cached()): a page handed back while an
 * IOMMU may still translate to it (its leaf cleared, no IOTLB sync since)
 * could be written by a device after its next owner got it.
 */
static void warn_if_iommu_may_still_translate(struct page *page,
					      unsigned long npages)
{
	sim_phys_t phys = (sim_phys_t)sim_page_to_pfn((struct sim_page *)page)
			  << PAGE_SHIFT;

	WARN(sim_iommu_maybe_cached(phys, (unsigned long long)npages << PAGE_SHIFT),
	     "unpin of a page an IOMMU may still translate to (unmapped, no IOTLB sync yet)");
}

static void unpin_one(struct page *page, unsigned long n, bool dirty)
{
	sim_count(SIM_CNT_UNPIN_PAGE, n);
	warn_if_iommu_may_still_translate(page, 1);
	WARN(sim_page_unpin((struct sim_page *)page, n, dirty),
	     "unpin of a page that is not pinned");
}

/* One pin off each of npages contiguous pages, a folio at a time. */
static void unpin_range(struct page *page, unsigned long npages, bool dirty)
{
	sim_count(SIM_CNT_UNPIN_PAGE, npages);
	warn_if_iommu_may_still_translate(page, npages);
	WARN(sim_page_unpin_range((struct sim_page *)page, npages, dirty),
	     "unpin of a page that is not pinned");
}

/*
 * An array of pages: runs of consecutive struct pages go together (the
 * kernel's gup_folio_next() groups a folio's entries the same way).
 */
static void unpin_array(struct page **pages, unsigned long npages, bool dirty)
{
	unsigned long i, run;

	for (i = 0; i < npages; i += run) {
		for (run = 1; i + run < npages &&
			      pages[i + run] == nth_page(pages[i], run); run++)
			;
		unpin_range(pages[i], run, dirty);
	}
}

void unpin_user_page(struct page *page)
{
	unpin_one(page, 1, false);
}

void unpin_user_pages(struct page **pages, unsigned long npages)
{
	unpin_array(pages, npages, false);
}

void unpin_user_pages_dirty_lock(struct page **pages, unsigned long npages,
				 bool make_dirty)
{
	unpin_array(pages, npages, make_dirty);
}

void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages,
				      bool make_dirty)
{
	unpin_range(page, npages, make_dirty);
}

void unpin_folio(struct folio *folio)
{
	unpin_one((struct page *)folio, 1, false);
}

void unpin_user_folio(struct folio *folio, unsigned long npages)
{
	unpin_one((struct page *)folio, npages, false);
}

void unpin_folios(struct folio **folios, unsigned long nfolios)
{
	unsigned long i;

	for (i = 0; i < nfolios; i++)
		unpin_one((struct page *)folios[i], 1, false);
}

void (*shim_mm_race)(struct mm_struct *mm, unsigned long addr,
		     enum sim_mm_race what);

/*
 * With a non-NULL unlocked the fault may drop the mmap lock
 * (FAULT_FLAG_ALLOW_RETRY | KILLABLE).  Modelled here is the handler that
 * completes the fault and returns with the lock released
 * (VM_FAULT_COMPLETED): fixup_user_fault() takes the lock again, sets
 * *unlocked and returns 0.  Choice point SIM_CH_FIXUP_UNLOCKED takes that
 * path, and while the lock is dropped another task may act on the VMA
 * (enum sim_mm_race in <dmasim/sim_mm.h>), so the caller finds the world
 * changed after the fault.  A killable fault also gives -EINTR when a
 * SIGKILL is pending before the handler runs.
 */
static unsigned int fixup_choose_drop(bool *unlocked)
{
	if (!unlocked)
		return SIM_MM_RACE_NONE;
	if (fixup_unlock_once) {
		fixup_unlock_once = false;
		return SIM_MM_RACE_NOTHING;
	}
	return sim_choose(SIM_CH_FIXUP_UNLOCKED, SIM_MM_RACE_NR);
}

int fixup_user_fault(struct mm_struct *mm, unsigned long address,
		     unsigned int fault_flags, bool *unlocked)
{
	bool write = fault_flags & FAULT_FLAG_WRITE;
	struct vm_area_struct *vma;
	unsigned int race;
	int ret;

	mmap_assert_locked(mm);
	if (sim_should_fail(SIM_FP_FIXUP_USER_FAULT))
		return -EFAULT;
	address = untagged_addr(address);
	vma = vma_lookup(mm, address);
	if (!vma)
		return -EFAULT;
	if (write ? !(vma->vm_flags & VM_WRITE) :
		    !(vma->vm_flags & (VM_READ | VM_WRITE)))
		return -EFAULT;
	if (unlocked && fatal_signal_pending(current))
		return -EINTR;
	ret = sim_mm_fault(mm->dmasim_mm, address, write);
	if (ret)
		return ret == -ENOENT ? -EFAULT : ret;
	race = fixup_choose_drop(unlocked);
	if (race) {
		/* the handler completed the fault and let the lock go */
		mmap_read_unlock(mm);
		if (race != SIM_MM_RACE_NOTHING && shim_mm_race)
			shim_mm_race(mm, address, race);
		mmap_read_lock(mm);
		*unlocked = true;
	}
	return 0;
}

int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr,
		    unsigned long pfn, unsigned long size, pgprot_t prot)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long end = addr + ALIGN(size, PAGE_SIZE);
	int ret;

	if (addr < vma->vm_start || end > vma->vm_end || end <= addr ||
	    (addr & ~PAGE_MASK))
		return -EINVAL;
	/* The kernel's allocates its page tables with alloc_pages(). */
	if (sim_should_fail(SIM_FP_ALLOC_PAGES))
		return -ENOMEM;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	ret = sim_mm_remap_pfn_range(mm->dmasim_mm, addr, pfn, end - addr,
				     SIM_PT_PTE,
				     !!(pgprot_val(prot) & _PAGE_RW));
	if (ret)
		sim_mm_zap_range(mm->dmasim_mm, addr, end);
	return ret;
}

unsigned long shim_gup_calls(void)
{
	return gup_calls;
}

/*
 * follow_pfnmap_start() for trees after 6.12, whose callers may set the
 * input .write (see <shim/mm_vma.h>): a read-only leaf does not satisfy a
 * write lookup, so it fails as a missing entry does, with nothing held.
 */
int shim_follow_pfnmap_start_write(struct follow_pfnmap_args *args)
{
	int ret = follow_pfnmap_start(args);

	if (ret || !args->write || args->writable)
		return ret;
	follow_pfnmap_end(args);
	return -EINVAL;
}
