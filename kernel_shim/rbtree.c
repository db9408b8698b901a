// SPDX-License-Identifier: GPL-2.0-only
/*
 * Red-black tree rebalancing for <linux/rbtree.h>: dmasim's own
 * implementation of the textbook algorithm (insert fix-up by recolouring and
 * at most two rotations; delete by splicing out the node or its in-order
 * successor, then a "double black" fix-up), written against the kernel's
 * node layout: parent pointer and colour in one word, colour in bit 0
 * (0 red, 1 black), NULL children black.  rb_erase() also checks, as a
 * test double, that the tree it is given is red-black where it looks
 * first (a WARN: an rb_insert_color() the caller left out).
 */
#include <linux/bug.h>
#include <linux/rbtree.h>

#define RB_RED		0UL
#define RB_BLACK	1UL

static inline unsigned long rb_colour(const struct rb_node *n)
{
	return n->__rb_parent_color & 1;
}

static inline bool rb_is_black(const struct rb_node *n)
{
	return !n || rb_colour(n) == RB_BLACK;
}

static inline bool rb_is_red(const struct rb_node *n)
{
	return !rb_is_black(n);
}

static inline void rb_paint(struct rb_node *n, unsigned long colour)
{
	n->__rb_parent_color = (n->__rb_parent_color & ~1UL) | colour;
}

static inline void rb_reparent(struct rb_node *n, struct rb_node *parent)
{
	n->__rb_parent_color = (unsigned long)parent | rb_colour(n);
}

/* Make whatever pointed at old (its parent's link or the root) point at new. */
static void rb_relink_parent(struct rb_node *old, struct rb_node *new,
			     struct rb_node *parent, struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
}

/*
 *      x                y
 *     / \              / \
 *    a   y     ->     x   c
 *       / \          / \
 *      b   c        a   b
 */
static void rb_rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->rb_right, *parent = rb_parent(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		rb_reparent(y->rb_left, x);
	rb_reparent(y, parent);
	rb_relink_parent(x, y, parent, root);
	y->rb_left = x;
	rb_reparent(x, y);
}

