// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated IOMMU driver: one IOMMU instance per format, paging domains
 * backed by the simulator's page tables (sim/iommu.c), and the simulated
 * devices behind them (see <shim/iommu_sim.h>).
 *
 * Driver behaviour, as Intel VT-d / AMD-Vi drivers have it:
 * - map_pages writes the leaves; *mapped is the bytes written (stored by
 *   the Intel driver, added to the caller's count by the AMD and Arm
 *   io-pgtable ones, as in 6.12), also when it fails (fault point shim/iommu/map fails the whole call with -ENOMEM
 *   before anything is written; shim/iommu/pgtable_alloc fails the table
 *   page allocation where one is needed, after the leaves before it).
 * - unmap_pages clears whole leaves: a larger leaf covering the request
 *   goes entirely and its size is returned; the range is added to the
 *   gather page by page (iommu_iotlb_gather_add_page()), which syncs first
 *   when the page size changes or the range is disjoint.
 * - iotlb_sync issues one invalidation for a non-empty gather (counted per
 *   domain and in SIM_CNT_IOTLB_SYNC); an empty gather costs nothing.
 * - iotlb_sync_map: the simulated IOMMU caches no non-present entries, so
 *   no invalidation is needed after a map; the call is traced and can be
 *   failed (shim/iommu/iotlb_sync_map) to exercise the core's unwind.
 * - attach_dev refuses (-EINVAL) a domain of another format, as drivers
 *   refuse incompatible domains; attaching a paging (unmanaged) domain can
 *   be failed with -ENOMEM (shim/iommu/attach_dev), as a driver that must
 *   allocate a domain id does; going back to a default domain never fails.
 * - one driver per vendor, as on real machines: Intel (intel-sl), AMD
 *   (amd-v1, amd-v2) and Arm (the LPAE formats) domains have ops of their
 *   own, so domains of different vendors never look compatible.
 * - enforce_cache_coherency: the Intel and AMD drivers can block no-snoop
 *   DMA unless the device sits behind a unit without snoop control
 *   (sim_iommu_dev_opts.no_snoop_control, as VT-d units without ecap SC);
 *   the Arm driver has no such op (as IOMMU_CAP_ENFORCE_CACHE_COHERENCY
 *   says).
 * - dry run (test double, off by default): map_pages and unmap_pages touch
 *   no table and report full success, so tests can sweep the core's
 *   page-size choice over ranges no table could hold; once the trace ring
 *   is full they fail (map_pages -ENOSPC, unmap_pages 0), so a core that
 *   never stops asking is caught instead of looping.
 * - get_resv_regions reports the regions the device was created with
 *   (struct sim_iommu_dev_opts; none by default), each allocated as the
 *   drivers do (a region that cannot be allocated is left out); a domain
 *   allocated for a device with an aperture gets that aperture.
 * - iommu_get_msi_cookie() (dma-iommu's) records the base on the domain,
 *   in an allocated cookie: -ENOMEM if that fails, -EEXIST for a second
 *   one, -ENODEV when dma-iommu is configured out (sim_iommu_set_dma_iommu).
 * - no nesting, no dirty tracking.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/msi.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <shim/iommu_sim.h>

#include <dmasim/sim.h>

struct sim_drv_domain {
	struct iommu_domain domain;
	struct sim_iommu_domain *sim;
	enum sim_iommu_format_id format;
	unsigned long id;
	u64 *msi_cookie;		/* dma-iommu's cookie: the MSI base */
	bool no_snoop_control;
};

struct sim_drv_iommu {
	struct iommu_device iommu;
	enum sim_iommu_format_id format;
	bool registered;
};

struct sim_drv_device {
	struct device dev;
	struct bus_type bus;	/* the device alone (<linux/device.h>) */
	struct dev_iommu dev_iommu;
	u64 dma_mask;
	enum sim_iommu_format_id format;
	struct device *group_peer;
	struct sim_iommu_dev_opts opts;
};

static struct sim_drv_iommu sim_iommus[SIM_NR_IOMMU_FORMATS];
static unsigned long nr_devices;
static unsigned long next_domain_id;
static bool dry_run;
static bool no_dma_iommu;

void sim_iommu_set_dry_run(bool on)
{
	dry_run = on;
}

static const struct iommu_ops sim_iommu_ops;
/* The domain ops of each vendor's driver. */
enum { SIM_VENDOR_INTEL, SIM_VENDOR_AMD, SIM_VENDOR_ARM, SIM_NR_VENDORS };
static const struct iommu_domain_ops sim_domain_ops[SIM_NR_VENDORS];

static int sim_format_vendor(int format)
{
	switch (format) {
	case SIM_IOMMU_AMD_V1:
	case SIM_IOMMU_AMD_V2:
		return SIM_VENDOR_AMD;
	case SIM_IOMMU_ARM_LPAE_4K:
	case SIM_IOMMU_ARM_LPAE_16K:
	case SIM_IOMMU_ARM_LPAE_64K:
		return SIM_VENDOR_ARM;
	default:
		return SIM_VENDOR_INTEL;
	}
}

static struct sim_drv_domain *to_sim_domain(struct iommu_domain *domain)
{
	return container_of(domain, struct sim_drv_domain, domain);
}

static struct sim_drv_device *to_sim_device(struct device *dev)
{
	return container_of(dev, struct sim_drv_device, dev);
}

struct sim_iommu_domain *sim_iommu_domain_of(struct iommu_domain *domain)
{
	if (!domain || domain->ops < &sim_domain_ops[0] ||
	    domain->ops >= &sim_domain_ops[SIM_NR_VENDORS])
		return NULL;
	return to_sim_domain(domain)->sim;
}

/* ------------------------------------------------------------------------
 * The trace of driver calls
 */
static struct kapi_iommu_call *trace_ring;
static unsigned long trace_cap, trace_head, trace_len;
static unsigned long long trace_dropped;

void sim_iommu_trace_enable(unsigned long capacity)
{
	kfree(trace_ring);
	trace_ring = NULL;
	trace_cap = trace_head = trace_len = 0;
	trace_dropped = 0;
	if (!capacity)
		return;
	/* Not a kernel allocation: bypasses the fault points. */
	trace_ring = sim_kmalloc(capacity * sizeof(*trace_ring), 1);
	if (trace_ring)
		trace_cap = capacity;
}

void sim_iommu_trace_clear(void)
{
	trace_head = trace_len = 0;
	trace_dropped = 0;
}

unsigned long sim_iommu_trace_len(void)
{
	return trace_len;
}

unsigned long long sim_iommu_trace_dropped(void)
{
	return trace_dropped;
}

const struct kapi_iommu_call *sim_iommu_trace_at(unsigned long i)
{
	if (i >= trace_len)
		return NULL;
	return &trace_ring[(trace_head + trace_cap - trace_len + i) % trace_cap];
}

int sim_iommu_trace_get(unsigned long i, struct kapi_iommu_call *call)
{
	const struct kapi_iommu_call *c = sim_iommu_trace_at(i);

	if (!c)
		return -ENOENT;
	*call = *c;
	return 0;
}

static bool trace_full(void)
{
	return trace_cap && trace_len == trace_cap;
}

static void trace_call(int op, struct sim_drv_domain *sd, unsigned long iova,
		       phys_addr_t paddr, size_t pgsize, size_t count,
		       unsigned long long done, int ret)
{
	struct kapi_iommu_call *c;

	if (likely(!trace_cap))
		return;
	c = &trace_ring[trace_head];
	c->op = op;
	c->domain_id = sd->id;
	c->iova = iova;
	c->paddr = paddr;
	c->pgsize = pgsize;
	c->count = count;
	c->done = done;
	c->ret = ret;
	trace_head = (trace_head + 1) % trace_cap;
	if (trace_len < trace_cap)
		trace_len++;
	else
		trace_dropped++;
}

/* ------------------------------------------------------------------------
 * Domain operations
 */
static int sim_attach_dev(struct iommu_domain *domain, struct device *dev)
{
	if (to_sim_domain(domain)->format != sim_iommu_device_format(dev))
		return -EINVAL;
	if (domain->type == IOMMU_DOMAIN_UNMANAGED &&
	    sim_should_fail(SIM_FP_IOMMU_ATTACH_DEV))
		return -ENOMEM;
	return 0;
}

static int sim_map_pages(struct iommu_domain *domain, unsigned long iova,
			 phys_addr_t paddr, size_t pgsize, size_t pgcount,
			 int prot, gfp_t gfp, size_t *mapped)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);
	unsigned long long done = 0;
	int ret;

	if (sim_should_fail(SIM_FP_IOMMU_MAP)) {
		ret = -ENOMEM;
	} else if (dry_run) {
		/* A full trace ends the run: a core that loops is caught. */
		ret = trace_full() ? -ENOSPC : 0;
		done = ret ? 0 : (unsigned long long)pgsize * pgcount;
	} else
		ret = sim_iommu_map_pages(sd->sim, iova, paddr, pgsize, pgcount,
					  prot, 1, &done);
	/*
	 * VT-d stores the bytes mapped; the io-pgtable drivers (AMD, Arm) add
	 * them to what the caller passed in, which must start at 0.
	 */
	if (sim_format_vendor(sd->format) == SIM_VENDOR_INTEL)
		*mapped = done;
	else
		*mapped += done;
	trace_call(KAPI_IOMMU_OP_MAP_PAGES, sd, iova, paddr, pgsize, pgcount,
		   done, ret);
	return ret;
}

