/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mmap lock (<linux/mmap_lock.h>): mm->mmap_lock, a real rw_semaphore.
 *
 * (a) Definitions that must match the kernel: the mmap_*_lock API and its
 *     results.
 * (c) Test double: mmap_write_lock_killable() asks the fault point
 *     "shim/mm/account_locked_vm" (SIM_FP_ACCOUNT_LOCKED_VM) first and
 *     returns -EINTR when it fires or when the current task has a fatal
 *     signal pending (the only ways a killable sleep ends early);
 *     mmap_assert_locked()/mmap_assert_write_locked() report (a kernel
 *     warning, through the lock checker) when the calling thread does not
 *     hold the lock as asked.
 * Simplified: no per-VMA locks, no lock events/tracepoints.
 */
#ifndef _DMASIM_LINUX_MMAP_LOCK_H
#define _DMASIM_LINUX_MMAP_LOCK_H

#include <dmasim/sim.h>
#include <linux/bug.h>
#include <linux/mm_types.h>
#include <linux/rwsem.h>
#include <linux/sched.h>

static inline void mmap_init_lock(struct mm_struct *mm)
{
	init_rwsem(&mm->mmap_lock);
}

/* Macros, so that the lock checker names the caller's file and line. */
#define mmap_read_lock(mm)	down_read(&(mm)->mmap_lock)
#define mmap_read_trylock(mm)	down_read_trylock(&(mm)->mmap_lock)
#define mmap_read_unlock(mm)	up_read(&(mm)->mmap_lock)
#define mmap_write_lock(mm)	down_write(&(mm)->mmap_lock)
#define mmap_write_unlock(mm)	up_write(&(mm)->mmap_lock)
#define mmap_write_downgrade(mm) downgrade_write(&(mm)->mmap_lock)

#define mmap_read_lock_killable(mm) ({					\
	struct mm_struct *__mm = (mm);					\
	int __ret = -EINTR;						\
									\
	if (!current->fatal_signal) {					\
		down_read(&__mm->mmap_lock);				\
		__ret = 0;						\
	}								\
	__ret;								\
})

#define mmap_write_lock_killable(mm) ({					\
	struct mm_struct *__mm = (mm);					\
	int __ret = -EINTR;						\
									\
	if (!sim_should_fail(SIM_FP_ACCOUNT_LOCKED_VM) &&		\
	    !current->fatal_signal) {					\
		down_write(&__mm->mmap_lock);				\
		__ret = 0;						\
	}								\
	__ret;								\
})

#define mmap_assert_locked(mm)	lockdep_assert_held(&(mm)->mmap_lock)
#define mmap_assert_write_locked(mm) \
	lockdep_assert_held_write(&(mm)->mmap_lock)

#endif
