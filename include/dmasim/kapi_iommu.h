/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into the kernel's IOMMU API as the simulated
 * kernel runs it (kapi/kapi_iommu.c): simulated devices behind an
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
/*
 * Record i in place, or NULL past the end: valid until the next driver call
 * or trace function (a fuzzer reads every record of every operation; a
 * copy each was a twentieth of fuzz_iommu_pgsize).
 */
const struct kapi_iommu_call *kapi_iommu_trace_at(unsigned long i);
void kapi_iommu_trace_clear(void);

/* ------------------------------------------------------------------------
 * The IOMMU core's group, domain and probe API beyond map/unmap, and a
 * configurable test-double driver, so that every path of the core is
 * reachable: drivers without some callbacks, identity and blocked domains,
 * attach that fails, reserved regions.  (Block added for the IOMMU core's
 * coverage.)
 */

/* Domain types (the kernel's IOMMU_DOMAIN_* values). */
#define KAPI_IOMMU_DOMAIN_BLOCKED	0U
#define KAPI_IOMMU_DOMAIN_IDENTITY	4U
#define KAPI_IOMMU_DOMAIN_UNMANAGED	1U
#define KAPI_IOMMU_DOMAIN_DMA		3U

/* Capabilities (enum iommu_cap). */
enum kapi_iommu_cap {
	KAPI_IOMMU_CAP_CACHE_COHERENCY,
	KAPI_IOMMU_CAP_NOEXEC,
	KAPI_IOMMU_CAP_PRE_BOOT_PROTECTION,
	KAPI_IOMMU_CAP_ENFORCE_CACHE_COHERENCY,
	KAPI_IOMMU_CAP_DEFERRED_FLUSH,
	KAPI_IOMMU_CAP_DIRTY_TRACKING,
};

/* Reserved-region types (enum iommu_resv_type). */
enum kapi_iommu_resv_type {
	KAPI_IOMMU_RESV_DIRECT,
	KAPI_IOMMU_RESV_DIRECT_RELAXABLE,
	KAPI_IOMMU_RESV_RESERVED,
	KAPI_IOMMU_RESV_MSI,
	KAPI_IOMMU_RESV_SW_MSI,
};

struct kapi_iommu_resv {
	unsigned long long start;
	unsigned long long length;
	int prot;
	int type;			/* enum kapi_iommu_resv_type */
};

/* domain->type. */
unsigned int kapi_iommu_domain_type(struct kapi_iommu_domain *domain);
/* iommu_probe_device() again (0: a probed device is left as it is). */
int kapi_iommu_dev_probe(struct kapi_iommu_dev *dev);
/* device_iommu_capable(). */
int kapi_iommu_capable(struct kapi_iommu_dev *dev, enum kapi_iommu_cap cap);
/* iommu_enable_nesting() / iommu_set_pgtable_quirks(). */
int kapi_iommu_enable_nesting(struct kapi_iommu_domain *domain);
int kapi_iommu_set_pgtable_quirks(struct kapi_iommu_domain *domain,
				  unsigned long quirks);
/*
 * iommu_set_fault_handler(domain, a handler, token) (domain may be NULL:
 * the kernel warns); kapi_iommu_fault_token() reads handler_token back.
 */
void kapi_iommu_set_fault_handler(struct kapi_iommu_domain *domain,
				  void *token);
void *kapi_iommu_fault_token(struct kapi_iommu_domain *domain);
/* iommu_map_sg() of an empty list with a gfp the kernel rejects. */
long long kapi_iommu_map_sg_bad_gfp(struct kapi_iommu_domain *domain);

/*
 * DMA ownership: a kernel driver binding to / unbinding from the device
 * (iommu_device_use_default_domain() and _unuse_; a device without a group
 * passes), and a user claiming / releasing its whole group
 * (iommu_group_claim_dma_owner(): owner NULL is a WARN and -EINVAL), and
 * iommu_group_dma_owner_claimed().
 */
int kapi_iommu_dev_use_default_domain(struct kapi_iommu_dev *dev);
void kapi_iommu_dev_unuse_default_domain(struct kapi_iommu_dev *dev);
int kapi_iommu_group_claim_dma_owner(struct kapi_iommu_dev *dev, void *owner);
void kapi_iommu_group_release_dma_owner(struct kapi_iommu_dev *dev);
int kapi_iommu_group_dma_owner_claimed(struct kapi_iommu_dev *dev);

/* On the device's group: iommu_group_set_name(), the iommudata calls. */
int kapi_iommu_group_set_name(struct kapi_iommu_dev *dev, const char *name);
void kapi_iommu_group_set_iommudata(struct kapi_iommu_dev *dev, void *data,
				    void (*release)(void *data));
void *kapi_iommu_group_get_iommudata(struct kapi_iommu_dev *dev);
/* iommu_group_default_domain(). */
struct kapi_iommu_domain *
kapi_iommu_group_default_domain(struct kapi_iommu_dev *dev);
/*
 * iommu_group_for_each_dev() with a callback that counts the devices it
 * is called for (*visited) and returns stop_ret at the stop_at-th one
 * (1-based; 0: never stops).  Returns what the core returned.  dev NULL:
 * a new group with no device yet (iommu_group_alloc(), put again after).
 */
int kapi_iommu_group_for_each_dev(struct kapi_iommu_dev *dev,
				  unsigned int stop_at, int stop_ret,
				  unsigned int *visited);
/* iommu_group_remove_device(): the device leaves its group (stays alive). */
void kapi_iommu_dev_leave_group(struct kapi_iommu_dev *dev);
/*
 * iommu_get_group_resv_regions() into out[0..max) (the list is freed
 * here, whatever happened): the number of regions, or the errno.
 */
