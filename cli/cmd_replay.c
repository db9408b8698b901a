// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim replay FILE: replay a VM's DMA-mapping life (guest RAM sections
 * added and removed, GPU BARs enabled and disabled as the guest sizes
 * them) against VFIO type1, before (Linux 6.12's one pfn lookup per page)
 * and after (the leaf stride of 6.15+), and report per phase what it cost.
 *
 * The scenario format (docs/replay.md): one event per line, '#' starts a
 * comment, sizes and addresses take K/M/G/T suffixes or 0x hex.
 *
 *   machine ram=SIZE iommu=FORMAT   the simulated host (before anything else)
 *   container                       open /dev/vfio/vfio (type1v2 is set when
 *                                   the first gpu's group joins)
 *   ram NAME SIZE [page=4k|2m|1g]   guest RAM backing: anonymous memory, of
 *                                   4 KiB pages or 2 MiB THP folios, or
 *                                   hugetlbfs 1 GiB pages (PUD leaves; with
 *                                   16 or 64 KiB pages a PUD is 64 GiB or
 *                                   4 TiB, and so is the page)
 *   gpu NAME bar=SIZE [leaf=pud|pmd|pte]
 *                                   a vfio-pci device in its own group, set
 *                                   up as QEMU does (group fd into the
 *                                   container, device fd, region info) and
 *                                   BAR0 mmapped through the device fd
 *                                   (nothing mapped until a fault; the mmap
 *                                   aligned for leaves up to `leaf`)
 *   phase NAME                      counts from here on go to phase NAME
 *   add NAME IOVA [OFFSET SIZE]     a RAM section added: MAP_DMA of NAME's
 *                                   [OFFSET, +SIZE) (all of it) at IOVA
 *   del IOVA SIZE                   a section removed: UNMAP_DMA
 *   bar-on GPU IOVA                 memory decode on: the BAR's section
 *                                   added (MAP_DMA; type1 faults the zapped
 *                                   mmap back in)
 *   bar-off GPU                     memory decode off: vfio-pci zaps the BAR
 *                                   mmap, QEMU removes the section (UNMAP_DMA);
 *                                   the next bar-on turns decode on first
 *   repeat N ... end                the lines between, N times (nestable)
 *
 * --qemu-trace reads QEMU's own `-trace 'vfio_*'` output instead
 * (replay_qemu.c): the listener's region_add_ram/region_del lines become
 * add/del events.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/kapi_vfio_group.h>
#include <dmasim/sim.h>
#include <dmasim/sim_mm.h>

#include "cli.h"
#include "replay.h"

/* ---- parsing ---- */

static int parse_number(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': mul = 1ULL << 10; end++; break;
	case 'M': mul = 1ULL << 20; end++; break;
	case 'G': mul = 1ULL << 30; end++; break;
	case 'T': mul = 1ULL << 40; end++; break;
	}
	if (*end || (v && v * mul / mul != v))
		return -1;
	*out = v * mul;
	return 0;
}

/* "key=value" word: value if the key matches, else NULL. */
static const char *keyed(const char *word, const char *key)
{
	size_t n = strlen(key);

	return word && !strncmp(word, key, n) && word[n] == '=' ? word + n + 1 : NULL;
}

static struct replay_obj *find_obj(struct replay *r, const char *name)
{
	for (unsigned int i = 0; i < r->nr_objs; i++)
		if (!strcmp(r->objs[i].name, name))
			return &r->objs[i];
	return NULL;
}

static int err_at(struct replay *r, unsigned int line, const char *fmt, const char *what)
{
	snprintf(r->error, sizeof(r->error), "%s:%u: ", r->file, line);
	snprintf(r->error + strlen(r->error), sizeof(r->error) - strlen(r->error),
		 fmt, what);
	return -1;
}

int replay_push_event(struct replay *r, const struct replay_event *e)
{
	/* e may point into r->events (a repeat block): copy it first. */
	const struct replay_event ev = *e;

	if (r->nr_events == r->max_events) {
		unsigned int max = r->max_events ? r->max_events * 2 : 64;
		struct replay_event *n = realloc(r->events, max * sizeof(*n));

		if (!n)
			return err_at(r, ev.line, "%s", "out of memory");
		r->events = n;
		r->max_events = max;
	}
	r->events[r->nr_events++] = ev;
	return 0;
}

static int new_obj(struct replay *r, unsigned int line, const char *name,
		   struct replay_obj **out)
{
	if (find_obj(r, name))
		return err_at(r, line, "'%s' is defined twice", name);
	if (r->nr_objs == REPLAY_MAX_OBJS || strlen(name) >= sizeof(r->objs[0].name))
		return err_at(r, line, "too many objects or name too long: '%s'", name);
	*out = &r->objs[r->nr_objs++];
	memset(*out, 0, sizeof(**out));
	strcpy((*out)->name, name);
	return 0;
}

int replay_add_event(struct replay *r, unsigned int line, char **w, int n)
{
	struct replay_event e = { .line = line };
	struct replay_obj *o;
	const char *v;

	if (!strcmp(w[0], "machine")) {
		if (r->nr_objs || r->nr_events)
			return err_at(r, line, "%s must come first", "machine");
		for (int i = 1; i < n; i++) {
			if ((v = keyed(w[i], "ram"))) {
				if (parse_number(v, &r->ram))
					return err_at(r, line, "bad ram size '%s'", v);
			} else if ((v = keyed(w[i], "iommu"))) {
				r->fmt = sim_iommu_format_lookup(v);
				if (r->fmt < 0)
					return err_at(r, line, "unknown IOMMU format '%s'", v);
			} else {
				return err_at(r, line, "unknown machine setting '%s'", w[i]);
			}
		}
		return 0;
	}
	if (!strcmp(w[0], "container")) {
		if (n != 1 || r->has_container)
			return err_at(r, line, "%s: one, without arguments", "container");
		r->has_container = 1;
		e.kind = REPLAY_CONTAINER;
		return replay_push_event(r, &e);
	}
	if (!strcmp(w[0], "ram") || !strcmp(w[0], "gpu")) {
		int gpu = w[0][0] == 'g';

		if (n < 3 || n > 4)
			return err_at(r, line, "%s NAME SIZE|bar=SIZE [page=|leaf=]", w[0]);
		if (gpu && !r->has_container)
			return err_at(r, line, "gpu '%s' before the container", w[1]);
		if (new_obj(r, line, w[1], &o))
			return -1;
		o->gpu = gpu;
		o->leaf = gpu ? KAPI_MM_LEAF_PUD : KAPI_MM_LEAF_PTE;
		v = gpu ? keyed(w[2], "bar") : w[2];
		if (!v || parse_number(v, &o->size) || !o->size ||
		    o->size % SIM_PAGE_SIZE)
			return err_at(r, line, "bad size '%s'", w[2]);
		if (n == 4) {
			v = keyed(w[3], gpu ? "leaf" : "page");
			if (v && gpu && !strcmp(v, "pmd"))
				o->leaf = KAPI_MM_LEAF_PMD;
			else if (v && gpu && !strcmp(v, "pte"))
				o->leaf = KAPI_MM_LEAF_PTE;
			else if (v && !gpu && !strcasecmp(v, "2m"))
				o->leaf = KAPI_MM_LEAF_PMD;
			else if (v && !gpu && !strcasecmp(v, "1g")) {
				char why[96], pud[32];

				o->leaf = KAPI_MM_LEAF_PUD;
				if (o->size % SIM_PUD_SIZE) {
					snprintf(why, sizeof(why),
						 "page=1g: size '%s' is not a multiple of the %s (PUD) page",
						 w[2], cli_size_name(SIM_PUD_SIZE, pud,
								     sizeof(pud)));
					return err_at(r, line, "%s", why);
				}
			}
			else if (!v || (strcmp(v, "pud") && strcasecmp(v, "4k")))
				return err_at(r, line, "bad page/leaf '%s'", w[3]);
		}
		e.kind = gpu ? REPLAY_GPU : REPLAY_RAM;
		e.obj = (unsigned int)(o - r->objs);
		return replay_push_event(r, &e);
	}
	if (!strcmp(w[0], "phase")) {
		if (n != 2)
			return err_at(r, line, "%s NAME", "phase");
		for (e.phase = 0; e.phase < r->nr_phases; e.phase++)
			if (!strcmp(r->phases[e.phase], w[1]))
				break;
		if (e.phase == r->nr_phases) {
			if (r->nr_phases == REPLAY_MAX_PHASES ||
			    strlen(w[1]) >= sizeof(r->phases[0]))
				return err_at(r, line, "too many phases or name too long: '%s'",
					      w[1]);
			strcpy(r->phases[r->nr_phases++], w[1]);
		}
		e.kind = REPLAY_PHASE;
		return replay_push_event(r, &e);
	}
	if (!strcmp(w[0], "add") || !strcmp(w[0], "bar-on")) {
		int bar = w[0][0] == 'b';

		if (bar ? n != 3 : (n != 3 && n != 5))
			return err_at(r, line, "%s", bar ? "bar-on GPU IOVA" :
				      "add NAME IOVA [OFFSET SIZE]");
		o = find_obj(r, w[1]);
		if (!o || o->gpu != bar)
			return err_at(r, line, bar ? "no gpu '%s'" : "no ram '%s'", w[1]);
		if (parse_number(w[2], &e.iova))
			return err_at(r, line, "bad IOVA '%s'", w[2]);
		e.size = o->size;
		if (n == 5 && (parse_number(w[3], &e.offset) || parse_number(w[4], &e.size) ||
			       !e.size || e.offset > o->size || e.size > o->size - e.offset))
			return err_at(r, line, "section outside '%s'", w[1]);
		e.kind = bar ? REPLAY_BAR_ON : REPLAY_ADD;
		e.obj = (unsigned int)(o - r->objs);
		return replay_push_event(r, &e);
	}
	if (!strcmp(w[0], "del")) {
		if (n != 3 || parse_number(w[1], &e.iova) || parse_number(w[2], &e.size) ||
		    !e.size)
			return err_at(r, line, "%s", "del IOVA SIZE");
		e.kind = REPLAY_DEL;
		return replay_push_event(r, &e);
	}
	if (!strcmp(w[0], "bar-off")) {
		o = n == 2 ? find_obj(r, w[1]) : NULL;
		if (!o || !o->gpu)
			return err_at(r, line, "bar-off GPU: no gpu '%s'", n > 1 ? w[1] : "");
		e.kind = REPLAY_BAR_OFF;
		e.obj = (unsigned int)(o - r->objs);
		return replay_push_event(r, &e);
	}
	return err_at(r, line, "unknown event '%s'", w[0]);
}

/* Split line into blank-separated words (comments cut); their count. */
int replay_words(char *line, char **w, int max)
{
	int n = 0;
	char *hash = strchr(line, '#'), *tok, *save;

	if (hash)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = tok;
	return n;
}

/* Events [from, nr_events) again count - 1 times (a repeat block). */
static int repeat_events(struct replay *r, unsigned int from, unsigned long long count,
			 unsigned int line)
{
	unsigned int len = r->nr_events - from;

	if (count && len && (count - 1) > (REPLAY_MAX_EVENTS - r->nr_events) / len)
		return err_at(r, line, "%s: too many events", "repeat");
	if (!count) {
		r->nr_events = from;
		return 0;
	}
	for (unsigned long long k = 1; k < count; k++)
		for (unsigned int i = 0; i < len; i++)
			if (replay_push_event(r, &r->events[from + i]))
				return -1;
	return 0;
}

int replay_parse_file(struct replay *r, FILE *f)
{
	unsigned int starts[8], nest = 0, lines[8], line = 0;
	unsigned long long counts[8];
	char buf[1024], *w[8];
	int n;

	while (fgets(buf, sizeof(buf), f)) {
		line++;
		n = replay_words(buf, w, 8);
		if (!n)
			continue;
		if (!strcmp(w[0], "repeat")) {
			if (n != 2 || parse_number(w[1], &counts[nest]) || nest == 8)
				return err_at(r, line, "%s N (at most 8 deep)", "repeat");
			starts[nest] = r->nr_events;
			lines[nest++] = line;
			continue;
		}
		if (!strcmp(w[0], "end")) {
			if (!nest)
				return err_at(r, line, "%s without repeat", "end");
			nest--;
			if (repeat_events(r, starts[nest], counts[nest], line))
				return -1;
			continue;
		}
		if (nest && (!strcmp(w[0], "ram") || !strcmp(w[0], "gpu") ||
			     !strcmp(w[0], "container") || !strcmp(w[0], "machine")))
			return err_at(r, line, "'%s' inside a repeat", w[0]);
		if (replay_add_event(r, line, w, n))
			return -1;
	}
	if (nest)
		return err_at(r, lines[nest - 1], "%s without end", "repeat");
	if (!r->has_container)
		return err_at(r, line, "%s", "no container");
	return 0;
}

void replay_init(struct replay *r, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->ram = 16ULL << 30;
	r->fmt = SIM_IOMMU_INTEL_SL;
	strcpy(r->phases[0], "setup");
	r->nr_phases = 1;
}

void replay_fini(struct replay *r)
{
	free(r->events);
	r->events = NULL;
}

/* ---- running ---- */

static void account(struct replay_phase *p, int unmap, const struct sim_counters *t0,
		    double ms)
{
	struct replay_cost *c = unmap ? &p->unmap : &p->map;
	struct sim_counters d;

	sim_counters_delta(t0, &sim_counters, &d);
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		c->counts.c[i] += d.c[i];
	c->ops++;
	c->wall_ms += ms;
}

static int run_error(struct replay *r, const struct replay_event *e, const char *what,
		     long ret)
{
	snprintf(r->error, sizeof(r->error), "%s:%u: %s: %s", r->file, e->line, what,
		 strerror((int)-ret));
	return -1;
}

/*
 * Decode on or off, as the guest's PCI_COMMAND write does: off zaps the
 * BAR mmap (vfio-pci's own zap), on lets it fault back.
 */
static void set_decode(struct replay_obj *o, int on)
{
	if (o->gpu && o->decode_off == on) {
		kapi_vfio_pci_set_memory(o->dev, on);
		o->decode_off = !on;
	}
}

static long do_map(struct replay *r, struct replay_obj *o, const struct replay_event *e,
		   struct replay_phase *p)
{
	struct sim_counters t0;
	double t;
	long ret;

	sim_counters_snapshot(&t0);
	t = cli_now_ms();
	set_decode(o, 1);
	ret = kapi_vfio_fd_map_dma(r->cfd, o->va + e->offset, e->iova, e->size,
				   KAPI_VFIO_DMA_MAP_RW);
	account(p, 0, &t0, cli_now_ms() - t);
	return ret;
}

static long do_unmap(struct replay *r, struct replay_obj *zap, unsigned long long iova,
		     unsigned long long size, struct replay_phase *p)
{
	unsigned long long unmapped = 0;
	struct sim_counters t0;
	double t;
	long ret;

	sim_counters_snapshot(&t0);
	t = cli_now_ms();
	/* Decode off: vfio-pci zaps the mmap, then QEMU's region_del. */
	if (zap)
		set_decode(zap, 0);
	ret = kapi_vfio_fd_unmap_dma(r->cfd, iova, size, &unmapped);
	account(p, 1, &t0, cli_now_ms() - t);
	if (!ret && unmapped != size)
		ret = -ENOENT;
	return ret;
}

static unsigned long long leaf_bytes(int leaf)
{
	return leaf == KAPI_MM_LEAF_PUD ? SIM_PUD_SIZE :
	       leaf == KAPI_MM_LEAF_PMD ? SIM_PMD_SIZE : SIM_PAGE_SIZE;
}

/*
 * A GPU as a VMM sets it up: a vfio-pci device with a 64-bit BAR0 of the
 * GPU's size in a group of its own; the group into the container (the
 * first one also picks the type1v2 backend); the device fd; BAR0's region
 * mmapped at an address aligned for leaves up to o->leaf and no larger
 * (QEMU >= 9.2 aligns a BAR mmap to min(its size, 1 GiB)).
 */
static long make_gpu(struct replay *r, struct replay_obj *o)
{
	struct kapi_vfio_pci_opts opts = {
		.fmt = r->fmt,
		.bar_size = { o->size },
		.bar_flags = { KAPI_VFIO_PCI_BAR_64 },
	};
	struct kapi_vfio_region_info info;
	struct kapi_vfio_mmap m = { .index = 0, .offset = 0, .len = o->size, .shared = 1 };
	unsigned long long leaf = leaf_bytes(o->leaf);
	long ret;

	ret = kapi_vfio_pci_create(&opts, &o->dev);
	if (ret)
		return ret;
	o->gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(o->dev));
	if (o->gfd < 0)
		return o->gfd;
	ret = kapi_vfio_group_set_container(o->gfd, r->cfd);
	if (!ret && !r->iommu_set) {
		ret = kapi_vfio_ioctl_val(r->cfd, KAPI_VFIO_SET_IOMMU,
					  KAPI_VFIO_TYPE1v2_IOMMU);
		r->iommu_set = !ret;
	}
	if (ret)
		return ret;
	o->dfd = kapi_vfio_group_get_device_fd(o->gfd, kapi_vfio_pci_name(o->dev));
	if (o->dfd < 0)
		return o->dfd;
	ret = kapi_vfio_device_get_region_info(o->dfd, 0, KAPI_VFIO_REGION_INFO_ARGSZ,
					       &info);
	if (ret)
		return ret;
	/* QEMU mmaps a region only where the flags say it may. */
	if (!(info.flags & KAPI_VFIO_REGION_INFO_FLAG_MMAP) || info.size < o->size)
		return -EINVAL;
	/* Aligned to the leaf, and off the next larger leaf's alignment. */
	m.align = leaf == SIM_PUD_SIZE ? leaf : leaf == SIM_PMD_SIZE ? SIM_PUD_SIZE :
		  SIM_PMD_SIZE;
	m.misalign = leaf == SIM_PUD_SIZE ? 0 : leaf;
	return kapi_vfio_device_mmap(o->dfd, &m, &o->va);
}

