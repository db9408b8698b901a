/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reference counts, as the kernel's <linux/refcount.h>, for the counts
 * the code under test reads and drops (a vfio_device's registration).
 *
 * (a) Definitions that must match the kernel: refcount_t and the
 *     contracts of refcount_set(), refcount_read(), refcount_inc_not_zero()
 *     (no increment from 0: the object is going), refcount_dec_and_test()
 *     (true for the put that reaches 0).
 * Simplified: an atomic_t underneath; no saturation at REFCOUNT_SATURATED,
 *     a put from 0 is a WARN and leaves the count at 0.
 * (b) Stubs: none.  (c) Test doubles: none.
 */
#ifndef _DMASIM_LINUX_REFCOUNT_H
#define _DMASIM_LINUX_REFCOUNT_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/types.h>

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	return atomic_inc_not_zero(&r->refs);
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	int old = atomic_read(&r->refs);

	do {
		if (WARN_ON(!old))
			return false;
	} while (!__atomic_compare_exchange_n(&r->refs.counter, &old, old - 1,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return old == 1;
}

#endif
