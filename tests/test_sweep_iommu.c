// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fail-nth sweeps over the IOMMU core: a device is probed, gets a paging
 * domain attached, and ranges of mixed sizes are mapped and unmapped, on
 * every page-table format.  Every fallible call on the way (device probe,
 * kmalloc, domain and table allocation, the driver's map_pages and
 * iotlb_sync_map) is made to fail once and from then on; the scenario must
 * return -ENOMEM or succeed, and leave no domain, leaf, device or object.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"

#define RW	(KAPI_IOMMU_READ | KAPI_IOMMU_WRITE)
#define MAX_LIVE 8

/*
 * The ranges, in units of the format's granule g and its next page size
 * up, "big" (2M for 4K granules, 32M for 16K, 512M for 64K, 8K on amd-v1):
 *
 *  IOVA  base_a         +big            +big+3g
 *        |--- 1 x big ----|-- 3 x g --|            A: paddr big-aligned
 *  IOVA  base_b  +g                          +2big+g
 *        |  |-- g.. | big | g.. --------|          B: co-aligned, offset g
 *  IOVA  base_c
 *        |-- 17 x g --|                            C: paddr off by g: g only
 *
 * Then B is unmapped and mapped again one granule higher, and A and C go
 * in one gathered unmap, as type1's unmap loop does.
 */
struct live_range {
	unsigned long long iova, size;
};

static struct {
	enum sim_iommu_format_id fmt;
	struct kapi_iommu_dev *dev;
	struct kapi_iommu_domain *domain;
	int attached;
	struct live_range live[MAX_LIVE];
	unsigned int nr_live;
} sc;

static const int map_errnos[] = { -ENOMEM, 0 };

/* ---- helpers ---------------------------------------------------------- */

static unsigned long long granule_of(enum sim_iommu_format_id fmt)
{
	return 1ULL << sim_iommu_format(fmt)->granule_shift;
}

/* The second smallest page size of the format. */
static unsigned long long big_page_of(enum sim_iommu_format_id fmt)
{
	unsigned long long bitmap = sim_iommu_format(fmt)->pgsize_bitmap;

	bitmap &= ~granule_of(fmt);
	return bitmap & -bitmap;
}

static void remember_mapped(unsigned long long iova, unsigned long long size)
{
	sc.live[sc.nr_live++] = (struct live_range){ iova, size };
}

static void forget_mapped(unsigned long long iova)
{
	for (unsigned int i = 0; i < sc.nr_live; i++) {
		if (sc.live[i].iova == iova) {
			sc.live[i] = sc.live[--sc.nr_live];
			return;
		}
	}
}

static int map_and_remember(unsigned long long iova, sim_phys_t paddr,
			    unsigned long long size)
{
	int ret = kapi_iommu_map(sc.domain, iova, paddr, size, RW);

	if (!ret)
		remember_mapped(iova, size);
	return ret;
}

static int unmap_and_forget(unsigned long long iova, unsigned long long size)
{
	if (kapi_iommu_unmap(sc.domain, iova, size) != size)
		return -EIO;	/* not a kernel errno here: the sweep flags it */
	forget_mapped(iova);
	return 0;
}

/* ---- the scenario ----------------------------------------------------- */

static int start_with_nothing(const void *param)
{
	memset(&sc, 0, sizeof(sc));
	sc.fmt = *(const enum sim_iommu_format_id *)param;
	return 0;
}

static int probe_attach_map_unmap_mixed_sizes(const void *param)
{
	unsigned long long g = granule_of(sc.fmt), big = big_page_of(sc.fmt);
	unsigned long long base_a = 16 * big, base_b = 64 * big;
	unsigned long long base_c = 128 * big, iovas[2], sizes[2];
	int ret;

	ret = kapi_iommu_dev_create("sweep0", sc.fmt, NULL, &sc.dev);
	if (ret)
		return ret;
	ret = kapi_iommu_domain_alloc(sc.dev, &sc.domain);
	if (ret)
		return ret;
	ret = kapi_iommu_attach(sc.domain, sc.dev);
	if (ret)
		return ret;
	sc.attached = 1;

	ret = map_and_remember(base_a, 4 * big, big + 3 * g);
	if (!ret)
		ret = map_and_remember(base_b + g, 8 * big + g, 2 * big);
	if (!ret)
		ret = map_and_remember(base_c, 2 * big + g, 17 * g);
	if (!ret)
		ret = unmap_and_forget(base_b + g, 2 * big);
	if (!ret)
		ret = map_and_remember(base_b + 2 * g, 8 * big + 2 * g, 2 * big);
	if (ret)
		return ret;

	iovas[0] = base_a;
	sizes[0] = big + 3 * g;
	iovas[1] = base_c;
	sizes[1] = 17 * g;
	if (kapi_iommu_unmap_gathered(sc.domain, iovas, sizes, 2) !=
	    sizes[0] + sizes[1])
		return -EIO;
	forget_mapped(base_a);
	forget_mapped(base_c);
	return 0;
}

/* Unmap what is still mapped, detach, free: what a driver's remove does. */
static void unmap_detach_and_free(const void *param)
{
	while (sc.nr_live) {
		struct live_range *r = &sc.live[sc.nr_live - 1];

		if (kapi_iommu_unmap(sc.domain, r->iova, r->size) != r->size)
			sweep_leak("IOMMU range that would not unmap", 1);
		sc.nr_live--;
	}
	if (sc.domain && sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(sc.domain)))
		sweep_leak("IOMMU leaves in the domain",
			   sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(sc.domain)));
	if (sc.attached)
		kapi_iommu_detach(sc.domain, sc.dev);
	if (sc.domain)
		kapi_iommu_domain_free(sc.domain);
	if (sc.dev)
		kapi_iommu_dev_destroy(sc.dev);
}

/* ---- tests ------------------------------------------------------------ */

static const enum sim_iommu_format_id formats[] = {
	SIM_IOMMU_INTEL_SL, SIM_IOMMU_AMD_V1, SIM_IOMMU_AMD_V2,
	SIM_IOMMU_ARM_LPAE_4K, SIM_IOMMU_ARM_LPAE_16K, SIM_IOMMU_ARM_LPAE_64K,
};

/* Every failure while mapping mixed sizes unwinds, on every format. */
static void test_map_mixed_sizes_unwinds_on_every_format(void **state)
{
	int failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		char name[64];
		struct sweep_scenario s = {
			.name = name,
			.setup = start_with_nothing,
			.run = probe_attach_map_unmap_mixed_sizes,
			.teardown = unmap_detach_and_free,
			.param = &formats[i],
			.errnos = map_errnos,
		};
		struct sweep_result res;

		snprintf(name, sizeof(name), "iommu_map_mixed/%s",
			 sim_iommu_format(formats[i])->name);
		failed |= sweep_run(&s, &res);
		assert_true(res.points > 0);
		assert_true(res.runs >= res.points);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_mixed_sizes_unwinds_on_every_format),
	};

	return sweep_exit_status(cmocka_run_group_tests(tests, NULL, NULL), 0);
}
