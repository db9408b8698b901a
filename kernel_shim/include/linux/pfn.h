/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/pfn.h>: definitions that must match the kernel
 * (page frame number <-> physical address conversions).  Nothing simulated.
 */
#ifndef _DMASIM_LINUX_PFN_H
#define _DMASIM_LINUX_PFN_H

#include <linux/types.h>
#include <asm/page.h>

/* pfn <-> physical address, then rounding a byte address to pfns. */
#define PHYS_PFN(x)	((unsigned long)((x) >> PAGE_SHIFT))
#define PFN_PHYS(x)	((phys_addr_t)(x) << PAGE_SHIFT)
#define PFN_DOWN(x)	((x) >> PAGE_SHIFT)
#define PFN_UP(x)	(((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_ALIGN(x)	(((unsigned long)(x) + (PAGE_SIZE - 1)) & PAGE_MASK)

#endif
