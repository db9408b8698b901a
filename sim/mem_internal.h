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
/* Host bytes of the allocator's own bookkeeping. */
unsigned long long sim_buddy_host_bytes(void);
/* sim_buddy_free() straight to the buddy lists, past the per-cpu lists. */
void sim_buddy_free_direct(struct sim_page *page, unsigned int order);
/* 1 if a free block of order >= order exists where sim_gfp may allocate. */
int sim_buddy_fits(unsigned int order, unsigned int sim_gfp);

/* age.c: the pages the ageing workload holds. */
/* Pages held (allocated by the workload and not yet given back). */
unsigned long sim_age_held_pages(void);
/*
 * Direct reclaim: give back clean page-cache pieces, oldest first, until
 * sim_buddy_fits(order, sim_gfp) or max_pages were given back (0: no limit).
 * Returns the number of pages given back.
 */
unsigned long sim_age_reclaim(unsigned int order, unsigned int sim_gfp,
			      unsigned long max_pages);
/* Forget every held piece without freeing it (the machine is going away). */
void sim_age_forget(void);

#endif
