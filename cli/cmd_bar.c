// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim bar: map a device BAR for a VM through VFIO type1, as a VMM does
 * at boot, and report what it cost.
 *
 *   dmasim bar --size 32G --leaf pud|pmd|pte [--offset BYTES]
 *              [--no-addr-mask] [--iommu FORMAT] [--ram SIZE] [--json]
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
 * vaddr_get_pfns_calls (each makes exactly one pin_user_pages_remote()
 * call, so it is the GUP calls of the map), iommu_map_calls, the IOMMU
 * leaves the mapping was made of, by size, every sim counter over map and
 * unmap, the modelled time of each phase (sim_cost_ns over its counters,
 * vaddr_get_pfns calls included at their cost), the wall time of each
 * phase, and the peak resident size of the simulator process.
 */
#include <errno.h>
#include <getopt.h>
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


static int bar_usage(FILE *out)
{
	fprintf(out,
		"usage: dmasim bar [--size SIZE] [--leaf pud|pmd|pte] [--offset BYTES]\n"
		"                  [--no-addr-mask] [--iommu FORMAT] [--ram SIZE] [--json]\n"
		"Map a BAR through VFIO_IOMMU_MAP_DMA, unmap it, report the cost.\n"
		"  --size SIZE      BAR size (default 32G)\n"
		"  --leaf LEVEL     page-table leaves of the BAR mapping (default pud)\n"
		"  --offset BYTES   map from this offset into the BAR to its end\n"
		"  --no-addr-mask   follow_pfnmap reports PAGE_MASK (pre-6.15)\n"
		"  --iommu FORMAT   IOMMU format (default intel-sl):");
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		fprintf(out, " %s", sim_iommu_format(f)->name);
	fprintf(out,
		"\n  --ram SIZE       RAM of the simulated machine (default 4G)\n"
		"  --json           one JSON object instead of a table\n");
	return out == stderr ? 2 : 0;
}

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

static int parse_bar_opts(int argc, char **argv, struct bar_opts *o)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "leaf", required_argument, NULL, 'l' },
		{ "offset", required_argument, NULL, 'o' },
		{ "no-addr-mask", no_argument, NULL, 'n' },
		{ "iommu", required_argument, NULL, 'i' },
		{ "ram", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, fmt;

	bar_opts_defaults(o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (sim_parse_size(optarg, &o->size) || !o->size)
				return fprintf(stderr, "dmasim bar: bad --size '%s'\n", optarg), -1;
			break;
		case 'o':
			if (sim_parse_size(optarg, &o->offset))
				return fprintf(stderr, "dmasim bar: bad --offset '%s'\n", optarg), -1;
			break;
		case 'r':
			if (sim_parse_size(optarg, &o->ram) || !o->ram)
				return fprintf(stderr, "dmasim bar: bad --ram '%s'\n", optarg), -1;
			break;
		case 'l':
			if (!strcmp(optarg, "pud"))
				o->leaf = KAPI_MM_LEAF_PUD;
			else if (!strcmp(optarg, "pmd"))
				o->leaf = KAPI_MM_LEAF_PMD;
			else if (!strcmp(optarg, "pte"))
				o->leaf = KAPI_MM_LEAF_PTE;
			else
				return fprintf(stderr, "dmasim bar: --leaf is pud, pmd or pte\n"), -1;
			break;
		case 'i':
			fmt = sim_iommu_format_lookup(optarg);
			if (fmt < 0)
				return fprintf(stderr, "dmasim bar: unknown IOMMU format '%s'\n", optarg), -1;
			o->fmt = fmt;
			break;
		case 'n':
			o->legacy_mask = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind < argc)
		return fprintf(stderr, "dmasim bar: unexpected '%s'\n", argv[optind]), -1;
	if (o->size % bar_leaf_bytes(o->leaf))
		return fprintf(stderr, "dmasim bar: --size must be a multiple of the leaf size (%llu)\n",
			       bar_leaf_bytes(o->leaf)), -1;
	if (o->offset % SIM_PAGE_SIZE || o->offset >= o->size)
		return fprintf(stderr, "dmasim bar: --offset must be a page multiple below --size\n"), -1;
	return 0;
}

