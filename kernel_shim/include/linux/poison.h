/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's list poison values. */
#ifndef _DMASIM_LINUX_POISON_H
#define _DMASIM_LINUX_POISON_H

#define LIST_POISON1	((void *)0x100)
#define LIST_POISON2	((void *)0x122)

#endif
