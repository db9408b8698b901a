// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_iommu: iommu_map() and iommu_unmap() of the IOMMU core under test
 * (core/drivers/iommu/iommu.c), through kapi_iommu.h, against a slow
 * reference page-size choice and a shadow of every leaf.
 *
 * The first byte picks one of two modes:
 *
 * pgsize (even): the simulated driver in dry run (it writes no table and
 * reports full success) under a random pgsize_bitmap; up to 8 maps and
 * unmaps of random 64-bit iova, paddr and size.  Every driver call the core
 * makes (the call trace) is checked against the reference: the calls tile
 * the range without gap, each call's page size is the largest page of the
 * bitmap that fits in what is left and to which both addresses are aligned,
 * and a run of pages never passes a boundary at which that choice would
 * be a larger page (so the leaves are exactly the greedy page-by-page
 * choice), in at most two calls per page size.
 *
 * tables (odd): a domain of one of the simulated formats, real page
 * tables; up to 24 maps and unmaps around interesting boundaries (0, 2 MiB,
 * 1 GiB, 512 GiB, the top of the aperture).  A shadow holds the leaves the
 * reference predicts: a map is the greedy leaves, refused (-EEXIST) if one
 * would overlap a live leaf and (-EINVAL) if one would leave the aperture,
 * and a refused map leaves nothing behind; an unmap follows the core's loop
 * call by call (each call checked as above) and the driver's rule (the
 * whole leaf covering the start goes, stop at the first hole).  After every
 * operation the tables' leaves equal the shadow's, leaf for leaf, and
 * iommu_iova_to_phys() translates the first and last byte of every leaf
 * and nothing in the gaps beside them.  At the end everything is unmapped
 * and only the root table may remain.
 *
 * One device and domain per format are made on first use and kept for the
 * process (each input ends with an empty domain, which the harness checks).
 *
 * fuzz_iommu_pgsize.c builds the pgsize mode alone (no mode byte): pure
 * arithmetic, the fast harness for the core's page-size choice.
 */
#include <errno.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

#include "fuzz_common.h"

#define MAX_OPS_PGSIZE	8
#define MAX_OPS_TABLES	24
#define MAX_OP_LEAVES	64	/* an op predicted to need more is skipped */
#define MAX_LEAVES	512
#define TRACE_CAP	512

static int booted;
static struct kapi_iommu_dev *devs[SIM_NR_IOMMU_FORMATS];
static struct kapi_iommu_domain *domains[SIM_NR_IOMMU_FORMATS];
static struct kapi_iommu_dev *dry_dev;
static struct kapi_iommu_domain *dry_domain;

static void boot_once(void)
{
	if (booted)
		return;
	fuzz_boot_machine(0);
	kapi_iommu_trace_enable(TRACE_CAP);
	booted = 1;
}

static unsigned int bit_count(unsigned long long x)
{
	return (unsigned int)__builtin_popcountll(x);
}

/* ---- the reference ------------------------------------------------------ */

/*
 * The page the greedy choice takes at (iova, paddr) with left bytes to go:
 * the largest size in bitmap, not above left, to which both are aligned.
 * Obviously correct: it tries every size.
 */
static unsigned long long ref_pgsize(unsigned long long bitmap,
				     unsigned long long iova,
				     unsigned long long paddr,
				     unsigned long long left)
{
	unsigned long long best = 0;

	for (unsigned long long m = bitmap; m; m &= m - 1) {
		unsigned long long p = m & -m;	/* each size, ascending */

		if (p > left)
			break;
		if (!((iova | paddr) & (p - 1)))
			best = p;
	}
	return best;
}

/*
 * One driver call of count pages of pgsize at (iova, paddr), with left
 * bytes of the request to go: check it is what the greedy choice would do
 * page by page.
 */
