/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: IOMMU page tables per format, and the IOVA allocator of the DMA
 * layer.  Plain C; see sim.h for the rules every include/dmasim header follows.
 *
 * A domain is a real multi-level radix table of the format's granule.  A
 * leaf of a size the format has natively (a block/superpage entry) is one
 * entry at its level; a size the format makes by replication (AMD v1's
 * "every power of two") is written as that many entries of the level below,
 * each counted as a PTE write.  Live leaves are counted by size, so a test
 * or the CLI can ask "how many 2 MiB leaves map this buffer".
 */
#ifndef DMASIM_SIM_IOMMU_H
#define DMASIM_SIM_IOMMU_H

enum sim_iommu_format_id {
	SIM_IOMMU_INTEL_SL,	/* VT-d second stage: 4K|2M|1G, 48-bit IOVA */
	SIM_IOMMU_AMD_V1,	/* every power of two 4K..2^51 but 512G, 64-bit IOVA */
	SIM_IOMMU_AMD_V2,	/* 4K|2M|1G, 48-bit IOVA */
	SIM_IOMMU_ARM_LPAE_4K,	/* 4K|2M|1G, 48-bit IOVA */
	SIM_IOMMU_ARM_LPAE_16K,	/* 16K|32M, 47-bit IOVA */
	SIM_IOMMU_ARM_LPAE_64K,	/* 64K|512M, 48-bit IOVA */
	SIM_NR_IOMMU_FORMATS
};

struct sim_iommu_format {
	const char *name;		/* "intel-sl", "amd-v1", ... */
	unsigned long long pgsize_bitmap;
	unsigned int granule_shift;	/* smallest page: 12, 14 or 16 */
	unsigned int ias;		/* IOVA bits: aperture is [0, 2^ias - 1] */
	unsigned int levels;
	const char *what;		/* one line for tables and --help */
};

const struct sim_iommu_format *sim_iommu_format(enum sim_iommu_format_id id);
/* -1 if unknown. */
int sim_iommu_format_lookup(const char *name);

struct sim_iommu_domain;

/* NULL on failure (SIM_FP_IOMMU_DOMAIN_ALLOC is the shim's business). */
struct sim_iommu_domain *sim_iommu_domain_alloc(enum sim_iommu_format_id id);
/* Frees every table page; leaves still present are dropped and counted. */
void sim_iommu_domain_free(struct sim_iommu_domain *dom);
const struct sim_iommu_format *sim_iommu_domain_format(const struct sim_iommu_domain *dom);

/* Protection bits of a leaf (same values as the kernel's IOMMU_READ ...). */
enum {
	SIM_IOMMU_READ	= 1 << 0,
	SIM_IOMMU_WRITE	= 1 << 1,
	SIM_IOMMU_CACHE	= 1 << 2,
	SIM_IOMMU_NOEXEC = 1 << 3,
	SIM_IOMMU_MMIO	= 1 << 4,
	SIM_IOMMU_PRIV	= 1 << 5,
};

/*
 * Write count leaves of pgsize each (pgsize in the format's bitmap, iova and
 * paddr pgsize-aligned), as an io-pgtable map_pages().  *mapped receives the
 * bytes mapped, also on error.  Returns 0, -EEXIST if a leaf or table is
 * already there, -ENOMEM if a table page could not be allocated
 * (fail_table_alloc set by the shim's fault point), -EINVAL on bad arguments.
 */
int sim_iommu_map_pages(struct sim_iommu_domain *dom, unsigned long long iova,
			sim_phys_t paddr, unsigned long long pgsize,
			unsigned long long count, int prot, int fail_table_alloc,
			unsigned long long *mapped);
/*
 * Clear up to count leaves of pgsize from iova, as an io-pgtable
 * unmap_pages(): returns the bytes unmapped, which is larger than asked when
 * a bigger leaf covers iova (the whole leaf goes), and 0 when nothing is
 * mapped at iova.
 */
unsigned long long sim_iommu_unmap_pages(struct sim_iommu_domain *dom,
					 unsigned long long iova,
					 unsigned long long pgsize,
					 unsigned long long count);
/* 0 when nothing is mapped at iova. */
sim_phys_t sim_iommu_iova_to_phys(const struct sim_iommu_domain *dom,
				  unsigned long long iova);
/* The leaf that maps iova: its size (0 if none), base and prot. */
unsigned long long sim_iommu_leaf_at(const struct sim_iommu_domain *dom,
				     unsigned long long iova,
				     unsigned long long *leaf_iova, int *prot);
/* Live leaves of size 1 << shift; and all live leaves. */
unsigned long long sim_iommu_nr_leaves(const struct sim_iommu_domain *dom,
				       unsigned int shift);
unsigned long long sim_iommu_nr_leaves_total(const struct sim_iommu_domain *dom);
/* Record an IOTLB invalidation (counted per domain and in SIM_CNT_IOTLB_SYNC). */
void sim_iommu_iotlb_sync(struct sim_iommu_domain *dom,
			  unsigned long long iova, unsigned long long size);
unsigned long long sim_iommu_nr_iotlb_syncs(const struct sim_iommu_domain *dom);
/*
 * Call fn for every live leaf in ascending IOVA order (stops early on a
 * nonzero return, which it returns).
 */
int sim_iommu_for_each_leaf(const struct sim_iommu_domain *dom,
			    int (*fn)(void *arg, unsigned long long iova,
				      sim_phys_t paddr, unsigned long long size,
				      int prot),
			    void *arg);
/* Domains alive now (every test checks it returns to its start). */
unsigned long sim_iommu_nr_domains(void);

/*
 * IOVA allocator of the DMA layer (sim/iova.c), per domain: the kernel
 * dma-iommu's rules, top-down below a limit, size-aligned to the power of two
 * at or above the size.  Returns 0 and sets *iova, or -ENOMEM.
 */
int sim_iova_alloc(struct sim_iommu_domain *dom, unsigned long long size,
		   unsigned long long limit, unsigned long long *iova);
void sim_iova_free(struct sim_iommu_domain *dom, unsigned long long iova,
		   unsigned long long size);
unsigned long sim_iova_nr_allocated(const struct sim_iommu_domain *dom);

#endif /* DMASIM_SIM_IOMMU_H */
