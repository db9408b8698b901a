/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-space types of <linux/mm_types.h>: struct vm_area_struct and
 * struct mm_struct, each the shim's face of a sim object (struct sim_vma,
 * struct sim_mm in include/dmasim/sim_mm.h) that owns the VMA index and
 * the page tables.
 *
 * (a) Definitions that must match the kernel: the fields the code under
 *     test reads or writes, with the kernel's names and types: vm_start,
 *     vm_end, vm_mm, vm_page_prot, vm_flags (read-only alias of
 *     __vm_flags, written through vm_flags_set()/vm_flags_clear() as in
 *     mainline), vm_pgoff, vm_file, vm_private_data, vm_ops; mm->pgd,
 *     mm_users, mm_count, locked_vm, pinned_vm, total_vm, mmap_lock,
 *     page_table_lock, owner.
 * Simplified: no maple tree (the sim keeps a sorted VMA array), no anon_vma,
 * no mm counters beyond the ones above, no ASID/context.
 */
#ifndef _DMASIM_SHIM_VMA_TYPES_H
#define _DMASIM_SHIM_VMA_TYPES_H

#include <dmasim/sim.h>
#include <linux/rwsem.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <asm/pgtable_types.h>

struct file;
struct mm_struct;
struct task_struct;
struct vm_operations_struct;
struct anon_vma;

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	struct mm_struct *vm_mm;
	pgprot_t vm_page_prot;
	union {
		const vm_flags_t vm_flags;
		vm_flags_t __vm_flags;
	};
	unsigned long vm_pgoff;
	struct file *vm_file;
	void *vm_private_data;
	const struct vm_operations_struct *vm_ops;
	struct anon_vma *anon_vma;
	struct sim_vma *dmasim_vma;	/* the sim's VMA */
};

struct mm_struct {
	pgd_t *pgd;
	atomic_t mm_users;		/* address-space users (mmget/mmput) */
	atomic_t mm_count;		/* struct references (mmgrab/mmdrop) */
	unsigned long total_vm;
	unsigned long locked_vm;	/* pages accounted by account_locked_vm */
	atomic64_t pinned_vm;
	unsigned long task_size;
	struct rw_semaphore mmap_lock;
	spinlock_t page_table_lock;	/* guards PUD leaves (pud_lock) */
	struct task_struct *owner;
	struct sim_mm *dmasim_mm;	/* the sim's address space */
	void *dmasim_ext;		/* the shim's per-process state */
};

#endif
