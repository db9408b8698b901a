// SPDX-License-Identifier: GPL-2.0-only
/*
 * VFIO type1 IOMMU backend (dmasim's own implementation).
 *
 * The container backend a VMM talks to through VFIO_IOMMU_MAP_DMA and
 * friends: user virtual ranges are pinned (pin_user_pages_remote(), or
 * follow_pfnmap_start() for VM_PFNMAP ranges such as a device BAR) and
 * mapped with iommu_map() into every IOMMU domain of the container, with
 * the pinned pages charged to the owner's locked_vm.  Written from the
 * behaviour of mainline drivers/vfio/vfio_iommu_type1.c after the
 * huge-pfnmap series (Linux 6.15): every vaddr_get_pfns() caller passes a
 * struct vfio_batch, a pfnmap lookup strides a whole leaf using the
 * follow_pfnmap_args.addr_mask it reports, and a 0 from GUP is -EFAULT.
 * Ranges may end at the very top of the IOVA space: every range is handled
 * by its first and last byte, never by an exclusive end.
 *
 * Not carried over: the nesting type (gone from mainline), VFIO noiommu.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/iommu.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include "vfio.h"

#define DRIVER_VERSION	"0.2"
#define DRIVER_DESC	"Type1 IOMMU driver for VFIO (dmasim)"

static bool allow_unsafe_interrupts;
module_param_named(allow_unsafe_interrupts, allow_unsafe_interrupts, bool,
		   0644);
MODULE_PARM_DESC(allow_unsafe_interrupts,
		 "Accept groups whose MSIs are not isolated by the IOMMU.");

static bool disable_hugepages;
module_param_named(disable_hugepages, disable_hugepages, bool, 0644);
MODULE_PARM_DESC(disable_hugepages,
		 "Pin and map one page at a time (no IOMMU superpages).");

static unsigned int dma_entry_limit __read_mostly = U16_MAX;
module_param_named(dma_entry_limit, dma_entry_limit, uint, 0644);
MODULE_PARM_DESC(dma_entry_limit,
		 "Most MAP_DMA entries one container holds (65535).");

/*
 * Not in mainline (docs/next-bottleneck.md): note each long run MAP_DMA
 * maps with one iommu_map(), so that unmapping it needs no page-by-page
 * iommu_iova_to_phys() probe, and a reserved run (a BAR) no put_pfn() per
 * pfn.  Off: mainline's unmap.
 */
static bool unmap_stride;
module_param_named(unmap_stride, unmap_stride, bool, 0644);
MODULE_PARM_DESC(unmap_stride,
		 "Unmap the runs MAP_DMA mapped without probing the IOMMU page by page.");

/* One container. */
struct vfio_iommu {
	struct mutex		lock;		/* everything below */
	struct list_head	domain_list;	/* struct vfio_domain */
	struct list_head	iova_list;	/* usable IOVA, sorted */
	struct rb_root		dma_list;	/* struct vfio_dma by iova */
	struct list_head	emulated_iommu_groups;
	struct list_head	device_list;	/* devices with dma_unmap */
	struct mutex		device_list_lock;
	uint64_t		pgsize_bitmap;	/* common to all domains */
	uint64_t		num_non_pinned_groups;
	unsigned int		dma_avail;
	unsigned int		vaddr_invalid_count;
	bool			v2;
	bool			dirty_page_tracking;
};

/* An IOMMU domain and the groups attached to it. */
struct vfio_domain {
	struct list_head	next;
	struct iommu_domain	*domain;
	struct list_head	group_list;
	/* Fine-grained superpages: unmapping a page takes its superpage. */
	bool			fgsp;
	bool			enforce_cache_coherency;
};

/* One MAP_DMA: [iova, iova + size) backed by [vaddr, vaddr + size). */
struct vfio_dma {
	struct rb_node		node;
	dma_addr_t		iova;
	unsigned long		vaddr;
	size_t			size;	/* mapped so far while mapping */
	int			prot;	/* IOMMU_READ | IOMMU_WRITE */
	bool			iommu_mapped;
	bool			lock_cap;	/* owner had CAP_IPC_LOCK */
	bool			vaddr_invalid;
	bool			has_rsvd;	/* any reserved/pfnmap pfn */
	struct task_struct	*task;
	struct mm_struct	*mm;
	size_t			locked_vm;	/* pages charged to mm */
	struct rb_root		pfn_list;	/* externally pinned pages */
	unsigned long		*bitmap;	/* dirty, while tracking */
	struct vfio_run		*runs;		/* unmap_stride: by iova */
	unsigned int		nr_runs;
	unsigned int		max_runs;
};

/*
 * What the unmap side knows of a run's pfns: found by probing the IOMMU
 * (any pfn may be reserved: put_pfn() each when the DMA has reserved
 * ones), or noted when it was mapped (all pinned, or none).
 */
enum vfio_run_kind {
	VFIO_RUN_PROBED,
	VFIO_RUN_PINNED,
	VFIO_RUN_RESERVED,
};

/*
 * unmap_stride: npage pfns from pfn mapped at iova by one iommu_map() in
 * every domain, all pinned or all reserved as vfio_pin_pages_remote()
 * decided from the first.
 */
struct vfio_run {
	dma_addr_t		iova;
	unsigned long		pfn;
	unsigned long		npage;
	enum vfio_run_kind	kind;
};

/* Shorter runs are probed at unmap time, as mainline does every run. */
#define VFIO_RUN_MIN_PAGES	64

/* Pages returned by one GUP call, consumed from offset on. */
struct vfio_batch {
	struct page		**pages;
	struct page		*fallback_page;
	unsigned int		capacity;
	unsigned int		size;
	unsigned int		offset;
};

struct vfio_iommu_group {
	struct iommu_group	*iommu_group;
	bool			pinned_page_dirty_scope;
	struct list_head	next;	/* in a domain's group_list */
};

/* A usable IOVA range [start, end], both inclusive. */
struct vfio_iova {
	dma_addr_t		start;
	dma_addr_t		end;
	struct list_head	list;
};

/* A page pinned through the external (emulated IOMMU) interface. */
struct vfio_pfn {
	struct rb_node		node;
	dma_addr_t		iova;
	unsigned long		pfn;
	unsigned int		ref_count;
};

/* A range unmapped with iommu_unmap_fast(), unpinned after the sync. */
struct vfio_regions {
	struct list_head	list;
	size_t			len;
	dma_addr_t		iova;
	phys_addr_t		phys;	/* of iova; the run is contiguous */
	enum vfio_run_kind	kind;
};

/* Dirty bitmaps are copied out in whole u64 words. */
#define DIRTY_BITMAP_BYTES(n)	(ALIGN(n, BITS_PER_TYPE(u64)) / BITS_PER_BYTE)
/* bitmap_set() takes an unsigned int count: at most INT_MAX pages. */
#define DIRTY_BITMAP_PAGES_MAX	((u64)INT_MAX)
#define DIRTY_BITMAP_SIZE_MAX	DIRTY_BITMAP_BYTES(DIRTY_BITMAP_PAGES_MAX)

#define VFIO_BATCH_MAX_CAPACITY	(PAGE_SIZE / sizeof(struct page *))
/* Regions queued behind one IOTLB sync before their pages are unpinned. */
#define VFIO_IOMMU_TLB_SYNC_MAX	512

static int put_pfn(unsigned long pfn, int prot);

/* ---- the DMA tree ---- */

static inline dma_addr_t vfio_dma_last(const struct vfio_dma *dma)
{
	return dma->iova + (dma->size - 1);
}

/* Any vfio_dma overlapping [first, last]. */
static struct vfio_dma *vfio_find_dma_range(struct vfio_iommu *iommu,
					    dma_addr_t first, dma_addr_t last)
{
	struct rb_node *n = iommu->dma_list.rb_node;

	while (n) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);

		if (last < dma->iova)
			n = n->rb_left;
		else if (first > vfio_dma_last(dma))
			n = n->rb_right;
		else
			return dma;
	}
	return NULL;
}

/* The vfio_dma containing iova, if any. */
static struct vfio_dma *vfio_find_dma(struct vfio_iommu *iommu,
				      dma_addr_t iova)
{
	return vfio_find_dma_range(iommu, iova, iova);
}

/* The lowest vfio_dma overlapping [first, last]. */
static struct rb_node *vfio_find_dma_first_node(struct vfio_iommu *iommu,
						dma_addr_t first,
						dma_addr_t last)
{
	struct rb_node *n = iommu->dma_list.rb_node, *best = NULL;

	while (n) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);

		if (first <= vfio_dma_last(dma)) {
			best = n;
			if (first >= dma->iova)
				break;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	if (best && rb_entry(best, struct vfio_dma, node)->iova > last)
		return NULL;
	return best;
}

static void vfio_link_dma(struct vfio_iommu *iommu, struct vfio_dma *new)
{
	struct rb_node **link = &iommu->dma_list.rb_node, *parent = NULL;

	while (*link) {
		struct vfio_dma *dma;

		parent = *link;
		dma = rb_entry(parent, struct vfio_dma, node);
		link = new->iova < dma->iova ? &parent->rb_left :
					       &parent->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &iommu->dma_list);
}

/* ---- dirty bitmaps ---- */

static int vfio_dma_bitmap_alloc(struct vfio_dma *dma, size_t pgsize)
{
	u64 npages = dma->size / pgsize;

	if (npages > DIRTY_BITMAP_PAGES_MAX)
		return -EINVAL;
	/*
	 * One spare u64 beyond the pages: update_user_bitmap() shifts the
	 * bitmap left by up to 63 bits to line it up with the user's.  Up
	 * to 256 MiB (INT_MAX pages): more than kmalloc() gives, so
	 * kvcalloc(), which may fall back to vmalloc.
	 */
	dma->bitmap = kvcalloc(BITS_TO_LONGS(npages + BITS_PER_TYPE(u64)),
			       sizeof(unsigned long), GFP_KERNEL);
	return dma->bitmap ? 0 : -ENOMEM;
}

static void vfio_dma_bitmap_free(struct vfio_dma *dma)
{
	kvfree(dma->bitmap);
	dma->bitmap = NULL;
}

/* Externally pinned pages count as dirty for as long as they are pinned. */
static void vfio_dma_populate_bitmap(struct vfio_dma *dma, size_t pgsize)
{
	unsigned long shift = __ffs(pgsize);
	struct rb_node *p;

	for (p = rb_first(&dma->pfn_list); p; p = rb_next(p)) {
		struct vfio_pfn *vpfn = rb_entry(p, struct vfio_pfn, node);

		bitmap_set(dma->bitmap, (vpfn->iova - dma->iova) >> shift, 1);
	}
}

static void vfio_iommu_populate_bitmap_full(struct vfio_iommu *iommu)
{
	unsigned long shift = __ffs(iommu->pgsize_bitmap);
	struct rb_node *n;

	for (n = rb_first(&iommu->dma_list); n; n = rb_next(n)) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);

		bitmap_set(dma->bitmap, 0, dma->size >> shift);
	}
}

static void vfio_dma_bitmap_free_all(struct vfio_iommu *iommu)
{
	struct rb_node *n;

	for (n = rb_first(&iommu->dma_list); n; n = rb_next(n))
		vfio_dma_bitmap_free(rb_entry(n, struct vfio_dma, node));
}

static int vfio_dma_bitmap_alloc_all(struct vfio_iommu *iommu, size_t pgsize)
{
	struct rb_node *n, *failed = NULL;
	int ret = 0;

	for (n = rb_first(&iommu->dma_list); n && !ret; n = rb_next(n)) {
		ret = vfio_dma_bitmap_alloc(rb_entry(n, struct vfio_dma, node),
					    pgsize);
		if (ret)
			failed = n;
	}
	if (ret) {
		/* Give back the bitmaps of the DMAs below the one that failed. */
		for (n = rb_prev(failed); n; n = rb_prev(n))
			vfio_dma_bitmap_free(rb_entry(n, struct vfio_dma, node));
		return ret;
	}
	for (n = rb_first(&iommu->dma_list); n; n = rb_next(n))
		vfio_dma_populate_bitmap(rb_entry(n, struct vfio_dma, node),
					 pgsize);
	return 0;
}

/*
 * The smallest page size changed while dirty tracking is on (a domain came
 * or went): the bitmaps count pages of the old size, and filling them in
 * the new one would run past their end.  Size them in the new pages and
 * report every page dirty, since nothing recorded in the old size carries
 * over.  Without memory for that, tracking stops: the next GET_BITMAP
 * fails and userspace starts it again.
 */
static void vfio_dma_bitmap_resize_all(struct vfio_iommu *iommu,
				       unsigned long old_pgsize_bitmap)
{
	if (!iommu->dirty_page_tracking ||
	    __ffs(old_pgsize_bitmap) == __ffs(iommu->pgsize_bitmap))
		return;
	vfio_dma_bitmap_free_all(iommu);
	if (vfio_dma_bitmap_alloc_all(iommu,
				      (size_t)1 << __ffs(iommu->pgsize_bitmap))) {
		iommu->dirty_page_tracking = false;
		return;
	}
	vfio_iommu_populate_bitmap_full(iommu);
}

/* ---- externally pinned pages (struct vfio_pfn by iova) ---- */

static struct vfio_pfn *vfio_find_vpfn(struct vfio_dma *dma, dma_addr_t iova)
{
	struct rb_node *n = dma->pfn_list.rb_node;

