// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lock checker (sim/locking.c, <dmasim/sim.h>): each of lockdep's
 * checks fires, through the shim's own mutex, rw_semaphore, spinlock and
 * lockdep_assert_*() code, when kernel code (kapi/kapi_lockdep.c) breaks
 * the rule on purpose, and stays silent when it keeps it.  A report is a
 * kernel warning, so every suite that checks for warnings fails on it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_lockdep.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

static int setup_process(void **state)
{
	struct sim_config cfg = { .ram_bytes = 256ULL << 20 };

	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_non_null(kapi_proc_create());
	return 0;
}

static int teardown_process(void **state)
{
	assert_int_equal(sim_locks_held(), 0);
	kapi_proc_destroy(kapi_proc_current());
	sim_machine_destroy();
	return 0;
}

struct misdeed_case {
	const char *what;
	enum kapi_lockdep_misdeed misdeed;
	enum sim_lockdep_report report;
	unsigned int reports;
};

/* One misdeed, the report it must raise, and as many kernel warnings. */
static void assert_misdeed_reported(const struct misdeed_case *t)
{
	unsigned long long before = sim_lockdep_reports(t->report);
	unsigned long long total = sim_lockdep_reports_total();
	unsigned long long warnings = sim_kernel_warnings();

	assert_int_equal(kapi_lockdep_misbehave(t->misdeed), 0);
	if (sim_lockdep_reports(t->report) - before != t->reports)
		fail_msg("%s: %llu reports of kind %d, want %u", t->what,
			 sim_lockdep_reports(t->report) - before, t->report,
			 t->reports);
	assert_int_equal(sim_lockdep_reports_total() - total, t->reports);
	assert_int_equal(sim_kernel_warnings() - warnings, t->reports);
	assert_int_equal(sim_locks_held(), 0);
}

/*
 * Each rule broken once is reported once, by kind, as a kernel warning;
 * and again when broken again (the second round's rightful acquires are
 * the checker's remembered ones, which must still see the locks taken).
 */
static void test_each_broken_rule_is_reported(void **state)
{
	static const struct misdeed_case cases[] = {
		{ "unlock of a free mutex", KAPI_LOCKDEP_UNLOCK_FREE_MUTEX,
		  SIM_LOCKDEP_BAD_UNLOCK, 1 },
		{ "up_read by a non-reader", KAPI_LOCKDEP_UP_READ_UNHELD,
		  SIM_LOCKDEP_BAD_UNLOCK, 1 },
		{ "unlock of a free spinlock", KAPI_LOCKDEP_SPIN_UNLOCK_FREE,
		  SIM_LOCKDEP_BAD_UNLOCK, 1 },
		{ "lockdep_assert_held, not held",
		  KAPI_LOCKDEP_ASSERT_HELD_UNHELD, SIM_LOCKDEP_NOT_HELD, 1 },
		{ "lockdep_assert_held_write of a reader, on top and under",
		  KAPI_LOCKDEP_ASSERT_WRITE_READ_HELD, SIM_LOCKDEP_NOT_HELD, 2 },
		{ "mmap_assert_locked, not locked",
		  KAPI_LOCKDEP_MMAP_ASSERT_UNLOCKED, SIM_LOCKDEP_NOT_HELD, 1 },
		{ "mutex_lock by its holder", KAPI_LOCKDEP_MUTEX_TWICE,
		  SIM_LOCKDEP_RECURSION, 1 },
		{ "two of a class, one not annotated",
		  KAPI_LOCKDEP_SAME_CLASS_NESTED, SIM_LOCKDEP_RECURSION, 1 },
		{ "every rule kept", KAPI_LOCKDEP_RIGHTLY,
		  SIM_LOCKDEP_NR_REPORTS - 1, 0 },
	};

	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			assert_misdeed_reported(&cases[i]);
}

/*
 * Lock order: A then B is learnt; B then A is reported once (then known);
 * B then C then C then A closes a cycle through three classes.
 */
