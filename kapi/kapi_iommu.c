// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points into the IOMMU API (<dmasim/kapi_iommu.h>): thin
 * wrappers that call the kernel functions under test and return what they
 * returned; and (c) a configurable test-double IOMMU driver whose
 * callbacks a test chooses, so the core's paths for drivers without some
 * of them, and for attach failures, can be reached (its own block below).
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <shim/iommu_sim.h>

#include "kapi_door.h"
#include <dmasim/kapi_iommu.h>

static struct device *kdev(struct kapi_iommu_dev *dev)
{
	return (struct device *)dev;
}

static struct iommu_domain *kdom(struct kapi_iommu_domain *domain)
{
	return (struct iommu_domain *)domain;
}

int kapi_iommu_dev_create(const char *name, enum sim_iommu_format_id fmt,
			  struct kapi_iommu_dev *group_peer,
			  struct kapi_iommu_dev **dev)
{
	struct device *d = sim_iommu_device_create(name, fmt, kdev(group_peer));

	if (IS_ERR(d))
		return kapi_return(PTR_ERR(d));
	*dev = (struct kapi_iommu_dev *)d;
	return kapi_return(0);
}

void kapi_iommu_dev_destroy(struct kapi_iommu_dev *dev)
{
	sim_iommu_device_destroy(kdev(dev));
	kapi_user_return();
}

unsigned long kapi_iommu_nr_devices(void)
{
	return sim_iommu_nr_devices();
}

void *kapi_iommu_dev_kernel(struct kapi_iommu_dev *dev)
{
	return kdev(dev);
}

struct kapi_iommu_domain *kapi_iommu_dev_domain(struct kapi_iommu_dev *dev)
{
	return (struct kapi_iommu_domain *)iommu_get_domain_for_dev(kdev(dev));
}

struct kapi_iommu_domain *kapi_iommu_dev_dma_domain(struct kapi_iommu_dev *dev)
{
	return (struct kapi_iommu_domain *)iommu_get_dma_domain(kdev(dev));
}

int kapi_iommu_dev_group_id(struct kapi_iommu_dev *dev)
{
	struct iommu_group *group = iommu_group_get(kdev(dev));
	int id = group ? iommu_group_id(group) : -ENODEV;

	iommu_group_put(group);		/* NULL is allowed */
	return id;
}

int kapi_iommu_domain_alloc(struct kapi_iommu_dev *dev,
			    struct kapi_iommu_domain **domain)
{
	struct iommu_domain *d = iommu_paging_domain_alloc(kdev(dev));

	if (IS_ERR(d))
		return kapi_return(PTR_ERR(d));
	*domain = (struct kapi_iommu_domain *)d;
	return kapi_return(0);
}

void kapi_iommu_domain_free(struct kapi_iommu_domain *domain)
{
	iommu_domain_free(kdom(domain));
	kapi_user_return();
}

int kapi_iommu_attach(struct kapi_iommu_domain *domain,
		      struct kapi_iommu_dev *dev)
{
	return kapi_return(iommu_attach_device(kdom(domain), kdev(dev)));
}

void kapi_iommu_detach(struct kapi_iommu_domain *domain,
		       struct kapi_iommu_dev *dev)
{
	iommu_detach_device(kdom(domain), kdev(dev));
	kapi_user_return();
}

int kapi_iommu_attach_group(struct kapi_iommu_domain *domain,
			    struct kapi_iommu_dev *dev)
{
	return kapi_return(iommu_attach_group(kdom(domain), kdev(dev)->iommu_group));
}

void kapi_iommu_detach_group(struct kapi_iommu_domain *domain,
			     struct kapi_iommu_dev *dev)
{
	iommu_detach_group(kdom(domain), kdev(dev)->iommu_group);
	kapi_user_return();
}

unsigned long long kapi_iommu_pgsize_bitmap(struct kapi_iommu_domain *domain)
{
	return kdom(domain)->pgsize_bitmap;
}

unsigned long long kapi_iommu_aperture_end(struct kapi_iommu_domain *domain)
{
	return kdom(domain)->geometry.aperture_end;
}

struct sim_iommu_domain *kapi_iommu_sim_domain(struct kapi_iommu_domain *domain)
{
	return sim_iommu_domain_of(kdom(domain));
}

int kapi_iommu_map(struct kapi_iommu_domain *domain, unsigned long long iova,
		   sim_phys_t paddr, unsigned long long size, int prot)
{
	return kapi_return(iommu_map(kdom(domain), iova, paddr, size, prot, GFP_KERNEL));
}

