/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's IOMMU API (<linux/iommu.h>, Linux 6.12 signatures), for the
 * IOMMU core (core/drivers/iommu/iommu.c), the simulated IOMMU driver
 * (kernel_shim/drivers/iommu_sim.c) and their callers (VFIO type1, the DMA layer).
 *
 * (a) Definitions that must match the kernel: the IOMMU_* protection bits,
 *     the __IOMMU_DOMAIN_* feature bits and IOMMU_DOMAIN_* types, enum
 *     iommu_cap, enum iommu_resv_type, and the members of struct
 *     iommu_domain, iommu_domain_geometry, iommu_domain_ops, iommu_ops,
 *     iommu_device, dev_iommu, iommu_resv_region and iommu_iotlb_gather that
 *     kernel code uses, by name and type; the prototypes of the core's
 *     functions; the inline IOTLB-gather helpers, which behave as the
 *     kernel's (a gather that meets a disjoint range or another page size
 *     is synced first).
 * Simplified: struct iommu_domain has no fault/SVA/IOPF members; struct
 *     iommu_ops and iommu_domain_ops keep only the callbacks the core here
 *     calls (no PASID, SVA, nesting-user, dirty tracking, page responses);
 *     struct dev_iommu holds only the instance and the driver's private
 *     pointer.  struct iommu_group is private to the core, as in the
 *     kernel.
 * Behaviour worth knowing (implemented by the core and the simulated
 *     driver, not here):
 *     - iommu_get_resv_regions() returns what the driver reports; a
 *       simulated device reports the regions it was created with (none by
 *       default: no MSI window, no direct-mapped ranges), and
 *       iommu_get_group_resv_regions() collects those of every device.
 *     - iommu_group_has_isolated_msi() asks <linux/msi.h> of each device:
 *       the simulated platform remaps interrupts unless a device was made
 *       without it (sim_iommu_dev_opts.no_isolated_msi).
 *     - iommu_get_msi_cookie() (dma-iommu in the kernel) records the base
 *       on the domain; nobody maps MSI doorbells (no device raises MSIs).
 * (b) Stubs on purpose: none in this header.
 * (c) Test doubles: the simulated driver records every driver call in a
 *     trace that tests read through <dmasim/kapi_iommu.h>.
 */
#ifndef _DMASIM_LINUX_IOMMU_H
#define _DMASIM_LINUX_IOMMU_H

#include <dmasim/sim.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/gfp_types.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/version.h>

/* Protection bits of a mapping (same values as SIM_IOMMU_*). */
#define IOMMU_READ	(1 << 0)
#define IOMMU_WRITE	(1 << 1)
#define IOMMU_CACHE	(1 << 2)	/* coherent with the CPU caches */
#define IOMMU_NOEXEC	(1 << 3)
#define IOMMU_MMIO	(1 << 4)	/* device memory, e.g. MSI doorbells */
#define IOMMU_PRIV	(1 << 5)	/* privileged transactions only */

struct device;
struct iommu_domain;
struct iommu_domain_ops;
struct iommu_dirty_ops;
struct iommu_dma_cookie;
struct iommu_group;
struct iommu_ops;
struct module;
struct scatterlist;

typedef unsigned int ioasid_t;

struct iommu_domain_geometry {
	dma_addr_t aperture_start;	/* lowest IOVA that can be mapped */
	dma_addr_t aperture_end;	/* highest IOVA that can be mapped */
	bool force_aperture;		/* DMA outside it is refused */
};

/* What a domain can do. */
#define __IOMMU_DOMAIN_PAGING	(1U << 0)	/* iommu_map() / iommu_unmap() */
#define __IOMMU_DOMAIN_DMA_API	(1U << 1)	/* owned by the DMA API */
#define __IOMMU_DOMAIN_PT	(1U << 2)	/* identity mapped */
#define __IOMMU_DOMAIN_DMA_FQ	(1U << 3)	/* DMA API with a flush queue */
#define __IOMMU_DOMAIN_SVA	(1U << 4)	/* a process address space */
#define __IOMMU_DOMAIN_PLATFORM	(1U << 5)
#define __IOMMU_DOMAIN_NESTED	(1U << 6)	/* stage 1 over a stage 2 */

#define IOMMU_DOMAIN_ALLOC_FLAGS ~__IOMMU_DOMAIN_DMA_FQ

