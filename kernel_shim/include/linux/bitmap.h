/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bitmaps with the kernel's <linux/bitmap.h> API (array of unsigned long,
 * bit n in word n / BITS_PER_LONG at position n % BITS_PER_LONG), and the
 * find_*_bit() helpers of <linux/find.h>.  Out-of-line parts live in
 * kernel_shim/bitmap.c (dmasim's own code).
 *
 * (a) Definitions that must match the kernel: the bit layout, every
 *     function's meaning, including that bits past nbits in the last word
 *     are "don't care" for the readers and may be written by bitmap_fill(),
 *     and that bitmap_shift_left() clears the vacated low bits.
 * (c) Test double: bitmap_zalloc()/bitmap_alloc() ask the fault point
 *     "shim/bitmap/alloc" first and allocate from the counted kernel heap.
 * Simplified: no small-constant-nbits inline fast paths (every call takes
 * the general path), no parse/print helpers.
 */
#ifndef _DMASIM_LINUX_BITMAP_H
#define _DMASIM_LINUX_BITMAP_H

#include <linux/bitops.h>
#include <linux/gfp_types.h>
#include <linux/string.h>
#include <linux/types.h>

/* Mask of the valid bits of the last word of an nbits bitmap. */
#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))
#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) & (BITS_PER_LONG - 1)))

unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags);
unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags);
void bitmap_free(const unsigned long *bitmap);

void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits);
void bitmap_clear(unsigned long *map, unsigned int start, unsigned int nbits);
void bitmap_shift_left(unsigned long *dst, const unsigned long *src,
		       unsigned int shift, unsigned int nbits);
void bitmap_shift_right(unsigned long *dst, const unsigned long *src,
			unsigned int shift, unsigned int nbits);
unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits);
bool bitmap_equal(const unsigned long *a, const unsigned long *b,
		  unsigned int nbits);

unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset);
unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset);

static inline unsigned long find_first_bit(const unsigned long *addr,
					   unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr,
						unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_copy(unsigned long *dst, const unsigned long *src,
			       unsigned int nbits)
{
	memcpy(dst, src, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_or(unsigned long *dst, const unsigned long *a,
			     const unsigned long *b, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = a[k] | b[k];
}

static inline bool bitmap_and(unsigned long *dst, const unsigned long *a,
			      const unsigned long *b, unsigned int nbits)
{
	unsigned long any = 0;
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		any |= (dst[k] = a[k] & b[k]);
	return any != 0;
}

static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) >= nbits;
}

static inline bool bitmap_full(const unsigned long *src, unsigned int nbits)
{
	return find_first_zero_bit(src, nbits) >= nbits;
}

#define for_each_set_bit_from(bit, addr, size)				\
	for ((bit) = find_next_bit((addr), (size), (bit));		\
	     (bit) < (size);						\
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

#endif
