/* SPDX-License-Identifier: GPL-2.0-only */
/* Signals: only the fatal-signal test the code under test makes. */
#ifndef _DMASIM_LINUX_SCHED_SIGNAL_H
#define _DMASIM_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>

static inline bool fatal_signal_pending(struct task_struct *p)
{
	return p->fatal_signal;
}

static inline bool signal_pending(struct task_struct *p)
{
	return p->fatal_signal;
}

#endif
