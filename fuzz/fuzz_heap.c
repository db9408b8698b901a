// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_heap: the DMA-BUF system heap (core/drivers/dma-buf/heaps/, or a
 * kernel tree's in upstream mode), the dma-buf core and the DMA layer,
 * reached as userspace and importers reach them (kapi_heap.h).
 *
 * Each input: an order set for the heap ("system_heap.orders", the
 * project's heap only; sometimes an invalid one), a machine aged by the
 * input (up to 24 blocks of random orders taken from the buddy allocator,
 * some given back, the rest held until the end, so the free lists are
 * fragmented as the input says), then up to 16 steps in any order:
 * allocate (random length, fd flags, heap flags), attach to one of three
 * importers (behind an Intel or AMD v1 IOMMU, or dma-direct, with a DMA
 * segment limit or not), map, unmap, detach, vmap/vunmap, CPU access
 * begin/end, sync, close.
 *
 * Invariants after each step:
 * - a buffer is exactly its page-rounded length, in blocks whose orders
 *   are in the order set, largest first (never a larger block after a
 *   smaller one);
 * - a refused allocation leaves nothing behind (free pages, fds, files);
 * - a mapped attachment's DMA segments cover the buffer in order: through
 *   an IOMMU, the first and last byte of every segment translate to the
 *   buffer's bytes at that offset; through dma-direct, a segment is its
 *   page's physical address;
 * - a vmap is the buffer: a byte written through it is at the page the
 *   scatterlist names;
 * - at the end, everything is given back: free pages, kernel objects, fds,
 *   files, vmaps, and every importer's IOMMU domain is empty.
 *
 * Differential trace (DMASIM_FUZZ_VERBOSE=1, tools/fuzz-differential.sh):
 * every step logs what it returned (errnos, fds, bytes), and what depends
 * on the buffers' block layout on lines starting "~ ": the chunks by
 * order, the DMA segment count, the IOMMU leaves by size and the free page
 * count while buffers are held.  The free page count at the end is not
 * marked: it must be the start's in every implementation.  The order set
 * is logged as "orders LIST".  DMASIM_FUZZ_HEAP_ORDERS=LIST makes the
 * project's heap use LIST whatever the input says (the input's bytes are
 * still consumed), so its trace can be compared with a kernel tree's,
 * whose orders are fixed (8,4,0; DMASIM_IMPL_HEAP_ORDERS_PARAM false).
 *
 * The machine is built once per process; after each input the buddy
 * allocator is rewound to its state after boot (sim_buddy_rewind), so the
 * ageing starts from the same free lists and an input does the same
 * whatever ran before it (replay --order-check).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/sim.h>

#include "fuzz_common.h"

#define PMD_PAGES	(SIM_PMD_SIZE / SIM_PAGE_SIZE)
#define MAX_STEPS	16
#define MAX_BUFS	4
#define MAX_ATTACH	6
#define MAX_AGED	24
#define NR_DEVS		3

struct buf {
	int fd;
	unsigned long long bytes;
	void *vaddr;		/* vmapped */
	int cpu_access;		/* begin_cpu_access without end */
};

struct attach {
	struct kapi_attach *a;
	int buf;		/* index into bufs */
	int dev;
	int mapped;
};

static struct kapi_dev *devs[NR_DEVS];
static int heap_fd = -1;
static int booted;

static struct buf bufs[MAX_BUFS];
static unsigned int nr_bufs;
static struct attach atts[MAX_ATTACH];
static unsigned int nr_atts;
static int orders_ok;			/* the order set is valid */
static unsigned int order_mask;		/* orders the heap may use */

static void boot_once(void)
{
	if (booted)
		return;
	fuzz_boot_machine(1);
	heap_fd = kapi_heap_open("system");
	FUZZ_CHECK(heap_fd >= 0, "heap open: %d", heap_fd);
	FUZZ_CHECK(kapi_dev_create(SIM_IOMMU_INTEL_SL, 0, &devs[0]) == 0, "dev");
	FUZZ_CHECK(kapi_dev_create(SIM_IOMMU_AMD_V1, 64 << 10, &devs[1]) == 0,
		   "dev");
	FUZZ_CHECK(kapi_dev_create(KAPI_DEV_NO_IOMMU, 0, &devs[2]) == 0, "dev");
	/* The state every input starts from (sim_buddy_rewind() after each). */
	FUZZ_CHECK(sim_buddy_checkpoint() == 0, "checkpoint");
	booted = 1;
}

