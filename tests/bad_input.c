// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad input for every ioctl and entry point, one table per entry point
 * (tests/bad_input/<entry>.def, X-macro rows), shared by both
 * implementations: this one driver is a kernel test, built once per
 * implementation (core, and a tree's own files in upstream mode), and runs
 * every row of every table against the kernel code it is linked with.
 *
 * A row is the input, the result the kernel gives (an errno; per version
 * where trees legitimately differ, through <dmasim/impl.h>) and the
 * fixture it needs.  Every row gets a freshly booted machine and the same
 * invariant check:
 *  - the call changes nothing: no page pin, IOMMU leaf, locked_vm charge,
 *    kmalloc'd object, buddy page, vmap, file or descriptor appears or goes
 *    (the leak snapshot of tests/shared.h, plus the fixture's IOMMU leaves
 *    and its emulated device's pins), and no WARN unless the row's kernel
 *    path gives one;
 *  - once the fixture is torn down, the machine is as it was booted.
 * The driver prints each failing row and "bad inputs tried: N".
 *
 * The VFIO fixture (sizes in bytes; PG is the simulator's page size):
 *
 *   va:   ram  [0 ...... 16 MiB)  anonymous, writable, populated
 *         ro   [0 .. 2 MiB)       anonymous, read-only, populated
 *         hole [0 .. 2 MiB)       mapped and unmapped again: no VMA
 *   iova: RW_IOVA   0      +2 MiB -> ram [0, 2 MiB)       read+write
 *         RO_IOVA   1 GiB  +2 MiB -> ram [2 MiB, 4 MiB)   read only
 *         WO_IOVA   2 GiB  +2 MiB -> ram [4 MiB, 6 MiB)   write only
 *         FREE_IOVA 64 MiB: nothing
 *   devices: one behind an intel-sl IOMMU, one emulated (mediated)
 *   FIX_V1: a type1 (v1) container instead of a v2 one;
 *   FIX_TRACKING: dirty tracking started;
 *   FIX_NO_PINNER: no emulated device (pin rows then ask the IOMMU one).
 *
 * The device fixture (VFIO_DEVICE_FEATURE rows): a simulated vfio-pci
 * device (1 MiB BAR0) whose fd a VMM holds, through a container with a
 * type1v2 backend and its group; FIX_PCI_NO_FEATURE: its driver has no
 * device_feature callback.  The ioctl's argument is in the process's
 * memory, its last byte the last of a page with no VMA after it: a row
 * says how many bytes of it the kernel can read (at least one: the shim
 * takes a copy that starts outside every VMA for the test's own memory).  The rows also say how many times the driver's
 * device_feature is called (0: the VFIO core answered alone).
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
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/kapi_vfio_group.h>
#include <dmasim/sim.h>
#include <dmasim/sim_mem.h>

#include "shared.h"

/* The rows' page: the simulator's, as a 64-bit row field. */
#define PG	((unsigned long long)PAGE)

/* ---- the names rows use ---- */

#define RW		KAPI_VFIO_DMA_MAP_RW
#define READ		KAPI_VFIO_DMA_MAP_FLAG_READ
#define WRITE		KAPI_VFIO_DMA_MAP_FLAG_WRITE
#define VADDR		KAPI_VFIO_DMA_MAP_FLAG_VADDR
#define DIRTY		KAPI_VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP
#define ALL		KAPI_VFIO_DMA_UNMAP_FLAG_ALL
#define VADDR_UNMAP	KAPI_VFIO_DMA_UNMAP_FLAG_VADDR
#define START		KAPI_VFIO_DIRTY_PAGES_FLAG_START
#define STOP		KAPI_VFIO_DIRTY_PAGES_FLAG_STOP
#define GET_BITMAP	KAPI_VFIO_DIRTY_PAGES_FLAG_GET_BITMAP
#define O_RDWR		KAPI_O_RDWR

#define DMA_LEN		(2 * MiB)
#define RAM_LEN		(16 * MiB)
#define RW_IOVA		0ULL
#define RO_IOVA		(1 * GiB)
#define WO_IOVA		(2 * GiB)
#define FREE_IOVA	(64 * MiB)
/* The last MiB of the 64-bit space: a 2 MiB range from here wraps. */
#define TOP_IOVA	(~0ULL - MiB + 1)
/* Where the IOMMU fixture's one leaf is. */
#define LEAF_IOVA	(128 * KiB)
/* A bitmap covering DMA_LEN in pages. */
#define BM_BYTES	(DMA_LEN / PG / 8 > 8 ? DMA_LEN / PG / 8 : 8)

/* A range that wraps: -EOVERFLOW since the IOVA-end fixes, -EINVAL before. */
#define WRAP_ERRNO \
	(DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES ? -EOVERFLOW : -EINVAL)

/* vaddr: a fixture region (bits 56..59) plus an offset into it. */
#define VA_REGION_SHIFT	56
#define VA_RAM		(1ULL << VA_REGION_SHIFT)
#define VA_RO		(2ULL << VA_REGION_SHIFT)
#define VA_HOLE		(3ULL << VA_REGION_SHIFT)
#define VA_ABS		(4ULL << VA_REGION_SHIFT)	/* the offset itself */
#define VA_NEG		(5ULL << VA_REGION_SHIFT)	/* 2^64 - the offset */
#define VA_TOP		(15ULL << VA_REGION_SHIFT)	/* TOP_IOVA as a vaddr */

/*
 * Where a bitmap's data is: none, a buffer of the test, a kernel address,
 * or fx.hole: a user address that neither a simulated VMA nor the host
 * maps (a fault, not a crash).
 */
enum bitmap_where { BM_NONE, BM_OURS, BM_KERNEL, BM_HOLE };
struct bitmap_spec {
	unsigned long long pgsize, bytes;
	enum bitmap_where where;
};
#define NO_BITMAP		{ 0, 0, BM_NONE }
#define BITMAP(pgsz, n, w)	{ (pgsz), (n), (w) }
/* An ioctl's argument: a buffer of the test, NULL, or fx.hole (above). */
#define ARG_OURS	0
#define ARG_NULL	1
#define ARG_HOLE	2

enum fixture {
	FIX_DEFAULT, FIX_V1, FIX_TRACKING, FIX_NO_PINNER,
	FIX_PCI, FIX_PCI_NO_FEATURE,
};

/* VFIO_DEVICE_FEATURE rows: the flags, and the payload's first s32. */
#define GET		KAPI_VFIO_DEVICE_FEATURE_GET
#define SET		KAPI_VFIO_DEVICE_FEATURE_SET
#define PROBE		KAPI_VFIO_DEVICE_FEATURE_PROBE
#define LPE		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY
#define LPW		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY_WITH_WAKEUP
#define LPX		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_EXIT
enum payload { P_ZERO, P_NEG, P_CLOSED, P_FILE };
/* An fd number no fixture opens. */
#define CLOSED_FD	900

enum entry {
	MAP_DMA_ENTRY, UNMAP_DMA_ENTRY, GET_INFO_ENTRY, DIRTY_PAGES_ENTRY,
	CHECK_EXTENSION_ENTRY, VFIO_IOCTL_ENTRY, SET_IOMMU_ENTRY,
	PIN_PAGES_ENTRY, DMA_RW_ENTRY, HEAP_ALLOC_ENTRY, HEAP_IOCTL_ENTRY,
	IOMMU_MAP_ENTRY, IOMMU_UNMAP_ENTRY, DEVICE_FEATURE_ENTRY,
};

struct bad_input {
	enum entry entry;
	const char *what;
	unsigned int argsz, flags;
	unsigned long long vaddr, iova, size;
	struct bitmap_spec bitmap;
	unsigned long long arg;		/* extension, type, cmd, npage, ... */
	unsigned long long arg2;	/* ioctl nr, fd field, paddr */
	int null_arg;			/* the ioctl's argument: ARG_* */
	enum fixture fixture;
	long expect;			/* the errno (or result) the kernel gives */
};

/* ---- the tables ---- */

#define MAP_DMA(w, as, fl, va, io, sz, err, fix) \
	{ MAP_DMA_ENTRY, w, .argsz = as, .flags = fl, .vaddr = va, \
	  .iova = io, .size = sz, .fixture = fix, .expect = err },
static const struct bad_input map_dma_rows[] = {
#include "bad_input/vfio_map_dma.def"
};

#define UNMAP_DMA(w, as, fl, io, sz, bm, err, fix) \
	{ UNMAP_DMA_ENTRY, w, .argsz = as, .flags = fl, .iova = io, \
	  .size = sz, .bitmap = bm, .fixture = fix, .expect = err },
static const struct bad_input unmap_dma_rows[] = {
#include "bad_input/vfio_unmap_dma.def"
};

#define GET_INFO(w, as, err) \
	{ GET_INFO_ENTRY, w, .argsz = as, .expect = err },
static const struct bad_input get_info_rows[] = {
#include "bad_input/vfio_get_info.def"
};

#define DIRTY_PAGES(w, as, fl, io, sz, bm, err, fix) \
	{ DIRTY_PAGES_ENTRY, w, .argsz = as, .flags = fl, .iova = io, \
	  .size = sz, .bitmap = bm, .fixture = fix, .expect = err },
static const struct bad_input dirty_pages_rows[] = {
#include "bad_input/vfio_dirty_pages.def"
};

#define CHECK_EXTENSION(w, ext, result) \
	{ CHECK_EXTENSION_ENTRY, w, .arg = ext, .expect = result },
static const struct bad_input check_extension_rows[] = {
#include "bad_input/vfio_check_extension.def"
};

#define VFIO_IOCTL(w, cmd, null, err) \
	{ VFIO_IOCTL_ENTRY, w, .arg = cmd, .null_arg = null, .expect = err },
static const struct bad_input vfio_ioctl_rows[] = {
#include "bad_input/vfio_ioctl.def"
};

#define SET_IOMMU(w, type, err) \
	{ SET_IOMMU_ENTRY, w, .arg = type, .expect = err },
static const struct bad_input set_iommu_rows[] = {
#include "bad_input/vfio_set_iommu.def"
};

#define PIN_PAGES(w, io, npage, prot, err, fix) \
	{ PIN_PAGES_ENTRY, w, .iova = io, .arg = npage, .flags = prot, \
	  .fixture = fix, .expect = err },
static const struct bad_input pin_pages_rows[] = {
#include "bad_input/vfio_pin_pages.def"
};

#define DMA_RW(w, io, len, write, err) \
	{ DMA_RW_ENTRY, w, .iova = io, .size = len, .arg = write, \
	  .expect = err },
static const struct bad_input dma_rw_rows[] = {
#include "bad_input/vfio_dma_rw.def"
};

#define HEAP_ALLOC(w, len, fdfl, heapfl, err) \
	{ HEAP_ALLOC_ENTRY, w, .size = len, .flags = fdfl, .arg = heapfl, \
	  .expect = err },
#define HEAP_IOCTL(w, dir, nr, structsz, len, fd, null, err) \
	{ HEAP_IOCTL_ENTRY, w, .flags = dir, .arg = nr, .argsz = structsz, \
	  .size = len, .arg2 = fd, .null_arg = null, .expect = err },
static const struct bad_input heap_alloc_rows[] = {
#include "bad_input/heap_alloc.def"
};

#define IOMMU_MAP(w, fmt, io, pa, sz, badgfp, err) \
	{ IOMMU_MAP_ENTRY, w, .arg = fmt, .iova = io, .arg2 = pa, \
	  .size = sz, .flags = badgfp, .expect = err },
static const struct bad_input iommu_map_rows[] = {
#include "bad_input/iommu_map.def"
};

#define IOMMU_UNMAP(w, fmt, io, sz, bytes) \
	{ IOMMU_UNMAP_ENTRY, w, .arg = fmt, .iova = io, .size = sz, \
	  .expect = bytes },
static const struct bad_input iommu_unmap_rows[] = {
#include "bad_input/iommu_unmap.def"
};

#define DEVICE_FEATURE(w, as, fl, pl, buflen, calls, err, fix) \
	{ DEVICE_FEATURE_ENTRY, w, .argsz = as, .flags = fl, .arg = pl, \
	  .size = buflen, .arg2 = calls, .fixture = fix, .expect = err },
static const struct bad_input device_feature_rows[] = {
#include "bad_input/vfio_device_feature.def"
};

/* ---- fixtures ---- */

static struct {
	struct kapi_proc *proc;
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev, *mdev;
	unsigned long ram, ro, hole;
	int heap_fd;
	struct kapi_iommu_dev *idev;
	struct kapi_iommu_domain *domain;
	struct kapi_vfio_pci *pci;
	int cfd, gfd, dfd;		/* the device fixture's fds */
	unsigned long arg_page;		/* and its user page, a hole after */
	unsigned long long bits[512];
	unsigned char buf[256] __attribute__((aligned(8)));
} fx;

static unsigned long long tried;

/* RAM_LEN or DMA_LEN bytes of anonymous memory, faulted in. */
static unsigned long populated_anon(unsigned long long len, int writable)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_ANON, .writable = writable,
		.populate = 1,
	});
}

/* The VFIO fixture of the header comment; 0 or what failed. */
static long build_vfio_fixture(enum fixture fix)
{
	long ret;

	fx.proc = given_a_process();
	fx.ram = populated_anon(RAM_LEN, 1);
	fx.ro = populated_anon(DMA_LEN, 0);
	fx.hole = populated_anon(DMA_LEN, 1);
	assert_int_equal(kapi_mm_munmap(fx.hole), 0);
	/* Rows use it as a pointer that faults: the host must not map it. */
	assert_int_equal(sim_host_mapped(fx.hole, DMA_LEN), 0);
	fx.c = open_a_container(fix == FIX_V1 ? KAPI_VFIO_TYPE1_IOMMU :
				KAPI_VFIO_TYPE1v2_IOMMU);
	fx.dev = attach_a_device_of_format(fx.c, SIM_IOMMU_INTEL_SL);
	if (fix != FIX_NO_PINNER)
		fx.mdev = attach_an_emulated_device(fx.c);
	ret = kapi_vfio_map_dma(fx.c, fx.ram, RW_IOVA, DMA_LEN, RW);
	if (!ret)
		ret = kapi_vfio_map_dma(fx.c, fx.ram + DMA_LEN, RO_IOVA,
					DMA_LEN, READ);
	if (!ret)
		ret = kapi_vfio_map_dma(fx.c, fx.ram + 2 * DMA_LEN, WO_IOVA,
					DMA_LEN, WRITE);
	if (!ret && fix == FIX_TRACKING)
		ret = kapi_vfio_dirty_start(fx.c);
	return ret;
}

static long build_iommu_fixture(enum sim_iommu_format_id fmt)
{
	long ret = kapi_iommu_dev_create("bad-input", fmt, NULL, &fx.idev);

	if (!ret)
		ret = kapi_iommu_domain_alloc(fx.idev, &fx.domain);
	if (!ret)
		ret = kapi_iommu_map(fx.domain, LEAF_IOVA, 1 * MiB,
				     fmt == SIM_IOMMU_ARM_LPAE_64K ? 64 * KiB :
				     4 * KiB,
				     KAPI_IOMMU_READ | KAPI_IOMMU_WRITE);
	return ret;
}

/* The device fixture: a VMM's container, group and device fds. */
static long build_device_fixture(enum fixture fix)
{
	struct kapi_vfio_pci_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL,
		.bar_size = { 1 * MiB },
		.no_feature_op = fix == FIX_PCI_NO_FEATURE,
	};
	long ret;

	fx.proc = given_a_process();
	fx.arg_page = populated_anon(PAGE, 1);
	/* The page after it: mapped and unmapped again, so no VMA there. */
	assert_int_equal(kapi_mm_munmap(map_memory(&(struct kapi_mm_map){
		.addr = fx.arg_page + PAGE, .len = PAGE,
		.kind = KAPI_MM_ANON, .writable = 1,
	})), 0);
	ret = kapi_vfio_pci_create(&o, &fx.pci);
	if (ret)
		return ret;
	fx.cfd = kapi_vfio_container_fd_open();
	if (fx.cfd < 0)
		return fx.cfd;
	fx.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(fx.pci));
	if (fx.gfd < 0)
		return fx.gfd;
	ret = kapi_vfio_group_set_container(fx.gfd, fx.cfd);
	if (!ret)
		ret = kapi_vfio_ioctl_val(fx.cfd, KAPI_VFIO_SET_IOMMU,
					  KAPI_VFIO_TYPE1v2_IOMMU);
	if (ret)
		return ret;
	fx.dfd = kapi_vfio_group_get_device_fd(fx.gfd,
					       kapi_vfio_pci_name(fx.pci));
	return fx.dfd < 0 ? fx.dfd : 0;
}

