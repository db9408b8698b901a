/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's tick rate (<linux/jiffies.h>): HZ, as Debian's 6.12
 * amd64 kernels configure it (CONFIG_HZ_250), for timeouts given in
 * jiffies (<linux/completion.h>).
 * (a) Definitions that must match the kernel: HZ.
 * Simplified: no jiffies counter; nothing here reads the time of day.
 * (b) Stubs: none.  (c) Test doubles: none.
 */
#ifndef _DMASIM_LINUX_JIFFIES_H
#define _DMASIM_LINUX_JIFFIES_H

#define HZ	250

#endif