int kapi_iommu_map_bad_gfp(struct kapi_iommu_domain *domain,
			   unsigned long long iova, sim_phys_t paddr,
			   unsigned long long size, int prot)
{
	return iommu_map(kdom(domain), iova, paddr, size, prot,
			 GFP_KERNEL | __GFP_HIGHMEM);
}

long long kapi_iommu_map_sg(struct kapi_iommu_domain *domain,
			    unsigned long long iova, const sim_phys_t *paddr,
			    const unsigned int *len, const int *bus,
			    unsigned int n, int prot)
{
	struct scatterlist *sgl, *sg;
	unsigned int i;
	ssize_t ret;

	sgl = kcalloc(n ? n : 1, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return kapi_return(-ENOMEM);
	sg_init_table(sgl, n ? n : 1);
	for_each_sg(sgl, sg, n, i) {
		sg_set_page(sg, pfn_to_page(paddr[i] >> PAGE_SHIFT), len[i],
			    paddr[i] & ~PAGE_MASK);
		if (bus && bus[i])
			sg_dma_mark_bus_address(sg);
	}
	ret = iommu_map_sg(kdom(domain), iova, sgl, n, prot, GFP_KERNEL);
	kfree(sgl);
	return kapi_return(ret);
}

unsigned long long kapi_iommu_unmap(struct kapi_iommu_domain *domain,
				    unsigned long long iova,
				    unsigned long long size)
{
	return kapi_return(iommu_unmap(kdom(domain), iova, size));
}

unsigned long long kapi_iommu_unmap_gathered(struct kapi_iommu_domain *domain,
					     const unsigned long long *iova,
					     const unsigned long long *size,
					     unsigned int n)
{
	struct iommu_iotlb_gather gather;
	unsigned long long total = 0;
	unsigned int i;

	iommu_iotlb_gather_init(&gather);
	for (i = 0; i < n; i++)
		total += iommu_unmap_fast(kdom(domain), iova[i], size[i],
					  &gather);
	iommu_iotlb_sync(kdom(domain), &gather);
	return kapi_return(total);
}

sim_phys_t kapi_iommu_iova_to_phys(struct kapi_iommu_domain *domain,
				   unsigned long long iova)
{
	return iommu_iova_to_phys(kdom(domain), iova);
}

void kapi_iommu_set_dry_run(int on)
{
	sim_iommu_set_dry_run(on);
}

void kapi_iommu_set_pgsize_bitmap(struct kapi_iommu_domain *domain,
				  unsigned long long bitmap)
{
	kdom(domain)->pgsize_bitmap = bitmap;
}

void kapi_iommu_trace_enable(unsigned long capacity)
{
	sim_iommu_trace_enable(capacity);
}

unsigned long kapi_iommu_trace_len(void)
{
	return sim_iommu_trace_len();
}

unsigned long long kapi_iommu_trace_dropped(void)
{
	return sim_iommu_trace_dropped();
}

int kapi_iommu_trace_get(unsigned long i, struct kapi_iommu_call *call)
{
	return sim_iommu_trace_get(i, call);
}

const struct kapi_iommu_call *kapi_iommu_trace_at(unsigned long i)
{
	return sim_iommu_trace_at(i);
}

void kapi_iommu_trace_clear(void)
{
	sim_iommu_trace_clear();
}

/* ------------------------------------------------------------------------
 * The core's group, domain and probe API beyond map/unmap, and the
 * test-double driver (see <dmasim/kapi_iommu.h>).  Added for the IOMMU
 * core's coverage: it reaches the callbacks a driver may leave out.
 */
static_assert(KAPI_IOMMU_DOMAIN_BLOCKED == IOMMU_DOMAIN_BLOCKED &&
	      KAPI_IOMMU_DOMAIN_IDENTITY == IOMMU_DOMAIN_IDENTITY &&
	      KAPI_IOMMU_DOMAIN_UNMANAGED == IOMMU_DOMAIN_UNMANAGED &&
	      KAPI_IOMMU_DOMAIN_DMA == IOMMU_DOMAIN_DMA,
	      "kapi domain types differ from the kernel's");
static_assert((int)KAPI_IOMMU_CAP_DIRTY_TRACKING ==
	      (int)IOMMU_CAP_DIRTY_TRACKING &&
	      (int)KAPI_IOMMU_RESV_SW_MSI == (int)IOMMU_RESV_SW_MSI,
	      "kapi enums differ from the kernel's");

unsigned int kapi_iommu_domain_type(struct kapi_iommu_domain *domain)
{
	return kdom(domain)->type;
}

int kapi_iommu_dev_probe(struct kapi_iommu_dev *dev)
{
	return kapi_return(iommu_probe_device(kdev(dev)));
}

int kapi_iommu_capable(struct kapi_iommu_dev *dev, enum kapi_iommu_cap cap)
{
	return device_iommu_capable(kdev(dev), (enum iommu_cap)cap);
}

int kapi_iommu_enable_nesting(struct kapi_iommu_domain *domain)
{
	return iommu_enable_nesting(kdom(domain));
}

int kapi_iommu_set_pgtable_quirks(struct kapi_iommu_domain *domain,
				  unsigned long quirks)
{
	return iommu_set_pgtable_quirks(kdom(domain), quirks);
}

static int kapi_fault_handler(struct iommu_domain *domain, struct device *dev,
			      unsigned long iova, int flags, void *token)
{
	return -ENOSYS;
}

void kapi_iommu_set_fault_handler(struct kapi_iommu_domain *domain,
				  void *token)
{
	iommu_set_fault_handler(kdom(domain), kapi_fault_handler, token);
}

void *kapi_iommu_fault_token(struct kapi_iommu_domain *domain)
{
	return kdom(domain)->handler == kapi_fault_handler ?
	       kdom(domain)->handler_token : NULL;
}

long long kapi_iommu_map_sg_bad_gfp(struct kapi_iommu_domain *domain)
{
	return iommu_map_sg(kdom(domain), 0, NULL, 0, IOMMU_READ,
			    GFP_KERNEL | __GFP_HIGHMEM);
}

int kapi_iommu_dev_use_default_domain(struct kapi_iommu_dev *dev)
{
	return kapi_return(iommu_device_use_default_domain(kdev(dev)));
}

void kapi_iommu_dev_unuse_default_domain(struct kapi_iommu_dev *dev)
{
	iommu_device_unuse_default_domain(kdev(dev));
	kapi_user_return();
}

int kapi_iommu_group_claim_dma_owner(struct kapi_iommu_dev *dev, void *owner)
{
	return kapi_return(iommu_group_claim_dma_owner(kdev(dev)->iommu_group,
						       owner));
}

void kapi_iommu_group_release_dma_owner(struct kapi_iommu_dev *dev)
{
	iommu_group_release_dma_owner(kdev(dev)->iommu_group);
	kapi_user_return();
}

int kapi_iommu_group_dma_owner_claimed(struct kapi_iommu_dev *dev)
{
	return kapi_return(iommu_group_dma_owner_claimed(kdev(dev)->iommu_group));
}

int kapi_iommu_group_set_name(struct kapi_iommu_dev *dev, const char *name)
{
	return iommu_group_set_name(kdev(dev)->iommu_group, name);
}

void kapi_iommu_group_set_iommudata(struct kapi_iommu_dev *dev, void *data,
				    void (*release)(void *data))
{
	iommu_group_set_iommudata(kdev(dev)->iommu_group, data, release);
}

void *kapi_iommu_group_get_iommudata(struct kapi_iommu_dev *dev)
{
	return iommu_group_get_iommudata(kdev(dev)->iommu_group);
}

struct kapi_iommu_domain *
kapi_iommu_group_default_domain(struct kapi_iommu_dev *dev)
{
	return (struct kapi_iommu_domain *)
		iommu_group_default_domain(kdev(dev)->iommu_group);
}

struct kapi_for_each {
	unsigned int stop_at, visited;
	int stop_ret;
};

static int kapi_count_dev(struct device *dev, void *data)
{
	struct kapi_for_each *fe = data;

	return ++fe->visited == fe->stop_at ? fe->stop_ret : 0;
}

int kapi_iommu_group_for_each_dev(struct kapi_iommu_dev *dev,
				  unsigned int stop_at, int stop_ret,
				  unsigned int *visited)
{
	struct kapi_for_each fe = { .stop_at = stop_at, .stop_ret = stop_ret };
	struct iommu_group *group;
	int ret;

	group = dev ? iommu_group_ref_get(kdev(dev)->iommu_group) :
		      iommu_group_alloc();
	if (IS_ERR(group))
		return kapi_return(PTR_ERR(group));
	ret = iommu_group_for_each_dev(group, &fe, kapi_count_dev);
	iommu_group_put(group);
	*visited = fe.visited;
	return kapi_return(ret);
}

void kapi_iommu_dev_leave_group(struct kapi_iommu_dev *dev)
{
	iommu_group_remove_device(kdev(dev));
	kapi_user_return();
}

int kapi_iommu_group_resv_regions(struct kapi_iommu_dev *dev,
				  struct kapi_iommu_resv *out, unsigned int max)
{
	struct iommu_resv_region *region, *tmp;
	LIST_HEAD(head);
	unsigned int n = 0;
	int ret;

	ret = iommu_get_group_resv_regions(kdev(dev)->iommu_group, &head);
	list_for_each_entry_safe(region, tmp, &head, list) {
		if (n < max)
			out[n] = (struct kapi_iommu_resv){
				.start = region->start,
				.length = region->length,
				.prot = region->prot,
				.type = region->type,
			};
		n++;
		list_del(&region->list);
		kfree(region);
	}
	return kapi_return(ret ? ret : (int)n);
}

int kapi_iommu_dev_nr_resv_regions(struct kapi_iommu_dev *dev)
{
	struct iommu_resv_region *region;
	LIST_HEAD(list);
	int n = 0;

	iommu_get_resv_regions(kdev(dev), &list);
	list_for_each_entry(region, &list, list)
		n++;
	iommu_put_resv_regions(kdev(dev), &list);
	/* The put empties the caller's list: nothing may still point in. */
	return list_empty(&list) ? n : -ENOTEMPTY;
}

struct kapi_bare_dev {
	struct device dev;
	struct dev_iommu dev_iommu;
};

static void kapi_bare_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct kapi_bare_dev, dev));
}