	while (n) {
		struct vfio_pfn *vpfn = rb_entry(n, struct vfio_pfn, node);

		if (iova == vpfn->iova)
			return vpfn;
		n = iova < vpfn->iova ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* How many pages of [iova, iova + npage pages) are pinned externally. */
static long vpfn_pages(struct vfio_dma *dma, dma_addr_t iova,
		       unsigned long npage)
{
	dma_addr_t last = iova + (((dma_addr_t)npage << PAGE_SHIFT) - 1);
	struct rb_node *n = dma->pfn_list.rb_node, *lowest = NULL;
	long count = 0;

	/* Every caller asks about a run of at least one page. */
	if (!npage)	/* GCOVR_EXCL_BR_LINE: never 0, see above */
		return 0;
	/* The lowest node at or above iova, then walk up to last. */
	while (n) {
		struct vfio_pfn *vpfn = rb_entry(n, struct vfio_pfn, node);

		if (vpfn->iova >= iova) {
			lowest = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	for (n = lowest; n; n = rb_next(n)) {
		if (rb_entry(n, struct vfio_pfn, node)->iova > last)
			break;
		count++;
	}
	return count;
}

static int vfio_add_to_pfn_list(struct vfio_dma *dma, dma_addr_t iova,
				unsigned long pfn)
{
	struct rb_node **link = &dma->pfn_list.rb_node, *parent = NULL;
	struct vfio_pfn *new;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->iova = iova;
	new->pfn = pfn;
	new->ref_count = 1;

	while (*link) {
		struct vfio_pfn *vpfn;

		parent = *link;
		vpfn = rb_entry(parent, struct vfio_pfn, node);
		link = iova < vpfn->iova ? &parent->rb_left :
					   &parent->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &dma->pfn_list);
	return 0;
}

/* Drop one reference; the last one unpins.  Returns pages unpinned. */
static int vfio_iova_put_vfio_pfn(struct vfio_dma *dma, struct vfio_pfn *vpfn)
{
	int unpinned;

	if (--vpfn->ref_count)
		return 0;
	unpinned = put_pfn(vpfn->pfn, dma->prot);
	rb_erase(&vpfn->node, &dma->pfn_list);
	kfree(vpfn);
	return unpinned;
}

/* ---- locked_vm accounting ---- */

static int mm_lock_acct(struct task_struct *task, struct mm_struct *mm,
			bool lock_cap, long npage)
{
	int ret;

	ret = mmap_write_lock_killable(mm);
	if (ret)
		return ret;
	ret = __account_locked_vm(mm, npage < 0 ? -npage : npage, npage > 0,
				  task, lock_cap);
	mmap_write_unlock(mm);
	return ret;
}

/*
 * Charge (npage > 0) or uncharge the DMA's owner.  async: the caller is
 * not the owner's thread, so the mm may be exiting.
 */
static int vfio_lock_acct(struct vfio_dma *dma, long npage, bool async)
{
	struct mm_struct *mm = dma->mm;
	int ret;

	if (!npage)
		return 0;
	if (async && !mmget_not_zero(mm))
		return -ESRCH;	/* the owner has exited */

	ret = mm_lock_acct(dma->task, mm, dma->lock_cap, npage);
	if (async)
		mmput(mm);
	if (ret)
		return ret;
	dma->locked_vm += npage;
	return 0;
}

/* ---- pinning ---- */

/*
 * A pfn with no struct page (MMIO) or a reserved one is neither pinned
 * nor charged.  Drivers that reserve a compound page reserve every subpage.
 */
static bool is_invalid_reserved_pfn(unsigned long pfn)
{
	if (!pfn_valid(pfn))
		return true;
	return PageReserved(pfn_to_page(pfn));
}

/* Unpin one page pinned by GUP; 1 if it was one, 0 for a reserved pfn. */
static int put_pfn(unsigned long pfn, int prot)
{
	struct page *page;

	if (is_invalid_reserved_pfn(pfn))
		return 0;
	page = pfn_to_page(pfn);
	unpin_user_pages_dirty_lock(&page, 1, prot & IOMMU_WRITE);
	return 1;
}

/*
 * A batch of pinned pages: a page's worth of pointers, or just one when
 * @single (the external pin path) or when huge pages are disabled.
 */
static void vfio_batch_setup(struct vfio_batch *batch, bool single)
{
	batch->size = 0;
	batch->offset = 0;
	batch->pages = NULL;

	if (!single && !disable_hugepages)
		batch->pages = (struct page **)__get_free_page(GFP_KERNEL);
	if (batch->pages) {
		batch->capacity = VFIO_BATCH_MAX_CAPACITY;
	} else {
		batch->pages = &batch->fallback_page;
		batch->capacity = 1;
	}
}

/* Unpin the pages a batch still holds. */
static void vfio_batch_unpin(struct vfio_batch *batch, struct vfio_dma *dma)
{
	for (; batch->size; batch->size--, batch->offset++)
		put_pfn(page_to_pfn(batch->pages[batch->offset]), dma->prot);
}

static void vfio_batch_fini(struct vfio_batch *batch)
{
	/* Only a batch that got its own page has one to give back. */
	if (batch->pages != &batch->fallback_page)
		free_page((unsigned long)batch->pages);
}

/*
 * The pfn behind vaddr in a VM_PFNMAP vma, faulting it in if needed, and
 * the address mask of the page-table leaf that maps it.
 */
static int follow_fault_pfn(struct vm_area_struct *vma, struct mm_struct *mm,
			    unsigned long vaddr, unsigned long *pfn,
			    unsigned long *addr_mask, bool write_fault)
{
	struct follow_pfnmap_args args = { .vma = vma, .address = vaddr };
	int ret = follow_pfnmap_start(&args);

	if (ret) {
		unsigned int flags = FAULT_FLAG_REMOTE;
		bool dropped = false;

		if (write_fault)
			flags |= FAULT_FLAG_WRITE;
		ret = fixup_user_fault(mm, vaddr, flags, &dropped);
		/* The mmap lock was let go: look the vma up again. */
		if (dropped)
			return -EAGAIN;
		ret = ret ?: follow_pfnmap_start(&args);
		if (ret)
			return ret;
	}

	ret = -EFAULT;
	if (!write_fault || args.writable) {
		*pfn = args.pfn;
		*addr_mask = args.addr_mask;
		ret = 0;
	}
	follow_pfnmap_end(&args);
	return ret;
}

/*
 * Pfns for up to npages pages from vaddr.  Page-backed memory is pinned
 * into the batch (at most its capacity, possibly discontiguous); a
 * VM_PFNMAP range is only looked up, one page-table leaf per call, and
 * never enters the batch.  Returns how many pfns from vaddr were obtained
 * (the first in *pfn), or a negative errno; never 0.
 */
static long vaddr_get_pfns(struct mm_struct *mm, unsigned long vaddr,
			   unsigned long npages, int prot, unsigned long *pfn,
			   struct vfio_batch *batch)
{
	unsigned long nr = min_t(unsigned long, npages, batch->capacity);
	unsigned int gup_flags = FOLL_LONGTERM;
	struct vm_area_struct *vma;
	long ret;

	if (prot & IOMMU_WRITE)
		gup_flags |= FOLL_WRITE;

	mmap_read_lock(mm);
again:
	ret = pin_user_pages_remote(mm, vaddr, nr, gup_flags, batch->pages,
				    NULL);
	if (ret > 0) {
		*pfn = page_to_pfn(batch->pages[0]);
		batch->size = ret;
		batch->offset = 0;
		goto out;
	}
	if (!ret)
		ret = -EFAULT;

	vaddr = untagged_addr_remote(mm, vaddr);
	vma = vma_lookup(mm, vaddr);
	if (vma && (vma->vm_flags & VM_PFNMAP)) {
		unsigned long addr_mask, leaf_end_pfn;

		ret = follow_fault_pfn(vma, mm, vaddr, pfn, &addr_mask,
				       prot & IOMMU_WRITE);
		/*
		 * The mmap lock was dropped: the range may now be unmapped
		 * or ordinary memory.  Start over, GUP included, rather than
		 * hand -EAGAIN to userspace.
		 */
		if (ret == -EAGAIN)
			goto again;
		if (!ret) {
			if (!is_invalid_reserved_pfn(*pfn)) {
				ret = -EFAULT;
			} else {
				/* Every pfn up to the end of this leaf. */
				leaf_end_pfn = (*pfn |
					(~addr_mask >> PAGE_SHIFT)) + 1;
				ret = min_t(unsigned long, npages,
					    leaf_end_pfn - *pfn);
			}
		}
	}
out:
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Leading entries of pages[0..nr) whose pfns follow one another and that
 * are reserved (or not) as the run is: a folio is all one or the other,
 * so that is asked once per folio.  A reserved page physically next to
 * the run (the zero page after a THP) ends it, uncharged.
 */
static unsigned long vfio_batch_contig_pages(struct page **pages,
					     unsigned long nr, bool rsvd)
{
	unsigned long first = page_to_pfn(pages[0]), i;
	struct folio *folio = page_folio(pages[0]);

	for (i = 1; i < nr; i++) {
		if (page_to_pfn(pages[i]) != first + i)
			break;
		if (page_folio(pages[i]) == folio)
			continue;
		folio = page_folio(pages[i]);
		if (is_invalid_reserved_pfn(first + i) != rsvd)
			break;
	}
	return i;
}

/*
 * Pin from vaddr the longest run of pages that is physically contiguous
 * and all reserved or all not, charging the non-reserved ones that are not
 * already pinned externally.  Pages pinned past the run stay in the batch
 * for the next call.  Returns the run's length (first pfn in *pfn_base) or
 * a negative errno, with nothing of this call left pinned.
 */
static long vfio_pin_pages_remote(struct vfio_dma *dma, unsigned long vaddr,
				  unsigned long npage, unsigned long *pfn_base,
				  unsigned long limit, struct vfio_batch *batch)
{
	struct mm_struct *mm = current->mm;
	long ret = 0, pinned = 0, lock_acct = 0;
	unsigned long pfn = 0;
	bool rsvd = false;

	/* Only a MAP_DMA from the owner's own thread pins. */
	if (!mm)
		return -ENODEV;

	*pfn_base = 0;
	if (batch->size) {
		*pfn_base = page_to_pfn(batch->pages[batch->offset]);
		pfn = *pfn_base;
		rsvd = is_invalid_reserved_pfn(*pfn_base);
	}

	if (disable_hugepages)
		npage = 1;

	while (npage) {
		if (!batch->size) {
			/* Big mappings refill many times: let others run. */
			cond_resched();
			ret = vaddr_get_pfns(mm, vaddr, npage, dma->prot, &pfn,
					     batch);
			if (ret < 0)
				goto unpin_out;
			/*
			 * The run's first pfn decides what the run is: with
			 * nothing pinned yet, not when *pfn_base is 0 (a
			 * run may start at pfn 0, a BAR at physical 0).
			 */
			if (!pinned) {
				rsvd = is_invalid_reserved_pfn(pfn);
				*pfn_base = pfn;
			}

			/* A pfnmap stride: ret pfns from pfn, not pinned. */
			if (!batch->size) {
				if (pfn != *pfn_base + pinned || !rsvd)
					goto out;
				pinned += ret;
				npage -= ret;
				vaddr += (unsigned long)ret << PAGE_SHIFT;
				continue;
			}
		}

		for (;;) {
			unsigned long nr, acct;

			if (pfn != *pfn_base + pinned ||
			    rsvd != is_invalid_reserved_pfn(pfn))
				goto out;

			nr = vfio_batch_contig_pages(batch->pages +
						     batch->offset,
						     min_t(unsigned long,
							   batch->size,
							   npage), rsvd);
			if (!rsvd) {
				/*
				 * The run's IOVA, from vaddr: never a step past
				 * a range that ends at 2^64.
				 */
				acct = nr - vpfn_pages(dma, vaddr - dma->vaddr +
							    dma->iova, nr);
				if (acct && !dma->lock_cap &&
				    mm->locked_vm + lock_acct + acct > limit) {
					pr_warn("%s: RLIMIT_MEMLOCK (%ld) exceeded\n",
						__func__, limit << PAGE_SHIFT);
					ret = -ENOMEM;
					goto unpin_out;
				}
				lock_acct += acct;
			}

			pinned += nr;
			npage -= nr;
			vaddr += nr << PAGE_SHIFT;
			batch->offset += nr;
			batch->size -= nr;
			if (!batch->size || !npage)
				break;
			pfn = page_to_pfn(batch->pages[batch->offset]);
		}
	}

out:
	/* One locked_vm charge for the whole run; then note reserved pfns. */
	ret = vfio_lock_acct(dma, lock_acct, false);
	dma->has_rsvd |= rsvd;

unpin_out:
	if (ret >= 0)
		return pinned;
	/* Give back this call's run (reserved pfns were never pinned)... */
	while (!rsvd && pinned--)
		put_pfn(*pfn_base + pinned, dma->prot);
	/* ...and whatever the batch pinned beyond it. */
	vfio_batch_unpin(batch, dma);
	return ret;
}

/*
 * Unpin npage pages from pfn mapped at iova; returns how many were really
 * unpinned.  Externally pinned pages in the range keep their charge.
 */
static long vfio_unpin_pages_remote(struct vfio_dma *dma, dma_addr_t iova,
				    unsigned long pfn, unsigned long npage,
				    bool do_accounting)
{
	long locked = vpfn_pages(dma, iova, npage), unlocked = 0;
	unsigned long i;

	if (dma->has_rsvd) {
		for (i = 0; i < npage; i++)
			unlocked += put_pfn(pfn + i, dma->prot);
	} else {
		unpin_user_page_range_dirty_lock(pfn_to_page(pfn), npage,
						 dma->prot & IOMMU_WRITE);
		unlocked = npage;
	}
	/* Pages still pinned externally stay charged. */
	if (do_accounting)
		vfio_lock_acct(dma, -(unlocked - locked), true);
	return unlocked;
}

/*
 * Unpin an unmapped run of a kind the unmap side knows.  A reserved run
 * was neither pinned nor charged by vfio_pin_pages_remote(): nothing to
 * put back (mainline asks put_pfn() of every pfn, each a no-op).
 */
static long vfio_unpin_run(struct vfio_dma *dma, dma_addr_t iova,
			   unsigned long pfn, unsigned long npage,
			   enum vfio_run_kind kind)
{
	if (kind == VFIO_RUN_RESERVED)
		return 0;
	if (kind == VFIO_RUN_PINNED) {
		unpin_user_page_range_dirty_lock(pfn_to_page(pfn), npage,
						 dma->prot & IOMMU_WRITE);
		return npage;
	}
	return vfio_unpin_pages_remote(dma, iova, pfn, npage, false);
}

/*
 * unmap_stride: note a run just mapped, so that its unmap needs no
 * probe.  Best effort: a run not noted (short, at physical page 0, whose
 * translation reads as "unmapped", or no memory for the note) is probed
 * at unmap time as before.
 */
static void vfio_dma_note_run(struct vfio_dma *dma, dma_addr_t iova,
			      unsigned long pfn, unsigned long npage)
{
	if (!unmap_stride || npage < VFIO_RUN_MIN_PAGES || !pfn)
		return;
	if (dma->nr_runs == dma->max_runs) {
		unsigned int max = dma->max_runs ? dma->max_runs * 2 : 4;
		struct vfio_run *runs;

		if (max < dma->max_runs)
			return;
		runs = kvmalloc_array(max, sizeof(*runs), GFP_KERNEL_ACCOUNT);
		if (!runs)
			return;
		if (dma->nr_runs)
			memcpy(runs, dma->runs, dma->nr_runs * sizeof(*runs));
		kvfree(dma->runs);
		dma->runs = runs;
		dma->max_runs = max;
	}
	dma->runs[dma->nr_runs++] = (struct vfio_run) {
		.iova = iova, .pfn = pfn, .npage = npage,
		.kind = is_invalid_reserved_pfn(pfn) ? VFIO_RUN_RESERVED :
						       VFIO_RUN_PINNED,
	};
}

/* The runs are unmapped (or their pins undone): the notes go. */
static void vfio_dma_forget_runs(struct vfio_dma *dma)
{
	kvfree(dma->runs);
	dma->runs = NULL;
	dma->nr_runs = 0;
	dma->max_runs = 0;
}

/*
 * The noted run that starts at iova, or NULL; *next is the walk's cursor
 * into dma->runs (iova only grows).  *limit: bytes from iova to the next
 * noted run, which a probe need not look past.
 */
static const struct vfio_run *vfio_run_at(const struct vfio_dma *dma,
					  dma_addr_t iova, unsigned int *next,
					  size_t *limit)
{
	while (*next < dma->nr_runs && dma->runs[*next].iova < iova)
		(*next)++;
	*limit = SIZE_MAX;
	if (*next == dma->nr_runs)
		return NULL;
	if (dma->runs[*next].iova == iova)
		return &dma->runs[(*next)++];
	*limit = dma->runs[*next].iova - iova;
	return NULL;
}

static int vfio_pin_page_external(struct vfio_dma *dma, unsigned long vaddr,
				  unsigned long *pfn, bool do_accounting)
{
	struct mm_struct *mm = dma->mm;
	struct vfio_batch batch;
	long ret;

	if (!mmget_not_zero(mm))
		return -ENODEV;

	vfio_batch_setup(&batch, true);
	ret = vaddr_get_pfns(mm, vaddr, 1, dma->prot, pfn, &batch);
	if (ret != 1)
		goto out;
	ret = 0;
	if (do_accounting && !is_invalid_reserved_pfn(*pfn)) {
		ret = vfio_lock_acct(dma, 1, false);
		if (ret) {
			put_pfn(*pfn, dma->prot);
			/*
			 * GCOVR_EXCL_BR_START: the only branch inside is the
			 * userspace task_rlimit()'s test for a task without
			 * rlimits (the boot task), which owns no DMA.
			 */
			if (ret == -ENOMEM)
				pr_warn("%s: Task %s (%d) RLIMIT_MEMLOCK (%ld) exceeded\n",
					__func__, dma->task->comm,
					task_pid_nr(dma->task),
					task_rlimit(dma->task,
						    RLIMIT_MEMLOCK));
			/* GCOVR_EXCL_BR_STOP */
		}
	}
out:
	vfio_batch_fini(&batch);
	mmput(mm);
	return ret;
}

/* Drop one external pin of iova; returns the pages really unpinned. */
static int vfio_unpin_page_external(struct vfio_dma *dma, dma_addr_t iova,
				    bool do_accounting)
{
	struct vfio_pfn *vpfn = vfio_find_vpfn(dma, iova);
	int unlocked = vpfn ? vfio_iova_put_vfio_pfn(dma, vpfn) : 0;

	if (unlocked && do_accounting)
		vfio_lock_acct(dma, -unlocked, true);
	return unlocked;
}

static struct vfio_iommu_group *
vfio_iommu_find_iommu_group(struct vfio_iommu *iommu,
			    struct iommu_group *iommu_group);

/*
 * Pin the page behind iova for an emulated device (or take another
 * reference on it) and return its struct page.
 */
static int vfio_pin_one_external(struct vfio_iommu *iommu, dma_addr_t iova,
				 int prot, bool do_accounting,
				 struct page **page)
{
	struct vfio_dma *dma = vfio_find_dma(iommu, iova);
	struct vfio_pfn *vpfn;
	unsigned long pfn;
	int ret;

	if (!dma)
		return -EINVAL;
	if ((dma->prot & prot) != prot)
		return -EPERM;

	vpfn = vfio_find_vpfn(dma, iova);
	if (vpfn) {
		vpfn->ref_count++;
		*page = pfn_to_page(vpfn->pfn);
		return 0;
	}

	ret = vfio_pin_page_external(dma, dma->vaddr + (iova - dma->iova),
				     &pfn, do_accounting);
	if (ret)
		return ret;
	/* The caller wants a struct page: MMIO cannot be handed out. */
	if (!pfn_valid(pfn))
		return -EINVAL;

	ret = vfio_add_to_pfn_list(dma, iova, pfn);
	if (ret) {
		if (put_pfn(pfn, dma->prot) && do_accounting)
			vfio_lock_acct(dma, -1, true);
		return ret;
	}
	*page = pfn_to_page(pfn);

	/* Dirty tracking counts in the smallest page size. */
	if (iommu->dirty_page_tracking)
		bitmap_set(dma->bitmap,
			   (iova - dma->iova) >> __ffs(iommu->pgsize_bitmap), 1);
	return 0;
}

static int vfio_iommu_type1_pin_pages(void *iommu_data,
				      struct iommu_group *iommu_group,
				      dma_addr_t user_iova, int npage,
				      int prot, struct page **pages)
{
	struct vfio_iommu *iommu = iommu_data;
	struct vfio_iommu_group *group;
	bool do_accounting;
	int i, ret;

	/* vfio_pin_pages() has refused a NULL array already. */
	if (!iommu || !pages)	/* GCOVR_EXCL_BR_LINE: see above */
		return -EINVAL;
	/* The v1 interface never had external pinning. */
	if (!iommu->v2)
		return -EACCES;

	mutex_lock(&iommu->lock);

	ret = -EBUSY;
	if (WARN_ONCE(iommu->vaddr_invalid_count,
		      "vfio_pin_pages not allowed with VFIO_UPDATE_VADDR\n"))
		goto out_unlock;
	/* Pinning needs a device to tell when the range goes away. */
	ret = -EINVAL;
	if (list_empty(&iommu->device_list))
		goto out_unlock;

	/* With an IOMMU domain everything is pinned and charged already. */
	do_accounting = list_empty(&iommu->domain_list);

	for (i = 0; i < npage; i++) {
		ret = vfio_pin_one_external(iommu,
					    user_iova + (dma_addr_t)i * PAGE_SIZE,
					    prot, do_accounting, &pages[i]);
		if (ret)
			break;
	}
	if (ret) {
		/* Undo the pages before the one that failed. */
		pages[i] = NULL;
		while (i--) {
			dma_addr_t iova = user_iova + (dma_addr_t)i * PAGE_SIZE;

			vfio_unpin_page_external(vfio_find_dma(iommu, iova),
						 iova, do_accounting);
			pages[i] = NULL;
		}
		goto out_unlock;
	}

	/*
	 * This group reports what it touches: it no longer dirties all.  The
	 * VFIO core only lets a device of an attached group pin, so group is
	 * never NULL.
	 */
	group = vfio_iommu_find_iommu_group(iommu, iommu_group);
	if (group && !group->pinned_page_dirty_scope) { /* GCOVR_EXCL_BR_LINE */
		group->pinned_page_dirty_scope = true;
		iommu->num_non_pinned_groups--;
	}
	ret = npage;

out_unlock:
	mutex_unlock(&iommu->lock);
	return ret;
}

/* Emulated devices drop their pins, page by page. */
static void vfio_iommu_type1_unpin_pages(void *iommu_data,
					 dma_addr_t user_iova, int npage)
{
	struct vfio_iommu *iommu = iommu_data;
	dma_addr_t iova = user_iova;
	int done;

	if (WARN_ON(!iommu->v2))
		return;

	mutex_lock(&iommu->lock);
	for (done = 0; done < npage; done++, iova += PAGE_SIZE) {
		struct vfio_dma *dma = vfio_find_dma(iommu, iova);

		if (!dma)
			break;
		/* Charged here only when no IOMMU domain pinned it all. */
		vfio_unpin_page_external(dma, iova,
					 list_empty(&iommu->domain_list));
	}
	mutex_unlock(&iommu->lock);
	WARN_ON(done != npage);
}

/* ---- unmapping ---- */

/* Flush the IOTLB, then (only then) unpin what the queued regions mapped. */
static long vfio_sync_unpin(struct vfio_dma *dma, struct vfio_domain *domain,
			    struct list_head *regions,
			    struct iommu_iotlb_gather *gather)
{
	struct vfio_regions *r, *tmp;
	long unlocked = 0;

	iommu_iotlb_sync(domain->domain, gather);

	list_for_each_entry_safe(r, tmp, regions, list) {
		unlocked += vfio_unpin_run(dma, r->iova, r->phys >> PAGE_SHIFT,
					   r->len >> PAGE_SHIFT, r->kind);
		list_del(&r->list);
		kfree(r);
	}
	cond_resched();
	return unlocked;
}

/*
 * What the unpin must assume of [iova, iova + unmapped) after unmapping a
 * run of len bytes: a domain that joined later was mapped from another
 * domain's physically contiguous stretches, so one of its leaves may span
 * a noted run and the pages of the other kind next to it (a pinned page
 * physically after a reserved run, or before), and unmapping the run takes
 * the whole leaf.  Pfns past the run are then unpinned one by one, each as
 * what it is, as a probed run's are.
 */
static enum vfio_run_kind vfio_unmapped_kind(enum vfio_run_kind kind,
					     size_t len, size_t unmapped)
{
	return unmapped > len ? VFIO_RUN_PROBED : kind;
}

/*
 * Unmap [iova, iova + len) without a sync and queue it for unpinning.
 * Returns the bytes unmapped (0 on failure, after draining the queue).
 */
static size_t unmap_unpin_fast(struct vfio_domain *domain,
			       struct vfio_dma *dma, dma_addr_t iova,
			       size_t len, phys_addr_t phys,
			       enum vfio_run_kind kind, long *unlocked,
			       struct list_head *queue, int *queued,
			       struct iommu_iotlb_gather *gather)
{
	struct vfio_regions *r = kzalloc(sizeof(*r), GFP_KERNEL);
	size_t unmapped = 0;

	/*
	 * The run was just found mapped, aligned to the domain's smallest
	 * page (or PAGE_SIZE with fine-grained superpages): unmapping it
	 * cannot fail, unmapped is 0 only when r could not be allocated.
	 */
	if (r) {
		unmapped = iommu_unmap_fast(domain->domain, iova, len, gather);
		if (unmapped) {	/* GCOVR_EXCL_BR_LINE: see above */
			r->iova = iova;
			r->phys = phys;
			r->len = unmapped;
			r->kind = vfio_unmapped_kind(kind, len, unmapped);
			list_add_tail(&r->list, queue);
			(*queued)++;
		} else {
			kfree(r);	/* GCOVR_EXCL_LINE: see above */
		}
	}

	if (!unmapped || *queued >= VFIO_IOMMU_TLB_SYNC_MAX) { /* GCOVR_EXCL_BR_LINE */
		*unlocked += vfio_sync_unpin(dma, domain, queue, gather);
		*queued = 0;
	}
	return unmapped;
}

/* iommu_unmap() syncs by itself, so unpin at once. */
static size_t unmap_unpin_slow(struct vfio_domain *domain,
			       struct vfio_dma *dma, dma_addr_t iova,
			       size_t len, phys_addr_t phys,
			       enum vfio_run_kind kind, long *unlocked)
{
	size_t unmapped = iommu_unmap(domain->domain, iova, len);
	unsigned long npage = unmapped >> PAGE_SHIFT;

	/* As in unmap_unpin_fast(), the run cannot fail to unmap. */
	if (!unmapped)	/* GCOVR_EXCL_BR_LINE: see above */
		return 0;
	*unlocked += vfio_unpin_run(dma, iova, PHYS_PFN(phys), npage,
				    vfio_unmapped_kind(kind, len, unmapped));
	cond_resched();
	return unmapped;
}

/*
 * Remove the DMA from every domain and unpin its pages.  The first domain
 * says which pfns back each iova; all others are emptied first, so no
 * translation survives a page's unpinning.  Walks by offset into the
 * range, so a range ending at the top of the IOVA space terminates.
 */
static long vfio_unmap_unpin(struct vfio_iommu *iommu, struct vfio_dma *dma,
			     bool do_accounting)
{
	struct vfio_domain *domain, *d;
	struct iommu_iotlb_gather gather;
	unsigned int next_run = 0;
	LIST_HEAD(queue);
	long unlocked = 0;
	int queued = 0;
	size_t pos = 0;

	if (!dma->size || list_empty(&iommu->domain_list))
		return 0;

	domain = list_first_entry(&iommu->domain_list, struct vfio_domain,
				  next);
	d = domain;
	list_for_each_entry_continue(d, &iommu->domain_list, next) {
		iommu_unmap(d->domain, dma->iova, dma->size);
		cond_resched();
	}

	iommu_iotlb_gather_init(&gather);
	while (pos < dma->size) {
		dma_addr_t iova = dma->iova + pos;
		enum vfio_run_kind kind = VFIO_RUN_PROBED;
		const struct vfio_run *run;
		size_t len, unmapped, limit;
		phys_addr_t phys;

		/* unmap_stride: a run noted at map time needs no probe. */
		run = vfio_run_at(dma, iova, &next_run, &limit);
		if (run) {
			phys = PFN_PHYS(run->pfn);
			len = run->npage << PAGE_SHIFT;
			kind = run->kind;
			goto unmap;
		}

		phys = iommu_iova_to_phys(domain->domain, iova);
		/* Physical page 0 reads as unmapped: it stays mapped. */
		if (WARN_ON(!phys)) {
			pos += PAGE_SIZE;
			continue;
		}

		/* Fewer unmap calls: take the physically contiguous run. */
		len = PAGE_SIZE;
		if (!domain->fgsp) {
			while (pos + len < dma->size && len < limit &&
			       iommu_iova_to_phys(domain->domain, iova + len) ==
			       phys + len)
				len += PAGE_SIZE;
		}
unmap:
		unmapped = unmap_unpin_fast(domain, dma, iova, len, phys, kind,
					    &unlocked, &queue, &queued,
					    &gather);
		if (!unmapped) {
			unmapped = unmap_unpin_slow(domain, dma, iova, len,
						    phys, kind, &unlocked);
			/* GCOVR_EXCL_START: a mapped run always unmaps */
			if (WARN_ON(!unmapped))
				break;
			/* GCOVR_EXCL_STOP */
		}
		pos += unmapped;
	}

	dma->iommu_mapped = false;
	vfio_dma_forget_runs(dma);
	if (queued)
		unlocked += vfio_sync_unpin(dma, domain, &queue, &gather);

	if (!do_accounting)
		return unlocked;
	vfio_lock_acct(dma, -unlocked, true);
	return 0;
}

static void vfio_remove_dma(struct vfio_iommu *iommu, struct vfio_dma *dma)
{
	/* Emulated devices were told to unpin before we got here. */
	WARN_ON(!RB_EMPTY_ROOT(&dma->pfn_list));	/* GCOVR_EXCL_BR_LINE */
	vfio_unmap_unpin(iommu, dma, true);
	vfio_dma_forget_runs(dma);
	rb_erase(&dma->node, &iommu->dma_list);
	iommu->dma_avail++;
	if (dma->vaddr_invalid)
		iommu->vaddr_invalid_count--;
	vfio_dma_bitmap_free(dma);
	mmdrop(dma->mm);
	put_task_struct(dma->task);
	kfree(dma);
}

/*
 * The page sizes every domain supports.  Sizes below PAGE_SIZE are hidden
 * behind PAGE_SIZE: pinning works in pages, the IOMMU driver may still use
 * its smaller pages to map them.
 */
static void vfio_update_pgsize_bitmap(struct vfio_iommu *iommu)
{
	struct vfio_domain *domain;
	uint64_t bitmap = ULONG_MAX;

	list_for_each_entry(domain, &iommu->domain_list, next)
		bitmap &= domain->domain->pgsize_bitmap;
	if (bitmap & ~PAGE_MASK)
		bitmap = (bitmap & PAGE_MASK) | PAGE_SIZE;
	iommu->pgsize_bitmap = bitmap;
}

/*
 * Copy a DMA's dirty bits into the user bitmap whose bit 0 is base_iova.
 * The DMA may start mid-word: its bits are shifted into place and the
 * user's bits below it in that word are kept.
 */
static int update_user_bitmap(u64 __user *bitmap, struct vfio_iommu *iommu,
			      struct vfio_dma *dma, dma_addr_t base_iova,
			      size_t pgsize)
{
	unsigned long shift = __ffs(pgsize);
	unsigned long nbits = dma->size >> shift;
	unsigned long first_bit = (dma->iova - base_iova) >> shift;
	unsigned long word = first_bit / BITS_PER_LONG;
	unsigned long lead = first_bit % BITS_PER_LONG;
	unsigned long user_word;

	/*
	 * A group that can DMA without telling us dirties everything it
	 * can reach.  (With such a group attached there is a domain, and
	 * every DMA is mapped into it: iommu_mapped is then always true.)
	 */
	if (iommu->num_non_pinned_groups && dma->iommu_mapped) /* GCOVR_EXCL_BR_LINE */
		bitmap_set(dma->bitmap, 0, nbits);

	if (lead) {
		bitmap_shift_left(dma->bitmap, dma->bitmap, lead, nbits + lead);
		if (copy_from_user(&user_word, bitmap + word, sizeof(user_word)))
			return -EFAULT;
		bitmap_or(dma->bitmap, dma->bitmap, &user_word, lead);
	}

	if (copy_to_user(bitmap + word, dma->bitmap,
			 DIRTY_BITMAP_BYTES(nbits + lead)))
		return -EFAULT;
	return 0;
}

/* The range must cover whole DMAs: none may be cut by either end. */
static bool vfio_range_bisects_dma(struct vfio_iommu *iommu, dma_addr_t first,
				   dma_addr_t last)
{
	struct vfio_dma *dma;

	dma = vfio_find_dma(iommu, first);
	if (dma && dma->iova != first)
		return true;
	dma = vfio_find_dma(iommu, last);
	return dma && vfio_dma_last(dma) != last;
}

static int vfio_iova_dirty_bitmap(u64 __user *bitmap, struct vfio_iommu *iommu,
				  dma_addr_t iova, dma_addr_t last,
				  size_t pgsize)
{
	unsigned long shift = __ffs(pgsize);
	struct rb_node *n;
	int ret;

	if (vfio_range_bisects_dma(iommu, iova, last))
		return -EINVAL;

	for (n = vfio_find_dma_first_node(iommu, iova, last); n;
	     n = rb_next(n)) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);

		if (dma->iova > last)
			break;
		ret = update_user_bitmap(bitmap, iommu, dma, iova, pgsize);
		if (ret)
			return ret;
		/*
		 * Start the next round with only what is still pinned
		 * externally marked.
		 */
		bitmap_clear(dma->bitmap, 0, dma->size >> shift);
		vfio_dma_populate_bitmap(dma, pgsize);
	}
	return 0;
}

static int verify_bitmap_size(u64 npages, u64 bitmap_size)
{
	if (!npages || !bitmap_size || bitmap_size > DIRTY_BITMAP_SIZE_MAX ||
	    bitmap_size < DIRTY_BITMAP_BYTES(npages))
		return -EINVAL;
	return 0;
}

/*
 * Ask every emulated-IOMMU device to drop its pins in the DMA.  They call
 * back into unpin_pages(), which takes iommu->lock: drop it meanwhile.
 *
 * Lock order: device_list_lock, then iommu->lock, everywhere.  The walk
 * holds device_list_lock while the callbacks take iommu->lock, so nothing
 * may take device_list_lock under iommu->lock: Linux hands over from one
 * to the other here and takes both in that order to (un)register a device,
 * and a register that runs while a callback waits for iommu->lock then
 * deadlocks (docs/kernel-bugs.md, type1-device-list-lock-order).
 */
static void vfio_notify_dma_unmap(struct vfio_iommu *iommu,
				  struct vfio_dma *dma)
{
	u64 start = dma->iova, len = dma->size;
	struct vfio_device *vdev;

	/* Only a registered device pins: with pins, the list is not empty. */
	if (!list_empty(&iommu->device_list)) {	/* GCOVR_EXCL_BR_LINE */
		/*
		 * A device may come or go between the two locks: the walk
		 * sees the list as it is, and the caller looks for pins again.
		 */
		mutex_unlock(&iommu->lock);
		mutex_lock(&iommu->device_list_lock);
		list_for_each_entry(vdev, &iommu->device_list, iommu_entry)
			vdev->ops->dma_unmap(vdev, start, len);
		mutex_unlock(&iommu->device_list_lock);
		mutex_lock(&iommu->lock);
	}
}

/*
 * VFIO_DMA_UNMAP_FLAG_VADDR: the user is about to replace the memory
 * behind the DMAs in [iova, last] (a live update) and will supply new
 * vaddrs with VFIO_DMA_MAP_FLAG_VADDR.  All or nothing: a DMA already
 * without a vaddr fails the whole call.
 */
static int vfio_dma_invalidate_vaddrs(struct vfio_iommu *iommu,
				      dma_addr_t iova, dma_addr_t last,
				      size_t *invalidated)
{
	struct rb_node *first = vfio_find_dma_first_node(iommu, iova, last);
	struct rb_node *n;
	int pass;

	*invalidated = 0;
	/* Pass 0 checks, pass 1 marks. */
	for (pass = 0; pass < 2; pass++) {
		for (n = first; n; n = rb_next(n)) {
			struct vfio_dma *dma = rb_entry(n, struct vfio_dma,
							node);

			if (dma->iova > last ||
			    (!iommu->v2 && dma->iova < iova))
				break;
			if (!pass) {
				if (dma->vaddr_invalid)
					return -EINVAL;
				continue;
			}
			dma->vaddr_invalid = true;
			iommu->vaddr_invalid_count++;
			*invalidated += dma->size;
		}
	}
	return 0;
}

/*
 * VFIO_IOMMU_UNMAP_DMA proper: remove the DMAs in [iova, iova + size) (or
 * all of them), or with VFIO_DMA_UNMAP_FLAG_VADDR only forget their vaddrs.
 * req->size is overwritten with the bytes removed.
 */
static int vfio_dma_do_unmap(struct vfio_iommu *iommu,
			     struct vfio_iommu_type1_dma_unmap *req,
			     struct vfio_bitmap *dirty)
{
	bool unmap_all = req->flags & VFIO_DMA_UNMAP_FLAG_ALL;
	bool get_dirty = req->flags & VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP;
	struct vfio_dma *dma, *busy_dma = NULL;
	dma_addr_t iova = req->iova, last;
	size_t removed = 0, pgsize;
	unsigned int busy_rounds = 0;
	struct rb_node *n;
	int ret = -EINVAL;

	mutex_lock(&iommu->lock);

	/* Emulated devices pin through vaddr: it must stay valid. */
	if ((req->flags & VFIO_DMA_UNMAP_FLAG_VADDR) &&
	    !list_empty(&iommu->emulated_iommu_groups)) {
		ret = -EBUSY;
		goto out_unlock;
	}

	pgsize = (size_t)1 << __ffs(iommu->pgsize_bitmap);
	if (iova & (pgsize - 1))
		goto out_unlock;
	if (unmap_all) {
		if (iova || req->size)
			goto out_unlock;
		last = ~(dma_addr_t)0;
	} else if (!req->size || req->size & (pgsize - 1)) {
		goto out_unlock;
	} else if (check_add_overflow(iova, req->size - 1, &last)) {
		ret = -EOVERFLOW;
		goto out_unlock;
	}

	/* A dirty bitmap only at the smallest page size, while tracking. */
	if (get_dirty &&
	    (!iommu->dirty_page_tracking || dirty->pgsize != pgsize))
		goto out_unlock;
	WARN_ON((pgsize - 1) & PAGE_MASK);

restart:
	/*
	 * v2 unmaps whole DMAs only and refuses a range that cuts one.  v1
	 * keeps its old looseness: a DMA that starts below iova ends the
	 * walk, and what was removed so far is reported.
	 */
	if (iommu->v2 && !unmap_all && vfio_range_bisects_dma(iommu, iova, last))
		goto out_unlock;

	if (req->flags & VFIO_DMA_UNMAP_FLAG_VADDR) {
		ret = vfio_dma_invalidate_vaddrs(iommu, iova, last, &removed);
		goto out_unlock;
	}
	ret = 0;

	for (n = vfio_find_dma_first_node(iommu, iova, last); n; ) {
		dma = rb_entry(n, struct vfio_dma, node);
		if (dma->iova > last || (!iommu->v2 && dma->iova < iova))
			break;

		if (!RB_EMPTY_ROOT(&dma->pfn_list)) {
			/*
			 * Emulated devices still pin pages here.  They must
			 * unpin when told; one that keeps refusing is a bug.
			 */
			busy_rounds = dma == busy_dma ? busy_rounds + 1 : 0;
			busy_dma = dma;
			BUG_ON(busy_rounds > 10);	/* GCOVR_EXCL_BR_LINE: BUG */
			vfio_notify_dma_unmap(iommu, dma);
			goto restart;
		}

		if (get_dirty) {
			ret = update_user_bitmap(dirty->data, iommu, dma, iova,
						 pgsize);
			if (ret)
				break;
		}

		n = rb_next(n);
		removed += dma->size;
		vfio_remove_dma(iommu, dma);
	}

out_unlock:
	mutex_unlock(&iommu->lock);
	req->size = removed;
	return ret;
}

/* ---- mapping ---- */

static int vfio_iommu_map(struct vfio_iommu *iommu, dma_addr_t iova,
			  unsigned long pfn, unsigned long npage, int prot)
{
	size_t size = (size_t)npage << PAGE_SHIFT;
	struct vfio_domain *d;
	int ret = 0;

	list_for_each_entry(d, &iommu->domain_list, next) {
		ret = iommu_map(d->domain, iova, (phys_addr_t)pfn << PAGE_SHIFT,
				size, prot | IOMMU_CACHE, GFP_KERNEL_ACCOUNT);
		if (ret)
			break;
		cond_resched();
	}
	if (!ret)
		return 0;

	/* d failed: undo the domains before it. */
	list_for_each_entry_continue_reverse(d, &iommu->domain_list, next) {
		iommu_unmap(d->domain, iova, size);
		cond_resched();
	}
	return ret;
}

/*
 * Pin and map a new DMA chunk by chunk (one physically contiguous run per
 * round); dma->size tracks what is mapped.  On failure the whole DMA goes.
 */
static int vfio_pin_map_dma(struct vfio_iommu *iommu, struct vfio_dma *dma,
			    size_t size)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct vfio_batch batch;
	unsigned long pfn;
	int ret = 0;

	vfio_batch_setup(&batch, false);

	while (dma->size < size) {
		dma_addr_t iova = dma->iova + dma->size;
		long npage;

		npage = vfio_pin_pages_remote(dma, dma->vaddr + dma->size,
					      (size - dma->size) >> PAGE_SHIFT,
					      &pfn, limit, &batch);
		if (npage < 1) {
			/* 0 would be a bug: nothing pinned, nothing said. */
			WARN_ON(!npage);	/* GCOVR_EXCL_BR_LINE: never 0 */
			ret = npage;
			break;
		}

		ret = vfio_iommu_map(iommu, iova, pfn, npage, dma->prot);
		if (ret) {
			vfio_unpin_pages_remote(dma, iova, pfn, npage, true);
			vfio_batch_unpin(&batch, dma);
			break;
		}
		vfio_dma_note_run(dma, iova, pfn, npage);
		dma->size += (size_t)npage << PAGE_SHIFT;
	}

	vfio_batch_fini(&batch);
	dma->iommu_mapped = true;
	if (!ret)
		return 0;
	vfio_remove_dma(iommu, dma);
	return ret;
}

/* [first, last] inside one usable IOVA range (or no ranges known yet). */
static bool vfio_iommu_iova_dma_valid(struct vfio_iommu *iommu,
				      dma_addr_t first, dma_addr_t last)
{
	struct vfio_iova *r;

	/* A container with only emulated devices has no list. */
	if (list_empty(&iommu->iova_list))
		return true;
	list_for_each_entry(r, &iommu->iova_list, list)
		if (first >= r->start && last <= r->end)
			return true;
	return false;
}

/* VFIO_DMA_MAP_FLAG_VADDR from another process: move the charge. */
static int vfio_change_dma_owner(struct vfio_dma *dma)
{
	struct task_struct *leader = current->group_leader;
	struct mm_struct *new_mm = current->mm;
	bool cap;
	int ret;

	if (new_mm == dma->mm)
		return 0;

	/* Charge the new owner first: if that fails nothing has changed. */
	cap = capable(CAP_IPC_LOCK);
	ret = mm_lock_acct(leader, new_mm, cap, dma->locked_vm);
	if (ret)
		return ret;
	/* An old owner that has exited has nothing left to uncharge. */
	if (mmget_not_zero(dma->mm)) {
		mm_lock_acct(dma->task, dma->mm, dma->lock_cap,
			     -(long)dma->locked_vm);
		mmput(dma->mm);
	}

	mmgrab(new_mm);
	mmdrop(dma->mm);
	dma->mm = new_mm;
	if (dma->task != leader) {
		get_task_struct(leader);
		put_task_struct(dma->task);
		dma->task = leader;
	}
	dma->lock_cap = cap;
	return 0;
}

/* VFIO_DMA_MAP_FLAG_VADDR: the DMA at exactly [iova, +size) gets vaddr back. */
static int vfio_dma_set_vaddr(struct vfio_iommu *iommu, struct vfio_dma *dma,
			      dma_addr_t iova, unsigned long vaddr,
			      size_t size)
{
	int ret;

	if (!dma)
		return -ENOENT;
	if (!dma->vaddr_invalid || dma->iova != iova || dma->size != size)
		return -EINVAL;
	ret = vfio_change_dma_owner(dma);
	if (ret)
		return ret;
	dma->vaddr = vaddr;
	dma->vaddr_invalid = false;
	iommu->vaddr_invalid_count--;
	return 0;
}

/* VFIO_IOMMU_MAP_DMA proper, after the ioctl's own checks. */
static int vfio_dma_do_map(struct vfio_iommu *iommu,
			   struct vfio_iommu_type1_dma_map *req)
{
	bool new_vaddr = req->flags & VFIO_DMA_MAP_FLAG_VADDR;
	dma_addr_t iova = req->iova, iova_last;
	unsigned long vaddr = req->vaddr, vaddr_last;
	size_t size = req->size, pgsize;
	struct vfio_dma *dma;
	int prot = 0, ret;

	/* The u64 fields must fit the kernel's types. */
	if (req->size != size || req->vaddr != vaddr || req->iova != iova)
		return -EOVERFLOW;

	/* Read and write as the device sees it. */
	if (req->flags & VFIO_DMA_MAP_FLAG_READ)
		prot |= IOMMU_READ;
	if (req->flags & VFIO_DMA_MAP_FLAG_WRITE)
		prot |= IOMMU_WRITE;
	/* Either a new mapping (with prot) or a new vaddr, not both. */
	if (!prot == !new_vaddr)
		return -EINVAL;

	mutex_lock(&iommu->lock);

	pgsize = (size_t)1 << __ffs(iommu->pgsize_bitmap);
	WARN_ON((pgsize - 1) & PAGE_MASK);

	ret = -EINVAL;
	if (!size || ((iova | vaddr | size) & (pgsize - 1)))
		goto out_unlock;
	ret = -EOVERFLOW;
	if (check_add_overflow(iova, size - 1, &iova_last) ||
	    check_add_overflow(vaddr, size - 1, &vaddr_last))
		goto out_unlock;

	dma = vfio_find_dma_range(iommu, iova, iova_last);
	if (new_vaddr) {
		ret = vfio_dma_set_vaddr(iommu, dma, iova, vaddr, size);
		goto out_unlock;
	}
	ret = -EEXIST;
	if (dma)
		goto out_unlock;
	ret = -ENOSPC;
	if (!iommu->dma_avail)
		goto out_unlock;
	ret = -EINVAL;
	if (!vfio_iommu_iova_dma_valid(iommu, iova, iova_last))
		goto out_unlock;

	ret = -ENOMEM;
	dma = kzalloc(sizeof(*dma), GFP_KERNEL);
	if (!dma)
		goto out_unlock;
	dma->iova = iova;
	dma->vaddr = vaddr;
	dma->prot = prot;
	dma->pfn_list = RB_ROOT;
	iommu->dma_avail--;

	/*
	 * Charges go to the thread group leader (threads share its mm and
	 * rlimits), against its RLIMIT_MEMLOCK unless the mapper has
	 * CAP_IPC_LOCK.  The mm is grabbed, not got: an exited owner does
	 * not keep its address space alive through us.
	 */
	dma->task = get_task_struct(current->group_leader);
	dma->lock_cap = capable(CAP_IPC_LOCK);
	dma->mm = current->mm;
	mmgrab(dma->mm);

	/* Linked with size 0; grows as chunks get mapped. */
	vfio_link_dma(iommu, dma);

	ret = 0;
	if (!list_empty(&iommu->domain_list))
		ret = vfio_pin_map_dma(iommu, dma, size);
	else
		dma->size = size;	/* emulated devices pin on demand */

	/* Tracking already runs: the new DMA needs its bitmap too. */
	if (!ret && iommu->dirty_page_tracking) {
		int err = vfio_dma_bitmap_alloc(dma, pgsize);

		if (err) {
			vfio_remove_dma(iommu, dma);
			ret = err;
		}
	}
out_unlock:
	mutex_unlock(&iommu->lock);
	return ret;
}

/* ---- groups and domains ---- */

/* A physically contiguous run from iova in domain d, within [iova, last]. */
static size_t vfio_phys_run(struct vfio_domain *d, dma_addr_t iova,
			    dma_addr_t last, phys_addr_t phys)
{
	size_t len = PAGE_SIZE;

	while (iova + len - 1 < last &&
	       iommu_iova_to_phys(d->domain, iova + len) == phys + len)
		len += PAGE_SIZE;
	return len;
}

/* Undo a partial replay of one DMA into domain. */
static void vfio_replay_unwind_dma(struct vfio_domain *domain,
				   struct vfio_dma *dma)
{
	dma_addr_t last = vfio_dma_last(dma);
	size_t pos, len;

	/* Mapped in the other domains already: it went in whole. */
	if (dma->iommu_mapped) {
		iommu_unmap(domain->domain, dma->iova, dma->size);
		return;
	}
	/* Pinned for this domain alone: unmap and unpin each run. */
	vfio_dma_forget_runs(dma);
	for (pos = 0; pos < dma->size; pos += len) {
		dma_addr_t iova = dma->iova + pos;
		phys_addr_t phys = iommu_iova_to_phys(domain->domain, iova);

		len = PAGE_SIZE;
		if (!phys)
			continue;
		len = vfio_phys_run(domain, iova, last, phys);
		iommu_unmap(domain->domain, iova, len);
		vfio_unpin_pages_remote(dma, iova, phys >> PAGE_SHIFT,
					len >> PAGE_SHIFT, true);
	}
}

/* Undo a partial replay into domain, from DMA node n back to the first. */
static void vfio_iommu_replay_unwind(struct vfio_domain *domain,
				     struct rb_node *n)
{
	for (; n; n = rb_prev(n))
		vfio_replay_unwind_dma(domain,
				       rb_entry(n, struct vfio_dma, node));
}

/*
 * Map the chunk of dma at pos into the new domain: the contiguous run an
 * existing domain (known) maps there, or, for a DMA no domain maps yet, a
 * run pinned now.  *step is how far to advance.  On error nothing of the
 * chunk stays pinned.
 */
static int vfio_replay_chunk(struct vfio_domain *domain,
			     struct vfio_domain *known, struct vfio_dma *dma,
			     size_t pos, unsigned long limit,
			     struct vfio_batch *batch, size_t *step)
{
	dma_addr_t iova = dma->iova + pos;
	phys_addr_t phys;
	size_t len;
	int ret;

	if (dma->iommu_mapped) {
		/*
		 * Neither WARN can fire (excluded from coverage): a DMA is
		 * marked mapped only while the domains on domain_list map all
		 * of it, and the flag is cleared when the last one unmaps it.
		 */
		if (WARN_ON(!known))		/* GCOVR_EXCL_BR_LINE */
			return -EINVAL;		/* GCOVR_EXCL_LINE */
		phys = iommu_iova_to_phys(known->domain, iova);
		if (WARN_ON(!phys)) {		/* GCOVR_EXCL_BR_LINE */
			*step = PAGE_SIZE;	/* GCOVR_EXCL_LINE */
			return 0;		/* GCOVR_EXCL_LINE */
		}
		len = vfio_phys_run(known, iova, vfio_dma_last(dma), phys);
	} else {
		unsigned long pfn;
		long npage;

		npage = vfio_pin_pages_remote(dma, dma->vaddr + pos,
					      (dma->size - pos) >> PAGE_SHIFT,
					      &pfn, limit, batch);
		/*
		 * npage is never 0 (branches excluded from coverage): for a
		 * non-empty range vfio_pin_pages_remote() pins a page or
		 * fails; vaddr_get_pfns() makes GUP's 0 -EFAULT and refuses a
		 * pfnmap's pfns that are not reserved.
		 */
		if (npage < 1) {
			WARN_ON(!npage);		/* GCOVR_EXCL_BR_LINE */
			return npage ? npage : -EFAULT;	/* GCOVR_EXCL_BR_LINE */
		}
		phys = (phys_addr_t)pfn << PAGE_SHIFT;
		len = (size_t)npage << PAGE_SHIFT;
	}

	ret = iommu_map(domain->domain, iova, phys, len,
			dma->prot | IOMMU_CACHE, GFP_KERNEL_ACCOUNT);
	if (ret) {
		if (!dma->iommu_mapped) {
			vfio_unpin_pages_remote(dma, iova, phys >> PAGE_SHIFT,
						len >> PAGE_SHIFT, true);
			vfio_batch_unpin(batch, dma);
		}
		return ret;
	}
	/* Pinned now for the first IOMMU domain: a run of this DMA. */
	if (!dma->iommu_mapped)
		vfio_dma_note_run(dma, iova, PHYS_PFN(phys), len >> PAGE_SHIFT);
	*step = len;
	return 0;
}

/* Map every existing DMA into a new domain. */
/* Map every existing DMA into a new domain. */
static int vfio_iommu_replay(struct vfio_iommu *iommu,
			     struct vfio_domain *domain)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct vfio_domain *known = NULL;
	struct vfio_batch batch;
	struct rb_node *n;
	int ret = 0;

	/* Any existing domain knows the pfns; take the first. */
	if (!list_empty(&iommu->domain_list))
		known = list_first_entry(&iommu->domain_list,
					 struct vfio_domain, next);

	vfio_batch_setup(&batch, false);
	for (n = rb_first(&iommu->dma_list); n && !ret; n = rb_next(n)) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);
		size_t pos = 0, step = 0;