static long build_fixture(const struct bad_input *r)
{
	memset(&fx, 0, sizeof(fx));
	fx.heap_fd = -1;
	fx.cfd = fx.gfd = fx.dfd = -1;
	switch (r->entry) {
	case SET_IOMMU_ENTRY:
		fx.proc = given_a_process();
		return 0;
	case HEAP_ALLOC_ENTRY:
	case HEAP_IOCTL_ENTRY:
		fx.heap_fd = kapi_heap_open("system");
		return fx.heap_fd < 0 ? fx.heap_fd : 0;
	case IOMMU_MAP_ENTRY:
	case IOMMU_UNMAP_ENTRY:
		return build_iommu_fixture(r->arg);
	case DEVICE_FEATURE_ENTRY:
		return build_device_fixture(r->fixture);
	default:
		return build_vfio_fixture(r->fixture);
	}
}

static void tear_down_fixture(void)
{
	if (fx.c)
		kapi_vfio_close(fx.c);
	if (fx.proc)
		kapi_proc_destroy(fx.proc);
	if (fx.heap_fd >= 0)
		kapi_close(fx.heap_fd);
	if (fx.domain) {
		kapi_iommu_unmap(fx.domain, LEAF_IOVA, 64 * KiB);
		kapi_iommu_domain_free(fx.domain);
	}
	if (fx.idev)
		kapi_iommu_dev_destroy(fx.idev);
	if (fx.dfd >= 0)
		kapi_close(fx.dfd);
	if (fx.gfd >= 0)
		kapi_close(fx.gfd);
	if (fx.cfd >= 0)
		kapi_close(fx.cfd);
	if (fx.pci)
		kapi_vfio_pci_destroy(fx.pci);
}

