// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim heap: one system-heap buffer allocated, mapped through an IOMMU,
 * unmapped and released, with its chunk layout, IOMMU leaves, operation
 * counts and modelled time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/impl.h>

#include "scenario_heap.h"

/*
 * The orders the heap is set to by default: the project's heap has the
 * system_heap.orders parameter; a kernel tree's heap without it (6.12,
 * DMASIM_IMPL_HEAP_ORDERS_PARAM false) keeps its fixed orders unless
 * --orders asks for others (which then fails: no such parameter).
 */
#define HEAP_DEFAULT_ORDERS (DMASIM_IMPL_HEAP_ORDERS_PARAM ? "9,8,4,0" : NULL)

struct heap_opts {
	struct heap_params p;
	int json;
};

static const struct cli_opt heap_options[] = {
	CLI_OPT_SIZE(struct heap_opts, p.size, "size", "1G", 1, 1ULL << 44, 0,
		     "buffer length (the heap rounds it up to whole pages)"),
	CLI_OPT_LIST(struct heap_opts, p.orders, "orders", HEAP_DEFAULT_ORDERS, 0, SIM_MAX_ORDER,
		     SIM_NR_ORDERS, 1,
		     "allocation orders of the heap's blocks (module parameter "
		     "system_heap.orders)"),
	CLI_OPT_ENUM_FN(struct heap_opts, p.iommu, "iommu", "intel-sl", "FORMAT",
			cli_iommu_name, "IOMMU format of the importing device"),
	CLI_OPT_SIZE(struct heap_opts, p.machine.ram, "ram", "16G", 64ULL << 20, 1ULL << 44, 0,
		     "RAM of the simulated machine"),
	CLI_MACHINE_OPTS(struct heap_opts, p.machine),
	CLI_OPT_FLAG(struct heap_opts, json, "json", "one JSON object instead of text"),
	CLI_OPT_END,
};

static const char *const heap_sets_params[] = { "system_heap.orders", NULL };

static void print_human(const struct heap_params *p, const struct heap_result *r)
{
	char b1[32], b2[32];

	if (r->err)
		return;		/* the message goes to stderr */
	printf("system heap: %s buffer, orders %s, IOMMU %s, machine %s (%s RAM, seed %llu)\n",
	       cli_bytes(p->size, b1, sizeof(b1)), p->orders ? p->orders : "(module default)",
	       sim_iommu_format(p->iommu)->name, p->machine.frag_name,
	       cli_bytes(p->machine.ram, b2, sizeof(b2)), p->machine.seed);
	cli_print_params();
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

static int heap_main(void *opts)
{
	const struct heap_opts *o = opts;
	struct heap_result *res = calloc(1, sizeof(*res));
	int rc;

	if (!res) {
		fprintf(stderr, "dmasim heap: out of memory\n");
		return 1;
	}
	heap_run(&o->p, res);
	if (o->json) {
		struct json j;

		json_init(&j, stdout);
		heap_result_json(&j, &o->p, res);
		json_finish(&j);
	} else {
		print_human(&o->p, res);
	}
	if (res->err)
		fprintf(stderr, "dmasim heap: failed at %s: %s (%d)\n", res->failed_step,
			strerror(-res->err), res->err);
	if (res->err && cli_format_not_for_dma_api(o->p.iommu))
		fprintf(stderr, "dmasim heap: %s\n", cli_format_not_for_dma_api(o->p.iommu));
	rc = res->err ? 1 : 0;
	free(res);
	return rc;
}

const struct cli_command cli_cmd_heap = {
	.name = "heap",
	.summary = "allocate, map, unmap and release one system-heap buffer",
	.about = "Allocate a buffer from the dma-buf system heap with the given allocation\n"
		 "orders, map it for a device behind an IOMMU of FORMAT, unmap and release it;\n"
		 "print its chunk layout, IOMMU leaves, operation counts and modelled time.",
	.opts = heap_options,
	.opts_size = sizeof(struct heap_opts),
	.run = heap_main,
	.sets_params = heap_sets_params,
	.kernel = 1,
};