		while (pos < dma->size) {
			ret = vfio_replay_chunk(domain, known, dma, pos, limit,
						&batch, &step);
			if (ret)
				break;
			pos += step;
		}
		if (ret)
			vfio_iommu_replay_unwind(domain, n);
	}
	vfio_batch_fini(&batch);
	if (ret)
		return ret;

	/* Only now: an unwind tells the two kinds apart by this flag. */
	for (n = rb_first(&iommu->dma_list); n; n = rb_next(n))
		rb_entry(n, struct vfio_dma, node)->iommu_mapped = true;
	return 0;
}

/* The group in this domain, if it is attached there. */
static struct vfio_iommu_group *find_iommu_group(struct vfio_domain *domain,
						 struct iommu_group *iommu_group)
{
	struct vfio_iommu_group *g;

	list_for_each_entry(g, &domain->group_list, next)
		if (g->iommu_group == iommu_group)
			return g;
	return NULL;
}

/*
 * Fine-grained superpages: map two pages, unmap the first; an IOMMU that
 * made one superpage of them (AMD v1 does) unmaps both.  Such a domain
 * needs no search for contiguous runs when unmapping.
 */
static void vfio_test_domain_fgsp(struct vfio_domain *domain,
				  struct list_head *regions)
{
	const unsigned int order = 1;	/* two pages */
	struct page *pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	struct vfio_iova *region;
	dma_addr_t start;
	size_t unmapped;