static void check_run(unsigned long long bitmap, unsigned long long iova,
		      unsigned long long paddr, unsigned long long pgsize,
		      unsigned long long count, unsigned long long left)
{
	unsigned long long run;

	FUZZ_CHECK(pgsize == ref_pgsize(bitmap, iova, paddr, left),
		   "iova 0x%llx paddr 0x%llx left 0x%llx bitmap 0x%llx: pgsize 0x%llx, reference 0x%llx",
		   iova, paddr, left, bitmap, pgsize,
		   ref_pgsize(bitmap, iova, paddr, left));
	FUZZ_CHECK(count >= 1 && count <= left / pgsize,
		   "count %llu of 0x%llx with 0x%llx left", count, pgsize, left);
	run = count * pgsize;
	/*
	 * Inside the run, no page may start on a boundary of a larger size q
	 * that both addresses reach together with q bytes still to go: the
	 * greedy choice would take q there.
	 */
	for (unsigned long long m = bitmap & ~(2 * pgsize - 1); m; m &= m - 1) {
		unsigned long long q = m & -m, offset;	/* each larger size */

		if ((iova ^ paddr) & (q - 1))
			break;	/* nor will any larger size be co-aligned */
		offset = ((iova & ~(q - 1)) + q) - iova;
		if (offset && offset < run)
			FUZZ_CHECK(left - offset < q,
				   "run of %llu x 0x%llx at iova 0x%llx passes a 0x%llx boundary at +0x%llx with 0x%llx left",
				   count, pgsize, iova, q, offset, left - offset);
	}
}

/* ---- pgsize mode ---------------------------------------------------------- */

static void pgsize_map_or_unmap(struct fuzz_input *in, unsigned long long bitmap)
{
	int unmap = fuzz_u8(in) & 1;
	unsigned long long min = bitmap & -bitmap;
	unsigned long long iova = fuzz_u64(in), paddr = fuzz_u64(in);
	unsigned long long size = fuzz_u64(in);
	unsigned int align = fuzz_u8(in);
	unsigned long long cur, cur_pa, left, total = 0, ncalls = 0;
	const struct kapi_iommu_call *call;
	int misaligned;

	/* Mostly aligned requests; a few keep their low bits (-EINVAL). */
	if (align) {
		iova &= ~(min - 1);
		paddr &= ~(min - 1);
		size &= ~(min - 1);
		/* Shorter sizes are more interesting than 2^63-byte ones. */
		if (align & 0x80)
			size &= ((1ULL << (align & 63)) - 1) & ~(min - 1);
	}
	if (unmap)
		paddr = iova;
	/* Misaligned, or running past 2^64 (IOVA or physical): refused. */
	misaligned = ((iova | paddr | size) & (min - 1)) != 0 ||
		     (size && (iova + (size - 1) < iova ||
			       paddr + (size - 1) < paddr));

	kapi_iommu_trace_clear();
	if (unmap) {
		unsigned long long got = kapi_iommu_unmap(dry_domain, iova, size);

		FUZZ_CHECK(got == (misaligned ? 0 : size),
			   "dry-run unmap of 0x%llx at 0x%llx returned 0x%llx",
			   size, iova, got);
	} else {
		int ret = kapi_iommu_map(dry_domain, iova, paddr, size,
					 KAPI_IOMMU_READ | KAPI_IOMMU_WRITE);

		FUZZ_CHECK(ret == (misaligned ? -EINVAL : 0),
			   "dry-run map of 0x%llx at 0x%llx -> 0x%llx returned %d",
			   size, iova, paddr, ret);
	}
	FUZZ_CHECK(kapi_iommu_trace_dropped() == 0, "trace overflow");

	cur = iova;
	cur_pa = paddr;
	left = size;
	for (unsigned long i = 0; (call = kapi_iommu_trace_at(i)); i++) {
		unsigned long long call_pa = unmap ? call->iova : call->paddr;

		if (call->op != (unmap ? KAPI_IOMMU_OP_UNMAP_PAGES :
					 KAPI_IOMMU_OP_MAP_PAGES))
			continue;
		FUZZ_CHECK(!misaligned, "a driver call for a misaligned request");
		FUZZ_CHECK(call->iova == cur && call_pa == cur_pa,
			   "call %llu at 0x%llx/0x%llx, expected 0x%llx/0x%llx",
			   ncalls, call->iova, call_pa, cur, cur_pa);
		check_run(bitmap, cur, cur_pa, call->pgsize, call->count, left);
		FUZZ_CHECK(call->done == call->pgsize * call->count,
			   "dry run reported 0x%llx", call->done);
		cur += call->done;
		cur_pa += call->done;
		left -= call->done;
		total += call->done;
		ncalls++;
	}
	FUZZ_CHECK(misaligned ? total == 0 : total == size,
		   "driver calls covered 0x%llx of 0x%llx", total, size);
	FUZZ_CHECK(ncalls <= 2 * bit_count(bitmap),
		   "%llu driver calls for bitmap 0x%llx (%u sizes)", ncalls,
		   bitmap, bit_count(bitmap));
}