/* ---- the order set ------------------------------------------------------ */

/* The orders of a kernel tree's heap (DMASIM_IMPL_HEAP_ORDERS_PARAM false). */
#define KERNEL_HEAP_ORDERS	"8,4,0"

static unsigned int order_mask_of(const char *list)
{
	unsigned int mask = 0;

	for (const char *c = list; *c;) {
		mask |= 1u << strtoul(c, (char **)&c, 10);
		if (*c == ',')
			c++;
	}
	return mask;
}

static void choose_orders(struct fuzz_input *in)
{
	const char *forced = getenv("DMASIM_FUZZ_HEAP_ORDERS");
	static const char *const presets[] = {
		"9,8,4,0", "8,4,0", "9,0", "10,9,4,0", "4,0", "0", "9,4",
		"4,8,0",	/* not descending: every allocation -EINVAL */
	};
	unsigned int how = fuzz_u16(in);
	char list[64] = "";

	if (!DMASIM_IMPL_HEAP_ORDERS_PARAM) {
		/* A kernel tree's heap: its fixed {8, 4, 0}. */
		orders_ok = 1;
		order_mask = order_mask_of(KERNEL_HEAP_ORDERS);
		FUZZ_LOG("orders " KERNEL_HEAP_ORDERS);
		return;
	}
	if (forced && *forced) {
		/* For a differential run: the input's choice is ignored. */
		FUZZ_CHECK(kapi_param_set("system_heap.orders", forced) == 0,
			   "DMASIM_FUZZ_HEAP_ORDERS=\"%s\" not taken", forced);
		orders_ok = 1;
		order_mask = order_mask_of(forced);
		FUZZ_LOG("orders %s", forced);
		return;
	}
	if (how & 0x8000) {
		/* Any descending set of orders 0..10. */
		unsigned int mask = how & 0x7ff;

		for (int o = 10; o >= 0; o--)
			if (mask & (1u << o))
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list), "%s%d",
					 *list ? "," : "", o);
		if (!mask) {
			/* An empty list is refused and changes nothing. */
			FUZZ_CHECK(kapi_param_set("system_heap.orders", "") == -EINVAL,
				   "empty orders list accepted");
			mask = 1u << 9 | 1u << 8 | 1u << 4 | 1u << 0;
			strcpy(list, "9,8,4,0");
		}
		orders_ok = 1;
		order_mask = mask;
	} else {
		unsigned int p = how % 8;

		strcpy(list, presets[p]);
		orders_ok = p != 7;
		order_mask = order_mask_of(list);
	}
	/* The parameter takes any list; the heap checks it on allocation. */
	FUZZ_CHECK(kapi_param_set("system_heap.orders", list) == 0,
		   "orders \"%s\" not taken", list);
	FUZZ_LOG("orders %s%s", list, orders_ok ? "" : " (invalid)");
}

/* ---- ageing by the input ------------------------------------------------ */

static struct {
	struct sim_page *page;
	unsigned int order;
} aged[MAX_AGED];
static unsigned int nr_aged;

static void age_by_input(struct fuzz_input *in)
{
	unsigned int n = fuzz_u8(in) % (MAX_AGED + 1);
	unsigned int give_back = fuzz_u32(in);

	nr_aged = 0;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int b = fuzz_u8(in);
		unsigned int order = b % (SIM_MAX_ORDER + 1);
		unsigned int gfp = (b & 0x80) ? SIM_GFP_MOVABLE : 0;
		struct sim_page *p = sim_buddy_alloc(order, gfp);

		if (!p)
			continue;
		if (give_back & (1u << i)) {
			sim_buddy_free(p, order);
			continue;
		}
		aged[nr_aged].page = p;
		aged[nr_aged].order = order;
		nr_aged++;
	}
	if (give_back & 0x80000000u)
		sim_buddy_drain_pcp();
	FUZZ_LOG("aged: %u blocks held, %lu pages free", nr_aged,
		 sim_buddy_nr_free());
}