	if (!pages)
		return;

	list_for_each_entry(region, regions, list) {
		start = ALIGN(region->start, PAGE_SIZE * 2);
		if (start >= region->end || region->end - start < PAGE_SIZE * 2)
			continue;
		if (iommu_map(domain->domain, start, page_to_phys(pages),
			      PAGE_SIZE * 2, IOMMU_READ | IOMMU_WRITE |
			      IOMMU_CACHE, GFP_KERNEL_ACCOUNT))
			break;
		unmapped = iommu_unmap(domain->domain, start, PAGE_SIZE);
		if (unmapped == PAGE_SIZE)
			iommu_unmap(domain->domain, start + PAGE_SIZE,
				    PAGE_SIZE);
		else
			domain->fgsp = true;
		break;
	}

	__free_pages(pages, order);
}


static struct vfio_iommu_group *
vfio_iommu_find_iommu_group(struct vfio_iommu *iommu,
			    struct iommu_group *iommu_group)
{
	struct vfio_iommu_group *found = NULL, *g;
	struct vfio_domain *domain;

	/* Emulated groups first: they are few and never in a domain. */
	list_for_each_entry(g, &iommu->emulated_iommu_groups, next) {
		if (g->iommu_group == iommu_group)
			return g;
	}
	list_for_each_entry(domain, &iommu->domain_list, next) {
		found = find_iommu_group(domain, iommu_group);
		if (found)
			break;
	}
	return found;
}

