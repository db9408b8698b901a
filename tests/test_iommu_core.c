// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IOMMU core's group, domain and probe paths, driven through the
 * simulated driver and through a test-double driver whose callbacks each
 * case chooses (<dmasim/kapi_iommu.h>): devices without an IOMMU, drivers
 * that leave callbacks out, identity and blocked domains, domains that
 * cannot map, attach failures and their unwinding, misuse the kernel
 * warns about, reserved regions.  Every case checks that it leaves no
 * device, domain or allocation behind, and counts the warnings it expects.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW	(KAPI_IOMMU_READ | KAPI_IOMMU_WRITE)

/* 4K and 2M pages, for the double's domains. */
#define DBL_PGSIZES	(SZ_4K | SZ_2M)
/* What a double needs to probe a device and tear it down cleanly. */
#define DBL_BASIC	(KAPI_DBL_ALLOC_PAGING | KAPI_DBL_ATTACH | KAPI_DBL_FREE)

/* The machine every test builds: 1 GiB, the kernel booted. */
static const struct sim_config one_gib = { .ram_bytes = 1 * GiB };

/* ---- helpers ---------------------------------------------------------- */

static void double_driver_with(unsigned int flags,
			       enum kapi_dbl_def_domain def_domain)
{
	kapi_iommu_double_setup(flags, def_domain, DBL_PGSIZES);
}

/* The kernel WARNed n times since the machine was built. */
static void assert_warnings_since_start(unsigned long long n)
{
	assert_int_equal(sim_kernel_warnings() - at_start.warnings, n);
}

/*
 * The double driver's devices go, then nothing may be left (shared.h); the
 * WARNs are each test's to count (assert_warnings_since_start()).
 */
static void assert_nothing_left_and_destroy(void)
{
	kapi_iommu_double_teardown();
	assert_int_equal(kapi_iommu_double_nr_devices(), 0);
	check_and_destroy_except(LEAK_WARNINGS);
}

static struct kapi_iommu_dev *double_device(struct kapi_iommu_dev *peer)
{
	struct kapi_iommu_dev *dev;

	assert_int_equal(kapi_iommu_double_dev_create(peer, NULL, 0, &dev), 0);
	return dev;
}

static struct kapi_iommu_dev *sim_device(void)
{
	struct kapi_iommu_dev *dev;

	assert_int_equal(kapi_iommu_dev_create("dev0", SIM_IOMMU_INTEL_SL,
					       NULL, &dev), 0);
	return dev;
}

static unsigned int devices_in_group_of(struct kapi_iommu_dev *dev)
{
	unsigned int visited;

	assert_int_equal(kapi_iommu_group_for_each_dev(dev, 0, 0, &visited), 0);
	return visited;
}

static void assert_on_default_domain(struct kapi_iommu_dev *dev)
{
	assert_non_null(kapi_iommu_dev_dma_domain(dev));
	assert_ptr_equal(kapi_iommu_dev_domain(dev),
			 kapi_iommu_dev_dma_domain(dev));
}

/* ---- devices the core does not translate ------------------------------- */

/*
 * A device with no IOMMU in its path (no dev->iommu, or one that names no
 * instance) cannot be probed, gets no domain and no group, and every
 * query about it answers "nothing".
 */
static void test_devices_without_an_iommu(void **state)
{
	for (int with_dev_iommu = 0; with_dev_iommu < 2; with_dev_iommu++) {
		struct kapi_iommu_domain *domain = NULL;
		struct kapi_iommu_dev *dev;

		given_a_booted_machine(&one_gib);
		double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
		assert_int_equal(kapi_iommu_bare_dev_create(with_dev_iommu, &dev), 0);
		assert_int_equal(kapi_iommu_dev_probe(dev), -ENODEV);
		assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), -ENODEV);
		assert_null(domain);
		assert_false(kapi_iommu_capable(dev, KAPI_IOMMU_CAP_CACHE_COHERENCY));
		assert_int_equal(kapi_iommu_dev_group_id(dev), -ENODEV);
		assert_null(kapi_iommu_dev_domain(dev));
		assert_null(kapi_iommu_dev_dma_domain(dev));
		assert_int_equal(kapi_iommu_dev_nr_resv_regions(dev), 0);

		/* Attach needs a group: -ENODEV; detach has nothing to do. */
		domain = kapi_iommu_double_blocked_domain();
		assert_int_equal(kapi_iommu_attach(domain, dev), -ENODEV);
		assert_int_equal(kapi_iommu_attach_group(domain, dev), -EINVAL);
		kapi_iommu_detach(domain, dev);
		kapi_iommu_dev_destroy(dev);
		assert_warnings_since_start(0);
		assert_nothing_left_and_destroy();
	}
}