static void release_aged(void)
{
	for (unsigned int i = 0; i < nr_aged; i++)
		sim_buddy_free(aged[i].page, aged[i].order);
	nr_aged = 0;
}

/* ---- invariants ----------------------------------------------------------- */

/*
 * The byte at offset off of a mapped attachment's buffer, as a phys.  A
 * cursor over the scatterlist's entries: offsets asked in ascending order
 * (a walk over the DMA segments) cost one pass over the entries in all,
 * not one pass per offset.
 */
struct buf_cursor {
	const struct kapi_attach *a;
	unsigned int i, n;		/* the entry e is entry i of n */
	unsigned long long start;	/* buffer offset of entry i */
	struct kapi_sg_entry e;
};

static void buf_cursor_init(struct buf_cursor *c, const struct kapi_attach *a)
{
	c->a = a;
	c->i = 0;
	c->n = kapi_attach_nr_entries(a);
	c->start = 0;
	FUZZ_CHECK(c->n && kapi_attach_sg_entry(a, 0, &c->e) == 0, "entry 0");
}

static sim_phys_t buf_cursor_phys(struct buf_cursor *c, unsigned long long off)
{
	if (off < c->start) {		/* backwards: start over */
		c->i = 0;
		c->start = 0;
		FUZZ_CHECK(kapi_attach_sg_entry(c->a, 0, &c->e) == 0, "entry 0");
	}
	while (off - c->start >= c->e.length) {
		c->start += c->e.length;
		FUZZ_CHECK(++c->i < c->n, "offset 0x%llx past the buffer", off);
		FUZZ_CHECK(kapi_attach_sg_entry(c->a, c->i, &c->e) == 0,
			   "entry %u", c->i);
	}
	return ((sim_phys_t)c->e.pfn << SIM_PAGE_SHIFT) + c->e.offset +
	       (off - c->start);
}

static sim_phys_t buffer_phys(const struct kapi_attach *a,
			      unsigned long long off)
{
	struct buf_cursor c;

	buf_cursor_init(&c, a);
	return buf_cursor_phys(&c, off);
}

static void check_blocks(const struct attach *at)
{
	const struct kapi_attach *a = at->a;
	unsigned int n = kapi_attach_nr_entries(a);
	unsigned long long total = 0;
	unsigned int last_order = 64;
	struct kapi_sg_entry e;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int order;

		FUZZ_CHECK(kapi_attach_sg_entry(a, i, &e) == 0, "entry %u", i);
		FUZZ_CHECK(e.offset == 0 && e.length &&
			   !(e.length & (e.length - 1)) && e.length >= PAGE,
			   "entry %u: offset %u length %u", i, e.offset, e.length);
		order = __builtin_ctz(e.length / PAGE);
		FUZZ_CHECK(order_mask & (1u << order),
			   "a block of order %u, orders 0x%x", order, order_mask);
		FUZZ_CHECK(order <= last_order,
			   "order %u after a block of order %u", order, last_order);
		FUZZ_CHECK(!(e.pfn & ((1UL << order) - 1)),
			   "block of order %u at pfn 0x%lx", order, e.pfn);
		FUZZ_NOTE(e.pfn);
		last_order = order;
		total += e.length;
	}
	FUZZ_CHECK(total == bufs[at->buf].bytes, "blocks of 0x%llx, buffer 0x%llx",
		   total, bufs[at->buf].bytes);
}

