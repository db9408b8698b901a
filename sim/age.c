// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ageing workload: bring the free lists into the shape a long-running
 * machine's have, deterministically for (level, seed).  docs/fragmentation.md
 * says what the levels mean in free-block terms.
 *
 * Model.  A long-running machine has most of its RAM held by page cache,
 * anonymous memory and slab, in pieces of mixed orders, with the free
 * memory scattered between them.  The workload reproduces the result, not
 * the history:
 *
 * 1. Take every free block (max order first, then smaller ones), each with
 *    a migratetype drawn per block: unmovable (slab) with probability
 *    0.04 + 0.08 * level, reclaimable (reclaimable slab) 0.02, movable the
 *    rest.  Unmovable requests fall back and claim movable pageblocks, as
 *    in a kernel.
 * 2. Cut each taken block by a random binary partition: a node of order o
 *    stays whole with probability q(o) = 1 / (1 + e^(1.5 (o - t))), with
 *    t = 10.5 - 9 * level the typical piece order (order 0 always whole),
 *    else splits into its two buddies.  A whole piece is given back (a free
 *    block) with probability F = 1 - 0.85 * sqrt(level), else kept.  Two
 *    buddies are never both given back whole (they would merge: the free
 *    block's order is the piece's order), and no piece above the cap order
 *    (10; 9 from level 0.5; 8 from level 0.9) is given back whole.
 * 3. What is kept is one of: slab (in unmovable and reclaimable blocks),
 *    anonymous memory, or clean page cache (movable blocks), page cache as
 *    folios of at most order PAGECACHE_MAX_ORDER (so reclaim frees 64 KiB
 *    at a time, not whole pageblocks).  Movable
 *    pageblocks are "pure page cache" with probability 0.5 - 0.3 * level,
 *    else mixed (each piece page cache or anonymous, even odds).  Only
 *    clean page cache (SIM_PG_RECLAIMABLE) can be reclaimed; anonymous
 *    memory stands for everything reclaim cannot free here (no swap,
 *    pinned pages, unmovable allocations that leaked into movable blocks).
 *
 * Cost: one operation per piece, so proportional to RAM divided by the
 * typical piece size (2^t pages), not to the number of pages.  Only the
 * first page of a piece is written (SIM_PG_AGED, and SIM_PG_RECLAIMABLE for
 * page cache), as only the first page of a free block is; at high levels
 * the pieces are small enough that that is all of the memmap.
 *
 * Direct reclaim gives page-cache folios back straight to the buddy lists
 * in a stand-in for LRU order: pageblocks in a fixed pseudo-random order,
 * each pageblock's folios together (pages read together age together).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

enum piece_kind {
	PIECE_SLAB = SIM_AGE_SLAB,
	PIECE_ANON = SIM_AGE_ANON,
	PIECE_PAGECACHE = SIM_AGE_PAGECACHE,
};

struct piece {
	unsigned long pfn;
	unsigned char order;
	unsigned char kind;
	unsigned char gone;	/* reclaimed */
};

/* Serialises reclaim (any allocating thread) against ageing and release. */
static pthread_mutex_t age_lock = PTHREAD_MUTEX_INITIALIZER;
static void release_locked(void);
static struct piece *pieces;
static size_t nr_pieces, pieces_cap;
static unsigned long held_pages;
/*
 * Reclaim order: pageblocks in a fixed pseudo-random order, all of one
 * pageblock's page cache before the next (pages read together age
 * together).  segments[k] is the index of pageblock k's first piece
 * (pieces are kept in address order within a pageblock).
 */
static size_t *segments;
static size_t nr_segments, reclaim_step, reclaim_in_segment, reclaim_stride;
/*
 * Pieces added after ageing (split by compaction, held by sim_age_hold)
 * sit past the last segment; reclaim takes them last, in order.
 */
static size_t reclaim_tail;

/* The shape of one ageing run. */
struct age_params {
	double level;
	double p_unmovable, p_reclaimable, p_pure_cache;
	double split[SIM_NR_ORDERS];	/* a node of this order splits */
	double give_back[SIM_NR_ORDERS]; /* an unsplit node is given back */
	unsigned long long rng;
};