/* ---- the calls ---- */

static unsigned long long vaddr_of(unsigned long long v)
{
	unsigned long long off = v & ((1ULL << VA_REGION_SHIFT) - 1);

	switch (v >> VA_REGION_SHIFT) {
	case 1:
		return fx.ram + off;
	case 2:
		return fx.ro + off;
	case 3:
		return fx.hole + off;
	case 4:
		return off;
	case 5:
		return 0ULL - off;
	default:
		return TOP_IOVA;
	}
}

/* The row's bitmap, or NULL when it has none. */
static const struct kapi_vfio_bitmap *bitmap_of(const struct bad_input *r,
						struct kapi_vfio_bitmap *bm)
{
	if (r->bitmap.where == BM_NONE)
		return NULL;
	bm->pgsize = r->bitmap.pgsize;
	bm->size = r->bitmap.bytes;
	/* Past the user half: access_ok() refuses it. */
	if (r->bitmap.where == BM_KERNEL)
		bm->data = (unsigned long long *)(1ULL << 47);
	else if (r->bitmap.where == BM_HOLE)
		bm->data = (unsigned long long *)fx.hole;
	else
		bm->data = fx.bits;
	return bm;
}

/* _IOC(dir, 'H', nr, size), the dma-heap ioctl encoding (x86). */
static unsigned int heap_ioc(unsigned int dir, unsigned int nr,
			     unsigned int size)
{
	return dir << 30 | size << 16 | 'H' << 8 | nr;
}