static size_t sim_unmap_pages(struct iommu_domain *domain, unsigned long iova,
			      size_t pgsize, size_t pgcount,
			      struct iommu_iotlb_gather *gather)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);
	unsigned long long got;

	if (dry_run)
		got = trace_full() ? 0 : (unsigned long long)pgsize * pgcount;
	else
		got = sim_iommu_unmap_pages(sd->sim, iova, pgsize, pgcount);
	trace_call(KAPI_IOMMU_OP_UNMAP_PAGES, sd, iova, 0, pgsize, pgcount,
		   got, 0);
	if (got && gather)
		iommu_iotlb_gather_add_page(domain, gather, iova, got);
	return got;
}

static void sim_iotlb_sync(struct iommu_domain *domain,
			   struct iommu_iotlb_gather *gather)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);
	unsigned long long len = 0;

	if (gather->start <= gather->end) {
		len = gather->end - gather->start + 1;
		sim_iommu_iotlb_sync(sd->sim, gather->start, len);
	}
	trace_call(KAPI_IOMMU_OP_IOTLB_SYNC, sd, len ? gather->start : 0, 0,
		   gather->pgsize, 0, len, 0);
}

static int sim_iotlb_sync_map(struct iommu_domain *domain, unsigned long iova,
			      size_t size)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);
	int ret = sim_should_fail(SIM_FP_IOMMU_SYNC_MAP) ? -ENOMEM : 0;

	trace_call(KAPI_IOMMU_OP_IOTLB_SYNC_MAP, sd, iova, 0, 0, 0, size, ret);
	return ret;
}