/*
 * A software-managed MSI window needs a cookie; a hardware MSI region, if
 * the driver reports one too, wins.
 */
static bool vfio_iommu_has_sw_msi(struct list_head *resv_regions,
				  phys_addr_t *base)
{
	struct iommu_resv_region *r;
	bool sw_msi = false;

	list_for_each_entry(r, resv_regions, list) {
		if (r->type == IOMMU_RESV_MSI)
			return false;
		if (r->type == IOMMU_RESV_SW_MSI) {
			*base = r->start;
			sw_msi = true;
		}
	}
	return sw_msi;
}

/* Append [start, end] at head (which may be a node: insert before it). */
static int vfio_iommu_iova_insert(struct list_head *head, dma_addr_t start,
				  dma_addr_t end)
{
	struct vfio_iova *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	r->start = start;
	r->end = end;
	list_add_tail(&r->list, head);
	return 0;
}

static void vfio_iommu_iova_free(struct list_head *iova)
{
	struct vfio_iova *r, *tmp;

	list_for_each_entry_safe(r, tmp, iova, list) {
		list_del(&r->list);
		kfree(r);
	}
}

static void vfio_iommu_resv_free(struct list_head *resv_regions)
{
	struct iommu_resv_region *r, *tmp;

	list_for_each_entry_safe(r, tmp, resv_regions, list) {
		list_del(&r->list);
		kfree(r);
	}
}