/* Domain types. */
#define IOMMU_DOMAIN_BLOCKED	(0U)
#define IOMMU_DOMAIN_IDENTITY	(__IOMMU_DOMAIN_PT)
#define IOMMU_DOMAIN_UNMANAGED	(__IOMMU_DOMAIN_PAGING)
#define IOMMU_DOMAIN_DMA	(__IOMMU_DOMAIN_PAGING | __IOMMU_DOMAIN_DMA_API)
#define IOMMU_DOMAIN_DMA_FQ	(IOMMU_DOMAIN_DMA | __IOMMU_DOMAIN_DMA_FQ)
#define IOMMU_DOMAIN_SVA	(__IOMMU_DOMAIN_SVA)
#define IOMMU_DOMAIN_PLATFORM	(__IOMMU_DOMAIN_PLATFORM)
#define IOMMU_DOMAIN_NESTED	(__IOMMU_DOMAIN_NESTED)

typedef int (*iommu_fault_handler_t)(struct iommu_domain *,
				     struct device *, unsigned long, int,
				     void *);

struct iommu_domain {
	unsigned int type;			/* IOMMU_DOMAIN_* */
	const struct iommu_domain_ops *ops;
	const struct iommu_dirty_ops *dirty_ops;	/* always NULL here */
	const struct iommu_ops *owner;		/* who allocated it */
	unsigned long pgsize_bitmap;		/* page sizes it can map */
	struct iommu_domain_geometry geometry;
	struct iommu_dma_cookie *iova_cookie;	/* DMA API state */
	iommu_fault_handler_t handler;
	void *handler_token;
};

static inline bool iommu_is_dma_domain(struct iommu_domain *domain)
{
	return domain->type & __IOMMU_DOMAIN_DMA_API;
}

/* What device_iommu_capable() can be asked. */
enum iommu_cap {
	IOMMU_CAP_CACHE_COHERENCY,	/* IOMMU_CACHE is honoured */
	IOMMU_CAP_NOEXEC,		/* IOMMU_NOEXEC is honoured */
	IOMMU_CAP_PRE_BOOT_PROTECTION,
	IOMMU_CAP_ENFORCE_CACHE_COHERENCY,
	IOMMU_CAP_DEFERRED_FLUSH,
	IOMMU_CAP_DIRTY_TRACKING,
	/*
	 * 6.1's (between CACHE_COHERENCY and NOEXEC there; removed in 6.3
	 * for iommu_group_has_isolated_msi()): the device's interrupts are
	 * remapped.  The simulated driver answers it as msi_device_has_isolated_msi().
	 */
	IOMMU_CAP_INTR_REMAP,
};

enum iommu_resv_type {
	IOMMU_RESV_DIRECT,		/* must stay mapped 1:1 */
	IOMMU_RESV_DIRECT_RELAXABLE,	/* 1:1, but assignable */
	IOMMU_RESV_RESERVED,		/* never map */
	IOMMU_RESV_MSI,			/* hardware MSI window */
	IOMMU_RESV_SW_MSI,		/* software-managed MSI window */
};

struct iommu_resv_region {
	struct list_head list;		/* in the caller's list */
	phys_addr_t start;		/* first address */
	size_t length;			/* bytes */
	int prot;			/* IOMMU_READ ... */
	enum iommu_resv_type type;
	/* NULL: kfree() it */
	void (*free)(struct device *dev, struct iommu_resv_region *region);
};

/*
 * A pending IOTLB invalidation, built up by ->unmap_pages() and issued by
 * ->iotlb_sync(): the range [start, end] (inclusive), the page size of the
 * entries it covers, and table pages to free once the flush is done.
 */
struct iommu_iotlb_gather {
	unsigned long start;		/* ULONG_MAX when empty */
	unsigned long end;		/* inclusive; 0 when empty */
	size_t pgsize;			/* 0 until a page is added */
	struct list_head freelist;	/* table pages to free after sync */
	bool queued;			/* a flush queue will flush all */
};

struct iommu_domain_ops {
	int (*attach_dev)(struct iommu_domain *domain, struct device *dev);
	int (*set_dev_pasid)(struct iommu_domain *domain, struct device *dev,
			     ioasid_t pasid, struct iommu_domain *old);
	/* Map pgcount pages of pgsize; *mapped = bytes done, also on error. */
	int (*map_pages)(struct iommu_domain *domain, unsigned long iova,
			 phys_addr_t paddr, size_t pgsize, size_t pgcount,
			 int prot, gfp_t gfp, size_t *mapped);
	/* Returns bytes unmapped: may exceed the request, 0 on a hole. */
	size_t (*unmap_pages)(struct iommu_domain *domain, unsigned long iova,
			      size_t pgsize, size_t pgcount,
			      struct iommu_iotlb_gather *iotlb_gather);
	/* Invalidate everything the IOTLB holds for the domain. */
	void (*flush_iotlb_all)(struct iommu_domain *domain);
	/* After a map, for IOMMUs that cache non-present entries. */
	int (*iotlb_sync_map)(struct iommu_domain *domain, unsigned long iova,
			      size_t size);
	void (*iotlb_sync)(struct iommu_domain *domain,
			   struct iommu_iotlb_gather *iotlb_gather);
	phys_addr_t (*iova_to_phys)(struct iommu_domain *domain,
				    dma_addr_t iova);
	/* Block no-snoop DMA; true if the domain can. */
	bool (*enforce_cache_coherency)(struct iommu_domain *domain);
	int (*enable_nesting)(struct iommu_domain *domain);
	int (*set_pgtable_quirks)(struct iommu_domain *domain,
				  unsigned long quirks);
	/* Release the domain and its page tables. */
	void (*free)(struct iommu_domain *domain);
};

