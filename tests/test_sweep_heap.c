// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fail-nth and choose-nth sweeps over the DMA-BUF system heap as userspace and an
 * importing driver use it: open the heap, allocate a buffer whose size
 * takes blocks of every order the heap has, attach a device, map the
 * attachment (dma-iommu onto an IOMMU domain, or dma-direct), vmap it for
 * the CPU, then unwind in the reverse order and close.  Every fallible call
 * on the way fails once and from then on; the errno is one the kernel
 * returns there and nothing is left: no fd, no file, no page, no IOVA leaf.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"


/*
 * The buffer: 2M + 1M + 64K + 3 pages, so a fresh machine gives it one
 * block of each order of {9, 8, 4, 0} (4 KiB pages; with larger pages the
 * same bytes are fewer, larger-page blocks).
 *
 *   | order 9: 2M | order 8: 1M | order 4: 64K | 0 | 0 | 0 |
 */
#define BUFFER_LEN	(2 * MiB + 1 * MiB + 64 * KiB + 3 * PAGE)

struct heap_case {
	const char *name;
	int format;		/* enum sim_iommu_format_id, or KAPI_DEV_NO_IOMMU */
	unsigned long long len;
	/* system_heap.orders for trees that have the parameter; NULL: default */
	const char *orders;
};

/* core's default system_heap.orders. */
#define DEFAULT_ORDERS	"9,8,4,0"

static struct {
	int heap_fd, buf_fd;
	struct kapi_dev *dev;
	struct kapi_attach *attach;
	void *vaddr;
} h;

static int nothing_open(const void *param)
{
	const struct heap_case *c = param;

	if (DMASIM_IMPL_HEAP_ORDERS_PARAM &&
	    kapi_param_set("system_heap.orders",
			   c->orders ? c->orders : DEFAULT_ORDERS))
		return -1;
	h.heap_fd = h.buf_fd = -1;
	h.dev = NULL;
	h.attach = NULL;
	h.vaddr = NULL;
	return 0;
}

static int alloc_attach_map_vmap_release(const void *param)
{
	const struct heap_case *c = param;
	unsigned char *bytes;
	int ret;

	ret = kapi_heap_open("system");
	if (ret < 0)
		return ret;
	h.heap_fd = ret;
	ret = kapi_heap_alloc(h.heap_fd, c->len, KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);
	if (ret < 0)
		return ret;
	h.buf_fd = ret;
	ret = kapi_dev_create(c->format, ANY_SEGMENT_SIZE, &h.dev);
	if (ret)
		return ret;
	ret = kapi_dmabuf_attach(h.buf_fd, h.dev, &h.attach);
	if (ret)
		return ret;
	ret = kapi_dmabuf_map(h.attach, KAPI_DMA_BIDIRECTIONAL);
	if (ret < 0)
		return ret;
	ret = kapi_dmabuf_vmap(h.buf_fd, &h.vaddr);
	if (ret)
		return ret;
	bytes = h.vaddr;
	bytes[c->len - 1] = 0x5a;
	ret = kapi_dmabuf_vunmap(h.buf_fd, h.vaddr);
	h.vaddr = NULL;
	if (ret)
		return ret;
	kapi_dmabuf_unmap(h.attach);
	kapi_dmabuf_detach(h.attach);
	h.attach = NULL;
	ret = kapi_close(h.buf_fd);
	h.buf_fd = -1;
	return ret;
}

/*
 * A tree that installs the ALLOC's fd before copying the result out
 * (!DMASIM_IMPL_HEAP_ALLOC_FD_AFTER_COPY_OUT) leaves it open when that copy
 * fails, and the caller never learns its number: close it as the process's
 * exit would.  Only after a copy_to_user() failure, so a tree that leaves
 * an fd open for any other reason still shows the leak.
 */
static void close_a_buffer_fd_the_caller_never_got(void)
{
	if (DMASIM_IMPL_HEAP_ALLOC_FD_AFTER_COPY_OUT || h.buf_fd >= 0 ||
	    !sweep_run_failures_at(SIM_FP_COPY_TO_USER))
		return;
	for (int fd = 0; fd < 1024; fd++) {
		if (fd == h.heap_fd ||
		    kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL))
			continue;
		kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL);
		kapi_close(fd);
	}
}

/* What a process exit and a driver unbind would release. */
static void close_everything(const void *param)
{
	if (h.vaddr)
		kapi_dmabuf_vunmap(h.buf_fd, h.vaddr);
	if (h.attach)
		kapi_dmabuf_detach(h.attach);
	if (h.dev)
		kapi_dev_destroy(h.dev);
	if (h.buf_fd >= 0)
		kapi_close(h.buf_fd);
	close_a_buffer_fd_the_caller_never_got();
	if (h.heap_fd >= 0)
		kapi_close(h.heap_fd);
}

