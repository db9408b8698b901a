// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim heap: one system-heap buffer allocated, mapped through an IOMMU,
 * unmapped and released, with its chunk layout, IOMMU leaves, operation
 * counts and modelled time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_heap.h"

static int heap_usage(FILE *out)
{
	fprintf(out,
		"usage: dmasim heap [--size 1G] [--orders 9,8,4,0] [--iommu FORMAT]\n"
		"                   [--frag aged|fresh|0..1] [--seed N] [--ram 16G] [--json]\n"
		"Allocate a buffer from the dma-buf system heap with the given allocation\n"
		"orders, map it for a device behind an IOMMU of FORMAT, unmap and release it.\n"
		"FORMAT:");
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		fprintf(out, " %s", sim_iommu_format(f)->name);
	fprintf(out, "\n");
	return out == stderr ? 2 : 0;
}

int heap_parse_common(struct heap_params *p, int argc, char **argv, int *i,
		      int *json);

/* Options of `heap` that `bench` reuses; 1 consumed, 0 not ours, -1 bad. */
int heap_parse_common(struct heap_params *p, int argc, char **argv, int *i,
		      int *json)
{
	const char *opt = argv[*i];
	int r = cli_machine_option(&p->machine, argc, argv, i);

	if (r)
		return r;
	if (!strcmp(opt, "--json")) {
		*json = 1;
		return 1;
	}
	if (strcmp(opt, "--size") && strcmp(opt, "--orders") && strcmp(opt, "--iommu"))
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "dmasim: %s needs a value\n", opt);
		return -1;
	}
	opt = argv[*i];
	(*i)++;
	if (!strcmp(opt, "--size")) {
		if (sim_parse_size(argv[*i], &p->size) || !p->size) {
			fprintf(stderr, "dmasim: bad --size '%s'\n", argv[*i]);
			return -1;
		}
	} else if (!strcmp(opt, "--orders")) {
		p->orders = argv[*i];
	} else {
		p->iommu = sim_iommu_format_lookup(argv[*i]);
		if (p->iommu < 0) {
			fprintf(stderr, "dmasim: unknown --iommu '%s'\n", argv[*i]);
			return -1;
		}
	}
	return 1;
}

static void print_human(const struct heap_params *p, const struct heap_result *r)
{
	char b1[32], b2[32];

	printf("system heap: %s buffer, orders %s, IOMMU %s, machine %s (%s RAM, seed %llu)\n",
	       cli_bytes(p->size, b1, sizeof(b1)), p->orders ? p->orders : "(module default)",
	       sim_iommu_format(p->iommu)->name, p->machine.frag_name,
	       cli_bytes(p->machine.ram, b2, sizeof(b2)), p->machine.seed);
	if (r->err) {
		printf("  failed at %s: %s (%d)\n", r->failed_step, strerror(-r->err), r->err);
		return;
	}
	printf("  chunks:");
	for (int o = SIM_NR_ORDERS - 1; o >= 0; o--)
		if (r->layout.chunks_by_order[o])
			printf(" %lu x order %d (%s)", r->layout.chunks_by_order[o], o,
			       cli_bytes(SIM_PAGE_SIZE << o, b1, sizeof(b1)));
	printf("\n  scatterlist: %u entries, %u DMA segments after merging\n",
	       r->sg_entries, r->dma_segments);
	printf("  IOMMU leaves:");
	for (int s = 63; s >= 0; s--)
		if (r->cover.leaves_by_shift[s])
			printf(" %llu x %s", r->cover.leaves_by_shift[s],
			       cli_size_name(1ULL << s, b1, sizeof(b1)));
	printf("\n  2 MiB windows mapped by one leaf of 2 MiB or more: %llu of %llu\n",
	       r->cover.windows_2m_superpage, r->cover.windows_2m);
	for (int o = SIM_NR_ORDERS - 1; o > 0; o--)
		if (r->high_order_attempts[o])
			printf("  order-%d attempts: %llu, failed: %llu\n", o,
			       r->high_order_attempts[o], r->high_order_failures[o]);
	printf("  %-6s %12s %12s\n", "phase", "modelled us", "wall ms");
	for (int ph = 0; ph < HEAP_NR_PHASES; ph++)
		printf("  %-6s %12.2f %12.3f\n", heap_phase_names[ph],
		       r->sim_ns[ph] / 1e3, r->wall_ms[ph]);
	printf("  counts:");
	for (int c = 0, n = 0; c < SIM_NR_COUNTERS; c++)
		if (r->total.c[c])
			printf("%s%s=%llu", n++ % 4 ? "  " : "\n    ",
			       sim_counter_name(c), r->total.c[c]);
	printf("\n  everything returned after release: %s\n", r->leaked ? "NO" : "yes");
}

int cmd_heap(int argc, char **argv)
{
	struct heap_params p = {
		.size = 1ULL << 30,
		.orders = "9,8,4,0",
		.iommu = SIM_IOMMU_INTEL_SL,
	};
	struct heap_result *res;
	int json = 0;

	cli_machine_defaults(&p.machine);
	for (int i = 1; i < argc; i++) {
		int r;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return heap_usage(stdout);
		r = heap_parse_common(&p, argc, argv, &i, &json);
		if (r < 0)
			return 2;
		if (!r) {
			fprintf(stderr, "dmasim heap: unknown option '%s'\n", argv[i]);
			return heap_usage(stderr);
		}
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return 1;
	heap_run(&p, res);
	if (json) {
		struct json j;

		json_init(&j, stdout);
		heap_result_json(&j, &p, res);
		json_finish(&j);
	} else {
		print_human(&p, res);
	}
	int rc = res->err ? 1 : 0;

	free(res);
	return rc;
}