static void test_lock_order_inversions_are_reported_once(void **state)
{
	static const struct misdeed_case cases[] = {
		{ "A then B", KAPI_LOCKDEP_ORDER_AB, SIM_LOCKDEP_ORDER, 0 },
		{ "A then B again", KAPI_LOCKDEP_ORDER_AB, SIM_LOCKDEP_ORDER, 0 },
		{ "B then A", KAPI_LOCKDEP_ORDER_BA, SIM_LOCKDEP_ORDER, 1 },
		{ "B then A again", KAPI_LOCKDEP_ORDER_BA, SIM_LOCKDEP_ORDER, 0 },
	};
	static const struct misdeed_case cycle[] = {
		{ "A then B", KAPI_LOCKDEP_ORDER_AB, SIM_LOCKDEP_ORDER, 0 },
		{ "B then C, C then A", KAPI_LOCKDEP_ORDER_BC_CA,
		  SIM_LOCKDEP_ORDER, 1 },
	};

	sim_lockdep_forget_order();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_misdeed_reported(&cases[i]);
	sim_lockdep_forget_order();
	for (size_t i = 0; i < sizeof(cycle) / sizeof(cycle[0]); i++)
		assert_misdeed_reported(&cycle[i]);
	sim_lockdep_forget_order();
}

/*
 * A lock taken again under the same held locks skips the order lookup
 * (the held lock remembers the edge it confirmed); forgetting the order
 * must end that, so the edge is learnt anew and its inversion reported.
 */
static void test_lock_order_is_relearnt_after_forgetting_under_a_held_lock(void **state)
{
	static const struct misdeed_case cases[] = {
		{ "A held: B, forget, B", KAPI_LOCKDEP_ORDER_AB_FORGOTTEN,
		  SIM_LOCKDEP_ORDER, 0 },
		{ "B then A", KAPI_LOCKDEP_ORDER_BA, SIM_LOCKDEP_ORDER, 1 },
	};

	sim_lockdep_forget_order();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_misdeed_reported(&cases[i]);
	sim_lockdep_forget_order();
}

/*
 * An acquire the checker remembered stands only for the same held locks:
 * B checked under A is checked again under C (and the inversion found),
 * an rwsem checked at depth 2 on one stack is checked again at depth 2
 * on a stack that out-of-order releases made different (and the lock of
 * its class below found).
 */
static void test_remembered_acquires_are_checked_again_on_other_stacks(void **state)
{
	static const struct misdeed_case cases[] = {
		{ "B before C, B under A, then B under C",
		  KAPI_LOCKDEP_ORDER_B_UNDER_C, SIM_LOCKDEP_ORDER, 1 },
		{ "one class at depth 2, before and after another early release",
		  KAPI_LOCKDEP_CLASS_AGAIN_BELOW_CHANGED, SIM_LOCKDEP_RECURSION,
		  1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sim_lockdep_forget_order();
		assert_misdeed_reported(&cases[i]);
	}
	sim_lockdep_forget_order();
}

/*
 * The checker's memos hold: two locks taken in turn at one depth, and one
 * under the other, are checked in full the first time only (each depth
 * keeps the last two acquires, the one hit in the slow path swapped to
 * the front), so a memo lost, left unswapped or copied wrong shows here
 * as another full check.  The checker's own entry points, on two locks
 * of two classes that nothing else takes.
 */
static void test_remembered_acquires_are_not_checked_again(void **state)
{
	static long a, b;
	static char key_a[8], key_b[8];
	unsigned long long before = 0;

	for (int round = 0; round < 4; round++) {
		if (round == 1)
			before = sim_lockdep_full_checks();
		assert_int_equal(sim_lock_acquire(&a, key_a, 0, SIM_LOCK_WRITE,
						  "a", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_release(&a, "a", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_acquire(&b, key_b, 0, SIM_LOCK_READ,
						  "b", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_release(&b, "b", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_acquire(&a, key_a, 0, SIM_LOCK_WRITE,
						  "a", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_acquire(&b, key_b, 0, SIM_LOCK_READ,
						  "b", __FILE__, __LINE__), 0);
		assert_true(sim_lock_held(&b, SIM_LOCK_READ));
		assert_true(sim_lock_held(&a, SIM_LOCK_WRITE));
		assert_int_equal(sim_lock_release(&b, "b", __FILE__, __LINE__), 0);
		assert_int_equal(sim_lock_release(&a, "a", __FILE__, __LINE__), 0);
		assert_int_equal(sim_locks_held(), 0);
	}
	assert_int_equal(sim_lockdep_full_checks() - before, 0);
	/* Forgotten order: each is checked in full again, once. */
	sim_lockdep_forget_order();
	before = sim_lockdep_full_checks();
	for (int round = 0; round < 2; round++) {
		sim_lock_acquire(&a, key_a, 0, SIM_LOCK_WRITE, "a", __FILE__,
				 __LINE__);
		sim_lock_acquire(&b, key_b, 0, SIM_LOCK_READ, "b", __FILE__,
				 __LINE__);
		sim_lock_release(&b, "b", __FILE__, __LINE__);
		sim_lock_release(&a, "a", __FILE__, __LINE__);
	}
	assert_int_equal(sim_lockdep_full_checks() - before, 2);
}

/* A door that returns with a lock held is reported under its name. */
static void test_lock_held_on_return_to_user_space_is_reported(void **state)
{
	unsigned long long before =
		sim_lockdep_reports(SIM_LOCKDEP_HELD_AT_RETURN);

	assert_int_equal(kapi_lockdep_misbehave(KAPI_LOCKDEP_RETURN_HELD), 0);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_HELD_AT_RETURN) -
			 before, 1);
	assert_int_equal(sim_locks_held(), 1);
	kapi_lockdep_release_kept();
	assert_int_equal(sim_locks_held(), 0);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_HELD_AT_RETURN) -
			 before, 1);
}

static pthread_barrier_t handover;

/* Takes the mutex, lets the main thread try to unlock it, then unlocks. */
static void *own_the_mutex(void *arg)
{
	kapi_lockdep_misbehave(KAPI_LOCKDEP_RETURN_HELD);
	pthread_barrier_wait(&handover);	/* held: main tries */
	pthread_barrier_wait(&handover);	/* main is done */
	kapi_lockdep_release_kept();
	return NULL;
}

/*
 * A mutex another thread holds, unlocked here: reported, and it stays held
 * by its owner, whose own unlock then is not reported.
 */
static void test_unlock_by_another_thread_is_reported(void **state)
{
	unsigned long long bad = sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK);
	pthread_t owner;

	assert_int_equal(pthread_barrier_init(&handover, NULL, 2), 0);
	assert_int_equal(pthread_create(&owner, NULL, own_the_mutex, NULL), 0);
	pthread_barrier_wait(&handover);
	kapi_lockdep_release_kept();
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK) - bad, 1);
	pthread_barrier_wait(&handover);
	assert_int_equal(pthread_join(owner, NULL), 0);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK) - bad, 1);
	pthread_barrier_destroy(&handover);
	/* The owner gave it back: this thread can take and give it again. */
	assert_int_equal(kapi_lockdep_misbehave(KAPI_LOCKDEP_RETURN_HELD), 0);
	kapi_lockdep_release_kept();
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK) - bad, 1);
}