/* The IOMMU core takes a NULL device for one without an IOMMU. */
static void test_null_device_has_no_iommu(void **state)
{
	struct kapi_iommu_domain *domain = NULL;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	assert_int_equal(kapi_iommu_dev_probe(NULL), -ENODEV);
	assert_int_equal(kapi_iommu_domain_alloc(NULL, &domain), -ENODEV);
	assert_null(domain);
	assert_false(kapi_iommu_capable(NULL, KAPI_IOMMU_CAP_CACHE_COHERENCY));
	assert_int_equal(kapi_iommu_dev_nr_resv_regions(NULL), 0);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/* ---- driver shapes: probe and default domains --------------------------- */

struct driver_shape {
	const char *what;
	unsigned int flags;
	enum kapi_dbl_def_domain def_domain;
	int probe_ret;
	unsigned int default_type;	/* when probe_ret == 0 */
	unsigned long released;		/* release_device calls */
};

static const struct driver_shape driver_shapes[] = {
	{ "domain_alloc_paging, no opinion: a DMA domain",
	  DBL_BASIC | KAPI_DBL_PROBE, KAPI_DBL_DEF_NONE,
	  0, KAPI_IOMMU_DOMAIN_DMA, 0 },
	{ "def_domain_type answering 0 also means DMA",
	  DBL_BASIC, KAPI_DBL_DEF_NO_OPINION,
	  0, KAPI_IOMMU_DOMAIN_DMA, 0 },
	{ "def_domain_type asking DMA",
	  DBL_BASIC, KAPI_DBL_DEF_DMA, 0, KAPI_IOMMU_DOMAIN_DMA, 0 },
	{ "only the old domain_alloc(type)",
	  KAPI_DBL_ALLOC | KAPI_DBL_ATTACH | KAPI_DBL_FREE, KAPI_DBL_DEF_NONE,
	  0, KAPI_IOMMU_DOMAIN_DMA, 0 },
	{ "identity by def_domain_type: the driver's static domain",
	  DBL_BASIC | KAPI_DBL_IDENTITY, KAPI_DBL_DEF_IDENTITY,
	  0, KAPI_IOMMU_DOMAIN_IDENTITY, 0 },
	{ "identity without a static domain: domain_alloc(IDENTITY)",
	  KAPI_DBL_ALLOC | KAPI_DBL_FREE, KAPI_DBL_DEF_IDENTITY,
	  0, KAPI_IOMMU_DOMAIN_IDENTITY, 0 },
	{ "domain ops and page sizes from struct iommu_ops",
	  DBL_BASIC | KAPI_DBL_DEFAULT_OPS | KAPI_DBL_OPS_PGSIZE,
	  KAPI_DBL_DEF_NONE, 0, KAPI_IOMMU_DOMAIN_DMA, 0 },
	{ "no way to allocate a domain: -EOPNOTSUPP, device released",
	  KAPI_DBL_PROBE | KAPI_DBL_RELEASE, KAPI_DBL_DEF_NONE,
	  -EOPNOTSUPP, 0, 1 },
	{ "allocation callback returning NULL: -ENOMEM",
	  DBL_BASIC | KAPI_DBL_ALLOC_NULL | KAPI_DBL_RELEASE, KAPI_DBL_DEF_NONE,
	  -ENOMEM, 0, 1 },
};

/*
 * Each driver shape probes a device to the default domain it asks for (or
 * fails with the kernel's errno and releases the device), and allocates
 * UNMANAGED domains with the page sizes it declares.
 */
static void test_probe_and_domains_per_driver_shape(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(driver_shapes); i++) {
		const struct driver_shape *c = &driver_shapes[i];
		struct kapi_iommu_domain *domain, *dflt;
		struct kapi_iommu_dev *dev = NULL;

		given_a_booted_machine(&one_gib);
		double_driver_with(c->flags, c->def_domain);
		assert_int_equal(kapi_iommu_double_dev_create(NULL, NULL, 0, &dev),
				 c->probe_ret);
		assert_int_equal(kapi_iommu_double_nr_released(), c->released);
		if (c->probe_ret) {
			assert_int_equal(kapi_iommu_double_nr_devices(), 0);
			assert_warnings_since_start(0);
			assert_nothing_left_and_destroy();
			continue;
		}

		dflt = kapi_iommu_dev_dma_domain(dev);
		assert_on_default_domain(dev);
		assert_ptr_equal(kapi_iommu_group_default_domain(dev), dflt);
		assert_int_equal(kapi_iommu_domain_type(dflt), c->default_type);
		/* Probing a probed device changes nothing. */
		assert_int_equal(kapi_iommu_dev_probe(dev), 0);
		assert_ptr_equal(kapi_iommu_dev_dma_domain(dev), dflt);

		assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
		assert_int_equal(kapi_iommu_domain_type(domain),
				 KAPI_IOMMU_DOMAIN_UNMANAGED);
		assert_int_equal(kapi_iommu_pgsize_bitmap(domain), DBL_PGSIZES);
		kapi_iommu_domain_free(domain);
		kapi_iommu_dev_destroy(dev);
		assert_warnings_since_start(0);
		assert_nothing_left_and_destroy();
	}
}

