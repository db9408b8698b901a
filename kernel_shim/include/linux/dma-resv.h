/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reservation objects, as the kernel's <linux/dma-resv.h>: only the lock.
 * (a) The kernel's contract kept: dma_resv_lock() serialises the dma-buf
 *     core's map/unmap/vmap of a buffer, dma_resv_assert_held() checks it.
 * Simplified: a plain mutex instead of a ww_mutex (no acquire contexts, so
 *     no -EDEADLK/-EALREADY: one buffer is locked at a time here); no fences.
 */
#ifndef _DMASIM_LINUX_DMA_RESV_H
#define _DMASIM_LINUX_DMA_RESV_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct ww_acquire_ctx;

struct dma_resv {
	struct mutex lock;
};

static inline void dma_resv_init(struct dma_resv *obj)
{
	mutex_init(&obj->lock);
}

static inline void dma_resv_fini(struct dma_resv *obj)
{
	mutex_destroy(&obj->lock);
}

static inline int dma_resv_lock(struct dma_resv *obj,
				struct ww_acquire_ctx *ctx)
{
	mutex_lock(&obj->lock);
	return 0;
}

static inline int dma_resv_lock_interruptible(struct dma_resv *obj,
					      struct ww_acquire_ctx *ctx)
{
	return dma_resv_lock(obj, ctx);
}

static inline void dma_resv_unlock(struct dma_resv *obj)
{
	mutex_unlock(&obj->lock);
}

#define dma_resv_assert_held(obj)	lockdep_assert_held(&(obj)->lock)

#endif
