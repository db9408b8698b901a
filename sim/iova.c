// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOVA allocator of the DMA layer, per domain (rules in sim_iommu.h).
 *
 * The allocated ranges are kept in an array sorted by start address.  An
 * allocation binary-searches the last range starting below the limit and
 * walks downward through the gaps, as the kernel's iova.c walks its rbtree
 * backward from the top; the first gap that holds an aligned range wins, so
 * the result is the highest fit below the limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* The kernel's IOVA rcache rounds lengths below 2^(6-1) granules to 2^n. */
#define IOVA_RCACHE_ROUND_GRANULES	32ULL

struct iova_range {
	unsigned long long start;
	unsigned long long last;	/* inclusive */
};

struct sim_iova_space {
	struct iova_range *r;
	unsigned long nr, cap;
};

static unsigned long long roundup_pow2(unsigned long long x)
{
	if (x <= 1)
		return 1;
	if (x > (1ULL << 63))
		return 0;
	return 1ULL << (64 - __builtin_clzll(x - 1));
}

unsigned long long sim_iova_length(const struct sim_iommu_domain *dom,
				   unsigned long long size)
{
	unsigned int shift = sim_iommu_domain_format(dom)->granule_shift;
	unsigned long long granules;

	if (!size)
		return 0;
	granules = (size >> shift) + !!(size & ((1ULL << shift) - 1));
	if (granules < IOVA_RCACHE_ROUND_GRANULES)
		granules = roundup_pow2(granules);
	if (granules > (~0ULL >> shift))
		return 0;
	return granules << shift;
}

/* Index of the first range whose start is > addr. */
static unsigned long upper_bound(const struct sim_iova_space *s,
				 unsigned long long addr)
{
	unsigned long lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (s->r[mid].start > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int iova_alloc(struct sim_iommu_domain *dom, unsigned long long size,
		      unsigned long long limit, unsigned long long *iova)
{
	const struct sim_iommu_format *fmt = sim_iommu_domain_format(dom);
	struct sim_iova_space **slot = sim_iommu_domain_iova_space(dom);
	struct sim_iova_space *s = *slot;
	unsigned long long len = sim_iova_length(dom, size);
	unsigned long long align, ceiling, low = 1ULL << fmt->granule_shift;
	unsigned long i;

	if (!size)
		return -EINVAL;
	align = roundup_pow2(len);
	if (!len || !align)
		return -ENOMEM;
	if (fmt->ias < 64 && limit > (1ULL << fmt->ias) - 1)
		limit = (1ULL << fmt->ias) - 1;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		*slot = s;
	}
	if (s->nr == s->cap) {
		unsigned long cap = s->cap ? s->cap * 2 : 16;
		struct iova_range *r = realloc(s->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}

	/*
	 * Gaps from the top: ceiling is the last free address of the current
	 * gap, i the index of the range just above it.
	 */
	ceiling = limit;
	i = upper_bound(s, limit);
	if (i && s->r[i - 1].last >= limit) {
		/* A range straddles the limit: the first gap is below it. */
		if (s->r[i - 1].start == 0)
			return -ENOMEM;
		ceiling = s->r[i - 1].start - 1;
		i--;
	}
	for (;;) {
		unsigned long long floor = i ? s->r[i - 1].last + 1 : 0;
		unsigned long long start;

		if (floor < low)
			floor = low;
		if (ceiling >= floor && ceiling - floor + 1 >= len) {
			start = (ceiling - len + 1) & ~(align - 1);
			if (start >= floor) {
				memmove(&s->r[i + 1], &s->r[i],
					(s->nr - i) * sizeof(s->r[0]));
				s->r[i].start = start;
				s->r[i].last = start + len - 1;
				s->nr++;
				*iova = start;
				sim_count(SIM_CNT_IOVA_ALLOC, 1);
				return 0;
			}
		}
		if (!i || s->r[i - 1].start <= low)
			return -ENOMEM;
		ceiling = s->r[i - 1].start - 1;
		i--;
	}
}

static int iova_free(struct sim_iommu_domain *dom, unsigned long long iova,
		     unsigned long long size)
{
	struct sim_iova_space *s = *sim_iommu_domain_iova_space(dom);
	unsigned long i;

	(void)size;
	if (!s)
		return -ENOENT;
	i = upper_bound(s, iova);
	if (!i || s->r[i - 1].start != iova)
		return -ENOENT;
	i--;
	memmove(&s->r[i], &s->r[i + 1], (s->nr - i - 1) * sizeof(s->r[0]));
	s->nr--;
	sim_count(SIM_CNT_IOVA_FREE, 1);
	return 0;
}

int sim_iova_alloc(struct sim_iommu_domain *dom, unsigned long long size,
		   unsigned long long limit, unsigned long long *iova)
{
	int ret;

	sim_iommu_lock();
	ret = iova_alloc(dom, size, limit, iova);
	sim_iommu_unlock();
	return ret;
}

int sim_iova_free(struct sim_iommu_domain *dom, unsigned long long iova,
		  unsigned long long size)
{
	int ret;

	sim_iommu_lock();
	ret = iova_free(dom, iova, size);
	sim_iommu_unlock();
	return ret;
}

unsigned long sim_iova_nr_allocated(const struct sim_iommu_domain *dom)
{
	struct sim_iova_space *s;
	unsigned long nr;

	sim_iommu_lock();
	s = *sim_iommu_domain_iova_space((struct sim_iommu_domain *)dom);
	nr = s ? s->nr : 0;
	sim_iommu_unlock();
	return nr;
}

void sim_iova_space_free(struct sim_iommu_domain *dom)
{
	struct sim_iova_space **slot = sim_iommu_domain_iova_space(dom);

	if (!*slot)
		return;
	free((*slot)->r);
	free(*slot);
	*slot = NULL;
}
