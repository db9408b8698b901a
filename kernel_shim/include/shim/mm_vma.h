/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address spaces, GUP, faults and follow_pfnmap, the parts of <linux/mm.h>
 * and <linux/mm_types.h> the VFIO code uses.  Implemented in
 * kernel_shim/gup.c and kernel_shim/task.c over sim/mm.c; follow_pfnmap_*
 * is the project's own kernel code in core/mm/memory.c.
 *
 * (a) Definitions that must match the kernel: the VM_*, FOLL_* and
 *     FAULT_FLAG_* values, struct follow_pfnmap_args (mainline's, with
 *     addr_mask; and the input .write of newer trees, honoured for them
 *     by shim_follow_pfnmap_start_write(), see below), and the prototypes and contracts of vma_lookup(),
 *     find_vma(), pin_user_pages_remote(), pin_user_pages(),
 *     unpin_user_page(s)(), unpin_user_pages_dirty_lock(),
 *     unpin_user_page_range_dirty_lock(), unpin_folio(s)(),
 *     unpin_user_folio(), fixup_user_fault(), account_locked_vm(),
 *     __account_locked_vm(), remap_pfn_range().
 *     GUP pins real simulated pages (a pin per page, on the page itself),
 *     faults anonymous and THP memory in, stops short at the end of a VMA
 *     (returning the pages pinned so far, or the error if none), refuses
 *     VM_IO|VM_PFNMAP VMAs with -EFAULT, pins the shared zero page without
 *     counting a pin on it (as the kernel since 6.5), and with FOLL_WRITE
 *     refuses a read-only VMA with -EFAULT.
 * (b) Stubs on purpose: make_dirty only sets the page's dirty flag;
 *     FOLL_LONGTERM does not migrate pages out of movable zones (the sim
 *     has no CMA / ZONE_MOVABLE), FOLL_PCI_P2PDMA and FOLL_NOWAIT are
 *     accepted and ignored; *locked is never cleared (the mmap lock is
 *     never dropped inside GUP).  Not provided: the FOLL_GET family
 *     (get_user_pages*), which the code under test does not call.
 * (c) Test doubles: the fault points "shim/mm/pin_user_pages_remote"
 *     (-ENOMEM before anything is pinned) and "shim/mm/fixup_user_fault"
 *     (-EFAULT); "shim/mm/alloc_pages" fails remap_pfn_range() with
 *     -ENOMEM and nothing mapped (the kernel's allocates the page tables
 *     it needs from the page allocator; the shim asks the point once per
 *     call, whether or not a table is missing); kapi_mm.h hooks that make
 *     the Nth GUP call return a short
 *     count, 0 or an errno, and make fixup_user_fault() report
 *     *unlocked = true (having dropped and re-taken the mmap lock).
 *     Every pin and unpin is counted (SIM_CNT_GUP_CALL, _GUP_PAGE,
 *     _UNPIN_PAGE) and the pins outstanding are a kapi invariant.
 */
#ifndef _DMASIM_SHIM_MM_VMA_H
#define _DMASIM_SHIM_MM_VMA_H

#include <dmasim/sim.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/mmap_lock.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/version.h>
#include <shim/vma_types.h>

struct page;
struct folio;

/* ---- VMA flags ---- */
#define VM_NONE		0
#define VM_READ		BIT(0)
#define VM_WRITE	BIT(1)
#define VM_EXEC		BIT(2)
#define VM_SHARED	BIT(3)
#define VM_MAYREAD	BIT(4)
#define VM_MAYWRITE	BIT(5)
#define VM_MAYEXEC	BIT(6)
#define VM_MAYSHARE	BIT(7)
#define VM_GROWSDOWN	BIT(8)
#define VM_PFNMAP	BIT(10)
#define VM_LOCKED	BIT(13)
#define VM_IO		BIT(14)
#define VM_SEQ_READ	BIT(15)
#define VM_RAND_READ	BIT(16)
#define VM_DONTCOPY	BIT(17)
#define VM_DONTEXPAND	BIT(18)
#define VM_LOCKONFAULT	BIT(19)
#define VM_ACCOUNT	BIT(20)
#define VM_NORESERVE	BIT(21)
#define VM_HUGETLB	BIT(22)
#define VM_SYNC		BIT(23)
#define VM_WIPEONFORK	BIT(25)
#define VM_DONTDUMP	BIT(26)
#define VM_MIXEDMAP	BIT(28)
#define VM_HUGEPAGE	BIT(29)
#define VM_NOHUGEPAGE	BIT(30)
#define VM_MERGEABLE	BIT(31)

