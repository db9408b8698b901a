/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The dma-heap uapi (the kernel's uapi <linux/dma-heap.h>).
 * (a) Definitions that must match the kernel: struct dma_heap_allocation_data
 * (24 bytes: len, fd, fd_flags, heap_flags), the ioctl number
 * DMA_HEAP_IOCTL_ALLOC = _IOWR('H', 0, that struct) and the valid-flag masks.
 * The O_* values come from <linux/fcntl.h>, which the kernel side includes
 * before this header (through <linux/fs.h>), as in the kernel.
 */
#ifndef _DMASIM_UAPI_LINUX_DMA_HEAP_H
#define _DMASIM_UAPI_LINUX_DMA_HEAP_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* fd_flags a heap accepts: O_CLOEXEC and the access mode. */
#define DMA_HEAP_VALID_FD_FLAGS (O_CLOEXEC | O_ACCMODE)

/* No heap flag is defined. */
#define DMA_HEAP_VALID_HEAP_FLAGS (0ULL)

struct dma_heap_allocation_data {
	__u64 len;
	__u32 fd;
	__u32 fd_flags;
	__u64 heap_flags;
};

#define DMA_HEAP_IOC_MAGIC	'H'

#define DMA_HEAP_IOCTL_ALLOC	_IOWR(DMA_HEAP_IOC_MAGIC, 0x0, \
				      struct dma_heap_allocation_data)

#endif
