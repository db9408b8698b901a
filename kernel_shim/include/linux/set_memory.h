/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Changing the attributes of the kernel's direct map (<linux/set_memory.h>):
 * mainline's system heap decrypts pages it shares with a confidential
 * guest's host, and encrypts them again before freeing them.
 *
 * (a) Signatures as the kernel's: set_memory_decrypted/encrypted(addr,
 *     numpages) return 0 or a negative errno.
 * (b) Stubs on purpose: the simulated machine has no memory encryption and
 *     no direct-map attributes, and cc_platform_has() (<linux/cc_platform.h>)
 *     is always false, so code guarded by it never calls these; called
 *     anyway, they succeed and change nothing.
 */
#ifndef _DMASIM_LINUX_SET_MEMORY_H
#define _DMASIM_LINUX_SET_MEMORY_H

static inline int set_memory_decrypted(unsigned long addr, int numpages)
{
	return 0;
}

static inline int set_memory_encrypted(unsigned long addr, int numpages)
{
	return 0;
}

#endif