/*
 * open: -ENOMEM; ALLOC ioctl: -EFAULT (copy_{from,to}_user), -ENOMEM,
 * -EMFILE (no fd), -EINTR (a SIGKILL seen by the allocation loop's check);
 * map: -ENOMEM (dma_map_sgtable, IOVA, IOMMU map).
 */
static const int heap_errnos[] = { -ENOMEM, -EFAULT, -EMFILE, -EINTR, 0 };

/* The default suite: one IOMMU format and dma-direct. */
static const struct heap_case cases[] = {
	{ "heap_alloc_map/intel-sl", SIM_IOMMU_INTEL_SL, BUFFER_LEN, NULL },
	{ "heap_alloc_map/dma-direct", KAPI_DEV_NO_IOMMU, BUFFER_LEN, NULL },
	{ "heap_alloc_map_1page/amd-v1", SIM_IOMMU_AMD_V1, SZ_4K, NULL },
	{ "heap_alloc_map_68k/arm-lpae-4k", SIM_IOMMU_ARM_LPAE_4K,
	  64 * KiB + SZ_4K, NULL },
};

/*
 * --slow (suite 'slow'): the other 4K-granule formats (16K and 64K granules
 * belong with 16K and 64K kernel pages), and a 64 MiB buffer.
 */
static const struct heap_case slow_cases[] = {
	{ "heap_alloc_map/amd-v1", SIM_IOMMU_AMD_V1, BUFFER_LEN, NULL },
	{ "heap_alloc_map/amd-v2", SIM_IOMMU_AMD_V2, BUFFER_LEN, NULL },
	{ "heap_alloc_map/arm-lpae-4k", SIM_IOMMU_ARM_LPAE_4K, BUFFER_LEN, NULL },
	{ "heap_alloc_map_64m/intel-sl", SIM_IOMMU_INTEL_SL, 64 * MiB + 5 * 64 * KiB,
	  NULL },
};

/*
 * --slow also crosses buffer sizes (one page; 64 KiB and a page; 8 MiB,
 * 64 KiB and a page) with the chunk orders (core's orders parameter; a
 * tree without it sweeps its own orders once per size) and two IOMMUs.
 */
static const unsigned long long slow_lens[] = {
	SZ_4K, 64 * KiB + SZ_4K, 8 * MiB + 64 * KiB + SZ_4K,
};
static const char *const slow_orders[] = { "8,4,0", "4,0", "0" };
static const int slow_formats[] = { SIM_IOMMU_INTEL_SL, SIM_IOMMU_AMD_V1 };

static int slow;

static int sweep_heap_case(const struct heap_case *c)
{
	const struct sweep_scenario s = {
		.name = c->name,
		.setup = nothing_open,
		.run = alloc_attach_map_vmap_release,
		.teardown = close_everything,
		.param = c,
		.errnos = heap_errnos,
		/* 6.12's dma_buf_vmap() WARNs when the heap's vmap fails. */
		.expected_warning = "kernel_shim/dma_buf.c:",
	};
	struct sweep_result res;
	int failed = sweep_run(&s, &res);

	assert_true(res.points > 0);
	return failed;
}

/* The --slow cross of sizes, orders and formats. */
static int sweep_sizes_orders_and_formats(void)
{
	size_t norders = DMASIM_IMPL_HEAP_ORDERS_PARAM ?
			 ARRAY_SIZE(slow_orders) : 1;
	int failed = 0;

	for (size_t l = 0; l < ARRAY_SIZE(slow_lens); l++) {
		for (size_t o = 0; o < norders; o++) {
			for (size_t f = 0; f < ARRAY_SIZE(slow_formats); f++) {
				char name[96];
				const struct heap_case c = {
					.name = name,
					.format = slow_formats[f],
					.len = slow_lens[l],
					.orders = DMASIM_IMPL_HEAP_ORDERS_PARAM ?
						  slow_orders[o] : NULL,
				};

				snprintf(name, sizeof(name),
					 "heap_alloc_map_%llu/orders-%s/%s",
					 c.len, c.orders ? c.orders : "tree",
					 sim_iommu_format(c.format)->name);
				failed |= sweep_heap_case(&c);
			}
		}
	}
	return failed;
}

/* Every failure from heap open to close leaves nothing behind. */
static void test_heap_round_trip_unwinds(void **state)
{
	const struct heap_case *list = slow ? slow_cases : cases;
	size_t n = slow ? ARRAY_SIZE(slow_cases) : ARRAY_SIZE(cases);
	int failed = slow ? sweep_sizes_orders_and_formats() : 0;

	for (size_t i = 0; i < n; i++)
		failed |= sweep_heap_case(&list[i]);
	assert_int_equal(failed, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_round_trip_unwinds),
	};

	slow = sweep_slow_requested(argc, argv);
	return sweep_exit_status(cmocka_run_group_tests(tests, NULL, NULL),
				 slow);
}
