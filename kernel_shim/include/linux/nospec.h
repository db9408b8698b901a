/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Speculation barriers, as the kernel's <linux/nospec.h>.
 * (a) The contract: array_index_nospec(index, size) is index when
 *     index < size and 0 otherwise, computed without a branch.
 * Simplified: the mask is the generic C one (no arch barrier); there is no
 * speculation to stop in a simulator, but the value contract holds.
 */
#ifndef _DMASIM_LINUX_NOSPEC_H
#define _DMASIM_LINUX_NOSPEC_H

#include <linux/bits.h>
#include <linux/compiler.h>

/* ~0UL when index < size, else 0 (both below LONG_MAX). */
static inline unsigned long array_index_mask_nospec(unsigned long index,
						    unsigned long size)
{
	return ~(long)(index | (size - 1UL - index)) >> (BITS_PER_LONG - 1);
}

#define array_index_nospec(index, size) ({				\
	typeof(index) __i = (index);					\
	typeof(size) __s = (size);					\
	unsigned long __m = array_index_mask_nospec(__i, __s);		\
	(typeof(__i))(__i & __m); })

#endif
