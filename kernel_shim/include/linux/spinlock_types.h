/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _DMASIM_LINUX_SPINLOCK_TYPES_H
#define _DMASIM_LINUX_SPINLOCK_TYPES_H

/*
 * The lock word alone: who holds it is the lock checker's record (the
 * holder's stack of held locks, <linux/lockdep.h>), which is what reports
 * an unlock by another thread.
 */
typedef struct spinlock {
	int locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name) { .locked = 0 }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#endif
