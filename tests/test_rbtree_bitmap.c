// SPDX-License-Identifier: GPL-2.0-only
/*
 * The red-black tree and bitmap shims VFIO type1 keeps its DMA ranges,
 * external pins and dirty pages in, checked against slow, obviously
 * correct references: a sorted array for the tree, an array of one byte
 * per bit for the bitmaps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))

/* ---- the reference multiset: a sorted array ---- */

struct sorted_keys {
	long *k;
	unsigned long n;
};

static void reference_insert(struct sorted_keys *r, long key)
{
	unsigned long i = r->n;

	while (i && r->k[i - 1] > key) {
		r->k[i] = r->k[i - 1];
		i--;
	}
	r->k[i] = key;
	r->n++;
}

static int reference_erase(struct sorted_keys *r, long key)
{
	for (unsigned long i = 0; i < r->n; i++) {
		if (r->k[i] == key) {
			memmove(&r->k[i], &r->k[i + 1],
				(r->n - i - 1) * sizeof(long));
			r->n--;
			return 0;
		}
	}
	return -ENOENT;
}

static void assert_tree_matches_reference(struct kapi_rbtree *t,
					  const struct sorted_keys *r)
{
	long *got = calloc(r->n + 1, sizeof(long));

	assert_true(kapi_rbtree_validate(t) >= 0);
	assert_int_equal(kapi_rbtree_keys(t, got, r->n + 1), r->n);
	assert_memory_equal(got, r->k, r->n * sizeof(long));
	assert_int_equal(kapi_rbtree_keys_postorder(t, got, r->n + 1), r->n);
	free(got);
}

/* Insertion orders that stress each rebalancing case. */
enum insert_order { ASCENDING, DESCENDING, ZIGZAG, NR_ORDERS };

static long key_for_order(enum insert_order order, unsigned long i,
			  unsigned long n)
{
	switch (order) {
	case ASCENDING:
		return (long)i;
	case DESCENDING:
		return (long)(n - i);
	default:	/* both ends towards the middle */
		return (i & 1) ? (long)(n - i) : (long)i;
	}
}

/* Every insertion order keeps the tree valid and balanced, and erasing all empties it. */
static void test_rbtree_insert_orders_stay_balanced(void **state)
{
	const unsigned long n = 2000;

	for (enum insert_order o = ASCENDING; o < NR_ORDERS; o++) {
		struct kapi_rbtree *t = kapi_rbtree_create();
		struct sorted_keys r = { calloc(n, sizeof(long)), 0 };
		long height;

		for (unsigned long i = 0; i < n; i++) {
			assert_int_equal(kapi_rbtree_insert(t, key_for_order(o, i, n)), 0);
			reference_insert(&r, key_for_order(o, i, n));
		}
		assert_tree_matches_reference(t, &r);
		/* Black height of a red-black tree of n nodes is <= log2(n + 1). */
		height = kapi_rbtree_validate(t);
		assert_true(height >= 1 && height <= 12);

		for (unsigned long i = 0; i < n; i++) {
			long key = key_for_order(o, (i * 7919) % n, n);

			assert_int_equal(kapi_rbtree_erase(t, key), reference_erase(&r, key));
			if (i % 97 == 0)
				assert_tree_matches_reference(t, &r);
		}
		assert_int_equal(kapi_rbtree_keys(t, NULL, 0), 0);
		assert_int_equal(kapi_rbtree_validate(t), 1);
		kapi_rbtree_destroy(t);
		free(r.k);
	}
}

/* Random inserts and erases (with duplicates) agree with the sorted reference after every step. */
static void test_rbtree_random_ops_match_reference(void **state)
{
	static const unsigned long long seeds[] = { 1, 2, 42, 0xdeadbeef };
	const unsigned long ops = 3000;

	for (unsigned s = 0; s < ARRAY_SIZE(seeds); s++) {
		unsigned long long rng = seeds[s];
		struct kapi_rbtree *t = kapi_rbtree_create();
		struct sorted_keys r = { calloc(ops, sizeof(long)), 0 };

		for (unsigned long i = 0; i < ops; i++) {
			long key = (long)(sim_rand_next(&rng) % 256);

			if (sim_rand_next(&rng) % 3) {
				assert_int_equal(kapi_rbtree_insert(t, key), 0);
				reference_insert(&r, key);
			} else {
				assert_int_equal(kapi_rbtree_erase(t, key),
						 reference_erase(&r, key));
			}
			assert_true(kapi_rbtree_validate(t) >= 0);
		}
		assert_tree_matches_reference(t, &r);
		kapi_rbtree_destroy(t);
		free(r.k);
	}
}

/* ---- bitmaps against one byte per bit ---- */

