/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Task references (<linux/sched/task.h>).
 * (a) Definitions that must match the kernel: get_task_struct() returns its
 *     argument with a reference taken; put_task_struct() drops one and the
 *     last put frees the task (kernel_shim/task.c).
 * The boot task is static: references on it are counted and never free it.
 */
#ifndef _DMASIM_LINUX_SCHED_TASK_H
#define _DMASIM_LINUX_SCHED_TASK_H

#include <linux/atomic.h>
#include <linux/sched.h>

void __put_task_struct(struct task_struct *t);

static inline struct task_struct *get_task_struct(struct task_struct *t)
{
	atomic_inc(&t->usage);
	return t;
}

static inline void put_task_struct(struct task_struct *t)
{
	if (atomic_dec_and_test(&t->usage))
		__put_task_struct(t);
}

static inline pid_t task_pid_nr(struct task_struct *t)
{
	return t->pid;
}

static inline pid_t task_tgid_nr(struct task_struct *t)
{
	return t->tgid;
}

#endif
