/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tasks.  Test double: `current` is the simulated task the calling thread
 * runs as (kapi_task_*), with a pending-fatal-signal flag a test can raise.
 * cond_resched() is counted, is a choice point (it reschedules or not) and
 * reports its caller to the reschedule oracle (sim_yield()): a macro, so
 * the site is the kernel function that called it; schedule() (a sleep
 * nobody can end here) is a kernel BUG.  The VFIO work extends
 * struct task_struct (mm, group_leader, rlimits, credentials).
 */
#ifndef _DMASIM_LINUX_SCHED_H
#define _DMASIM_LINUX_SCHED_H

#include <dmasim/sim.h>
#include <linux/types.h>
#include <linux/wait.h>

struct mm_struct;

struct task_struct {
	pid_t pid;
	pid_t tgid;
	char comm[16];
	bool fatal_signal;		/* a SIGKILL is pending */
	struct mm_struct *mm;
	struct task_struct *group_leader;
	struct signal_struct *signal;	/* rlimits; NULL: none (boot task) */
	atomic_t usage;			/* get/put_task_struct */
	unsigned long long dmasim_cap_effective; /* capable(): bit per CAP_* */
	void *dmasim_ext;		/* the shim's extended task state */
};

struct task_struct *get_current(void);
#define current get_current()

/*
 * A choice point (SIM_CH_COND_RESCHED): it may schedule away or not.  The
 * yield meter and the choice points are asked in one test first.
 */
static inline int dmasim_cond_resched(const char *site)
{
	sim_count(SIM_CNT_COND_RESCHED, 1);
	if (sim_likely(!sim_armed.at.resched))
		return 0;
	sim_yield(SIM_YIELD_RESCHED, site);
	return sim_choose(SIM_CH_COND_RESCHED, 2);
}
#define cond_resched() dmasim_cond_resched(__func__)

#define TASK_COMM_LEN 16

/* Task states a sleeper asks for (prepare_to_wait(), <linux/wait.h>). */
#define TASK_RUNNING		0x00000000
#define TASK_INTERRUPTIBLE	0x00000001
#define TASK_UNINTERRUPTIBLE	0x00000002
#define TASK_WAKEKILL		0x00000100
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)

/*
 * Sleep until woken.  Nothing runs beside the simulated task to wake it,
 * so the shim's schedule() (kernel_shim/task.c) is a kernel BUG: code
 * that reaches it would hang on a machine where nobody wakes it.
 */
void schedule(void);

#endif
