// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backing of the kernel's kmalloc/vmalloc: a count of the objects
 * outstanding, which every scenario checks returns to its start, over
 * libc malloc (or, under AddressSanitizer, slab caches of its own, below).
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
 * overrun reaches the host's heap (and ASan's red zones, in sanitizer
 * builds).  The object's size is kept in a header in front of it.
 *
 * Under ASan (fuzzing builds, the asan+ubsan variant), objects come from
 * size-class caches as KASAN's generic mode guards SLUB's: slots carved
 * from large chunks, each object's header and the slot's tail past the
 * SLUB red zone poisoned for ASan (__asan_poison_memory_region) for as
 * long as the slot lives, the object and its red zone poisoned while it
 * is free, and freed slots held in a FIFO quarantine (SLAB_QUARANTINE
 * bytes) before they are used again.  So a kernel object's overrun past
 * its red zone, an underrun into its header, or a use after free within
 * the last SLAB_QUARANTINE bytes freed is reported by ASan at the access
 * ("use-after-poison", with the access's stack), as a malloc'd object's
 * was; fuzz/slab_asan_check.c shows each case.  What it saves is ASan's
 * own allocator on every kmalloc and kfree (a stack trace recorded at
 * both, its quarantine's recycling): a fifth of a fuzz_type1 run.
 * Objects larger than the biggest class still come from malloc.
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

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_CACHES 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_CACHES 1
#endif

#ifdef SLAB_CACHES
#include <pthread.h>
#include <sanitizer/asan_interface.h>
/* The allocator's own reads of poisoned headers and free slots. */
#define slab_unchecked __attribute__((no_sanitize("address")))
#else
#define slab_unchecked
#endif

slab_unchecked static inline unsigned long object_size(const void *p)
{
	unsigned long size;

	memcpy(&size, object_base(p), sizeof(size));
	return size;
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

static void *object_alloc(unsigned long size, int zero);
static void object_free(const void *p);

/* p's bytes (up to the smaller size) in a new object of size bytes; p freed. */
slab_unchecked static void *object_move(void *p, unsigned long size)
{
	unsigned long old = object_size(p);
	void *q = object_alloc(size, 0);

	if (!q)
		return NULL;
	memcpy(q, p, old < size ? old : size);
	object_free(p);
	return q;
}

#ifdef SLAB_CACHES
/*
 * A slot: the header (the object's size, its class; poisoned), the object
 * and its SLUB red zone (addressable while allocated), and the rest of the
 * class's span plus SLAB_TAIL bytes (poisoned).  Classes span 64, 96, 128,
 * 192, ... bytes (powers of two and the halves between them) of object
 * and SLUB red zone, up to SLAB_MAX_SPAN.
 */
#define SLAB_TAIL	32
#define SLAB_MAX_SPAN	(32768 + SIM_SLAB_REDZONE)
#define SLAB_NR_CLASSES	40
#define SLAB_NO_CLASS	0xffffffffu
#define SLAB_CHUNK	(256UL << 10)
/*
 * The quarantine: ASan's default size (256 MiB) until a fuzzing harness
 * says where its inputs begin (sim_slab_quarantine_input()); from then on
 * everything the current input freed, and at least the floor it gave of
 * what inputs before it freed.
 */
#define SLAB_QUARANTINE	(256UL << 20)

struct slab_header {
	unsigned long size;
	unsigned int class;
	unsigned int magic;
};
#define SLAB_MAGIC	0x51ab0b1e

/*
 * Free slots are never written to while free (they stay poisoned, long
 * unread): a class's free list is a stack of their addresses, the
 * quarantine a ring of them, both grown on demand.  (Links through the
 * slots themselves made every kfree miss the cache on the oldest
 * quarantined slot.)
 */
struct slot_stack {
	unsigned char **slot;
	unsigned long nr, cap;
};

struct quarantined {
	unsigned char *base;
	unsigned long class;
};

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot_stack free_slots[SLAB_NR_CLASSES];
/* The quarantine: q_nr slots, the oldest at q_head, in a ring of q_cap. */
static struct quarantined *q_ring;
static unsigned long q_head, q_nr, q_cap;
static unsigned long quarantine_bytes;
/* Bytes freed since the input began (per_input), the floor before it. */
static unsigned long input_bytes, quarantine_floor = SLAB_QUARANTINE;
static int per_input;
/* The chunk being carved, and the chunks so far (LSan sees them reached). */
static unsigned char *carve_next, *carve_end;
static void **chunks;

/* The class of an object of `size` bytes: its span rounded up. */
static unsigned int span_class(unsigned long span, unsigned long *class_span)
{
	unsigned int k = 6;

	while ((1UL << k) < span)
		k++;
	/* 2^k >= span > 2^(k-1): the half-way class 3 * 2^(k-2) if it fits */
	if (k > 6 && span <= 3UL << (k - 2)) {
		*class_span = 3UL << (k - 2);
		return 2 * (k - 6) - 1;
	}
	*class_span = 1UL << k;
	return 2 * (k - 6);
}

static unsigned long class_slot(unsigned int class)
{
	unsigned long span = class & 1 ? 3UL << ((class + 1) / 2 + 6 - 2) :
			     1UL << (class / 2 + 6);

	return SLAB_HEADER + span + SLAB_TAIL;
}

/* Without memory to grow a list, a slot stays poisoned and unused. */
static void stack_push(struct slot_stack *st, unsigned char *base)
{
	if (st->nr == st->cap) {
		unsigned long cap = st->cap ? 2 * st->cap : 64;
		unsigned char **slot = realloc(st->slot, cap * sizeof(*slot));

		if (!slot)
			return;
		st->slot = slot;
		st->cap = cap;
	}
	st->slot[st->nr++] = base;
}

static int ring_push(unsigned char *base, unsigned int class)
{
	if (q_nr == q_cap) {
		unsigned long cap = q_cap ? 2 * q_cap : 1024, i;
		struct quarantined *ring = malloc(cap * sizeof(*ring));

		if (!ring)
			return -1;
		for (i = 0; i < q_nr; i++)
			ring[i] = q_ring[(q_head + i) & (q_cap - 1)];
		free(q_ring);
		q_ring = ring;
		q_head = 0;
		q_cap = cap;
	}
	q_ring[(q_head + q_nr++) & (q_cap - 1)] =
		(struct quarantined){ base, class };
	return 0;
}

/* A slot of `class` from its free list or the chunk being carved. */
static unsigned char *slot_get(unsigned int class)
{
	unsigned long slot = class_slot(class);
	struct slot_stack *st = &free_slots[class];
	unsigned char *base;

	if (st->nr)
		return st->slot[--st->nr];
	if ((unsigned long)(carve_end - carve_next) < slot) {
		/* What is left of the old chunk stays poisoned, unused. */
		void **chunk = malloc(SLAB_CHUNK);

		if (!chunk)
			return NULL;
		*chunk = chunks;
		chunks = chunk;
		carve_next = (unsigned char *)chunk + SLAB_HEADER;
		carve_end = (unsigned char *)chunk + SLAB_CHUNK;
		__asan_poison_memory_region(carve_next,
					    carve_end - carve_next);
	}
	base = carve_next;
	carve_next += slot;
	return base;
}

/* Free slots past the quarantine's bytes go back to their class. */
static void quarantine_put(unsigned char *base, unsigned int class)
{
	if (ring_push(base, class))
		return;
	quarantine_bytes += class_slot(class);
	if (per_input)
		input_bytes += class_slot(class);
	/* The oldest first, never one the current input freed. */
	while (quarantine_bytes > input_bytes &&
	       quarantine_bytes > quarantine_floor) {
		struct quarantined old = q_ring[q_head];

		q_head = (q_head + 1) & (q_cap - 1);
		q_nr--;
		quarantine_bytes -= class_slot(old.class);
		stack_push(&free_slots[old.class], old.base);
	}
}

void sim_slab_quarantine_input(unsigned long floor)
{
	pthread_mutex_lock(&slab_lock);
	per_input = 1;
	input_bytes = 0;
	quarantine_floor = floor;
	pthread_mutex_unlock(&slab_lock);
}

slab_unchecked static void *object_alloc(unsigned long size, int zero)
{
	unsigned long span = size + SIM_SLAB_REDZONE, class_span;
	struct slab_header *h;
	unsigned char *base;
	unsigned int class;

	if (span > SLAB_MAX_SPAN) {
		base = zero ? calloc(1, SLAB_HEADER + span) :
			      malloc(SLAB_HEADER + span);
		class = SLAB_NO_CLASS;
	} else {
		class = span_class(span, &class_span);
		pthread_mutex_lock(&slab_lock);
		base = slot_get(class);
		pthread_mutex_unlock(&slab_lock);
		if (base) {
			__asan_unpoison_memory_region(base + SLAB_HEADER, span);
			if (zero)
				memset(base + SLAB_HEADER, 0, size);
		}
	}
	if (!base)
		return NULL;
	h = (struct slab_header *)base;
	h->size = size;
	h->class = class;
	h->magic = SLAB_MAGIC;
	memset(base + SLAB_HEADER + size, SLAB_RED_ACTIVE, SIM_SLAB_REDZONE);
	return base + SLAB_HEADER;
}

slab_unchecked static void object_free(const void *p)
{
	unsigned char *base = object_base(p);
	struct slab_header *h = (struct slab_header *)base;

	if (h->magic != SLAB_MAGIC)
		sim_kernel_bug(__FILE__, __LINE__,
			       "slab: kfree of a pointer kmalloc never returned");
	if (h->class == SLAB_NO_CLASS) {
		h->magic = 0;
		free(base);
		return;
	}
	__asan_poison_memory_region(base + SLAB_HEADER,
				    h->size + SIM_SLAB_REDZONE);
	pthread_mutex_lock(&slab_lock);
	quarantine_put(base, h->class);
	pthread_mutex_unlock(&slab_lock);
}

slab_unchecked static void *object_realloc(void *p, unsigned long size)
{
	return object_move(p, size);
}
#else
#include <sys/mman.h>

/*
 * Zeroed objects of SLAB_MAP_MIN bytes and more (with the header and red
 * zone) are anonymous mappings of their own, as a vmalloc area is pages
 * of its own: zero until written, nothing to clear, unmapped when freed
 * (a use after free faults).  calloc() gives the same on a plain run (its
 * chunks that size are mappings too), but with MALLOC_PERTURB_ set, as
 * meson test sets it for every test, glibc clears such a chunk by hand and
 * so writes every page of it: type1's dirty bitmap for an 8 TiB mapping
 * (256 MiB, kvcalloc) was 0.22 s of test_type1_dma's 0.24.  Objects not
 * zeroed stay malloc's, so a read of one never written still sees
 * MALLOC_PERTURB_'s bytes.  The header's second word holds the mapping's
 * length (0: malloc's).
 */
#define SLAB_MAP_MIN	(128UL << 10)	/* glibc's mmap threshold */

static void *object_init(unsigned char *base, unsigned long size,
			 unsigned long mapped)
{
	memcpy(base, &size, sizeof(size));
	memcpy(base + sizeof(size), &mapped, sizeof(mapped));
	memset(base + SLAB_HEADER + size, SLAB_RED_ACTIVE, SIM_SLAB_REDZONE);
	return base + SLAB_HEADER;
}

static unsigned long object_mapped(const void *p)
{
	unsigned long mapped;

	memcpy(&mapped, object_base(p) + sizeof(unsigned long), sizeof(mapped));
	return mapped;
}

static void *object_alloc(unsigned long size, int zero)
{
	unsigned long total = SLAB_HEADER + size + SIM_SLAB_REDZONE;
	unsigned char *base;

	if (zero && total >= SLAB_MAP_MIN) {
		base = mmap(NULL, total, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return base == MAP_FAILED ? NULL : object_init(base, size, total);
	}
	base = zero ? calloc(1, total) : malloc(total);
	return base ? object_init(base, size, 0) : NULL;
}

static void object_free(const void *p)
{
	unsigned long mapped = object_mapped(p);

	if (mapped)
		munmap(object_base(p), mapped);
	else
		free(object_base(p));
}

static void *object_realloc(void *p, unsigned long size)
{
	unsigned char *base;

	if (object_mapped(p))
		return object_move(p, size);
	base = realloc(object_base(p), SLAB_HEADER + size + SIM_SLAB_REDZONE);
	return base ? object_init(base, size, 0) : NULL;
}

/* Without ASan, freed objects go back to libc at once: nothing to hold. */
void sim_slab_quarantine_input(unsigned long floor)
{
	(void)floor;
}
#endif

void *sim_kmalloc(unsigned long size, int zero)
{
	/* The kernel's kmalloc(0) returns ZERO_SIZE_PTR; callers here never ask. */
	void *p = object_alloc(size, zero);

	if (!p)
		return NULL;
	__atomic_fetch_add(&outstanding, 1, __ATOMIC_RELAXED);
	sim_count(SIM_CNT_KMALLOC, 1);
	return p;
}

void *sim_krealloc(void *p, unsigned long size)
{
	if (!p)
		return sim_kmalloc(size, 0);
	check_redzone(p);
	return object_realloc(p, size);
}

void sim_kfree(const void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&outstanding, 1, __ATOMIC_RELAXED);
	sim_count(SIM_CNT_KFREE, 1);
	check_redzone(p);
	object_free(p);
}

unsigned long long sim_kmalloc_outstanding(void)
{
	return __atomic_load_n(&outstanding, __ATOMIC_RELAXED);
}
