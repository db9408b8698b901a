/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Red-black tree node and root types, as the kernel's <linux/rbtree_types.h>.
 * (a) Definitions that must match the kernel: struct rb_node (the parent
 * pointer and the node's colour share one word, colour in bit 0, so nodes
 * are at least long-aligned), struct rb_root, struct rb_root_cached and
 * their initialisers.  No stubs, no test doubles.
 */
#ifndef _DMASIM_LINUX_RBTREE_TYPES_H
#define _DMASIM_LINUX_RBTREE_TYPES_H

struct rb_node {
	unsigned long	__rb_parent_color;
	struct rb_node	*rb_right;
	struct rb_node	*rb_left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node	*rb_node;
};

/* A root that also remembers its leftmost node. */
struct rb_root_cached {
	struct rb_root	rb_root;
	struct rb_node	*rb_leftmost;
};

#define RB_ROOT		(struct rb_root) { NULL, }
#define RB_ROOT_CACHED	(struct rb_root_cached) { { NULL, }, NULL }

#endif