static long make_obj(struct replay *r, struct replay_obj *o)
{
	struct kapi_mm_map m = {
		.len = o->size, .writable = 1, .align = leaf_bytes(o->leaf),
		.populate = 1,		/* a booted guest's RAM is touched */
	};

	o->gfd = o->dfd = -1;
	if (o->gpu)
		return make_gpu(r, o);
	m.kind = o->leaf == KAPI_MM_LEAF_PUD ? KAPI_MM_HUGETLB_1G :
		 o->leaf == KAPI_MM_LEAF_PMD ? KAPI_MM_THP : KAPI_MM_ANON;
	return kapi_mm_mmap(&m, &o->va);
}

/* Each event in order; the costs of MAP_DMA/UNMAP_DMA per phase. */
static int run_events(struct replay *r, struct replay_run *run)
{
	struct replay_phase *p = &run->phases[0];
	struct sim_counters t0;
	long ret = 0;

	for (unsigned int i = 0; i < r->nr_events; i++) {
		const struct replay_event *e = &r->events[i];
		struct replay_obj *o = &r->objs[e->obj];

		switch (e->kind) {
		case REPLAY_CONTAINER:
			r->cfd = kapi_vfio_container_fd_open();
			if (r->cfd < 0)
				return run_error(r, e, "opening /dev/vfio/vfio", r->cfd);
			break;
		case REPLAY_RAM:
		case REPLAY_GPU:
			sim_counters_snapshot(&t0);
			ret = make_obj(r, o);
			sim_counters_delta(&t0, &sim_counters, &t0);
			for (int k = 0; k < SIM_NR_COUNTERS; k++)
				p->setup.c[k] += t0.c[k];
			if (ret)
				return run_error(r, e, o->name, ret);
			break;
		case REPLAY_PHASE:
			p = &run->phases[e->phase];
			break;
		case REPLAY_ADD:
		case REPLAY_BAR_ON:
			if (!r->iommu_set) {
				snprintf(r->error, sizeof(r->error),
					 "%s:%u: MAP_DMA before any gpu: the container "
					 "has no IOMMU backend", r->file, e->line);
				return -1;
			}
			ret = do_map(r, o, e, p);
			if (ret)
				return run_error(r, e, "VFIO_IOMMU_MAP_DMA", ret);
			if (e->kind == REPLAY_BAR_ON)
				o->iova = e->iova, o->mapped = 1;
			break;
		case REPLAY_DEL:
			ret = do_unmap(r, e->zap ? o : NULL, e->iova, e->size, p);
			if (ret)
				return run_error(r, e, "VFIO_IOMMU_UNMAP_DMA", ret);
			break;
		case REPLAY_BAR_OFF:
			if (!o->mapped) {
				snprintf(r->error, sizeof(r->error),
					 "%s:%u: bar-off %s: its BAR is not on", r->file,
					 e->line, o->name);
				return -1;
			}
			ret = do_unmap(r, o, o->iova, o->size, p);
			if (ret)
				return run_error(r, e, "VFIO_IOMMU_UNMAP_DMA", ret);
			o->mapped = 0;
			break;
		}
	}
	return 0;
}