static void run_pgsize_mode(struct fuzz_input *in)
{
	unsigned long long bitmap = fuzz_u64(in);

	if (!dry_domain) {
		FUZZ_CHECK(kapi_iommu_dev_create("dry", SIM_IOMMU_AMD_V1, NULL,
						 &dry_dev) == 0, "dry device");
		FUZZ_CHECK(kapi_iommu_domain_alloc(dry_dev, &dry_domain) == 0,
			   "dry domain");
	}
	/* Page sizes of 4 KiB and up, as every IOMMU has; never none. */
	bitmap &= ~0xfffULL;
	if (!bitmap)
		bitmap = 1ULL << 12;
	kapi_iommu_set_dry_run(1);
	kapi_iommu_set_pgsize_bitmap(dry_domain, bitmap);
	for (unsigned int i = 0; i < MAX_OPS_PGSIZE && !fuzz_empty(in); i++)
		pgsize_map_or_unmap(in, bitmap);
	kapi_iommu_set_dry_run(0);
}

/* ---- tables mode: the shadow ------------------------------------------------- */

struct leaf {
	unsigned long long iova, paddr, size;
	int prot;
};

/* Live leaves, sorted by iova (they never overlap). */
static struct leaf shadow[MAX_LEAVES];
static unsigned int nr_shadow;

struct domain_shape {
	const struct sim_iommu_format *fmt;
	unsigned int bits;		/* index bits per level */
	unsigned long long aperture_end;
};

