/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Signals and per-process limits (<linux/sched/signal.h>): the fatal-signal
 * test the code under test makes (a choice point: a SIGKILL can arrive at
 * any check), and the rlimits of struct signal_struct
 * (task_rlimit(), rlimit()).  A task with no signal_struct (the boot task)
 * has no limits: every rlimit reads RLIM_INFINITY.
 */
#ifndef _DMASIM_LINUX_SCHED_SIGNAL_H
#define _DMASIM_LINUX_SCHED_SIGNAL_H

#include <linux/capability.h>	/* the kernel's comes through <linux/cred.h> */
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

struct signal_struct {
	struct rlimit rlim[RLIM_NLIMITS];
};

/*
 * A choice point (SIM_CH_FATAL_SIGNAL): a SIGKILL may arrive at any check,
 * and then stays pending, as a real one does until the task exits.  A
 * macro, so the reschedule oracle (sim_yield()) learns the calling function.
 */
static inline bool dmasim_fatal_signal_pending(struct task_struct *p,
					       const char *site)
{
	sim_yield(SIM_YIELD_SIGNAL, site);
	if (!p->fatal_signal && sim_choose(SIM_CH_FATAL_SIGNAL, 2))
		p->fatal_signal = true;
	return p->fatal_signal;
}
#define fatal_signal_pending(p) dmasim_fatal_signal_pending((p), __func__)

static inline bool signal_pending(struct task_struct *p)
{
	return p->fatal_signal;
}

static inline unsigned long task_rlimit(const struct task_struct *task,
					unsigned int limit)
{
	return task->signal ? READ_ONCE(task->signal->rlim[limit].rlim_cur) :
			      RLIM_INFINITY;
}

static inline unsigned long task_rlimit_max(const struct task_struct *task,
					    unsigned int limit)
{
	return task->signal ? READ_ONCE(task->signal->rlim[limit].rlim_max) :
			      RLIM_INFINITY;
}

static inline unsigned long rlimit(unsigned int limit)
{
	return task_rlimit(current, limit);
}

static inline unsigned long rlimit_max(unsigned int limit)
{
	return task_rlimit_max(current, limit);
}

#endif