/* ---- domains that cannot map --------------------------------------------- */

/*
 * An identity domain translates every IOVA to itself and a blocked one to
 * nothing; neither can be mapped (-EINVAL) or unmapped (0 bytes), quietly.
 */
static void test_identity_and_blocked_domains_do_not_map(void **state)
{
	struct kapi_iommu_domain *identity, *blocked;
	struct kapi_iommu_dev *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_IDENTITY | KAPI_DBL_BLOCKED,
			   KAPI_DBL_DEF_IDENTITY);
	dev = double_device(NULL);
	identity = kapi_iommu_dev_dma_domain(dev);
	blocked = kapi_iommu_double_blocked_domain();
	assert_int_equal(kapi_iommu_domain_type(identity),
			 KAPI_IOMMU_DOMAIN_IDENTITY);
	assert_int_equal(kapi_iommu_domain_type(blocked),
			 KAPI_IOMMU_DOMAIN_BLOCKED);

	assert_int_equal(kapi_iommu_iova_to_phys(identity, 0x12345000),
			 0x12345000);
	assert_int_equal(kapi_iommu_iova_to_phys(blocked, 0x12345000), 0);
	assert_int_equal(kapi_iommu_map(identity, 0, 0, SZ_4K, RW), -EINVAL);
	assert_int_equal(kapi_iommu_map(blocked, 0, 0, SZ_4K, RW), -EINVAL);
	assert_int_equal(kapi_iommu_unmap(identity, 0, SZ_4K), 0);
	assert_int_equal(kapi_iommu_unmap(blocked, 0, SZ_4K), 0);
	/* Nesting and quirks are for UNMANAGED domains only. */
	assert_int_equal(kapi_iommu_enable_nesting(identity), -EINVAL);
	assert_int_equal(kapi_iommu_set_pgtable_quirks(identity, 0), -EINVAL);
	kapi_iommu_dev_destroy(dev);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

struct unmappable {
	const char *what;
	unsigned int flags;		/* of the double; 0: the sim driver */
	int map_ret;
	unsigned long long warnings;	/* map + unmap */
};

static const struct unmappable unmappables[] = {
	{ "driver without map_pages or unmap_pages",
	  DBL_BASIC, -ENODEV, 2 },
	{ "driver without unmap_pages: the map is not undone by unmap",
	  DBL_BASIC | KAPI_DBL_MAP, 0, 1 },
	{ "sim domain whose pgsize_bitmap was cleared", 0, -ENODEV, 2 },
};

/*
 * A paging domain whose driver cannot map or unmap, or that declares no
 * page size, is a driver bug: the kernel warns, map fails -ENODEV and
 * unmap unmaps nothing.
 */
static void test_paging_domain_without_the_means_to_map(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(unmappables); i++) {
		const struct unmappable *c = &unmappables[i];
		struct kapi_iommu_domain *domain;
		struct kapi_iommu_dev *dev;
		unsigned long long bitmap;

		given_a_booted_machine(&one_gib);
		double_driver_with(c->flags ? c->flags : DBL_BASIC,
				   KAPI_DBL_DEF_NONE);
		dev = c->flags ? double_device(NULL) : sim_device();
		assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
		bitmap = kapi_iommu_pgsize_bitmap(domain);
		if (!c->flags)
			kapi_iommu_set_pgsize_bitmap(domain, 0);

		assert_int_equal(kapi_iommu_map(domain, SZ_2M, SZ_2M, SZ_2M, RW),
				 c->map_ret);
		assert_int_equal(kapi_iommu_unmap(domain, SZ_2M, SZ_2M), 0);
		assert_warnings_since_start(c->warnings);
		if (c->flags & KAPI_DBL_MAP)
			assert_int_equal(kapi_iommu_double_mapped(domain), SZ_2M);

		kapi_iommu_set_pgsize_bitmap(domain, bitmap);
		kapi_iommu_domain_free(domain);
		kapi_iommu_dev_destroy(dev);
		assert_nothing_left_and_destroy();
	}
}

/*
 * A driver whose map_pages succeeds without mapping a byte would make the
 * core loop forever: it warns once and fails -EINVAL, with nothing mapped
 * (core's check; a tree without it, 6.12, would hang: skipped there).
 */