struct iommu_device;

struct iommu_ops {
	bool (*capable)(struct device *dev, enum iommu_cap cap);
	/* Either callback; domain_alloc_paging is preferred for PAGING. */
	struct iommu_domain *(*domain_alloc)(unsigned int iommu_domain_type);
	struct iommu_domain *(*domain_alloc_paging)(struct device *dev);
	struct iommu_device *(*probe_device)(struct device *dev);
	void (*release_device)(struct device *dev);
	struct iommu_group *(*device_group)(struct device *dev);
	void (*get_resv_regions)(struct device *dev, struct list_head *list);
	int (*def_domain_type)(struct device *dev);
	const struct iommu_domain_ops *default_domain_ops;
	unsigned long pgsize_bitmap;	/* default for the domains */
	struct module *owner;
	/* Static domains a driver may offer instead of allocating. */
	struct iommu_domain *identity_domain;
	struct iommu_domain *blocked_domain;
	struct iommu_domain *release_domain;
	struct iommu_domain *default_domain;
};

/* One IOMMU instance. */
struct iommu_device {
	struct list_head list;
	const struct iommu_ops *ops;
	struct device *dev;
	struct iommu_group *singleton_group;
	u32 max_pasids;
};

/* Per-device IOMMU data (dev->iommu). */
struct dev_iommu {
	struct mutex lock;
	struct iommu_device *iommu_dev;
	void *priv;
};

static inline void *dev_iommu_priv_get(struct device *dev)
{
	return dev->iommu ? dev->iommu->priv : NULL;
}

static inline void dev_iommu_priv_set(struct device *dev, void *priv)
{
	dev->iommu->priv = priv;
}

int iommu_device_register(struct iommu_device *iommu,
			  const struct iommu_ops *ops, struct device *hwdev);
void iommu_device_unregister(struct iommu_device *iommu);
int iommu_probe_device(struct device *dev);

bool device_iommu_capable(struct device *dev, enum iommu_cap cap);
bool iommu_group_has_isolated_msi(struct iommu_group *group);
struct iommu_domain *iommu_paging_domain_alloc(struct device *dev);
void iommu_domain_free(struct iommu_domain *domain);
int iommu_attach_device(struct iommu_domain *domain, struct device *dev);
void iommu_detach_device(struct iommu_domain *domain, struct device *dev);
struct iommu_domain *iommu_get_domain_for_dev(struct device *dev);
struct iommu_domain *iommu_get_dma_domain(struct device *dev);
int iommu_map(struct iommu_domain *domain, unsigned long iova,
	      phys_addr_t paddr, size_t size, int prot, gfp_t gfp);
size_t iommu_unmap(struct iommu_domain *domain, unsigned long iova,
		   size_t size);
size_t iommu_unmap_fast(struct iommu_domain *domain, unsigned long iova,
			size_t size, struct iommu_iotlb_gather *iotlb_gather);
ssize_t iommu_map_sg(struct iommu_domain *domain, unsigned long iova,
		     struct scatterlist *sg, unsigned int nents, int prot,
		     gfp_t gfp);
phys_addr_t iommu_iova_to_phys(struct iommu_domain *domain, dma_addr_t iova);
void iommu_set_fault_handler(struct iommu_domain *domain,
			     iommu_fault_handler_t handler, void *token);

void iommu_get_resv_regions(struct device *dev, struct list_head *list);
void iommu_put_resv_regions(struct device *dev, struct list_head *list);
struct iommu_resv_region *
iommu_alloc_resv_region(phys_addr_t start, size_t length, int prot,
			enum iommu_resv_type type, gfp_t gfp);
int iommu_get_group_resv_regions(struct iommu_group *group,
				 struct list_head *head);

int iommu_attach_group(struct iommu_domain *domain, struct iommu_group *group);
void iommu_detach_group(struct iommu_domain *domain,
			struct iommu_group *group);
struct iommu_group *iommu_group_alloc(void);
void *iommu_group_get_iommudata(struct iommu_group *group);
void iommu_group_set_iommudata(struct iommu_group *group, void *iommu_data,
			       void (*release)(void *iommu_data));
int iommu_group_set_name(struct iommu_group *group, const char *name);
int iommu_group_add_device(struct iommu_group *group, struct device *dev);
void iommu_group_remove_device(struct device *dev);
int iommu_group_for_each_dev(struct iommu_group *group, void *data,
			     int (*fn)(struct device *, void *));