static void sim_flush_iotlb_all(struct iommu_domain *domain)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);

	sim_iommu_iotlb_sync(sd->sim, 0, ~0ULL);
	trace_call(KAPI_IOMMU_OP_FLUSH_ALL, sd, 0, 0, 0, 0, 0, 0);
}

/*
 * Aligned to a cache line: the unmap calls it once per 4 KiB page
 * (8,388,608 times for a 32 GiB BAR), and where the link put it decided
 * the unmap's time by itself, 30 or 36 ms for the same instructions as
 * the library around it changed size (docs/vfio-type1.md, "dmasim bar").
 */
static __aligned(64) phys_addr_t sim_iova_to_phys(struct iommu_domain *domain,
				    dma_addr_t iova)
{
	return sim_iommu_iova_to_phys(to_sim_domain(domain)->sim, iova);
}

/* Intel and AMD only: the Arm driver has no such op. */
static bool sim_enforce_cache_coherency(struct iommu_domain *domain)
{
	return !to_sim_domain(domain)->no_snoop_control;
}

static void sim_domain_free(struct iommu_domain *domain)
{
	struct sim_drv_domain *sd = to_sim_domain(domain);

	sim_iommu_domain_free(sd->sim);
	kfree(sd->msi_cookie);
	kfree(sd);
}

#define SIM_DOMAIN_OPS					\
	.attach_dev		= sim_attach_dev,	\
	.map_pages		= sim_map_pages,	\
	.unmap_pages		= sim_unmap_pages,	\
	.flush_iotlb_all	= sim_flush_iotlb_all,	\
	.iotlb_sync_map		= sim_iotlb_sync_map,	\
	.iotlb_sync		= sim_iotlb_sync,	\
	.iova_to_phys		= sim_iova_to_phys,	\
	.free			= sim_domain_free

static const struct iommu_domain_ops sim_domain_ops[SIM_NR_VENDORS] = {
	[SIM_VENDOR_INTEL] = {
		SIM_DOMAIN_OPS,
		.enforce_cache_coherency = sim_enforce_cache_coherency,
	},
	[SIM_VENDOR_AMD] = {
		SIM_DOMAIN_OPS,
		.enforce_cache_coherency = sim_enforce_cache_coherency,
	},
	[SIM_VENDOR_ARM] = {
		SIM_DOMAIN_OPS,
	},
};

