/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sleeping mutex with the kernel's API, backed by a real pthread mutex in
 * zero-initialised storage (sim/locking.c): DEFINE_MUTEX, mutex_init and a
 * kzalloc'd struct all give an unlocked mutex.  The owner is recorded so
 * lockdep_assert_held() can check the caller holds it.
 */
#ifndef _DMASIM_LINUX_MUTEX_H
#define _DMASIM_LINUX_MUTEX_H

#include <dmasim/sim.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct mutex {
	unsigned long raw[SIM_MUTEX_WORDS];
	unsigned long owner;	/* sim_thread_id() of the holder, 0 if free */
};

#define __MUTEX_INITIALIZER(name) { .raw = { 0 }, .owner = 0 }
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)

static inline void mutex_init(struct mutex *lock)
{
	*lock = (struct mutex)__MUTEX_INITIALIZER(*lock);
}

static inline void mutex_destroy(struct mutex *lock)
{
}

static inline void mutex_lock(struct mutex *lock)
{
	sim_mutex_lock(lock->raw);
	lock->owner = sim_thread_id();
}

static inline int mutex_lock_interruptible(struct mutex *lock)
{
	mutex_lock(lock);
	return 0;
}

static inline int mutex_lock_killable(struct mutex *lock)
{
	mutex_lock(lock);
	return 0;
}

static inline int mutex_trylock(struct mutex *lock)
{
	if (!sim_mutex_trylock(lock->raw))
		return 0;
	lock->owner = sim_thread_id();
	return 1;
}

static inline void mutex_unlock(struct mutex *lock)
{
	lock->owner = 0;
	sim_mutex_unlock(lock->raw);
}

static inline bool mutex_is_locked(struct mutex *lock)
{
	return READ_ONCE(lock->owner) != 0;
}

#define mutex_lock_nested(lock, subclass) mutex_lock(lock)

#endif
