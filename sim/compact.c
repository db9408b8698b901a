// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct compaction: make a free block of a requested order by migrating
 * movable pages out of the way, as the kernel's mm/compaction.c (6.12)
 * does for an allocation's slow path.  Written from the kernel's contract,
 * not its code.
 *
 * What it reproduces:
 * - compaction_suitable(): a zone is compacted only when its free pages
 *   reach the low watermark plus compact_gap (2 << order), and, for
 *   costly orders, when a failure would be due to fragmentation: the
 *   fragmentation index (1000 - (1000 + free * 1000 / 2^order) / free
 *   blocks) above vm.extfrag_threshold (500).  Otherwise SKIPPED.
 * - Two scanners per zone: the migrate scanner walks pageblocks up from the
 *   zone's start, the free scanner pageblocks down from its end; they meet
 *   and the run is COMPLETE.  Zones in the request's zonelist order.
 * - Sources (suitable_migration_source): in ASYNC mode (MIGRATE_ASYNC,
 *   the first attempt of every slow path and every attempt of a NORETRY
 *   costly request) only pageblocks of the request's migratetype (any
 *   movable type for a movable request); in SYNC (MIGRATE_SYNC_LIGHT) all.
 *   So an unmovable request, the system heap's GFP_HIGHUSER, compacts only
 *   unmovable pageblocks when async.
 * - Isolation: the pieces the ageing workload holds as anonymous memory or
 *   page cache are movable; slab pieces, reserved pages and every other
 *   allocated page (buffers, page tables) are not.  A piece of the
 *   request's order or larger is not migrated.  ASYNC skips an
 *   order-aligned chunk at the first page it cannot move, releasing what it
 *   isolated there (isolate_migratepages_block's skip_on_failure); SYNC
 *   moves every movable piece it finds.
 * - Targets (suitable_migration_target): free blocks below the request's
 *   order in movable pageblocks above the migrate scanner, isolated whole
 *   (the kernel isolates COMPACT_CLUSTER_MAX pages at a time).  A piece is
 *   moved into the front of an isolated block of at least its order (the
 *   rest stays isolated); when no isolated block is big enough it is split
 *   in halves, as migrate_pages() splits a large folio it cannot place.
 *   What is isolated and unused goes back to the free lists at the end.
 * - __compact_finished(): checked at each pageblock boundary; SUCCESS once
 *   a free block of the order (or larger) exists in a zone the request may
 *   use.
 *
 * Not modelled: deferred compaction (compact_defer_shift), the pageblock
 *   skip hints and cached scanner positions (each run starts at the zone's
 *   ends), fast_find_migrateblock / fast_isolate_freepages, capture of the
 *   freed block (the allocation takes it from the lists right after),
 *   kcompactd and proactive compaction, page data (pieces the workload
 *   holds are never written, so there is nothing to copy; the copy is
 *   costed per page).
 *
 * Counted: SIM_CNT_COMPACT_SCAN per struct page a scanner examines (a free
 * block or a piece once), SIM_CNT_COMPACT_MIGRATE per page migrated (in
 * sim_age_piece_move); freeing the source and isolating targets count as
 * the buddy operations they are.
 */
#include <errno.h>
#include <stdlib.h>

#include "mem_internal.h"

#define PB_ORDER		SIM_PAGEBLOCK_ORDER
#define PB_PAGES		(1UL << PB_ORDER)
#define COSTLY_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER */
#define EXTFRAG_THRESHOLD	500	/* vm.extfrag_threshold default */

struct target {
	unsigned long pfn;
	unsigned int order;
};

struct compact_control {
	unsigned int order;		/* of the request */
	int migratetype;		/* of the request */
	enum sim_compact_mode mode;
	unsigned int sim_gfp;
	struct sim_zone_info zone;
	unsigned long migrate_pfn;	/* next pageblock the migrate scanner takes */
	unsigned long free_pfn;		/* the free scanner's last pageblock taken */
	struct target *targets;		/* isolated free blocks */
	size_t nr_targets, cap_targets;
};

static int gfp_migratetype(unsigned int sim_gfp)
{
	if (sim_gfp & SIM_GFP_MOVABLE)
		return SIM_MIGRATE_MOVABLE;
	if (sim_gfp & SIM_GFP_RECLAIMABLE)
		return SIM_MIGRATE_RECLAIMABLE;
	return SIM_MIGRATE_UNMOVABLE;
}

static int in_deferred(const struct sim_zone_info *z, unsigned long pfn)
{
	return pfn >= z->deferred_start && pfn < z->deferred_end;
}

/* The fragmentation index of __fragmentation_index(), in thousandths. */
static long fragmentation_index(const struct sim_zone_info *z, unsigned int order)
{
	unsigned long blocks = 0, free_pages = 0;
	unsigned int o;

	for (o = 0; o < SIM_NR_ORDERS; o++) {
		blocks += z->nr_blocks[o];
		free_pages += z->nr_blocks[o] << o;
		if (o >= order && z->nr_blocks[o])
			return -1000;
	}
	if (!blocks)
		return 0;
	return 1000 - (long)((1000 + free_pages * 1000 / (1UL << order)) / blocks);
}

static int compaction_suitable(const struct sim_zone_info *z, unsigned int order)
{
	long fragindex;

	if (z->nr_free < z->wmark_low + (2UL << order))
		return 0;
	if (order <= COSTLY_ORDER)
		return 1;
	fragindex = fragmentation_index(z, order);
	return !(fragindex >= 0 && fragindex <= EXTFRAG_THRESHOLD);
}

static int suitable_source(const struct compact_control *cc, unsigned long pb)
{
	int mt = sim_pageblock_migratetype(pb);

	if (cc->mode == SIM_COMPACT_SYNC)
		return 1;
	if (cc->migratetype == SIM_MIGRATE_MOVABLE)
		return mt == SIM_MIGRATE_MOVABLE;
	return mt == cc->migratetype;
}

static int push_target(struct compact_control *cc, unsigned long pfn,
		       unsigned int order)
{
	if (cc->nr_targets == cc->cap_targets) {
		size_t cap = cc->cap_targets ? 2 * cc->cap_targets : 64;
		struct target *t = realloc(cc->targets, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		cc->targets = t;
		cc->cap_targets = cap;
	}
	cc->targets[cc->nr_targets].pfn = pfn;
	cc->targets[cc->nr_targets].order = order;
	cc->nr_targets++;
	return 0;
}

/*
 * The free scanner: isolate the free blocks of the next pageblock down
 * that is a migration target.  0 if one was scanned, -1 if the scanners met.
 */
static int isolate_freepages(struct compact_control *cc)
{
	while (cc->free_pfn > cc->migrate_pfn) {
		unsigned long pb = cc->free_pfn - PB_PAGES, pfn = pb, end;
		int found = 0;

		cc->free_pfn = pb;
		if (pb < cc->zone.start_pfn || in_deferred(&cc->zone, pb) ||
		    sim_pageblock_migratetype(pb) != SIM_MIGRATE_MOVABLE)
			continue;
		end = pb + PB_PAGES < cc->zone.end_pfn ? pb + PB_PAGES : cc->zone.end_pfn;
		while (pfn < end) {
			struct sim_page *page = sim_pfn_to_page(pfn);
			int order;

			sim_count(SIM_CNT_COMPACT_SCAN, 1);
			if (!sim_page_test(page, SIM_PG_BUDDY)) {
				pfn++;
				continue;
			}
			order = sim_buddy_isolate_free(pfn, cc->order);
			if (order < 0) {
				pfn += 1UL << page->private;
				continue;
			}
			if (push_target(cc, pfn, (unsigned int)order)) {
				sim_buddy_free_direct(page, (unsigned int)order);
				return -1;
			}
			found = 1;
			pfn += 1UL << order;
		}
		if (found)
			return 0;
	}
	return -1;
}

/*
 * The isolated block a piece of this order goes to: the smallest of at
 * least the order, its front part split off (the high halves stay
 * isolated).  -1 if none is isolated.
 */
static long take_target(struct compact_control *cc, unsigned int order)
{
	size_t i, best = cc->nr_targets;
	struct target t;

	for (i = 0; i < cc->nr_targets; i++)
		if (cc->targets[i].order >= order &&
		    (best == cc->nr_targets || cc->targets[i].order < cc->targets[best].order))
			best = i;
	if (best == cc->nr_targets)
		return -1;
	t = cc->targets[best];
	cc->targets[best] = cc->targets[--cc->nr_targets];
	while (t.order > order) {
		t.order--;
		if (push_target(cc, t.pfn + (1UL << t.order), t.order))
			sim_buddy_free_direct(sim_pfn_to_page(t.pfn + (1UL << t.order)),
					      t.order);
	}
	return (long)t.pfn;
}

/*
 * Migrate the piece at pfn (of this order); 0, or -1 when the targets ran
 * out.  When the scanners have met and no isolated block is big enough,
 * the piece is split and its halves placed one by one.
 */
static int migrate_piece(struct compact_control *cc, unsigned long pfn,
			 unsigned int order)
{
	for (;;) {
		long to = take_target(cc, order);

		if (to >= 0) {
			sim_age_piece_move(pfn, (unsigned long)to);
			return 0;
		}
		if (!isolate_freepages(cc))
			continue;
		if (!order || !cc->nr_targets || sim_age_piece_split(pfn))
			return -1;
		order--;
		if (migrate_piece(cc, pfn + (1UL << order), order))
			return -1;
	}
}

/* What a scanner finds at pfn: free (skip), a movable piece, or a page it cannot move. */
enum page_kind { PAGE_FREE, PAGE_MOVABLE, PAGE_PINNED };

static enum page_kind classify(unsigned long pfn, unsigned int request_order,
			       unsigned int *order)
{
	struct sim_page *page = sim_pfn_to_page(pfn);
	int movable;

	*order = 0;
	if (sim_page_test(page, SIM_PG_BUDDY)) {
		*order = (unsigned int)page->private;
		return PAGE_FREE;
	}
	if (sim_page_test(page, SIM_PG_PCP)) {
		*order = page->pcp_order;
		return PAGE_FREE;
	}
	if (sim_page_test(page, SIM_PG_AGED) && sim_age_piece_at(pfn, order, &movable))
		return movable && *order < request_order ? PAGE_MOVABLE : PAGE_PINNED;
	if (sim_page_test(page, SIM_PG_HEAD))
		*order = page->compound_order;
	return PAGE_PINNED;
}

struct isolated {
	unsigned long pfn;
	unsigned int order;
};

/*
 * The migrate scanner over one order-aligned chunk [pfn, end): collect its
 * movable pieces; ASYNC gives up on the chunk at the first page it cannot
 * move.  Returns the number collected, or -1 for a chunk given up.
 */
static long isolate_chunk(struct compact_control *cc, unsigned long pfn,
			  unsigned long end, struct isolated *out)
{
	long n = 0;

	while (pfn < end) {
		unsigned int order;
		enum page_kind kind = classify(pfn, cc->order, &order);

		sim_count(SIM_CNT_COMPACT_SCAN, 1);
		if (kind == PAGE_PINNED && cc->mode == SIM_COMPACT_ASYNC)
			return -1;
		if (kind == PAGE_MOVABLE) {
			out[n].pfn = pfn;
			out[n].order = order;
			n++;
		}
		pfn += 1UL << order;
	}
	return n;
}

/* Compact one pageblock as a migration source; -1 when targets ran out. */
static int compact_pageblock(struct compact_control *cc, unsigned long pb,
			     struct isolated *buf)
{
	unsigned int chunk_order = cc->order < PB_ORDER ? cc->order : PB_ORDER;
	unsigned long chunk, end = pb + PB_PAGES;

	if (end > cc->zone.end_pfn)
		end = cc->zone.end_pfn;
	for (chunk = pb; chunk < end; chunk += 1UL << chunk_order) {
		unsigned long cend = chunk + (1UL << chunk_order);
		long n = isolate_chunk(cc, chunk, cend < end ? cend : end, buf);

		for (long i = 0; i < n; i++)
			if (migrate_piece(cc, buf[i].pfn, buf[i].order))
				return -1;
	}
	return 0;
}

static enum sim_compact_result compact_zone(struct compact_control *cc)
{
	enum sim_compact_result result = SIM_COMPACT_COMPLETE;
	struct isolated *buf = malloc(PB_PAGES * sizeof(*buf));
	size_t i;

	if (!buf)
		return SIM_COMPACT_SKIPPED;
	cc->migrate_pfn = cc->zone.start_pfn & ~(PB_PAGES - 1);
	cc->free_pfn = (cc->zone.end_pfn + PB_PAGES - 1) & ~(PB_PAGES - 1);
	while (cc->migrate_pfn < cc->free_pfn) {
		unsigned long pb = cc->migrate_pfn;

		cc->migrate_pfn += PB_PAGES;
		if (in_deferred(&cc->zone, pb) || !suitable_source(cc, pb))
			continue;
		if (compact_pageblock(cc, pb, buf))
			break;
		if (sim_buddy_fits(cc->order, cc->sim_gfp)) {
			result = SIM_COMPACT_SUCCESS;
			break;
		}
	}
	for (i = 0; i < cc->nr_targets; i++)
		sim_buddy_free_direct(sim_pfn_to_page(cc->targets[i].pfn),
				      cc->targets[i].order);
	cc->nr_targets = 0;
	free(buf);
	if (result != SIM_COMPACT_SUCCESS && sim_buddy_fits(cc->order, cc->sim_gfp))
		result = SIM_COMPACT_SUCCESS;
	return result;
}

enum sim_compact_result sim_compact(unsigned int order, unsigned int sim_gfp,
				    enum sim_compact_mode mode)
{
	struct compact_control cc = {
		.order = order, .migratetype = gfp_migratetype(sim_gfp),
		.mode = mode, .sim_gfp = sim_gfp,
	};
	enum sim_compact_result result = SIM_COMPACT_SKIPPED;
	unsigned int zones[2], n, i;

	if (!order || order > SIM_MAX_ORDER)
		return SIM_COMPACT_SKIPPED;
	sim_buddy_drain_pcp();
	n = sim_buddy_zones_for(sim_gfp, zones);
	for (i = 0; i < n && result != SIM_COMPACT_SUCCESS; i++) {
		sim_buddy_zone_info(zones[i], &cc.zone);
		if (!compaction_suitable(&cc.zone, order))
			continue;
		result = compact_zone(&cc);
	}
	free(cc.targets);
	return result;
}
