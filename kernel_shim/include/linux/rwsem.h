/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-write semaphores (<linux/rwsem.h>): a real lock in one atomic word,
 * zero when free, the number of readers while read-held, -1 while
 * write-held, so threaded scenarios are checked by ThreadSanitizer (which
 * understands the atomics) and helgrind.  A waiter spins briefly, then
 * yields the CPU (sim_cpu_relax_yield); the uncontended path is one atomic
 * operation each way, which keeps mmap_read_lock() cheap in the type1 loop
 * that takes it once per page before Linux 6.15.
 *
 * (a) Definitions that must match the kernel: the down_/up_ API, including
 *     the killable variants' int result.
 *     init_rwsem() is a macro giving each call site its own static lock
 *     class key, as the kernel's.
 * (c) Test double: every down and up goes through the lock checker
 *     (<linux/lockdep.h>), which names readers as well as the writer, so
 *     lockdep_assert_held() and mmap_assert_locked() check the caller; an
 *     up by a thread that does not hold the semaphore is reported and
 *     leaves it as it was; a down by a thread that holds it for writing is
 *     reported and returns at once instead of deadlocking.  The writer's
 *     thread id is recorded.  down_write_killable() fails with -EINTR only
 *     if the calling task has a fatal signal pending.
 * Simplified: no writer preference or handoff (a steady stream of readers
 * can delay a writer), no optimistic owner spinning.
 */
#ifndef _DMASIM_LINUX_RWSEM_H
#define _DMASIM_LINUX_RWSEM_H

#include <dmasim/sim.h>
#include <linux/errno.h>
#include <linux/compiler_types.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct rw_semaphore {
	long count;		/* 0 free, > 0 readers, -1 one writer */
	unsigned long owner;	/* sim_thread_id() of the writer, 0 if none */
	const struct lock_class_key *key;	/* lockdep class; NULL: none */
	const char *name;
};

/* A statically defined semaphore is its own class, as in the kernel. */
#define __RWSEM_INITIALIZER(lockname)					\
	{ .count = 0, .owner = 0,					\
	  .key = (const struct lock_class_key *)&(lockname),		\
	  .name = #lockname }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

static inline void __init_rwsem(struct rw_semaphore *sem, const char *name,
				const struct lock_class_key *key)
{
	*sem = (struct rw_semaphore){ .key = key, .name = name };
}

#define init_rwsem(sem)							\
do {									\
	static struct lock_class_key __key;				\
									\
	__init_rwsem((sem), #sem, &__key);				\
} while (0)

static inline const char *__dmasim_rwsem_name(struct rw_semaphore *sem,
					      const char *expr)
{
	return sem->name ? sem->name : expr;
}

static __always_inline int
__dmasim_down_read_trylock(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	while (c >= 0)
		if (__atomic_compare_exchange_n(&sem->count, &c, c + 1, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static __always_inline int
__dmasim_down_write_trylock(struct rw_semaphore *sem)
{
	long free = 0;

	if (!__atomic_compare_exchange_n(&sem->count, &free, -1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	sem->owner = sim_thread_id();
	return 1;
}

static inline int __dmasim_down_trylock(struct rw_semaphore *sem, int read,
					const char *expr, const char *file,
					int line)
{
	if (!(read ? __dmasim_down_read_trylock(sem) :
		     __dmasim_down_write_trylock(sem)))
		return 0;
	sim_lock_acquire(sem, sem->key, 0, read | SIM_LOCK_TRY,
			 __dmasim_rwsem_name(sem, expr), file, line);
	return 1;
}

/*
 * The wait for a semaphore found taken, out of line: the uncontended down
 * keeps no spin count (type1 before Linux 6.15 takes the mmap lock once
 * per 4 KiB page of a BAR).
 */
static noinline __cold __maybe_unused void
__dmasim_down_wait(struct rw_semaphore *sem, int read)
{
	unsigned int spins = 0;

	do
		sim_cpu_relax_yield(&spins);
	while (!(read ? __dmasim_down_read_trylock(sem) :
			__dmasim_down_write_trylock(sem)));
}

static __always_inline void
__dmasim_down(struct rw_semaphore *sem, int read, unsigned int subclass,
	      const char *expr, const char *file, int line)
{
	if (sim_lock_acquire(sem, sem->key, subclass, read,
			     __dmasim_rwsem_name(sem, expr), file, line))
		return;
	if (!(read ? __dmasim_down_read_trylock(sem) :
		     __dmasim_down_write_trylock(sem)))
		__dmasim_down_wait(sem, read);
}

static __always_inline void
__dmasim_up(struct rw_semaphore *sem, int read, const char *expr,
	    const char *file, int line)
{
	/* The name is looked for only when there is something to report. */
	if (!sim_lock_release_top(sem) &&
	    sim_lock_release_slow(sem, __dmasim_rwsem_name(sem, expr), file,
				  line))
		return;
	if (read) {
		__atomic_sub_fetch(&sem->count, 1, __ATOMIC_RELEASE);
	} else {
		sem->owner = 0;
		__atomic_store_n(&sem->count, 0, __ATOMIC_RELEASE);
	}
}

#define __dmasim_rwsem_site(sem)	#sem, __FILE__, __LINE__
#define down_read(sem)		__dmasim_down(sem, SIM_LOCK_READ, 0, __dmasim_rwsem_site(sem))
#define down_read_nested(sem, sub) \
	__dmasim_down(sem, SIM_LOCK_READ, sub, __dmasim_rwsem_site(sem))
#define down_read_trylock(sem) \
	__dmasim_down_trylock(sem, SIM_LOCK_READ, __dmasim_rwsem_site(sem))
#define up_read(sem)		__dmasim_up(sem, SIM_LOCK_READ, __dmasim_rwsem_site(sem))
#define down_write(sem)		__dmasim_down(sem, SIM_LOCK_WRITE, 0, __dmasim_rwsem_site(sem))
#define down_write_nested(sem, sub) \
	__dmasim_down(sem, SIM_LOCK_WRITE, sub, __dmasim_rwsem_site(sem))
#define down_write_trylock(sem) \
	__dmasim_down_trylock(sem, SIM_LOCK_WRITE, __dmasim_rwsem_site(sem))
#define up_write(sem)		__dmasim_up(sem, SIM_LOCK_WRITE, __dmasim_rwsem_site(sem))

/* Write-held to read-held with no window in between, as the kernel's. */
static inline void downgrade_write(struct rw_semaphore *sem)
{
	sim_lock_downgrade(sem);
	sem->owner = 0;
	__atomic_store_n(&sem->count, 1, __ATOMIC_RELEASE);
}

static inline int rwsem_is_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) != 0;
}

#endif
