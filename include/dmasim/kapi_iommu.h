/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into the kernel's IOMMU API as the simulated
 * kernel runs it (kernel_shim/kapi_iommu.c): simulated devices behind an
 * IOMMU of a chosen format, their domains, iommu_map()/iommu_unmap()
 * through the IOMMU core under test, and the trace of what the core asked
 * of the driver.  Leaves are read back with the sim API (sim_iommu.h) on
 * kapi_iommu_sim_domain().
 *
 * Every call returns what the kernel function returned (negative errno,
 * byte counts), so tests compare against the kernel's contract directly.
 */
#ifndef DMASIM_KAPI_IOMMU_H
#define DMASIM_KAPI_IOMMU_H

#include <dmasim/sim.h>

/* A struct device behind a simulated IOMMU, and a struct iommu_domain. */
struct kapi_iommu_dev;
struct kapi_iommu_domain;

/* Protection bits (the kernel's IOMMU_READ ... values). */
#define KAPI_IOMMU_READ		SIM_IOMMU_READ
#define KAPI_IOMMU_WRITE	SIM_IOMMU_WRITE
#define KAPI_IOMMU_CACHE	SIM_IOMMU_CACHE
#define KAPI_IOMMU_NOEXEC	SIM_IOMMU_NOEXEC
#define KAPI_IOMMU_MMIO		SIM_IOMMU_MMIO
#define KAPI_IOMMU_PRIV		SIM_IOMMU_PRIV

/*
 * Create a device named name behind the simulated IOMMU of format fmt and
 * probe it: it gets a group of its own (or joins group_peer's, if not
 * NULL) and a default DMA domain, attached.  Returns 0 and sets *dev, or
 * the probe's errno (-ENOMEM under the fault points, -EINVAL for an
 * unknown format or a peer of another format).
 */
int kapi_iommu_dev_create(const char *name, enum sim_iommu_format_id fmt,
			  struct kapi_iommu_dev *group_peer,
			  struct kapi_iommu_dev **dev);
void kapi_iommu_dev_destroy(struct kapi_iommu_dev *dev);
/* Devices alive (every test checks it returns to its start). */
unsigned long kapi_iommu_nr_devices(void);
/* The kernel's struct device (for kernel TUs handed a kapi device). */
void *kapi_iommu_dev_kernel(struct kapi_iommu_dev *dev);

/* iommu_get_domain_for_dev(): the domain attached now. */
struct kapi_iommu_domain *kapi_iommu_dev_domain(struct kapi_iommu_dev *dev);
/* iommu_get_dma_domain(): the default DMA domain. */
struct kapi_iommu_domain *kapi_iommu_dev_dma_domain(struct kapi_iommu_dev *dev);
/* iommu_group_id() of the device's group. */
int kapi_iommu_dev_group_id(struct kapi_iommu_dev *dev);

/* iommu_paging_domain_alloc(dev): 0 and *domain, or its errno. */
int kapi_iommu_domain_alloc(struct kapi_iommu_dev *dev,
			    struct kapi_iommu_domain **domain);
void kapi_iommu_domain_free(struct kapi_iommu_domain *domain);
/* iommu_attach_device() / iommu_detach_device(). */
int kapi_iommu_attach(struct kapi_iommu_domain *domain,
		      struct kapi_iommu_dev *dev);
void kapi_iommu_detach(struct kapi_iommu_domain *domain,
		       struct kapi_iommu_dev *dev);
/* iommu_attach_group() / iommu_detach_group() on the device's group. */
int kapi_iommu_attach_group(struct kapi_iommu_domain *domain,
			    struct kapi_iommu_dev *dev);
void kapi_iommu_detach_group(struct kapi_iommu_domain *domain,
			     struct kapi_iommu_dev *dev);

unsigned long long kapi_iommu_pgsize_bitmap(struct kapi_iommu_domain *domain);
/* The domain's geometry.aperture_end. */
unsigned long long kapi_iommu_aperture_end(struct kapi_iommu_domain *domain);
struct sim_iommu_domain *kapi_iommu_sim_domain(struct kapi_iommu_domain *domain);

