/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lockdep.  Stubs, except lockdep_assert_held(), which WARNs when the lock's
 * recorded owner is not the calling thread (for the shim's own lock types,
 * which all carry an `owner` word).
 */
#ifndef _DMASIM_LINUX_LOCKDEP_H
#define _DMASIM_LINUX_LOCKDEP_H

#include <dmasim/sim.h>
#include <linux/bug.h>

struct lock_class_key {
	int unused;
};

#define lockdep_assert_held(l)	WARN_ON((l)->owner != sim_thread_id())
#define lockdep_assert_held_write(l) lockdep_assert_held(l)
#define lockdep_assert_held_read(l) WARN_ON(!(l)->owner)
#define lockdep_assert_not_held(l) WARN_ON((l)->owner == sim_thread_id())
#define lockdep_assert(c)	WARN_ON(!(c))
#define lockdep_set_class(l, k)	do { } while (0)
#define lock_is_held(l)		1

#endif