/*
 * The VMM exits: device, group and container fds closed, then its mm; the
 * devices' fault and zap counts kept in run.
 */
static void vmm_exit(struct replay *r, struct replay_run *run)
{
	for (unsigned int i = 0; i < r->nr_objs; i++) {
		struct replay_obj *o = &r->objs[i];

		if (o->dev)
			kapi_vfio_pci_stats(o->dev, &run->dev[i]);
		if (o->dfd >= 0)
			kapi_close(o->dfd);
		if (o->gfd >= 0)
			kapi_close(o->gfd);
	}
	if (r->cfd >= 0)
		kapi_close(r->cfd);
	kapi_proc_destroy(kapi_proc_current());
	for (unsigned int i = 0; i < r->nr_objs; i++) {
		if (r->objs[i].dev)
			kapi_vfio_pci_destroy(r->objs[i].dev);
		r->objs[i].dev = NULL;
	}
}

int replay_run(struct replay *r, int legacy_mask, struct replay_run *run)
{
	struct sim_config cfg = { .ram_bytes = r->ram };
	int ret;

	memset(run, 0, sizeof(*run));
	for (unsigned int i = 0; i < r->nr_objs; i++) {
		struct replay_obj *o = &r->objs[i];

		o->va = 0;
		o->mapped = o->decode_off = 0;
		o->dev = NULL;
		o->gfd = o->dfd = -1;
	}
	r->cfd = -1;
	r->iommu_set = 0;
	if (sim_machine_init(&cfg) || kapi_boot() || !kapi_proc_create()) {
		snprintf(r->error, sizeof(r->error), "%s: machine setup failed", r->file);
		return -1;
	}
	/* A VMM runs with its guest's memory lockable (libvirt sets it so). */
	kapi_mm_set_rlimit_memlock(~0ULL);
	sim_mm_set_legacy_addr_mask(legacy_mask);
	ret = run_events(r, run);
	sim_mm_set_legacy_addr_mask(0);
	vmm_exit(r, run);
	sim_machine_destroy();
	return ret;
}

