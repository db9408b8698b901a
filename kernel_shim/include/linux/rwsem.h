/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-write semaphores (<linux/rwsem.h>), backed by a real pthread rwlock
 * in zero-initialised storage (sim/locking.c), so threaded scenarios are
 * checked by TSan and helgrind.
 *
 * (a) Definitions that must match the kernel: the down_/up_ API, including
 *     the killable variants' int result.
 * (c) Test double: the writer's thread id and the number of readers are
 *     recorded so rwsem_is_locked() and mmap_assert_locked() can check the
 *     caller; down_write_killable() fails with -EINTR only if the calling
 *     task has a fatal signal pending.
 * Simplified: no owner spinning, no lock handoff, no lockdep classes.
 */
#ifndef _DMASIM_LINUX_RWSEM_H
#define _DMASIM_LINUX_RWSEM_H

#include <dmasim/sim.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct rw_semaphore {
	unsigned long raw[SIM_RWLOCK_WORDS];
	unsigned long owner;	/* sim_thread_id() of the writer, 0 if none */
	long readers;		/* read holders now */
};

#define __RWSEM_INITIALIZER(name) { .raw = { 0 }, .owner = 0, .readers = 0 }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

static inline void init_rwsem(struct rw_semaphore *sem)
{
	*sem = (struct rw_semaphore)__RWSEM_INITIALIZER(*sem);
}

static inline void down_read(struct rw_semaphore *sem)
{
	sim_rwlock_read(sem->raw);
	__atomic_add_fetch(&sem->readers, 1, __ATOMIC_RELAXED);
}

static inline int down_read_trylock(struct rw_semaphore *sem)
{
	if (!sim_rwlock_tryread(sem->raw))
		return 0;
	__atomic_add_fetch(&sem->readers, 1, __ATOMIC_RELAXED);
	return 1;
}

static inline void up_read(struct rw_semaphore *sem)
{
	__atomic_sub_fetch(&sem->readers, 1, __ATOMIC_RELAXED);
	sim_rwlock_unlock(sem->raw);
}

static inline void down_write(struct rw_semaphore *sem)
{
	sim_rwlock_write(sem->raw);
	sem->owner = sim_thread_id();
}

static inline int down_write_trylock(struct rw_semaphore *sem)
{
	if (!sim_rwlock_trywrite(sem->raw))
		return 0;
	sem->owner = sim_thread_id();
	return 1;
}

static inline void up_write(struct rw_semaphore *sem)
{
	sem->owner = 0;
	sim_rwlock_unlock(sem->raw);
}

static inline void downgrade_write(struct rw_semaphore *sem)
{
	/* pthread rwlocks cannot downgrade: release and re-take for read. */
	up_write(sem);
	down_read(sem);
}

static inline int rwsem_is_locked(struct rw_semaphore *sem)
{
	return READ_ONCE(sem->owner) || __atomic_load_n(&sem->readers,
							 __ATOMIC_RELAXED);
}

/* Held for write by the caller, or for read by someone. */
static inline int dmasim_rwsem_held(struct rw_semaphore *sem)
{
	return READ_ONCE(sem->owner) == sim_thread_id() ||
	       __atomic_load_n(&sem->readers, __ATOMIC_RELAXED);
}

#endif
