/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations shared by sim/physmem.c, sim/buddy.c and sim/age.c only:
 * how the three parts of simulated memory call each other.
 */
#ifndef DMASIM_MEM_INTERNAL_H
#define DMASIM_MEM_INTERNAL_H

#include "sim_internal.h"

/* physmem.c: page data. */
/* Zero the data of nr pages from page on whose data may be nonzero. */
void sim_mem_clear_data(struct sim_page *page, unsigned long nr);

/* Bytes of [addr, addr + len) resident in host memory. */
unsigned long long sim_mem_resident_bytes(void *addr, unsigned long len);

/* buddy.c: set up and tear down zones, free lists and per-cpu lists. */
int sim_buddy_init(const struct sim_config *cfg);
void sim_buddy_destroy(void);
/* The pageblock maps sim_buddy_destroy() kept for the next machine, unmapped. */
void sim_buddy_release_kept(void);
/* Host bytes of the allocator's own bookkeeping. */
unsigned long long sim_buddy_host_bytes(void);
/* sim_buddy_free() straight to the buddy lists, past the per-cpu lists. */
void sim_buddy_free_direct(struct sim_page *page, unsigned int order);
/* sim/cpus.c: called around each thread's outermost allocator call (NULL: none). */
void sim_buddy_set_call_hooks(void (*enter)(void), void (*exit)(void));
/* 1 if a free block of order >= order exists where sim_gfp may allocate. */
int sim_buddy_fits(unsigned int order, unsigned int sim_gfp);

/* age.c: the pages the ageing workload holds. */
/*
 * Direct reclaim: give back clean page-cache pieces, oldest first, until
 * sim_buddy_fits(order, sim_gfp) or max_pages were given back (0: no limit).
 * Returns the number of pages given back.
 */
unsigned long sim_age_reclaim(unsigned int order, unsigned int sim_gfp,
			      unsigned long max_pages);
/* Forget every held piece without freeing it (the machine is going away). */
void sim_age_forget(void);
/*
 * Compaction's view of the held pieces.  sim_age_piece_at: 1 if pfn is the
 * first page of a held piece (its order; movable: anonymous or page cache,
 * not slab), else 0.  sim_age_piece_move: the piece at from now lives at
 * to (a block compaction isolated, of the piece's order): to becomes the
 * piece's first page, from's block goes back to the buddy lists, the pages
 * count as migrated.  sim_age_piece_split: the piece at pfn becomes its
 * two halves (0, -EINVAL for order 0 or no piece, -ENOMEM).
 */
int sim_age_piece_at(unsigned long pfn, unsigned int *order, int *movable);
void sim_age_piece_move(unsigned long from, unsigned long to);
int sim_age_piece_split(unsigned long pfn);

/* buddy.c, for compaction (compact.c). */
struct sim_zone_info {
	unsigned long start_pfn, end_pfn;
	unsigned long deferred_start, deferred_end; /* free, on no list */
	unsigned long nr_free;		/* pages free in the zone's lists + deferred */
	unsigned long wmark_low;	/* the zone's low watermark, pages */
	unsigned long nr_blocks[SIM_NR_ORDERS];	/* free blocks per order */
};
/* Zones a request with sim_gfp may use, in the order it tries them. */
unsigned int sim_buddy_zones_for(unsigned int sim_gfp, unsigned int idx[2]);
void sim_buddy_zone_info(unsigned int zone, struct sim_zone_info *info);
/*
 * Compaction's free scanner: take the free block whose first page is pfn
 * off the free lists when its order is below `below` and its pageblock is
 * movable (the kernel's suitable_migration_target); the block then counts
 * as allocated until sim_buddy_free_direct() gives it (or its parts) back.
 * Returns its order, or -1.
 */
int sim_buddy_isolate_free(unsigned long pfn, unsigned int below);

#endif
