// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real locks behind the shim's struct mutex and rw_semaphore, so threaded
 * scenarios run under ThreadSanitizer and helgrind with true semantics.
 * The storage lives inside the kernel structs as zeroed words: glibc's static
 * initialisers for both lock types are all-zero, which sim_locking_selfcheck
 * (run at machine init) verifies.
 */
#include <pthread.h>
#include <string.h>

#include <dmasim/sim.h>

_Static_assert(sizeof(pthread_mutex_t) <= SIM_MUTEX_WORDS * sizeof(unsigned long),
	       "struct mutex storage too small");
_Static_assert(sizeof(pthread_rwlock_t) <= SIM_RWLOCK_WORDS * sizeof(unsigned long),
	       "struct rw_semaphore storage too small");

void sim_mutex_lock(unsigned long *raw)
{
	pthread_mutex_lock((pthread_mutex_t *)raw);
}

int sim_mutex_trylock(unsigned long *raw)
{
	return pthread_mutex_trylock((pthread_mutex_t *)raw) == 0;
}

void sim_mutex_unlock(unsigned long *raw)
{
	pthread_mutex_unlock((pthread_mutex_t *)raw);
}

void sim_rwlock_read(unsigned long *raw)
{
	pthread_rwlock_rdlock((pthread_rwlock_t *)raw);
}

void sim_rwlock_write(unsigned long *raw)
{
	pthread_rwlock_wrlock((pthread_rwlock_t *)raw);
}

int sim_rwlock_tryread(unsigned long *raw)
{
	return pthread_rwlock_tryrdlock((pthread_rwlock_t *)raw) == 0;
}

int sim_rwlock_trywrite(unsigned long *raw)
{
	return pthread_rwlock_trywrlock((pthread_rwlock_t *)raw) == 0;
}

void sim_rwlock_unlock(unsigned long *raw)
{
	pthread_rwlock_unlock((pthread_rwlock_t *)raw);
}

unsigned long sim_thread_id(void)
{
	static unsigned long next_id;
	static _Thread_local unsigned long id;

	if (!id)
		id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	return id;
}

/* Called once at machine init: the zero-storage assumption must hold. */
int sim_locking_selfcheck(void);
int sim_locking_selfcheck(void)
{
	static const pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
	static const unsigned char zero[sizeof(pthread_rwlock_t)];

	return memcmp(&m, zero, sizeof(m)) || memcmp(&rw, zero, sizeof(rw)) ? -1 : 0;
}