static inline void vm_flags_init(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->__vm_flags = flags;
}

static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->__vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->__vm_flags &= ~flags;
}

static inline void vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
				vm_flags_t clear)
{
	vma->__vm_flags = (vma->__vm_flags | set) & ~clear;
}

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* ---- GUP flags (enum in mm_types.h) ---- */
enum {
	FOLL_WRITE = BIT(0),
	FOLL_GET = BIT(1),
	FOLL_DUMP = BIT(2),
	FOLL_FORCE = BIT(3),
	FOLL_NOWAIT = BIT(4),
	FOLL_NOFAULT = BIT(5),
	FOLL_HWPOISON = BIT(6),
	FOLL_ANON = BIT(7),
	FOLL_LONGTERM = BIT(8),
	FOLL_SPLIT_PMD = BIT(9),
	FOLL_PCI_P2PDMA = BIT(10),
	FOLL_INTERRUPTIBLE = BIT(11),
	FOLL_HONOR_NUMA_FAULT = BIT(12),
};

enum fault_flag {
	FAULT_FLAG_WRITE = BIT(0),
	FAULT_FLAG_MKWRITE = BIT(1),
	FAULT_FLAG_ALLOW_RETRY = BIT(2),
	FAULT_FLAG_RETRY_NOWAIT = BIT(3),
	FAULT_FLAG_KILLABLE = BIT(4),
	FAULT_FLAG_TRIED = BIT(5),
	FAULT_FLAG_USER = BIT(6),
	FAULT_FLAG_REMOTE = BIT(7),
	FAULT_FLAG_INSTRUCTION = BIT(8),
	FAULT_FLAG_INTERRUPTIBLE = BIT(9),
	FAULT_FLAG_UNSHARE = BIT(10),
	FAULT_FLAG_ORIG_PTE_VALID = BIT(11),
	FAULT_FLAG_VMA_LOCK = BIT(12),
};

/* ---- VMA lookup (sim/mm.c's index) ---- */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);

/*
 * Inline, as the kernel's (<linux/mm.h>): type1 before 6.15 looks a VMA
 * up once per 4 KiB page of a BAR, and the sim's last-hit cache answers
 * inline too.  The sim's VMA is owned by the vm_area_struct it names.
 */
static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm,
						unsigned long addr)
{
	struct sim_vma *svma = sim_mm_find_vma(mm->dmasim_mm, addr);

	return svma ? (struct vm_area_struct *)sim_vma_info(svma)->owner : NULL;
}

/* ---- address tags (x86-64 without LAM: addresses carry no tag) ---- */
#ifndef untagged_addr
#define untagged_addr(addr)		(addr)
#endif
#ifndef untagged_addr_remote
#define untagged_addr_remote(mm, addr)	({		\
	mmap_assert_locked(mm);				\
	untagged_addr(addr);				\
})
#endif

/* ---- GUP ---- */
/* The full way of pin_user_pages_remote() (kernel_shim/gup.c). */
long shim_pin_user_pages_remote(struct mm_struct *mm, unsigned long start,
				unsigned long nr_pages, unsigned int gup_flags,
				struct page **pages, int *locked);
/*
 * GUP_HOOK_NONE (0) unless a kapi_mm GUP hook is set (shim/mm_internal.h):
 * a byte of sim_armed.
 */
#define shim_gup_hook_mode	(sim_armed.by.gup_hook)

/*
 * The outcome of a pin that the full way would refuse at its first VMA,
 * decided inline: type1 before Linux 6.15 asks GUP first for every 4 KiB
 * page of a BAR (a VM_PFNMAP VMA), 8,388,608 times for 32 GiB.  Only when
 * nothing could go another way: valid arguments, no test hook, no fault
 * point or choice point armed, the mmap lock the last lock taken (so the
 * full way's mmap_assert_locked() holds), a VMA the last-hit cache knows
 * that VM_IO|VM_PFNMAP or its access rights refuse.  Then what the full
 * way makes before its -EFAULT is two counts, the call's and the fault
 * point's, made here by the same helpers (an unarmed choice point counts
 * nothing; the hook's call number only has to move while a hook is set,
 * as a hook's nth counts from its setting).  0: go the full way.
 */