/*
 * A new aperture conflicts if it misses the current ranges altogether or
 * would cut off an existing DMA.
 */
static bool vfio_iommu_aper_conflict(struct vfio_iommu *iommu,
				     dma_addr_t start, dma_addr_t end)
{
	struct vfio_iova *first, *last;

	if (list_empty(&iommu->iova_list))
		return false;

	first = list_first_entry(&iommu->iova_list, struct vfio_iova, list);
	last = list_last_entry(&iommu->iova_list, struct vfio_iova, list);
	if (start > last->end || end < first->start)
		return true;
	if (start > first->start &&
	    vfio_find_dma_range(iommu, first->start, start - 1))
		return true;
	if (end < last->end && vfio_find_dma_range(iommu, end + 1, last->end))
		return true;
	return false;
}

/* Clip the ranges to [start, end]; an empty list becomes that one range. */
static int vfio_iommu_aper_resize(struct list_head *iova, dma_addr_t start,
				  dma_addr_t end)
{
	struct vfio_iova *r, *tmp;

	if (list_empty(iova))
		return vfio_iommu_iova_insert(iova, start, end);

	list_for_each_entry_safe(r, tmp, iova, list) {
		if (r->end < start || r->start > end) {
			list_del(&r->list);
			kfree(r);
			continue;
		}
		if (r->start < start)
			r->start = start;
		if (r->end > end)
			r->end = end;
	}
	return 0;
}

/* A reserved region (other than relaxable direct ones) over a DMA. */
static bool vfio_iommu_resv_conflict(struct vfio_iommu *iommu,
				     struct list_head *resv_regions)
{
	struct iommu_resv_region *r;

	list_for_each_entry(r, resv_regions, list) {
		if (r->type == IOMMU_RESV_DIRECT_RELAXABLE)
			continue;
		if (vfio_find_dma_range(iommu, r->start,
					r->start + r->length - 1))
			return true;
	}
	return false;
}

/* Punch the reserved regions out of the ranges; none left is -EINVAL. */
static int vfio_iommu_resv_exclude(struct list_head *iova,
				   struct list_head *resv_regions)
{
	struct iommu_resv_region *resv;
	struct vfio_iova *r, *tmp;
	int ret;

	list_for_each_entry(resv, resv_regions, list) {
		dma_addr_t first = resv->start;
		dma_addr_t last = resv->start + resv->length - 1;

		if (resv->type == IOMMU_RESV_DIRECT_RELAXABLE)
			continue;

		list_for_each_entry_safe(r, tmp, iova, list) {
			if (last < r->start || first > r->end)
				continue;
			/* Keep the parts on either side, in order. */
			if (first > r->start) {
				ret = vfio_iommu_iova_insert(&r->list,
							     r->start,
							     first - 1);
				if (ret)
					return ret;
			}
			if (last < r->end) {
				ret = vfio_iommu_iova_insert(&r->list,
							     last + 1, r->end);
				if (ret)
					return ret;
			}
			list_del(&r->list);
			kfree(r);
		}
	}
	return list_empty(iova) ? -EINVAL : 0;
}

static int vfio_iommu_iova_get_copy(struct vfio_iommu *iommu,
				    struct list_head *copy)
{
	struct vfio_iova *r;
	int ret;

	list_for_each_entry(r, &iommu->iova_list, list) {
		ret = vfio_iommu_iova_insert(copy, r->start, r->end);
		if (ret) {
			vfio_iommu_iova_free(copy);
			return ret;
		}
	}
	return 0;
}

static void vfio_iommu_iova_insert_copy(struct vfio_iommu *iommu,
					struct list_head *copy)
{
	vfio_iommu_iova_free(&iommu->iova_list);
	/* Never empty here (a range is left or attach failed): no branch. */
	list_splice_tail_init(copy, &iommu->iova_list); /* GCOVR_EXCL_BR_LINE */
}

/* Called once, for the group's first device. */
static int vfio_iommu_domain_alloc(struct device *dev, void *data)
{
	struct iommu_domain **domain = data;

	*domain = iommu_paging_domain_alloc(dev);
	return 1;
}

/* A vfio_domain with a new paging domain from the group's IOMMU. */
static int vfio_domain_alloc_for_group(struct iommu_group *iommu_group,
				       struct vfio_domain **out)
{
	struct vfio_domain *domain = kzalloc(sizeof(*domain), GFP_KERNEL);
	int ret;

	if (!domain)
		return -ENOMEM;
	INIT_LIST_HEAD(&domain->group_list);

	/* The group's first device says which IOMMU (and so which format). */
	iommu_group_for_each_dev(iommu_group, &domain->domain,
				 vfio_iommu_domain_alloc);
	ret = PTR_ERR_OR_ZERO(domain->domain);
	/*
	 * A group without devices (excluded from coverage: the VFIO core
	 * detaches a group when its last device goes, and attaches no group
	 * that has none).
	 */
	if (!ret && !domain->domain)	/* GCOVR_EXCL_BR_LINE */
		ret = -ENODEV;		/* GCOVR_EXCL_LINE */
	if (ret) {
		kfree(domain);
		return ret;
	}
	*out = domain;
	return 0;
}

/*
 * The usable IOVA ranges once the group is in: the container's ranges
 * clipped to the new domain's aperture, minus the group's reserved
 * regions, built in *iova_copy so the live list is untouched on failure.
 * Existing DMAs must survive both cuts.
 */
static int vfio_iommu_prepare_iova_list(struct vfio_iommu *iommu,
					struct vfio_domain *domain,
					struct iommu_group *iommu_group,
					struct list_head *resv,
					struct list_head *iova_copy)
{
	struct iommu_domain_geometry *geo = &domain->domain->geometry;
	int ret;

	if (vfio_iommu_aper_conflict(iommu, geo->aperture_start,
				     geo->aperture_end))
		return -EINVAL;
	ret = iommu_get_group_resv_regions(iommu_group, resv);
	if (ret)
		return ret;
	if (vfio_iommu_resv_conflict(iommu, resv))
		return -EINVAL;

	ret = vfio_iommu_iova_get_copy(iommu, iova_copy);
	if (!ret)
		ret = vfio_iommu_aper_resize(iova_copy, geo->aperture_start,
					     geo->aperture_end);
	if (!ret)
		ret = vfio_iommu_resv_exclude(iova_copy, resv);
	return ret;
}

/*
 * Move the group from its new domain into an existing one of the same
 * IOMMU driver and coherency, if one takes it.  1: moved (the new domain
 * is unused and attached to nothing); 0: it stays in the new domain;
 * negative: it could go back to neither.
 */
static int vfio_domain_join_existing(struct vfio_iommu *iommu,
				     struct vfio_domain *domain,
				     struct vfio_iommu_group *group)
{
	struct iommu_group *iommu_group = group->iommu_group;
	struct vfio_domain *d;
	int ret;

	list_for_each_entry(d, &iommu->domain_list, next) {
		if (d->domain->ops != domain->domain->ops ||
		    d->enforce_cache_coherency !=
		    domain->enforce_cache_coherency)
			continue;

		iommu_detach_group(domain->domain, iommu_group);
		if (!iommu_attach_group(d->domain, iommu_group)) {
			list_add(&group->next, &d->group_list);
			return 1;
		}
		ret = iommu_attach_group(domain->domain, iommu_group);
		if (ret)
			return ret;
	}
	return 0;
}

static int vfio_iommu_type1_attach_group(void *iommu_data,
					 struct iommu_group *iommu_group,
					 enum vfio_group_type type)
{
	struct vfio_iommu *iommu = iommu_data;
	struct vfio_iommu_group *group = NULL;
	struct vfio_domain *domain = NULL;
	LIST_HEAD(group_resv_regions);
	unsigned long old_pgsize_bitmap;
	phys_addr_t msi_base = 0;
	LIST_HEAD(iova_copy);
	bool sw_msi;
	int ret;

	mutex_lock(&iommu->lock);

	/* Attaching may pin, which needs valid vaddrs. */
	if (iommu->vaddr_invalid_count) {
		ret = -EBUSY;
		goto out;
	}
	if (vfio_iommu_find_iommu_group(iommu, iommu_group)) {
		ret = -EINVAL;
		goto out;
	}
	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group) {
		ret = -ENOMEM;
		goto out;
	}
	group->iommu_group = iommu_group;

	if (type == VFIO_EMULATED_IOMMU) {
		/*
		 * An emulated device reaches memory only through pin_pages
		 * and dma_rw, which mark what they touch.
		 */
		group->pinned_page_dirty_scope = true;
		list_add(&group->next, &iommu->emulated_iommu_groups);
		group = NULL;
		ret = 0;
		goto out;
	}

	ret = vfio_domain_alloc_for_group(iommu_group, &domain);
	if (ret)
		goto out;
	ret = iommu_attach_group(domain->domain, iommu_group);
	if (ret)
		goto out_free_domain;

	ret = vfio_iommu_prepare_iova_list(iommu, domain, iommu_group,
					   &group_resv_regions, &iova_copy);
	if (ret)
		goto out_detach;
	sw_msi = vfio_iommu_has_sw_msi(&group_resv_regions, &msi_base);

	/* Without MSI isolation a device could forge interrupts. */
	ret = -EPERM;
	if (!iommu_group_has_isolated_msi(iommu_group) &&
	    !allow_unsafe_interrupts) {
		pr_warn("%s: No interrupt remapping support.  Use the module param \"allow_unsafe_interrupts\" to enable VFIO IOMMU support on this platform\n",
			__func__);
		goto out_detach;
	}

	/* Block no-snoop DMA whenever the IOMMU can. */
	if (domain->domain->ops->enforce_cache_coherency)
		domain->enforce_cache_coherency =
			domain->domain->ops->enforce_cache_coherency(
							domain->domain);

	ret = vfio_domain_join_existing(iommu, domain, group);
	if (ret < 0) {
		/* Neither domain holds the group any more. */
		iommu_domain_free(domain->domain);
		kfree(domain);
		domain = NULL;
		goto out;
	}
	if (ret) {
		/* The group moved into an existing domain. */
		iommu_domain_free(domain->domain);
		kfree(domain);
		domain = NULL;
	} else {
		list_add(&group->next, &domain->group_list);
		vfio_test_domain_fgsp(domain, &iova_copy);
		/*
		 * The cookie first: it goes with the domain if the replay
		 * fails, but a replay that pinned pages for this, the first
		 * domain, cannot be undone once it has marked every DMA
		 * mapped.
		 */
		ret = 0;
		if (sw_msi) {
			ret = iommu_get_msi_cookie(domain->domain, msi_base);
			if (ret == -ENODEV)
				ret = 0;
		}
		if (!ret)
			ret = vfio_iommu_replay(iommu, domain);
		if (ret) {
			list_del(&group->next);
			goto out_detach;
		}
		list_add(&domain->next, &iommu->domain_list);
		old_pgsize_bitmap = iommu->pgsize_bitmap;
		vfio_update_pgsize_bitmap(iommu);
		vfio_dma_bitmap_resize_all(iommu, old_pgsize_bitmap);
	}

	vfio_iommu_iova_insert_copy(iommu, &iova_copy);
	/*
	 * A group behind a real IOMMU can write anywhere it is mapped,
	 * until it shows (by pinning) that it reports what it touches.
	 */
	iommu->num_non_pinned_groups++;
	group = NULL;
	ret = 0;
	goto out;

out_detach:
	iommu_detach_group(domain->domain, iommu_group);
out_free_domain:
	iommu_domain_free(domain->domain);
	kfree(domain);
