/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sleeping mutex with the kernel's API, backed by a real pthread mutex in
 * zero-initialised storage (sim/locking.c): DEFINE_MUTEX and mutex_init
 * give an unlocked mutex; locking a zeroed struct mutex that neither set up
 * is a WARN, as CONFIG_DEBUG_MUTEXES' magic check makes it.
 *
 * (a) Definitions that must match the kernel: the mutex_*() API and its
 *     results; mutex_init() is a macro giving each call site its own static
 *     lock class key, as the kernel's.
 * (c) Test double: every lock and unlock goes through the lock checker
 *     (<linux/lockdep.h>): an unlock by a thread that does not hold the
 *     mutex is reported and leaves it as it was; a mutex_lock() by its own
 *     holder is reported and returns at once instead of deadlocking.  The
 *     owner is recorded for mutex_is_locked().
 * Simplified: no optimistic spinning, no handoff; the _interruptible and
 * _killable variants never fail.
 */
#ifndef _DMASIM_LINUX_MUTEX_H
#define _DMASIM_LINUX_MUTEX_H

#include <dmasim/sim.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct mutex {
	unsigned long raw[SIM_MUTEX_WORDS];
	unsigned long owner;	/* sim_thread_id() of the holder, 0 if free */
	const struct lock_class_key *key;	/* lockdep class; NULL: none */
	const char *name;
};

/* A statically defined mutex is its own class, as in the kernel. */
#define __MUTEX_INITIALIZER(lockname)					\
	{ .raw = { 0 }, .owner = 0,					\
	  .key = (const struct lock_class_key *)&(lockname),		\
	  .name = #lockname }
#define DEFINE_MUTEX(mutexname) \
	struct mutex mutexname = __MUTEX_INITIALIZER(mutexname)

static inline void __mutex_init(struct mutex *lock, const char *name,
				const struct lock_class_key *key)
{
	*lock = (struct mutex){ .raw = { 0 }, .key = key, .name = name };
}

#define mutex_init(mutex)						\
do {									\
	static struct lock_class_key __key;				\
									\
	__mutex_init((mutex), #mutex, &__key);				\
} while (0)

static inline void mutex_destroy(struct mutex *lock)
{
}

static inline const char *__dmasim_mutex_name(struct mutex *lock,
					      const char *expr)
{
	return lock->name ? lock->name : expr;
}

/*
 * CONFIG_DEBUG_MUTEXES' DEBUG_LOCKS_WARN_ON(lock->magic != lock): a mutex
 * locked that neither mutex_init() nor a static initialiser set up (a
 * zeroed struct: its key, which both set, is NULL).
 */
static inline void __dmasim_mutex_check_init(struct mutex *lock,
					     const char *expr,
					     const char *file, int line)
{
	if (unlikely(!lock->key))
		sim_kernel_warn(file, line,
				"DEBUG_LOCKS_WARN_ON(lock->magic != lock): mutex locked before mutex_init()");
}

static inline void __dmasim_mutex_lock(struct mutex *lock,
				       unsigned int subclass, const char *expr,
				       const char *file, int line)
{
	__dmasim_mutex_check_init(lock, expr, file, line);
	if (sim_lock_acquire(lock, lock->key, subclass, SIM_LOCK_WRITE,
			     __dmasim_mutex_name(lock, expr), file, line))
		return;
	sim_mutex_lock(lock->raw);
	lock->owner = sim_thread_id();
}

static inline int __dmasim_mutex_trylock(struct mutex *lock, const char *expr,
					 const char *file, int line)
{
	__dmasim_mutex_check_init(lock, expr, file, line);
	if (!sim_mutex_trylock(lock->raw))
		return 0;
	lock->owner = sim_thread_id();
	sim_lock_acquire(lock, lock->key, 0, SIM_LOCK_TRY,
			 __dmasim_mutex_name(lock, expr), file, line);
	return 1;
}

static inline void __dmasim_mutex_unlock(struct mutex *lock, const char *expr,
					 const char *file, int line)
{
	if (sim_lock_release(lock, __dmasim_mutex_name(lock, expr), file, line))
		return;
	lock->owner = 0;
	sim_mutex_unlock(lock->raw);
}

#define mutex_lock_nested(lock, subclass) \
	__dmasim_mutex_lock(lock, subclass, #lock, __FILE__, __LINE__)
#define mutex_lock(lock)		mutex_lock_nested(lock, 0)
#define mutex_lock_interruptible(lock)	({ mutex_lock(lock); 0; })
#define mutex_lock_killable(lock)	({ mutex_lock(lock); 0; })
#define mutex_trylock(lock) \
	__dmasim_mutex_trylock(lock, #lock, __FILE__, __LINE__)
#define mutex_unlock(lock) \
	__dmasim_mutex_unlock(lock, #lock, __FILE__, __LINE__)

static inline bool mutex_is_locked(struct mutex *lock)
{
	return READ_ONCE(lock->owner) != 0;
}

#endif