/* ---- the command ---- */

struct replay_opts {
	const char *file;
	int mode;
	int qemu_trace;
	int json;
};

enum { MODE_BOTH, MODE_BEFORE, MODE_AFTER };
static const char *const mode_names[] = { "both", "before", "after", NULL };

static const struct cli_opt replay_options[] = {
	CLI_OPT_ENUM(struct replay_opts, mode, "mode", "both", mode_names, NULL,
		     "before: Linux 6.12's pfn lookup per page; after: the leaf "
		     "stride of 6.15+; both"),
	CLI_OPT_FLAG(struct replay_opts, qemu_trace, "qemu-trace",
		     "FILE is QEMU -trace 'vfio_*' output, not a scenario"),
	CLI_OPT_FLAG(struct replay_opts, json, "json", "one JSON object instead of tables"),
	CLI_OPT_END,
};

/* The counters the table shows (every counter is in the JSON). */
static const enum sim_counter shown[] = {
	SIM_CNT_PFN_LOOKUP, SIM_CNT_GUP_CALL, SIM_CNT_FAULT, SIM_CNT_IOMMU_WALK,
	SIM_CNT_PFN_VALID, SIM_CNT_UNPIN_PAGE,
};

static void cost_add(struct replay_cost *to, const struct replay_cost *c)
{
	to->ops += c->ops;
	to->wall_ms += c->wall_ms;
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		to->counts.c[i] += c->counts.c[i];
}

