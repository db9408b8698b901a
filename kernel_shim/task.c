// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tasks and address-space lifetimes: the last put_task_struct(), the last
 * mmput() (address-space teardown) and mmdrop() (struct free),
 * kthread_use_mm(), schedule() (a BUG: see there), and locked_vm accounting against RLIMIT_MEMLOCK
 * (mm/util.c's account_locked_vm() contract).
 *
 * Simulated processes are made by kapi/kapi_mm.c: a task_struct
 * with its own signal_struct (rlimits), and an mm_struct wrapping a sim
 * address space.  Objects come from sim_kmalloc(), so a leaked task or mm
 * shows in the outstanding-allocation invariant.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include <dmasim/sim.h>

#include <shim/mm_internal.h>

void __put_task_struct(struct task_struct *t)
{
	if (t->dmasim_ext != DMASIM_TASK_ALLOCATED) {
		WARN(1, "last reference dropped on a static task");
		return;
	}
	sim_kfree(t->signal);
	sim_kfree(t);
}

/* Free every VMA of mm (its pages and page tables) and the sim mm. */
static void mm_teardown(struct mm_struct *mm)
{
	struct sim_vma *svma;

	while ((svma = sim_mm_find_vma_above(mm->dmasim_mm, 0))) {
		struct vm_area_struct *vma = sim_vma_info(svma)->owner;

		sim_mm_unmap(mm->dmasim_mm, vma->vm_start);
		shim_vma_free(vma);
	}
	sim_mm_destroy_one(mm->dmasim_mm);
	mm->dmasim_mm = NULL;
	mm->pgd = NULL;
}

void mmput(struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->mm_users)) {
		mm_teardown(mm);
		mmdrop(mm);
	}
}

void __mmdrop(struct mm_struct *mm)
{
	WARN_ON(mm->dmasim_mm);
	sim_kfree(mm);
}

struct mm_struct *get_task_mm(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;

	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	return mm;
}

void kthread_use_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;

	WARN_ON(tsk->mm);
	mmgrab(mm);
	tsk->mm = mm;
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;

	WARN_ON(tsk->mm != mm);
	tsk->mm = NULL;
	mmdrop(mm);
}

/*
 * A sleep: the simulated task is the only one running on its thread, and
 * nothing can wake it (see <linux/wait.h>), so the kernel would hang here.
 */
void schedule(void)
{
	__dmasim_bug(__FILE__, __LINE__,
		     "schedule(): a sleep nothing in the simulation can end");
}

int __account_locked_vm(struct mm_struct *mm, unsigned long pages, bool inc,
			struct task_struct *task, bool bypass_rlim)
{
	unsigned long limit;

	mmap_assert_write_locked(mm);
	sim_count(SIM_CNT_LOCKED_VM_UPDATE, 1);
	if (!inc) {
		WARN_ON_ONCE(pages > mm->locked_vm);
		mm->locked_vm -= pages;
		return 0;
	}
	if (!bypass_rlim) {
		limit = task_rlimit(task, RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		if (mm->locked_vm + pages > limit)
			return -ENOMEM;
	}
	mm->locked_vm += pages;
	return 0;
}

int account_locked_vm(struct mm_struct *mm, unsigned long pages, bool inc)
{
	int ret;

	if (!mm || !pages)
		return 0;
	mmap_write_lock(mm);
	ret = __account_locked_vm(mm, pages, inc, current,
				  capable(CAP_IPC_LOCK));
	mmap_write_unlock(mm);
	return ret;
}