int kapi_iommu_bare_dev_create(int with_dev_iommu,
			       struct kapi_iommu_dev **dev)
{
	struct kapi_bare_dev *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	if (with_dev_iommu)
		b->dev.iommu = &b->dev_iommu;
	b->dev.release = kapi_bare_dev_release;
	device_initialize(&b->dev);
	*dev = (struct kapi_iommu_dev *)&b->dev;
	return 0;
}

/* ---- the test-double driver ---- */

struct dbl_domain {
	struct iommu_domain domain;
	unsigned long long mapped;
	bool attached;		/* finalised by a first attach */
};

struct dbl_device {
	struct device dev;
	struct dev_iommu dev_iommu;
	struct device *peer;
	struct kapi_iommu_resv resv[4];
	unsigned int nr_resv;
};

static struct {
	unsigned int flags;
	enum kapi_dbl_def_domain def_domain;
	unsigned long long pgsize_bitmap;
	unsigned long nr_devices, nr_released;
	unsigned long alloc_calls, alloc_paging_calls;
	unsigned long attach_calls, fail_attach_at;
	bool fail_attach_persist;
	bool registered;
	struct iommu_device iommu;
	struct iommu_ops ops;
	struct iommu_domain_ops domain_ops;
} dbl;

/* The static domains: no callbacks at all, as they have no tables. */
static const struct iommu_domain_ops dbl_static_ops;
static struct iommu_domain dbl_identity = {
	.type = IOMMU_DOMAIN_IDENTITY, .ops = &dbl_static_ops,
};
static struct iommu_domain dbl_blocked = {
	.type = IOMMU_DOMAIN_BLOCKED, .ops = &dbl_static_ops,
};

