/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wait queues, as the kernel's <linux/wait.h>, for code that sleeps until
 * another task wakes it (6.1's VFIO type1 waits for invalidated vaddrs in
 * vfio_wait()).
 *
 * (a) Definitions that must match the kernel: wait_queue_head_t and struct
 *     wait_queue_entry (the members code names: lock, head; flags, private,
 *     entry), DEFINE_WAIT(), init_waitqueue_head(), prepare_to_wait(),
 *     finish_wait() and wake_up_all(), with the kernel's contract:
 *     prepare_to_wait() queues the entry (once) and sets the task state,
 *     finish_wait() sets TASK_RUNNING and dequeues it if a wake-up has not,
 *     wake_up_all() wakes (and dequeues, as autoremove_wake_function does)
 *     every queued entry.
 * Simplified: one simulated task runs per thread and nothing runs beside
 *     it, so a task that calls schedule() after prepare_to_wait() could
 *     never be woken: the shim's schedule() (<linux/sched.h>) reports that
 *     as a kernel BUG instead of hanging.  6.1's type1 never gets there:
 *     the -EBUSY guards in pin_pages, dma_rw and attach return first.
 *     Task states are not recorded (the state argument is taken and
 *     dropped): wake_up_all() has no task to make runnable, it dequeues
 *     each entry and marks it WQ_FLAG_WOKEN.
 * (b) Stubs: none.  (c) Test doubles: none.
 */
#ifndef _DMASIM_LINUX_WAIT_H
#define _DMASIM_LINUX_WAIT_H

#include <linux/list.h>
#include <linux/spinlock.h>

struct task_struct;
struct task_struct *get_current(void);

#define WQ_FLAG_WOKEN	0x02

struct wait_queue_entry {
	unsigned int		flags;
	void			*private;	/* the waiting task */
	struct list_head	entry;
};

struct wait_queue_head {
	spinlock_t		lock;
	struct list_head	head;
};
typedef struct wait_queue_head wait_queue_head_t;

#define DEFINE_WAIT(name)						\
	struct wait_queue_entry name = {				\
		.private = get_current(),				\
		.entry = LIST_HEAD_INIT((name).entry),			\
	}

static inline void init_waitqueue_head(struct wait_queue_head *wq_head)
{
	spin_lock_init(&wq_head->lock);
	INIT_LIST_HEAD(&wq_head->head);
}

static inline void prepare_to_wait(struct wait_queue_head *wq_head,
				   struct wait_queue_entry *wq_entry,
				   long state)
{
	spin_lock(&wq_head->lock);
	if (list_empty(&wq_entry->entry))
		list_add(&wq_entry->entry, &wq_head->head);
	spin_unlock(&wq_head->lock);
}

static inline void finish_wait(struct wait_queue_head *wq_head,
			       struct wait_queue_entry *wq_entry)
{
	if (!list_empty(&wq_entry->entry)) {
		spin_lock(&wq_head->lock);
		list_del_init(&wq_entry->entry);
		spin_unlock(&wq_head->lock);
	}
}

static inline void wake_up_all(struct wait_queue_head *wq_head)
{
	struct wait_queue_entry *curr, *next;

	spin_lock(&wq_head->lock);
	list_for_each_entry_safe(curr, next, &wq_head->head, entry) {
		curr->flags |= WQ_FLAG_WOKEN;
		list_del_init(&curr->entry);
	}
	spin_unlock(&wq_head->lock);
}

#endif
