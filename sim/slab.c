// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backing of the kernel's kmalloc/vmalloc: libc malloc plus a count of the
 * objects outstanding, which every scenario checks returns to its start.
 * Failure injection is the shim's job (it asks its fault point first).
 * The outstanding count is an invariant tests check, and threads allocate
 * and free concurrently (tests/test_concurrency.c): it is updated
 * atomically.  kmalloc is not on a per-page hot path.
 */
#include <stdlib.h>

#include <dmasim/sim.h>

static unsigned long long outstanding;

void *sim_kmalloc(unsigned long size, int zero)
{
	/* The kernel's kmalloc(0) returns ZERO_SIZE_PTR; callers here never ask. */
	void *p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);

	if (p) {
		__atomic_fetch_add(&outstanding, 1, __ATOMIC_RELAXED);
		sim_count(SIM_CNT_KMALLOC, 1);
	}
	return p;
}

void *sim_krealloc(void *p, unsigned long size)
{
	void *q;

	if (!p)
		return sim_kmalloc(size, 0);
	q = realloc(p, size ? size : 1);
	return q;
}

void sim_kfree(const void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&outstanding, 1, __ATOMIC_RELAXED);
	sim_count(SIM_CNT_KFREE, 1);
	free((void *)p);
}

unsigned long long sim_kmalloc_outstanding(void)
{
	return __atomic_load_n(&outstanding, __ATOMIC_RELAXED);
}