static __always_inline long
shim_gup_refused_at_once(struct mm_struct *mm, unsigned long start,
			 unsigned long nr_pages, unsigned int gup_flags,
			 struct page **pages, int *locked)
{
	struct sim_vma *svma;
	unsigned long flags;

	/* sim_armed.any: a GUP hook, a fault point or a choice point armed. */
	if ((gup_flags & FOLL_GET) || !pages || locked || !nr_pages ||
	    sim_armed.any || !sim_lock_on_top(&mm->mmap_lock))
		return 0;
	/*
	 * The full way looks up the page's address; a VMA's bounds are
	 * page aligned, so start itself is inside the same one.
	 */
	svma = sim_mm_find_vma_cached(mm->dmasim_mm, untagged_addr(start));
	if (!svma || !sim_vma_info(svma)->owner)
		return 0;
	flags = ((struct vm_area_struct *)sim_vma_info(svma)->owner)->vm_flags;
	/* gup_vma_allows() of kernel_shim/gup.c, its refusals. */
	if (!(flags & (VM_IO | VM_PFNMAP)) &&
	    (flags & ((gup_flags & FOLL_WRITE) ? VM_WRITE : VM_READ)))
		return 0;
	sim_count(SIM_CNT_GUP_CALL, 1);
	sim_fault_count(SIM_FP_GUP);
	return -EFAULT;
}

static inline long pin_user_pages_remote(struct mm_struct *mm,
					 unsigned long start,
					 unsigned long nr_pages,
					 unsigned int gup_flags,
					 struct page **pages, int *locked)
{
	long refused = shim_gup_refused_at_once(mm, start, nr_pages,
						gup_flags, pages, locked);

	if (refused)
		return refused;
	return shim_pin_user_pages_remote(mm, start, nr_pages, gup_flags,
					  pages, locked);
}
long pin_user_pages(unsigned long start, unsigned long nr_pages,
		    unsigned int gup_flags, struct page **pages);
void unpin_user_page(struct page *page);
void unpin_user_pages(struct page **pages, unsigned long npages);
void unpin_user_pages_dirty_lock(struct page **pages, unsigned long npages,
				 bool make_dirty);
void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages,
				      bool make_dirty);
void unpin_folio(struct folio *folio);
void unpin_folios(struct folio **folios, unsigned long nfolios);
void unpin_user_folio(struct folio *folio, unsigned long npages);

int fixup_user_fault(struct mm_struct *mm, unsigned long address,
		     unsigned int fault_flags, bool *unlocked);

/* ---- locked_vm accounting (mm/util.c) ---- */
int account_locked_vm(struct mm_struct *mm, unsigned long pages, bool inc);
int __account_locked_vm(struct mm_struct *mm, unsigned long pages, bool inc,
			struct task_struct *task, bool bypass_rlim);

/* ---- pfn maps ---- */
int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr,
		    unsigned long pfn, unsigned long size, pgprot_t prot);
#define io_remap_pfn_range remap_pfn_range

struct follow_pfnmap_args {
	/* inputs */
	struct vm_area_struct *vma;
	unsigned long address;
	bool write;	/* newer trees: the caller needs a writable leaf */
	/* internal: the lock held and the pte mapped between start and end */
	spinlock_t *lock;
	pte_t *ptep;
	/* outputs */
	unsigned long pfn;
	unsigned long addr_mask;
	pgprot_t pgprot;
	bool writable;
	bool special;
};
int follow_pfnmap_start(struct follow_pfnmap_args *args);
void follow_pfnmap_end(struct follow_pfnmap_args *args);