static double uniform(unsigned long long *rng)
{
	return (double)(sim_rand_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * The first page of a held piece: SIM_PG_AGED (and SIM_PG_RECLAIMABLE for
 * page cache), owner the piece's index + 1, so compaction finds the piece
 * from a pfn.
 */
static void mark_piece_head(struct sim_page *page, size_t idx)
{
	sim_page_set(page, SIM_PG_AGED);
	if (pieces[idx].kind == PIECE_PAGECACHE)
		sim_page_set(page, SIM_PG_RECLAIMABLE);
	page->owner = idx + 1;
}

static int keep_piece(unsigned long pfn, unsigned int order, int kind)
{
	struct sim_page *page = sim_pfn_to_page(pfn);

	if (nr_pieces == pieces_cap) {
		size_t cap = pieces_cap ? 2 * pieces_cap : 4096;
		struct piece *p = realloc(pieces, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		pieces = p;
		pieces_cap = cap;
	}
	pieces[nr_pieces].pfn = pfn;
	pieces[nr_pieces].order = (unsigned char)order;
	pieces[nr_pieces].kind = (unsigned char)kind;
	pieces[nr_pieces].gone = 0;
	nr_pieces++;
	held_pages += 1UL << order;
	mark_piece_head(page, nr_pieces - 1);
	return 0;
}

/* Page cache is kept as folios of at most this order (64 KiB with 4 KiB pages). */
#define PAGECACHE_MAX_ORDER	4

/* Keep a piece; page cache as many folios, which reclaim frees one by one. */
static int keep(unsigned long pfn, unsigned int order, int kind)
{
	unsigned long i, nr;
	int ret = 0;

	if (kind != PIECE_PAGECACHE || order <= PAGECACHE_MAX_ORDER)
		return keep_piece(pfn, order, kind);
	nr = 1UL << (order - PAGECACHE_MAX_ORDER);
	for (i = 0; i < nr && !ret; i++)
		ret = keep_piece(pfn + (i << PAGECACHE_MAX_ORDER),
				 PAGECACHE_MAX_ORDER, kind);
	return ret;
}

/* What a kept piece is: per block migratetype and pageblock flavour. */
static int piece_kind(struct age_params *ap, int mt, int pure_cache)
{
	if (mt != SIM_MIGRATE_MOVABLE)
		return PIECE_SLAB;
	if (pure_cache || uniform(&ap->rng) < 0.5)
		return PIECE_PAGECACHE;
	return PIECE_ANON;
}

/*
 * Cut [pfn, pfn + 2^order) into pieces, give some back.  Returns 1 if the
 * whole node was given back, 0 if not, -ENOMEM.  pure_cache < 0: the
 * pageblock's flavour is not drawn yet.
 */
static int shape(struct age_params *ap, unsigned long pfn, unsigned int order,
		 int mt, int pure_cache, int may_give_back)
{
	double r = uniform(&ap->rng);
	int ret;

	if (pure_cache < 0 && order <= SIM_PAGEBLOCK_ORDER)
		pure_cache = uniform(&ap->rng) < ap->p_pure_cache;
	if (r < ap->split[order]) {
		ret = shape(ap, pfn, order - 1, mt, pure_cache, 1);
		if (ret < 0)
			return ret;
		ret = shape(ap, pfn + (1UL << (order - 1)), order - 1, mt,
			    pure_cache, !ret);
		return ret < 0 ? ret : 0;
	}
	if (may_give_back && uniform(&ap->rng) < ap->give_back[order]) {
		sim_buddy_free_direct(sim_pfn_to_page(pfn), order);
		return 1;
	}
	if (pure_cache < 0)
		pure_cache = uniform(&ap->rng) < ap->p_pure_cache;
	return keep(pfn, order, piece_kind(ap, mt, pure_cache));
}

static void set_params(struct age_params *ap, double level,
		       unsigned long long seed)
{
	double typical = 10.5 - 9.0 * level;
	double split = 0.78 * sqrt(level), give_back = 1.0 - 0.5 * level;
	unsigned int o, cap = SIM_MAX_ORDER - (level >= 0.5) - (level >= 0.9);

	memset(ap, 0, sizeof(*ap));
	ap->level = level;
	ap->p_unmovable = 0.04 + 0.08 * level;
	ap->p_reclaimable = 0.02;
	ap->p_pure_cache = 0.5 - 0.3 * level;
	for (o = 0; o < SIM_NR_ORDERS; o++) {
		ap->split[o] = o >= 3 ? split : split * o / 3.0;
		ap->give_back[o] = o > cap ? 0.0 : give_back /
			(1.0 + exp(1.5 * ((double)o - typical)));
	}
	/* Different levels with one seed are different workloads. */
	ap->rng = seed ^ ((unsigned long long)(level * 1e9) * 0x9e3779b97f4a7c15ULL);
}

static int draw_migratetype(struct age_params *ap)
{
	double r = uniform(&ap->rng);

	if (r < ap->p_unmovable)
		return SIM_MIGRATE_UNMOVABLE;
	if (r < ap->p_unmovable + ap->p_reclaimable)
		return SIM_MIGRATE_RECLAIMABLE;
	return SIM_MIGRATE_MOVABLE;
}

static const unsigned int mt_gfp[SIM_NR_MIGRATETYPES] = {
	[SIM_MIGRATE_UNMOVABLE] = 0,
	[SIM_MIGRATE_MOVABLE] = SIM_GFP_MOVABLE,
	[SIM_MIGRATE_RECLAIMABLE] = SIM_GFP_RECLAIMABLE,
};

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int index_segments(void)
{
	size_t i, n = 0;

	for (i = 0; i < nr_pieces; i++)
		if (!i || (pieces[i].pfn >> SIM_PAGEBLOCK_ORDER) !=
			  (pieces[i - 1].pfn >> SIM_PAGEBLOCK_ORDER))
			n++;
	segments = malloc((n + 1) * sizeof(*segments));
	if (!segments)
		return -ENOMEM;
	nr_segments = 0;
	for (i = 0; i < nr_pieces; i++)
		if (!i || (pieces[i].pfn >> SIM_PAGEBLOCK_ORDER) !=
			  (pieces[i - 1].pfn >> SIM_PAGEBLOCK_ORDER))
			segments[nr_segments++] = i;
	segments[nr_segments] = nr_pieces;
	reclaim_tail = nr_pieces;
	/* A stride coprime to the count visits every pageblock once. */
	reclaim_stride = n ? ((size_t)((double)n * 0.6180339887) | 1) : 1;
	while (n && gcd(reclaim_stride, n) != 1)
		reclaim_stride += 2;
	reclaim_step = reclaim_in_segment = 0;
	return 0;
}

struct taken_block {
	unsigned long pfn;
	unsigned char order;
	unsigned char mt;
};

/* Step 1: every free block, largest first, typed per block; NULL: -ENOMEM. */
static struct taken_block *take_all_free(struct age_params *ap, size_t *nr)
{
	struct taken_block *blocks = NULL, *b;
	size_t n = 0, cap = 0;
	int order;

	for (order = SIM_MAX_ORDER; order >= 0; order--) {
		for (;;) {
			int mt = draw_migratetype(ap);
			struct sim_page *page = sim_buddy_alloc((unsigned int)order,
								mt_gfp[mt] | SIM_GFP_NOWARN);

			if (!page)
				break;
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				b = realloc(blocks, cap * sizeof(*b));
				if (!b) {
					sim_buddy_free_direct(page, (unsigned int)order);
					goto err;
				}
				blocks = b;
			}
			blocks[n].pfn = sim_page_to_pfn(page);
			blocks[n].order = (unsigned char)order;
			blocks[n].mt = (unsigned char)mt;
			n++;
		}
		/* Bring back what per-cpu refills took beside the blocks. */
		sim_buddy_drain_pcp();
	}
	*nr = n;
	return blocks ? blocks : malloc(sizeof(*blocks));

err:
	while (n--)
		sim_buddy_free_direct(sim_pfn_to_page(blocks[n].pfn), blocks[n].order);
	free(blocks);
	return NULL;
}

int sim_age(double level, unsigned long long seed)
{
	struct taken_block *blocks;
	struct age_params ap;
	size_t i, nr = 0;
	int ret = 0;

	if (!(level >= 0.0 && level <= 1.0))
		return -EINVAL;
	pthread_mutex_lock(&age_lock);
	release_locked();
	if (level == 0.0) {
		pthread_mutex_unlock(&age_lock);
		return 0;
	}
	set_params(&ap, level, seed);
	sim_buddy_drain_pcp();
	blocks = take_all_free(&ap, &nr);
	if (!blocks) {
		pthread_mutex_unlock(&age_lock);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		ret = shape(&ap, blocks[i].pfn, blocks[i].order, blocks[i].mt, -1, 1);
		if (ret < 0)
			break;
	}
	if (ret < 0) {
		/* Give back the pieces kept so far and the blocks not cut. */
		for (i++; i < nr; i++)
			sim_buddy_free_direct(sim_pfn_to_page(blocks[i].pfn),
					      blocks[i].order);
		release_locked();
	}
	free(blocks);
	if (!ret)
		ret = index_segments();
	if (ret < 0)
		release_locked();
	pthread_mutex_unlock(&age_lock);
	return ret < 0 ? ret : 0;
}

double sim_age_preset(const char *name)
{
	static const struct {
		const char *name;
		double level;
	} presets[] = {
		{ "fresh", 0.0 },
		{ "aged", SIM_AGE_LEVEL_AGED },
		{ "fragmented", 1.0 },
	};
	size_t i;

	for (i = 0; name && i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(name, presets[i].name))
			return presets[i].level;
	return -1.0;
}

static void give_back(struct piece *p)
{
	struct sim_page *page = sim_pfn_to_page(p->pfn);

	p->gone = 1;
	held_pages -= 1UL << p->order;
	sim_buddy_free_direct(page, p->order);
}

static void release_locked(void)
{
	size_t i;

	for (i = 0; i < nr_pieces; i++)
		if (!pieces[i].gone)
			give_back(&pieces[i]);
	sim_age_forget();
}

void sim_age_release(void)
{
	pthread_mutex_lock(&age_lock);
	release_locked();
	pthread_mutex_unlock(&age_lock);
}

void sim_age_forget(void)
{
	free(pieces);
	pieces = NULL;
	nr_pieces = pieces_cap = 0;
	held_pages = 0;
	free(segments);
	segments = NULL;
	nr_segments = reclaim_step = reclaim_in_segment = reclaim_tail = 0;
}

unsigned long sim_age_held_pages(void)
{
	return held_pages;
}


unsigned long sim_age_reclaim(unsigned int order, unsigned int sim_gfp,
			      unsigned long max_pages)
{
	unsigned long reclaimed = 0;

	pthread_mutex_lock(&age_lock);
	while ((reclaim_step < nr_segments || reclaim_tail < nr_pieces) &&
	       !sim_buddy_fits(order, sim_gfp)) {
		size_t seg, idx;
		struct piece *p;

		if (reclaim_step >= nr_segments) {
			idx = reclaim_tail++;
		} else {
			seg = (reclaim_step * reclaim_stride) % nr_segments;
			idx = segments[seg] + reclaim_in_segment;
			if (idx >= segments[seg + 1]) {
				reclaim_step++;
				reclaim_in_segment = 0;
				continue;
			}
			reclaim_in_segment++;
		}
		p = &pieces[idx];
		if (p->gone || p->kind != PIECE_PAGECACHE)
			continue;
		give_back(p);
		reclaimed += 1UL << p->order;
		sim_count(SIM_CNT_RECLAIM_PAGE, 1UL << p->order);
		if (max_pages && reclaimed >= max_pages)
			break;
	}
	pthread_mutex_unlock(&age_lock);
	return reclaimed;
}

int sim_age_hold(struct sim_page *page, unsigned int order, enum sim_age_kind kind)
{
	int ret;

	if (!page || order > SIM_MAX_ORDER || kind > SIM_AGE_PAGECACHE ||
	    !sim_pfn_valid(sim_page_to_pfn(page)) ||
	    sim_page_test(page, SIM_PG_RESERVED) || sim_page_test(page, SIM_PG_AGED) ||
	    sim_page_test(page, SIM_PG_BUDDY) || sim_page_test(page, SIM_PG_PCP))
		return -EINVAL;
	pthread_mutex_lock(&age_lock);
	ret = keep_piece(sim_page_to_pfn(page), order, kind);
	pthread_mutex_unlock(&age_lock);
	return ret;
}

/* The held piece whose first page is page, or NULL. */
static struct piece *piece_of(const struct sim_page *page)
{
	size_t idx;

	if (!sim_page_test(page, SIM_PG_AGED) || !page->owner)
		return NULL;
	idx = page->owner - 1;
	if (idx >= nr_pieces || pieces[idx].gone ||
	    sim_pfn_to_page(pieces[idx].pfn) != page)
		return NULL;
	return &pieces[idx];
}

int sim_age_piece_at(unsigned long pfn, unsigned int *order, int *movable)
{
	struct piece *p;

	pthread_mutex_lock(&age_lock);
	p = piece_of(sim_pfn_to_page(pfn));
	if (p) {
		*order = p->order;
		*movable = p->kind != PIECE_SLAB;
	}
	pthread_mutex_unlock(&age_lock);
	return p != NULL;
}

void sim_age_piece_move(unsigned long from, unsigned long to)
{
	struct sim_page *old = sim_pfn_to_page(from), *new = sim_pfn_to_page(to);
	struct piece *p;
	unsigned int order;

	pthread_mutex_lock(&age_lock);
	p = piece_of(old);
	if (p) {
		order = p->order;
		p->pfn = to;
		mark_piece_head(new, (size_t)(p - pieces));
		sim_count(SIM_CNT_COMPACT_MIGRATE, 1UL << order);
		sim_buddy_free_direct(old, order);
	}
	pthread_mutex_unlock(&age_lock);
}

int sim_age_piece_split(unsigned long pfn)
{
	struct piece *p;
	int ret = -EINVAL;

	pthread_mutex_lock(&age_lock);
	p = piece_of(sim_pfn_to_page(pfn));
	if (p && p->order) {
		size_t idx = (size_t)(p - pieces);
		unsigned int order = p->order - 1u;

		/* The low half stays piece idx; the high half is a new piece. */
		pieces[idx].order = (unsigned char)order;
		held_pages -= 1UL << order;
		ret = keep_piece(pfn + (1UL << order), order, pieces[idx].kind);
		if (ret) {
			pieces[idx].order = (unsigned char)(order + 1);
			held_pages += 1UL << order;
		}
	}
	pthread_mutex_unlock(&age_lock);
	return ret;
}