static void test_map_that_makes_no_progress_is_einval(void **state)
{
	struct kapi_iommu_domain *domain;
	struct kapi_iommu_dev *dev;

	if (!DMASIM_IMPL_IOMMU_MAP_STOPS_WITHOUT_PROGRESS)
		skip();	/* the tree's loop would call the driver forever */
	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_MAP | KAPI_DBL_UNMAP |
			   KAPI_DBL_MAP_NOTHING, KAPI_DBL_DEF_NONE);
	dev = double_device(NULL);
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(kapi_iommu_map(domain, 0, 0, SZ_8K, RW), -EINVAL);
		assert_int_equal(kapi_iommu_double_mapped(domain), 0);
	}
	/* WARN_ON_ONCE: the second round is quiet. */
	assert_warnings_since_start(1);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	assert_nothing_left_and_destroy();
}

/*
 *  paddr 2M   3M          8M  8M+4K
 *        |-1M-|-1M-|       |-4K-|
 *  IOVA  0         2M  2M+4K
 *        |---2M----|-4K-|      map_sg on a driver without iotlb_sync_map
 *
 * A driver without iotlb_sync_map needs no sync after a map: iommu_map()
 * and iommu_map_sg() succeed without one, and unmap takes it all back.
 */
static void test_map_without_iotlb_sync_map(void **state)
{
	static const sim_phys_t paddr[] = { 2 * SZ_1M, 3 * SZ_1M, 8 * SZ_1M };
	static const unsigned int len[] = { SZ_1M, SZ_1M, SZ_4K };
	struct kapi_iommu_domain *domain;
	struct kapi_iommu_dev *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_MAP | KAPI_DBL_UNMAP,
			   KAPI_DBL_DEF_NONE);
	dev = double_device(NULL);
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	assert_int_equal(kapi_iommu_map(domain, SZ_2M, SZ_2M, SZ_2M + SZ_8K, RW),
			 0);
	assert_int_equal(kapi_iommu_double_mapped(domain), SZ_2M + SZ_8K);
	assert_int_equal(kapi_iommu_map_sg(domain, 8 * SZ_2M, paddr, len, NULL,
					   3, RW), SZ_2M + SZ_4K);
	assert_int_equal(kapi_iommu_double_mapped(domain),
			 2 * SZ_2M + SZ_8K + SZ_4K);
	assert_int_equal(kapi_iommu_unmap(domain, SZ_2M, SZ_2M + SZ_8K),
			 SZ_2M + SZ_8K);
	assert_int_equal(kapi_iommu_unmap(domain, 8 * SZ_2M, SZ_2M + SZ_4K),
			 SZ_2M + SZ_4K);
	assert_int_equal(kapi_iommu_double_mapped(domain), 0);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/*
 * A scatterlist with nothing to map (empty, or bus addresses only) maps 0
 * bytes and succeeds; a gfp with zone or compound bits is refused before
 * anything happens, with one warning however often it is tried.
 */
static void test_map_sg_of_nothing_and_bad_gfp(void **state)
{
	static const sim_phys_t paddr[] = { 64 * SZ_1M, 65 * SZ_1M };
	static const unsigned int len[] = { SZ_1M, SZ_1M };
	static const int bus[] = { 1, 1 };
	struct kapi_iommu_domain *domain;
	struct kapi_iommu_dev *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	dev = sim_device();
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	/* 6.12's reads a first entry even of an empty list: not asked. */
	if (DMASIM_IMPL_IOMMU_MAP_SG_EMPTY_READS_NOTHING)
		assert_int_equal(kapi_iommu_map_sg(domain, 0, paddr, len, NULL,
						   0, RW), 0);
	assert_int_equal(kapi_iommu_map_sg(domain, 0, paddr, len, bus, 2, RW), 0);
	assert_int_equal(sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(domain)),
			 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(kapi_iommu_map_sg_bad_gfp(domain), -EINVAL);
		assert_int_equal(kapi_iommu_map_bad_gfp(domain, 0, 0, SZ_4K, RW),
				 -EINVAL);
	}
	assert_int_equal(sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(domain)),
			 0);
	assert_warnings_since_start(2);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	assert_nothing_left_and_destroy();
}

/* ---- capabilities, nesting, quirks, fault handlers ----------------------- */

struct capability {
	const char *what;
	int sim;			/* the simulated driver, else the double */
	unsigned int flags;
	enum kapi_iommu_cap cap;
	int expect;
};

static const struct capability capabilities[] = {
	{ "sim: coherent", 1, 0, KAPI_IOMMU_CAP_CACHE_COHERENCY, 1 },
	{ "sim: no dirty tracking", 1, 0, KAPI_IOMMU_CAP_DIRTY_TRACKING, 0 },
	{ "double without ->capable", 0, DBL_BASIC,
	  KAPI_IOMMU_CAP_CACHE_COHERENCY, 0 },
	{ "double: coherent", 0, DBL_BASIC | KAPI_DBL_CAPABLE,
	  KAPI_IOMMU_CAP_CACHE_COHERENCY, 1 },
	{ "double: no NOEXEC", 0, DBL_BASIC | KAPI_DBL_CAPABLE,
	  KAPI_IOMMU_CAP_NOEXEC, 0 },
};

