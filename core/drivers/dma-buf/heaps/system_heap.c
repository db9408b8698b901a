// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim's own DMA-BUF system heap: buffers built from the largest page
 * blocks the buddy allocator can hand out at once, exported as dma-bufs.
 *
 * Allocation orders.  By default a buf is built from blocks of order 9
 * (2 MiB with 4 KiB pages: one PMD, the smallest superpage of Intel VT-d,
 * AMD-Vi v2 and Arm LPAE-4K IOMMUs), 8 (1 MiB), 4 (64 KiB) and 0.  The
 * module parameter "orders" replaces the list: orders=8,4,0 is mainline's
 * heap.  A list is accepted only if it is non-empty, strictly descending
 * and has no order above MAX_PAGE_ORDER; a module load with a bad list
 * fails with -EINVAL, and an allocation that finds a bad list (the
 * parameter is writable in the simulator) fails with -EINVAL too.  A list
 * without order 0 cannot finish lengths that are not a multiple of its
 * smallest block; those allocations fail with -ENOMEM.
 *
 * Orders above 0 are tried without reclaim and without retries, so they
 * fail fast when no block of that order is free; order 0 may reclaim.
 * Having fallen back to a smaller order once, the heap never tries a larger
 * one again for that buf, and it never takes a block larger than what
 * remains.  Each block becomes one scatterlist entry.
 */

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define LOW_ORDER_GFP	(GFP_HIGHUSER | __GFP_ZERO)
#define HIGH_ORDER_GFP	(((GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN | \
			   __GFP_NORETRY) & ~__GFP_RECLAIM) | __GFP_COMP)

static unsigned int orders[MAX_PAGE_ORDER + 1] = { 9, 8, 4, 0 };
static unsigned int num_orders = 4;
module_param_array(orders, uint, &num_orders, 0444);
MODULE_PARM_DESC(orders,
		 "Block orders to build buffers from, largest first (default 9,8,4,0)");

struct system_heap_buffer {
	struct sg_table sg_table;	/* one entry per block */
	unsigned long len;
	struct mutex lock;		/* attachments, vaddr */
	struct list_head attachments;
	void *vaddr;			/* the kernel mapping while vmapped */
	struct dma_heap *heap;
};

struct system_heap_attachment {
	struct device *dev;
	struct sg_table table;
	struct list_head list;
	bool mapped;
};

/*
 * The array parameter always holds 1 to ARRAY_SIZE(orders) values (the
 * parameter code refuses an empty or a longer list): only their order and
 * range are left to check.
 */
static bool system_heap_orders_valid(void)
{
	unsigned int i;

	for (i = 0; i < num_orders; i++) {
		if (orders[i] > MAX_PAGE_ORDER)
			return false;
		if (i && orders[i] >= orders[i - 1])
			return false;
	}
	return true;
}

/* Give the importer its own copy of the block list to map. */
static int system_heap_attach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	struct sg_table *src = &buf->sg_table;
	struct system_heap_attachment *a;
	struct scatterlist *sg, *dst;
	int i, ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;

	/* Each importer maps its own copy of the entries. */
	ret = sg_alloc_table(&a->table, src->orig_nents, GFP_KERNEL);
	if (ret) {
		kfree(a);
		return ret;
	}
	dst = a->table.sgl;
	for_each_sgtable_sg(src, sg, i) {
		sg_set_page(dst, sg_page(sg), sg->length, sg->offset);
		dst = sg_next(dst);
	}

	a->dev = attach->dev;
	INIT_LIST_HEAD(&a->list);
	a->mapped = false;
	attach->priv = a;

	mutex_lock(&buf->lock);
	list_add(&a->list, &buf->attachments);
	mutex_unlock(&buf->lock);
	return 0;
}

/* Forget the importer and its copy of the block list. */
static void system_heap_detach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	struct system_heap_attachment *a = attach->priv;

	mutex_lock(&buf->lock);
	list_del(&a->list);
	mutex_unlock(&buf->lock);

	sg_free_table(&a->table);
	kfree(a);
}

/* Map the importer's copy for its device through the DMA API. */
static struct sg_table *
system_heap_map_dma_buf(struct dma_buf_attachment *attach,
			enum dma_data_direction direction)
{
	struct system_heap_attachment *a = attach->priv;
	int ret;

	ret = dma_map_sgtable(attach->dev, &a->table, direction, 0);
	if (ret)
		return ERR_PTR(ret);
	a->mapped = true;
	return &a->table;
}