out:
	mutex_unlock(&iommu->lock);
	vfio_iommu_iova_free(&iova_copy);
	vfio_iommu_resv_free(&group_resv_regions);
	kfree(group);
	return ret;
}

static void vfio_iommu_unmap_unpin_all(struct vfio_iommu *iommu)
{
	struct rb_node *n;

	while ((n = rb_first(&iommu->dma_list)))
		vfio_remove_dma(iommu, rb_entry(n, struct vfio_dma, node));
}

/* Pages of the DMA pinned externally that are charged (not reserved). */
static long vfio_dma_external_pinned(struct vfio_dma *dma)
{
	struct rb_node *p;
	long count = 0;

	for (p = rb_first(&dma->pfn_list); p; p = rb_next(p))
		if (!is_invalid_reserved_pfn(rb_entry(p, struct vfio_pfn,
						      node)->pfn))
			count++;
	return count;
}

/*
 * The last IOMMU domain goes but emulated devices stay: unmap and unpin
 * everything except their pins, and leave exactly those charged.
 */
static void vfio_iommu_unmap_unpin_reaccount(struct vfio_iommu *iommu)
{
	struct rb_node *n;

	for (n = rb_first(&iommu->dma_list); n; n = rb_next(n)) {
		struct vfio_dma *dma = rb_entry(n, struct vfio_dma, node);
		long unpinned = vfio_unmap_unpin(iommu, dma, false);

		vfio_lock_acct(dma, vfio_dma_external_pinned(dma) - unpinned,
			       true);
	}
}

/* The remaining domains' common aperture, once one domain is gone. */
static void vfio_iommu_aper_expand(struct vfio_iommu *iommu,
				   struct list_head *iova_copy)
{
	dma_addr_t start = 0, end = ~(dma_addr_t)0;
	struct vfio_domain *domain;

	/* The widest range every remaining domain still translates. */
	list_for_each_entry(domain, &iommu->domain_list, next) {
		struct iommu_domain_geometry *geo = &domain->domain->geometry;

		start = max_t(dma_addr_t, start, geo->aperture_start);
		end = min_t(dma_addr_t, end, geo->aperture_end);
	}
	if (list_empty(iova_copy))
		return;
	list_first_entry(iova_copy, struct vfio_iova, list)->start = start;
	list_last_entry(iova_copy, struct vfio_iova, list)->end = end;
}

/*
 * Rebuild the ranges from the aperture and the reserved regions of the
 * groups still attached (regions may be shared between groups).
 */
static int vfio_iommu_resv_refresh(struct vfio_iommu *iommu,
				   struct list_head *iova_copy)
{
	LIST_HEAD(resv_regions);
	struct vfio_iommu_group *g;
	struct vfio_domain *d;
	dma_addr_t start, end;
	int ret = 0;

	if (list_empty(iova_copy))
		return -EINVAL;
	start = list_first_entry(iova_copy, struct vfio_iova, list)->start;
	end = list_last_entry(iova_copy, struct vfio_iova, list)->end;

	list_for_each_entry(d, &iommu->domain_list, next) {
		list_for_each_entry(g, &d->group_list, next) {
			ret = iommu_get_group_resv_regions(g->iommu_group,
							   &resv_regions);
			if (ret)
				break;
		}
		if (ret)
			break;
	}
	if (!ret) {
		/* Start again from the aperture, then punch the holes. */
		vfio_iommu_iova_free(iova_copy);
		ret = vfio_iommu_aper_resize(iova_copy, start, end);
		if (!ret)
			ret = vfio_iommu_resv_exclude(iova_copy, &resv_regions);
	}
	vfio_iommu_resv_free(&resv_regions);
	return ret;
}

/* Forget an emulated group; true if iommu_group was one. */
static bool vfio_detach_emulated_group(struct vfio_iommu *iommu,
				       struct iommu_group *iommu_group,
				       bool *was_unscoped)
{
	struct vfio_iommu_group *g;

	list_for_each_entry(g, &iommu->emulated_iommu_groups, next) {
		if (g->iommu_group == iommu_group)
			break;
	}
	if (list_entry_is_head(g, &iommu->emulated_iommu_groups, next))
		return false;

	*was_unscoped = !g->pinned_page_dirty_scope;
	list_del(&g->next);
	kfree(g);
	/*
	 * The container's last user of any kind: nothing stays mapped.  (The
	 * WARN cannot fire: the VFIO core closes, and so unregisters, a
	 * group's devices before it detaches the group.)
	 */
	if (list_empty(&iommu->emulated_iommu_groups) &&
	    list_empty(&iommu->domain_list)) {
		WARN_ON(!list_empty(&iommu->device_list)); /* GCOVR_EXCL_BR_LINE */
		vfio_iommu_unmap_unpin_all(iommu);
	}
	return true;
}

/*
 * A domain lost its last group: it goes.  If it was the last domain, the
 * DMAs lose their mappings and pins too, unless emulated devices remain,
 * which keep only their own pins charged.
 */
static void vfio_iommu_drop_domain(struct vfio_iommu *iommu,
				   struct vfio_domain *domain,
				   struct list_head *iova_copy)
{
	unsigned long old_pgsize_bitmap;

	/* The list holds domain itself: list_is_singular() sees no empty one. */
	if (list_is_singular(&iommu->domain_list)) {	/* GCOVR_EXCL_BR_LINE */
		if (!list_empty(&iommu->emulated_iommu_groups)) {
			vfio_iommu_unmap_unpin_reaccount(iommu);
		} else {
			/* Cannot fire: as in vfio_detach_emulated_group(). */
			WARN_ON(!list_empty(&iommu->device_list)); /* GCOVR_EXCL_BR_LINE */
			vfio_iommu_unmap_unpin_all(iommu);
		}
	}
	old_pgsize_bitmap = iommu->pgsize_bitmap;
	list_del(&domain->next);
	iommu_domain_free(domain->domain);
	kfree(domain);
	vfio_iommu_aper_expand(iommu, iova_copy);
	vfio_update_pgsize_bitmap(iommu);
	vfio_dma_bitmap_resize_all(iommu, old_pgsize_bitmap);
}

static void vfio_iommu_type1_detach_group(void *iommu_data,
					  struct iommu_group *iommu_group)
{
	struct vfio_iommu *iommu = iommu_data;
	struct vfio_iommu_group *group = NULL;
	struct vfio_domain *domain, *owner = NULL;
	bool was_unscoped;
	LIST_HEAD(iova_copy);

	mutex_lock(&iommu->lock);

	if (vfio_detach_emulated_group(iommu, iommu_group, &was_unscoped))
		goto scope;

	/* Edit a copy of the ranges; keep the live list if that fails. */
	vfio_iommu_iova_get_copy(iommu, &iova_copy);

	list_for_each_entry(domain, &iommu->domain_list, next) {
		group = find_iommu_group(domain, iommu_group);
		if (group) {
			owner = domain;
			break;
		}
	}
	was_unscoped = group && !group->pinned_page_dirty_scope;
	if (group) {
		iommu_detach_group(owner->domain, iommu_group);
		list_del(&group->next);
		kfree(group);
		if (list_empty(&owner->group_list))
			vfio_iommu_drop_domain(iommu, owner, &iova_copy);
	}

	if (vfio_iommu_resv_refresh(iommu, &iova_copy))
		vfio_iommu_iova_free(&iova_copy);
	else
		vfio_iommu_iova_insert_copy(iommu, &iova_copy);

scope:
	/*
	 * Without that group, the rest may all report what they dirty; report
	 * everything it could have dirtied until now.
	 */
	iommu->num_non_pinned_groups -= was_unscoped;
	if (was_unscoped && iommu->dirty_page_tracking)
		vfio_iommu_populate_bitmap_full(iommu);
	mutex_unlock(&iommu->lock);
}

/* VFIO_SET_IOMMU: a new, empty container of type arg. */
static void *vfio_iommu_type1_open(unsigned long arg)
{
	struct vfio_iommu *iommu;

	/* The nesting type is gone: iommufd does nesting now. */
	if (arg != VFIO_TYPE1_IOMMU && arg != VFIO_TYPE1v2_IOMMU)
		return ERR_PTR(-EINVAL);

	iommu = kzalloc(sizeof(*iommu), GFP_KERNEL);
	if (!iommu)
		return ERR_PTR(-ENOMEM);

	mutex_init(&iommu->lock);
	mutex_init(&iommu->device_list_lock);
	INIT_LIST_HEAD(&iommu->domain_list);
	INIT_LIST_HEAD(&iommu->iova_list);
	INIT_LIST_HEAD(&iommu->emulated_iommu_groups);
	INIT_LIST_HEAD(&iommu->device_list);
	iommu->dma_list = RB_ROOT;
	iommu->dma_avail = dma_entry_limit;
	/* Until a domain says otherwise, any multiple of PAGE_SIZE. */
	iommu->pgsize_bitmap = PAGE_MASK;
	iommu->v2 = arg == VFIO_TYPE1v2_IOMMU;
	return iommu;
}

/* Detach every group and free the domain (not the vfio_domain). */
static void vfio_release_domain(struct vfio_domain *domain)
{
	struct vfio_iommu_group *g;

	while (!list_empty(&domain->group_list)) {
		g = list_first_entry(&domain->group_list,
				     struct vfio_iommu_group, next);
		list_del(&g->next);
		iommu_detach_group(domain->domain, g->iommu_group);
		kfree(g);
	}
	iommu_domain_free(domain->domain);
}

/* The container's last user is gone: undo everything. */
static void vfio_iommu_type1_release(void *iommu_data)
{
	struct vfio_iommu *iommu = iommu_data;
	struct vfio_iommu_group *g, *gtmp;
	struct vfio_domain *d, *dtmp;

	list_for_each_entry_safe(g, gtmp, &iommu->emulated_iommu_groups,
				 next) {
		list_del(&g->next);
		kfree(g);
	}

	/* Unmap and unpin while the domains still hold the translations. */
	vfio_iommu_unmap_unpin_all(iommu);

	list_for_each_entry_safe(d, dtmp, &iommu->domain_list, next) {
		list_del(&d->next);
		vfio_release_domain(d);
		kfree(d);
	}
	vfio_iommu_iova_free(&iommu->iova_list);
	kfree(iommu);
}

/* ---- ioctls ---- */

/* 1 if every domain blocks no-snoop DMA (true for none at all, too). */
static int vfio_domains_have_enforce_cache_coherency(struct vfio_iommu *iommu)
{
	struct vfio_domain *d;
	int coherent = 1;

	mutex_lock(&iommu->lock);
	list_for_each_entry(d, &iommu->domain_list, next)
		coherent &= d->enforce_cache_coherency;
	mutex_unlock(&iommu->lock);
	return coherent;
}

static bool vfio_iommu_has_emulated(struct vfio_iommu *iommu)
{
	bool has;

	mutex_lock(&iommu->lock);
	has = !list_empty(&iommu->emulated_iommu_groups);
	mutex_unlock(&iommu->lock);
	return has;
}

/* VFIO_CHECK_EXTENSION, also asked before a container exists (no iommu). */
static int vfio_iommu_type1_check_extension(struct vfio_iommu *iommu,
					    unsigned long arg)
{
	if (arg == VFIO_TYPE1_IOMMU || arg == VFIO_TYPE1v2_IOMMU ||
	    arg == VFIO_UNMAP_ALL)
		return 1;
	if (!iommu)
		return 0;
	/* Emulated devices cannot pin while vaddrs are in flux. */
	if (arg == VFIO_UPDATE_VADDR)
		return !vfio_iommu_has_emulated(iommu);
	if (arg == VFIO_DMA_CC_IOMMU)
		return vfio_domains_have_enforce_cache_coherency(iommu);
	return 0;
}

/* The usable IOVA ranges, as the IOVA_RANGE capability lists them. */
static int vfio_iommu_iova_build_caps(struct vfio_iommu *iommu,
				      struct vfio_info_cap *caps)
{
	struct vfio_iommu_type1_info_cap_iova_range *cap;
	struct vfio_info_cap_header *header;
	unsigned int nr = 0;
	struct vfio_iova *r;

	list_for_each_entry(r, &iommu->iova_list, list)
		nr++;
	/* Only emulated devices: no ranges, and no capability. */
	if (!nr)
		return 0;

	/* struct_size() cannot saturate for a list this short: no branch. */
	header = vfio_info_cap_add(caps, struct_size(cap, iova_ranges, nr), /* GCOVR_EXCL_BR_LINE */
				   VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, 1);
	if (IS_ERR(header))
		return PTR_ERR(header);
	cap = container_of(header, struct vfio_iommu_type1_info_cap_iova_range,
			   header);
	cap->nr_iovas = nr;
	nr = 0;
	list_for_each_entry(r, &iommu->iova_list, list) {
		cap->iova_ranges[nr].start = r->start;
		cap->iova_ranges[nr].end = r->end;
		nr++;
	}
	return 0;
}

/* Every capability GET_INFO reports, in the kernel's order. */
static int vfio_iommu_build_caps(struct vfio_iommu *iommu,
				 struct vfio_info_cap *caps)
{
	struct vfio_iommu_type1_info_cap_migration mig = {
		.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION,
		.header.version = 1,
		/* Dirty tracking works at the smallest page size only. */
		.pgsize_bitmap = (size_t)1 << __ffs(iommu->pgsize_bitmap),
		.max_dirty_bitmap_size = DIRTY_BITMAP_SIZE_MAX,
	};
	struct vfio_iommu_type1_info_dma_avail avail = {
		.header.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL,
		.header.version = 1,
		.avail = iommu->dma_avail,
	};
	int ret;

	ret = vfio_info_add_capability(caps, &mig.header, sizeof(mig));
	if (!ret)
		ret = vfio_info_add_capability(caps, &avail.header,
					       sizeof(avail));
	if (!ret)
		ret = vfio_iommu_iova_build_caps(iommu, caps);
	return ret;
}

/*
 * VFIO_IOMMU_GET_INFO.  The capability chain follows the struct when argsz
 * leaves room for it; otherwise argsz comes back with the room needed.
 */
