/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reference counts of kernel objects, as the kernel's <linux/kref.h>.
 * (a) Definitions that must match the kernel: struct kref and the
 *     contracts of kref_init() (one reference), kref_get() and kref_put()
 *     (release(kref) runs when the last reference goes; returns 1 then,
 *     else 0).
 * Simplified: the count is an atomic_t, not a refcount_t, so a put below
 *     zero is not saturated; it WARNs instead.
 * No stubs and no test doubles.
 */
#ifndef _DMASIM_LINUX_KREF_H
#define _DMASIM_LINUX_KREF_H

#include <linux/atomic.h>
#include <linux/bug.h>

struct kref {
	atomic_t refcount;
};

#define KREF_INIT(n)	{ .refcount = ATOMIC_INIT(n), }

static inline void kref_init(struct kref *kref)
{
	atomic_set(&kref->refcount, 1);
}

static inline unsigned int kref_read(const struct kref *kref)
{
	return atomic_read(&kref->refcount);
}

static inline void kref_get(struct kref *kref)
{
	WARN_ON(atomic_inc_return(&kref->refcount) < 2);
}

static inline int kref_put(struct kref *kref,
			   void (*release)(struct kref *kref))
{
	int left = atomic_dec_return(&kref->refcount);

	if (WARN_ON(left < 0))
		return 0;
	if (left)
		return 0;
	release(kref);
	return 1;
}

#endif
