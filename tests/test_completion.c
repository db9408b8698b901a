// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shim's completions against the machine's clock (<linux/completion.h>,
 * sim/clock.c): a timed wait returns 0 exactly when the clock reaches its
 * deadline (the call's jiffies + timeout, wrap-safe), and the jiffies left
 * (at least 1) when completed earlier; the clock starts at the kernel's
 * INITIAL_JIFFIES at each boot and moves only when advanced.  The waiter is
 * a second thread; sim_clock_advance() returns once it has seen the new
 * time, so nothing here sleeps to find out whether it timed out.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include <dmasim/kapi_completion.h>
#include <dmasim/sim.h>

static int setup(void **state)
{
	struct sim_config cfg = { .ram_bytes = 256ULL << 20 };

	assert_int_equal(sim_machine_init(&cfg), 0);
	kapi_completion_init();
	return 0;
}

static int teardown(void **state)
{
	sim_machine_destroy();
	return 0;
}

struct waiter {
	unsigned long timeout;
	int interruptible;
	long left;
	int done;
	pthread_t thread;
};

static void *wait_on_the_completion(void *arg)
{
	struct waiter *w = arg;

	w->left = kapi_completion_wait(w->timeout, w->interruptible);
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* A thread waits timeout jiffies, and has begun (within 30 s). */
static void a_waiter(struct waiter *w, unsigned long timeout,
		     int interruptible)
{
	const struct timespec one_ms = { .tv_nsec = 1000000 };
	unsigned long waits = sim_clock_waits();

	*w = (struct waiter){ .timeout = timeout,
			      .interruptible = interruptible };
	assert_int_equal(pthread_create(&w->thread, NULL,
					wait_on_the_completion, w), 0);
	for (int ms = 0; ms < 30000 && sim_clock_waits() == waits; ms++)
		nanosleep(&one_ms, NULL);
	assert_int_equal(sim_clock_waits(), waits + 1);
}

static long the_waiter_returns(struct waiter *w)
{
	assert_int_equal(pthread_join(w->thread, NULL), 0);
	assert_true(w->done);
	return w->left;
}

/* Each boot starts the clock at INITIAL_JIFFIES, and only advancing moves it. */
static void test_the_clock_starts_at_boot_and_moves_when_advanced(void **state)
{
	struct sim_config cfg = { .ram_bytes = 256ULL << 20 };

	assert_int_equal(SIM_INITIAL_JIFFIES, 4294967296UL - 300 * SIM_HZ);
	assert_int_equal(sim_clock_jiffies(), SIM_INITIAL_JIFFIES);
	sim_clock_advance(0);
	assert_int_equal(sim_clock_jiffies(), SIM_INITIAL_JIFFIES);
	sim_clock_advance(7);
	assert_int_equal(sim_clock_jiffies(), SIM_INITIAL_JIFFIES + 7);
	assert_int_equal(sim_clock_waits(), 0);
	assert_int_equal(sim_clock_timeouts(), 0);
	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_int_equal(sim_clock_jiffies(), SIM_INITIAL_JIFFIES);
}

/*
 * Completed before the wait: the whole timeout left (no time passed), 1
 * for a timeout of 0; not completed, a timeout of 0 is over at once.
 */
static void test_a_completed_wait_returns_the_whole_timeout(void **state)
{
	for (int intr = 0; intr <= 1; intr++) {
		kapi_completion_complete();
		assert_int_equal(kapi_completion_wait(10, intr), 10);
		kapi_completion_complete();
		assert_int_equal(kapi_completion_wait(0, intr), 1);
		assert_int_equal(kapi_completion_wait(0, intr), 0);
	}
	assert_int_equal(sim_clock_timeouts(), 2);
}

/*
 * A jiffy before the deadline the waiter still waits; at the deadline it
 * returns 0, as past it, and a complete() after that is left for the
 * next waiter.
 */
static void test_a_wait_times_out_exactly_at_its_deadline(void **state)
{
	struct waiter w;

	for (int intr = 0; intr <= 1; intr++) {
		a_waiter(&w, 10, intr);
		sim_clock_advance(9);
		assert_int_equal(sim_clock_timeouts(), intr);
		assert_false(__atomic_load_n(&w.done, __ATOMIC_SEQ_CST));
		sim_clock_advance(1);
		assert_int_equal(sim_clock_timeouts(), intr + 1);
		assert_int_equal(the_waiter_returns(&w), 0);
	}
	/* The clock advanced past the deadline in one step. */
	a_waiter(&w, 10, 0);
	sim_clock_advance(25);
	assert_int_equal(sim_clock_timeouts(), 3);
	assert_int_equal(the_waiter_returns(&w), 0);
	kapi_completion_complete();
	assert_int_equal(kapi_completion_wait(5, 0), 5);
}

/* Completed after 3 of 10 jiffies: 7 left; after 9: 1. */
static void test_a_wait_completed_in_time_returns_the_jiffies_left(void **state)
{
	static const unsigned long passed[] = { 0, 3, 9 };
	struct waiter w;

	for (int intr = 0; intr <= 1; intr++) {
		for (unsigned int i = 0; i < 3; i++) {
			a_waiter(&w, 10, intr);
			sim_clock_advance(passed[i]);
			kapi_completion_complete();
			assert_int_equal(the_waiter_returns(&w), 10 - passed[i]);
		}
	}
	assert_int_equal(sim_clock_timeouts(), 0);
}

/*
 * A deadline past the clock's wrap (ULONG_MAX to 0) is still 10 ahead,
 * and one LONG_MAX ahead is still ahead a jiffy short of it.
 */
static void test_a_deadline_across_the_wrap_is_kept(void **state)
{
	struct waiter w;

	sim_clock_advance(ULONG_MAX - sim_clock_jiffies() - 4);
	a_waiter(&w, 10, 0);
	sim_clock_advance(9);
	assert_int_equal(sim_clock_jiffies(), 4);
	assert_int_equal(sim_clock_timeouts(), 0);
	sim_clock_advance(1);
	assert_int_equal(sim_clock_timeouts(), 1);
	assert_int_equal(the_waiter_returns(&w), 0);

	/* MAX_SCHEDULE_TIMEOUT (LONG_MAX) is not reached a jiffy short. */
	a_waiter(&w, LONG_MAX, 1);
	sim_clock_advance(LONG_MAX - 1);
	assert_int_equal(sim_clock_timeouts(), 1);
	kapi_completion_complete();
	assert_int_equal(the_waiter_returns(&w), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_the_clock_starts_at_boot_and_moves_when_advanced),
		T(test_a_completed_wait_returns_the_whole_timeout),
		T(test_a_wait_times_out_exactly_at_its_deadline),
		T(test_a_wait_completed_in_time_returns_the_jiffies_left),
		T(test_a_deadline_across_the_wrap_is_kept),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