static void reference_to_words(const unsigned char *ref, unsigned nbits,
			       unsigned long *words)
{
	memset(words, 0, ((nbits + BITS_PER_WORD - 1) / BITS_PER_WORD) * sizeof(long));
	for (unsigned i = 0; i < nbits; i++)
		if (ref[i])
			words[i / BITS_PER_WORD] |= 1UL << (i % BITS_PER_WORD);
}

static void assert_bits_equal(const unsigned long *map, const unsigned char *ref,
			      unsigned nbits)
{
	for (unsigned i = 0; i < nbits; i++)
		assert_int_equal((map[i / BITS_PER_WORD] >> (i % BITS_PER_WORD)) & 1, ref[i]);
}

/* Set and clear over every edge case of word boundaries, then weight and search. */
static void test_bitmap_set_clear_match_reference(void **state)
{
	enum { NBITS = 300 };
	unsigned long map[(NBITS + 63) / 64] = { 0 };
	unsigned char ref[NBITS] = { 0 };
	unsigned long long rng = 7;

	for (int step = 0; step < 4000; step++) {
		unsigned start = sim_rand_next(&rng) % NBITS;
		unsigned n = sim_rand_next(&rng) % (NBITS - start + 1);
		int set = sim_rand_next(&rng) & 1;

		if (set)
			kapi_bitmap_set(map, start, n);
		else
			kapi_bitmap_clear(map, start, n);
		memset(ref + start, set, n);
		assert_bits_equal(map, ref, NBITS);
	}

	unsigned weight = 0;

	for (unsigned i = 0; i < NBITS; i++)
		weight += ref[i];
	assert_int_equal(kapi_bitmap_weight(map, NBITS), weight);
	for (unsigned off = 0; off <= NBITS; off++) {
		unsigned next1 = off, next0 = off;

		while (next1 < NBITS && !ref[next1])
			next1++;
		while (next0 < NBITS && ref[next0])
			next0++;
		assert_int_equal(kapi_bitmap_find_next(map, NBITS, off, 0), next1);
		assert_int_equal(kapi_bitmap_find_next(map, NBITS, off, 1), next0);
	}
}

/* Shifts by every amount, in place (as type1 does) and not, lose the bits past nbits and zero-fill. */
static void test_bitmap_shifts_match_reference(void **state)
{
	static const unsigned sizes[] = { 1, 63, 64, 65, 128, 200 };
	unsigned long long rng = 99;

	for (unsigned z = 0; z < ARRAY_SIZE(sizes); z++) {
		unsigned nbits = sizes[z];

		for (unsigned shift = 0; shift <= nbits; shift++) {
			unsigned char ref[256], want[256] = { 0 };
			unsigned long src[4], dst[4], inplace[4];

			for (unsigned i = 0; i < nbits; i++)
				ref[i] = sim_rand_next(&rng) & 1;
			reference_to_words(ref, nbits, src);

			for (unsigned i = 0; i + shift < nbits; i++)
				want[i + shift] = ref[i];
			kapi_bitmap_shift_left(dst, src, shift, nbits);
			assert_bits_equal(dst, want, nbits);
			memcpy(inplace, src, sizeof(src));
			kapi_bitmap_shift_left(inplace, inplace, shift, nbits);
			assert_bits_equal(inplace, want, nbits);

			memset(want, 0, sizeof(want));
			for (unsigned i = shift; i < nbits; i++)
				want[i - shift] = ref[i];
			kapi_bitmap_shift_right(dst, src, shift, nbits);
			assert_bits_equal(dst, want, nbits);
		}
	}
}

/* bitmap_zalloc() zeroes, is counted on the kernel heap, and fails under its fault point. */
static void test_bitmap_zalloc_fault_point(void **state)
{
	unsigned long long before = sim_kmalloc_outstanding();
	unsigned long *map = kapi_bitmap_zalloc(1000);

	assert_non_null(map);
	assert_int_equal(kapi_bitmap_weight(map, 1000), 0);
	assert_int_equal(sim_kmalloc_outstanding(), before + 1);
	kapi_bitmap_free(map);
	assert_int_equal(sim_kmalloc_outstanding(), before);

	fail_every_call_of("shim/bitmap/alloc");
	assert_null(kapi_bitmap_zalloc(64));
	stop_failing("shim/bitmap/alloc");
	assert_int_equal(sim_kmalloc_outstanding(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rbtree_insert_orders_stay_balanced),
		cmocka_unit_test(test_rbtree_random_ops_match_reference),
		cmocka_unit_test(test_bitmap_set_clear_match_reference),
		cmocka_unit_test(test_bitmap_shifts_match_reference),
		cmocka_unit_test(test_bitmap_zalloc_fault_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
