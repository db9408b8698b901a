/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The XArray, as the kernel's <linux/xarray.h>: the subset kernel code here
 * uses (xa_load, xa_store, xa_erase, xa_alloc with XA_LIMIT, xa_empty,
 * xa_destroy, xa_for_each, DEFINE_XARRAY / DEFINE_XARRAY_ALLOC).
 * (a) The kernel's contract: entries by unsigned long index; xa_alloc()
 *     stores at the lowest free index within the limit, returning 0 and the
 *     index, -EBUSY when the limit is full, -ENOMEM when memory is short;
 *     xa_erase() returns the old entry; NULL entries are never stored.
 * Simplified: a sorted array of (index, entry) pairs under a spinlock
 *     (kernel_shim/xarray.c): lookups are a binary search, inserts move the
 *     tail.  That suits the small maps here (heap minors, a few hundred
 *     entries); no marks, no multi-index entries, no RCU.
 * (c) Test double: growth uses kmalloc's fault point.
 */
#ifndef _DMASIM_LINUX_XARRAY_H
#define _DMASIM_LINUX_XARRAY_H

#include <linux/gfp_types.h>
#include <linux/limits.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct xa_pair {
	unsigned long index;
	void *entry;
};

struct xarray {
	spinlock_t xa_lock;
	unsigned int xa_flags;
	unsigned int nr, cap;
	struct xa_pair *pairs;
};

struct xa_limit {
	u32 max;
	u32 min;
};

#define XA_LIMIT(_min, _max)	(struct xa_limit) { .min = _min, .max = _max }
#define xa_limit_32b		XA_LIMIT(0, UINT_MAX)
#define xa_limit_31b		XA_LIMIT(0, INT_MAX)

#define XA_FLAGS_ALLOC		(1U << 0)
#define XA_FLAGS_ALLOC1		(1U << 1)

#define XARRAY_INIT(name, flags)	{ .xa_flags = flags }
#define DEFINE_XARRAY_FLAGS(name, flags) \
	struct xarray name = XARRAY_INIT(name, flags)
#define DEFINE_XARRAY(name)		DEFINE_XARRAY_FLAGS(name, 0)
#define DEFINE_XARRAY_ALLOC(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC)
#define DEFINE_XARRAY_ALLOC1(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC1)

static inline void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	*xa = (struct xarray)XARRAY_INIT(*xa, flags);
}

static inline void xa_init(struct xarray *xa)
{
	xa_init_flags(xa, 0);
}

static inline bool xa_empty(const struct xarray *xa)
{
	return xa->nr == 0;
}

void *xa_load(struct xarray *xa, unsigned long index);
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *xa_erase(struct xarray *xa, unsigned long index);
int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	     gfp_t gfp);
void xa_destroy(struct xarray *xa);
/* The first entry at index >= *index, or NULL; *index is set to its index. */
void *xa_find(struct xarray *xa, unsigned long *index, unsigned long max,
	      unsigned int filter);
void *xa_find_after(struct xarray *xa, unsigned long *index, unsigned long max,
		    unsigned int filter);

#define XA_PRESENT	0U

static inline bool xa_is_err(const void *entry)
{
	return (unsigned long)entry >= (unsigned long)-4095L;
}

static inline int xa_err(void *entry)
{
	return xa_is_err(entry) ? (int)(long)entry : 0;
}

#define xa_for_each(xa, index, entry)					\
	for (index = 0, entry = xa_find(xa, &index, ULONG_MAX, XA_PRESENT); \
	     entry;							\
	     entry = xa_find_after(xa, &index, ULONG_MAX, XA_PRESENT))

#endif