static void check_mapping(const struct attach *at, int nents)
{
	const struct kapi_attach *a = at->a;
	struct sim_iommu_domain *dom = kapi_dev_sim_domain(devs[at->dev]);
	unsigned long long off = 0;
	struct kapi_sg_entry e;
	struct buf_cursor c;

	FUZZ_CHECK(nents >= 1 && (unsigned int)nents == kapi_attach_nr_segments(a),
		   "nents %d", nents);
	buf_cursor_init(&c, a);
	for (int i = 0; i < nents; i++) {
		FUZZ_CHECK(kapi_attach_sg_entry(a, (unsigned int)i, &e) == 0,
			   "segment %d", i);
		FUZZ_CHECK(e.dma_length, "empty segment %d", i);
		FUZZ_NOTE(e.dma_address);
		FUZZ_NOTE(e.dma_length);
		if (dom) {
			sim_phys_t first = sim_iommu_iova_to_phys(dom, e.dma_address);
			sim_phys_t last = sim_iommu_iova_to_phys(dom, e.dma_address +
							       e.dma_length - 1);
			sim_phys_t want_first = buf_cursor_phys(&c, off);
			sim_phys_t want_last = buf_cursor_phys(&c, off +
							      e.dma_length - 1);

			FUZZ_CHECK(first == want_first && last == want_last,
				   "segment %d at iova 0x%llx: phys 0x%llx..0x%llx, buffer 0x%llx..0x%llx",
				   i, e.dma_address, first, last, want_first,
				   want_last);
		} else {
			FUZZ_CHECK(e.dma_address == buf_cursor_phys(&c, off) &&
				   e.dma_length == e.length,
				   "dma-direct segment %d at 0x%llx", i, e.dma_address);
		}
		off += e.dma_length;
	}
	FUZZ_CHECK(off == bufs[at->buf].bytes, "segments cover 0x%llx of 0x%llx",
		   off, bufs[at->buf].bytes);
}

/* No mapping through an importer's IOMMU when none of its attachments is mapped. */
static void check_domains(void)
{
	for (int d = 0; d < NR_DEVS; d++) {
		struct sim_iommu_domain *dom = kapi_dev_sim_domain(devs[d]);
		int mapped = 0;

		if (!dom)
			continue;
		for (unsigned int i = 0; i < nr_atts; i++)
			mapped |= atts[i].dev == d && atts[i].mapped;
		if (!mapped)
			FUZZ_CHECK(sim_iommu_nr_leaves_total(dom) == 0,
				   "device %d: %llu leaves with nothing mapped", d,
				   sim_iommu_nr_leaves_total(dom));
	}
}

/* ---- the differential trace -------------------------------------------- */

/* "~ chunks o8=2 o0=1": a buffer's blocks by order, largest first. */
static void log_layout(const struct kapi_heap_layout *l)
{
	char line[256] = "";
	int n = 0;

	if (!fuzz_verbose())
		return;
	for (int o = SIM_MAX_ORDER; o >= 0; o--)
		if (l->chunks_by_order[o])
			n += snprintf(line + n, sizeof(line) - n, " o%d=%lu", o,
				      l->chunks_by_order[o]);
	FUZZ_LOG("~ chunks%s, %lu pages free", line, sim_buddy_nr_free());
}

/* "~ leaves 4K=3 2M=1": the IOMMU leaves mapping an attachment, by size. */
static void log_mapping(const struct attach *at, int nents)
{
	static const char *const unit[] = { "", "K", "M", "G", "T", "P", "E" };
	struct kapi_iommu_cover cover;
	char line[512] = "";
	int n = 0;

	if (!fuzz_verbose())
		return;
	FUZZ_LOG("~ %d segments, %lu pages free", nents, sim_buddy_nr_free());
	if (kapi_attach_iommu_cover(at->a, &cover))
		return;		/* dma-direct: no IOMMU */
	for (int shift = 0; shift < 64; shift++)
		if (cover.leaves_by_shift[shift])
			n += snprintf(line + n, sizeof(line) - n, " %llu%s=%llu",
				      1ULL << (shift % 10), unit[shift / 10],
				      cover.leaves_by_shift[shift]);
	FUZZ_LOG("~ leaves%s; %llu of %llu 2M windows in one leaf", line,
		 cover.windows_2m_superpage, cover.windows_2m);
	FUZZ_LOG("iova range 0x%llx bytes", cover.iova_size);
}

/* ---- steps ------------------------------------------------------------------ */