/* device_iommu_capable() is the driver's answer, false without ->capable. */
static void test_capabilities(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(capabilities); i++) {
		const struct capability *c = &capabilities[i];
		struct kapi_iommu_dev *dev;

		given_a_booted_machine(&one_gib);
		double_driver_with(c->flags, KAPI_DBL_DEF_NONE);
		dev = c->sim ? sim_device() : double_device(NULL);
		assert_int_equal(kapi_iommu_capable(dev, c->cap), c->expect);
		kapi_iommu_dev_destroy(dev);
		assert_nothing_left_and_destroy();
	}
}

struct nesting_case {
	const char *what;
	int sim;
	int unmanaged;			/* a new domain, else the default */
	unsigned int flags;
	int nesting_ret;
	int quirks0_ret, quirks1_ret;
};

static const struct nesting_case nesting_cases[] = {
	{ "sim default DMA domain", 1, 0, 0, -EINVAL, -EINVAL, -EINVAL },
	{ "sim UNMANAGED domain: no callbacks", 1, 1, 0,
	  -EINVAL, -EINVAL, -EINVAL },
	{ "double UNMANAGED domain with both callbacks", 0, 1,
	  DBL_BASIC | KAPI_DBL_NESTING | KAPI_DBL_QUIRKS, 0, 0, -EOPNOTSUPP },
};

/*
 * iommu_enable_nesting() and iommu_set_pgtable_quirks() reach the driver
 * only for an UNMANAGED domain whose driver has the callback.
 */
static void test_nesting_and_pgtable_quirks(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(nesting_cases); i++) {
		const struct nesting_case *c = &nesting_cases[i];
		struct kapi_iommu_domain *domain = NULL;
		struct kapi_iommu_dev *dev;

		given_a_booted_machine(&one_gib);
		double_driver_with(c->flags ? c->flags : DBL_BASIC,
				   KAPI_DBL_DEF_NONE);
		dev = c->sim ? sim_device() : double_device(NULL);
		if (c->unmanaged)
			assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
		else
			domain = kapi_iommu_dev_dma_domain(dev);
		assert_int_equal(kapi_iommu_enable_nesting(domain), c->nesting_ret);
		assert_int_equal(kapi_iommu_set_pgtable_quirks(domain, 0),
				 c->quirks0_ret);
		assert_int_equal(kapi_iommu_set_pgtable_quirks(domain, 1),
				 c->quirks1_ret);
		if (c->unmanaged)
			kapi_iommu_domain_free(domain);
		kapi_iommu_dev_destroy(dev);
		assert_warnings_since_start(0);
		assert_nothing_left_and_destroy();
	}
}

/* A fault handler and its token are recorded; a NULL domain only warns. */
static void test_fault_handler(void **state)
{
	struct kapi_iommu_domain *domain;
	struct kapi_iommu_dev *dev;
	int token;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	dev = sim_device();
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	assert_null(kapi_iommu_fault_token(domain));
	kapi_iommu_set_fault_handler(domain, &token);
	assert_ptr_equal(kapi_iommu_fault_token(domain), &token);
	kapi_iommu_set_fault_handler(NULL, &token);
	assert_warnings_since_start(1);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	assert_nothing_left_and_destroy();
}

/* ---- group data ------------------------------------------------------------ */

static int released_data;
static void *released_with;

static void count_release(void *data)
{
	released_data++;
	released_with = data;
}

/*
 * A group's name can be set, replaced and cleared (-ENOMEM when the copy
 * cannot be allocated, the old name kept); its IOMMU data is handed back
 * and released with the group.
 */