/* struct dma_heap_allocation_data: len, fd, fd_flags, heap_flags. */
static long heap_ioctl(const struct bad_input *r)
{
	unsigned int fd_field = r->arg2, fd_flags = O_RDWR | KAPI_O_CLOEXEC;
	unsigned long long heap_flags = 0;
	long ret;

	memset(fx.buf, 0, sizeof(fx.buf));
	memcpy(fx.buf, &r->size, 8);
	memcpy(fx.buf + 8, &fd_field, 4);
	memcpy(fx.buf + 12, &fd_flags, 4);
	memcpy(fx.buf + 16, &heap_flags, 8);
	ret = kapi_ioctl(fx.heap_fd, heap_ioc(r->flags, r->arg, r->argsz),
			 r->null_arg ? NULL : fx.buf);
	if (!ret) {
		/* Accepted after all: give the buffer back. */
		memcpy(&fd_field, fx.buf + 8, 4);
		kapi_close(fd_field);
	}
	return ret;
}

/*
 * struct vfio_device_feature and its payload's first s32, in the user
 * page, r->size bytes before its end.
 */
static long device_feature(const struct bad_input *r)
{
	const int payload[] = {
		[P_ZERO] = 0, [P_NEG] = -1, [P_CLOSED] = CLOSED_FD,
		[P_FILE] = fx.cfd,
	};
	unsigned int words[3] = { r->argsz, r->flags, payload[r->arg] };
	unsigned long uarg = fx.arg_page + PAGE - r->size;
	unsigned long pfn;
	unsigned char *page;
	int level;

	assert_int_equal(kapi_mm_cpu_pfn(fx.arg_page, &pfn, &level), 0);
	page = sim_phys_to_virt((sim_phys_t)pfn * PAGE);
	memset(page, 0, PAGE);
	memcpy(page + PAGE - r->size, words,
	       r->size < sizeof(words) ? r->size : sizeof(words));
	return kapi_vfio_ioctl_val(fx.dfd, KAPI_VFIO_DEVICE_FEATURE, uarg);
}

