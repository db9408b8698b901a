// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim bar: map a device BAR for a VM through VFIO type1, as a VMM does
 * at boot, and report what it cost.
 *
 *   dmasim bar --size 32G --leaf pud|pmd|pte [--offset BYTES]
 *              [--no-addr-mask] [--iommu FORMAT] [--ram SIZE] [--json]
 *              [--param MODULE.NAME=VALUE]...   (bar_options below)
 *
 * A BAR of --size bytes is placed above RAM, aligned to the leaf size, and
 * mmap'd into a process with page-table leaves of that level (as vfio-pci
 * maps BARs since the huge-pfnmap work).  The range from --offset to its
 * end is mapped with VFIO_IOMMU_MAP_DMA into a container with one device
 * behind an IOMMU of --iommu format (IOVA = offset, so IOVA and physical
 * address stay co-aligned), then unmapped.  --no-addr-mask switches
 * follow_pfnmap_start() to the pre-6.15 report (every leaf PAGE_MASK),
 * which gives the old one-lookup-per-page loop.
 *
 * Reported: pfn_lookups (follow_pfnmap_start() calls while mapping),
 * gup_calls (every vaddr_get_pfns() makes exactly one
 * pin_user_pages_remote() call), iommu_map_calls, the IOMMU
 * leaves the mapping was made of, by size, every sim counter over map and
 * unmap, the modelled time of each phase (sim_cost_ns over its counters,
 * every one incremented by the code doing the work), the wall time of each
 * phase, and the peak resident size of the simulator process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "cli.h"
#include "scenario_bar.h"


unsigned long long bar_leaf_bytes(int leaf)
{
	switch (leaf) {
	case KAPI_MM_LEAF_PUD:
		return SIM_PUD_SIZE;
	case KAPI_MM_LEAF_PMD:
		return SIM_PMD_SIZE;
	default:
		return SIM_PAGE_SIZE;
	}
}

/*
 * Count the IOMMU leaves the device's domain holds, by size: from 4 KiB up
 * whatever PAGE_SIZE is (a 4 KiB-granule IOMMU maps a 64 KiB page with 16).
 */
static void count_leaves(struct kapi_vfio_dev *dev, struct bar_result *r)
{
	struct sim_iommu_domain *d = kapi_vfio_dev_sim_domain(dev);

	for (unsigned int shift = 0; shift < 64; shift++)
		r->leaves_by_shift[shift] = sim_iommu_nr_leaves(d, shift);
}

int bar_run(const struct bar_opts *o, struct bar_result *r)
{
	struct sim_config cfg = { .ram_bytes = o->ram };
	unsigned long long leaf = bar_leaf_bytes(o->leaf), map_size;
	struct sim_counters t0, t1, t2;
	struct kapi_mm_map m = {
		.len = o->size, .kind = KAPI_MM_PFNMAP, .writable = 1,
		.populate = 1, .max_leaf = o->leaf, .align = leaf,
	};
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;
	struct rusage ru;
	unsigned long va;
	double t, cpu;
	long ret;

	memset(r, 0, sizeof(*r));
	if (sim_machine_init(&cfg) || kapi_boot() || !kapi_proc_create()) {
		fprintf(stderr, "dmasim bar: machine setup failed\n");
		return -1;
	}
	m.pfn = sim_bar_create(o->size, leaf, 0, 0);
	if (!m.pfn) {
		fprintf(stderr, "dmasim bar: no room for a %llu-byte BAR\n", o->size);
		return -1;
	}
	ret = kapi_mm_mmap(&m, &va);
	if (!ret)
		ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c);
	if (ret) {
		fprintf(stderr, "dmasim bar: setup: %s\n", strerror((int)-ret));
		return -1;
	}
	ret = kapi_vfio_attach_iommu_dev(c, o->fmt, &dev);
	if (ret) {
		fprintf(stderr, "dmasim bar: attaching a %s device: %s\n",
			sim_iommu_format(o->fmt)->name, strerror((int)-ret));
		kapi_vfio_close(c);
		return -1;
	}
	sim_mm_set_legacy_addr_mask(o->legacy_mask);
	map_size = o->size - o->offset;

	sim_counters_snapshot(&t0);
	t = cli_now_ms();
	cpu = cli_cpu_ms();
	ret = kapi_vfio_map_dma(c, va + o->offset, o->offset, map_size,
				KAPI_VFIO_DMA_MAP_RW);
	r->map_cpu_ms = cli_cpu_ms() - cpu;
	r->map_ms = cli_now_ms() - t;
	sim_counters_snapshot(&t1);
	if (ret) {
		fprintf(stderr, "dmasim bar: VFIO_IOMMU_MAP_DMA: %s\n",
			strerror((int)-ret));
		kapi_vfio_close(c);
		return -1;
	}
	count_leaves(dev, r);

	t = cli_now_ms();
	cpu = cli_cpu_ms();
	ret = kapi_vfio_unmap_dma(c, o->offset, map_size, 0, &r->unmapped);
	r->unmap_cpu_ms = cli_cpu_ms() - cpu;
	r->unmap_ms = cli_now_ms() - t;
	sim_counters_snapshot(&t2);
	kapi_vfio_close(c);
	sim_mm_set_legacy_addr_mask(0);
	if (ret || r->unmapped != map_size) {
		fprintf(stderr, "dmasim bar: VFIO_IOMMU_UNMAP_DMA: %s (%llu of %llu bytes)\n",
			strerror((int)-ret), r->unmapped, map_size);
		return -1;
	}

	sim_counters_delta(&t0, &t1, &r->map);
	sim_counters_delta(&t1, &t2, &r->unmap);
	getrusage(RUSAGE_SELF, &ru);
	r->max_rss_kib = ru.ru_maxrss;
	kapi_proc_destroy(kapi_proc_current());
	sim_machine_destroy();
	return 0;
}