static int vfio_iommu_type1_get_info(struct vfio_iommu *iommu,
				     unsigned long arg)
{
	struct vfio_info_cap caps = { .buf = NULL, .size = 0 };
	unsigned long need = offsetofend(struct vfio_iommu_type1_info,
					 iova_pgsizes);
	void __user *uinfo = (void __user *)arg;
	struct vfio_iommu_type1_info info = {};
	size_t reply;
	int ret;

	if (copy_from_user(&info, uinfo, need))
		return -EFAULT;
	if (info.argsz < need)
		return -EINVAL;
	/* A user built against an older, shorter struct gets only that. */
	reply = min_t(size_t, info.argsz, sizeof(info));

	mutex_lock(&iommu->lock);
	info.iova_pgsizes = iommu->pgsize_bitmap;
	ret = vfio_iommu_build_caps(iommu, &caps);
	mutex_unlock(&iommu->lock);
	info.flags = VFIO_IOMMU_INFO_PGSIZES;

	/* The migration capability is always there: caps.size is never 0. */
	if (!ret && caps.size) {	/* GCOVR_EXCL_BR_LINE */
		info.flags |= VFIO_IOMMU_INFO_CAPS;
		if (info.argsz >= sizeof(info) + caps.size) {
			vfio_info_cap_shift(&caps, sizeof(info));
			if (copy_to_user(uinfo + sizeof(info), caps.buf,
					 caps.size))
				ret = -EFAULT;
			info.cap_offset = sizeof(info);
		} else {
			info.argsz = sizeof(info) + caps.size;
		}
	}
	kfree(caps.buf);
	if (ret)
		return ret;
	return copy_to_user(uinfo, &info, reply) ? -EFAULT : 0;
}

static int vfio_iommu_type1_map_dma(struct vfio_iommu *iommu,
				    unsigned long arg)
{
	unsigned long need = offsetofend(struct vfio_iommu_type1_dma_map,
					 size);
	struct vfio_iommu_type1_dma_map req;

	if (copy_from_user(&req, (void __user *)arg, need))
		return -EFAULT;
	if (req.argsz < need)
		return -EINVAL;
	if (req.flags & ~(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE |
			  VFIO_DMA_MAP_FLAG_VADDR))
		return -EINVAL;
	return vfio_dma_do_map(iommu, &req);
}

/* The struct vfio_bitmap after an UNMAP_DMA with GET_DIRTY_BITMAP. */
static int vfio_unmap_get_user_bitmap(unsigned long arg, u32 argsz,
				      u64 size, struct vfio_bitmap *dirty)
{
	if (argsz < sizeof(struct vfio_iommu_type1_dma_unmap) + sizeof(*dirty))
		return -EINVAL;
	if (copy_from_user(dirty, (void __user *)arg +
			   sizeof(struct vfio_iommu_type1_dma_unmap),
			   sizeof(*dirty)))
		return -EFAULT;
	if (!access_ok((void __user *)dirty->data, dirty->size) ||
	    !dirty->pgsize)
		return -EINVAL;
	return verify_bitmap_size(size >> __ffs(dirty->pgsize), dirty->size);
}

static int vfio_iommu_type1_unmap_dma(struct vfio_iommu *iommu,
				      unsigned long arg)
{
	unsigned long need = offsetofend(struct vfio_iommu_type1_dma_unmap,
					 size);
	struct vfio_iommu_type1_dma_unmap req;
	struct vfio_bitmap dirty = { 0 };
	int ret;

	if (copy_from_user(&req, (void __user *)arg, need))
		return -EFAULT;
	if (req.argsz < need)
		return -EINVAL;
	if (req.flags & ~(VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP |
			  VFIO_DMA_UNMAP_FLAG_ALL | VFIO_DMA_UNMAP_FLAG_VADDR))
		return -EINVAL;

	if (req.flags & VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP) {
		/* Neither with ALL nor with VADDR. */
		if (req.flags & (VFIO_DMA_UNMAP_FLAG_ALL |
				 VFIO_DMA_UNMAP_FLAG_VADDR))
			return -EINVAL;
		ret = vfio_unmap_get_user_bitmap(arg, req.argsz, req.size,
						 &dirty);
		if (ret)
			return ret;
	}

	ret = vfio_dma_do_unmap(iommu, &req, &dirty);
	if (!ret && copy_to_user((void __user *)arg, &req, need))
		ret = -EFAULT;
	return ret;
}

/* VFIO_IOMMU_DIRTY_PAGES_FLAG_GET_BITMAP; arg points past the flags. */
static int vfio_iommu_dirty_get_bitmap(struct vfio_iommu *iommu,
				       unsigned long arg, size_t data_size)
{
	struct vfio_iommu_type1_dirty_bitmap_get range;
	dma_addr_t last;
	size_t pgsize;
	int ret;

	if (data_size < sizeof(range))
		return -EINVAL;
	if (copy_from_user(&range, (void __user *)arg, sizeof(range)))
		return -EFAULT;
	if (!range.size)
		return -EINVAL;
	if (check_add_overflow(range.iova, range.size - 1, &last))
		return -EOVERFLOW;
	if (!access_ok((void __user *)range.bitmap.data, range.bitmap.size) ||
	    !range.bitmap.pgsize)
		return -EINVAL;
	ret = verify_bitmap_size(range.size >> __ffs(range.bitmap.pgsize),
				 range.bitmap.size);
	if (ret)
		return ret;

	mutex_lock(&iommu->lock);
	pgsize = (size_t)1 << __ffs(iommu->pgsize_bitmap);
	/* Only at the smallest page size, aligned, and while tracking. */
	if (range.bitmap.pgsize != pgsize ||
	    (range.iova | range.size) & (pgsize - 1) ||
	    !iommu->dirty_page_tracking)
		ret = -EINVAL;
	else
		ret = vfio_iova_dirty_bitmap(range.bitmap.data, iommu,
					     range.iova, last, pgsize);
	mutex_unlock(&iommu->lock);
	return ret;
}

static int vfio_iommu_dirty_tracking(struct vfio_iommu *iommu, bool start)
{
	int ret = 0;

	mutex_lock(&iommu->lock);
	if (start && !iommu->dirty_page_tracking) {
		ret = vfio_dma_bitmap_alloc_all(iommu,
				(size_t)1 << __ffs(iommu->pgsize_bitmap));
		iommu->dirty_page_tracking = !ret;
	} else if (!start && iommu->dirty_page_tracking) {
		vfio_dma_bitmap_free_all(iommu);
		iommu->dirty_page_tracking = false;
	}
	mutex_unlock(&iommu->lock);
	return ret;
}

static int vfio_iommu_type1_dirty_pages(struct vfio_iommu *iommu,
					unsigned long arg)
{
	unsigned long need = offsetofend(struct vfio_iommu_type1_dirty_bitmap,
					 flags);
	struct vfio_iommu_type1_dirty_bitmap req;

	/* Dirty tracking came with v2. */
	if (!iommu->v2)
		return -EACCES;
	if (copy_from_user(&req, (void __user *)arg, need))
		return -EFAULT;
	if (req.argsz < need)
		return -EINVAL;

	/* Exactly one known operation per call. */
	switch (req.flags) {
	case VFIO_IOMMU_DIRTY_PAGES_FLAG_START:
		return vfio_iommu_dirty_tracking(iommu, true);
	case VFIO_IOMMU_DIRTY_PAGES_FLAG_STOP:
		return vfio_iommu_dirty_tracking(iommu, false);
	case VFIO_IOMMU_DIRTY_PAGES_FLAG_GET_BITMAP:
		return vfio_iommu_dirty_get_bitmap(iommu, arg + need,
						   req.argsz - need);
	default:
		return -EINVAL;
	}
}

static long vfio_iommu_type1_ioctl(void *iommu_data, unsigned int cmd,
				   unsigned long arg)
{
	struct vfio_iommu *iommu = iommu_data;

	switch (cmd) {
	case VFIO_IOMMU_MAP_DMA:
		return vfio_iommu_type1_map_dma(iommu, arg);
	case VFIO_IOMMU_UNMAP_DMA:
		return vfio_iommu_type1_unmap_dma(iommu, arg);
	case VFIO_IOMMU_GET_INFO:
		return vfio_iommu_type1_get_info(iommu, arg);
	case VFIO_IOMMU_DIRTY_PAGES:
		return vfio_iommu_type1_dirty_pages(iommu, arg);
	case VFIO_CHECK_EXTENSION:
		return vfio_iommu_type1_check_extension(iommu, arg);
	default:
		return -ENOTTY;
	}
}

/*
 * Devices that pin (emulated IOMMU) must hear about unmaps.  Both locks are
 * taken, device_list_lock first (see vfio_notify_dma_unmap()): list_empty()
 * is checked under iommu->lock alone, the walk runs under device_list_lock
 * alone.
 */
static void vfio_iommu_device_list_update(struct vfio_iommu *iommu,
					  struct vfio_device *vdev, bool add)
{
	if (!vdev->ops->dma_unmap)
		return;

	mutex_lock(&iommu->device_list_lock);
	mutex_lock(&iommu->lock);
	if (add)
		list_add(&vdev->iommu_entry, &iommu->device_list);
	else
		list_del(&vdev->iommu_entry);
	mutex_unlock(&iommu->lock);
	mutex_unlock(&iommu->device_list_lock);
}

static void vfio_iommu_type1_register_device(void *iommu_data,
					     struct vfio_device *vdev)
{
	vfio_iommu_device_list_update(iommu_data, vdev, true);
}

static void vfio_iommu_type1_unregister_device(void *iommu_data,
					       struct vfio_device *vdev)
{
	vfio_iommu_device_list_update(iommu_data, vdev, false);
}

/*
 * Copy between data and the user memory behind user_iova, within the one
 * DMA that contains it; returns the bytes copied, or a negative errno.
 * A kernel thread (no mm) borrows the owner's mm; a user thread must be
 * the owner.
 */
static long vfio_dma_rw_one(struct vfio_iommu *iommu, dma_addr_t user_iova,
			    void *data, size_t count, bool write)
{
	struct vfio_dma *dma = vfio_find_dma(iommu, user_iova);
	bool borrow = !current->mm;
	void __user *uaddr;
	long copied = -EFAULT;
	unsigned long left;
	size_t offset;

	if (!dma)
		return -EINVAL;
	if (!(dma->prot & IOMMU_READ) || (write && !(dma->prot & IOMMU_WRITE)))
		return -EPERM;
	if (!mmget_not_zero(dma->mm))
		return -EPERM;
	if (!borrow && current->mm != dma->mm)
		goto out_put;
	if (borrow)
		kthread_use_mm(dma->mm);

	offset = user_iova - dma->iova;
	count = min_t(size_t, count, dma->size - offset);
	uaddr = (void __user *)(dma->vaddr + offset);
	left = write ? copy_to_user(uaddr, data, count) :
		       copy_from_user(data, uaddr, count);
	if (!left) {
		copied = count;
		/* A device write dirties every page it touched. */
		if (write && iommu->dirty_page_tracking) {
			unsigned long shift = __ffs(iommu->pgsize_bitmap);
			unsigned long first = offset >> shift;

			bitmap_set(dma->bitmap, first,
				   ((offset + count - 1) >> shift) - first + 1);
		}
	}

	if (borrow)
		kthread_unuse_mm(dma->mm);
out_put:
	mmput(dma->mm);
	return copied;
}

static int vfio_iommu_type1_dma_rw(void *iommu_data, dma_addr_t user_iova,
				   void *data, size_t count, bool write)
{
	struct vfio_iommu *iommu = iommu_data;
	long done = 0;

	mutex_lock(&iommu->lock);
	if (WARN_ONCE(iommu->vaddr_invalid_count,
		      "vfio_dma_rw not allowed with VFIO_UPDATE_VADDR\n"))
		done = -EBUSY;
	/* One DMA at a time: a range may span several. */
	while (done >= 0 && count) {
		done = vfio_dma_rw_one(iommu, user_iova, data, count, write);
		if (done > 0) {
			user_iova += done;
			data += done;
			count -= done;
		}
	}
	mutex_unlock(&iommu->lock);
	return done < 0 ? done : 0;
}

/* The IOMMU domain a group is attached to through this container. */
static struct iommu_domain *
vfio_iommu_type1_group_iommu_domain(void *iommu_data,
				    struct iommu_group *iommu_group)
{
	struct vfio_iommu *iommu = iommu_data;
	struct iommu_domain *found = NULL;
	struct vfio_domain *d;

	if (!iommu_group || !iommu)
		return ERR_PTR(-EINVAL);
	mutex_lock(&iommu->lock);
	list_for_each_entry(d, &iommu->domain_list, next) {
		if (!find_iommu_group(d, iommu_group))
			continue;
		found = d->domain;
		break;
	}
	mutex_unlock(&iommu->lock);
	return found ? found : ERR_PTR(-ENODEV);
}

static const struct vfio_iommu_driver_ops type1_ops = {
	.name			= "vfio-iommu-type1",
	.owner			= THIS_MODULE,
	.open			= vfio_iommu_type1_open,
	.release		= vfio_iommu_type1_release,
	.attach_group		= vfio_iommu_type1_attach_group,
	.detach_group		= vfio_iommu_type1_detach_group,
	.ioctl			= vfio_iommu_type1_ioctl,
	.register_device	= vfio_iommu_type1_register_device,
	.unregister_device	= vfio_iommu_type1_unregister_device,
	.pin_pages		= vfio_iommu_type1_pin_pages,
	.unpin_pages		= vfio_iommu_type1_unpin_pages,
	.dma_rw			= vfio_iommu_type1_dma_rw,
	.group_iommu_domain	= vfio_iommu_type1_group_iommu_domain,
};

static int __init type1_init(void)
{
	return vfio_register_iommu_driver(&type1_ops);
}
module_init(type1_init);

static void __exit type1_exit(void)
{
	vfio_unregister_iommu_driver(&type1_ops);
}
module_exit(type1_exit);

MODULE_VERSION(DRIVER_VERSION);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION(DRIVER_DESC);