static long call(const struct bad_input *r)
{
	struct kapi_vfio_bitmap bm;
	unsigned long long out;
	unsigned long pfns[4];
	struct kapi_vfio *c;
	long ret;

	switch (r->entry) {
	case MAP_DMA_ENTRY:
		return kapi_vfio_raw_map_dma(fx.c, r->argsz, r->flags,
					     vaddr_of(r->vaddr), r->iova,
					     r->size);
	case UNMAP_DMA_ENTRY:
		return kapi_vfio_raw_unmap_dma(fx.c, r->argsz, r->flags,
					       r->iova, r->size,
					       bitmap_of(r, &bm), &out);
	case GET_INFO_ENTRY:
		return kapi_vfio_raw_get_info(fx.c, r->argsz, fx.buf,
					      sizeof(fx.buf));
	case DIRTY_PAGES_ENTRY:
		return kapi_vfio_raw_dirty(fx.c, r->argsz, r->flags, r->iova,
					   r->size, bitmap_of(r, &bm));
	case CHECK_EXTENSION_ENTRY:
		return kapi_vfio_check_extension(fx.c, r->arg);
	case VFIO_IOCTL_ENTRY:
		return kapi_vfio_raw_ioctl(fx.c, r->arg,
					   r->null_arg == ARG_NULL ? 0 :
					   r->null_arg == ARG_HOLE ? fx.hole :
					   (unsigned long)fx.buf);
	case SET_IOMMU_ENTRY:
		ret = kapi_vfio_open(r->arg, &c);
		if (!ret)
			kapi_vfio_close(c);
		return ret;
	case PIN_PAGES_ENTRY:
		ret = kapi_vfio_pin_pages(fx.c, fx.mdev ? fx.mdev : fx.dev,
					  r->iova, r->arg, r->flags, pfns);
		if (ret > 0)
			kapi_vfio_unpin_pages(fx.c, fx.mdev ? fx.mdev : fx.dev,
					      r->iova, ret);
		return ret;
	case DMA_RW_ENTRY:
		return kapi_vfio_dma_rw(fx.c, r->iova, fx.buf, r->size,
					r->arg);
	case HEAP_ALLOC_ENTRY:
		ret = kapi_heap_alloc(fx.heap_fd, r->size, r->flags, r->arg);
		if (ret >= 0) {
			kapi_close(ret);
			ret = 0;
		}
		return ret;
	case HEAP_IOCTL_ENTRY:
		return heap_ioctl(r);
	case IOMMU_MAP_ENTRY:
		ret = (r->flags ? kapi_iommu_map_bad_gfp : kapi_iommu_map)
			(fx.domain, r->iova, r->arg2, r->size,
			 KAPI_IOMMU_READ | KAPI_IOMMU_WRITE);
		if (!ret)
			kapi_iommu_unmap(fx.domain, r->iova, r->size);
		return ret;
	case IOMMU_UNMAP_ENTRY:
		return kapi_iommu_unmap(fx.domain, r->iova, r->size);
	case DEVICE_FEATURE_ENTRY:
		return device_feature(r);
	}
	return -ENOSYS;
}

