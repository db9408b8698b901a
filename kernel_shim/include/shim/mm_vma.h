/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address spaces, GUP, faults and follow_pfnmap, the parts of <linux/mm.h>
 * and <linux/mm_types.h> the VFIO code uses.  Implemented in
 * kernel_shim/gup.c and kernel_shim/task.c over sim/mm.c; follow_pfnmap_*
 * is the project's own kernel code in core/mm/memory.c.
 *
 * (a) Definitions that must match the kernel: the VM_*, FOLL_* and
 *     FAULT_FLAG_* values, struct follow_pfnmap_args (mainline's, with
 *     addr_mask), and the prototypes and contracts of vma_lookup(),
 *     find_vma(), pin_user_pages_remote(), get_user_pages_remote(),
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
 *     accepted and ignored.
 * (c) Test doubles: the fault points "shim/mm/pin_user_pages_remote"
 *     (-ENOMEM before anything is pinned) and "shim/mm/fixup_user_fault"
 *     (-EFAULT); kapi_mm.h hooks that make the Nth GUP call return a short
 *     count, 0 or an errno, and make fixup_user_fault() report
 *     *unlocked = true (having dropped and re-taken the mmap lock).
 *     Every pin and unpin is counted (SIM_CNT_GUP_CALL, _GUP_PAGE,
 *     _UNPIN_PAGE) and the pins outstanding are a kapi invariant.
 */
#ifndef _DMASIM_SHIM_MM_VMA_H
#define _DMASIM_SHIM_MM_VMA_H

#include <dmasim/sim.h>
#include <linux/bits.h>
#include <linux/mmap_lock.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <shim/vma_types.h>

struct page;
struct folio;

/* ---- VMA flags ---- */
#define VM_NONE		0x00000000
#define VM_READ		0x00000001
#define VM_WRITE	0x00000002
#define VM_EXEC		0x00000004
#define VM_SHARED	0x00000008
#define VM_MAYREAD	0x00000010
#define VM_MAYWRITE	0x00000020
#define VM_MAYEXEC	0x00000040
#define VM_MAYSHARE	0x00000080
#define VM_GROWSDOWN	0x00000100
#define VM_PFNMAP	0x00000400
#define VM_LOCKED	0x00002000
#define VM_IO		0x00004000
#define VM_SEQ_READ	0x00008000
#define VM_RAND_READ	0x00010000
#define VM_DONTCOPY	0x00020000
#define VM_DONTEXPAND	0x00040000
#define VM_LOCKONFAULT	0x00080000
#define VM_ACCOUNT	0x00100000
#define VM_NORESERVE	0x00200000
#define VM_HUGETLB	0x00400000
#define VM_SYNC		0x00800000
#define VM_WIPEONFORK	0x02000000
#define VM_DONTDUMP	0x04000000
#define VM_MIXEDMAP	0x10000000
#define VM_HUGEPAGE	0x20000000
#define VM_NOHUGEPAGE	0x40000000
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
	FOLL_WRITE = 1 << 0,
	FOLL_GET = 1 << 1,
	FOLL_DUMP = 1 << 2,
	FOLL_FORCE = 1 << 3,
	FOLL_NOWAIT = 1 << 4,
	FOLL_NOFAULT = 1 << 5,
	FOLL_HWPOISON = 1 << 6,
	FOLL_ANON = 1 << 7,
	FOLL_LONGTERM = 1 << 8,
	FOLL_SPLIT_PMD = 1 << 9,
	FOLL_PCI_P2PDMA = 1 << 10,
	FOLL_INTERRUPTIBLE = 1 << 11,
	FOLL_HONOR_NUMA_FAULT = 1 << 12,
};

enum fault_flag {
	FAULT_FLAG_WRITE = 1 << 0,
	FAULT_FLAG_MKWRITE = 1 << 1,
	FAULT_FLAG_ALLOW_RETRY = 1 << 2,
	FAULT_FLAG_RETRY_NOWAIT = 1 << 3,
	FAULT_FLAG_KILLABLE = 1 << 4,
	FAULT_FLAG_TRIED = 1 << 5,
	FAULT_FLAG_USER = 1 << 6,
	FAULT_FLAG_REMOTE = 1 << 7,
	FAULT_FLAG_INSTRUCTION = 1 << 8,
	FAULT_FLAG_INTERRUPTIBLE = 1 << 9,
	FAULT_FLAG_UNSHARE = 1 << 10,
	FAULT_FLAG_ORIG_PTE_VALID = 1 << 11,
	FAULT_FLAG_VMA_LOCK = 1 << 12,
};

/* ---- VMA lookup (sim/mm.c's index) ---- */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr);

/* ---- GUP ---- */
long pin_user_pages_remote(struct mm_struct *mm, unsigned long start,
			   unsigned long nr_pages, unsigned int gup_flags,
			   struct page **pages, int *locked);
long get_user_pages_remote(struct mm_struct *mm, unsigned long start,
			   unsigned long nr_pages, unsigned int gup_flags,
			   struct page **pages, int *locked);
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

/* ---- the zero page ---- */
static inline bool is_zero_page(const struct page *page)
{
	return sim_page_to_pfn((const struct sim_page *)page) == sim_zero_pfn;
}

static inline bool is_zero_folio(const struct folio *folio)
{
	return is_zero_page((const struct page *)folio);
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

#endif
