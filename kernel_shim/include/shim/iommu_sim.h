/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated IOMMU driver (kernel_shim/drivers/iommu_sim.c), for other kernel
 * translation units of the shim (the DMA layer, VFIO's device shims, kapi).
 * No kernel counterpart: on a real machine this is firmware plus the
 * IOMMU driver's probe.
 *
 * A simulated device sits behind one simulated IOMMU instance per format.
 * Creating it probes it through the IOMMU core (iommu_probe_device): it
 * joins a new group (or a peer's group) and gets a default DMA domain of
 * its IOMMU's format.  Each domain of the driver is backed by a
 * sim_iommu_domain (sim/iommu.c), which holds the real page tables.
 *
 * A device may also describe its platform (struct sim_iommu_dev_opts):
 * the reserved regions its IOMMU reports for it (get_resv_regions: MSI
 * windows, direct-mapped and reserved ranges), a narrower aperture for
 * the paging domains allocated for it, and an IOMMU unit without snoop
 * control (its domains cannot enforce cache coherency), and a platform
 * without interrupt remapping for it (msi_device_has_isolated_msi() false).  Without options a device reports
 * no region and its domains span the format's whole input address space.
 *
 * (c) Test double: every driver call (map_pages, unmap_pages, iotlb_sync,
 *     iotlb_sync_map, flush_iotlb_all) can be recorded in a bounded ring,
 *     read through <dmasim/kapi_iommu.h>.
 */
#ifndef _DMASIM_SHIM_IOMMU_SIM_H
#define _DMASIM_SHIM_IOMMU_SIM_H

#include <linux/device.h>
#include <linux/iommu.h>

#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

/*
 * A device named @name behind the simulated IOMMU of @format, probed.
 * With @group_peer, it joins that device's group (same format required)
 * instead of a new one.  ERR_PTR(-EINVAL) for a bad format, -ENOMEM on
 * allocation failure (fault points shim/slab/kmalloc, probe_device,
 * domain_alloc, pgtable_alloc), as the probe returned it.
 */
struct device *sim_iommu_device_create(const char *name,
				       enum sim_iommu_format_id format,
				       struct device *group_peer);
/* What a device reports beyond its format (see above). */
#define SIM_IOMMU_MAX_RESV	8
struct sim_iommu_dev_resv {
	u64 start;
	u64 length;
	int type;			/* enum iommu_resv_type */
	int prot;			/* IOMMU_READ | ... */
};
struct sim_iommu_dev_opts {
	u64 aperture_start, aperture_end;	/* both 0: the format's */
	bool no_snoop_control;		/* its unit cannot block no-snoop */
	bool no_isolated_msi;		/* no interrupt remapping for it */
	unsigned int nr_resv;
	struct sim_iommu_dev_resv resv[SIM_IOMMU_MAX_RESV];
};
/* sim_iommu_device_create() with options (NULL: none). */
struct device *sim_iommu_device_create_opts(const char *name,
					    enum sim_iommu_format_id format,
					    struct device *group_peer,
					    const struct sim_iommu_dev_opts *opts);

/*
 * dma-iommu's MSI cookie (iommu_get_msi_cookie()), as the domain holds it:
 * 0 and *base if the domain has one, -ENOENT if not.  With dma_iommu off
 * the platform is built without CONFIG_IOMMU_DMA: iommu_get_msi_cookie()
 * is the kernel's stub and returns -ENODEV.
 */
int sim_iommu_domain_msi_cookie(struct iommu_domain *domain, u64 *base);
void sim_iommu_set_dma_iommu(bool on);

/* Leaves its group (the group's default domain goes with the last one). */
void sim_iommu_device_destroy(struct device *dev);
/* Devices created and not destroyed. */
unsigned long sim_iommu_nr_devices(void);
/* The format of the IOMMU the device sits behind; -1 if none. */
int sim_iommu_device_format(struct device *dev);
/* The simulator's tables behind a domain of this driver; NULL otherwise. */
struct sim_iommu_domain *sim_iommu_domain_of(struct iommu_domain *domain);

/* Dry run: map_pages/unmap_pages write nothing and report full success. */
void sim_iommu_set_dry_run(bool on);

/* The driver-call trace (see kapi_iommu.h for the semantics). */
void sim_iommu_trace_enable(unsigned long capacity);
unsigned long sim_iommu_trace_len(void);
unsigned long long sim_iommu_trace_dropped(void);
int sim_iommu_trace_get(unsigned long i, struct kapi_iommu_call *call);
const struct kapi_iommu_call *sim_iommu_trace_at(unsigned long i);
void sim_iommu_trace_clear(void);

#endif