static bool dbl_has(unsigned int flag)
{
	return dbl.flags & flag;
}

static struct dbl_domain *to_dbl_domain(struct iommu_domain *domain)
{
	return container_of(domain, struct dbl_domain, domain);
}

static struct dbl_device *to_dbl_device(struct device *dev)
{
	return container_of(dev, struct dbl_device, dev);
}

static int dbl_attach_dev(struct iommu_domain *domain, struct device *dev)
{
	dbl.attach_calls++;
	if (dbl.fail_attach_at &&
	    (dbl.attach_calls == dbl.fail_attach_at ||
	     (dbl.fail_attach_persist && dbl.attach_calls > dbl.fail_attach_at)))
		return -EINVAL;
	to_dbl_domain(domain)->attached = true;
	return 0;
}

static int dbl_map_pages(struct iommu_domain *domain, unsigned long iova,
			 phys_addr_t paddr, size_t pgsize, size_t pgcount,
			 int prot, gfp_t gfp, size_t *mapped)
{
	*mapped = dbl_has(KAPI_DBL_MAP_NOTHING) ? 0 : pgsize * pgcount;
	to_dbl_domain(domain)->mapped += *mapped;
	return 0;
}

static size_t dbl_unmap_pages(struct iommu_domain *domain, unsigned long iova,
			      size_t pgsize, size_t pgcount,
			      struct iommu_iotlb_gather *gather)
{
	struct dbl_domain *d = to_dbl_domain(domain);
	size_t got = min_t(unsigned long long, pgsize * pgcount, d->mapped);