static void test_group_name_and_iommu_data(void **state)
{
	struct kapi_iommu_dev *dev;
	int data;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	dev = sim_device();
	assert_int_equal(kapi_iommu_group_set_name(dev, "first"), 0);
	assert_int_equal(kapi_iommu_group_set_name(dev, "second"), 0);
	fail_nth_call_of("shim/slab/kmalloc", 0);
	assert_int_equal(kapi_iommu_group_set_name(dev, "third"), -ENOMEM);
	stop_failing("shim/slab/kmalloc");
	assert_int_equal(kapi_iommu_group_set_name(dev, NULL), 0);
	assert_int_equal(kapi_iommu_group_set_name(dev, "last"), 0);

	assert_null(kapi_iommu_group_get_iommudata(dev));
	kapi_iommu_group_set_iommudata(dev, &data, count_release);
	assert_ptr_equal(kapi_iommu_group_get_iommudata(dev), &data);
	released_data = 0;
	kapi_iommu_dev_destroy(dev);
	assert_int_equal(released_data, 1);
	assert_ptr_equal(released_with, &data);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/*
 * iommu_group_for_each_dev() visits every device of the group in order,
 * and stops at the first callback that returns nonzero, returning it.
 *   group: dev0 -> dev1 -> dev2
 */
static void test_for_each_dev_stops_at_nonzero(void **state)
{
	struct kapi_iommu_dev *devs[3];
	unsigned int visited;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_DEVICE_GROUP, KAPI_DBL_DEF_NONE);
	devs[0] = double_device(NULL);
	devs[1] = double_device(devs[0]);
	devs[2] = double_device(devs[0]);
	assert_int_equal(kapi_iommu_dev_group_id(devs[2]),
			 kapi_iommu_dev_group_id(devs[0]));
	assert_int_equal(devices_in_group_of(devs[1]), 3);
	assert_int_equal(kapi_iommu_group_for_each_dev(devs[0], 2, -EBUSY,
						       &visited), -EBUSY);
	assert_int_equal(visited, 2);

	/* Removing a device from the middle, then the others. */
	kapi_iommu_dev_destroy(devs[1]);
	assert_int_equal(devices_in_group_of(devs[0]), 2);
	kapi_iommu_dev_destroy(devs[2]);
	kapi_iommu_dev_destroy(devs[0]);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/* ---- attach failures and misuse ---------------------------------------- */

/*
 * A device that refuses the group's domain cannot be probed: as the first
 * device (its default domain is freed again) or joining a group (it is
 * not added); the driver's release_device undoes its probe_device.
 */
static void test_probe_fails_when_attach_fails(void **state)
{
	struct kapi_iommu_dev *first, *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_DEVICE_GROUP | KAPI_DBL_PROBE |
			   KAPI_DBL_RELEASE, KAPI_DBL_DEF_NONE);
	kapi_iommu_double_fail_attach(1, 0);
	assert_int_equal(kapi_iommu_double_dev_create(NULL, NULL, 0, &dev),
			 -EINVAL);
	assert_int_equal(kapi_iommu_double_nr_released(), 1);
	assert_int_equal(kapi_iommu_double_nr_devices(), 0);
	assert_int_equal(sim_kmalloc_outstanding(), at_start.kmalloc);

	first = double_device(NULL);
	kapi_iommu_double_fail_attach(1, 0);
	assert_int_equal(kapi_iommu_double_dev_create(first, NULL, 0, &dev),
			 -EINVAL);
	assert_int_equal(kapi_iommu_double_nr_released(), 2);
	assert_int_equal(devices_in_group_of(first), 1);
	kapi_iommu_dev_destroy(first);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

struct attach_failure {
	const char *what;
	unsigned int flags;
	enum kapi_dbl_def_domain def_domain;
	unsigned long fail_nth;		/* attach call that fails */
	int persist;			/* and every one after it */
	unsigned long long warnings;
};

/*
 *  group: dev0 (attached first) -> dev1 (refuses)
 *  attach_group(new): dev0 moves to new, dev1 refuses -> dev0 goes back.
 */
static const struct attach_failure attach_failures[] = {
	{ "second device refuses: the first goes back to the default",
	  DBL_BASIC | KAPI_DBL_DEVICE_GROUP, KAPI_DBL_DEF_NONE, 2, 0, 0 },
	{ "going back fails too: the kernel warns",
	  DBL_BASIC | KAPI_DBL_DEVICE_GROUP, KAPI_DBL_DEF_NONE, 2, 1, 1 },
	{ "first device refuses: nothing to undo",
	  DBL_BASIC | KAPI_DBL_DEVICE_GROUP, KAPI_DBL_DEF_NONE, 1, 0, 0 },
	{ "the old domain has no attach_dev: nothing to call back",
	  DBL_BASIC | KAPI_DBL_DEVICE_GROUP | KAPI_DBL_IDENTITY,
	  KAPI_DBL_DEF_IDENTITY, 2, 0, 0 },
};

/*
 * Attaching a domain to a group is all or nothing: when a device refuses,
 * the devices already moved go back and the group keeps its domain.
 */
static void test_attach_group_failure_reverts(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(attach_failures); i++) {
		const struct attach_failure *c = &attach_failures[i];
		struct kapi_iommu_domain *domain;
		struct kapi_iommu_dev *dev0, *dev1;

		given_a_booted_machine(&one_gib);
		double_driver_with(c->flags, c->def_domain);
		dev0 = double_device(NULL);
		dev1 = double_device(dev0);
		assert_int_equal(kapi_iommu_domain_alloc(dev0, &domain), 0);
		kapi_iommu_double_fail_attach(c->fail_nth, c->persist);
		assert_int_equal(kapi_iommu_attach_group(domain, dev1), -EINVAL);
		kapi_iommu_double_fail_attach(0, 0);
		assert_on_default_domain(dev0);
		assert_on_default_domain(dev1);
		assert_warnings_since_start(c->warnings);

		/* Once nobody refuses, the same attach works. */
		assert_int_equal(kapi_iommu_attach_group(domain, dev0), 0);
		assert_ptr_equal(kapi_iommu_dev_domain(dev1), domain);
		kapi_iommu_detach_group(domain, dev0);
		assert_on_default_domain(dev1);
		kapi_iommu_domain_free(domain);
		kapi_iommu_dev_destroy(dev1);
		kapi_iommu_dev_destroy(dev0);
		assert_nothing_left_and_destroy();
	}
}

