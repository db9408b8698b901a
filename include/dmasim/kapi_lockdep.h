/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: a kernel translation unit that breaks the locking rules on
 * purpose (kapi/kapi_lockdep.c), so the lock checker's reports (see
 * <dmasim/sim.h>) are proven to fire through the shim's real mutex,
 * rw_semaphore, spinlock and lockdep_assert_*() code.  Each call misbehaves
 * once and leaves every lock free again.
 */
#ifndef DMASIM_KAPI_LOCKDEP_H
#define DMASIM_KAPI_LOCKDEP_H

enum kapi_lockdep_misdeed {
	KAPI_LOCKDEP_UNLOCK_FREE_MUTEX,		/* mutex_unlock() of a free mutex */
	KAPI_LOCKDEP_UP_READ_UNHELD,		/* up_read() by a non-reader */
	KAPI_LOCKDEP_SPIN_UNLOCK_FREE,		/* spin_unlock() of a free lock */
	KAPI_LOCKDEP_ASSERT_HELD_UNHELD,	/* lockdep_assert_held() fails */
	KAPI_LOCKDEP_ASSERT_WRITE_READ_HELD,	/* _held_write() of a reader, twice */
	KAPI_LOCKDEP_MMAP_ASSERT_UNLOCKED,	/* mmap_assert_locked() fails */
	KAPI_LOCKDEP_MUTEX_TWICE,		/* mutex_lock() by its holder */
	KAPI_LOCKDEP_SAME_CLASS_NESTED,		/* two of a class, no subclass */
	KAPI_LOCKDEP_ORDER_AB,			/* A then B (no report) */
	KAPI_LOCKDEP_ORDER_BA,			/* B then A, after ORDER_AB */
	KAPI_LOCKDEP_ORDER_BC_CA,		/* B then C, C then A: a cycle */
	KAPI_LOCKDEP_ORDER_AB_FORGOTTEN,	/* A held: B, order forgotten, B */
	KAPI_LOCKDEP_ORDER_B_UNDER_C,		/* B then C, A then B, C then B */
	KAPI_LOCKDEP_CLASS_AGAIN_BELOW_CHANGED,	/* same class at a reshuffled depth */
	KAPI_LOCKDEP_RETURN_HELD,		/* return with a mutex held */
	KAPI_LOCKDEP_RIGHTLY,			/* every rule kept: no report */
	KAPI_LOCKDEP_NR_MISDEEDS
};

/* Commits the misdeed (a kapi door: checked on return); 0 or -EINVAL. */
int kapi_lockdep_misbehave(enum kapi_lockdep_misdeed what);
/*
 * Releases the mutex KAPI_LOCKDEP_RETURN_HELD kept: from another thread
 * than the one that took it, an unlock by a non-holder (reported, and the
 * mutex stays held).
 */
void kapi_lockdep_release_kept(void);

#endif
