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
 *     mmap_assert_locked()/mmap_assert_write_locked() WARN when the lock is
 *     not held (read holders are counted, not named, so a read holder is
 *     "somebody", as lockdep's check without lock-class tracking).
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

static inline void mmap_read_lock(struct mm_struct *mm)
{
	sim_count(SIM_CNT_MMAP_LOCK, 1);
	down_read(&mm->mmap_lock);
}

static inline int mmap_read_lock_killable(struct mm_struct *mm)
{
	if (current->fatal_signal)
		return -EINTR;
	sim_count(SIM_CNT_MMAP_LOCK, 1);
	down_read(&mm->mmap_lock);
	return 0;
}

static inline bool mmap_read_trylock(struct mm_struct *mm)
{
	if (!down_read_trylock(&mm->mmap_lock))
		return false;
	sim_count(SIM_CNT_MMAP_LOCK, 1);
	return true;
}

static inline void mmap_read_unlock(struct mm_struct *mm)
{
	up_read(&mm->mmap_lock);
}

static inline void mmap_write_lock(struct mm_struct *mm)
{
	sim_count(SIM_CNT_MMAP_LOCK, 1);
	down_write(&mm->mmap_lock);
}

static inline int mmap_write_lock_killable(struct mm_struct *mm)
{
	if (sim_should_fail(SIM_FP_ACCOUNT_LOCKED_VM) || current->fatal_signal)
		return -EINTR;
	sim_count(SIM_CNT_MMAP_LOCK, 1);
	down_write(&mm->mmap_lock);
	return 0;
}

static inline void mmap_write_unlock(struct mm_struct *mm)
{
	up_write(&mm->mmap_lock);
}

static inline void mmap_write_downgrade(struct mm_struct *mm)
{
	downgrade_write(&mm->mmap_lock);
}

static inline void mmap_assert_locked(const struct mm_struct *mm)
{
	WARN_ON(!dmasim_rwsem_held((struct rw_semaphore *)&mm->mmap_lock));
}

static inline void mmap_assert_write_locked(const struct mm_struct *mm)
{
	WARN_ON(READ_ONCE(mm->mmap_lock.owner) != sim_thread_id());
}

#endif
