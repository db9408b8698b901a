/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lockdep, backed by the simulator's lock checker (sim/locking.c; its
 * reports are listed in <dmasim/sim.h>).
 *
 * (a) Definitions that must match the kernel: struct lock_class_key (one
 *     static key per lock init site names a lock class) and the
 *     lockdep_assert_*() API.
 * (c) Test doubles: lockdep_assert_held(), _held_read(), _held_write() and
 *     _not_held() check the calling thread's stack of held locks and report
 *     (a kernel warning) when the answer is wrong; lockdep_is_held() answers
 *     from that stack.  The shim's mutex, rw_semaphore and spinlock_t record
 *     every acquire and release there, so an unlock by a non-holder, a
 *     recursive acquire, an order inversion between classes, and a lock
 *     held on return to user space are reported too.
 * Simplified: no irq-safety states, no lockdep_map of its own: a lock's
 *     address is its map, and lockdep_set_class() is not supported.
 */
#ifndef _DMASIM_LINUX_LOCKDEP_H
#define _DMASIM_LINUX_LOCKDEP_H

#include <dmasim/sim.h>
#include <linux/bug.h>

/* Eight bytes, so a key plus a subclass (< 8) names no other key. */
struct lock_class_key {
	char unused[8];
};

#define SINGLE_DEPTH_NESTING	1

#define __lockdep_assert(l, how, want, what) \
	sim_lockdep_assert(l, how, want, what, __FILE__, __LINE__)
#define lockdep_assert_held(l) \
	__lockdep_assert(l, -1, 1, "lockdep_assert_held(" #l ")")
#define lockdep_assert_held_write(l) \
	__lockdep_assert(l, SIM_LOCK_WRITE, 1, "lockdep_assert_held_write(" #l ")")
#define lockdep_assert_held_read(l) \
	__lockdep_assert(l, SIM_LOCK_READ, 1, "lockdep_assert_held_read(" #l ")")
#define lockdep_assert_not_held(l) \
	__lockdep_assert(l, -1, 0, "lockdep_assert_not_held(" #l ")")
#define lockdep_is_held(l)	sim_lock_held(l, -1)
#define lockdep_assert(c)	WARN_ON(!(c))

#endif
