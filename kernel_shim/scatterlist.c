// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scatter-gather table allocation and walking (see <linux/scatterlist.h>
 * for what is simplified): one flat array per table, taken from the kernel
 * heap (so it shows in sim_kmalloc_outstanding()), fallible through
 * "shim/scatterlist/sg_alloc_table".
 */
#include <linux/errno.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <dmasim/sim.h>

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

int sg_alloc_table(struct sg_table *table, unsigned int nents, gfp_t gfp_mask)
{
	struct scatterlist *sgl;

	memset(table, 0, sizeof(*table));
	if (nents == 0)
		return -EINVAL;
	if (sim_should_fail(SIM_FP_SG_ALLOC_TABLE))
		return -ENOMEM;
	sgl = sim_kmalloc((unsigned long)nents * sizeof(*sgl), 0);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, nents);
	table->sgl = sgl;
	table->nents = nents;
	table->orig_nents = nents;
	return 0;
}

void sg_free_table(struct sg_table *table)
{
	if (!table->sgl)
		return;
	sim_kfree(table->sgl);
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
