/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: one kernel completion (<linux/completion.h>) a test drives from
 * plain C (kapi/kapi_completion.c), so its timed waits are checked against
 * the machine's clock (sim_clock_advance(), <dmasim/sim.h>) directly.
 */
#ifndef DMASIM_KAPI_COMPLETION_H
#define DMASIM_KAPI_COMPLETION_H

/* init_completion(): nothing completed. */
void kapi_completion_init(void);
/* complete(): one waiter may go. */
void kapi_completion_complete(void);
/*
 * wait_for_completion_timeout(), or with interruptible
 * wait_for_completion_interruptible_timeout(): 0 on timeout, else the
 * jiffies left (at least 1).
 */
long kapi_completion_wait(unsigned long timeout, int interruptible);

#endif
