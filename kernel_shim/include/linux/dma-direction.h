/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DMA directions, as the kernel's <linux/dma-direction.h>.
 * (a) Definitions that must match the kernel: the enum values.
 */
#ifndef _DMASIM_LINUX_DMA_DIRECTION_H
#define _DMASIM_LINUX_DMA_DIRECTION_H

#include <linux/types.h>

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

static inline int valid_dma_direction(enum dma_data_direction dir)
{
	return dir == DMA_BIDIRECTIONAL || dir == DMA_TO_DEVICE ||
	       dir == DMA_FROM_DEVICE;
}

#endif
