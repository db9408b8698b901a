// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's vfio trace as a replay (dmasim replay --qemu-trace FILE).
 *
 * Input: what `qemu-system-x86_64 -trace 'vfio_*'` prints with the log
 * backend, one "<event> <message>" per line, optionally behind a
 * "<tid>@<sec>.<usec>:" or an ISO-8601 timestamp; the formats are those of
 * QEMU's hw/vfio/trace-events.  Used:
 *   vfio_region_setup  Device %s, region %d "%s", flags: 0x%lx, offset: 0x%lx, size: 0x%lx
 *       a region with VFIO_REGION_INFO_FLAG_MMAP (0x4) of index 0..5 is an
 *       mmapped BAR of that size
 *   vfio_listener_region_add_ram  region_add [ram] 0x%x - 0x%x [%p]
 *       MAP_DMA(iova, end - iova + 1, vaddr)
 *   vfio_listener_region_add_no_dma_map  Region "%s" 0x%x size=0x%x is not aligned ...
 *       QEMU did not map the section just traced
 *   vfio_listener_region_del  region_del 0x%x - 0x%x
 *       UNMAP_DMA of a section mapped before (others QEMU skipped too)
 * Everything else is ignored.
 *
 * The trace gives host addresses but not what backs them: host ranges
 * reached by region_add_ram are merged where they overlap or touch, and a
 * range is a BAR when an mmapped BAR region is at least its size and at
 * most twice it (the MSI-X table can cut a BAR into pieces), the smallest
 * such region first, each region used once; every other range is guest
 * RAM (THP-backed when 2 MiB aligned in size).  Removing a BAR section
 * zaps its host mmap too, as the guest's decode-off write that caused it
 * did.  Everything lands in one phase, "trace".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/kapi_mm.h>

#include "replay.h"

struct trace_rec {
	int add;			/* else del */
	unsigned int line;
	unsigned long long iova, size, vaddr;
};

struct host_range {
	unsigned long long start, end;	/* [start, end) of host vaddr */
	int obj;
};

struct bar_region {
	unsigned long long size;
	char name[64];
	int used;
};

static int cmp_range(const void *a, const void *b)
{
	const struct host_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int fail(struct replay *r, unsigned int line, const char *what)
{
	snprintf(r->error, sizeof(r->error), "%s:%u: %s", r->file, line, what);
	return -1;
}

/* The event's message after its name, or NULL if this line is not name. */
static const char *event_msg(const char *line, const char *name)
{
	const char *p = strstr(line, name);
	size_t n = strlen(name);

	if (!p || (p[n] != ' ' && p[n] != '\0'))
		return NULL;
	return p + n;
}

static int push(struct trace_rec **recs, unsigned int *nr, unsigned int *max,
		const struct trace_rec *t)
{
	if (*nr == *max) {
		unsigned int m = *max ? *max * 2 : 64;
		struct trace_rec *n = realloc(*recs, m * sizeof(*n));

		if (!n)
			return -1;
		*recs = n;
		*max = m;
	}
	(*recs)[(*nr)++] = *t;
	return 0;
}

static int read_trace(struct replay *r, FILE *f, struct trace_rec **recs,
		      unsigned int *nr, struct bar_region *bars, unsigned int *nr_bars)
{
	unsigned int max = 0, line = 0;
	char buf[1024];
	const char *m;

	while (fgets(buf, sizeof(buf), f)) {
		struct trace_rec t = { .line = ++line };
		unsigned long long a, b, c, flags, off, size;
		char dev[64], name[64];
		int index;

		if ((m = event_msg(buf, "vfio_listener_region_add_ram"))) {
			if (sscanf(m, " region_add [ram] %llx - %llx [%llx]", &a, &b, &c) != 3 ||
			    b < a)
				return fail(r, line, "region_add_ram: cannot read it");
			t.add = 1;
			t.iova = a;
			t.size = b - a + 1;
			t.vaddr = c;
			if (push(recs, nr, &max, &t))
				return fail(r, line, "out of memory");
		} else if ((m = event_msg(buf, "vfio_listener_region_add_no_dma_map"))) {
			/* The add just traced was not mapped. */
			if (!*nr || !(*recs)[*nr - 1].add)
				return fail(r, line, "add_no_dma_map after no region_add_ram");
			(*nr)--;
		} else if ((m = event_msg(buf, "vfio_listener_region_del"))) {
			if (sscanf(m, " region_del %llx - %llx", &a, &b) != 2 || b < a)
				return fail(r, line, "region_del: cannot read it");
			t.iova = a;
			t.size = b - a + 1;
			if (push(recs, nr, &max, &t))
				return fail(r, line, "out of memory");
		} else if ((m = event_msg(buf, "vfio_region_setup"))) {
			if (sscanf(m, " Device %63[^,], region %d \"%63[^\"]\", flags: %llx, "
				   "offset: %llx, size: %llx", dev, &index, name, &flags,
				   &off, &size) != 6)
				return fail(r, line, "vfio_region_setup: cannot read it");
			if (index <= 5 && (flags & 0x4) && size && *nr_bars < REPLAY_MAX_OBJS) {
				bars[*nr_bars].size = size;
				snprintf(bars[*nr_bars].name, sizeof(bars[0].name), "%s", name);
				bars[(*nr_bars)++].used = 0;
			}
		}
	}
	return 0;
}

/* Host ranges from the adds, merged; each made a RAM or GPU object. */
static int make_objects(struct replay *r, const struct trace_rec *recs, unsigned int nr,
			struct host_range **out, unsigned int *nr_out,
			struct bar_region *bars, unsigned int nr_bars)
{
	struct host_range *h = calloc(nr ? nr : 1, sizeof(*h));
	unsigned long long ram = 0;
	unsigned int n = 0;

	if (!h)
		return fail(r, 0, "out of memory");
	for (unsigned int i = 0; i < nr; i++)
		if (recs[i].add)
			h[n++] = (struct host_range){ recs[i].vaddr,
						      recs[i].vaddr + recs[i].size, -1 };
	qsort(h, n, sizeof(*h), cmp_range);
	{
		unsigned int k = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (k && h[i].start <= h[k - 1].end) {
				if (h[i].end > h[k - 1].end)
					h[k - 1].end = h[i].end;
			} else {
				h[k++] = h[i];
			}
		}
		n = k;
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned long long span = h[i].end - h[i].start;
		struct replay_obj *o;
		int best = -1;

		if (r->nr_objs == REPLAY_MAX_OBJS) {
			free(h);
			return fail(r, 0, "more host ranges than the replay holds");
		}
		for (unsigned int b = 0; b < nr_bars; b++)
			if (!bars[b].used && bars[b].size >= span && bars[b].size / 2 < span &&
			    (best < 0 || bars[b].size < bars[best].size))
				best = (int)b;
		o = &r->objs[r->nr_objs];
		memset(o, 0, sizeof(*o));
		if ((h[i].start | span) & (SIM_PAGE_SIZE - 1)) {
			free(h);
			return fail(r, 0, "a host range is not page aligned");
		}
		if (best >= 0) {
			bars[best].used = 1;
			o->gpu = 1;
			o->size = bars[best].size;
			o->leaf = KAPI_MM_LEAF_PUD;
			snprintf(o->name, sizeof(o->name), "bar%u", r->nr_objs);
		} else {
			o->size = span;
			o->leaf = span % SIM_PMD_SIZE ? KAPI_MM_LEAF_PTE : KAPI_MM_LEAF_PMD;
			ram += span;
			snprintf(o->name, sizeof(o->name), "ram%u", r->nr_objs);
		}
		h[i].obj = (int)r->nr_objs++;
	}
	/* Host RAM for the guest's and the kernel's own, at least 16 GiB. */
	if (ram + (4ULL << 30) > r->ram)
		r->ram = ram + (4ULL << 30);
	*out = h;
	*nr_out = n;
	return 0;
}

