// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOMMU page tables per format: real multi-level radix tables of the
 * format's granule (512, 2048 or 8192 eight-byte entries per table).
 *
 * Levels are numbered from the leaf up: level 0 holds granule-sized leaves,
 * level l maps 1 << (granule_shift + l * bits) bytes per entry, where bits
 * is granule_shift - 3.  A page size S of the format's bitmap lives at the
 * highest level whose entry size is <= S; when S is larger than that entry
 * size (AMD v1's non-native sizes) the leaf is written as S / entry_size
 * replicated entries, each counted as one PTE write, as the AMD IOMMU's
 * "next level 7" encoding does.  Every format but amd-v1 has native sizes
 * only.
 *
 * An entry is one 64-bit word:
 *   0                          empty
 *   table pointer | VALID      a next-level table (malloc'd, 16-aligned)
 *   paddr | VALID | LEAF | prot << 2 | replication log2 << 8
 * where paddr is the physical address of this entry's own slice of the
 * leaf (the leaf's paddr + slice index * entry size).
 *
 * Table pages come from pre-faulted arenas of host memory (see
 * arena_carve()), not from the simulated buddy allocator: a
 * driver's page-table pages do not interact with the allocations the
 * project studies, so they are counted (SIM_CNT_IOMMU_TABLE_ALLOC/FREE) but
 * not taken from simulated RAM.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_internal.h"

#define PTE_VALID	0x1ULL
#define PTE_LEAF	0x2ULL
#define PTE_PROT_SHIFT	2
#define PTE_PROT_MASK	0x3fULL
#define PTE_REP_SHIFT	8
#define PTE_REP_MASK	0xfULL
#define PTE_ADDR_MASK	(~0xfffULL)
#define PTE_TABLE_MASK	(~0xfULL)

#define MAX_LEVELS	6

/* AMD v1: every power of two from 4K to 2^51 except 512G. */
#define AMD_V1_PGSIZES	((((1ULL << 52) - 1) & ~0xfffULL) & ~(1ULL << 39))
#define SZ_4K_2M_1G	((1ULL << 12) | (1ULL << 21) | (1ULL << 30))

static const struct sim_iommu_format formats[SIM_NR_IOMMU_FORMATS] = {
	[SIM_IOMMU_INTEL_SL] = {
		.name = "intel-sl", .pgsize_bitmap = SZ_4K_2M_1G,
		.granule_shift = 12, .ias = 48, .levels = 4,
		.what = "Intel VT-d second stage: 4K|2M|1G, 48-bit IOVA",
	},
	[SIM_IOMMU_AMD_V1] = {
		.name = "amd-v1", .pgsize_bitmap = AMD_V1_PGSIZES,
		.granule_shift = 12, .ias = 64, .levels = 6,
		.what = "AMD-Vi v1: every power of two 4K..2^51 but 512G, 64-bit IOVA",
	},
	[SIM_IOMMU_AMD_V2] = {
		.name = "amd-v2", .pgsize_bitmap = SZ_4K_2M_1G,
		.granule_shift = 12, .ias = 48, .levels = 4,
		.what = "AMD-Vi v2 (x86-64 format): 4K|2M|1G, 48-bit IOVA",
	},
	[SIM_IOMMU_ARM_LPAE_4K] = {
		.name = "arm-lpae-4k", .pgsize_bitmap = SZ_4K_2M_1G,
		.granule_shift = 12, .ias = 48, .levels = 4, .oas = 48,
		.what = "Arm SMMU LPAE, 4K granule: 4K|2M|1G, 48-bit IOVA",
	},
	[SIM_IOMMU_ARM_LPAE_16K] = {
		.name = "arm-lpae-16k",
		.pgsize_bitmap = (1ULL << 14) | (1ULL << 25),
		.granule_shift = 14, .ias = 47, .levels = 3, .oas = 48,
		.what = "Arm SMMU LPAE, 16K granule: 16K|32M, 47-bit IOVA",
	},
	[SIM_IOMMU_ARM_LPAE_64K] = {
		.name = "arm-lpae-64k",
		.pgsize_bitmap = (1ULL << 16) | (1ULL << 29),
		.granule_shift = 16, .ias = 48, .levels = 3, .oas = 52,
		.what = "Arm SMMU LPAE, 64K granule: 64K|512M, 48-bit IOVA",
	},
};

struct sim_iommu_table {
	unsigned long long nr_live;	/* entries that are not empty */
	unsigned long long e[];
};

struct sim_iommu_domain {
	/*
	 * First, as struct sim_iommu_domain_leaves, where the inline fast
	 * path of <dmasim/sim_iommu.h> reads it.
	 */
	unsigned long leaves_token;
	const struct sim_iommu_format *fmt;
	struct sim_iommu_table *root;
	unsigned int levels;
	unsigned int bits;		/* index bits per level */
	unsigned long long entries;	/* entries per table */
	/* Fixed at allocation, for the lockless walk: */
	unsigned int ias;		/* fmt->ias */
	unsigned char shift[MAX_LEVELS];	/* level_shift() of each level */
	unsigned long long nr_tables;
	unsigned long long nr_leaves_total;
	unsigned long long nr_leaves[64];
	unsigned long long iotlb_syncs;
	struct sim_iova_space *iova_space;
	struct sim_iommu_domain *prev, *next;	/* live domains */
	/* The IOTLB oracle: leaves cleared and not yet invalidated. */
	struct sim_stale *stale;
	unsigned int nr_stale, cap_stale;
};

/*
 * One lock for every domain's tables, the table cache and the IOVA spaces:
 * the simulator's IOMMU operations are serialised (the kernel's drivers
 * allow concurrent map/unmap of disjoint ranges; the simulation only has to
 * stay consistent when several threads use it).  Recursive, so that a
 * for_each_leaf() callback may call back into the simulator.
 */
static pthread_mutex_t iommu_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void sim_iommu_lock(void)
{
	pthread_mutex_lock(&iommu_lock);
}

void sim_iommu_unlock(void)
{
	pthread_mutex_unlock(&iommu_lock);
}

/*
 * The IOTLB oracle.  An IOMMU may go on translating an IOVA whose leaf was
 * cleared until an IOTLB invalidation covers it (iommu_unmap_fast() leaves
 * that to the caller's iommu_iotlb_sync()), so a page must not be given
 * back before: each domain keeps the stretches (IOVA, physical address,
 * length) it cleared since, coalesced while both run on, and an
 * invalidation drops what it covers.  sim_iommu_maybe_cached() tells the
 * unpin path whether any domain may still translate to a physical range.
 * The simulated IOMMU caches nothing really: this is bookkeeping of what a
 * real one may, as the kernel's contract lets it.
 */
struct sim_stale {
	unsigned long long iova, len;
	sim_phys_t paddr;
};

/* Stale stretches over all domains: 0 makes the unpin check one test. */
static unsigned long long nr_stale_total;

static void stale_add(struct sim_iommu_domain *dom, unsigned long long iova,
		      sim_phys_t paddr, unsigned long long len)
{
	struct sim_stale *s = dom->nr_stale ? &dom->stale[dom->nr_stale - 1] :
					      NULL;

	if (s && s->iova + s->len == iova && s->paddr + s->len == paddr) {
		s->len += len;
		return;
	}
	if (dom->nr_stale == dom->cap_stale) {
		unsigned int cap = dom->cap_stale ? 2 * dom->cap_stale : 16;
		struct sim_stale *n = realloc(dom->stale, cap * sizeof(*n));

		if (!n)		/* the host is out of memory: forget it */
			return;
		dom->stale = n;
		dom->cap_stale = cap;
	}
	dom->stale[dom->nr_stale++] = (struct sim_stale){
		.iova = iova, .len = len, .paddr = paddr,
	};
	nr_stale_total++;
}

/* An invalidation of [iova, last]: the stretches it covers go. */
static void stale_flush(struct sim_iommu_domain *dom, unsigned long long iova,
			unsigned long long last)
{
	unsigned int i, n = dom->nr_stale, kept = 0;

	for (i = 0; i < n; i++) {
		struct sim_stale r = dom->stale[i];
		unsigned long long r_last = r.iova + r.len - 1;

		if (r_last < iova || r.iova > last) {
			dom->stale[kept++] = r;
			continue;
		}
		/* What sticks out on either side stays. */
		if (r.iova < iova)
			dom->stale[kept++] = (struct sim_stale){
				.iova = r.iova, .len = iova - r.iova,
				.paddr = r.paddr,
			};
		if (r_last > last) {
			struct sim_stale right = {
				.iova = last + 1, .len = r_last - last,
				.paddr = r.paddr + (last + 1 - r.iova),
			};

			/* Slot i is free unless the left part took it. */
			if (kept <= i)
				dom->stale[kept++] = right;
			else
				stale_add(dom, right.iova, right.paddr,
					  right.len);
		}
	}
	/* stale_add() may have appended past n: move those down. */
	for (i = n; i < dom->nr_stale; i++)
		dom->stale[kept++] = dom->stale[i];
	nr_stale_total -= dom->nr_stale - kept;
	dom->nr_stale = kept;
}

static struct sim_iommu_domain live_domains = {
	.prev = &live_domains, .next = &live_domains,
};
static unsigned long nr_domains;
static unsigned long long leaves_dropped;

const struct sim_iommu_format *sim_iommu_format(enum sim_iommu_format_id id)
{
	if ((unsigned int)id >= SIM_NR_IOMMU_FORMATS)
		return NULL;
	return &formats[id];
}

int sim_iommu_format_lookup(const char *name)
{
	for (int i = 0; i < SIM_NR_IOMMU_FORMATS; i++)
		if (name && !strcmp(formats[i].name, name))
			return i;
	return -1;
}

static inline unsigned int level_shift(const struct sim_iommu_domain *dom,
				       unsigned int level)
{
	return dom->fmt->granule_shift + level * dom->bits;
}

static inline unsigned long long level_index(const struct sim_iommu_domain *dom,
					     unsigned long long iova,
					     unsigned int level)
{
	return (iova >> level_shift(dom, level)) & (dom->entries - 1);
}

/*
 * Entries are read without the IOMMU lock by sim_iommu_iova_to_phys(), as
 * the kernel's io-pgtable walkers read theirs (READ_ONCE, no lock): type1's
 * unmap asks for one translation per page, billions in the long sweeps,
 * and the lock pair was a third of each.  So every store to an entry is
 * atomic (a release store publishes a table zeroed before it), and the
 * lockless reader loads with acquire; on x86 both are plain moves.  The
 * writers still hold the lock among themselves.  A table a reader reaches
 * stays readable memory: freed tables go to the table cache, and the
 * arenas are returned only when no domain is left.  A translation racing
 * with an unmap of the same IOVA may see either state, as in the kernel.
 */
static inline unsigned long long pte_load(const unsigned long long *e)
{
	return __atomic_load_n(e, __ATOMIC_ACQUIRE);
}

static inline void pte_store(unsigned long long *e, unsigned long long v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

static inline struct sim_iommu_table *pte_table(unsigned long long pte)
{
	return (struct sim_iommu_table *)(unsigned long)(pte & PTE_TABLE_MASK);
}

static inline int pte_is_leaf(unsigned long long pte)
{
	return (pte & (PTE_VALID | PTE_LEAF)) == (PTE_VALID | PTE_LEAF);
}

static inline unsigned int pte_rep_log2(unsigned long long pte)
{
	return (pte >> PTE_REP_SHIFT) & PTE_REP_MASK;
}

/*
 * Table pages are carved from arenas of pre-faulted memory (mmap with
 * MAP_POPULATE: one system call instead of a page fault per table, which
 * is what dominated a first 1 GiB map of 4K leaves), and freed tables are
 * kept, zeroed, on a free list per granule, so map/unmap cycles cost no
 * allocator work at all.  With no domain left, a machine torn down keeps
 * its arenas and cached tables (zeroed: nothing in them belongs to a
 * machine) for the next one, up to ARENA_KEEP_BYTES, and returns them
 * above that: pre-faulting the first arena again was a fifth of a boot
 * (fuzz_type1 boots again when an input places RAM elsewhere).
 *
 * A machine's first arena is small and each next one twice the last, up
 * to ARENA_MAX_BYTES: a machine that maps a few pages pre-faults 128 KiB,
 * not 4 MiB (that first 4 MiB was most of the system time of the suites
 * that boot a machine per case), while a large map still takes one system
 * call per 4 MiB of tables after the first six.
 */
#define ARENA_MIN_BYTES	(128UL << 10)
#define ARENA_MAX_BYTES	(4UL << 20)
#define ARENA_KEEP_BYTES	(8UL << 20)

struct table_arena {
	struct table_arena *next;
	unsigned long bytes;		/* mapped, header included */
	unsigned long used;
	unsigned char mem[];
};

struct table_cache {
	struct sim_iommu_table *head;	/* linked through e[0] */
	unsigned long nr;
};

static struct table_arena *arenas;
static struct table_cache table_cache[3];	/* 4K, 16K, 64K granules */

static struct table_cache *cache_of(const struct sim_iommu_domain *dom)
{
	return &table_cache[(dom->fmt->granule_shift - 12) / 2];
}

/* Zeroed memory for one table (fresh anonymous memory is zero). */
static void *arena_carve(unsigned long bytes)
{
	struct table_arena *a = arenas;

	bytes = (bytes + 63) & ~63UL;
	if (!a || a->used + bytes > a->bytes - sizeof(*a)) {
		unsigned long size = a ? 2 * a->bytes : ARENA_MIN_BYTES;

		if (size > ARENA_MAX_BYTES)
			size = ARENA_MAX_BYTES;
		/* The largest table (64K granule) fits the smallest arena. */
		a = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (a == MAP_FAILED)
			return NULL;
		a->next = arenas;
		a->bytes = size;
		a->used = (64 - sizeof(*a) % 64) % 64;
		arenas = a;
	}
	a->used += bytes;
	return a->mem + a->used - bytes;
}

static struct sim_iommu_table *table_alloc(struct sim_iommu_domain *dom,
					   int check_faults)
{
	struct table_cache *c = cache_of(dom);
	struct sim_iommu_table *t;

	if (check_faults && sim_should_fail(SIM_FP_IOMMU_PGTABLE_ALLOC))
		return NULL;
	if (c->head) {
		t = c->head;
		c->head = (struct sim_iommu_table *)(unsigned long)t->e[0];
		c->nr--;
		pte_store(&t->e[0], 0);
	} else {
		t = arena_carve(sizeof(*t) + dom->entries * sizeof(t->e[0]));
		if (!t)
			return NULL;
	}
	dom->nr_tables++;
	sim_count(SIM_CNT_IOMMU_TABLE_ALLOC, 1);
	return t;
}

/* t must be empty (every entry zero). */
static void table_free(struct sim_iommu_domain *dom, struct sim_iommu_table *t)
{
	struct table_cache *c = cache_of(dom);

	dom->nr_tables--;
	sim_count(SIM_CNT_IOMMU_TABLE_FREE, 1);
	t->nr_live = 0;
	pte_store(&t->e[0], (unsigned long long)(unsigned long)c->head);
	c->head = t;
	c->nr++;
}

static unsigned long arena_bytes(void)
{
	unsigned long n = 0;

	for (const struct table_arena *a = arenas; a; a = a->next)
		n += a->bytes;
	return n;
}

static void table_arenas_release(void)
{
	while (arenas) {
		struct table_arena *a = arenas;

		arenas = a->next;
		munmap(a, a->bytes);
	}
	memset(table_cache, 0, sizeof(table_cache));
}

/*
 * The last leaf entry sim_iommu_iova_to_phys() found, per thread, and the
 * domains' leaves tokens: <dmasim/sim_iommu.h> says how the inline fast
 * path uses them.  A domain takes a new token when it is allocated and
 * before an unmap clears any of its leaves; tokens are handed out once
 * each, from 1, so an unused memo's 0 matches no domain, and a domain
 * allocated where a freed one was matches none of the freed one's memos
 * (a probe of a domain being freed is a use after free, token or not).
 */
static unsigned long last_leaves_token;
_Static_assert(offsetof(struct sim_iommu_domain, leaves_token) ==
	       offsetof(struct sim_iommu_domain_leaves, token),
	       "sim_iommu_iova_to_phys() reads the token there");
_Thread_local struct sim_iommu_leaf_seen sim_iommu_leaf_seen;

static void new_leaves_token(struct sim_iommu_domain *dom)
{
	__atomic_store_n(&dom->leaves_token,
			 __atomic_add_fetch(&last_leaves_token, 1,
					    __ATOMIC_RELAXED),
			 __ATOMIC_RELEASE);
}

static struct sim_iommu_domain *domain_alloc(enum sim_iommu_format_id id)
{
	const struct sim_iommu_format *fmt = sim_iommu_format(id);
	struct sim_iommu_domain *dom;

	if (!fmt)
		return NULL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return NULL;
	dom->fmt = fmt;
	dom->levels = fmt->levels;
	dom->bits = fmt->granule_shift - 3;
	dom->entries = 1ULL << dom->bits;
	dom->ias = fmt->ias;
	for (unsigned int l = 0; l < dom->levels; l++)
		dom->shift[l] = level_shift(dom, l);
	dom->root = table_alloc(dom, 0);
	if (!dom->root) {
		free(dom);
		return NULL;
	}
	new_leaves_token(dom);
	dom->next = &live_domains;
	dom->prev = live_domains.prev;
	live_domains.prev->next = dom;
	live_domains.prev = dom;
	nr_domains++;
	return dom;
}

/* Free a table and everything below it; leaves found are dropped. */
static void free_subtree(struct sim_iommu_domain *dom,
			 struct sim_iommu_table *t, unsigned int level)
{
	for (unsigned long long i = 0; t->nr_live && i < dom->entries; i++) {
		unsigned long long pte = t->e[i];

		if (!pte)
			continue;
		t->nr_live--;
		pte_store(&t->e[i], 0);
		if (pte_is_leaf(pte)) {
			unsigned int rep = pte_rep_log2(pte);

			if ((i & ((1ULL << rep) - 1)) == 0)
				leaves_dropped++;
		} else {
			free_subtree(dom, pte_table(pte), level - 1);
		}
	}
	table_free(dom, t);
}

static void domain_free(struct sim_iommu_domain *dom)
{
	if (!dom)
		return;
	free_subtree(dom, dom->root, dom->levels - 1);
	sim_iova_space_free(dom);
	nr_stale_total -= dom->nr_stale;
	free(dom->stale);
	dom->prev->next = dom->next;
	dom->next->prev = dom->prev;
	nr_domains--;
	free(dom);
}

const struct sim_iommu_format *
sim_iommu_domain_format(const struct sim_iommu_domain *dom)
{
	return dom->fmt;
}

struct sim_iova_space **sim_iommu_domain_iova_space(struct sim_iommu_domain *dom)
{
	return &dom->iova_space;
}

/* 1 if size is a page size of the format and the range fits the aperture. */
static int range_ok(const struct sim_iommu_domain *dom, unsigned long long iova,
		    unsigned long long pgsize, unsigned long long count)
{
	unsigned long long size, last;

	if (!pgsize || (pgsize & (pgsize - 1)) ||
	    !(pgsize & dom->fmt->pgsize_bitmap) || !count)
		return 0;
	if (count > ~0ULL / pgsize)
		return 0;
	size = pgsize * count;
	if (iova & (pgsize - 1))
		return 0;
	last = iova + (size - 1);
	if (last < iova)
		return 0;
	if (dom->fmt->ias < 64 && (last >> dom->fmt->ias))
		return 0;
	return 1;
}

/* Highest level whose entry size is <= 1 << size_log2. */
static unsigned int level_for_size(const struct sim_iommu_domain *dom,
				   unsigned int size_log2)
{
	unsigned int level = (size_log2 - dom->fmt->granule_shift) / dom->bits;

	return level < dom->levels - 1 ? level : dom->levels - 1;
}

/*
 * Free the tables of path[] that are empty, deepest first, clearing their
 * entries in the parents; path[l] is the table at level l and idx[l] the
 * entry used in it.  Stops at the first table that is not empty.
 */
static void prune_path(struct sim_iommu_domain *dom,
		       struct sim_iommu_table **path,
		       const unsigned long long *idx, unsigned int from)
{
	for (unsigned int l = from; l < dom->levels - 1; l++) {
		struct sim_iommu_table *t = path[l];

		if (t->nr_live)
			return;
		table_free(dom, t);
		pte_store(&path[l + 1]->e[idx[l + 1]], 0);
		path[l + 1]->nr_live--;
	}
}

static int map_pages(struct sim_iommu_domain *dom, unsigned long long iova,
		     sim_phys_t paddr, unsigned long long pgsize,
		     unsigned long long count, int prot, int check_faults,
		     unsigned long long *mapped)
{
	struct sim_iommu_table *path[MAX_LEVELS];
	unsigned long long idx[MAX_LEVELS];
	unsigned int size_log2, level, rep_log2;
	unsigned long long rep, step, leaf_bits;
	int ret = 0;

	*mapped = 0;
	sim_count(SIM_CNT_IOMMU_MAP_PAGES, 1);
	if (!range_ok(dom, iova, pgsize, count) || (paddr & (pgsize - 1)) ||
	    paddr + (pgsize * count - 1) < paddr)
		return -EINVAL;
	if (dom->fmt->oas && (paddr + (pgsize * count - 1)) >> dom->fmt->oas)
		return -ERANGE;
	size_log2 = __builtin_ctzll(pgsize);
	level = level_for_size(dom, size_log2);
	rep_log2 = size_log2 - level_shift(dom, level);
	rep = 1ULL << rep_log2;
	step = 1ULL << level_shift(dom, level);
	leaf_bits = PTE_VALID | PTE_LEAF |
		    ((unsigned long long)(prot & PTE_PROT_MASK) << PTE_PROT_SHIFT) |
		    ((unsigned long long)rep_log2 << PTE_REP_SHIFT);

	while (count) {
		struct sim_iommu_table *t = dom->root;
		unsigned long long i, n, done, first;
		unsigned int l;

		/* One walk per table of leaves. */
		for (l = dom->levels - 1; l > level; l--) {
			unsigned long long pte;

			path[l] = t;
			idx[l] = level_index(dom, iova, l);
			pte = t->e[idx[l]];
			if (!pte) {
				struct sim_iommu_table *child;

				child = table_alloc(dom, check_faults);
				if (!child) {
					prune_path(dom, path, idx, l);
					ret = -ENOMEM;
					goto out;
				}
				pte_store(&t->e[idx[l]],
					  (unsigned long long)(unsigned long)child |
					  PTE_VALID);
				t->nr_live++;
				t = child;
			} else if (pte_is_leaf(pte)) {
				ret = -EEXIST;
				goto out;
			} else {
				t = pte_table(pte);
			}
		}
		path[level] = t;
		first = level_index(dom, iova, level);
		idx[level] = first;
		n = (dom->entries - first) >> rep_log2;
		if (n > count)
			n = count;
		/* Leaves go in whole: check a leaf's entries, then write them. */
		for (done = 0; done < n; done++) {
			unsigned long long *e = &t->e[first + (done << rep_log2)];
			unsigned long long pa = paddr + done * pgsize;

			for (i = 0; i < rep; i++)
				if (e[i])
					break;
			if (i < rep) {
				ret = -EEXIST;
				break;
			}
			for (i = 0; i < rep; i++)
				pte_store(&e[i], ((pa + i * step) & PTE_ADDR_MASK) |
					  leaf_bits);
		}
		t->nr_live += done << rep_log2;
		sim_count(SIM_CNT_IOMMU_PTE_WRITE, done << rep_log2);
		dom->nr_leaves[size_log2] += done;
		dom->nr_leaves_total += done;
		*mapped += done * pgsize;
		if (ret) {
			/* Tables allocated on this walk may still be empty. */
			prune_path(dom, path, idx, level);
			goto out;
		}
		count -= n;
		iova += n * pgsize;
		paddr += n * pgsize;
	}
out:
	return ret;
}

/*
 * Walk to the entry mapping iova.  Returns the entry (0 if none) and sets
 * *level; path/idx (optional) receive the tables walked.
 */
static unsigned long long walk(const struct sim_iommu_domain *dom,
			       unsigned long long iova, unsigned int *level,
			       struct sim_iommu_table **path,
			       unsigned long long *idx)
{
	struct sim_iommu_table *t = dom->root;
	unsigned int l = dom->levels - 1;

	for (;;) {
		unsigned long long i = level_index(dom, iova, l);
		unsigned long long pte = t->e[i];

		if (path) {
			path[l] = t;
			idx[l] = i;
		}
		*level = l;
		if (!pte || pte_is_leaf(pte) || l == 0)
			return pte;
		t = pte_table(pte);
		l--;
	}
}

static unsigned long long unmap_pages(struct sim_iommu_domain *dom,
				      unsigned long long iova,
				      unsigned long long pgsize,
				      unsigned long long count)
{
	struct sim_iommu_table *path[MAX_LEVELS];
	unsigned long long idx[MAX_LEVELS];
	unsigned long long remaining, unmapped = 0;

	sim_count(SIM_CNT_IOMMU_UNMAP_PAGES, 1);
	if (!range_ok(dom, iova, pgsize, count))
		return 0;
	new_leaves_token(dom);
	remaining = pgsize * count;
	while (remaining) {
		struct sim_iommu_table *t;
		unsigned long long pte, i, cleared = 0;
		unsigned long long leaves_by_rep[PTE_REP_MASK + 1] = { 0 };
		unsigned int level, shift, r;
		int hole = 0;

		pte = walk(dom, iova, &level, path, idx);
		if (!pte_is_leaf(pte))
			break;
		t = path[level];
		shift = level_shift(dom, level);
		/* Start at the first entry of the leaf that covers iova. */
		i = idx[level] & ~((1ULL << pte_rep_log2(pte)) - 1);
		while (remaining && i < dom->entries) {
			unsigned int rep_log2, size_log2;
			unsigned long long rep, leaf_size, base, advance;

			pte = t->e[i];
			if (!pte_is_leaf(pte)) {
				hole = 1;
				break;
			}
			rep_log2 = pte_rep_log2(pte);
			rep = 1ULL << rep_log2;
			size_log2 = shift + rep_log2;
			leaf_size = 1ULL << size_log2;
			base = iova & ~(leaf_size - 1);
			stale_add(dom, base, pte & PTE_ADDR_MASK, leaf_size);
			for (unsigned long long k = 0; k < rep; k++)
				pte_store(&t->e[i + k], 0);
			cleared += rep;
			leaves_by_rep[rep_log2]++;
			unmapped += leaf_size;
			advance = leaf_size - (iova - base);
			remaining = advance >= remaining ? 0 : remaining - advance;
			iova = base + leaf_size;
			i += rep;
		}
		t->nr_live -= cleared;
		sim_count(SIM_CNT_IOMMU_PTE_CLEAR, cleared);
		for (r = 0; r <= PTE_REP_MASK; r++) {
			if (!leaves_by_rep[r])
				continue;
			dom->nr_leaves[shift + r] -= leaves_by_rep[r];
			dom->nr_leaves_total -= leaves_by_rep[r];
		}
		prune_path(dom, path, idx, level);
		if (hole)
			break;
	}
	return unmapped;
}

/*
 * The lockless walk (see pte_load()); the leaf entry found is remembered
 * in sim_iommu_leaf_seen.
 */
sim_phys_t sim_iommu_iova_to_phys_walk(const struct sim_iommu_domain *dom,
				       unsigned long long iova,
				       unsigned long token)
{
	const struct sim_iommu_table *t = dom->root;
	unsigned long long mask = dom->entries - 1, in_leaf;
	unsigned int l = dom->levels - 1;

	if (dom->ias < 64 && (iova >> dom->ias))
		return 0;
	for (;;) {
		unsigned int shift = dom->shift[l];
		unsigned long long pte = pte_load(&t->e[(iova >> shift) & mask]);

		if (pte_is_leaf(pte)) {
			in_leaf = (1ULL << shift) - 1;
			sim_iommu_leaf_seen = (struct sim_iommu_leaf_seen){
				.token = token,
				.iova = iova & ~in_leaf, .mask = in_leaf,
				.phys = pte & PTE_ADDR_MASK,
			};
			return (pte & PTE_ADDR_MASK) + (iova & in_leaf);
		}
		if (!pte || !l)
			return 0;
		t = pte_table(pte);
		l--;
	}
}

static unsigned long long leaf_at(const struct sim_iommu_domain *dom,
				  unsigned long long iova,
				  unsigned long long *leaf_iova, int *prot)
{
	unsigned int level;
	unsigned long long pte, size;

	if (dom->fmt->ias < 64 && (iova >> dom->fmt->ias))
		return 0;
	pte = walk(dom, iova, &level, NULL, NULL);
	if (!pte_is_leaf(pte))
		return 0;
	size = 1ULL << (level_shift(dom, level) + pte_rep_log2(pte));
	if (leaf_iova)
		*leaf_iova = iova & ~(size - 1);
	if (prot)
		*prot = (pte >> PTE_PROT_SHIFT) & PTE_PROT_MASK;
	return size;
}

/* ---- the public entry points: each takes the IOMMU lock ---------------- */

struct sim_iommu_domain *sim_iommu_domain_alloc(enum sim_iommu_format_id id)
{
	struct sim_iommu_domain *dom;

	sim_iommu_lock();
	dom = domain_alloc(id);
	sim_iommu_unlock();
	return dom;
}

void sim_iommu_domain_free(struct sim_iommu_domain *dom)
{
	sim_iommu_lock();
	domain_free(dom);
	sim_iommu_unlock();
}

int sim_iommu_map_pages(struct sim_iommu_domain *dom, unsigned long long iova,
			sim_phys_t paddr, unsigned long long pgsize,
			unsigned long long count, int prot, int check_faults,
			unsigned long long *mapped)
{
	int ret;

	sim_iommu_lock();
	ret = map_pages(dom, iova, paddr, pgsize, count, prot, check_faults,
			mapped);
	sim_iommu_unlock();
	return ret;
}

unsigned long long sim_iommu_unmap_pages(struct sim_iommu_domain *dom,
					 unsigned long long iova,
					 unsigned long long pgsize,
					 unsigned long long count)
{
	unsigned long long ret;

	sim_iommu_lock();
	ret = unmap_pages(dom, iova, pgsize, count);
	sim_iommu_unlock();
	return ret;
}

unsigned long long sim_iommu_leaf_at(const struct sim_iommu_domain *dom,
				     unsigned long long iova,
				     unsigned long long *leaf_iova, int *prot)
{
	unsigned long long ret;

	sim_iommu_lock();
	ret = leaf_at(dom, iova, leaf_iova, prot);
	sim_iommu_unlock();
	return ret;
}

unsigned long long sim_iommu_nr_leaves(const struct sim_iommu_domain *dom,
				       unsigned int shift)
{
	return shift < 64 ? dom->nr_leaves[shift] : 0;
}

unsigned long long sim_iommu_nr_leaves_total(const struct sim_iommu_domain *dom)
{
	return dom->nr_leaves_total;
}

unsigned long long sim_iommu_nr_tables(const struct sim_iommu_domain *dom)
{
	return dom->nr_tables;
}

void sim_iommu_iotlb_sync(struct sim_iommu_domain *dom,
			  unsigned long long iova, unsigned long long size)
{
	sim_iommu_lock();
	if (dom->nr_stale)
		stale_flush(dom, iova, size == ~0ULL ? ~0ULL : iova + size - 1);
	dom->iotlb_syncs++;
	sim_count(SIM_CNT_IOTLB_SYNC, 1);
	sim_iommu_unlock();
}

unsigned long long sim_iommu_nr_iotlb_syncs(const struct sim_iommu_domain *dom)
{
	return dom->iotlb_syncs;
}

int sim_iommu_maybe_cached(sim_phys_t paddr, unsigned long long len)
{
	const struct sim_iommu_domain *dom;
	int found = 0;

	if (!__atomic_load_n(&nr_stale_total, __ATOMIC_RELAXED))
		return 0;
	sim_iommu_lock();
	for (dom = live_domains.next; dom != &live_domains && !found;
	     dom = dom->next) {
		for (unsigned int i = 0; i < dom->nr_stale && !found; i++)
			found = dom->stale[i].paddr < paddr + len &&
				paddr < dom->stale[i].paddr + dom->stale[i].len;
	}
	sim_iommu_unlock();
	return found;
}

static int for_each_in_table(const struct sim_iommu_domain *dom,
			     const struct sim_iommu_table *t, unsigned int level,
			     unsigned long long base,
			     int (*fn)(void *, unsigned long long, sim_phys_t,
				       unsigned long long, int),
			     void *arg)
{
	unsigned int shift = level_shift(dom, level);

	for (unsigned long long i = 0; i < dom->entries; i++) {
		unsigned long long pte = t->e[i];
		unsigned long long iova = base + (i << shift);
		int ret;

		if (!pte)
			continue;
		if (pte_is_leaf(pte)) {
			unsigned int rep_log2 = pte_rep_log2(pte);

			ret = fn(arg, iova, pte & PTE_ADDR_MASK,
				 1ULL << (shift + rep_log2),
				 (pte >> PTE_PROT_SHIFT) & PTE_PROT_MASK);
			i += (1ULL << rep_log2) - 1;
		} else {
			ret = for_each_in_table(dom, pte_table(pte), level - 1,
						iova, fn, arg);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int sim_iommu_for_each_leaf(const struct sim_iommu_domain *dom,
			    int (*fn)(void *arg, unsigned long long iova,
				      sim_phys_t paddr, unsigned long long size,
				      int prot),
			    void *arg)
{
	int ret;

	sim_iommu_lock();
	ret = for_each_in_table(dom, dom->root, dom->levels - 1, 0, fn, arg);
	sim_iommu_unlock();
	return ret;
}

static unsigned long long trace_events[SIM_IOMMU_NR_TRACE_EVENTS];

void sim_iommu_trace_event(enum sim_iommu_trace_event event)
{
	__atomic_add_fetch(&trace_events[event], 1, __ATOMIC_RELAXED);
}

unsigned long long sim_iommu_trace_events(enum sim_iommu_trace_event event)
{
	return __atomic_load_n(&trace_events[event], __ATOMIC_RELAXED);
}

unsigned long sim_iommu_nr_domains(void)
{
	return nr_domains;
}

unsigned long long sim_iommu_leaves_dropped(void)
{
	return leaves_dropped;
}

int sim_iommu_init(void)
{
	leaves_dropped = 0;
	return 0;
}

/*
 * Domains still alive belong to kernel objects that outlive the machine
 * (a test that did not free them); they are left alone, since freeing them
 * here would leave those objects pointing at freed memory.  Every test
 * checks sim_iommu_nr_domains() instead.
 */
void sim_iommu_destroy(void)
{
	sim_iommu_lock();
	if (!nr_domains && arena_bytes() > ARENA_KEEP_BYTES)
		table_arenas_release();
	sim_iommu_unlock();
}
