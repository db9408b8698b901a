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
 * (c) Counting (the cost model): every mmap lock taken (read or write,
 *     killable or not, a successful trylock) counts SIM_CNT_MMAP_LOCK, so
 *     the code that takes it (type1's vaddr_get_pfns(), once per call) is
 *     what counts its cost.
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
#define mmap_read_lock(mm) do {						\
	sim_count(SIM_CNT_MMAP_LOCK, 1);				\
	down_read(&(mm)->mmap_lock);					\
} while (0)
#define mmap_read_trylock(mm) ({					\
	bool __locked = down_read_trylock(&(mm)->mmap_lock);		\
									\
	if (__locked)							\
		sim_count(SIM_CNT_MMAP_LOCK, 1);			\
	__locked;							\
})
#define mmap_read_unlock(mm)	up_read(&(mm)->mmap_lock)
#define mmap_write_lock(mm) do {					\
	sim_count(SIM_CNT_MMAP_LOCK, 1);				\
	down_write(&(mm)->mmap_lock);					\
} while (0)
#define mmap_write_unlock(mm)	up_write(&(mm)->mmap_lock)
#define mmap_write_downgrade(mm) downgrade_write(&(mm)->mmap_lock)

#define mmap_read_lock_killable(mm) ({					\
	struct mm_struct *__mm = (mm);					\
	int __ret = -EINTR;						\
									\
	if (!current->fatal_signal) {					\
		sim_count(SIM_CNT_MMAP_LOCK, 1);			\
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
		sim_count(SIM_CNT_MMAP_LOCK, 1);			\
		down_write(&__mm->mmap_lock);				\
		__ret = 0;						\
	}								\
	__ret;								\
})

#define mmap_assert_locked(mm)	lockdep_assert_held(&(mm)->mmap_lock)
#define mmap_assert_write_locked(mm) \
	lockdep_assert_held_write(&(mm)->mmap_lock)

#endif
