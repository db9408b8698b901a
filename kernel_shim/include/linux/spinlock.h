/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spinlocks with the kernel's API: a real test-and-set lock (atomics), so
 * threaded scenarios are checked; irq variants behave as the plain ones
 * (there are no interrupts in the simulator).  Owner recorded for lockdep.
 */
#ifndef _DMASIM_LINUX_SPINLOCK_H
#define _DMASIM_LINUX_SPINLOCK_H

#include <dmasim/sim.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = 0;
	lock->owner = 0;
}

static inline void spin_lock(spinlock_t *lock)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			sim_cpu_relax_yield(&spins);
	lock->owner = sim_thread_id();
}

static inline int spin_trylock(spinlock_t *lock)
{
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		return 0;
	lock->owner = sim_thread_id();
	return 1;
}

static inline void spin_unlock(spinlock_t *lock)
{
	lock->owner = 0;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

static inline int spin_is_locked(spinlock_t *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED);
}

#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)
#define assert_spin_locked(l)		WARN_ON(!spin_is_locked(l))

#endif