/* ------------------------------------------------------------------------
 * IOMMU operations
 */
int sim_iommu_device_format(struct device *dev)
{
	if (!dev || !dev->iommu || !dev->iommu->iommu_dev ||
	    dev->iommu->iommu_dev->ops != &sim_iommu_ops)
		return -1;
	return container_of(dev->iommu->iommu_dev, struct sim_drv_iommu,
			    iommu)->format;
}

/* <linux/msi.h>: see there.  Devices of other drivers are remapped. */
bool msi_device_has_isolated_msi(struct device *dev)
{
	if (sim_iommu_device_format(dev) < 0)
		return true;
	return !to_sim_device(dev)->opts.no_isolated_msi;
}

static bool sim_capable(struct device *dev, enum iommu_cap cap)
{
	int format = sim_iommu_device_format(dev);
	bool arm = format == SIM_IOMMU_ARM_LPAE_4K ||
		   format == SIM_IOMMU_ARM_LPAE_16K ||
		   format == SIM_IOMMU_ARM_LPAE_64K;

	switch (cap) {
	case IOMMU_CAP_CACHE_COHERENCY:
	case IOMMU_CAP_DEFERRED_FLUSH:
		return true;
	case IOMMU_CAP_ENFORCE_CACHE_COHERENCY:
		return !arm && !to_sim_device(dev)->opts.no_snoop_control;
	case IOMMU_CAP_NOEXEC:
		return arm;
	case IOMMU_CAP_INTR_REMAP:	/* 6.1: the same answer, per device */
		return msi_device_has_isolated_msi(dev);
	default:
		return false;
	}
}

static struct iommu_domain *sim_domain_alloc_paging(struct device *dev)
{
	int format = sim_iommu_device_format(dev);
	const struct sim_iommu_format *fmt;
	struct sim_drv_domain *sd;

	if (format < 0)
		return ERR_PTR(-ENODEV);
	if (sim_should_fail(SIM_FP_IOMMU_DOMAIN_ALLOC))
		return ERR_PTR(-ENOMEM);
	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return ERR_PTR(-ENOMEM);
	sd->sim = sim_iommu_domain_alloc(format);
	if (!sd->sim) {
		kfree(sd);
		return ERR_PTR(-ENOMEM);
	}
	fmt = sim_iommu_format(format);
	sd->format = format;
	sd->id = ++next_domain_id;
	sd->domain.ops = &sim_domain_ops[sim_format_vendor(format)];
	sd->no_snoop_control = to_sim_device(dev)->opts.no_snoop_control;
	sd->domain.pgsize_bitmap = fmt->pgsize_bitmap;
	sd->domain.geometry.aperture_start = 0;
	sd->domain.geometry.aperture_end =
		fmt->ias >= 64 ? ~0ULL : (1ULL << fmt->ias) - 1;
	sd->domain.geometry.force_aperture = true;
	if (to_sim_device(dev)->opts.aperture_end) {
		sd->domain.geometry.aperture_start =
			to_sim_device(dev)->opts.aperture_start;
		sd->domain.geometry.aperture_end =
			to_sim_device(dev)->opts.aperture_end;
	}
	return &sd->domain;
}

static struct iommu_device *sim_probe_device(struct device *dev)
{
	if (sim_should_fail(SIM_FP_IOMMU_DEVICE_PROBE))
		return ERR_PTR(-ENOMEM);
	return dev->iommu->iommu_dev;
}

static struct iommu_group *sim_device_group(struct device *dev)
{
	struct device *peer = to_sim_device(dev)->group_peer;

	if (peer && peer->iommu_group)
		return iommu_group_get(peer);
	return iommu_group_alloc();
}

/* The regions the device was created with, allocated as drivers do. */
static void sim_get_resv_regions(struct device *dev, struct list_head *head)
{
	const struct sim_iommu_dev_opts *opts = &to_sim_device(dev)->opts;
	struct iommu_resv_region *region;
	unsigned int i;

	for (i = 0; i < opts->nr_resv; i++) {
		region = iommu_alloc_resv_region(opts->resv[i].start,
						 opts->resv[i].length,
						 opts->resv[i].prot,
						 opts->resv[i].type,
						 GFP_KERNEL);
		if (!region)
			return;
		list_add_tail(&region->list, head);
	}
}

