/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into the simulated kernel's memory
 * management (kapi/kapi_mm.c): processes, mappings, GUP, faults,
 * locked_vm accounting and follow_pfnmap, for tests, fuzzers and the CLI.
 *
 * A process is a task (with its own rlimits and capabilities) and an mm.
 * Creating one makes it the calling thread's `current`; mappings and GUP
 * calls act on the current process's mm.  Calls return 0 or the kernel's
 * negative errno.  BARs are placed with sim_bar_create() (sim_mm.h).
 */
#ifndef DMASIM_KAPI_MM_H
#define DMASIM_KAPI_MM_H

#include <dmasim/sim.h>

struct kapi_proc;

/* A new process (RLIMIT_MEMLOCK 8 MiB, no CAP_IPC_LOCK), made current. */
struct kapi_proc *kapi_proc_create(void);
/*
 * Exit: drop the process's mm (the last user tears the address space down)
 * and its task reference.  References kernel code took (mmgrab,
 * get_task_struct) keep the structs alive until dropped.  If it was the
 * calling thread's current, current becomes the boot task.
 */
void kapi_proc_destroy(struct kapi_proc *p);
/*
 * execve() in p: the same task (pid, rlimits, capabilities) gets a new,
 * empty address space, and drops the old one (torn down if nothing else
 * holds it: mmget).  0 or -ENOMEM.
 */
int kapi_proc_exec(struct kapi_proc *p);
/* Run the calling thread as p (NULL: the boot task, which has no mm). */
void kapi_proc_set_current(struct kapi_proc *p);
struct kapi_proc *kapi_proc_current(void);
int kapi_proc_pid(const struct kapi_proc *p);

/* Limits and capabilities of the current process. */
void kapi_mm_set_rlimit_memlock(unsigned long long bytes);
void kapi_mm_set_cap_ipc_lock(int on);
/* mm->locked_vm of the current process, in pages. */
unsigned long kapi_mm_locked_vm(void);

enum kapi_mm_kind {
	KAPI_MM_ANON,	/* 4 KiB pages on first touch */
	KAPI_MM_THP,	/* PMD-sized folios where they fit */
	KAPI_MM_PFNMAP,	/* VM_IO|VM_PFNMAP over pfn.., leaves up to max_leaf */
	KAPI_MM_IO,	/* empty VM_IO|VM_PFNMAP VMA for remap_pfn_range() */
	/* hugetlbfs 1 GiB pages: PUD leaves; addr, len PUD-aligned (-EINVAL) */
	KAPI_MM_HUGETLB_1G,
};

/* Leaf sizes, as the page-table levels (SIM_PT_PTE/PMD/PUD). */
enum {
	KAPI_MM_LEAF_PTE = SIM_PT_PTE,
	KAPI_MM_LEAF_PMD = SIM_PT_PMD,
	KAPI_MM_LEAF_PUD = SIM_PT_PUD,
};

struct kapi_mm_map {
	unsigned long addr;		/* 0: the sim picks one */
	unsigned long len;		/* bytes, a page multiple */
	enum kapi_mm_kind kind;
	int writable;			/* else read-only */
	int populate;			/* fault everything in now */
	unsigned long pfn;		/* PFNMAP: pfn mapped at addr */
	unsigned int max_leaf;		/* PFNMAP: KAPI_MM_LEAF_*; 0: PUD */
	unsigned long pgoff;		/* vm_pgoff (need not equal pfn) */
	unsigned long align;		/* when addr is 0: alignment ... */
	unsigned long misalign;		/* ... plus this page offset */
	int prot_none;			/* PROT_NONE: no access (writable, populate ignored) */
};

/*
 * A PFNMAP mapping gets leaves up to max_leaf where the kernel linked in
 * has huge pfnmap faults; a tree without them (6.1,
 * DMASIM_IMPL_PFNMAP_HUGE_LEAVES) faults PTEs only.  Tests of the
 * simulated page walk itself (core/mm/memory.c, the same in every
 * implementation) build the leaves they walk: on, max_leaf is kept as
 * asked whatever the tree (for the rest of the process).
 */
void kapi_mm_set_exact_pfnmap_leaves(int on);

/* Map into the current process; *addr_out gets the start address. */
int kapi_mm_mmap(const struct kapi_mm_map *m, unsigned long *addr_out);
/* Unmap the VMA starting at addr (-EINVAL if none starts there). */
int kapi_mm_munmap(unsigned long addr);
/*
 * Zap the page-table entries of [addr, addr+len) (the VMAs stay): what
 * vfio-pci's unmap_mapping_range() does to a BAR mmap when the guest
 * turns memory decode off; the next access faults the leaves back.
 * 0 or -EINVAL (not page aligned, no process).
 */
