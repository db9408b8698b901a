// SPDX-License-Identifier: GPL-2.0-only
/* The dma-buf heap scenario (see scenario_heap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/kapi.h>

#include "scenario_heap.h"

const char *const heap_phase_names[HEAP_NR_PHASES] = {
	"alloc", "map", "unmap", "free",
};

struct phase_clock {
	struct sim_counters before;
	double t0;
};

static void phase_start(struct phase_clock *c)
{
	sim_counters_snapshot(&c->before);
	c->t0 = cli_now_ms();
}

static void phase_end(struct phase_clock *c, struct heap_result *res,
		      enum heap_phase ph)
{
	struct sim_counters now;

	res->wall_ms[ph] = cli_now_ms() - c->t0;
	sim_counters_snapshot(&now);
	sim_counters_delta(&c->before, &now, &res->phase[ph]);
	res->sim_ns[ph] = sim_cost_ns(&res->phase[ph]);
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		res->total.c[i] += res->phase[ph].c[i];
}

static int fail(struct heap_result *res, const char *step, int err)
{
	res->err = err;
	res->failed_step = step;
	return err;
}

/*
 * The scenario in two stages, so that variants that differ only in the
 * IOMMU format allocate once (heap_run_variants): the buffer (allocated
 * from the machine as it is), then a device of the variant's format with
 * the buffer mapped, unmapped and released.  The device is created after
 * the allocation: it takes nothing from the page allocator (its tables and
 * structures are the simulator's and kmalloc's), so the buffer comes out
 * the same either way.  What the first stage leaves for the second:
 */
struct heap_buffer {
	int heap_fd, buf_fd;
	unsigned long allocated_before;		/* pages handed out before */
	unsigned long long kmem_before;		/* kmalloc objects before */
};

/* The orders set, the heap opened, the buffer allocated: 0 or res->err. */
static int heap_alloc_stage(const struct heap_params *p, struct heap_buffer *b,
			    struct heap_result *res)
{
	struct phase_clock clk;
	int ret;

	b->heap_fd = -1;
	b->buf_fd = -1;
	sim_counters_reset();
	if (p->orders) {
		ret = kapi_param_set("system_heap.orders", p->orders);
		if (ret)
			return fail(res, "orders", ret);
	}
	b->heap_fd = kapi_heap_open("system");
	if (b->heap_fd < 0)
		return fail(res, "open", b->heap_fd);
	b->allocated_before = sim_buddy_nr_allocated();
	res->free_pages = sim_buddy_nr_free();
	res->ram_pages = sim_ram_bytes() >> SIM_PAGE_SHIFT;
	b->kmem_before = sim_kmalloc_outstanding();
	sim_buddy_reset_order_stats();

	phase_start(&clk);
	b->buf_fd = kapi_heap_alloc(b->heap_fd, p->size, KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);
	phase_end(&clk, res, HEAP_ALLOC);
	for (int o = 0; o < SIM_NR_ORDERS; o++) {
		res->high_order_attempts[o] = sim_buddy_order_attempts(o);
		res->high_order_failures[o] = sim_buddy_order_failures(o);
	}
	if (b->buf_fd < 0)
		return fail(res, "alloc", b->buf_fd);
	ret = kapi_dmabuf_layout(b->buf_fd, &res->layout);
	if (ret)
		return fail(res, "layout", ret);
	return 0;
}

/* Whatever of the first stage is still open, closed. */
static void heap_buffer_close(struct heap_buffer *b)
{
	if (b->buf_fd >= 0)
		kapi_close(b->buf_fd);
	if (b->heap_fd >= 0)
		kapi_close(b->heap_fd);
	b->buf_fd = -1;
	b->heap_fd = -1;
}

/* A device of p->iommu; the buffer attached, mapped, unmapped, released. */
static void heap_map_stage(const struct heap_params *p, struct heap_buffer *b,
			   struct heap_result *res)
{
	struct kapi_dev *dev = NULL;
	struct kapi_attach *attach = NULL;
	struct phase_clock clk;
	unsigned long long kmem_dev = sim_kmalloc_outstanding();
	int ret;

	/* A GPU-like importer: no segment-size limit on its DMA segments. */
	ret = kapi_dev_create(p->iommu, 0xffffffffu, &dev);
	if (ret) {
		fail(res, "device", ret);
		goto out;
	}
	/* the device's own objects stay until the end: not the buffer's */
	kmem_dev = sim_kmalloc_outstanding() - kmem_dev;
	ret = kapi_dmabuf_attach(b->buf_fd, dev, &attach);
	if (ret) {
		fail(res, "attach", ret);
		goto out;
	}

