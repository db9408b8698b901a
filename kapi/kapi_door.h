/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kapi door returning to its plain-C caller is the kernel's return to
 * user space: the kernel code it ran must hold no lock by then.  The doors
 * that run kernel code end with kapi_return() (or kapi_user_return() when
 * they return nothing), which first runs the task work queued for the
 * return (deferred fputs, <shim/fs.h>), then reports every lock still held
 * (the lock checker, <dmasim/sim.h>) under the door's name.
 */
#ifndef _DMASIM_KAPI_DOOR_H
#define _DMASIM_KAPI_DOOR_H

#include <dmasim/sim.h>

/* kernel_shim/fs.c: the fputs deferred to the return to user space. */
void shim_task_work_run(void);

#define kapi_user_return()	({					\
	shim_task_work_run();						\
	sim_locks_user_return(__func__);				\
})
#define kapi_return(expr) ({						\
	__auto_type __kapi_ret = (expr);				\
									\
	kapi_user_return();						\
	__kapi_ret;							\
})

#endif
