/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Red-black trees with the kernel's <linux/rbtree.h> API, implemented by
 * kernel_shim/rbtree.c (dmasim's own code, not the kernel's lib/rbtree.c).
 *
 * (a) Definitions that must match the kernel: the node/root types
 *     (rbtree_types.h), the caller-driven insertion protocol (walk down,
 *     rb_link_node() at the empty link, then rb_insert_color()), rb_erase(),
 *     in-order and post-order iteration, rb_replace_node(), the cached-root
 *     variants, RB_EMPTY_ROOT/RB_EMPTY_NODE/RB_CLEAR_NODE and the rb_add()/
 *     rb_find() helpers with the kernel's comparator conventions.
 * Simplified: no augmented trees (rb_augment callbacks) and no RCU-safe
 * variants; lookups are plain (the callers hold their own locks).
 * No stubs and no test doubles.  kapi_rbtree_check() (kapi_vfio.h) drives
 * random insert/erase sequences and verifies every red-black invariant.
 */
#ifndef _DMASIM_LINUX_RBTREE_H
#define _DMASIM_LINUX_RBTREE_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/rbtree_types.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define rb_parent(r)	((struct rb_node *)((r)->__rb_parent_color & ~3UL))

#define rb_entry(ptr, type, member) container_of(ptr, type, member)

#define rb_entry_safe(ptr, type, member)			\
	({ typeof(ptr) ____ptr = (ptr);				\
	   ____ptr ? rb_entry(____ptr, type, member) : NULL;	\
	})

#define RB_EMPTY_ROOT(root)	(READ_ONCE((root)->rb_node) == NULL)

/* A node that is not in any tree points at itself. */
#define RB_EMPTY_NODE(node)	\
	((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node)	\
	((node)->__rb_parent_color = (unsigned long)(node))

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);

struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);

struct rb_node *rb_first_postorder(const struct rb_root *root);
struct rb_node *rb_next_postorder(const struct rb_node *node);

void rb_replace_node(struct rb_node *victim, struct rb_node *new,
		     struct rb_root *root);

/* Hang a new (red) node at *link below parent; rb_insert_color() next. */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link)
{
	node->__rb_parent_color = (unsigned long)parent;
	node->rb_left = NULL;
	node->rb_right = NULL;
	*link = node;
}

#define rbtree_postorder_for_each_entry_safe(pos, n, root, field)	\
	for (pos = rb_entry_safe(rb_first_postorder(root), typeof(*pos), field); \
	     pos && ({ n = rb_entry_safe(rb_next_postorder(&pos->field), \
			typeof(*pos), field); 1; });			\
	     pos = n)

/*
 * Cached roots: rb_leftmost follows the leftmost node, maintained from the
 * callers' "went only left" hint on insert and by rb_erase_cached().
 */
#define rb_first_cached(root) ((root)->rb_leftmost)

static inline void rb_insert_color_cached(struct rb_node *node,
					  struct rb_root_cached *root,
					  bool leftmost)
{
	rb_insert_color(node, &root->rb_root);
	if (leftmost)
		root->rb_leftmost = node;
}

/* Returns the new leftmost node if node was it, else NULL. */
static inline struct rb_node *rb_erase_cached(struct rb_node *node,
					      struct rb_root_cached *root)
{
	struct rb_node *next_left = NULL;

	if (node == root->rb_leftmost) {
		next_left = rb_next(node);
		root->rb_leftmost = next_left;
	}
	rb_erase(node, &root->rb_root);
	return next_left;
}

/*
 * The empty link where node belongs by less() below *link (equal keys go
 * after existing ones); *went_left tells whether the walk never turned
 * right.
 */
static __always_inline struct rb_node **
__rb_add_find_link(struct rb_node *node, struct rb_node **link,
		   struct rb_node **parent, bool *went_left,
		   bool (*less)(struct rb_node *, const struct rb_node *))
{
	*parent = NULL;
	*went_left = true;
	for (; *link; link = less(node, *parent) ? &(*parent)->rb_left :
						   &(*parent)->rb_right) {
		*parent = *link;
		if (!less(node, *parent))
			*went_left = false;
	}
	return link;
}

/* rb_add(): insert node in the order less() defines. */
static __always_inline void
rb_add(struct rb_node *node, struct rb_root *tree,
       bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node *parent, **link;
	bool went_left;

	link = __rb_add_find_link(node, &tree->rb_node, &parent, &went_left,
				  less);
	rb_link_node(node, parent, link);
	rb_insert_color(node, tree);
}

/* rb_add_cached(): as rb_add(); returns node if it is the new leftmost. */
static __always_inline struct rb_node *
rb_add_cached(struct rb_node *node, struct rb_root_cached *tree,
	      bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node *parent, **link;
	bool went_left;

	link = __rb_add_find_link(node, &tree->rb_root.rb_node, &parent,
				  &went_left, less);
	rb_link_node(node, parent, link);
	rb_insert_color_cached(node, tree, went_left);
	return went_left ? node : NULL;
}

/*
 * rb_find(): cmp(key, node) < 0 when key sorts before node; a node that
 * compares equal, or NULL.
 */
static __always_inline struct rb_node *
rb_find(const void *key, const struct rb_root *tree,
	int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *n = tree->rb_node;
	int c;

	while (n && (c = cmp(key, n)))
		n = c < 0 ? n->rb_left : n->rb_right;
	return n;
}

/* rb_find_first(): the leftmost node comparing equal to key, or NULL. */
static __always_inline struct rb_node *
rb_find_first(const void *key, const struct rb_root *tree,
	      int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *n = tree->rb_node, *found = NULL;

	while (n) {
		int c = cmp(key, n);

		if (!c)
			found = n;
		n = c > 0 ? n->rb_right : n->rb_left;
	}
	return found;
}

#endif
