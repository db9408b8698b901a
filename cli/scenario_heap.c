// SPDX-License-Identifier: GPL-2.0-only
/* The dma-buf heap scenario (see scenario_heap.h). */
#include <errno.h>
#include <stdio.h>
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

void heap_run_here(const struct heap_params *p, struct heap_result *res)
{
	struct kapi_dev *dev = NULL;
	struct kapi_attach *attach = NULL;
	struct phase_clock clk;
	unsigned long allocated_before;
	unsigned long long kmem_before;
	int heap_fd = -1, buf_fd = -1, ret;

	sim_counters_reset();
	if (p->orders) {
		ret = kapi_param_set("system_heap.orders", p->orders);
		if (ret) {
			fail(res, "orders", ret);
			goto out;
		}
	}
	/* A GPU-like importer: no segment-size limit on its DMA segments. */
	ret = kapi_dev_create(p->iommu, 0xffffffffu, &dev);
	if (ret) {
		fail(res, "device", ret);
		goto out;
	}
	heap_fd = kapi_heap_open("system");
	if (heap_fd < 0) {
		fail(res, "open", heap_fd);
		goto out;
	}
	allocated_before = sim_buddy_nr_allocated();
	res->free_pages = sim_buddy_nr_free();
	res->ram_pages = sim_ram_bytes() >> SIM_PAGE_SHIFT;
	kmem_before = sim_kmalloc_outstanding();
	sim_buddy_reset_order_stats();

	phase_start(&clk);
	buf_fd = kapi_heap_alloc(heap_fd, p->size, KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);
	phase_end(&clk, res, HEAP_ALLOC);
	for (int o = 0; o < SIM_NR_ORDERS; o++) {
		res->high_order_attempts[o] = sim_buddy_order_attempts(o);
		res->high_order_failures[o] = sim_buddy_order_failures(o);
	}
	if (buf_fd < 0) {
		fail(res, "alloc", buf_fd);
		goto out;
	}

	ret = kapi_dmabuf_layout(buf_fd, &res->layout);
	if (ret) {
		fail(res, "layout", ret);
		goto out;
	}
	ret = kapi_dmabuf_attach(buf_fd, dev, &attach);
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
	ret = kapi_close(buf_fd);
	buf_fd = -1;
	phase_end(&clk, res, HEAP_FREE);
	if (ret) {
		fail(res, "close", ret);
		goto out;
	}
	/*
	 * Reclaim may have freed pages the ageing workload held, so the free
	 * count is no measure here; pages handed out by anyone else are.
	 */
	res->leaked = sim_buddy_nr_allocated() != allocated_before ||
		      sim_kmalloc_outstanding() != kmem_before;
out:
	if (attach)
		kapi_dmabuf_detach(attach);
	if (buf_fd >= 0)
		kapi_close(buf_fd);
	if (heap_fd >= 0)
		kapi_close(heap_fd);
	if (dev)
		kapi_dev_destroy(dev);
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

static void heap_variant(unsigned int i, void *res, void *arg)
{
	const struct heap_params *p = arg;

	heap_run_here(&p[i], res);
}

void heap_run_variants(const struct heap_params *p, unsigned int n,
		       struct heap_result *res)
{
	int status[n];
	double t_start = cli_now_ms();

	memset(res, 0, n * sizeof(*res));
	cli_machine_fork_runs(&p[0].machine, n, heap_variant, (void *)p, res,
			      sizeof(*res), status);
	for (unsigned int i = 0; i < n; i++) {
		if (status[i])
			fail(&res[i], status[i] == -ECHILD ? "child" : "machine", status[i]);
		res[i].wall_ms_total = cli_now_ms() - t_start;
	}
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
