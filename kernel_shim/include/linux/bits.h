/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's BIT()/GENMASK(). */
#ifndef _DMASIM_LINUX_BITS_H
#define _DMASIM_LINUX_BITS_H

#include <linux/const.h>

#define BITS_PER_LONG		64
#define BITS_PER_LONG_LONG	64
#define BITS_PER_BYTE		8
#define BITS_PER_TYPE(type)	(sizeof(type) * BITS_PER_BYTE)
#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BITS_TO_BYTES(nr)	(((nr) + BITS_PER_BYTE - 1) / BITS_PER_BYTE)

#define GENMASK(h, l) \
	(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) \
	(((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#endif