/*
 * RCU read sections (the shim's pte_offset_map()/pte_unmap()) nest and
 * balance silently; one unlock too many is a bad unlock, and a section
 * still open at the return to user space is reported once and closed.
 */
static void test_rcu_read_sections_balance_or_are_reported(void **state)
{
	unsigned long long bad = sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK);
	unsigned long long held = sim_lockdep_reports(SIM_LOCKDEP_HELD_AT_RETURN);
	unsigned long long total = sim_lockdep_reports_total();

	sim_rcu_read_lock();
	sim_rcu_read_lock();
	assert_int_equal(sim_rcu_read_depth(), 2);
	sim_rcu_read_unlock(__FILE__, __LINE__);
	sim_rcu_read_unlock(__FILE__, __LINE__);
	sim_locks_user_return(__func__);
	assert_int_equal(sim_lockdep_reports_total() - total, 0);

	sim_rcu_read_unlock(__FILE__, __LINE__);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_BAD_UNLOCK) - bad, 1);
	assert_int_equal(sim_rcu_read_depth(), 0);

	sim_rcu_read_lock();
	sim_locks_user_return(__func__);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_HELD_AT_RETURN) - held, 1);
	assert_int_equal(sim_rcu_read_depth(), 0);
	sim_locks_user_return(__func__);
	assert_int_equal(sim_lockdep_reports_total() - total, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_broken_rule_is_reported),
		cmocka_unit_test(test_rcu_read_sections_balance_or_are_reported),
		cmocka_unit_test(test_lock_order_inversions_are_reported_once),
		cmocka_unit_test(test_lock_order_is_relearnt_after_forgetting_under_a_held_lock),
		cmocka_unit_test(test_remembered_acquires_are_checked_again_on_other_stacks),
		cmocka_unit_test(test_remembered_acquires_are_not_checked_again),
		cmocka_unit_test(test_lock_held_on_return_to_user_space_is_reported),
		cmocka_unit_test(test_unlock_by_another_thread_is_reported),
	};

	return cmocka_run_group_tests(tests, setup_process, teardown_process);
}