	phase_start(&clk);
	ret = kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL);
	phase_end(&clk, res, HEAP_MAP);
	if (ret < 0) {
		fail(res, "map", ret);
		goto out;
	}
	res->sg_entries = kapi_attach_nr_entries(attach);
	res->dma_segments = kapi_attach_nr_segments(attach);
	ret = kapi_attach_iommu_cover(attach, &res->cover);
	if (ret) {
		fail(res, "cover", ret);
		goto out;
	}

	phase_start(&clk);
	kapi_dmabuf_unmap(attach);
	phase_end(&clk, res, HEAP_UNMAP);

	kapi_dmabuf_detach(attach);
	attach = NULL;

	phase_start(&clk);
	ret = kapi_close(b->buf_fd);
	b->buf_fd = -1;
	phase_end(&clk, res, HEAP_FREE);
	if (ret) {
		fail(res, "close", ret);
		goto out;
	}
	/*
	 * Reclaim may have freed pages the ageing workload held, so the free
	 * count is no measure here; pages handed out by anyone else are.
	 */
	res->leaked = sim_buddy_nr_allocated() != b->allocated_before ||
		      sim_kmalloc_outstanding() != b->kmem_before + kmem_dev;
out:
	if (attach)
		kapi_dmabuf_detach(attach);
	heap_buffer_close(b);
	if (dev)
		kapi_dev_destroy(dev);
}

void heap_run_here(const struct heap_params *p, struct heap_result *res)
{
	struct heap_buffer b;

	if (!heap_alloc_stage(p, &b, res))
		heap_map_stage(p, &b, res);
	heap_buffer_close(&b);
}

void heap_run(const struct heap_params *p, struct heap_result *res)
{
	double t_start = cli_now_ms();
	int ret;

	memset(res, 0, sizeof(*res));
	ret = cli_machine_start(&p->machine);
	if (ret)
		fail(res, "machine", ret);
	else
		heap_run_here(p, res);
	sim_machine_destroy();
	res->wall_ms_total = cli_now_ms() - t_start;
}

/* 1 if variants a and b allocate alike (size and orders): one buffer serves both. */
static int same_buffer(const struct heap_params *a, const struct heap_params *b)
{
	if (a->size != b->size)
		return 0;
	if (!a->orders || !b->orders)
		return a->orders == b->orders;
	return !strcmp(a->orders, b->orders);
}

/*
 * heap_run_variants' groups: variants allocating alike, each group's
 * buffer allocated once in a forked copy of the machine, then mapped for
 * each of its variants in a forked copy of that.
 */
struct variant_groups {
	const struct heap_params *p;
	unsigned int n;
	unsigned int group[HEAP_MAX_VARIANTS];	/* variant -> its group */
	unsigned int first[HEAP_MAX_VARIANTS];	/* group -> its first variant */
	unsigned int members[HEAP_MAX_VARIANTS];	/* variants of the group at hand */
	struct heap_buffer buf;				/* that group's buffer */
	struct heap_result allocated;			/* the first stage's result */
};

static void map_member(unsigned int k, void *res, void *arg)
{
	struct variant_groups *vg = arg;
	struct heap_result *r = res;

	*r = vg->allocated;
	heap_map_stage(&vg->p[vg->members[k]], &vg->buf, r);
}

/* Group g in a copy of the machine; res: an array of n results (its own filled). */
static void run_group(unsigned int g, void *res, void *arg)
{
	struct variant_groups *vg = arg;
	struct heap_result *all = res, *mine;
	unsigned int nr = 0;
	int status[HEAP_MAX_VARIANTS];

	for (unsigned int i = 0; i < vg->n; i++)
		if (vg->group[i] == g)
			vg->members[nr++] = i;
	memset(&vg->allocated, 0, sizeof(vg->allocated));
	if (heap_alloc_stage(&vg->p[vg->first[g]], &vg->buf, &vg->allocated)) {
		for (unsigned int k = 0; k < nr; k++)
			all[vg->members[k]] = vg->allocated;
		return;	/* the copy ends here: nothing to close */
	}
	mine = calloc(nr, sizeof(*mine));
	if (!mine) {
		for (unsigned int k = 0; k < nr; k++)
			fail(&all[vg->members[k]], "child", -ENOMEM);
		return;
	}
	cli_fork_runs(nr, map_member, vg, mine, sizeof(*mine), status);
	for (unsigned int k = 0; k < nr; k++) {
		all[vg->members[k]] = mine[k];
		if (status[k])
			fail(&all[vg->members[k]], "child", status[k]);
	}
	free(mine);
}