/* Undo system_heap_map_dma_buf(). */
static void system_heap_unmap_dma_buf(struct dma_buf_attachment *attach,
				      struct sg_table *table,
				      enum dma_data_direction direction)
{
	struct system_heap_attachment *a = attach->priv;

	a->mapped = false;
	dma_unmap_sgtable(attach->dev, table, direction, 0);
}

/* Make device writes visible to the CPU before it reads. */
static int system_heap_begin_cpu_access(struct dma_buf *dmabuf,
					enum dma_data_direction direction)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	struct system_heap_attachment *a;

	mutex_lock(&buf->lock);
	if (buf->vaddr)
		invalidate_kernel_vmap_range(buf->vaddr, buf->len);
	list_for_each_entry(a, &buf->attachments, list)
		if (a->mapped)
			dma_sync_sgtable_for_cpu(a->dev, &a->table, direction);
	mutex_unlock(&buf->lock);
	return 0;
}

/* Make CPU writes visible to devices again. */
static int system_heap_end_cpu_access(struct dma_buf *dmabuf,
				      enum dma_data_direction direction)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	struct system_heap_attachment *a;

	mutex_lock(&buf->lock);
	if (buf->vaddr)
		flush_kernel_vmap_range(buf->vaddr, buf->len);
	list_for_each_entry(a, &buf->attachments, list)
		if (a->mapped)
			dma_sync_sgtable_for_device(a->dev, &a->table,
						    direction);
	mutex_unlock(&buf->lock);
	return 0;
}

/*
 * Map the buf from vm_pgoff on: skip whole blocks below the offset, then
 * one remap_pfn_range() per block (or the part of it the VMA still covers).
 * The dma-buf core has checked that the VMA fits in the buf.
 */
static int system_heap_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	unsigned long addr = vma->vm_start;
	unsigned long skip = vma->vm_pgoff;
	struct scatterlist *sg;
	int i, ret;

	for_each_sgtable_sg(&buf->sg_table, sg, i) {
		unsigned long npages = sg->length >> PAGE_SHIFT;
		unsigned long size;

		if (addr >= vma->vm_end)
			break;
		if (skip >= npages) {
			skip -= npages;
			continue;
		}
		size = min((npages - skip) << PAGE_SHIFT, vma->vm_end - addr);
		ret = remap_pfn_range(vma, addr, page_to_pfn(sg_page(sg)) + skip,
				      size, vma->vm_page_prot);
		if (ret)
			return ret;
		addr += size;
		skip = 0;
	}
	return 0;
}

/* One virtually contiguous kernel mapping of every page of the buffer. */
static void *system_heap_do_vmap(struct system_heap_buffer *buf)
{
	unsigned long npages = PAGE_ALIGN(buf->len) >> PAGE_SHIFT;
	struct sg_page_iter piter;
	struct page **pages;
	unsigned long n = 0;
	void *vaddr;

	pages = vmalloc(array_size(npages, sizeof(*pages)));
	if (!pages)
		return ERR_PTR(-ENOMEM);
	/* The blocks add up to buf->len exactly: n never passes npages. */
	for_each_sgtable_page(&buf->sg_table, &piter, 0)
		pages[n++] = sg_page_iter_page(&piter);
	vaddr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	vfree(pages);
	return vaddr ? vaddr : ERR_PTR(-ENOMEM);
}

/*
 * The dma-buf core counts its vmap users (dma_buf_vmap()'s
 * vmapping_counter) and calls ->vmap for the first one and ->vunmap after
 * the last one only, so the heap holds one mapping and no count of its own.
 */
static int system_heap_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	void *vaddr = system_heap_do_vmap(buf);

	if (IS_ERR(vaddr))
		return PTR_ERR(vaddr);
	mutex_lock(&buf->lock);
	buf->vaddr = vaddr;
	mutex_unlock(&buf->lock);
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void system_heap_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct system_heap_buffer *buf = dmabuf->priv;
	void *vaddr;

	mutex_lock(&buf->lock);
	vaddr = buf->vaddr;
	buf->vaddr = NULL;
	mutex_unlock(&buf->lock);
	vunmap(vaddr);
	iosys_map_clear(map);
}

/* Give every block of the table back to the page allocator. */
static void system_heap_free_blocks(struct sg_table *table)
{
	struct scatterlist *sg;
	int i;

	for_each_sgtable_sg(table, sg, i)
		__free_pages(sg_page(sg), compound_order(sg_page(sg)));
	sg_free_table(table);
}

