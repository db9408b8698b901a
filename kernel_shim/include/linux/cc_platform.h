/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Confidential-computing platform attributes (<linux/cc_platform.h>).
 * Mainline's system heap asks cc_platform_has(CC_ATTR_MEM_ENCRYPT) to decide
 * whether the pages it hands out must be shared (decrypted) with the host.
 *
 * (a) Definitions that must match the kernel: the enum cc_attr names a tree
 *     may spell (values are the shim's own: nothing stores them).
 * (b) Stub on purpose: the simulated machine is never a confidential guest
 *     (no SEV/TDX), so cc_platform_has() is false for every attribute and the
 *     decrypted-memory paths stay unreached.
 */
#ifndef _DMASIM_LINUX_CC_PLATFORM_H
#define _DMASIM_LINUX_CC_PLATFORM_H

#include <linux/types.h>

enum cc_attr {
	CC_ATTR_MEM_ENCRYPT,
	CC_ATTR_HOST_MEM_ENCRYPT,
	CC_ATTR_GUEST_MEM_ENCRYPT,
	CC_ATTR_GUEST_STATE_ENCRYPT,
	CC_ATTR_GUEST_UNROLL_STRING_IO,
	CC_ATTR_GUEST_SEV_SNP,
	CC_ATTR_HOST_SEV_SNP,
};

static inline bool cc_platform_has(enum cc_attr attr)
{
	return false;
}

#endif
