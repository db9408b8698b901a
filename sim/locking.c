// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real locks behind the shim's struct mutex, so threaded scenarios run
 * under ThreadSanitizer and helgrind with true semantics.  The storage
 * lives inside the kernel struct as zeroed words: glibc's static
 * initialiser is all-zero, which sim_locking_selfcheck (run at machine
 * init) verifies.  rw_semaphore and spinlock_t are atomics in their
 * headers; they wait through sim_cpu_relax_yield().
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <dmasim/sim.h>

_Static_assert(sizeof(pthread_mutex_t) <= SIM_MUTEX_WORDS * sizeof(unsigned long),
	       "struct mutex storage too small");

static _Thread_local int mutexes_held;

void sim_mutex_lock(unsigned long *raw)
{
	pthread_mutex_lock((pthread_mutex_t *)raw);
	mutexes_held++;
}

int sim_mutex_trylock(unsigned long *raw)
{
	int taken = pthread_mutex_trylock((pthread_mutex_t *)raw) == 0;

	mutexes_held += taken;
	return taken;
}

void sim_mutex_unlock(unsigned long *raw)
{
	mutexes_held--;
	pthread_mutex_unlock((pthread_mutex_t *)raw);
}

int sim_mutexes_held(void)
{
	return mutexes_held;
}

void sim_cpu_relax_yield(unsigned int *spins)
{
	if (++*spins < 64)
		__asm__ __volatile__("" ::: "memory");
	else
		sched_yield();
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
	static const unsigned char zero[sizeof(pthread_mutex_t)];

	return memcmp(&m, zero, sizeof(m)) ? -1 : 0;
}
