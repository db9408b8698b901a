/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A dma-debug-like oracle for the scatterlist DMA API (kernel_shim/
 * dma_debug.c), as CONFIG_DMA_API_DEBUG's kernel/dma/debug.c checks it:
 * always on in the simulator.
 *
 * (a) The kernel's checks, each reported with a WARN (which every suite
 *     counts as a defect):
 *     - at map, the first `mapped` entries (one per DMA segment): an
 *       entry whose CPU length is over dma_get_max_seg_size(), or a DMA
 *       segment crossing dma_get_seg_boundary() (check_sg_segment());
 *     - at unmap and at sync, a list that was never mapped, a direction
 *       other than the map's, or an entry count other than the one passed
 *       to the map (dma-debug's sg_call_ents): dma_unmap_sgtable() and the
 *       dma_sync_sgtable_*() pass orig_nents, which is what was mapped;
 *       passing sgt->nents (the merged segment count) is the bug this
 *       catches.  A sync may use any direction on a bidirectional list;
 *     - at driver unbind, lists the device still has mapped.
 * Simplified: records are keyed by (device, first entry) instead of by DMA
 *     address, one per mapped list, in a fixed pool; when the pool is full
 *     the oracle disables itself with one message, as dma-debug does when
 *     it runs out of entries.  A new map of a list still recorded replaces
 *     the record.
 */
#ifndef _DMASIM_SHIM_DMA_DEBUG_H
#define _DMASIM_SHIM_DMA_DEBUG_H

#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/scatterlist.h>

void debug_dma_map_sg(struct device *dev, struct scatterlist *sg, int nents,
		      int mapped, enum dma_data_direction dir);
void debug_dma_unmap_sg(struct device *dev, struct scatterlist *sg, int nents,
			enum dma_data_direction dir);
void debug_dma_sync_sg(struct device *dev, struct scatterlist *sg, int nents,
		       enum dma_data_direction dir);
/*
 * The driver lets go of dev (dma_debug_device_change() on unbind): a list
 * still mapped is reported (WARN, "pending DMA allocations") and forgotten.
 */
void debug_dma_device_release(struct device *dev);
/* Lists mapped and not yet unmapped. */
unsigned int dma_debug_nr_mapped(void);

#endif