struct iommu_group *iommu_group_get(struct device *dev);
struct iommu_group *iommu_group_ref_get(struct iommu_group *group);
void iommu_group_put(struct iommu_group *group);
int iommu_group_id(struct iommu_group *group);
struct iommu_domain *iommu_group_default_domain(struct iommu_group *group);
int iommu_device_use_default_domain(struct device *dev);
void iommu_device_unuse_default_domain(struct device *dev);
int iommu_group_claim_dma_owner(struct iommu_group *group, void *owner);
void iommu_group_release_dma_owner(struct iommu_group *group);
bool iommu_group_dma_owner_claimed(struct iommu_group *group);
int iommu_enable_nesting(struct iommu_domain *domain);
int iommu_set_pgtable_quirks(struct iommu_domain *domain,
			     unsigned long quirks);

/* dma-iommu (CONFIG_IOMMU_DMA) */
int iommu_get_msi_cookie(struct iommu_domain *domain, dma_addr_t base);

/* An empty gather: start above end, no page size yet. */
static inline void iommu_iotlb_gather_init(struct iommu_iotlb_gather *gather)
{
	gather->start = ULONG_MAX;
	gather->end = 0;
	gather->pgsize = 0;
	INIT_LIST_HEAD(&gather->freelist);
	gather->queued = false;
}

static inline void iommu_flush_iotlb_all(struct iommu_domain *domain)
{
	if (domain->ops->flush_iotlb_all)
		domain->ops->flush_iotlb_all(domain);
}

/* Issue the gathered invalidation, then start a new gather. */
static inline void iommu_iotlb_sync(struct iommu_domain *domain,
				    struct iommu_iotlb_gather *iotlb_gather)
{
	const struct iommu_domain_ops *ops = domain->ops;

	if (ops->iotlb_sync)
		ops->iotlb_sync(domain, iotlb_gather);
	iommu_iotlb_gather_init(iotlb_gather);
}

/* True if [iova, iova + size) neither overlaps nor touches the gather. */
static inline bool
iommu_iotlb_gather_is_disjoint(struct iommu_iotlb_gather *gather,
			       unsigned long iova, size_t size)
{
	unsigned long last = iova + size - 1;

	if (!gather->end)
		return false;
	return last + 1 < gather->start || iova > gather->end + 1;
}

static inline void
iommu_iotlb_gather_add_range(struct iommu_iotlb_gather *gather,
			     unsigned long iova, size_t size)
{
	unsigned long last = iova + size - 1;

	if (iova < gather->start)
		gather->start = iova;
	if (last > gather->end)
		gather->end = last;
}

/*
 * Add one page to the gather (counted: SIM_CNT_IOTLB_GATHER, one per
 * unmapped piece a driver gathers); a gather holding another page size, or a
 * range this page does not touch, is synced first.
 */
static inline void iommu_iotlb_gather_add_page(struct iommu_domain *domain,
					       struct iommu_iotlb_gather *gather,
					       unsigned long iova, size_t size)
{
	bool other_size = gather->pgsize && gather->pgsize != size;

	sim_count(SIM_CNT_IOTLB_GATHER, 1);

	if (other_size || iommu_iotlb_gather_is_disjoint(gather, iova, size))
		iommu_iotlb_sync(domain, gather);
	iommu_iotlb_gather_add_range(gather, iova, size);
	gather->pgsize = size;
}

static inline bool iommu_iotlb_gather_queued(struct iommu_iotlb_gather *gather)
{
	return gather && gather->queued;
}

/*
 * Older trees' API, selected by the tree's version (<linux/version.h>):
 * each is the current call under the older name or arity.
 *
 * iommu_map() before 6.3 took no gfp_t and allocated page tables with
 * GFP_KERNEL.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline int shim_iommu_map_no_gfp(struct iommu_domain *domain,
					unsigned long iova, phys_addr_t paddr,
					size_t size, int prot)
{
	return iommu_map(domain, iova, paddr, size, prot, GFP_KERNEL);
}
#define iommu_map shim_iommu_map_no_gfp
#endif

/*
 * iommu_domain_alloc(bus) before iommu_paging_domain_alloc(dev) (6.11):
 * an unmanaged domain of the bus's IOMMU, NULL on any failure.  A
 * simulated device's bus is the device alone (<linux/device.h>).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
static inline struct iommu_domain *iommu_domain_alloc(const struct bus_type *bus)
{
	struct iommu_domain *domain;

	if (!bus || !bus->dmasim_dev)
		return NULL;
	domain = iommu_paging_domain_alloc(bus->dmasim_dev);
	return IS_ERR(domain) ? NULL : domain;
}
#endif

#endif