static void json_cost(struct json *j, const char *key, const struct replay_cost *c)
{
	json_begin_object(j, key);
	json_u64(j, "ops", c->ops);
	json_double(j, "sim_us", sim_cost_ns(&c->counts) / 1e3);
	json_double(j, "wall_ms", c->wall_ms);
	cli_json_counters(j, "counts", &c->counts);
	json_end_object(j);
}

static void row(const char *name, const struct replay_cost *m, const struct replay_cost *u)
{
	printf("  %-14s %6llu %6llu", name, m->ops, u->ops);
	for (unsigned int k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		printf(" %14llu", m->counts.c[shown[k]] + u->counts.c[shown[k]]);
	printf(" %12.3f %12.3f %10.1f %10.1f\n", sim_cost_ns(&m->counts) / 1e6,
	       sim_cost_ns(&u->counts) / 1e6, m->wall_ms, u->wall_ms);
}

/* Each GPU's vfio-pci device: the BAR faults by leaf size, the zaps. */
static void print_devices(const struct replay *r, const struct replay_run *run,
			  struct json *j)
{
	for (unsigned int i = 0; i < r->nr_objs; i++) {
		const struct kapi_vfio_pci_stats *d = &run->dev[i];

		if (!r->objs[i].gpu)
			continue;
		if (!j) {
			printf("  %-14s BAR %llu MiB: %lu PUD, %lu PMD, %lu PTE faults, %lu zaps\n",
			       r->objs[i].name, r->objs[i].size >> 20, d->faults_pud,
			       d->faults_pmd, d->faults_pte, d->zaps);
			continue;
		}
		json_begin_object(j, NULL);
		json_string(j, "name", r->objs[i].name);
		json_u64(j, "bar_size", r->objs[i].size);
		json_u64(j, "faults_pud", d->faults_pud);
		json_u64(j, "faults_pmd", d->faults_pmd);
		json_u64(j, "faults_pte", d->faults_pte);
		json_u64(j, "fallbacks", d->fallbacks);
		json_u64(j, "sigbus", d->sigbus);
		json_u64(j, "zaps", d->zaps);
		json_end_object(j);
	}
}

static void print_run(const struct replay *r, const char *mode, const struct replay_run *run,
		      struct json *j)
{
	struct replay_cost tm = { 0 }, tu = { 0 };

	if (j) {
		json_begin_object(j, NULL);
		json_string(j, "mode", mode);
		json_bool(j, "addr_mask", strcmp(mode, "before") != 0);
		json_begin_array(j, "phases");
	} else {
		printf("%s (%s)\n", mode, strcmp(mode, "before") ?
		       "follow_pfnmap addr_mask: a lookup per leaf, 6.15+" :
		       "no addr_mask: a pfn lookup per page, Linux 6.12");
		printf("  %-14s %6s %6s", "phase", "maps", "unmaps");
		for (unsigned int k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			printf(" %14s", sim_counter_name(shown[k]));
		printf(" %12s %12s %10s %10s\n", "sim_ms_map", "sim_ms_unmap", "wall_map",
		       "wall_unmap");
	}
	for (unsigned int i = 0; i < r->nr_phases; i++) {
		const struct replay_phase *p = &run->phases[i];

		cost_add(&tm, &p->map);
		cost_add(&tu, &p->unmap);
		if (j) {
			json_begin_object(j, NULL);
			json_string(j, "name", r->phases[i]);
			json_cost(j, "map", &p->map);
			json_cost(j, "unmap", &p->unmap);
			json_end_object(j);
		} else {
			row(r->phases[i], &p->map, &p->unmap);
		}
	}
	if (j) {
		json_end_array(j);
		json_begin_object(j, "total");
		json_cost(j, "map", &tm);
		json_cost(j, "unmap", &tu);
		json_end_object(j);
		json_begin_array(j, "devices");
	} else {
		row("total", &tm, &tu);
	}
	print_devices(r, run, j);
	if (j) {
		json_end_array(j);
		json_end_object(j);
	}
}

static int replay_main(void *opts)
{
	const struct replay_opts *o = opts;
	static struct replay r;
	static struct replay_run run;
	const char *modes[2];
	unsigned int nr_modes = 0;
	struct json j;
	FILE *f;
	int ret;

	replay_init(&r, o->file);
	f = fopen(o->file, "r");
	if (!f) {
		fprintf(stderr, "dmasim replay: %s: %s\n", o->file, strerror(errno));
		return 1;
	}
	ret = o->qemu_trace ? replay_import_qemu(&r, f) : replay_parse_file(&r, f);
	fclose(f);
	if (ret) {
		fprintf(stderr, "dmasim replay: %s\n", r.error);
		replay_fini(&r);
		return 1;
	}
	if (o->mode != MODE_AFTER)
		modes[nr_modes++] = "before";
	if (o->mode != MODE_BEFORE)
		modes[nr_modes++] = "after";

	if (o->json) {
		json_init(&j, stdout);
		json_begin_object(&j, NULL);
		json_string(&j, "scenario", o->file);
		json_u64(&j, "events", r.nr_events);
		json_string(&j, "iommu", sim_iommu_format(r.fmt)->name);
		/* per-page counts and the leaf sizes follow from it */
		json_u64(&j, "page_size", SIM_PAGE_SIZE);
		cli_json_params(&j);
		json_begin_array(&j, "runs");
	} else {
		printf("replay %s: %u events, %u phases, %s IOMMU\n", o->file, r.nr_events,
		       r.nr_phases, sim_iommu_format(r.fmt)->name);
		cli_print_params();
	}
	for (unsigned int m = 0; m < nr_modes; m++) {
		ret = replay_run(&r, !strcmp(modes[m], "before"), &run);
		if (ret) {
			fprintf(stderr, "dmasim replay: %s\n", r.error);
			replay_fini(&r);
			return 1;
		}
		print_run(&r, modes[m], &run, o->json ? &j : NULL);
	}
	if (o->json) {
		json_end_array(&j);
		json_end_object(&j);
		json_finish(&j);
	}
	replay_fini(&r);
	return 0;
}

const struct cli_command cli_cmd_replay = {
	.name = "replay",
	.summary = "replay a VM's DMA mappings (scenario file or QEMU trace), before and after",
	.about = "Replay a VM's life against VFIO type1: guest RAM sections added and\n"
		 "removed, GPU BARs toggled by the guest's BAR sizing (docs/replay.md).\n"
		 "Prints per phase the MAP_DMA/UNMAP_DMA counts, modelled and wall times.",
	.opts = replay_options,
	.opts_size = sizeof(struct replay_opts),
	.run = replay_main,
	.kernel = 1,
	.arg_name = "FILE",
	.arg_off = offsetof(struct replay_opts, file),
};
