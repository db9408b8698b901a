/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by kernel_shim/ and the kapi/ doors only: the mm shim's private state. */
#ifndef _DMASIM_KSHIM_SHIM_MM_H
#define _DMASIM_KSHIM_SHIM_MM_H

#include <linux/mm_types.h>
#include <linux/types.h>

/* task->dmasim_ext of a task made by kapi_mm (freed on the last put). */
#define DMASIM_TASK_ALLOCATED	((void *)0x7a5c)

/* GUP test hook (kapi_mm_gup_hook): what the nth call returns. */
enum {
	GUP_HOOK_NONE,
	GUP_HOOK_SHORT,		/* pin at most value pages (0: return 0) */
	GUP_HOOK_ZERO,		/* return 0, pin nothing */
	GUP_HOOK_ERRNO,		/* return value (a negative errno) */
};

/* The hook's mode is shim_gup_hook_mode (shim/mm_vma.h), read inline. */
struct gup_hook {
	bool persist;		/* every call from the nth on */
	unsigned long nth;	/* 1: the next call */
	long value;
};

extern struct gup_hook gup_hook;
/* fixup_user_fault() reports *unlocked = true once (kapi_mm hook). */
extern bool fixup_unlock_once;
/*
 * What another task does while fixup_user_fault() has the mmap lock
 * dropped (enum sim_mm_race, choice point SIM_CH_FIXUP_UNLOCKED).
 * shim_mm_race, set by kapi_mm, runs it with the lock not held.
 */
extern void (*shim_mm_race)(struct mm_struct *mm, unsigned long addr,
			    enum sim_mm_race what);
/*
 * Whether the mm core offers a VM_PFNMAP VMA's ->huge_fault a PUD or PMD
 * (the huge pfnmap faults of 6.12; kernel_shim/mm_fault.c).  A tree
 * before them (6.1) has ->fault alone: false.  kapi_mm sets it for the
 * kernel linked in (kapi/kapi_impl.c); true until then.
 */
extern bool shim_pfnmap_huge_faults;
/* Clear both hooks and the call count. */
void shim_gup_reset(void);
/*
 * The call count the hook's nth is relative to: it moves at every call
 * made while a hook is set (calls refused at once with none set, in
 * pin_user_pages_remote(), need not count).
 */
unsigned long shim_gup_calls(void);

#endif
