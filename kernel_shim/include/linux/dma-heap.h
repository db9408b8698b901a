/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DMA-BUF heaps, as the kernel's <linux/dma-heap.h> (6.12, plus current
 * trees' mem_accounting, and 6.1's ->allocate flag types).
 * (a) Definitions that must match the kernel: struct dma_heap_ops,
 *     struct dma_heap_export_info, the three functions a heap driver
 *     calls and the mem_accounting flag current heap cores export.  The heap core itself is kernel code under test
 *     (core/drivers/dma-buf/dma-heap.c, or the kernel tree's own).
 */
#ifndef _DMASIM_LINUX_DMA_HEAP_H
#define _DMASIM_LINUX_DMA_HEAP_H

#include <linux/types.h>
#include <linux/version.h>

struct dma_buf;
struct dma_heap;

/*
 * The flags' types of ->allocate follow the tree's heap, whose function
 * the member points to: unsigned long for both in 6.1, u32 and u64 in
 * 6.12 (DMASIM_PROBED_HEAP_ALLOCATE_ULONG_FLAGS reads system_heap.c's;
 * when it cannot, trees before 6.12 get unsigned long).  The struct is the
 * same one pointer either way, and on x86-64 both are passed alike in
 * 64-bit registers, so a heap of one kind (kapi's test heap is 6.12's) is
 * called correctly by a core of the other.
 */
#if defined(DMASIM_PROBED_HEAP_ALLOCATE_ULONG_FLAGS) ? \
	DMASIM_PROBED_HEAP_ALLOCATE_ULONG_FLAGS : \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
struct dma_heap_ops {
	struct dma_buf *(*allocate)(struct dma_heap *heap, unsigned long len,
				    unsigned long fd_flags,
				    unsigned long heap_flags);
};
#else
struct dma_heap_ops {
	struct dma_buf *(*allocate)(struct dma_heap *heap, unsigned long len,
				    u32 fd_flags, u64 heap_flags);
};
#endif

struct dma_heap_export_info {
	const char *name;
	const struct dma_heap_ops *ops;
	void *priv;
};

/*
 * Current trees: "dma_heap.mem_accounting", the heap core's read-only
 * module parameter (default false), which heap drivers read to decide
 * whether to charge their allocations to the caller's memcg
 * (__GFP_ACCOUNT).  Defined by the tree's own dma-heap.c, which registers
 * it through module_param() (kapi_param_set("dma_heap.mem_accounting")
 * sets it in a test); 6.12's has none, and no file of it refers to it.
 */
extern bool mem_accounting;

void *dma_heap_get_drvdata(struct dma_heap *heap);
const char *dma_heap_get_name(struct dma_heap *heap);
struct dma_heap *dma_heap_add(const struct dma_heap_export_info *exp_info);

#endif
