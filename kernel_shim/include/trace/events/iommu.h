/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The IOMMU core's tracepoints (<trace/events/iommu.h>), same names and
 * arguments as Linux 6.12.
 * (c) Test doubles: trace_map() and trace_unmap() feed the cost model, one
 *     SIM_CNT_IOMMU_MAP_CALL / SIM_CNT_IOMMU_UNMAP_CALL each: the core fires
 *     map on a successful mapping of one physically contiguous range (once
 *     per iommu_map(), once per coalesced run of iommu_map_sg()) and unmap
 *     once per iommu_unmap()/iommu_unmap_fast() that passed its checks.
 *     The group, device and fault events are counted per event
 *     (sim_iommu_trace_events()), as a trace consumer would see them fire.
 */
#ifndef _DMASIM_TRACE_EVENTS_IOMMU_H
#define _DMASIM_TRACE_EVENTS_IOMMU_H

#include <linux/types.h>

#include <dmasim/sim.h>
#include <dmasim/sim_iommu.h>

struct device;

static inline void trace_map(unsigned long iova, phys_addr_t paddr,
			     size_t size)
{
	sim_count(SIM_CNT_IOMMU_MAP_CALL, 1);
}

static inline void trace_unmap(unsigned long iova, size_t size,
			       size_t unmapped_size)
{
	sim_count(SIM_CNT_IOMMU_UNMAP_CALL, 1);
}

static inline void trace_add_device_to_group(int group_id, struct device *dev)
{
	sim_iommu_trace_event(SIM_IOMMU_TRACE_ADD_DEVICE_TO_GROUP);
}

static inline void trace_remove_device_from_group(int group_id,
						  struct device *dev)
{
	sim_iommu_trace_event(SIM_IOMMU_TRACE_REMOVE_DEVICE_FROM_GROUP);
}

static inline void trace_attach_device_to_domain(struct device *dev)
{
	sim_iommu_trace_event(SIM_IOMMU_TRACE_ATTACH_DEVICE_TO_DOMAIN);
}

static inline void trace_io_page_fault(struct device *dev, unsigned long iova,
				       int flags)
{
	sim_iommu_trace_event(SIM_IOMMU_TRACE_IO_PAGE_FAULT);
}

#endif
