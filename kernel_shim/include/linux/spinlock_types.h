/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _DMASIM_LINUX_SPINLOCK_TYPES_H
#define _DMASIM_LINUX_SPINLOCK_TYPES_H

typedef struct spinlock {
	int locked;
	unsigned long owner;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name) { .locked = 0, .owner = 0 }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#endif
