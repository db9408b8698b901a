// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scatter-gather table allocation and walking (see <linux/scatterlist.h>
 * for what is simplified).  A table of more than SG_MAX_SINGLE_ALLOC
 * entries is a chain of chunks, as the kernel builds it: every chunk but
 * the last is SG_MAX_SINGLE_ALLOC entries long and gives its last slot to
 * the link to the next chunk, so it carries SG_MAX_SINGLE_ALLOC - 1 data
 * entries; the last chunk is as long as the entries left.  Each chunk is
 * one kernel heap object (so it shows in sim_kmalloc_outstanding()), and
 * each chunk allocation first asks "shim/scatterlist/sg_alloc_table".
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <dmasim/sim.h>
#include <shim/sg_table.h>

struct scatterlist *sg_next(struct scatterlist *sg)
{
	if (sg_is_last(sg))
		return NULL;
	sg++;
	if (unlikely(sg_is_chain(sg)))
		sg = sg_chain_ptr(sg);
	return sg;
}

int sg_nents(struct scatterlist *sg)
{
	int n;

	for (n = 0; sg; sg = sg_next(sg))
		n++;
	return n;
}

struct scatterlist *sg_last(struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg, *last = NULL;
	unsigned int i;

	for_each_sg(sgl, sg, nents, i)
		last = sg;
	return last;
}

void sg_init_table(struct scatterlist *sgl, unsigned int nents)
{
	memset(sgl, 0, sizeof(*sgl) * nents);
	sg_init_marker(sgl, nents);
}

/* Data entries a chunk of a chained table holds when it is not the last. */
#define SG_CHUNK_DATA	(SG_MAX_SINGLE_ALLOC - 1)

/*
 * Chunks a table of nents entries takes: one if it fits in a single
 * allocation, else one per SG_CHUNK_DATA entries except that the last
 * chunk also uses the slot a link would take.
 */
static unsigned int sg_table_chunks(unsigned int nents)
{
	if (nents <= SG_MAX_SINGLE_ALLOC)
		return 1;
	return 1 + DIV_ROUND_UP(nents - SG_MAX_SINGLE_ALLOC, SG_CHUNK_DATA);
}

/*
 * Give back the first nr chunks of the chain at sgl.  All but the last of
 * them are full chunks, whose link sits in their last slot.
 */
static void sg_free_chunks(struct scatterlist *sgl, unsigned int nr)
{
	while (nr) {
		struct scatterlist *chunk = sgl;

		if (--nr)
			sgl = sg_chain_ptr(&chunk[SG_CHUNK_DATA]);
		sim_kfree(chunk);
	}
}

struct scatterlist *shim_sg_table_entry(struct sg_table *sgt, unsigned int i)
{
	unsigned int left = sgt->orig_nents;
	struct scatterlist *chunk = sgt->sgl;

	while (left > SG_MAX_SINGLE_ALLOC && i >= SG_CHUNK_DATA) {
		BUG_ON(!sg_is_chain(&chunk[SG_CHUNK_DATA]));
		chunk = sg_chain_ptr(&chunk[SG_CHUNK_DATA]);
		left -= SG_CHUNK_DATA;
		i -= SG_CHUNK_DATA;
	}
	return &chunk[i];
}

int sg_alloc_table(struct sg_table *table, unsigned int nents, gfp_t gfp_mask)
{
	unsigned int nr_chunks, done, left = nents;
	struct scatterlist *tail = NULL;

	memset(table, 0, sizeof(*table));
	if (nents == 0)
		return -EINVAL;
	nr_chunks = sg_table_chunks(nents);
	for (done = 0; done < nr_chunks; done++) {
		/* Only the last chunk can be short: it takes what is left. */
		unsigned int len = min_t(unsigned int, left,
					 SG_MAX_SINGLE_ALLOC);
		struct scatterlist *chunk = NULL;

		/*
		 * Zeroed by the allocator, so only the end mark is left of
		 * sg_init_table(): one pass over the chunk, not two (under
		 * ASan a malloc is filled with a pattern first).
		 */
		if (!sim_should_fail(SIM_FP_SG_ALLOC_TABLE))
			chunk = sim_kmalloc((unsigned long)len * sizeof(*chunk),
					    1);
		if (!chunk) {
			sg_free_chunks(table->sgl, done);
			memset(table, 0, sizeof(*table));
			return -ENOMEM;
		}
		sg_init_marker(chunk, len);
		if (tail)
			sg_chain(tail, SG_MAX_SINGLE_ALLOC, chunk);
		else
			table->sgl = chunk;
		tail = chunk;
		/* A chunk that is followed gives its last slot to the link. */
		left -= done + 1 < nr_chunks ? SG_CHUNK_DATA : len;
	}
	table->nents = nents;
	table->orig_nents = nents;
	return 0;
}

void sg_free_table(struct sg_table *table)
{
	if (!table->sgl)
		return;
	sg_free_chunks(table->sgl, sg_table_chunks(table->orig_nents));
	table->sgl = NULL;
	table->nents = 0;
	table->orig_nents = 0;
}

void __sg_page_iter_start(struct sg_page_iter *piter, struct scatterlist *sglist,
			  unsigned int nents, unsigned long pgoffset)
{
	piter->sg = sglist;
	piter->sg_pgoffset = pgoffset;
	piter->__nents = nents;
	piter->__pg_advance = 0;
}

/* Pages an entry spans, from its page's start to the end of its data. */
static unsigned int entry_pages(struct scatterlist *sg, unsigned int len)
{
	return PAGE_ALIGN((unsigned long)sg->offset + len) >> PAGE_SHIFT;
}

/*
 * Step one page on (not on the first call), then skip whole entries while
 * the page offset lies past the current one.  dma selects the DMA length.
 */
static bool sg_page_iter_step(struct sg_page_iter *piter, bool dma)
{
	unsigned int pages;

	if (!piter->sg || !piter->__nents)
		return false;
	piter->sg_pgoffset += piter->__pg_advance;
	piter->__pg_advance = 1;
	for (;;) {
		pages = entry_pages(piter->sg, dma ? sg_dma_len(piter->sg) :
						     piter->sg->length);
		if (piter->sg_pgoffset < pages)
			return true;
		piter->sg_pgoffset -= pages;
		piter->__nents--;
		if (!piter->__nents)
			return false;
		piter->sg = sg_next(piter->sg);
		if (!piter->sg)
			return false;
	}
}

bool __sg_page_iter_next(struct sg_page_iter *piter)
{
	return sg_page_iter_step(piter, false);
}

bool __sg_page_iter_dma_next(struct sg_dma_page_iter *dma_iter)
{
	return sg_page_iter_step(&dma_iter->base, true);
}