	d->mapped -= got;
	return got;
}

static int dbl_iotlb_sync_map(struct iommu_domain *domain, unsigned long iova,
			      size_t size)
{
	return 0;
}

/* As arm-smmu's: a domain already attached (finalised) cannot nest. */
static int dbl_enable_nesting(struct iommu_domain *domain)
{
	return to_dbl_domain(domain)->attached ? -EPERM : 0;
}

static int dbl_set_pgtable_quirks(struct iommu_domain *domain,
				  unsigned long quirks)
{
	return quirks ? -EOPNOTSUPP : 0;
}

static void dbl_domain_free(struct iommu_domain *domain)
{
	kfree(to_dbl_domain(domain));
}

static struct iommu_domain *dbl_new_domain(void)
{
	struct dbl_domain *d;

	if (dbl_has(KAPI_DBL_ALLOC_NULL))
		return NULL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	if (!dbl_has(KAPI_DBL_DEFAULT_OPS))
		d->domain.ops = &dbl.domain_ops;
	if (!dbl_has(KAPI_DBL_OPS_PGSIZE))
		d->domain.pgsize_bitmap = dbl.pgsize_bitmap;
	return &d->domain;
}

static struct iommu_domain *dbl_domain_alloc(unsigned int type)
{
	dbl.alloc_calls++;
	return dbl_new_domain();
}

static struct iommu_domain *dbl_domain_alloc_paging(struct device *dev)
{
	dbl.alloc_paging_calls++;
	return dbl_new_domain();
}

static bool dbl_capable(struct device *dev, enum iommu_cap cap)
{
	return cap == IOMMU_CAP_CACHE_COHERENCY;
}

static struct iommu_device *dbl_probe_device(struct device *dev)
{
	return &dbl.iommu;
}

static void dbl_release_device(struct device *dev)
{
	dbl.nr_released++;
}

static struct iommu_group *dbl_device_group(struct device *dev)
{
	struct device *peer = to_dbl_device(dev)->peer;

	return peer ? iommu_group_get(peer) : iommu_group_alloc();
}

static void dbl_resv_free(struct device *dev, struct iommu_resv_region *r)
{
	kfree(r);
}

/* Regions of odd index are freed by their own ->free, as some drivers do. */
static void dbl_get_resv_regions(struct device *dev, struct list_head *list)
{
	struct dbl_device *d = to_dbl_device(dev);
	struct iommu_resv_region *r;
	unsigned int i;

	for (i = 0; i < d->nr_resv; i++) {
		r = iommu_alloc_resv_region(d->resv[i].start, d->resv[i].length,
					    d->resv[i].prot,
					    (enum iommu_resv_type)d->resv[i].type,
					    GFP_KERNEL);
		if (!r)
			return;
		if (i & 1)
			r->free = dbl_resv_free;
		list_add_tail(&r->list, list);
	}
}

static int dbl_def_domain_type(struct device *dev)
{
	switch (dbl.def_domain) {
	case KAPI_DBL_DEF_IDENTITY:
		return IOMMU_DOMAIN_IDENTITY;
	case KAPI_DBL_DEF_DMA:
		return IOMMU_DOMAIN_DMA;
	default:
		return 0;
	}
}