void heap_run_variants(const struct heap_params *p, unsigned int n,
		       struct heap_result *res)
{
	struct variant_groups *vg = calloc(1, sizeof(*vg));
	struct heap_result *per_group = NULL;
	unsigned int groups = 0;
	int status[HEAP_MAX_VARIANTS];
	double t_start = cli_now_ms();

	memset(res, 0, n * sizeof(*res));
	if (vg && n <= HEAP_MAX_VARIANTS) {
		vg->p = p;
		vg->n = n;
		for (unsigned int i = 0; i < n; i++) {
			unsigned int g = 0;

			while (g < groups && !same_buffer(&p[vg->first[g]], &p[i]))
				g++;
			if (g == groups)
				vg->first[groups++] = i;
			vg->group[i] = g;
		}
		per_group = calloc((size_t)groups * n, sizeof(*per_group));
	}
	if (!per_group) {
		for (unsigned int i = 0; i < n; i++)
			fail(&res[i], "machine", -ENOMEM);
		free(vg);
		return;
	}
	cli_machine_fork_runs(&p[0].machine, groups, run_group, vg, per_group,
			      n * sizeof(*per_group), status);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int g = vg->group[i];

		res[i] = per_group[(size_t)g * n + i];
		if (status[g])
			fail(&res[i], status[g] == -ECHILD ? "child" : "machine", status[g]);
		res[i].wall_ms_total = cli_now_ms() - t_start;
	}
	free(per_group);
	free(vg);
}

void heap_result_json(struct json *j, const struct heap_params *p,
		      const struct heap_result *res)
{
	const struct sim_iommu_format *fmt = sim_iommu_format(p->iommu);
	char name[32];

	json_begin_object(j, NULL);
	json_u64(j, "size", p->size);
	json_string(j, "orders", p->orders ? p->orders : "module default");
	json_string(j, "iommu", fmt->name);
	json_string(j, "frag", p->machine.frag_name);
	json_double(j, "frag_level", p->machine.frag);
	json_u64(j, "seed", p->machine.seed);
	json_u64(j, "ram", p->machine.ram);
	/* the heap's orders are in pages of this size */
	json_u64(j, "page_size", SIM_PAGE_SIZE);
	cli_json_params(j);
	if (res->err) {
		json_i64(j, "error", res->err);
		json_string(j, "error_name", strerror(-res->err));
		json_string(j, "failed_step", res->failed_step);
	}

	json_begin_object(j, "chunks");
	for (int o = SIM_NR_ORDERS - 1; o >= 0; o--)
		if (res->layout.chunks_by_order[o]) {
			snprintf(name, sizeof(name), "%d", o);
			json_u64(j, name, res->layout.chunks_by_order[o]);
		}
	json_end_object(j);
	json_u64(j, "sg_entries", res->sg_entries);
	json_u64(j, "dma_segments", res->dma_segments);

	json_begin_object(j, "windows_2m");
	json_u64(j, "total", res->cover.windows_2m);
	json_u64(j, "mappable", res->cover.windows_2m_superpage);
	json_end_object(j);

	json_begin_object(j, "iommu_leaves");
	for (int s = 0; s < 64; s++)
		if (res->cover.leaves_by_shift[s])
			json_u64(j, cli_size_name(1ULL << s, name, sizeof(name)),
				 res->cover.leaves_by_shift[s]);
	json_end_object(j);

	json_begin_object(j, "high_order_attempts");
	for (int o = SIM_NR_ORDERS - 1; o >= 0; o--)
		if (res->high_order_attempts[o]) {
			snprintf(name, sizeof(name), "%d", o);
			json_begin_object(j, name);
			json_u64(j, "tried", res->high_order_attempts[o]);
			json_u64(j, "failed", res->high_order_failures[o]);
			json_end_object(j);
		}
	json_end_object(j);

	cli_json_counters(j, "counts", &res->total);
	json_begin_object(j, "sim_us");
	for (int ph = 0; ph < HEAP_NR_PHASES; ph++)
		json_double(j, heap_phase_names[ph], res->sim_ns[ph] / 1e3);
	json_end_object(j);
	json_begin_object(j, "wall_ms");
	for (int ph = 0; ph < HEAP_NR_PHASES; ph++)
		json_double(j, heap_phase_names[ph], res->wall_ms[ph]);
	json_double(j, "total", res->wall_ms_total);
	json_end_object(j);
	json_bool(j, "leaked", res->leaked);
	json_end_object(j);
}
