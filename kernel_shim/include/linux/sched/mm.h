/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mm references (<linux/sched/mm.h>).
 * (a) Definitions that must match the kernel: mm_users (mmget,
 *     mmget_not_zero, mmput: the last mmput tears the address space down,
 *     unmapping every VMA and freeing its pages and page tables) and
 *     mm_count (mmgrab, mmdrop: the last mmdrop frees the struct); the
 *     users hold one mm_count reference between them.  get_task_mm().
 * Simplified: teardown is synchronous (no mmput_async worker), no
 * lazy-TLB references.
 */
#ifndef _DMASIM_LINUX_SCHED_MM_H
#define _DMASIM_LINUX_SCHED_MM_H

#include <linux/atomic.h>
#include <linux/mm_types.h>
#include <linux/sched.h>

void __mmdrop(struct mm_struct *mm);
void mmput(struct mm_struct *mm);
struct mm_struct *get_task_mm(struct task_struct *task);

static inline void mmgrab(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_count);
}

static inline void mmdrop(struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->mm_count))
		__mmdrop(mm);
}

static inline void mmget(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_users);
}

static inline bool mmget_not_zero(struct mm_struct *mm)
{
	return atomic_inc_not_zero(&mm->mm_users);
}

#define mmput_async(mm)	mmput(mm)

#endif