/*
 * Misuse the kernel warns about and survives: detaching a domain that is
 * not attached, detaching one device of a two-device group, a NULL
 * domain (-EINVAL), and a default domain that refuses to come back on
 * detach (the group stays on the user's domain until a detach works).
 */
static void test_detach_misuse_warns(void **state)
{
	struct kapi_iommu_domain *domain, *other;
	struct kapi_iommu_dev *dev0, *dev1;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC | KAPI_DBL_DEVICE_GROUP, KAPI_DBL_DEF_NONE);
	dev0 = double_device(NULL);
	dev1 = double_device(dev0);
	assert_int_equal(kapi_iommu_domain_alloc(dev0, &domain), 0);
	assert_int_equal(kapi_iommu_domain_alloc(dev0, &other), 0);
	assert_int_equal(kapi_iommu_attach_group(NULL, dev0), -EINVAL);

	assert_int_equal(kapi_iommu_attach_group(domain, dev0), 0);
	kapi_iommu_detach_group(other, dev0);
	assert_warnings_since_start(1);
	assert_ptr_equal(kapi_iommu_dev_domain(dev0), domain);
	kapi_iommu_detach(domain, dev0);
	assert_warnings_since_start(2);
	assert_ptr_equal(kapi_iommu_dev_domain(dev0), domain);

	kapi_iommu_double_fail_attach(1, 0);
	kapi_iommu_detach_group(domain, dev1);
	assert_warnings_since_start(3);
	assert_ptr_equal(kapi_iommu_dev_domain(dev0), domain);
	kapi_iommu_detach_group(domain, dev1);
	assert_on_default_domain(dev0);
	assert_on_default_domain(dev1);

	kapi_iommu_domain_free(other);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev1);
	kapi_iommu_dev_destroy(dev0);
	assert_warnings_since_start(3);
	assert_nothing_left_and_destroy();
}

/*
 * Regression: iommu_attach_device(NULL, dev) used to switch the group to
 * no domain at all and return 0; it is -EINVAL, as iommu_attach_group()
 * with a NULL domain is, and the device stays on its default domain.
 * Attaching the default domain itself, and detaching it, change nothing.
 */