static const struct host_range *range_of(const struct host_range *h, unsigned int n,
					 unsigned long long vaddr)
{
	for (unsigned int i = 0; i < n; i++)
		if (vaddr >= h[i].start && vaddr < h[i].end)
			return &h[i];
	return NULL;
}

int replay_import_qemu(struct replay *r, FILE *f)
{
	struct bar_region bars[REPLAY_MAX_OBJS];
	struct trace_rec *recs = NULL;
	struct host_range *h = NULL;
	unsigned int nr = 0, nr_bars = 0, nr_h = 0;
	char *words[2] = { "container", NULL };
	char phase[] = "phase", trace[] = "trace";
	char *pw[2] = { phase, trace };
	int ret = -1;

	if (read_trace(r, f, &recs, &nr, bars, &nr_bars) ||
	    make_objects(r, recs, nr, &h, &nr_h, bars, nr_bars))
		goto out;
	if (!nr) {
		fail(r, 0, "no vfio_listener_region_add_ram line");
		goto out;
	}
	if (replay_add_event(r, 0, words, 1))
		goto out;
	r->has_container = 1;
	for (unsigned int i = 0; i < r->nr_objs; i++) {
		struct replay_event e = {
			.kind = r->objs[i].gpu ? REPLAY_GPU : REPLAY_RAM, .obj = i,
		};

		if (replay_push_event(r, &e))
			goto out;
	}
	if (replay_add_event(r, 0, pw, 2))
		goto out;
	for (unsigned int i = 0; i < nr; i++) {
		const struct trace_rec *t = &recs[i];
		struct replay_event e = { .line = t->line, .iova = t->iova, .size = t->size };

		if (t->add) {
			const struct host_range *hr = range_of(h, nr_h, t->vaddr);

			e.kind = REPLAY_ADD;
			e.obj = (unsigned int)hr->obj;
			e.offset = t->vaddr - hr->start;
		} else {
			/* Only a section mapped before (and still mapped) goes. */
			int found = -1;

			for (unsigned int k = i; k-- > 0;)
				if (recs[k].iova == t->iova && recs[k].size == t->size) {
					found = recs[k].add ? (int)k : -1;
					break;
				}
			if (found < 0)
				continue;
			e.kind = REPLAY_DEL;
			e.obj = (unsigned int)range_of(h, nr_h, recs[found].vaddr)->obj;
			e.offset = recs[found].vaddr - range_of(h, nr_h, recs[found].vaddr)->start;
			e.zap = r->objs[e.obj].gpu;
		}
		if (replay_push_event(r, &e))
			goto out;
	}
	ret = 0;
out:
	free(recs);
	free(h);
	return ret;
}
