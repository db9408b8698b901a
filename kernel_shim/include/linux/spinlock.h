/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spinlocks with the kernel's API: a real test-and-set lock (atomics), so
 * threaded scenarios are checked; irq variants behave as the plain ones
 * (there are no interrupts in the simulator).
 *
 * (a) Definitions that must match the kernel: the spin_*() API.
 * (c) Test double: every lock and unlock goes through the lock checker
 *     (<linux/lockdep.h>): an unlock by a thread that does not hold the
 *     lock is reported and leaves it as it was; a spin_lock() by its own
 *     holder is reported and returns at once instead of spinning forever.
 *     The holder is the checker's record, not a field of the lock (the
 *     kernel's CONFIG_DEBUG_SPINLOCK owner, which its unlock checks).
 * Simplified: spinlock_t has the layout of the simulator's page-table lock
 *     (struct sim_pt_lock), so it carries no lock class: spinlocks are
 *     checked for everything but lock order.
 */
#ifndef _DMASIM_LINUX_SPINLOCK_H
#define _DMASIM_LINUX_SPINLOCK_H

#include <dmasim/sim.h>
#include <linux/compiler_types.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = 0;
}

/*
 * The wait for a lock found held, out of line: the uncontended lock keeps
 * no spin count (page-table locks are taken once per 4 KiB page of a BAR
 * before Linux 6.15).
 */
static noinline __cold __maybe_unused void __dmasim_spin_wait(spinlock_t *lock)
{
	unsigned int spins = 0;

	do {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			sim_cpu_relax_yield(&spins);
	} while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE));
}

static __always_inline void
__dmasim_spin_lock(spinlock_t *lock, const char *expr, const char *file,
		   int line)
{
	if (sim_lock_acquire(lock, NULL, 0, SIM_LOCK_WRITE, expr, file, line))
		return;
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		__dmasim_spin_wait(lock);
}

static inline int __dmasim_spin_trylock(spinlock_t *lock, const char *expr,
					const char *file, int line)
{
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		return 0;
	sim_lock_acquire(lock, NULL, 0, SIM_LOCK_TRY, expr, file, line);
	return 1;
}

/*
 * An unlock the checker does not settle inline, whole: the caller keeps
 * nothing live across the call, so the inline path needs no saved
 * register for it.
 */
static noinline __cold __maybe_unused void
__dmasim_spin_unlock_slow(spinlock_t *lock, const char *expr,
			  const char *file, int line)
{
	if (!sim_lock_release_slow(lock, expr, file, line))
		__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

static __always_inline void
__dmasim_spin_unlock(spinlock_t *lock, const char *expr, const char *file,
		     int line)
{
	if (sim_unlikely(!sim_lock_release_top(lock)))
		__dmasim_spin_unlock_slow(lock, expr, file, line);
	else
		__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock(l)	__dmasim_spin_lock(l, #l, __FILE__, __LINE__)
#define spin_trylock(l)	__dmasim_spin_trylock(l, #l, __FILE__, __LINE__)
#define spin_unlock(l)	__dmasim_spin_unlock(l, #l, __FILE__, __LINE__)

static inline int spin_is_locked(spinlock_t *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED);
}

#define spin_lock_nested(l, subclass)	spin_lock(l)
#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)
#define assert_spin_locked(l)		WARN_ON(!spin_is_locked(l))

#endif
