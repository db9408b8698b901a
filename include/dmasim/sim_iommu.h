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

#include <dmasim/sim.h>

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
	/*
	 * Output (physical) address bits io-pgtable-arm checks a paddr
	 * against (-ERANGE): 52 with the 64K granule (FEAT_LPA), 48 with 4K
	 * and 16K (52 bits there need LPA2, which 6.12 does not use).  0 for
	 * the Intel and AMD formats, whose drivers do not check (their
	 * entries hold 52 bits, the machine's widest physical space).
	 */
	unsigned int oas;
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
 * paddr pgsize-aligned, the range inside the aperture), as an io-pgtable
 * map_pages().  Tables are walked once per table, not once per leaf.
 * *mapped receives the bytes mapped, also on error (whole leaves only).
 * Returns 0, -EEXIST if a leaf or a table is already where a leaf goes (or
 * a larger leaf covers iova), -ENOMEM if a table page could not be
 * allocated, -EINVAL on bad arguments, -ERANGE if the physical range
 * reaches past the format's oas (io-pgtable-arm's check; nothing written).
 * check_faults: nonzero makes every table-page allocation ask
 * sim_should_fail(SIM_FP_IOMMU_PGTABLE_ALLOC) first (the kernel shim passes
 * 1; plain-C tests of the tables alone pass 0).  Tables allocated by a call
 * that then fails are freed again if they stayed empty.
 */
int sim_iommu_map_pages(struct sim_iommu_domain *dom, unsigned long long iova,
			sim_phys_t paddr, unsigned long long pgsize,
			unsigned long long count, int prot, int check_faults,
			unsigned long long *mapped);
/*
 * Clear the leaves covering [iova, iova + pgsize * count), as an io-pgtable
 * unmap_pages() of the Intel/AMD kind: returns the bytes unmapped, which is
 * larger than asked when a bigger leaf covers part of the range (the whole
 * leaf goes, its full size is counted), and stops at the first hole (0 when
 * nothing is mapped at iova).  Tables left empty are freed.
 * (io-pgtable-arm in 6.12 refuses a partial unmap of a block with a WARN and
 * returns 0; the simulator treats every format the Intel/AMD way.)
 */
unsigned long long sim_iommu_unmap_pages(struct sim_iommu_domain *dom,
					 unsigned long long iova,
					 unsigned long long pgsize,
					 unsigned long long count);
/*
 * The last leaf entry sim_iommu_iova_to_phys() found, per thread: type1's
 * unmap asks for every page of a run, and consecutive pages mostly share
 * a leaf, so the answer for an IOVA in it is taken from here, inline in
 * the caller (no call into the simulator, no walk).  The entry is good
 * while its domain's leaves token is the one read before the walk: a
 * domain takes a new token, never handed out before, when it is allocated
 * and before an unmap clears any of its leaves (a map only fills empty
 * entries, so it cannot change a leaf seen).  So one compare says both
 * "this domain" and "nothing cleared in it since", also for a domain
 * freed and another allocated at its address.
 * Internal to the simulator and this header.
 */
struct sim_iommu_leaf_seen {
	unsigned long token;		/* the domain's leaves token when read */
	unsigned long long iova, mask;	/* the entry maps [iova, iova + mask] */
	sim_phys_t phys;		/* at iova */
};

extern _Thread_local struct sim_iommu_leaf_seen sim_iommu_leaf_seen;

/* How struct sim_iommu_domain (sim/iommu.c) begins. */
struct sim_iommu_domain_leaves {
	unsigned long token;
};

/* The lockless walk behind sim_iommu_iova_to_phys(); it fills the memo. */
sim_phys_t sim_iommu_iova_to_phys_walk(const struct sim_iommu_domain *dom,
				       unsigned long long iova,
				       unsigned long token);