/* ---- the invariant ---- */

/* What a refused call must leave as it was, beyond the machine's counts. */
struct fixture_state {
	struct leak_snapshot machine;
	unsigned long long leaves;
	unsigned long mdev_pins;
	struct kapi_vfio_pci_stats pci;
};

static void take_fixture_state(struct fixture_state *s)
{
	leak_snapshot_take(&s->machine);
	s->leaves = fx.dev ? kapi_vfio_dev_nr_leaves(fx.dev) :
		    fx.domain ?
		    sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(fx.domain)) :
		    0;
	s->mdev_pins = fx.mdev ? kapi_vfio_dev_nr_pins(fx.mdev) : 0;
	memset(&s->pci, 0, sizeof(s->pci));
	if (fx.pci)
		kapi_vfio_pci_stats(fx.pci, &s->pci);
}

/* The device's driver: asked as often as the row says, and nothing done. */
static void check_the_driver(const struct bad_input *r,
			     const struct fixture_state *before,
			     const struct fixture_state *after,
			     void (*say)(void *, const char *), void *rep)
{
	struct kapi_vfio_pci_stats b = before->pci, a = after->pci;

	if (r->entry != DEVICE_FEATURE_ENTRY)
		return;
	if (a.features - b.features != r->arg2)
		say(rep, a.features == b.features ?
			 "the driver's device_feature was not called" :
			 "the driver's device_feature was called");
	/* Everything else the driver counts stays. */
	a.features = b.features;
	if (memcmp(&a, &b, sizeof(a)))
		say(rep, "the device's state changed (open, close, power, "
			 "faults or zaps)");
}

