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
 * (c) Test double: the writer's thread id is recorded, and the count says
 *     whether readers hold it, so rwsem_is_locked() and mmap_assert_locked()
 *     can check the caller; down_write_killable() fails with -EINTR only if
 *     the calling task has a fatal signal pending.
 * Simplified: no writer preference or handoff (a steady stream of readers
 * can delay a writer), no optimistic owner spinning, no lockdep classes.
 */
#ifndef _DMASIM_LINUX_RWSEM_H
#define _DMASIM_LINUX_RWSEM_H

#include <dmasim/sim.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct rw_semaphore {
	long count;		/* 0 free, > 0 readers, -1 one writer */
	unsigned long owner;	/* sim_thread_id() of the writer, 0 if none */
};

#define __RWSEM_INITIALIZER(name) { .count = 0, .owner = 0 }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

static inline void init_rwsem(struct rw_semaphore *sem)
{
	*sem = (struct rw_semaphore)__RWSEM_INITIALIZER(*sem);
}

static inline int down_read_trylock(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	while (c >= 0)
		if (__atomic_compare_exchange_n(&sem->count, &c, c + 1, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static inline void down_read(struct rw_semaphore *sem)
{
	unsigned int spins = 0;

	while (!down_read_trylock(sem))
		sim_cpu_relax_yield(&spins);
}

static inline void up_read(struct rw_semaphore *sem)
{
	__atomic_sub_fetch(&sem->count, 1, __ATOMIC_RELEASE);
}

static inline int down_write_trylock(struct rw_semaphore *sem)
{
	long free = 0;

	if (!__atomic_compare_exchange_n(&sem->count, &free, -1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	sem->owner = sim_thread_id();
	return 1;
}

static inline void down_write(struct rw_semaphore *sem)
{
	unsigned int spins = 0;

	while (!down_write_trylock(sem))
		sim_cpu_relax_yield(&spins);
}

static inline void up_write(struct rw_semaphore *sem)
{
	sem->owner = 0;
	__atomic_store_n(&sem->count, 0, __ATOMIC_RELEASE);
}

/* Write-held to read-held with no window in between, as the kernel's. */
static inline void downgrade_write(struct rw_semaphore *sem)
{
	sem->owner = 0;
	__atomic_store_n(&sem->count, 1, __ATOMIC_RELEASE);
}

static inline int rwsem_is_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) != 0;
}

/* Write-held by the caller, or read-held by someone (readers are anonymous). */
static inline int dmasim_rwsem_held(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	return c > 0 || (c < 0 && READ_ONCE(sem->owner) == sim_thread_id());
}

#endif