/* The mirror image of rb_rotate_left(). */
static void rb_rotate_right(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->rb_left, *parent = rb_parent(x);

	x->rb_left = y->rb_right;
	if (y->rb_right)
		rb_reparent(y->rb_right, x);
	rb_reparent(y, parent);
	rb_relink_parent(x, y, parent, root);
	y->rb_right = x;
	rb_reparent(x, y);
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent, *grand, *uncle;

	/* node is red (rb_link_node leaves colour bit 0). */
	while ((parent = rb_parent(node)) && rb_is_red(parent)) {
		/* A red parent is never the root, so grand exists. */
		grand = rb_parent(parent);
		if (parent == grand->rb_left) {
			uncle = grand->rb_right;
			if (rb_is_red(uncle)) {
				rb_paint(parent, RB_BLACK);
				rb_paint(uncle, RB_BLACK);
				rb_paint(grand, RB_RED);
				node = grand;
				continue;
			}
			if (node == parent->rb_right) {
				rb_rotate_left(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			rb_paint(parent, RB_BLACK);
			rb_paint(grand, RB_RED);
			rb_rotate_right(grand, root);
		} else {
			uncle = grand->rb_left;
			if (rb_is_red(uncle)) {
				rb_paint(parent, RB_BLACK);
				rb_paint(uncle, RB_BLACK);
				rb_paint(grand, RB_RED);
				node = grand;
				continue;
			}
			if (node == parent->rb_left) {
				rb_rotate_right(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			rb_paint(parent, RB_BLACK);
			rb_paint(grand, RB_RED);
			rb_rotate_left(grand, root);
		}
	}
	rb_paint(root->rb_node, RB_BLACK);
}

/*
 * Restore the black height after a black node was removed above x (which
 * may be NULL, hence the separate parent).
 */
static void rb_erase_fixup(struct rb_node *x, struct rb_node *parent,
			   struct rb_root *root)
{
	struct rb_node *sib;

	while (x != root->rb_node && rb_is_black(x)) {
		if (x == parent->rb_left) {
			sib = parent->rb_right;
			if (rb_is_red(sib)) {
				rb_paint(sib, RB_BLACK);
				rb_paint(parent, RB_RED);
				rb_rotate_left(parent, root);
				sib = parent->rb_right;
			}
			if (rb_is_black(sib->rb_left) &&
			    rb_is_black(sib->rb_right)) {
				rb_paint(sib, RB_RED);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (rb_is_black(sib->rb_right)) {
				rb_paint(sib->rb_left, RB_BLACK);
				rb_paint(sib, RB_RED);
				rb_rotate_right(sib, root);
				sib = parent->rb_right;
			}
			rb_paint(sib, rb_colour(parent));
			rb_paint(parent, RB_BLACK);
			rb_paint(sib->rb_right, RB_BLACK);
			rb_rotate_left(parent, root);
		} else {
			sib = parent->rb_left;
			if (rb_is_red(sib)) {
				rb_paint(sib, RB_BLACK);
				rb_paint(parent, RB_RED);
				rb_rotate_right(parent, root);
				sib = parent->rb_left;
			}
			if (rb_is_black(sib->rb_left) &&
			    rb_is_black(sib->rb_right)) {
				rb_paint(sib, RB_RED);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (rb_is_black(sib->rb_left)) {
				rb_paint(sib->rb_right, RB_BLACK);
				rb_paint(sib, RB_RED);
				rb_rotate_left(sib, root);
				sib = parent->rb_left;
			}
			rb_paint(sib, rb_colour(parent));
			rb_paint(parent, RB_BLACK);
			rb_paint(sib->rb_left, RB_BLACK);
			rb_rotate_right(parent, root);
		}
		x = root->rb_node;
		break;
	}
	if (x)
		rb_paint(x, RB_BLACK);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *child, *parent, *succ;
	unsigned long removed_colour;

	/*
	 * Test double (an oracle, O(1)): the tree handed in is red-black
	 * where erase looks first.  A node linked with rb_link_node() and
	 * never given to rb_insert_color() is red and so is every node
	 * linked after it: the root is red, or the node and its parent are.
	 * The tree still orders and finds its nodes (lookups cannot tell),
	 * so this is where a missing rb_insert_color() shows.
	 */
	WARN(rb_is_red(root->rb_node) ||
	     (rb_is_red(node) && rb_is_red(rb_parent(node))),
	     "rb_erase() of a tree that is not red-black (a node inserted without rb_insert_color()?)");

	if (!node->rb_left || !node->rb_right) {
		/* At most one child: it takes node's place. */
		child = node->rb_left ? node->rb_left : node->rb_right;
		parent = rb_parent(node);
		removed_colour = rb_colour(node);
		rb_relink_parent(node, child, parent, root);
		if (child)
			rb_reparent(child, parent);
	} else {
		/*
		 * Two children: the in-order successor (leftmost of the right
		 * subtree, which has no left child) is spliced out of its
		 * place and takes node's place and colour.
		 */
		succ = node->rb_right;
		while (succ->rb_left)
			succ = succ->rb_left;
		removed_colour = rb_colour(succ);
		child = succ->rb_right;
		if (rb_parent(succ) == node) {
			parent = succ;
		} else {
			parent = rb_parent(succ);
			parent->rb_left = child;
			if (child)
				rb_reparent(child, parent);
			succ->rb_right = node->rb_right;
			rb_reparent(node->rb_right, succ);
		}
		rb_relink_parent(node, succ, rb_parent(node), root);
		succ->__rb_parent_color = node->__rb_parent_color;
		succ->rb_left = node->rb_left;
		rb_reparent(node->rb_left, succ);
	}
	if (removed_colour == RB_BLACK)
		rb_erase_fixup(child, parent, root);
}

static struct rb_node *rb_leftmost_below(struct rb_node *n)
{
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_first(const struct rb_root *root)
{
	return root->rb_node ? rb_leftmost_below(root->rb_node) : NULL;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n;

	for (n = root->rb_node; n && n->rb_right; n = n->rb_right)
		;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_right)
		return rb_leftmost_below(node->rb_right);
	/* Climb until we come up from a left subtree. */
	while ((parent = rb_parent(node)) && node == parent->rb_right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent, *n;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_left) {
		n = node->rb_left;
		while (n->rb_right)
			n = n->rb_right;
		return n;
	}
	while ((parent = rb_parent(node)) && node == parent->rb_left)
		node = parent;
	return parent;
}

/* The deepest leftmost leaf below n: the first node in post-order. */
static struct rb_node *rb_first_leaf_below(const struct rb_node *n)
{
	for (;;) {
		if (n->rb_left)
			n = n->rb_left;
		else if (n->rb_right)
			n = n->rb_right;
		else
			return (struct rb_node *)n;
	}
}

struct rb_node *rb_first_postorder(const struct rb_root *root)
{
	return root->rb_node ? rb_first_leaf_below(root->rb_node) : NULL;
}

struct rb_node *rb_next_postorder(const struct rb_node *node)
{
	struct rb_node *parent;

	if (!node)
		return NULL;
	parent = rb_parent(node);
	if (parent && node == parent->rb_left && parent->rb_right)
		return rb_first_leaf_below(parent->rb_right);
	return parent;
}

void rb_replace_node(struct rb_node *victim, struct rb_node *new,
		     struct rb_root *root)
{
	struct rb_node *parent = rb_parent(victim);

	*new = *victim;
	if (victim->rb_left)
		rb_reparent(victim->rb_left, new);
	if (victim->rb_right)
		rb_reparent(victim->rb_right, new);
	rb_relink_parent(victim, new, parent, root);
}