static void step_alloc(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	unsigned long long len;
	unsigned int blocks, fd_flags = KAPI_O_RDWR | KAPI_O_CLOEXEC;
	unsigned long long heap_flags = 0;
	unsigned long free_before = sim_buddy_nr_free();
	unsigned int fds_before = kapi_nr_open_fds();
	int fd;

	if (nr_bufs == MAX_BUFS)
		return;
	/*
	 * Sizes are small most of the time (fuzz_pages()): a buffer costs per
	 * chunk, and with a small order set (orders 0) per page.
	 */
	switch (how & 3) {
	case 0:	/* pages */
		len = fuzz_pages(in, 1024, PMD_PAGES) * PAGE;
		break;
	case 1:	/* blocks of 2 MiB, give or take a page: mostly one */
		blocks = fuzz_u8(in);
		len = (blocks < 192 ? 1ULL : blocks % 8 + 1ULL) << 21;
		len += ((how >> 2) & 1) ? PAGE : 0;
		len -= ((how >> 3) & 1) ? PAGE : 0;
		break;
	case 2:	/* any length below a page count, 0 included */
		len = fuzz_pages(in, 1024, PMD_PAGES) * PAGE;
		len = fuzz_u32(in) % len;
		break;
	default:	/* large: 64 KiB units, up to 16 MiB */
		len = (unsigned long long)fuzz_pages(in, 256, 32) << 16;
		break;
	}
	if (how & 0x10)
		fd_flags = fuzz_u32(in);	/* mostly invalid */
	if (how & 0x20)
		heap_flags = 1ULL << (fuzz_u8(in) % 64);
	fd = kapi_heap_alloc(heap_fd, len, fd_flags, heap_flags);
	FUZZ_LOG("alloc 0x%llx fd_flags 0%o heap_flags 0x%llx: %d", len,
		 fd_flags, heap_flags, fd);
	if (fd < 0) {
		FUZZ_CHECK(sim_buddy_nr_free() == free_before &&
			   kapi_nr_open_fds() == fds_before,
			   "a refused allocation (%d) kept %ld pages or %d fds", fd,
			   (long)(free_before - sim_buddy_nr_free()),
			   (int)(kapi_nr_open_fds() - fds_before));
		return;
	}
	FUZZ_CHECK(orders_ok, "allocation with an invalid order set succeeded");
	FUZZ_CHECK(len && !heap_flags, "len 0x%llx heap_flags 0x%llx accepted",
		   len, heap_flags);
	bufs[nr_bufs].fd = fd;
	bufs[nr_bufs].bytes = (len + PAGE - 1) & ~(PAGE - 1);
	bufs[nr_bufs].vaddr = NULL;
	bufs[nr_bufs].cpu_access = 0;
	{
		struct kapi_heap_layout l;

		FUZZ_CHECK(kapi_dmabuf_layout(fd, &l) == 0, "layout");
		FUZZ_CHECK(l.bytes == bufs[nr_bufs].bytes && !l.other_chunks,
			   "layout 0x%llx bytes, %lu odd chunks", l.bytes,
			   l.other_chunks);
		for (unsigned int o = 0; o <= SIM_MAX_ORDER; o++)
			FUZZ_CHECK(!l.chunks_by_order[o] || (order_mask & (1u << o)),
				   "%lu chunks of order %u", l.chunks_by_order[o], o);
		log_layout(&l);
	}
	nr_bufs++;
}

static void step_attach(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	struct attach *at = &atts[nr_atts];
	int ret;

	if (!nr_bufs || nr_atts == MAX_ATTACH)
		return;
	at->buf = (how >> 2) % nr_bufs;
	at->dev = how % NR_DEVS;
	at->mapped = 0;
	ret = kapi_dmabuf_attach(bufs[at->buf].fd, devs[at->dev], &at->a);
	FUZZ_LOG("attach buf %d dev %d: %d", at->buf, at->dev, ret);
	FUZZ_CHECK(ret == 0, "attach: %d", ret);
	nr_atts++;
}