/* 0 when nothing is mapped at iova.  Counts one SIM_CNT_IOMMU_WALK. */
static inline sim_phys_t
sim_iommu_iova_to_phys(const struct sim_iommu_domain *dom,
		       unsigned long long iova)
{
	const struct sim_iommu_domain_leaves *leaves = (const void *)dom;
	unsigned long token = __atomic_load_n(&leaves->token, __ATOMIC_ACQUIRE);
	const struct sim_iommu_leaf_seen *seen = &sim_iommu_leaf_seen;

	sim_count(SIM_CNT_IOMMU_WALK, 1);
	if (sim_likely(seen->token == token &&
		       iova - seen->iova <= seen->mask))
		return seen->phys + (iova - seen->iova);
	return sim_iommu_iova_to_phys_walk(dom, iova, token);
}
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
 * The IOTLB oracle: whether some domain cleared a leaf translating into
 * [paddr, paddr + len) and no IOTLB invalidation has covered it since (an
 * IOMMU may still translate to it: the pages must not be given back yet).
 */
int sim_iommu_maybe_cached(sim_phys_t paddr, unsigned long long len);
/*
 * Call fn for every live leaf in ascending IOVA order (stops early on a
 * nonzero return, which it returns).
 */
int sim_iommu_for_each_leaf(const struct sim_iommu_domain *dom,
			    int (*fn)(void *arg, unsigned long long iova,
				      sim_phys_t paddr, unsigned long long size,
				      int prot),
			    void *arg);
/* Table pages the domain holds now (the root included). */
unsigned long long sim_iommu_nr_tables(const struct sim_iommu_domain *dom);
/* Domains alive now (every test checks it returns to its start). */
unsigned long sim_iommu_nr_domains(void);
/*
 * The IOMMU core's group, device and fault tracepoints (trace/events/
 * iommu.h): how often each fired since the process started.
 */
enum sim_iommu_trace_event {
	SIM_IOMMU_TRACE_ADD_DEVICE_TO_GROUP,
	SIM_IOMMU_TRACE_REMOVE_DEVICE_FROM_GROUP,
	SIM_IOMMU_TRACE_ATTACH_DEVICE_TO_DOMAIN,
	SIM_IOMMU_TRACE_IO_PAGE_FAULT,
	SIM_IOMMU_NR_TRACE_EVENTS
};
void sim_iommu_trace_event(enum sim_iommu_trace_event event);
unsigned long long sim_iommu_trace_events(enum sim_iommu_trace_event event);
/*
 * Leaves that were still mapped when their domain was freed, since the
 * machine was built (a teardown that forgot an unmap shows here).
 */
unsigned long long sim_iommu_leaves_dropped(void);

/*
 * IOVA allocator of the DMA layer (sim/iova.c), per domain, after the rules
 * of the kernel's dma-iommu + iova.c:
 * - the length is size rounded up to the format's granule, and further up
 *   to a power of two when below 32 granules (the kernel's IOVA rcache
 *   rounding, IOVA_RANGE_CACHE_MAX_SIZE = 6);
 * - the range is aligned to the power of two at or above its length
 *   (alloc_iova(..., size_aligned = true));
 * - it is the highest free fit ending at or below limit (inclusive, a DMA
 *   mask such as 2^32 - 1), limit capped at the aperture's end;
 * - IOVA 0 is never handed out (the kernel's start_pfn is at least 1).
 * Returns 0 and sets *iova, -ENOMEM if no range fits, -EINVAL for size 0.
 * A range is found by walking the allocated ranges downward from limit
 * (sorted array, binary search for the start point).
 * The fault point SIM_FP_IOVA_ALLOC is the shim's business.
 */
int sim_iova_alloc(struct sim_iommu_domain *dom, unsigned long long size,
		   unsigned long long limit, unsigned long long *iova);
/*
 * Free the range sim_iova_alloc() returned at iova (size as passed to
 * alloc).  Returns 0, or -ENOENT if no range starts at iova (nothing is
 * freed; the kernel's free_iova() ignores such a call the same way).
 */
int sim_iova_free(struct sim_iommu_domain *dom, unsigned long long iova,
		  unsigned long long size);
/* Ranges allocated now. */
unsigned long sim_iova_nr_allocated(const struct sim_iommu_domain *dom);
/* Length the allocator really reserves for a request of size bytes. */
unsigned long long sim_iova_length(const struct sim_iommu_domain *dom,
				   unsigned long long size);

#endif /* DMASIM_SIM_IOMMU_H */