/*
 * Trees after 6.12 (linux-mm at 7.0-rc5: type1's follow_fault_pfn() sets
 * .write and no longer checks .writable itself) ask follow_pfnmap_start()
 * for a writable leaf through the input .write.  The lookup itself is
 * core/mm/memory.c, written to 6.12's struct, which has no .write; so for
 * those trees' files the call goes through shim_follow_pfnmap_start_write()
 * (kernel_shim/gup.c): the same lookup, then -EINVAL (follow_pfnmap_start's
 * one error) and nothing held if .write is set and the leaf is read-only.
 * A newer file that never sets .write sees no difference.  Selected by
 * what the tree's type1 does (DMASIM_PROBED_FOLLOW_PFNMAP_ARGS_WRITE,
 * tools/probe-tree.py), by version when the probe cannot tell; never by
 * struct layout (see <linux/version.h>): the field is there for every
 * version.  When upstream mode takes the tree's own follow_pfnmap_start()
 * (DMASIM_PROBED_TREE_FOLLOW_PFNMAP, tools/extract-functions.py), that
 * one answers .write as its tree does: nothing is routed.
 */
#if !(defined(DMASIM_PROBED_TREE_FOLLOW_PFNMAP) && \
      DMASIM_PROBED_TREE_FOLLOW_PFNMAP) && \
	(defined(DMASIM_PROBED_FOLLOW_PFNMAP_ARGS_WRITE) ? \
	 DMASIM_PROBED_FOLLOW_PFNMAP_ARGS_WRITE : \
	 LINUX_VERSION_CODE > KERNEL_VERSION(6, 12, 255))
int shim_follow_pfnmap_start_write(struct follow_pfnmap_args *args);
#define follow_pfnmap_start(args) shim_follow_pfnmap_start_write(args)
#endif

/*
 * follow_pte(mm, address, &ptep, &ptl) of trees before 6.10 (6.1's type1
 * follow_fault_pfn()): on success the PTE mapping address is mapped and
 * its lock held; the caller reads it (pte_pfn(), pte_write()) and lets go
 * with pte_unmap_unlock().  The same walk as follow_pfnmap_start() (the
 * VMA is vma_lookup()'s), so it also wants a VM_IO/VM_PFNMAP VMA and the
 * mmap lock held, which 6.1 does not check but its one caller satisfies.
 * 6.1 walks to the PTE level only: a PMD or PUD leaf (pmd_bad/pud_bad
 * there) is -EINVAL, with nothing held.  Selected by the tree's version
 * (6.10 and 6.11 took the VMA instead; 6.12 removed it).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
static inline int follow_pte(struct mm_struct *mm, unsigned long address,
			     pte_t **ptepp, spinlock_t **ptlp)
{
	struct follow_pfnmap_args args = {
		.vma = vma_lookup(mm, address),
		.address = address,
	};
	int ret;

	if (!args.vma)
		return -EINVAL;
	ret = follow_pfnmap_start(&args);
	if (ret)
		return ret;
	if (!args.ptep) {
		follow_pfnmap_end(&args);
		return -EINVAL;
	}
	*ptepp = args.ptep;
	*ptlp = args.lock;
	return 0;
}
#endif

/*
 * pin_user_pages_remote() before 6.5 also returned the VMAs (vmas, which
 * 6.1's type1 passes as NULL).  The same GUP; a caller that asks for the
 * VMAs is told so (WARN) and gets -EINVAL, as no tree here does.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static inline long shim_pin_user_pages_remote_vmas(struct mm_struct *mm,
						   unsigned long start,
						   unsigned long nr_pages,
						   unsigned int gup_flags,
						   struct page **pages,
						   struct vm_area_struct **vmas,
						   int *locked)
{
	if (WARN_ON_ONCE(vmas))
		return -EINVAL;
	return pin_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     locked);
}
#define pin_user_pages_remote shim_pin_user_pages_remote_vmas
#endif

/*
 * ---- driver faults (mm/memory.c, mm/huge_memory.c) ----
 * (a) Definitions that must match the kernel: the VM_FAULT_* values,
 *     struct vm_operations_struct's open/close/fault/huge_fault members,
 *     struct vm_fault's vma/pgoff/address/flags, pfn_t and PFN_DEV, the
 *     prototypes of vmf_insert_pfn() and vmf_insert_pfn_pmd()/_pud()
 *     (6.12: a pfn_t and a write flag).
 * Simplified: the mm core's order choice (kernel_shim/mm_fault.c) asks
 *     huge_fault for PUD_ORDER where nothing maps the PUD, then PMD_ORDER
 *     where nothing maps the PMD, then ->fault, as __handle_mm_fault()
 *     does for a VMA that has huge_fault (the THP sysfs policy does not
 *     apply to VM_PFNMAP; VM_NOHUGEPAGE still vetoes); faults are never
 *     retried.  VM_FAULT_SIGBUS becomes -EFAULT for fixup_user_fault() and
 *     GUP, VM_FAULT_OOM -ENOMEM.  For a tree before huge pfnmap faults
 *     (6.1, shim_pfnmap_huge_faults in <shim/mm_internal.h>) ->fault
 *     alone, as 6.1 never calls huge_fault for a VM_PFNMAP VMA.
 */