/* Count the IOMMU leaves the device's domain holds, by size. */
static void count_leaves(struct kapi_vfio_dev *dev, struct bar_result *r)
{
	struct sim_iommu_domain *d = kapi_vfio_dev_sim_domain(dev);

	for (unsigned int shift = SIM_PAGE_SHIFT; shift < 64; shift++)
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
	double t;
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
	ret = kapi_vfio_map_dma(c, va + o->offset, o->offset, map_size,
				KAPI_VFIO_DMA_MAP_RW);
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
	ret = kapi_vfio_unmap_dma(c, o->offset, map_size, 0, &r->unmapped);
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
	/* Every vaddr_get_pfns() call makes exactly one GUP call. */
	r->map.c[SIM_CNT_VADDR_GET_PFNS] = r->map.c[SIM_CNT_GUP_CALL];
	r->unmap.c[SIM_CNT_VADDR_GET_PFNS] = r->unmap.c[SIM_CNT_GUP_CALL];
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

static void print_json(const struct bar_opts *o, const struct bar_result *r)
{
	char label[16];
	int first = 1;

	printf("{\"bar_bytes\": %llu, \"offset\": %llu, \"leaf\": \"%s\", "
	       "\"iommu\": \"%s\", \"addr_mask\": %s, ",
	       o->size, o->offset,
	       o->leaf == KAPI_MM_LEAF_PUD ? "pud" :
	       o->leaf == KAPI_MM_LEAF_PMD ? "pmd" : "pte",
	       sim_iommu_format(o->fmt)->name, o->legacy_mask ? "false" : "true");
	printf("\"pfn_lookups\": %llu, \"vaddr_get_pfns_calls\": %llu, "
	       "\"iommu_map_calls\": %llu, \"iommu_leaves\": {",
	       r->map.c[SIM_CNT_PFN_LOOKUP], r->map.c[SIM_CNT_VADDR_GET_PFNS],
	       r->map.c[SIM_CNT_IOMMU_MAP_CALL]);
	for (unsigned int s = SIM_PAGE_SHIFT; s < 64; s++) {
		if (!r->leaves_by_shift[s])
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ",
		       cli_size_name(1ULL << s, label, sizeof(label)), r->leaves_by_shift[s]);
		first = 0;
	}
	printf("}, \"counts\": {");
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", sim_counter_name(i),
		       r->map.c[i] + r->unmap.c[i]);
	printf("}, \"sim_us\": {\"map\": %.3f, \"unmap\": %.3f}, "
	       "\"wall_ms\": {\"map\": %.3f, \"unmap\": %.3f}, "
	       "\"max_rss_kib\": %ld}\n",
	       sim_cost_ns(&r->map) / 1e3, sim_cost_ns(&r->unmap) / 1e3,
	       r->map_ms, r->unmap_ms, r->max_rss_kib);
}

static void print_table(const struct bar_opts *o, const struct bar_result *r)
{
	char label[16];

	printf("BAR %llu bytes, %s leaves, mapped from offset %llu, %s IOMMU, addr_mask %s\n",
	       o->size,
	       o->leaf == KAPI_MM_LEAF_PUD ? "PUD" :
	       o->leaf == KAPI_MM_LEAF_PMD ? "PMD" : "PTE",
	       o->offset, sim_iommu_format(o->fmt)->name,
	       o->legacy_mask ? "off (pre-6.15)" : "on");
	printf("  %-24s %llu\n", "pfn_lookups", r->map.c[SIM_CNT_PFN_LOOKUP]);
	printf("  %-24s %llu\n", "vaddr_get_pfns_calls",
	       r->map.c[SIM_CNT_VADDR_GET_PFNS]);
	printf("  %-24s %llu\n", "iommu_map_calls", r->map.c[SIM_CNT_IOMMU_MAP_CALL]);
	for (unsigned int s = SIM_PAGE_SHIFT; s < 64; s++)
		if (r->leaves_by_shift[s])
			printf("  iommu_leaves %-11s %llu\n",
			       cli_size_name(1ULL << s, label, sizeof(label)),
			       r->leaves_by_shift[s]);
	printf("  %-24s %12s %12s\n", "", "map", "unmap");
	printf("  %-24s %12.3f %12.3f\n", "sim_us (modelled)",
	       sim_cost_ns(&r->map) / 1e3, sim_cost_ns(&r->unmap) / 1e3);
	printf("  %-24s %12.3f %12.3f\n", "wall_ms (simulator)", r->map_ms,
	       r->unmap_ms);
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		if (r->map.c[i] || r->unmap.c[i])
			printf("  %-24s %12llu %12llu\n", sim_counter_name(i),
			       r->map.c[i], r->unmap.c[i]);
	printf("  %-24s %ld KiB\n", "peak RSS", r->max_rss_kib);
}

int cmd_bar(int argc, char **argv)
{
	struct bar_result r;
	struct bar_opts o;
	int ret = parse_bar_opts(argc, argv, &o);

	if (ret)
		return bar_usage(ret > 0 ? stdout : stderr);
	if (bar_run(&o, &r))
		return 1;
	if (o.json)
		print_json(&o, &r);
	else
		print_table(&o, &r);
	sim_machine_destroy();
	return 0;
}