static const char *const entry_names[] = {
	[MAP_DMA_ENTRY] = "VFIO_IOMMU_MAP_DMA",
	[UNMAP_DMA_ENTRY] = "VFIO_IOMMU_UNMAP_DMA",
	[GET_INFO_ENTRY] = "VFIO_IOMMU_GET_INFO",
	[DIRTY_PAGES_ENTRY] = "VFIO_IOMMU_DIRTY_PAGES",
	[CHECK_EXTENSION_ENTRY] = "VFIO_CHECK_EXTENSION",
	[VFIO_IOCTL_ENTRY] = "the container ioctl",
	[SET_IOMMU_ENTRY] = "VFIO_SET_IOMMU",
	[PIN_PAGES_ENTRY] = "vfio_pin_pages",
	[DMA_RW_ENTRY] = "vfio_dma_rw",
	[HEAP_ALLOC_ENTRY] = "DMA_HEAP_IOCTL_ALLOC",
	[HEAP_IOCTL_ENTRY] = "the dma-heap ioctl",
	[IOMMU_MAP_ENTRY] = "iommu_map",
	[IOMMU_UNMAP_ENTRY] = "iommu_unmap",
	[DEVICE_FEATURE_ENTRY] = "VFIO_DEVICE_FEATURE",
};

struct row_report {
	const struct bad_input *row;
	const char *when;
	int bad;
};

