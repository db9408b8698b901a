/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel threads (<linux/kthread.h>): only borrowing an mm.
 * (a) kthread_use_mm() makes mm the calling task's mm (taking a mm_count
 *     reference, as the kernel's active_mm does), kthread_unuse_mm() undoes
 *     it (kernel_shim/task.c).
 * Simplified: no kthread creation; "the kthread" is whatever task the
 * calling thread runs as.
 */
#ifndef _DMASIM_LINUX_KTHREAD_H
#define _DMASIM_LINUX_KTHREAD_H

#include <linux/sched.h>

struct mm_struct;

void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);

/* No kthread is ever asked to stop (none is created). */
static inline bool kthread_should_stop(void)
{
	return false;
}

#endif