int kapi_iommu_group_resv_regions(struct kapi_iommu_dev *dev,
				  struct kapi_iommu_resv *out, unsigned int max);
/*
 * iommu_get_resv_regions() + iommu_put_resv_regions(): regions seen, or
 * -ENOTEMPTY if the put left entries on the list.
 */
int kapi_iommu_dev_nr_resv_regions(struct kapi_iommu_dev *dev);

/*
 * A device the IOMMU core does not translate: with_dev_iommu 0 leaves
 * dev->iommu NULL (no IOMMU in the path), 1 gives it a dev->iommu that
 * names no instance.  Not probed; kapi_iommu_dev_destroy() frees it.
 */
int kapi_iommu_bare_dev_create(int with_dev_iommu,
			       struct kapi_iommu_dev **dev);

/*
 * The test-double driver: one IOMMU instance whose struct iommu_ops and
 * iommu_domain_ops offer exactly the callbacks in flags.  Its paging
 * domains map nothing: map_pages reports pgsize * count bytes mapped and
 * adds them to the domain's byte count, unmap_pages takes back what is
 * asked while the count lasts (0 once it is 0); kapi_iommu_double_mapped()
 * reads the count.  Its static identity and blocked domains have no
 * callbacks.
 */
enum {
	KAPI_DBL_CAPABLE	= 1 << 0,	/* ->capable: CACHE_COHERENCY only */
	KAPI_DBL_ALLOC_PAGING	= 1 << 1,	/* ->domain_alloc_paging */
	KAPI_DBL_ALLOC		= 1 << 2,	/* ->domain_alloc(type) */
	KAPI_DBL_ALLOC_NULL	= 1 << 3,	/* those return NULL */
	KAPI_DBL_PROBE		= 1 << 4,	/* ->probe_device */
	KAPI_DBL_RELEASE	= 1 << 5,	/* ->release_device (counted) */
	KAPI_DBL_DEVICE_GROUP	= 1 << 6,	/* ->device_group: the peer's */
	KAPI_DBL_RESV_REGIONS	= 1 << 7,	/* ->get_resv_regions */
	KAPI_DBL_IDENTITY	= 1 << 8,	/* ->identity_domain */
	KAPI_DBL_BLOCKED	= 1 << 9,	/* ->blocked_domain */
	KAPI_DBL_DEFAULT_OPS	= 1 << 10,	/* domains get ->default_domain_ops */
	KAPI_DBL_OPS_PGSIZE	= 1 << 11,	/* domains get ops->pgsize_bitmap */
	KAPI_DBL_ATTACH		= 1 << 12,	/* domain ->attach_dev */
	KAPI_DBL_MAP		= 1 << 13,	/* ->map_pages */
	KAPI_DBL_UNMAP		= 1 << 14,	/* ->unmap_pages */
	KAPI_DBL_SYNC_MAP	= 1 << 15,	/* ->iotlb_sync_map */
	KAPI_DBL_NESTING	= 1 << 16,	/* ->enable_nesting (-EPERM once attached) */
	KAPI_DBL_QUIRKS		= 1 << 17,	/* ->set_pgtable_quirks */
	KAPI_DBL_FREE		= 1 << 18,	/* ->free (else the domain leaks) */
	KAPI_DBL_MAP_NOTHING	= 1 << 19,	/* map_pages: 0, 0 bytes mapped */
};

/* What ->def_domain_type answers (KAPI_DBL_DEF_NONE: no callback). */
enum kapi_dbl_def_domain {
	KAPI_DBL_DEF_NONE,
	KAPI_DBL_DEF_NO_OPINION,	/* returns 0 */
	KAPI_DBL_DEF_IDENTITY,
	KAPI_DBL_DEF_DMA,
};

/*
 * Register the double (iommu_device_register) with these callbacks;
 * pgsize_bitmap is what its domains map (their own, or ops->pgsize_bitmap
 * with KAPI_DBL_OPS_PGSIZE); a double already set up is torn down first.
 * kapi_iommu_double_teardown() unregisters it (iommu_device_unregister;
 * nothing if it is not registered); destroy its devices first.
 */
void kapi_iommu_double_setup(unsigned int flags,
			     enum kapi_dbl_def_domain def_domain,
			     unsigned long long pgsize_bitmap);
void kapi_iommu_double_teardown(void);
/*
 * A device behind the double, probed (iommu_probe_device's errno is
 * returned, and the device freed, if probing fails).  With group_peer
 * (and KAPI_DBL_DEVICE_GROUP) it joins that device's group.  Its
 * get_resv_regions reports the n regions of resv (n <= 4).
 */
int kapi_iommu_double_dev_create(struct kapi_iommu_dev *group_peer,
				 const struct kapi_iommu_resv *resv,
				 unsigned int n, struct kapi_iommu_dev **dev);
/* Double devices alive; release_device calls so far. */
unsigned long kapi_iommu_double_nr_devices(void);
unsigned long kapi_iommu_double_nr_released(void);
/* Calls of ->domain_alloc_paging (paging 1) or ->domain_alloc (0) so far. */
unsigned long kapi_iommu_double_nr_allocs(int paging);
/*
 * From now on, attach_dev call number nth (1: the next) fails with
 * -EINVAL, and with persist every call after it too; nth 0 stops failing.
 */
void kapi_iommu_double_fail_attach(unsigned long nth, int persist);
/* Bytes a double domain holds mapped. */
unsigned long long kapi_iommu_double_mapped(struct kapi_iommu_domain *domain);
/* The double's static blocked domain (KAPI_DBL_BLOCKED). */
struct kapi_iommu_domain *kapi_iommu_double_blocked_domain(void);

#endif