/* Index of the first leaf starting above iova (binary search). */
static unsigned int shadow_upper(unsigned long long iova)
{
	unsigned int lo = 0, hi = nr_shadow;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (shadow[mid].iova <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The live shadow leaf covering iova, or -1. */
static int shadow_find(unsigned long long iova)
{
	unsigned int i = shadow_upper(iova);

	if (i && iova - shadow[i - 1].iova < shadow[i - 1].size)
		return (int)i - 1;
	return -1;
}

/*
 * Does [iova, iova + size) meet a live leaf?  The leaf before it, the one
 * after it, and (for a range wrapping past 2^64) the lowest one.
 * Wrap-safe arithmetic: a leaf may end at 2^64.
 */
static int shadow_overlaps(unsigned long long iova, unsigned long long size)
{
	unsigned int i = shadow_upper(iova);

	if (shadow_find(iova) >= 0)
		return 1;
	if (i < nr_shadow && shadow[i].iova - iova < size)
		return 1;
	return nr_shadow && shadow[0].iova - iova < size;
}

static void shadow_insert(const struct leaf *l)
{
	unsigned int i = shadow_upper(l->iova);

	memmove(&shadow[i + 1], &shadow[i], (nr_shadow - i) * sizeof(*l));
	shadow[i] = *l;
	nr_shadow++;
}

static void shadow_remove(int i)
{
	memmove(&shadow[i], &shadow[i + 1],
		(nr_shadow - (unsigned int)i - 1) * sizeof(shadow[0]));
	nr_shadow--;
}

/* The table level the simulated format puts a leaf of this size in. */
static unsigned int leaf_level(const struct domain_shape *ds,
			       unsigned long long size)
{
	unsigned int l = ((unsigned int)__builtin_ctzll(size) -
			  ds->fmt->granule_shift) / ds->bits;

	return l < ds->fmt->levels - 1 ? l : ds->fmt->levels - 1;
}

/* Size of the region one table of that level covers (0: all of it). */
static unsigned long long table_span(const struct domain_shape *ds,
				     unsigned int level)
{
	unsigned int shift = ds->fmt->granule_shift + (level + 1) * ds->bits;

	return shift < 64 ? 1ULL << shift : 0;
}

static int in_aperture(const struct domain_shape *ds, unsigned long long iova,
		       unsigned long long size)
{
	unsigned long long last = iova + (size - 1);

	return last >= iova && last <= ds->aperture_end;
}

/*
 * The driver's unmap_pages(iova, pgsize * count) on the shadow: refuse a
 * range outside the aperture; else take whole leaves from the one covering
 * iova until the range is covered, the next position is not mapped, or the
 * next leaf sits in another table than the one being cleared (the driver
 * sees a table entry there: a hole at its level).
 */
static unsigned long long model_unmap_pages(const struct domain_shape *ds,
					    unsigned long long iova,
					    unsigned long long pgsize,
					    unsigned long long count)
{
	unsigned long long remaining, unmapped = 0;

	if (count > ~0ULL / pgsize || !in_aperture(ds, iova, pgsize * count))
		return 0;
	remaining = pgsize * count;
	while (remaining) {
		int i = shadow_find(iova);
		unsigned int level;

		if (i < 0)
			break;
		level = leaf_level(ds, shadow[i].size);
		for (;;) {
			struct leaf l = shadow[i];
			unsigned long long advance = l.size - (iova - l.iova);
			unsigned long long span = table_span(ds, level);

			shadow_remove(i);
			unmapped += l.size;
			remaining = advance >= remaining ? 0 : remaining - advance;
			iova = l.iova + l.size;
			if (!remaining || (span && !(iova & (span - 1))) ||
			    !iova)
				break;	/* done, or the table ends: walk again */
			i = shadow_find(iova);
			if (i < 0 || leaf_level(ds, shadow[i].size) != level)
				return unmapped;	/* a hole at this level */
		}
	}
	return unmapped;
}

struct leaf_check {
	unsigned int n;
	int bad;
};

/* Leaves come in ascending iova order, as the shadow keeps them. */
static int check_one_leaf(void *arg, unsigned long long iova, sim_phys_t paddr,
			  unsigned long long size, int prot)
{
	struct leaf_check *lc = arg;
	const struct leaf *l = lc->n < nr_shadow ? &shadow[lc->n] : NULL;

	lc->n++;
	if (!l || l->iova != iova || l->paddr != paddr || l->size != size ||
	    l->prot != prot) {
		fprintf(stderr, "table leaf %u: iova 0x%llx paddr 0x%llx size 0x%llx prot %d",
			lc->n - 1, iova, paddr, size, prot);
		if (l)
			fprintf(stderr, " vs shadow 0x%llx 0x%llx 0x%llx %d",
				l->iova, l->paddr, l->size, l->prot);
		fputc('\n', stderr);
		lc->bad = 1;
		return 1;
	}
	return 0;
}

/* Leaf i translates as the shadow says, and nothing maps beside it. */
static void check_leaf_translates(struct kapi_iommu_domain *domain,
				  struct sim_iommu_domain *tables,
				  unsigned int i)
{
	const struct leaf *l = &shadow[i];
	unsigned long long before = l->iova - 1, after = l->iova + l->size;
	unsigned long long leaf_iova;

	FUZZ_CHECK(kapi_iommu_iova_to_phys(domain, l->iova) == l->paddr &&
		   kapi_iommu_iova_to_phys(domain, after - 1) ==
			   l->paddr + l->size - 1,
		   "leaf 0x%llx+0x%llx does not translate to 0x%llx", l->iova,
		   l->size, l->paddr);
	if (l->iova && shadow_find(before) < 0)
		FUZZ_CHECK(sim_iommu_leaf_at(tables, before, &leaf_iova, NULL) == 0,
			   "0x%llx below a leaf is mapped", before);
	if (after && shadow_find(after) < 0)
		FUZZ_CHECK(sim_iommu_leaf_at(tables, after, &leaf_iova, NULL) == 0,
			   "0x%llx above a leaf is mapped", after);
}

/*
 * After every operation: as many leaves as the shadow, and the leaves
 * around the operation's iova translate as the shadow says (cheap).  With
 * full set: the tables hold exactly the shadow's leaves, leaf for leaf,
 * and every one translates (at the end of each input, and every 8th op).
 */
static void check_tables_equal_shadow(struct kapi_iommu_domain *domain,
				      unsigned long long near, int full)
{
	struct sim_iommu_domain *tables = kapi_iommu_sim_domain(domain);
	struct leaf_check lc = { 0, 0 };
	unsigned int i, from, to;

	FUZZ_CHECK(sim_iommu_nr_leaves_total(tables) == nr_shadow,
		   "%llu leaves in the tables, %u in the shadow",
		   sim_iommu_nr_leaves_total(tables), nr_shadow);
	if (!full) {
		i = shadow_upper(near);
		from = i > 8 ? i - 8 : 0;
		to = i + 8 < nr_shadow ? i + 8 : nr_shadow;
		for (i = from; i < to; i++)
			check_leaf_translates(domain, tables, i);
		return;
	}
	sim_iommu_for_each_leaf(tables, check_one_leaf, &lc);
	FUZZ_CHECK(!lc.bad && lc.n == nr_shadow,
		   "%u leaves walked, %u in the shadow", lc.n, nr_shadow);
	for (i = 0; i < nr_shadow; i++)
		check_leaf_translates(domain, tables, i);
}

/* ---- tables mode: operations --------------------------------------------------- */

static unsigned long long pick_iova(struct fuzz_input *in,
				   const struct domain_shape *ds)
{
	unsigned long long gran = 1ULL << ds->fmt->granule_shift;
	unsigned long long top = ds->aperture_end + 1;	/* 0 for 64 bits */
	const unsigned long long anchors[] = {
		0, 2ULL << 20, 32ULL << 20, 512ULL << 20, 1ULL << 30,
		(2ULL << 30) - (2ULL << 20), 512ULL << 30, top - (1ULL << 30),
		top - (2ULL << 20), 1ULL << 47, 1ULL << 51, top - (1ULL << 52),
	};
	unsigned int a = fuzz_below(in, ARRAY_SIZE(anchors));
	short offset = (short)fuzz_u16(in);

	return anchors[a] + (unsigned long long)(long long)offset * gran;
}

static unsigned long long pick_paddr(struct fuzz_input *in,
				     const struct domain_shape *ds,
				     unsigned long long iova)
{
	unsigned long long gran = 1ULL << ds->fmt->granule_shift;
	unsigned int how = fuzz_u8(in);
	unsigned long long pa;

	if (how & 1) {
		/* Aligned like iova (superpages possible), in some GiB. */
		pa = ((unsigned long long)(how >> 1) << 30) |
		     (iova & ((1ULL << 30) - 1));
	} else {
		pa = ((unsigned long long)(how >> 1) << 21) +
		     (unsigned long long)fuzz_u16(in) * gran;
	}
	return pa & ((1ULL << 48) - 1);
}

static unsigned long long pick_size(struct fuzz_input *in,
				    const struct domain_shape *ds)
{
	unsigned long long gran = 1ULL << ds->fmt->granule_shift;
	const unsigned long long sizes[] = {
		0, 2ULL << 20, 1ULL << 30, 32ULL << 20, 512ULL << 20,
		4ULL << 20, 1ULL << 40, 1ULL << 52,
	};
	unsigned int kind = fuzz_u8(in);

	switch (kind & 3) {
	case 0:
		return ((unsigned long long)fuzz_u8(in) + 1) * gran;
	case 1:
		return sizes[(kind >> 2) % 8] +
		       (unsigned long long)(signed char)fuzz_u8(in) * gran;
	case 2:
		return (unsigned long long)fuzz_u16(in) * gran;
	default:
		return fuzz_u32(in);	/* often not a granule multiple */
	}
}

/* The greedy leaves of a map; -1 if more than MAX_OP_LEAVES. */
static int ref_leaves(const struct domain_shape *ds, unsigned long long iova,
		      unsigned long long paddr, unsigned long long size,
		      int prot, struct leaf *out)
{
	unsigned long long left = size;
	int n = 0;

	while (left) {
		unsigned long long p = ref_pgsize(ds->fmt->pgsize_bitmap, iova,
						  paddr, left);

		if (n == MAX_OP_LEAVES)
			return -1;
		out[n++] = (struct leaf){ iova, paddr, p, prot };
		iova += p;
		paddr += p;
		left -= p;
	}
	return n;
}

/* Both return the iova they worked at. */
static unsigned long long tables_map(struct fuzz_input *in,
				     const struct domain_shape *ds,
				     struct kapi_iommu_domain *domain)
{
	static struct leaf want[MAX_OP_LEAVES];
	unsigned long long gran = 1ULL << ds->fmt->granule_shift;
	unsigned long long iova = pick_iova(in, ds);
	unsigned long long paddr = pick_paddr(in, ds, iova);
	unsigned long long size = pick_size(in, ds);
	int prot = fuzz_u8(in) & 0x3f;
	int n, ret, conflict = 0, outside = 0;

	if ((iova | paddr | size) & (gran - 1)) {
		ret = kapi_iommu_map(domain, iova, paddr, size, prot);
		FUZZ_LOG("misaligned map 0x%llx+0x%llx -> 0x%llx: %d", iova,
			 size, paddr, ret);
		FUZZ_CHECK(ret == -EINVAL, "misaligned map returned %d", ret);
		return iova;
	}
	n = ref_leaves(ds, iova, paddr, size, prot, want);
	if (n < 0 || nr_shadow + (unsigned int)n > MAX_LEAVES)
		return iova;	/* too costly for one run: skip */
	for (int i = 0; i < n; i++) {
		if (!in_aperture(ds, want[i].iova, want[i].size))
			outside = 1;
		else if (shadow_overlaps(want[i].iova, want[i].size))
			conflict = 1;
	}
	ret = kapi_iommu_map(domain, iova, paddr, size, prot);
	FUZZ_LOG("map 0x%llx+0x%llx -> 0x%llx prot %d: %d (%d leaves%s%s)",
		 iova, size, paddr, prot, ret, n, outside ? ", outside" : "",
		 conflict ? ", conflict" : "");
	if (iova + (size - 1) < iova && !outside)
		/*
		 * The range wraps past 2^64 (amd-v1's aperture is all of
		 * it).  The core does not check; the driver refuses a call
		 * that spans the wrap, and whether one does depends on how
		 * the core batches pages.  Either outcome is the kernel's;
		 * a refusal must leave nothing behind (checked after).
		 */
		FUZZ_CHECK(ret == -EINVAL || ret == (conflict ? -EEXIST : 0),
			   "wrapping map: %d", ret);
	else if (outside && conflict)
		FUZZ_CHECK(ret == -EINVAL || ret == -EEXIST,
			   "map 0x%llx+0x%llx: %d, expected -EINVAL or -EEXIST",
			   iova, size, ret);
	else if (outside)
		FUZZ_CHECK(ret == -EINVAL, "map 0x%llx+0x%llx past the aperture: %d",
			   iova, size, ret);
	else if (conflict)
		FUZZ_CHECK(ret == -EEXIST, "map 0x%llx+0x%llx over a leaf: %d",
			   iova, size, ret);
	else
		FUZZ_CHECK(ret == 0, "map 0x%llx+0x%llx -> 0x%llx: %d", iova,
			   size, paddr, ret);
	if (!ret)
		for (int i = 0; i < n; i++)
			shadow_insert(&want[i]);
	return iova;
}

static unsigned long long tables_unmap(struct fuzz_input *in,
				       const struct domain_shape *ds,
				       struct kapi_iommu_domain *domain)
{
	unsigned long long gran = 1ULL << ds->fmt->granule_shift;
	unsigned long long bitmap = ds->fmt->pgsize_bitmap;
	unsigned long long iova, size, got, cur, total = 0;
	const struct kapi_iommu_call *call;
	unsigned int how = fuzz_u8(in);

	if ((how & 1) && nr_shadow) {
		/* A live leaf, from a point in it, for some of its length. */
		const struct leaf *l = &shadow[fuzz_below(in, nr_shadow)];

		iova = l->iova + ((l->size / 8) * (how >> 5) & ~(gran - 1));
		size = (how & 2) ? l->size : pick_size(in, ds);
	} else {
		iova = pick_iova(in, ds);
		size = pick_size(in, ds);
	}

	kapi_iommu_trace_clear();
	got = kapi_iommu_unmap(domain, iova, size);
	FUZZ_LOG("unmap 0x%llx+0x%llx: 0x%llx", iova, size, got);
	FUZZ_CHECK(kapi_iommu_trace_dropped() == 0, "trace overflow");
	if ((iova | size) & (gran - 1)) {
		FUZZ_CHECK(got == 0, "misaligned unmap returned 0x%llx", got);
		return iova;
	}
	/* Follow the core's loop call by call-> */
	cur = iova;
	for (unsigned long i = 0; (call = kapi_iommu_trace_at(i)); i++) {
		unsigned long long model;

		if (call->op != KAPI_IOMMU_OP_UNMAP_PAGES)
			continue;
		FUZZ_CHECK(total < size, "a call after 0x%llx of 0x%llx",
			   total, size);
		FUZZ_CHECK(call->iova == cur, "call at 0x%llx, expected 0x%llx",
			   call->iova, cur);
		check_run(bitmap, cur, cur, call->pgsize, call->count,
			  size - total);
		model = model_unmap_pages(ds, cur, call->pgsize, call->count);
		FUZZ_CHECK(call->done == model,
			   "unmap_pages(0x%llx, %llu x 0x%llx) cleared 0x%llx, the model 0x%llx",
			   cur, call->count, call->pgsize, call->done, model);
		if (!call->done)
			break;
		cur += call->done;
		total += call->done;
	}
	FUZZ_CHECK(got == total, "iommu_unmap returned 0x%llx, calls 0x%llx",
		   got, total);
	return iova;
}

static __attribute__((unused)) void run_tables_mode(struct fuzz_input *in)
{
	enum sim_iommu_format_id fmt = fuzz_below(in, SIM_NR_IOMMU_FORMATS);
	struct kapi_iommu_domain *domain;
	struct domain_shape ds;
	unsigned long long bytes;

	if (!domains[fmt]) {
		FUZZ_CHECK(kapi_iommu_dev_create("dev", fmt, NULL, &devs[fmt]) == 0,
			   "device");
		FUZZ_CHECK(kapi_iommu_domain_alloc(devs[fmt], &domains[fmt]) == 0,
			   "domain");
	}
	domain = domains[fmt];
	ds.fmt = sim_iommu_format(fmt);
	ds.bits = ds.fmt->granule_shift - 3;
	ds.aperture_end = kapi_iommu_aperture_end(domain);
	FUZZ_CHECK(kapi_iommu_pgsize_bitmap(domain) == ds.fmt->pgsize_bitmap,
		   "bitmap");
	nr_shadow = 0;
	FUZZ_LOG("tables mode, format %s", ds.fmt->name);

	for (unsigned int i = 0; i < MAX_OPS_TABLES && !fuzz_empty(in); i++) {
		unsigned long long near;

		if (fuzz_u8(in) & 1)
			near = tables_unmap(in, &ds, domain);
		else
			near = tables_map(in, &ds, domain);
		check_tables_equal_shadow(domain, near, (i & 7) == 7);
	}
	check_tables_equal_shadow(domain, 0, 1);

	/* Leave the domain empty for the next input. */
	while (nr_shadow) {
		struct leaf l = shadow[0];

		bytes = kapi_iommu_unmap(domain, l.iova, l.size);
		FUZZ_CHECK(bytes == l.size, "unmap of leaf 0x%llx+0x%llx: 0x%llx",
			   l.iova, l.size, bytes);
		shadow_remove(shadow_find(l.iova));
	}
	FUZZ_CHECK(sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(domain)) == 0,
		   "leaves left");
	FUZZ_CHECK(sim_iommu_nr_tables(kapi_iommu_sim_domain(domain)) == 1,
		   "%llu tables left in an empty domain",
		   sim_iommu_nr_tables(kapi_iommu_sim_domain(domain)));
}

/* The mode an input's first byte picks (its low bit). */
enum iommu_mode { MODE_PGSIZE, MODE_TABLES };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = fuzz_input_choosing(data, size);

	boot_once();
#ifdef FUZZ_IOMMU_PGSIZE_ONLY
	run_pgsize_mode(&in);
#else
	switch ((enum iommu_mode)(fuzz_u8(&in) & 1)) {
	case MODE_TABLES:
		run_tables_mode(&in);
		break;
	case MODE_PGSIZE:
		run_pgsize_mode(&in);
		break;
	}
#endif
	fuzz_choices_end();
	return 0;
}