void bar_opts_defaults(struct bar_opts *o)
{
	*o = (struct bar_opts){
		.size = 32ULL << 30, .ram = 4ULL << 30,
		.leaf = KAPI_MM_LEAF_PUD, .fmt = SIM_IOMMU_INTEL_SL,
	};
}

static const char *const leaf_names[] = { "pud", "pmd", "pte", NULL };
static const int leaf_values[] = { KAPI_MM_LEAF_PUD, KAPI_MM_LEAF_PMD, KAPI_MM_LEAF_PTE };

static const char *leaf_name(int leaf)
{
	for (int i = 0; leaf_names[i]; i++)
		if (leaf_values[i] == leaf)
			return leaf_names[i];
	return "?";
}

static void print_json(const struct bar_opts *o, const struct bar_result *r)
{
	struct json j;
	char label[16];

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_u64(&j, "bar_bytes", o->size);
	json_u64(&j, "offset", o->offset);
	json_string(&j, "leaf", leaf_name(o->leaf));
	json_string(&j, "iommu", sim_iommu_format(o->fmt)->name);
	json_bool(&j, "addr_mask", !o->legacy_mask);
	cli_json_params(&j);
	json_u64(&j, "pfn_lookups", r->map.c[SIM_CNT_PFN_LOOKUP]);
	json_u64(&j, "gup_calls", r->map.c[SIM_CNT_GUP_CALL]);
	json_u64(&j, "iommu_map_calls", r->map.c[SIM_CNT_IOMMU_MAP_CALL]);
	json_begin_object(&j, "iommu_leaves");
	for (unsigned int s = 0; s < 64; s++)
		if (r->leaves_by_shift[s])
			json_u64(&j, cli_size_name(1ULL << s, label, sizeof(label)),
				 r->leaves_by_shift[s]);
	json_end_object(&j);
	json_begin_object(&j, "counts");
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		json_u64(&j, sim_counter_name(i), r->map.c[i] + r->unmap.c[i]);
	json_end_object(&j);
	json_begin_object(&j, "sim_us");
	json_double(&j, "map", sim_cost_ns(&r->map) / 1e3);
	json_double(&j, "unmap", sim_cost_ns(&r->unmap) / 1e3);
	json_end_object(&j);
	json_begin_object(&j, "wall_ms");
	json_double(&j, "map", r->map_ms);
	json_double(&j, "unmap", r->unmap_ms);
	json_end_object(&j);
	json_begin_object(&j, "cpu_ms");
	json_double(&j, "map", r->map_cpu_ms);
	json_double(&j, "unmap", r->unmap_cpu_ms);
	json_end_object(&j);
	json_i64(&j, "max_rss_kib", r->max_rss_kib);
	json_end_object(&j);
	json_finish(&j);
}

