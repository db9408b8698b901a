// SPDX-License-Identifier: GPL-2.0-only
/*
 * Locking done wrong on purpose (<dmasim/kapi_lockdep.h>), through the
 * shim's own lock code, for tests/test_lockdep.c.  Each misdeed is undone
 * before the door returns, except KAPI_LOCKDEP_RETURN_HELD's, whose mutex
 * kapi_lockdep_release_kept() gives back.
 */
#include <linux/errno.h>
#include <linux/mm_types.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "kapi_door.h"
#include <dmasim/kapi_lockdep.h>

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_MUTEX(lock_c);
static DEFINE_MUTEX(kept);
static DECLARE_RWSEM(sem);
static DEFINE_SPINLOCK(spin);
static DEFINE_SPINLOCK(spin2);

/* Two mutexes of one class: initialised at one site. */
static struct mutex same_class[2];

static void init_same_class(void)
{
	int i;

	for (i = 0; i < 2; i++)
		mutex_init(&same_class[i]);
}

/* Two rw_semaphores of one class, as same_class. */
static struct rw_semaphore same_class_sem[2];

static void init_same_class_sems(void)
{
	int i;

	for (i = 0; i < 2; i++)
		init_rwsem(&same_class_sem[i]);
}

static void misbehave(enum kapi_lockdep_misdeed what)
{
	struct mm_struct *mm;

	switch (what) {
	case KAPI_LOCKDEP_UNLOCK_FREE_MUTEX:
		mutex_unlock(&lock_a);
		break;
	case KAPI_LOCKDEP_UP_READ_UNHELD:
		up_read(&sem);
		break;
	case KAPI_LOCKDEP_SPIN_UNLOCK_FREE:
		spin_unlock(&spin);
		break;
	case KAPI_LOCKDEP_ASSERT_HELD_UNHELD:
		lockdep_assert_held(&lock_a);
		break;
	case KAPI_LOCKDEP_ASSERT_WRITE_READ_HELD:
		/* On top of the stack, then under another lock. */
		down_read(&sem);
		lockdep_assert_held(&sem);		/* right: no report */
		lockdep_assert_held_read(&sem);		/* right: no report */
		lockdep_assert_held_write(&sem);	/* wrong */
		spin_lock(&spin);
		lockdep_assert_held(&sem);		/* right: no report */
		lockdep_assert_held_read(&sem);		/* right: no report */
		lockdep_assert_held_write(&sem);	/* wrong */
		spin_unlock(&spin);
		up_read(&sem);
		break;
	case KAPI_LOCKDEP_MMAP_ASSERT_UNLOCKED:
		mm = current->mm;
		mmap_assert_locked(mm);
		break;
	case KAPI_LOCKDEP_MUTEX_TWICE:
		mutex_lock(&lock_a);
		mutex_lock(&lock_a);		/* reported, not taken */
		mutex_unlock(&lock_a);
		break;
	case KAPI_LOCKDEP_SAME_CLASS_NESTED:
		init_same_class();
		mutex_lock(&same_class[0]);
		mutex_lock_nested(&same_class[1], SINGLE_DEPTH_NESTING);
		mutex_unlock(&same_class[1]);	/* annotated: no report */
		mutex_lock(&same_class[1]);	/* not annotated */
		mutex_unlock(&same_class[1]);
		mutex_unlock(&same_class[0]);
		break;
	case KAPI_LOCKDEP_ORDER_AB:
		mutex_lock(&lock_a);
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_a);
		break;
	case KAPI_LOCKDEP_ORDER_BA:
		mutex_lock(&lock_b);
		mutex_lock(&lock_a);
		mutex_unlock(&lock_a);
		mutex_unlock(&lock_b);
		break;
	case KAPI_LOCKDEP_ORDER_BC_CA:
		mutex_lock(&lock_b);
		mutex_lock(&lock_c);
		mutex_unlock(&lock_c);
		mutex_unlock(&lock_b);
		mutex_lock(&lock_c);
		mutex_lock(&lock_a);		/* a -> b -> c -> a */
		mutex_unlock(&lock_a);
		mutex_unlock(&lock_c);
		break;
	case KAPI_LOCKDEP_ORDER_AB_FORGOTTEN:
		/*
		 * A stays held: the edge A -> B its first B confirmed must
		 * be learnt again by the second, after the forgetting.
		 */
		mutex_lock(&lock_a);
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		sim_lockdep_forget_order();
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_a);
		break;
	case KAPI_LOCKDEP_ORDER_B_UNDER_C:
		/*
		 * B then C is learnt; B under A is remembered; B under C
		 * (the same depth, another lock below) closes C -> B -> C:
		 * what was remembered under A must not stand for it.
		 */
		mutex_lock(&lock_b);
		mutex_lock(&lock_c);
		mutex_unlock(&lock_c);
		mutex_unlock(&lock_b);
		mutex_lock(&lock_a);
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_a);
		mutex_lock(&lock_c);
		mutex_lock(&lock_b);		/* reported */
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_c);
		break;
	case KAPI_LOCKDEP_CLASS_AGAIN_BELOW_CHANGED:
		/*
		 * sem_b taken at depth 2 on spin and spin2, which sem_a's
		 * out-of-order release left: nothing to report.  Then the
		 * same locks in the same order, but spin released out of
		 * order: depth 2 again, spin2 on top pushed as before, sem_a
		 * below: sem_b, of sem_a's class, is reported.
		 */
		init_same_class_sems();
		down_read(&same_class_sem[0]);
		spin_lock(&spin);
		spin_lock(&spin2);
		up_read(&same_class_sem[0]);
		down_read(&same_class_sem[1]);
		up_read(&same_class_sem[1]);
		spin_unlock(&spin2);
		spin_unlock(&spin);
		down_read(&same_class_sem[0]);
		spin_lock(&spin);
		spin_lock(&spin2);
		spin_unlock(&spin);
		down_read(&same_class_sem[1]);	/* reported */
		up_read(&same_class_sem[1]);
		up_read(&same_class_sem[0]);
		spin_unlock(&spin2);
		break;
	case KAPI_LOCKDEP_RETURN_HELD:
		mutex_lock(&kept);
		break;
	case KAPI_LOCKDEP_RIGHTLY:
		mutex_lock(&lock_a);
		lockdep_assert_held(&lock_a);
		down_write(&sem);
		lockdep_assert_held_write(&sem);
		downgrade_write(&sem);
		lockdep_assert_held_read(&sem);
		up_read(&sem);
		spin_lock(&spin);
		spin_unlock(&spin);
		lockdep_assert_not_held(&lock_b);
		/* Released in another order than taken: no report. */
		spin_lock(&spin);
		mutex_unlock(&lock_a);
		lockdep_assert_held(&spin);
		lockdep_assert_not_held(&lock_a);
		spin_unlock(&spin);
		break;
	default:
		break;
	}
}

int kapi_lockdep_misbehave(enum kapi_lockdep_misdeed what)
{
	if (what < 0 || what >= KAPI_LOCKDEP_NR_MISDEEDS)
		return -EINVAL;
	misbehave(what);
	return kapi_return(0);
}

void kapi_lockdep_release_kept(void)
{
	mutex_unlock(&kept);
	kapi_user_return();
}
