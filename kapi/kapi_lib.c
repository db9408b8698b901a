// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C wrappers over the red-black tree and bitmap shims (declared in
 * <dmasim/kapi_vfio.h>), so their tests can drive them and check the
 * invariants that only a kernel translation unit can see.
 */
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include <dmasim/kapi_vfio.h>

/* ---- red-black tree ---- */

struct kapi_rbtree {
	struct rb_root root;
};

struct kapi_rb_item {
	struct rb_node node;
	long key;
};

struct kapi_rbtree *kapi_rbtree_create(void)
{
	struct kapi_rbtree *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (t)
		t->root = RB_ROOT;
	return t;
}

static bool kapi_rb_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct kapi_rb_item, node)->key <
	       rb_entry(b, struct kapi_rb_item, node)->key;
}

int kapi_rbtree_insert(struct kapi_rbtree *t, long key)
{
	struct kapi_rb_item *item = kzalloc(sizeof(*item), GFP_KERNEL);

	if (!item)
		return -ENOMEM;
	item->key = key;
	rb_add(&item->node, &t->root, kapi_rb_less);
	return 0;
}

static int kapi_rb_cmp(const void *key, const struct rb_node *n)
{
	long k = *(const long *)key;
	long nk = rb_entry(n, struct kapi_rb_item, node)->key;

	return k < nk ? -1 : k > nk;
}

int kapi_rbtree_erase(struct kapi_rbtree *t, long key)
{
	struct rb_node *n = rb_find(&key, &t->root, kapi_rb_cmp);

	if (!n)
		return -ENOENT;
	rb_erase(n, &t->root);
	kfree(rb_entry(n, struct kapi_rb_item, node));
	return 0;
}

/* Black height of the subtree at n, or a negative code. */
static long kapi_rb_check(const struct rb_node *n, const struct rb_node *parent)
{
	long left, right;
	bool black;

	if (!n)
		return 1;
	if (rb_parent(n) != parent)
		return -2;			/* parent link wrong */
	black = n->__rb_parent_color & 1;
	if (!black && ((n->rb_left && !(n->rb_left->__rb_parent_color & 1)) ||
		       (n->rb_right && !(n->rb_right->__rb_parent_color & 1))))
		return -3;			/* red node with a red child */
	if (n->rb_left && kapi_rb_less((struct rb_node *)n, n->rb_left))
		return -4;			/* left child sorts after */
	if (n->rb_right && kapi_rb_less(n->rb_right, n))
		return -4;			/* right child sorts before */
	left = kapi_rb_check(n->rb_left, n);
	if (left < 0)
		return left;
	right = kapi_rb_check(n->rb_right, n);
	if (right < 0)
		return right;
	if (left != right)
		return -5;			/* black heights differ */
	return left + black;
}

long kapi_rbtree_validate(const struct kapi_rbtree *t)
{
	const struct rb_node *root = t->root.rb_node, *n, *prev = NULL;
	long height;

	if (root && !(root->__rb_parent_color & 1))
		return -1;			/* red root */
	height = kapi_rb_check(root, NULL);
	if (height < 0)
		return height;
	/* In-order walk: sorted, and rb_prev undoes rb_next. */
	for (n = rb_first(&t->root); n; prev = n, n = rb_next(n)) {
		if (prev && kapi_rb_less((struct rb_node *)n, prev))
			return -6;
		if (rb_prev(n) != prev)
			return -7;
	}
	if (rb_last(&t->root) != prev)
		return -8;
	return height;
}

unsigned long kapi_rbtree_keys(const struct kapi_rbtree *t, long *keys,
			       unsigned long max)
{
	struct rb_node *n;
	unsigned long i = 0;

	for (n = rb_first(&t->root); n; n = rb_next(n), i++)
		if (i < max)
			keys[i] = rb_entry(n, struct kapi_rb_item, node)->key;
	return i;
}

unsigned long kapi_rbtree_keys_postorder(const struct kapi_rbtree *t,
					 long *keys, unsigned long max)
{
	struct kapi_rb_item *pos, *tmp;
	unsigned long i = 0;

	rbtree_postorder_for_each_entry_safe(pos, tmp, &t->root, node) {
		if (i < max)
			keys[i] = pos->key;
		i++;
	}
	return i;
}

void kapi_rbtree_destroy(struct kapi_rbtree *t)
{
	struct kapi_rb_item *pos, *tmp;

	rbtree_postorder_for_each_entry_safe(pos, tmp, &t->root, node)
		kfree(pos);
	kfree(t);
}

/* ---- bitmaps ---- */

void kapi_bitmap_set(unsigned long *map, unsigned int start, unsigned int n)
{
	bitmap_set(map, start, n);
}

void kapi_bitmap_clear(unsigned long *map, unsigned int start, unsigned int n)
{
	bitmap_clear(map, start, n);
}

void kapi_bitmap_shift_left(unsigned long *dst, const unsigned long *src,
			    unsigned int shift, unsigned int nbits)
{
	bitmap_shift_left(dst, src, shift, nbits);
}

void kapi_bitmap_shift_right(unsigned long *dst, const unsigned long *src,
			     unsigned int shift, unsigned int nbits)
{
	bitmap_shift_right(dst, src, shift, nbits);
}

unsigned int kapi_bitmap_weight(const unsigned long *map, unsigned int nbits)
{
	return bitmap_weight(map, nbits);
}

unsigned long kapi_bitmap_find_next(const unsigned long *map,
				    unsigned long size, unsigned long offset,
				    int zero)
{
	return zero ? find_next_zero_bit(map, size, offset) :
		      find_next_bit(map, size, offset);
}

unsigned long *kapi_bitmap_zalloc(unsigned int nbits)
{
	return bitmap_zalloc(nbits, GFP_KERNEL);
}

void kapi_bitmap_free(unsigned long *map)
{
	bitmap_free(map);
}
