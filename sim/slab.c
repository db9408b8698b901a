// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backing of the kernel's kmalloc/vmalloc: libc malloc plus a count of the
 * objects outstanding, which every scenario checks returns to its start.
 * Failure injection is the shim's job (it asks its fault point first).
 * The outstanding count is an invariant tests check, and threads allocate
 * and free concurrently (tests/test_concurrency.c): it is updated
 * atomically.  kmalloc is not on a per-page hot path.
 *
 * Red zones, as SLUB's slub_debug=Z: every object is followed by
 * SIM_SLAB_REDZONE bytes of SLUB's active red-zone byte (0xcc), checked
 * when the object is freed or reallocated.  A write past the end of an
 * object that stays within the red zone therefore does not corrupt the
 * host's heap: it is reported as the kernel reports it, a WARN ("right
 * redzone overwritten", counted by sim_kernel_warnings() and so failing
 * every scenario's leak check) and sim_slab_redzone_hits().  A larger
 * overrun still reaches libc's heap (and ASan, in sanitizer builds).  The
 * object's size is kept in a header in front of it.
 */
#include <stdlib.h>
#include <string.h>

#include <dmasim/sim.h>

#define SLAB_HEADER	16	/* keeps objects 16-byte aligned, as malloc's */
#define SLAB_RED_ACTIVE	0xcc

static unsigned long long redzone_hits;

static inline unsigned char *object_base(const void *p)
{
	return (unsigned char *)p - SLAB_HEADER;
}

static inline unsigned long object_size(const void *p)
{
	unsigned long size;

	memcpy(&size, object_base(p), sizeof(size));
	return size;
}

static void *object_init(unsigned char *base, unsigned long size)
{
	memcpy(base, &size, sizeof(size));
	memset(base + SLAB_HEADER + size, SLAB_RED_ACTIVE, SIM_SLAB_REDZONE);
	return base + SLAB_HEADER;
}

/*
 * Report a red zone written over, once per object, and repaint it.  Intact:
 * its first byte is the red-zone byte and each next one equals the one
 * before (one memcmp of the zone against itself, not a loop of checked
 * byte loads: this runs for every kfree).
 */
static void check_redzone(const void *p)
{
	unsigned long size = object_size(p);
	unsigned char *rz = (unsigned char *)p + size;

	if (rz[0] != SLAB_RED_ACTIVE ||
	    memcmp(rz, rz + 1, SIM_SLAB_REDZONE - 1)) {
		__atomic_fetch_add(&redzone_hits, 1, __ATOMIC_RELAXED);
		sim_kernel_warn(__FILE__, __LINE__,
				"slab: right redzone overwritten");
		memset(rz, SLAB_RED_ACTIVE, SIM_SLAB_REDZONE);
	}
}

unsigned long long sim_slab_redzone_hits(void)
{
	return __atomic_load_n(&redzone_hits, __ATOMIC_RELAXED);
}

static unsigned long long outstanding;

void *sim_kmalloc(unsigned long size, int zero)
{
	/* The kernel's kmalloc(0) returns ZERO_SIZE_PTR; callers here never ask. */
	unsigned long total = SLAB_HEADER + size + SIM_SLAB_REDZONE;
	unsigned char *base = zero ? calloc(1, total) : malloc(total);

	if (!base)
		return NULL;
	__atomic_fetch_add(&outstanding, 1, __ATOMIC_RELAXED);
	sim_count(SIM_CNT_KMALLOC, 1);
	return object_init(base, size);
}

void *sim_krealloc(void *p, unsigned long size)
{
	unsigned char *base;

	if (!p)
		return sim_kmalloc(size, 0);
	check_redzone(p);
	base = realloc(object_base(p), SLAB_HEADER + size + SIM_SLAB_REDZONE);
	return base ? object_init(base, size) : NULL;
}

void sim_kfree(const void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&outstanding, 1, __ATOMIC_RELAXED);
	sim_count(SIM_CNT_KFREE, 1);
	check_redzone(p);
	free(object_base(p));
}

unsigned long long sim_kmalloc_outstanding(void)
{
	return __atomic_load_n(&outstanding, __ATOMIC_RELAXED);
}
