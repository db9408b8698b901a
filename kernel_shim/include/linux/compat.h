/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 32-bit userspace compatibility (<linux/compat.h>).  The simulated kernel
 * is 64-bit with CONFIG_COMPAT off, so no compat ioctl path exists:
 * vfio_iommu_type1.c includes this header and uses nothing from it.
 *
 * (a) Definitions that must match the kernel: compat_uptr_t (a 32-bit user
 *     pointer) and compat_ptr(), which widens one, for code that names them.
 * Nothing else of the kernel's header (compat_* syscall types, the compat
 * ioctl helpers) is provided; the drift report (tools/shim-drift.py) lists
 * any of it a tree starts to use.
 */
#ifndef _DMASIM_LINUX_COMPAT_H
#define _DMASIM_LINUX_COMPAT_H

#include <linux/compiler_types.h>
#include <linux/types.h>

typedef u32 compat_uptr_t;

static inline void __user *compat_ptr(compat_uptr_t uptr)
{
	return (void __user *)(unsigned long)uptr;
}

#endif
