/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Completions, as the kernel's <linux/completion.h>: one task waits until
 * another says it is done (vfio_unregister_group_dev() waits for the
 * device's last fd to close).
 *
 * (a) Definitions that must match the kernel: struct completion's done
 *     count and the contracts of init_completion(), complete() (one more
 *     waiter may go), try_wait_for_completion() (take one without
 *     waiting: true if there was one), wait_for_completion_timeout() and
 *     wait_for_completion_interruptible_timeout() (0 on timeout, else the
 *     jiffies left, at least 1; the interruptible one -ERESTARTSYS on a
 *     signal).
 *     A completion used before init_completion() is a WARN (the kernel's
 *     wait queue would be garbage).
 * Simplified: the timeout runs on the simulated machine's clock
 *     (jiffies, <linux/jiffies.h>), which only a host thread advances
 *     (sim_clock_advance()): the wait times out when that clock reaches
 *     the deadline (jiffies + timeout, at the call), and a program that
 *     never advances it waits until complete(), however long (a device
 *     unbound with an fd held is asked to let go once).  The waiter is a
 *     host thread polling both the count and the clock
 *     (sim_wait_for_word(), <dmasim/sim.h>); no wait queue, and no signal
 *     reaches a waiting task, so the interruptible wait is never
 *     interrupted.  complete_all() and the waits without a timeout are
 *     not here (nothing calls them).
 * (b) Stubs: none.  (c) Test doubles: none.
 */
#ifndef _DMASIM_LINUX_COMPLETION_H
#define _DMASIM_LINUX_COMPLETION_H

#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <dmasim/sim.h>

struct completion {
	unsigned int done;
	bool initialized;	/* dmasim: init_completion() was called */
};

static inline void init_completion(struct completion *x)
{
	__atomic_store_n(&x->done, 0, __ATOMIC_RELEASE);
	x->initialized = true;
}

/*
 * The kernel's completion holds a wait queue that init_completion()
 * sets up; a zeroed one crashes the first waiter.  Here: a WARN.
 */
static inline void __dmasim_completion_check(const struct completion *x)
{
	WARN_ON(!x->initialized);
}

static inline void complete(struct completion *x)
{
	__dmasim_completion_check(x);
	__atomic_add_fetch(&x->done, 1, __ATOMIC_RELEASE);
}

static inline bool try_wait_for_completion(struct completion *x)
{
	unsigned int done = __atomic_load_n(&x->done, __ATOMIC_ACQUIRE);

	__dmasim_completion_check(x);

	while (done) {
		if (__atomic_compare_exchange_n(&x->done, &done, done - 1,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	}
	return false;
}

static inline unsigned long
wait_for_completion_timeout(struct completion *x, unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout, left = timeout;

	while (!try_wait_for_completion(x)) {
		left = sim_wait_for_word(&x->done, deadline);
		if (!left)
			return 0;
	}
	return max(1UL, left);
}

static inline long
wait_for_completion_interruptible_timeout(struct completion *x,
					  unsigned long timeout)
{
	return wait_for_completion_timeout(x, timeout);
}

#endif