typedef unsigned int vm_fault_t;
enum vm_fault_reason {
	VM_FAULT_OOM		= 0x000001,
	VM_FAULT_SIGBUS		= 0x000002,
	VM_FAULT_MAJOR		= 0x000004,
	VM_FAULT_HWPOISON	= 0x000010,
	VM_FAULT_HWPOISON_LARGE	= 0x000020,
	VM_FAULT_SIGSEGV	= 0x000040,
	VM_FAULT_NOPAGE		= 0x000100,
	VM_FAULT_LOCKED		= 0x000200,
	VM_FAULT_RETRY		= 0x000400,
	VM_FAULT_FALLBACK	= 0x000800,
	VM_FAULT_DONE_COW	= 0x001000,
};

#define PMD_ORDER	(PMD_SHIFT - PAGE_SHIFT)
#define PUD_ORDER	(PUD_SHIFT - PAGE_SHIFT)

struct vm_fault {
	struct vm_area_struct *vma;
	pgoff_t pgoff;			/* of address, in the file */
	unsigned long address;		/* page aligned */
	unsigned long real_address;
	enum fault_flag flags;
};

struct vm_operations_struct {
	void (*open)(struct vm_area_struct *area);
	void (*close)(struct vm_area_struct *area);
	vm_fault_t (*fault)(struct vm_fault *vmf);
	vm_fault_t (*huge_fault)(struct vm_fault *vmf, unsigned int order);
};

typedef struct {
	u64 val;
} pfn_t;
#define PFN_FLAGS_MASK	(((u64)(~PAGE_MASK)) << (BITS_PER_LONG_LONG - PAGE_SHIFT))
#define PFN_DEV		(1ULL << (BITS_PER_LONG_LONG - 3))
static inline pfn_t __pfn_to_pfn_t(unsigned long pfn, u64 flags)
{
	pfn_t pfn_t = { .val = pfn | (flags & PFN_FLAGS_MASK), };

	return pfn_t;
}

static inline unsigned long pfn_t_to_pfn(pfn_t pfn)
{
	return pfn.val & ~PFN_FLAGS_MASK;
}

vm_fault_t vmf_insert_pfn(struct vm_area_struct *vma, unsigned long addr,
			  unsigned long pfn);
vm_fault_t vmf_insert_pfn_pmd(struct vm_fault *vmf, pfn_t pfn, bool write);
vm_fault_t vmf_insert_pfn_pud(struct vm_fault *vmf, pfn_t pfn, bool write);
/*
 * Zap every leaf of [start, start + size) of vma (the part of
 * unmap_mapping_range() that reaches one VMA; the leaves come back by
 * faults).
 */
void zap_vma_ptes(struct vm_area_struct *vma, unsigned long address,
		  unsigned long size);
/*
 * dmasim: the file's ->mmap set vm_ops with a fault handler: faults of
 * the VMA go to it from now on (0, or -EINVAL if the VMA is not an empty
 * IO one).  kapi's mmap doors call it after ->mmap.
 */
int shim_vma_use_vm_ops(struct vm_area_struct *vma);
/* munmap and exit: vm_ops->close, the file's reference, the struct. */
void shim_vma_free(struct vm_area_struct *vma);

/* ---- the zero page ---- */
static inline bool is_zero_page(const struct page *page)
{
	return sim_page_to_pfn((const struct sim_page *)page) == sim_zero_pfn;
}

static inline bool is_zero_folio(const struct folio *folio)
{
	return is_zero_page((const struct page *)folio);
}

#endif