/* iommu_map(domain, iova, paddr, size, prot, GFP_KERNEL). */
int kapi_iommu_map(struct kapi_iommu_domain *domain, unsigned long long iova,
		   sim_phys_t paddr, unsigned long long size, int prot);
/* iommu_map() with a gfp the kernel rejects (__GFP_HIGHMEM): -EINVAL. */
int kapi_iommu_map_bad_gfp(struct kapi_iommu_domain *domain,
			   unsigned long long iova, sim_phys_t paddr,
			   unsigned long long size, int prot);
/*
 * iommu_map_sg(domain, iova, sgl, n, prot, GFP_KERNEL) over a scatterlist
 * built from n entries (paddr[i], len[i]; paddr in RAM, as entries point
 * at struct pages), entry i marked as a bus address (P2P) when bus is not
 * NULL and bus[i] is set.  Returns the bytes mapped or the errno.
 */
long long kapi_iommu_map_sg(struct kapi_iommu_domain *domain,
			    unsigned long long iova, const sim_phys_t *paddr,
			    const unsigned int *len, const int *bus,
			    unsigned int n, int prot);
/* iommu_unmap(): bytes unmapped. */
unsigned long long kapi_iommu_unmap(struct kapi_iommu_domain *domain,
				    unsigned long long iova,
				    unsigned long long size);
/*
 * iommu_unmap_fast() for each of n ranges into one gather, then one
 * iommu_iotlb_sync(), as VFIO type1's unmap loop does; returns the total.
 */
unsigned long long kapi_iommu_unmap_gathered(struct kapi_iommu_domain *domain,
					     const unsigned long long *iova,
					     const unsigned long long *size,
					     unsigned int n);
/* iommu_iova_to_phys(). */
sim_phys_t kapi_iommu_iova_to_phys(struct kapi_iommu_domain *domain,
				   unsigned long long iova);

/*
 * Test doubles for sweeping the core's arithmetic: in dry run the driver's
 * map_pages/unmap_pages write no table and report full success (pgsize *
 * count bytes) until the trace ring is full, then fail (map_pages
 * -ENOSPC, unmap_pages 0) so that a looping core ends;
 * kapi_iommu_set_pgsize_bitmap() overrides a domain's
 * pgsize_bitmap (use only in dry run: the tables accept only their
 * format's sizes).
 */
void kapi_iommu_set_dry_run(int on);
void kapi_iommu_set_pgsize_bitmap(struct kapi_iommu_domain *domain,
				  unsigned long long bitmap);

/*
 * The driver-call trace: what the IOMMU core asked of the driver.  Enable
 * with a capacity (the ring keeps the last capacity calls, older ones are
 * counted as dropped), 0 disables it and frees the ring (which counts in
 * sim_kmalloc_outstanding() while it exists).  Records are numbered oldest
 * first from 0.
 */
enum kapi_iommu_op {
	KAPI_IOMMU_OP_MAP_PAGES,	/* iova, paddr, pgsize, count; ret = errno, done = bytes mapped */
	KAPI_IOMMU_OP_UNMAP_PAGES,	/* iova, pgsize, count; done = bytes unmapped */
	KAPI_IOMMU_OP_IOTLB_SYNC,	/* iova = gather start, done = range length (0: empty gather) */
	KAPI_IOMMU_OP_IOTLB_SYNC_MAP,	/* iova, done = size; ret */
	KAPI_IOMMU_OP_FLUSH_ALL,
};

struct kapi_iommu_call {
	int op;				/* enum kapi_iommu_op */
	unsigned long domain_id;	/* 1, 2, ... in allocation order */
	unsigned long long iova;
	unsigned long long paddr;
	unsigned long long pgsize;
	unsigned long long count;
	unsigned long long done;
	int ret;
};

void kapi_iommu_trace_enable(unsigned long capacity);
unsigned long kapi_iommu_trace_len(void);
unsigned long long kapi_iommu_trace_dropped(void);
/* 0 and *call, or -ENOENT past the end. */
int kapi_iommu_trace_get(unsigned long i, struct kapi_iommu_call *call);
void kapi_iommu_trace_clear(void);

#endif