static void step_map(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	struct attach *at;
	int nents;

	if (!nr_atts)
		return;
	at = &atts[how % nr_atts];
	if (at->mapped && (how & 0x80)) {
		kapi_dmabuf_unmap(at->a);
		at->mapped = 0;
		FUZZ_LOG("unmap");
		return;
	}
	nents = kapi_dmabuf_map(at->a, (how >> 4) % 3);
	FUZZ_LOG("map attach %ld dev %d: %s", (long)(at - atts), at->dev,
		 nents > 0 ? "mapped" : strerror(-nents));
	if (at->mapped) {
		FUZZ_CHECK(nents == -EBUSY, "second map of one attachment: %d",
			   nents);
		return;
	}
	if (nents < 0)
		return;		/* e.g. no IOVA space or memory: nothing kept */
	at->mapped = 1;
	check_blocks(at);
	check_mapping(at, nents);
	log_mapping(at, nents);
}

static void step_detach(struct fuzz_input *in)
{
	unsigned int i;

	if (!nr_atts)
		return;
	i = fuzz_u8(in) % nr_atts;
	kapi_dmabuf_detach(atts[i].a);
	atts[i] = atts[--nr_atts];
	FUZZ_LOG("detach");
}

static void step_cpu(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	struct buf *b;
	int ret;

	if (!nr_bufs)
		return;
	b = &bufs[(how >> 3) % nr_bufs];
	switch (how & 7) {
	case 0:
		if (b->vaddr)
			break;
		ret = kapi_dmabuf_vmap(b->fd, &b->vaddr);
		FUZZ_CHECK(ret == 0 && b->vaddr, "vmap: %d", ret);
		/* A byte through the vmap is in the buffer's own page. */
		{
			unsigned long long off = fuzz_u32(in) % b->bytes;
			unsigned char v = fuzz_u8(in) | 1;
			struct kapi_attach *a;
			unsigned char *direct;

			((unsigned char *)b->vaddr)[off] = v;
			FUZZ_CHECK(kapi_dmabuf_attach(b->fd, devs[2], &a) == 0 &&
				   kapi_dmabuf_map(a, KAPI_DMA_BIDIRECTIONAL) > 0,
				   "direct map");
			direct = sim_phys_to_virt(buffer_phys(a, off));
			FUZZ_CHECK(direct && *direct == v,
				   "vmap byte at 0x%llx not in the buffer's page", off);
			kapi_dmabuf_detach(a);
		}
		break;
	case 1:
		if (!b->vaddr)
			break;
		ret = kapi_dmabuf_vunmap(b->fd, b->vaddr);
		FUZZ_CHECK(ret == 0, "vunmap: %d", ret);
		b->vaddr = NULL;
		break;
	case 2:
		ret = kapi_dmabuf_begin_cpu_access(b->fd, (how >> 5) % 3);
		FUZZ_CHECK(ret == 0, "begin_cpu_access: %d", ret);
		b->cpu_access++;
		break;
	case 3:
		if (!b->cpu_access)
			break;
		ret = kapi_dmabuf_end_cpu_access(b->fd, (how >> 5) % 3);
		FUZZ_CHECK(ret == 0, "end_cpu_access: %d", ret);
		b->cpu_access--;
		break;
	default:
		ret = kapi_dmabuf_sync(b->fd, fuzz_u8(in));
		FUZZ_LOG("sync: %d", ret);
		break;
	}
}

static void step_close(struct fuzz_input *in)
{
	unsigned int i;
	struct buf *b;

	if (!nr_bufs)
		return;
	i = fuzz_u8(in) % nr_bufs;
	b = &bufs[i];
	if (b->vaddr)
		FUZZ_CHECK(kapi_dmabuf_vunmap(b->fd, b->vaddr) == 0, "vunmap");
	while (b->cpu_access--)
		kapi_dmabuf_end_cpu_access(b->fd, KAPI_DMA_BIDIRECTIONAL);
	FUZZ_CHECK(kapi_close(b->fd) == 0, "close");
	FUZZ_CHECK(kapi_close(b->fd) == -EBADF, "second close");
	/* Attachments keep the dma-buf alive; renumber theirs. */
	for (unsigned int k = 0; k < nr_atts; k++)
		if (atts[k].buf == (int)i)
			atts[k].buf = -1;
		else if (atts[k].buf == (int)nr_bufs - 1)
			atts[k].buf = (int)i;
	bufs[i] = bufs[--nr_bufs];
	/* An attachment to a closed buffer can only be detached. */
	for (unsigned int k = 0; k < nr_atts;) {
		if (atts[k].buf < 0) {
			kapi_dmabuf_detach(atts[k].a);
			atts[k] = atts[--nr_atts];
		} else {
			k++;
		}
	}
	FUZZ_LOG("close buf %u", i);
}

