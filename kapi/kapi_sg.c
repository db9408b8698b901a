// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points to the scatterlist shim (declared in
 * <dmasim/kapi_sg.h>): build a table with sg_alloc_table() and report what
 * each walker saw, so a test can check chaining without a kernel header.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dmasim/kapi_sg.h>
#include <dmasim/sim.h>

unsigned int kapi_sg_max_single_alloc(void)
{
	return SG_MAX_SINGLE_ALLOC;
}

/* Pages entry i of a walked table spans (see struct kapi_sg_walk). */
static unsigned int kapi_sg_entry_pages(unsigned int i)
{
	return i % 3 + 1;
}

/* Give every entry its length and tag; count entries, links and hops. */
static struct scatterlist *kapi_sg_tag_entries(struct sg_table *sgt,
					       struct kapi_sg_walk *walk)
{
	struct scatterlist *sg, *prev = NULL;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		unsigned int len = kapi_sg_entry_pages(i) << PAGE_SHIFT;

		if (sg_is_chain(sg))
			walk->links_visited++;
		if (prev && sg != prev + 1)
			walk->chunk_hops++;
		sg_set_page(sg, NULL, len, 0);
		sg_dma_address(sg) = i;
		sg_dma_len(sg) = len;
		walk->visited++;
		prev = sg;
	}
	return prev;
}

/* Follow sg_next() from the first entry to the end mark. */
static void kapi_sg_check_order(struct sg_table *sgt,
				struct kapi_sg_walk *walk)
{
	struct scatterlist *sg;
	unsigned int i = 0;

	for (sg = sgt->sgl; sg; sg = sg_next(sg), i++)
		if (sg_dma_address(sg) == i)
			walk->tags_in_order++;
}

/*
 * The page iterators, CPU then DMA side: step n must be page p of the
 * entry tagged e, where e and p run through every page of every entry.
 */
static void kapi_sg_check_pages(struct sg_table *sgt,
				struct kapi_sg_walk *walk)
{
	struct sg_dma_page_iter diter;
	struct sg_page_iter piter;
	unsigned int e = 0, p = 0;

	for_each_sgtable_page(sgt, &piter, 0) {
		walk->pages++;
		if (sg_dma_address(piter.sg) == e && piter.sg_pgoffset == p)
			walk->pages_in_order++;
		if (++p == kapi_sg_entry_pages(e)) {
			e++;
			p = 0;
		}
	}
	e = 0;
	p = 0;
	for_each_sgtable_dma_page(sgt, &diter, 0) {
		walk->dma_pages++;
		if (sg_page_iter_dma_address(&diter) ==
		    e + ((dma_addr_t)p << PAGE_SHIFT))
			walk->dma_pages_in_order++;
		if (++p == kapi_sg_entry_pages(e)) {
			e++;
			p = 0;
		}
	}
}

int kapi_sg_table_walk(unsigned int nents, struct kapi_sg_walk *walk)
{
	unsigned long long before = sim_kmalloc_outstanding();
	struct scatterlist *last;
	struct sg_table sgt;
	int ret;

	memset(walk, 0, sizeof(*walk));
	ret = sg_alloc_table(&sgt, nents, GFP_KERNEL);
	walk->orig_nents = sgt.orig_nents;
	walk->nents = sgt.nents;
	walk->sgl_set = sgt.sgl != NULL;
	walk->objects = sim_kmalloc_outstanding() - before;
	if (ret)
		return ret;

	last = kapi_sg_tag_entries(&sgt, walk);
	kapi_sg_check_order(&sgt, walk);
	walk->sg_nents = sg_nents(sgt.sgl);
	walk->last_is_marked_end = sg_last(sgt.sgl, sgt.orig_nents) == last &&
				   sg_is_last(last);
	kapi_sg_check_pages(&sgt, walk);
	sg_free_table(&sgt);
	return 0;
}
