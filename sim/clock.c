// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine's clock, in jiffies: it stands still until a host thread
 * (a test) advances it, so a kernel timeout of ten seconds passes in no
 * host time, and only when the test says so.
 *
 * A task waiting on it (sim_wait_for_word(): a completion's timed wait)
 * is on a list while it waits and publishes the last time it looked at;
 * sim_clock_advance() returns only once every task on the list has seen
 * the new time (and so has timed out, or decided not to).  A test that
 * advances to just before a deadline then knows the waiter is still
 * waiting, without sleeping on the host's clock to find out.
 */
#include <pthread.h>
#include <time.h>

#include "sim_internal.h"

unsigned long sim_clock_now = SIM_INITIAL_JIFFIES;

/* A task in sim_wait_for_word(): the time it last saw, or gone. */
struct clock_waiter {
	struct clock_waiter *next;
	unsigned long seen;
	int gone;
};

static pthread_mutex_t waiters_lock = PTHREAD_MUTEX_INITIALIZER;
static struct clock_waiter *waiters;
/* Waits begun, and those that ended at their deadline, since the boot. */
static unsigned long nr_waits, nr_timeouts;

void sim_clock_reset(void)
{
	__atomic_store_n(&sim_clock_now, SIM_INITIAL_JIFFIES, __ATOMIC_RELEASE);
	__atomic_store_n(&nr_waits, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&nr_timeouts, 0, __ATOMIC_RELEASE);
}

unsigned long sim_clock_waits(void)
{
	return __atomic_load_n(&nr_waits, __ATOMIC_ACQUIRE);
}

unsigned long sim_clock_timeouts(void)
{
	return __atomic_load_n(&nr_timeouts, __ATOMIC_ACQUIRE);
}

static void host_sleep_briefly(unsigned int *spins)
{
	const struct timespec one_ms = { .tv_nsec = 1000000 };

	if (*spins < 128)
		sim_cpu_relax_yield(spins);
	else
		nanosleep(&one_ms, NULL);
}

/*
 * The waiters are held on the list (advance holds its lock) until each has
 * seen the new time or left: a waiter marks itself gone before it takes
 * the lock to leave the list.
 */
void sim_clock_advance(unsigned long ticks)
{
	unsigned long now;
	struct clock_waiter *w;

	pthread_mutex_lock(&waiters_lock);
	now = __atomic_add_fetch(&sim_clock_now, ticks, __ATOMIC_ACQ_REL);
	for (w = waiters; w; w = w->next) {
		unsigned int spins = 0;

		while (!__atomic_load_n(&w->gone, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&w->seen, __ATOMIC_ACQUIRE) != now)
			host_sleep_briefly(&spins);
	}
	pthread_mutex_unlock(&waiters_lock);
}

unsigned long sim_wait_for_word(const unsigned int *word,
				unsigned long deadline)
{
	struct clock_waiter self = { .seen = sim_clock_jiffies() - 1 };
	struct clock_waiter **link;
	unsigned int spins = 0;
	unsigned long now, left;

	pthread_mutex_lock(&waiters_lock);
	self.next = waiters;
	waiters = &self;
	__atomic_add_fetch(&nr_waits, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&waiters_lock);

	for (;;) {
		now = sim_clock_jiffies();
		left = deadline - now;
		if (__atomic_load_n(word, __ATOMIC_ACQUIRE)) {
			/* Seen in time: at least 1 left, as the kernel's. */
			if ((long)left <= 0)
				left = 1;
			break;
		}
		if ((long)left <= 0) {
			left = 0;
			__atomic_add_fetch(&nr_timeouts, 1, __ATOMIC_RELEASE);
			break;
		}
		__atomic_store_n(&self.seen, now, __ATOMIC_RELEASE);
		host_sleep_briefly(&spins);
	}

	__atomic_store_n(&self.gone, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&waiters_lock);
	for (link = &waiters; *link != &self; link = &(*link)->next)
		;
	*link = self.next;
	pthread_mutex_unlock(&waiters_lock);
	return left;
}
