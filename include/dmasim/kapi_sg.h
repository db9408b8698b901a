/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points to the scatterlist shim
 * (kapi/kapi_sg.c), so a test can build a table with the kernel's
 * sg_alloc_table() and check what every walker of <linux/scatterlist.h>
 * sees of it.  See kapi.h for the conventions.
 */
#ifndef DMASIM_KAPI_SG_H
#define DMASIM_KAPI_SG_H

/* SG_MAX_SINGLE_ALLOC: the entries one chunk of a table holds. */
unsigned int kapi_sg_max_single_alloc(void);

/*
 * What the walkers saw of one table of nents entries.  Entry i is given
 * (i % 3) + 1 pages of CPU and DMA length and its index as a tag, in a
 * for_each_sgtable_sg() pass; every other figure comes from a later pass.
 */
struct kapi_sg_walk {
	unsigned int orig_nents, nents;	/* the table's, after the call */
	int sgl_set;			/* the table has a first chunk */
	unsigned long long objects;	/* kernel heap objects it took */
	unsigned int visited;		/* entries for_each_sgtable_sg gave */
	unsigned int links_visited;	/* of them, SG_CHAIN links (0) */
	unsigned int chunk_hops;	/* steps to a non-adjacent entry */
	unsigned int tags_in_order;	/* sg_next() from sgl: tag i at step i */
	int sg_nents;			/* sg_nents(sgl) */
	int last_is_marked_end;		/* sg_last() = last visited, SG_END */
	unsigned int pages;		/* for_each_sgtable_page steps */
	unsigned int pages_in_order;	/* of them, at the expected entry+page */
	unsigned int dma_pages;		/* the same for the DMA page walk */
	unsigned int dma_pages_in_order;
};

/*
 * sg_alloc_table() of nents entries, walked as above, then
 * sg_free_table().  Returns sg_alloc_table()'s result; on failure only
 * orig_nents, nents, sgl_set and objects are filled in (the table is left
 * as the failed call left it: nothing is freed on its behalf).
 */
int kapi_sg_table_walk(unsigned int nents, struct kapi_sg_walk *walk);

#endif