static void say(void *ctx, const char *msg)
{
	struct row_report *rep = ctx;

	printf("bad input: %s: %s: %s %s\n", entry_names[rep->row->entry],
	       rep->row->what, msg, rep->when);
	rep->bad = 1;
}


/*
 * One row on a fresh machine; 0 if the kernel behaved as the row says.
 * check 0: a warm-up, unchecked and uncounted (the first use of a kernel
 * path in the process sets up one-time state, as in the sweeps).
 */
static int try_row(const struct bad_input *r, int check)
{
	struct row_report rep = { .row = r };
	struct fixture_state before, after;
	struct leak_snapshot gone;
	/* The only WARN a row may give: iommu_map()'s gfp check. */
	int warning_ok = r->entry == IOMMU_MAP_ENTRY && r->flags;
	long ret;

	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 256 * MiB });
	ret = build_fixture(r);
	if (!check) {
		if (!ret)
			call(r);
		tear_down_fixture();
		sim_machine_destroy();
		return 0;
	}
	tried++;
	if (ret) {
		printf("bad input: %s: %s: fixture failed: %ld\n",
		       entry_names[r->entry], r->what, ret);
		rep.bad = 1;
	} else {
		take_fixture_state(&before);
		ret = call(r);
		take_fixture_state(&after);
		if (ret != r->expect) {
			printf("bad input: %s: %s: returned %ld, want %ld\n",
			       entry_names[r->entry], r->what, ret, r->expect);
			rep.bad = 1;
		}
		rep.when = "by the call";
		leak_snapshot_diff(&before.machine, &after.machine, LEAK_ALL, 0,
				   warning_ok, say, &rep);
		if (after.leaves != before.leaves)
			say(&rep, "the IOMMU leaves changed");
		if (after.mdev_pins != before.mdev_pins)
			say(&rep, "the emulated device's pins changed");
		check_the_driver(r, &before, &after, say, &rep);
	}
	tear_down_fixture();
	leak_snapshot_take(&gone);
	rep.when = "after teardown";
	leak_snapshot_diff(&at_start, &gone, LEAK_ALL, 0, 1, say, &rep);
	sim_machine_destroy();
	return rep.bad;
}

static void try_table(const struct bad_input *rows, size_t n)
{
	int failed = 0;

	try_row(&rows[0], 0);
	for (size_t i = 0; i < n; i++)
		failed += try_row(&rows[i], 1);
	if (failed)
		fail_msg("%d of %zu %s rows failed", failed, n,
			 entry_names[rows[0].entry]);
}

#define TABLE_TEST(name)						\
	static void test_##name(void **state)				\
	{								\
		try_table(name##_rows, ARRAY_SIZE(name##_rows));	\
	}

/* Each entry point's table: the kernel's errno, nothing left behind. */
TABLE_TEST(map_dma)
TABLE_TEST(unmap_dma)
TABLE_TEST(get_info)
TABLE_TEST(dirty_pages)
TABLE_TEST(check_extension)
TABLE_TEST(vfio_ioctl)
TABLE_TEST(set_iommu)
TABLE_TEST(pin_pages)
TABLE_TEST(dma_rw)
TABLE_TEST(heap_alloc)
TABLE_TEST(iommu_map)
TABLE_TEST(iommu_unmap)
TABLE_TEST(device_feature)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_dma),
		cmocka_unit_test(test_unmap_dma),
		cmocka_unit_test(test_get_info),
		cmocka_unit_test(test_dirty_pages),
		cmocka_unit_test(test_check_extension),
		cmocka_unit_test(test_vfio_ioctl),
		cmocka_unit_test(test_set_iommu),
		cmocka_unit_test(test_pin_pages),
		cmocka_unit_test(test_dma_rw),
		cmocka_unit_test(test_heap_alloc),
		cmocka_unit_test(test_iommu_map),
		cmocka_unit_test(test_iommu_unmap),
		cmocka_unit_test(test_device_feature),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	printf("bad inputs tried: %llu\n", tried);
	return ret;
}
