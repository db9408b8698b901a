/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's tick count (<linux/jiffies.h>): HZ, as Debian's 6.12
 * amd64 kernels configure it (CONFIG_HZ_250), and jiffies, the ticks
 * since boot, for timeouts given in jiffies (<linux/completion.h>).
 *
 * (a) Definitions that must match the kernel: HZ; jiffies starts where
 *     the kernel's does (INITIAL_JIFFIES, five minutes before the 32-bit
 *     count wraps) at each boot of the machine.
 * Simplified: jiffies is the simulated machine's clock (sim_clock_now,
 *     <dmasim/sim.h>), read-only here: no timer tick advances it, only a
 *     host thread (a test) with sim_clock_advance(), so it stands still
 *     while nothing does, however long the host takes.  Nothing here
 *     reads the time of day; the conversions (msecs_to_jiffies() and the
 *     like) and time_after() are not here (nothing calls them).
 * (b) Stubs: none.  (c) Test doubles: none.
 */
#ifndef _DMASIM_LINUX_JIFFIES_H
#define _DMASIM_LINUX_JIFFIES_H

#include <dmasim/sim.h>

#define HZ	SIM_HZ	/* 250 */

#define jiffies	sim_clock_jiffies()

#endif