void kapi_iommu_double_setup(unsigned int flags,
			     enum kapi_dbl_def_domain def_domain,
			     unsigned long long pgsize_bitmap)
{
	struct iommu_domain_ops *dops = &dbl.domain_ops;
	struct iommu_ops *ops = &dbl.ops;

	kapi_iommu_double_teardown();
	dbl.flags = flags;
	dbl.def_domain = def_domain;
	dbl.pgsize_bitmap = pgsize_bitmap;
	dbl.attach_calls = dbl.fail_attach_at = 0;
	dbl.nr_released = 0;
	dbl.alloc_calls = dbl.alloc_paging_calls = 0;

	*dops = (struct iommu_domain_ops){ 0 };
	if (dbl_has(KAPI_DBL_ATTACH))
		dops->attach_dev = dbl_attach_dev;
	if (dbl_has(KAPI_DBL_MAP))
		dops->map_pages = dbl_map_pages;
	if (dbl_has(KAPI_DBL_UNMAP))
		dops->unmap_pages = dbl_unmap_pages;
	if (dbl_has(KAPI_DBL_SYNC_MAP))
		dops->iotlb_sync_map = dbl_iotlb_sync_map;
	if (dbl_has(KAPI_DBL_NESTING))
		dops->enable_nesting = dbl_enable_nesting;
	if (dbl_has(KAPI_DBL_QUIRKS))
		dops->set_pgtable_quirks = dbl_set_pgtable_quirks;
	if (dbl_has(KAPI_DBL_FREE))
		dops->free = dbl_domain_free;

	*ops = (struct iommu_ops){ 0 };
	if (dbl_has(KAPI_DBL_CAPABLE))
		ops->capable = dbl_capable;
	if (dbl_has(KAPI_DBL_ALLOC_PAGING))
		ops->domain_alloc_paging = dbl_domain_alloc_paging;
	if (dbl_has(KAPI_DBL_ALLOC))
		ops->domain_alloc = dbl_domain_alloc;
	if (dbl_has(KAPI_DBL_PROBE))
		ops->probe_device = dbl_probe_device;
	if (dbl_has(KAPI_DBL_RELEASE))
		ops->release_device = dbl_release_device;
	if (dbl_has(KAPI_DBL_DEVICE_GROUP))
		ops->device_group = dbl_device_group;
	if (dbl_has(KAPI_DBL_RESV_REGIONS))
		ops->get_resv_regions = dbl_get_resv_regions;
	if (def_domain != KAPI_DBL_DEF_NONE)
		ops->def_domain_type = dbl_def_domain_type;
	if (dbl_has(KAPI_DBL_IDENTITY))
		ops->identity_domain = &dbl_identity;
	if (dbl_has(KAPI_DBL_BLOCKED))
		ops->blocked_domain = &dbl_blocked;
	ops->default_domain_ops = dops;
	if (dbl_has(KAPI_DBL_OPS_PGSIZE))
		ops->pgsize_bitmap = pgsize_bitmap;
	dbl.registered = !iommu_device_register(&dbl.iommu, ops, NULL);
}

void kapi_iommu_double_teardown(void)
{
	if (dbl.registered)
		iommu_device_unregister(&dbl.iommu);
	dbl.registered = false;
}

static void dbl_device_release(struct device *dev)
{
	kfree(to_dbl_device(dev));
	dbl.nr_devices--;
}

int kapi_iommu_double_dev_create(struct kapi_iommu_dev *group_peer,
				 const struct kapi_iommu_resv *resv,
				 unsigned int n, struct kapi_iommu_dev **dev)
{
	struct dbl_device *d;
	int ret;

	if (n > ARRAY_SIZE(d->resv))
		return -EINVAL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->peer = kdev(group_peer);
	memcpy(d->resv, resv, n * sizeof(*resv));
	d->nr_resv = n;
	d->dev.iommu = &d->dev_iommu;
	d->dev_iommu.iommu_dev = &dbl.iommu;
	d->dev.release = dbl_device_release;
	device_initialize(&d->dev);
	dbl.nr_devices++;
	ret = iommu_probe_device(&d->dev);
	if (ret) {
		put_device(&d->dev);
		return ret;
	}
	*dev = (struct kapi_iommu_dev *)&d->dev;
	return 0;
}

unsigned long kapi_iommu_double_nr_devices(void)
{
	return dbl.nr_devices;
}

unsigned long kapi_iommu_double_nr_released(void)
{
	return dbl.nr_released;
}

unsigned long kapi_iommu_double_nr_allocs(int paging)
{
	return paging ? dbl.alloc_paging_calls : dbl.alloc_calls;
}

void kapi_iommu_double_fail_attach(unsigned long nth, int persist)
{
	dbl.fail_attach_at = nth ? dbl.attach_calls + nth : 0;
	dbl.fail_attach_persist = persist;
}

unsigned long long kapi_iommu_double_mapped(struct kapi_iommu_domain *domain)
{
	return to_dbl_domain(kdom(domain))->mapped;
}

struct kapi_iommu_domain *kapi_iommu_double_blocked_domain(void)
{
	return (struct kapi_iommu_domain *)&dbl_blocked;
}
