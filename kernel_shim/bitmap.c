// SPDX-License-Identifier: GPL-2.0-only
/*
 * Out-of-line bitmap operations for <linux/bitmap.h>: word-at-a-time set,
 * clear, shift and search (dmasim's own code).
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

#include <dmasim/sim.h>

unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags)
{
	if (sim_should_fail(SIM_FP_BITMAP_ALLOC))
		return NULL;
	return kmalloc_array(BITS_TO_LONGS(nbits), sizeof(unsigned long),
			     flags);
}

unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return bitmap_alloc(nbits, flags | __GFP_ZERO);
}

void bitmap_free(const unsigned long *bitmap)
{
	kfree(bitmap);
}

/* Apply fn to the words covering [start, start + nbits) with edge masks. */
#define BITMAP_RANGE_OP(map, start, nbits, OP)				\
do {									\
	unsigned long *__w = (map) + BIT_WORD(start);			\
	unsigned long __end = (unsigned long)(start) + (nbits);		\
	unsigned long __mask = BITMAP_FIRST_WORD_MASK(start);		\
	long __left = (long)(nbits) + ((start) % BITS_PER_LONG);	\
									\
	if (!(nbits))							\
		break;							\
	while (__left > BITS_PER_LONG) {				\
		OP(*__w, __mask);					\
		__w++;							\
		__left -= BITS_PER_LONG;				\
		__mask = ~0UL;						\
	}								\
	__mask &= BITMAP_LAST_WORD_MASK(__end);				\
	OP(*__w, __mask);						\
} while (0)

#define BITMAP_OP_SET(word, mask)	((word) |= (mask))
#define BITMAP_OP_CLEAR(word, mask)	((word) &= ~(mask))

void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits)
{
	BITMAP_RANGE_OP(map, start, nbits, BITMAP_OP_SET);
}

void bitmap_clear(unsigned long *map, unsigned int start, unsigned int nbits)
{
	BITMAP_RANGE_OP(map, start, nbits, BITMAP_OP_CLEAR);
}

/*
 * dst = src << shift over nbits bits: bit i of src lands at i + shift, bits
 * shifted past nbits are lost, the low shift bits become 0.  dst may be src.
 * Works from the top word down so the in-place case reads before it writes.
 */
void bitmap_shift_left(unsigned long *dst, const unsigned long *src,
		       unsigned int shift, unsigned int nbits)
{
	unsigned int words = BITS_TO_LONGS(nbits);
	unsigned int word_shift = shift / BITS_PER_LONG;
	unsigned int bit_shift = shift % BITS_PER_LONG;
	int k;

	for (k = (int)words - 1; k >= 0; k--) {
		int from = k - (int)word_shift;
		unsigned long hi = 0, lo = 0;

		if (from >= 0)
			hi = src[from] << bit_shift;
		if (bit_shift && from - 1 >= 0)
			lo = src[from - 1] >> (BITS_PER_LONG - bit_shift);
		dst[k] = hi | lo;
	}
	if (nbits % BITS_PER_LONG)
		dst[words - 1] &= BITMAP_LAST_WORD_MASK(nbits);
}

/* dst = src >> shift over nbits bits; the top shift bits become 0. */
void bitmap_shift_right(unsigned long *dst, const unsigned long *src,
			unsigned int shift, unsigned int nbits)
{
	unsigned int words = BITS_TO_LONGS(nbits);
	unsigned int word_shift = shift / BITS_PER_LONG;
	unsigned int bit_shift = shift % BITS_PER_LONG;
	unsigned int k;

	for (k = 0; k < words; k++) {
		unsigned int from = k + word_shift;
		unsigned long lo = 0, hi = 0, w;

		if (from < words) {
			w = src[from];
			if (from == words - 1 && nbits % BITS_PER_LONG)
				w &= BITMAP_LAST_WORD_MASK(nbits);
			lo = w >> bit_shift;
		}
		if (bit_shift && from + 1 < words) {
			w = src[from + 1];
			if (from + 1 == words - 1 && nbits % BITS_PER_LONG)
				w &= BITMAP_LAST_WORD_MASK(nbits);
			hi = w << (BITS_PER_LONG - bit_shift);
		}
		dst[k] = lo | hi;
	}
}

unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, w = 0;

	for (k = 0; k < nbits / BITS_PER_LONG; k++)
		w += hweight_long(src[k]);
	if (nbits % BITS_PER_LONG)
		w += hweight_long(src[k] & BITMAP_LAST_WORD_MASK(nbits));
	return w;
}

bool bitmap_equal(const unsigned long *a, const unsigned long *b,
		  unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < nbits / BITS_PER_LONG; k++)
		if (a[k] != b[k])
			return false;
	if (nbits % BITS_PER_LONG)
		return !((a[k] ^ b[k]) & BITMAP_LAST_WORD_MASK(nbits));
	return true;
}

/* First bit at or after offset whose value, xor invert, is 1; or size. */
static unsigned long bitmap_find_from(const unsigned long *addr,
				      unsigned long size, unsigned long offset,
				      unsigned long invert)
{
	unsigned long word, idx;

	if (offset >= size)
		return size;
	idx = BIT_WORD(offset);
	word = (addr[idx] ^ invert) & BITMAP_FIRST_WORD_MASK(offset);
	while (!word) {
		idx++;
		if (idx * BITS_PER_LONG >= size)
			return size;
		word = addr[idx] ^ invert;
	}
	offset = idx * BITS_PER_LONG + __ffs(word);
	return offset < size ? offset : size;
}

unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset)
{
	return bitmap_find_from(addr, size, offset, 0);
}

unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset)
{
	return bitmap_find_from(addr, size, offset, ~0UL);
}
