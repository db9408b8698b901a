/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Capabilities (<linux/capability.h>).
 * (a) Definitions that must match the kernel: the CAP_* numbers used by
 *     the code under test, capable()'s contract (does current have it in
 *     its effective set?).
 * (c) Test double: the effective set is a per-task word
 *     (task->dmasim_cap_effective) a test sets through kapi_mm.h
 *     (kapi_mm_set_cap_ipc_lock); the boot task has every capability.
 * Simplified: no user namespaces, no audit, no LSM hooks.
 */
#ifndef _DMASIM_LINUX_CAPABILITY_H
#define _DMASIM_LINUX_CAPABILITY_H

#include <linux/sched.h>
#include <linux/types.h>

#define CAP_DAC_OVERRIDE	1
#define CAP_IPC_LOCK		14
#define CAP_SYS_RAWIO		17
#define CAP_SYS_ADMIN		21
#define CAP_SYS_RESOURCE	24
#define CAP_LAST_CAP		40

static inline bool has_capability(struct task_struct *t, int cap)
{
	return (t->dmasim_cap_effective >> cap) & 1;
}

static inline bool capable(int cap)
{
	return has_capability(current, cap);
}

static inline bool ns_capable(void *ns, int cap)
{
	return capable(cap);
}

#endif