static const struct iommu_ops sim_iommu_ops = {
	.capable		= sim_capable,
	.get_resv_regions	= sim_get_resv_regions,
	.domain_alloc_paging	= sim_domain_alloc_paging,
	.probe_device		= sim_probe_device,
	.device_group		= sim_device_group,
	.default_domain_ops	= &sim_domain_ops[SIM_VENDOR_INTEL],
};

/* ------------------------------------------------------------------------
 * Simulated devices
 */
static void sim_device_release(struct device *dev)
{
	kfree(to_sim_device(dev));
	nr_devices--;
}

struct device *sim_iommu_device_create(const char *name,
				       enum sim_iommu_format_id format,
				       struct device *group_peer)
{
	return sim_iommu_device_create_opts(name, format, group_peer, NULL);
}

struct device *sim_iommu_device_create_opts(const char *name,
					    enum sim_iommu_format_id format,
					    struct device *group_peer,
					    const struct sim_iommu_dev_opts *opts)
{
	struct sim_drv_iommu *iommu;
	struct sim_drv_device *sdev;
	int ret;

	if ((unsigned int)format >= SIM_NR_IOMMU_FORMATS)
		return ERR_PTR(-EINVAL);
	if (group_peer && sim_iommu_device_format(group_peer) != (int)format)
		return ERR_PTR(-EINVAL);
	if (opts && opts->nr_resv > SIM_IOMMU_MAX_RESV)
		return ERR_PTR(-EINVAL);

	iommu = &sim_iommus[format];
	if (!iommu->registered) {
		iommu->format = format;
		ret = iommu_device_register(&iommu->iommu, &sim_iommu_ops, NULL);
		if (ret)
			return ERR_PTR(ret);
		iommu->registered = true;
	}

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	sdev->format = format;
	sdev->group_peer = group_peer;
	if (opts)
		sdev->opts = *opts;
	sdev->dma_mask = ~0ULL;
	sdev->dev.dma_mask = &sdev->dma_mask;
	sdev->dev.coherent_dma_mask = ~0ULL;
	sdev->dev.dma_coherent = true;
	sdev->dev.release = sim_device_release;
	sdev->dev.iommu = &sdev->dev_iommu;
	sdev->bus.name = "dmasim";
	sdev->bus.dmasim_dev = &sdev->dev;
	sdev->dev.bus = &sdev->bus;
	mutex_init(&sdev->dev_iommu.lock);
	sdev->dev_iommu.iommu_dev = &iommu->iommu;
	device_initialize(&sdev->dev);
	nr_devices++;
	ret = dev_set_name(&sdev->dev, "%s", name ? name : "simdev");
	if (!ret)
		ret = iommu_probe_device(&sdev->dev);
	if (ret) {
		put_device(&sdev->dev);
		return ERR_PTR(ret);
	}
	return &sdev->dev;
}

void sim_iommu_device_destroy(struct device *dev)
{
	if (IS_ERR_OR_NULL(dev))
		return;
	iommu_group_remove_device(dev);
	put_device(dev);
}

unsigned long sim_iommu_nr_devices(void)
{
	return nr_devices;
}

/*
 * dma-iommu's MSI cookie: the base where MSI doorbells will be mapped on
 * demand (nothing maps them here: no device raises an MSI).
 */
int iommu_get_msi_cookie(struct iommu_domain *domain, dma_addr_t base)
{
	struct sim_drv_domain *sd;

	if (no_dma_iommu)
		return -ENODEV;
	if (domain->type != IOMMU_DOMAIN_UNMANAGED || !sim_iommu_domain_of(domain))
		return -EINVAL;
	sd = to_sim_domain(domain);
	if (sd->msi_cookie)
		return -EEXIST;
	sd->msi_cookie = kzalloc(sizeof(*sd->msi_cookie), GFP_KERNEL);
	if (!sd->msi_cookie)
		return -ENOMEM;
	*sd->msi_cookie = base;
	return 0;
}

int sim_iommu_domain_msi_cookie(struct iommu_domain *domain, u64 *base)
{
	if (!sim_iommu_domain_of(domain) || !to_sim_domain(domain)->msi_cookie)
		return -ENOENT;
	*base = *to_sim_domain(domain)->msi_cookie;
	return 0;
}

void sim_iommu_set_dma_iommu(bool on)
{
	no_dma_iommu = !on;
}