static void print_table(const struct bar_opts *o, const struct bar_result *r)
{
	char label[16];

	printf("BAR %llu bytes, %s leaves, mapped from offset %llu, %s IOMMU, addr_mask %s\n",
	       o->size,
	       leaf_name(o->leaf),
	       o->offset, sim_iommu_format(o->fmt)->name,
	       o->legacy_mask ? "off (pre-6.15)" : "on");
	cli_print_params();
	printf("  %-24s %llu\n", "pfn_lookups", r->map.c[SIM_CNT_PFN_LOOKUP]);
	printf("  %-24s %llu\n", "gup_calls", r->map.c[SIM_CNT_GUP_CALL]);
	printf("  %-24s %llu\n", "iommu_map_calls", r->map.c[SIM_CNT_IOMMU_MAP_CALL]);
	for (unsigned int s = 0; s < 64; s++)
		if (r->leaves_by_shift[s])
			printf("  iommu_leaves %-11s %llu\n",
			       cli_size_name(1ULL << s, label, sizeof(label)),
			       r->leaves_by_shift[s]);
	printf("  %-24s %12s %12s\n", "", "map", "unmap");
	printf("  %-24s %12.3f %12.3f\n", "sim_us (modelled)",
	       sim_cost_ns(&r->map) / 1e3, sim_cost_ns(&r->unmap) / 1e3);
	printf("  %-24s %12.3f %12.3f\n", "wall_ms (simulator)", r->map_ms,
	       r->unmap_ms);
	printf("  %-24s %12.3f %12.3f\n", "cpu_ms (simulator)", r->map_cpu_ms,
	       r->unmap_cpu_ms);
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		if (r->map.c[i] || r->unmap.c[i])
			printf("  %-24s %12llu %12llu\n", sim_counter_name(i),
			       r->map.c[i], r->unmap.c[i]);
	printf("  %-24s %ld KiB\n", "peak RSS", r->max_rss_kib);
}

static const struct cli_opt bar_options[] = {
	CLI_OPT_SIZE(struct bar_opts, size, "size", "32G", SIM_PAGE_SIZE, 1ULL << 46, 0,
		     "BAR size, a multiple of the leaf size"),
	CLI_OPT_ENUM(struct bar_opts, leaf, "leaf", "pud", leaf_names, leaf_values,
		     "page-table leaves of the BAR mapping"),
	CLI_OPT_SIZE(struct bar_opts, offset, "offset", "0", 0, 1ULL << 46, SIM_PAGE_SIZE,
		     "map from this offset into the BAR to its end; below --size"),
	CLI_OPT_FLAG(struct bar_opts, legacy_mask, "no-addr-mask",
		     "follow_pfnmap reports PAGE_MASK for every leaf (before 6.15)"),
	CLI_OPT_ENUM_FN(struct bar_opts, fmt, "iommu", "intel-sl", "FORMAT", cli_iommu_name,
			"IOMMU format of the device"),
	CLI_OPT_SIZE(struct bar_opts, ram, "ram", "4G", 64ULL << 20, 1ULL << 44, 0,
		     "RAM of the simulated machine"),
	CLI_OPT_FLAG(struct bar_opts, json, "json", "one JSON object instead of a table"),
	CLI_OPT_END,
};

static int bar_check(void *opts)
{
	const struct bar_opts *o = opts;
	char sz[32], off[32];

	if (o->size % bar_leaf_bytes(o->leaf))
		return cli_usage_error(&cli_cmd_bar, "--size %s is not a multiple of the %s "
				       "leaf size, %s", cli_size_name(o->size, off, sizeof(off)),
				       leaf_name(o->leaf),
				       cli_size_name(bar_leaf_bytes(o->leaf), sz, sizeof(sz)));
	if (o->offset >= o->size)
		return cli_usage_error(&cli_cmd_bar, "--offset %s is not below --size %s",
				       cli_size_name(o->offset, off, sizeof(off)),
				       cli_size_name(o->size, sz, sizeof(sz)));
	return 0;
}

static int bar_main(void *opts)
{
	const struct bar_opts *o = opts;
	struct bar_result r;

	if (bar_run(o, &r))
		return 1;
	if (o->json)
		print_json(o, &r);
	else
		print_table(o, &r);
	sim_machine_destroy();
	return 0;
}

const struct cli_command cli_cmd_bar = {
	.name = "bar",
	.summary = "map a BAR through VFIO type1, report the cost",
	.about = "Map a BAR through VFIO_IOMMU_MAP_DMA, unmap it, report the cost.",
	.opts = bar_options,
	.opts_size = sizeof(struct bar_opts),
	.check = bar_check,
	.run = bar_main,
	.kernel = 1,
};