int kapi_mm_zap(unsigned long addr, unsigned long len);
/* CPU accesses to every page of [addr, addr+len): fault in as needed. */
int kapi_mm_touch(unsigned long addr, unsigned long len, int write);
/*
 * The CPU's view (the sim's reference walk): pfn of addr and the level of
 * the leaf mapping it (KAPI_MM_LEAF_*).  -ENOENT if unmapped.
 */
int kapi_mm_cpu_pfn(unsigned long addr, unsigned long *pfn, int *level);
/*
 * Turn the leaf at level (KAPI_MM_LEAF_*) that maps addr into kind: a
 * swap- or migration-like entry, PROT_NONE, a PMD/PUD pfnmap leaf mid-split,
 * a devmap leaf, or back to present (sim_mm_set_entry(), sim_mm.h, says
 * what each is and what a fault does to it), under the mmap write lock.
 * 0, -ENOENT (no leaf of that level maps addr, or no process), -EINVAL,
 * -EOPNOTSUPP.
 */
int kapi_mm_set_entry(unsigned long addr, int level,
		      enum sim_pt_entry_kind kind);
/* Page-table pages of the current process. */
unsigned long kapi_mm_nr_tables(void);

/*
 * GUP, through the kernel API: pin_user_pages_remote(current->mm, ...)
 * under the mmap read lock, with FOLL_WRITE/FOLL_LONGTERM as asked;
 * pfns[i] receives the pfn of each page pinned.  Returns what the kernel
 * function returned.
 */
long kapi_mm_pin(unsigned long addr, unsigned long npages, int write,
		 int longterm, unsigned long *pfns);
/*
 * The same call by kernel code that forgot the mmap lock (a bug the lock
 * checker reports through GUP's mmap_assert_locked()); what it returned,
 * with whatever it pinned unpinned again.
 */
long kapi_mm_pin_without_mmap_lock(unsigned long addr, unsigned long npages,
				   int write);
/* unpin_user_pages_dirty_lock() on the pages of those pfns. */
void kapi_mm_unpin(const unsigned long *pfns, unsigned long n, int dirty);
/* Pins outstanding over all pages (0 when every pin was released). */
unsigned long kapi_mm_pins_outstanding(void);

/* GUP test hooks: the nth call from now (1 = the next) returns ... */
enum {
	KAPI_GUP_SHORT = 1,	/* at most value pages (value 0: returns 0) */
	KAPI_GUP_ZERO,		/* 0, pinning nothing */
	KAPI_GUP_ERRNO,		/* value, a negative errno */
};
void kapi_mm_gup_hook(unsigned long nth, int mode, long value, int persist);
/* Make the next fixup_user_fault() report *unlocked = true. */
void kapi_mm_fixup_unlock_once(void);
/* Clear the hooks. */
void kapi_mm_hooks_reset(void);

/* fixup_user_fault(current->mm, addr, FAULT_FLAG_REMOTE[|WRITE], &u). */
int kapi_mm_fixup_user_fault(unsigned long addr, int write, int *unlocked);
/* account_locked_vm(current->mm, pages, inc) */
int kapi_mm_account_locked_vm(unsigned long pages, int inc);
/*
 * The killable form vfio type1 uses: mmap_write_lock_killable() (-EINTR on
 * the fault point "shim/mm/account_locked_vm" or a pending fatal signal),
 * then __account_locked_vm(mm, |npage|, npage > 0, current, bypass_rlim).
 */
int kapi_mm_account_locked_vm_killable(long npage, int bypass_rlim);

/* follow_pfnmap_start()/_end() on the current process, under the lock. */
struct kapi_pfnmap {
	unsigned long pfn;
	unsigned long addr_mask;
	unsigned long pgprot;
	int writable;
	int special;
};
/* -EFAULT if no VMA contains addr; else follow_pfnmap_start()'s result. */
int kapi_mm_follow_pfnmap(unsigned long addr, struct kapi_pfnmap *out);
/*
 * The same with args.vma = the VMA containing vma_addr and args.address =
 * addr, which may lie outside it (follow_pfnmap_start's range check).
 */
int kapi_mm_follow_pfnmap_vma(unsigned long vma_addr, unsigned long addr,
			      struct kapi_pfnmap *out);
/*
 * The lookup loop of a pfnmap pin (benchmarks, the pfnmap fuzzer): from
 * addr, call follow_pfnmap_start() and stride to the end of each leaf as
 * vfio type1 does, until npages pages are covered or a lookup fails.
 * With stride_by_mask 0, every page is looked up (the pre-6.15 loop).
 * Returns the number of lookups made, or the failing lookup's errno;
 * *pages_done gets the pages covered, *pfn_sum the sum of their pfns.
 */
long kapi_mm_pfnmap_walk(unsigned long addr, unsigned long npages,
			 int stride_by_mask, unsigned long *pages_done,
			 unsigned long long *pfn_sum);

#endif