static void test_attach_null_or_default_domain(void **state)
{
	struct kapi_iommu_domain *dflt;
	struct kapi_iommu_dev *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	dev = sim_device();
	dflt = kapi_iommu_dev_dma_domain(dev);
	assert_int_equal(kapi_iommu_attach(NULL, dev), -EINVAL);
	assert_on_default_domain(dev);
	assert_int_equal(kapi_iommu_attach_group(NULL, dev), -EINVAL);
	assert_on_default_domain(dev);

	assert_int_equal(kapi_iommu_attach(dflt, dev), 0);
	assert_on_default_domain(dev);
	kapi_iommu_detach(dflt, dev);
	assert_on_default_domain(dev);
	kapi_iommu_dev_destroy(dev);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/*
 * The last device leaving a group while a user's domain is still attached
 * is a user bug: the kernel warns, frees the default domain and leaves the
 * user's domain to its owner.
 */
static void test_group_released_with_a_user_domain_attached(void **state)
{
	struct kapi_iommu_domain *domain;
	struct kapi_iommu_dev *dev;

	given_a_booted_machine(&one_gib);
	double_driver_with(DBL_BASIC, KAPI_DBL_DEF_NONE);
	dev = sim_device();
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	assert_int_equal(kapi_iommu_attach(domain, dev), 0);
	kapi_iommu_dev_destroy(dev);
	assert_warnings_since_start(1);
	kapi_iommu_domain_free(domain);
	assert_nothing_left_and_destroy();
}

/* ---- reserved regions --------------------------------------------------- */

/*
 *  address  1M      2M      3M      5M
 *           |dev1 R |dev0 D |dev0 M |dev1 S     R reserved, D direct,
 *                                               M MSI, S SW_MSI
 * A group's regions are every device's, in address order, copied; the
 * drivers' own lists are released (kfree or their ->free).
 */
static const struct kapi_iommu_resv resv_dev0[] = {
	{ 3 * SZ_1M, SZ_1M, KAPI_IOMMU_READ, KAPI_IOMMU_RESV_MSI },
	{ 2 * SZ_1M, SZ_1M, RW, KAPI_IOMMU_RESV_DIRECT },
};
static const struct kapi_iommu_resv resv_dev1[] = {
	{ 5 * SZ_1M, SZ_1M, KAPI_IOMMU_WRITE, KAPI_IOMMU_RESV_SW_MSI },
	{ 1 * SZ_1M, SZ_1M, 0, KAPI_IOMMU_RESV_RESERVED },
};

static void two_devices_with_regions(struct kapi_iommu_dev **dev0,
				     struct kapi_iommu_dev **dev1)
{
	double_driver_with(DBL_BASIC | KAPI_DBL_DEVICE_GROUP |
			   KAPI_DBL_RESV_REGIONS, KAPI_DBL_DEF_NONE);
	assert_int_equal(kapi_iommu_double_dev_create(NULL, resv_dev0, 2, dev0),
			 0);
	assert_int_equal(kapi_iommu_double_dev_create(*dev0, resv_dev1, 2,
						      dev1), 0);
}

static void test_group_resv_regions_in_address_order(void **state)
{
	static const unsigned long long starts[] = {
		1 * SZ_1M, 2 * SZ_1M, 3 * SZ_1M, 5 * SZ_1M,
	};
	static const int types[] = {
		KAPI_IOMMU_RESV_RESERVED, KAPI_IOMMU_RESV_DIRECT,
		KAPI_IOMMU_RESV_MSI, KAPI_IOMMU_RESV_SW_MSI,
	};
	struct kapi_iommu_resv out[4];
	struct kapi_iommu_dev *dev0, *dev1, *plain;

	given_a_booted_machine(&one_gib);
	two_devices_with_regions(&dev0, &dev1);
	assert_int_equal(kapi_iommu_dev_nr_resv_regions(dev0), 2);
	assert_int_equal(kapi_iommu_group_resv_regions(dev1, out, 4), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(out[i].start, starts[i]);
		assert_int_equal(out[i].length, SZ_1M);
		assert_int_equal(out[i].type, types[i]);
	}
	assert_int_equal(out[2].prot, KAPI_IOMMU_READ);
	/* The simulated driver reports none. */
	plain = sim_device();
	assert_int_equal(kapi_iommu_group_resv_regions(plain, out, 4), 0);
	kapi_iommu_dev_destroy(plain);
	kapi_iommu_dev_destroy(dev1);
	kapi_iommu_dev_destroy(dev0);
	assert_warnings_since_start(0);
	assert_nothing_left_and_destroy();
}

/*
 * A failed allocation anywhere (the driver's regions, or the group's
 * copies) either loses a driver region or fails -ENOMEM; the caller frees
 * what was copied and nothing is left.
 */
static void test_group_resv_regions_allocation_failures(void **state)
{
	struct kapi_iommu_resv out[4];
	struct kapi_iommu_dev *dev0, *dev1;
	int failed_enomem = 0, ret;

	for (unsigned int nth = 0; nth < 10; nth++) {
		given_a_booted_machine(&one_gib);
		two_devices_with_regions(&dev0, &dev1);
		fail_nth_call_of("shim/slab/kmalloc", nth);
		ret = kapi_iommu_group_resv_regions(dev0, out, 4);
		stop_failing("shim/slab/kmalloc");
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			failed_enomem++;
		} else {
			/* A driver region went missing, or nothing failed. */
			assert_true(ret == 4 || (nth < 8 && ret < 4));
		}
		kapi_iommu_dev_destroy(dev1);
		kapi_iommu_dev_destroy(dev0);
		assert_nothing_left_and_destroy();
	}
	assert_true(failed_enomem > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_without_an_iommu),
		cmocka_unit_test(test_null_device_has_no_iommu),
		cmocka_unit_test(test_probe_and_domains_per_driver_shape),
		cmocka_unit_test(test_identity_and_blocked_domains_do_not_map),
		cmocka_unit_test(test_paging_domain_without_the_means_to_map),
		cmocka_unit_test(test_map_that_makes_no_progress_is_einval),
		cmocka_unit_test(test_map_without_iotlb_sync_map),
		cmocka_unit_test(test_map_sg_of_nothing_and_bad_gfp),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_nesting_and_pgtable_quirks),
		cmocka_unit_test(test_fault_handler),
		cmocka_unit_test(test_group_name_and_iommu_data),
		cmocka_unit_test(test_for_each_dev_stops_at_nonzero),
		cmocka_unit_test(test_probe_fails_when_attach_fails),
		cmocka_unit_test(test_attach_group_failure_reverts),
		cmocka_unit_test(test_detach_misuse_warns),
		cmocka_unit_test(test_attach_null_or_default_domain),
		cmocka_unit_test(test_group_released_with_a_user_domain_attached),
		cmocka_unit_test(test_group_resv_regions_in_address_order),
		cmocka_unit_test(test_group_resv_regions_allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
