// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points into the IOMMU API (<dmasim/kapi_iommu.h>): thin
 * wrappers that call the kernel functions under test and return what they
 * returned.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <shim/iommu_sim.h>

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
		return PTR_ERR(d);
	*dev = (struct kapi_iommu_dev *)d;
	return 0;
}

void kapi_iommu_dev_destroy(struct kapi_iommu_dev *dev)
{
	sim_iommu_device_destroy(kdev(dev));
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
	int id;

	if (!group)
		return -ENODEV;
	id = iommu_group_id(group);
	iommu_group_put(group);
	return id;
}

int kapi_iommu_domain_alloc(struct kapi_iommu_dev *dev,
			    struct kapi_iommu_domain **domain)
{
	struct iommu_domain *d = iommu_paging_domain_alloc(kdev(dev));

	if (IS_ERR(d))
		return PTR_ERR(d);
	*domain = (struct kapi_iommu_domain *)d;
	return 0;
}

void kapi_iommu_domain_free(struct kapi_iommu_domain *domain)
{
	iommu_domain_free(kdom(domain));
}

int kapi_iommu_attach(struct kapi_iommu_domain *domain,
		      struct kapi_iommu_dev *dev)
{
	return iommu_attach_device(kdom(domain), kdev(dev));
}

void kapi_iommu_detach(struct kapi_iommu_domain *domain,
		       struct kapi_iommu_dev *dev)
{
	iommu_detach_device(kdom(domain), kdev(dev));
}

int kapi_iommu_attach_group(struct kapi_iommu_domain *domain,
			    struct kapi_iommu_dev *dev)
{
	return iommu_attach_group(kdom(domain), kdev(dev)->iommu_group);
}

void kapi_iommu_detach_group(struct kapi_iommu_domain *domain,
			     struct kapi_iommu_dev *dev)
{
	iommu_detach_group(kdom(domain), kdev(dev)->iommu_group);
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
	return iommu_map(kdom(domain), iova, paddr, size, prot, GFP_KERNEL);
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
		return -ENOMEM;
	sg_init_table(sgl, n ? n : 1);
	for_each_sg(sgl, sg, n, i) {
		sg_set_page(sg, pfn_to_page(paddr[i] >> PAGE_SHIFT), len[i],
			    paddr[i] & ~PAGE_MASK);
		if (bus && bus[i])
			sg_dma_mark_bus_address(sg);
	}
	ret = iommu_map_sg(kdom(domain), iova, sgl, n, prot, GFP_KERNEL);
	kfree(sgl);
	return ret;
}

unsigned long long kapi_iommu_unmap(struct kapi_iommu_domain *domain,
				    unsigned long long iova,
				    unsigned long long size)
{
	return iommu_unmap(kdom(domain), iova, size);
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
	return total;
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

void kapi_iommu_trace_clear(void)
{
	sim_iommu_trace_clear();
}