/* The last reference to the dma-buf is gone: free everything. */
static void system_heap_release(struct dma_buf *dmabuf)
{
	struct system_heap_buffer *buf = dmabuf->priv;

	system_heap_free_blocks(&buf->sg_table);
	kfree(buf);
}

static const struct dma_buf_ops system_heap_buf_ops = {
	.release = system_heap_release,
	.attach = system_heap_attach,
	.detach = system_heap_detach,
	.map_dma_buf = system_heap_map_dma_buf,
	.unmap_dma_buf = system_heap_unmap_dma_buf,
	.vmap = system_heap_vmap,
	.vunmap = system_heap_vunmap,
	.begin_cpu_access = system_heap_begin_cpu_access,
	.end_cpu_access = system_heap_end_cpu_access,
	.mmap = system_heap_mmap,
};

/*
 * The largest block, of an order in the list no larger than max_order and
 * no larger than remaining bytes, that the allocator gives at once.
 */
static struct page *system_heap_alloc_block(unsigned long remaining,
					    unsigned int max_order)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < num_orders; i++) {
		unsigned int order = orders[i];

		if (order > max_order || (PAGE_SIZE << order) > remaining)
			continue;
		page = alloc_pages(order ? HIGH_ORDER_GFP : LOW_ORDER_GFP,
				   order);
		if (page)
			return page;
	}
	return NULL;
}

static void system_heap_free_list(struct list_head *blocks)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, blocks, lru) {
		list_del(&page->lru);
		__free_pages(page, compound_order(page));
	}
}

static struct dma_buf *system_heap_allocate(struct dma_heap *heap,
					    unsigned long len, u32 fd_flags,
					    u64 heap_flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct system_heap_buffer *buf;
	unsigned long remaining = len;
	unsigned int max_order, nblocks = 0;
	struct page *page, *tmp;
	struct dma_buf *dmabuf;
	struct scatterlist *sg;
	LIST_HEAD(blocks);
	int ret;

	if (!system_heap_orders_valid()) {
		pr_warn("system_heap: invalid orders parameter\n");
		return ERR_PTR(-EINVAL);
	}
	max_order = orders[0];

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&buf->attachments);
	mutex_init(&buf->lock);
	buf->heap = heap;
	buf->len = len;

	while (remaining) {
		/* A killed task gets nothing more from the allocator. */
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_blocks;
		}
		page = system_heap_alloc_block(remaining, max_order);
		if (!page) {
			ret = -ENOMEM;
			goto err_blocks;
		}
		list_add_tail(&page->lru, &blocks);
		remaining -= page_size(page);
		max_order = compound_order(page);
		nblocks++;
	}

	ret = sg_alloc_table(&buf->sg_table, nblocks, GFP_KERNEL);
	if (ret)
		goto err_blocks;
	sg = buf->sg_table.sgl;
	list_for_each_entry_safe(page, tmp, &blocks, lru) {
		list_del(&page->lru);
		sg_set_page(sg, page, page_size(page), 0);
		sg = sg_next(sg);
	}

	exp_info.priv = buf;
	exp_info.ops = &system_heap_buf_ops;
	exp_info.exp_name = dma_heap_get_name(heap);
	exp_info.flags = fd_flags;
	exp_info.size = buf->len;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		system_heap_free_blocks(&buf->sg_table);
		kfree(buf);
		return ERR_PTR(ret);
	}
	return dmabuf;

err_blocks:
	system_heap_free_list(&blocks);
	kfree(buf);
	return ERR_PTR(ret);
}

static const struct dma_heap_ops system_heap_ops = {
	.allocate = system_heap_allocate,	/* the only heap op */
};

static int system_heap_create(void)
{
	struct dma_heap_export_info exp_info = {
		.name = "system",
		.ops = &system_heap_ops,
		.priv = NULL,
	};
	struct dma_heap *heap;

	if (!system_heap_orders_valid()) {
		pr_err("system_heap: orders must be descending and at most %d\n",
		       MAX_PAGE_ORDER);
		return -EINVAL;
	}
	heap = dma_heap_add(&exp_info);
	return PTR_ERR_OR_ZERO(heap);
}
module_init(system_heap_create);
MODULE_DESCRIPTION("dmasim DMA-BUF system heap");
MODULE_LICENSE("GPL");