/* The steps an input asks for. */
enum heap_step {
	STEP_ALLOC, STEP_ATTACH, STEP_MAP, STEP_DETACH, STEP_CPU, STEP_CLOSE,
};

/* What a step byte decodes to (mod 7): ALLOC twice as often as the rest. */
static const enum heap_step step_of_byte[] = {
	STEP_ALLOC, STEP_ALLOC, STEP_ATTACH, STEP_MAP, STEP_DETACH, STEP_CPU,
	STEP_CLOSE,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = fuzz_input_choosing(data, size);
	unsigned long long kmallocs;
	unsigned long free_pages, vmaps, domains;
	unsigned int fds;
	unsigned long files;

	boot_once();
	kmallocs = sim_kmalloc_outstanding();
	free_pages = sim_buddy_nr_free();
	fds = kapi_nr_open_fds();
	files = kapi_nr_files();
	vmaps = sim_vmap_outstanding();
	domains = sim_iommu_nr_domains();
	nr_bufs = nr_atts = 0;

	choose_orders(&in);
	age_by_input(&in);
	for (unsigned int i = 0; i < MAX_STEPS && !fuzz_empty(&in); i++) {
		switch (step_of_byte[fuzz_u8(&in) % ARRAY_SIZE(step_of_byte)]) {
		case STEP_ALLOC: step_alloc(&in); break;
		case STEP_ATTACH: step_attach(&in); break;
		case STEP_MAP: step_map(&in); break;
		case STEP_DETACH: step_detach(&in); break;
		case STEP_CPU: step_cpu(&in); break;
		case STEP_CLOSE: step_close(&in); break;
		}
		check_domains();
	}

	while (nr_atts)
		kapi_dmabuf_detach(atts[--nr_atts].a);
	check_domains();
	while (nr_bufs) {
		struct buf *b = &bufs[--nr_bufs];

		if (b->vaddr)
			FUZZ_CHECK(kapi_dmabuf_vunmap(b->fd, b->vaddr) == 0, "vunmap");
		while (b->cpu_access--)
			kapi_dmabuf_end_cpu_access(b->fd, KAPI_DMA_BIDIRECTIONAL);
		FUZZ_CHECK(kapi_close(b->fd) == 0, "close");
	}
	release_aged();
	sim_buddy_drain_pcp();
	FUZZ_LOG("end: %lu pages free", sim_buddy_nr_free());
	FUZZ_CHECK(sim_buddy_nr_free() == free_pages,
		   "%lu free pages at the end, %lu at the start",
		   sim_buddy_nr_free(), free_pages);
	FUZZ_CHECK(sim_kmalloc_outstanding() == kmallocs &&
		   kapi_nr_open_fds() == fds && kapi_nr_files() == files &&
		   sim_vmap_outstanding() == vmaps &&
		   sim_iommu_nr_domains() == domains,
		   "left: %lld kernel objects, %d fds, %ld files, %ld vmaps, %ld domains",
		   (long long)(sim_kmalloc_outstanding() - kmallocs),
		   (int)(kapi_nr_open_fds() - fds),
		   (long)(kapi_nr_files() - files),
		   (long)(sim_vmap_outstanding() - vmaps),
		   (long)(sim_iommu_nr_domains() - domains));
	/* The free lists as the next input expects them. */
	FUZZ_CHECK(sim_buddy_rewind() == 0, "free pages differ from the start");
	fuzz_choices_end();
	return 0;
}
