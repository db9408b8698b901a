/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _DMASIM_LINUX_CACHE_H
#define _DMASIM_LINUX_CACHE_H

#include <linux/kernel.h>

#define L1_CACHE_SHIFT	6
#define L1_CACHE_BYTES	(1 << L1_CACHE_SHIFT)
#define SMP_CACHE_BYTES	L1_CACHE_BYTES

#endif
