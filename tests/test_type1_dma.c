// SPDX-License-Identifier: GPL-2.0-only
/*
 * VFIO type1's DMA half (core/drivers/vfio/vfio_iommu_type1.c, or a kernel
 * tree's in upstream mode), beyond the VMM's everyday MAP/UNMAP that
 * tests/test_type1.c covers:
 *  - device reads and writes through the backend (vfio_dma_rw(), as an
 *    emulated device's driver uses it), from the owner, from a kernel
 *    thread borrowing the owner's mm, from anyone else, across DMAs;
 *  - live update (VFIO_UPDATE_VADDR): vaddrs invalidated, then given
 *    back, by the same process, another one, or the same one after exec,
 *    with locked_vm moving between address spaces;
 *  - the external pin interface's refusals and races;
 *  - dirty bitmaps of bad sizes, failing copies, and their limits;
 *  - the error paths of pinning and mapping that only a fault point, a
 *    module parameter or an exited owner reaches;
 *  - fail-nth sweeps (tests/sweep.h) over a live update to another process
 *    and over an emulated device's pins, writes and racing re-pins.
 *
 * After every error the kernel's errno is asserted and so is the state:
 * nothing pinned, mapped or charged beyond what the scenario still holds,
 * and at the end of each test nothing at all (no kernel object, no WARN
 * the test did not expect).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_mm_page.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "known_bug.h"
#include "shared.h"
#include "sweep.h"

/* intel-sl's smallest leaf is 4 KiB (its format): leaves per CPU page. */
#define INTEL_LEAVES_PER_PAGE	(PAGE / SZ_4K)
#define RW	KAPI_VFIO_DMA_MAP_RW
#define RD	KAPI_VFIO_DMA_MAP_FLAG_READ
#define WR	KAPI_VFIO_DMA_MAP_FLAG_WRITE
#define VADDR_MAP	KAPI_VFIO_DMA_MAP_FLAG_VADDR
#define VADDR_UNMAP	KAPI_VFIO_DMA_UNMAP_FLAG_VADDR
#define UNMAP_ALL	KAPI_VFIO_DMA_UNMAP_FLAG_ALL
/* What a range that wraps past 2^64 - 1 gets. */
#define WRAP_ERRNO (DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES ? -EOVERFLOW : -EINVAL)

/* A booted 4 GiB machine and a process: the owner of the DMAs. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 4 * GiB });
	given_a_process();
	return 0;
}

/* Every process gone, nothing left (shared.h); hugepages back on. */
static int teardown(void **state)
{
	assert_int_equal(kapi_param_set("vfio_iommu_type1.disable_hugepages",
					"0"), 0);
	check_and_destroy();
	return 0;
}

/* ---- helpers that read like sentences ---- */

/* The bytes the CPU sees at va (the page faulted in for writing). */
static unsigned char *cpu_bytes(unsigned long va)
{
	unsigned long pfn;

	assert_int_equal(kapi_mm_touch(va, 1, 1), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, NULL), 0);
	return (unsigned char *)sim_phys_to_virt((sim_phys_t)pfn << SIM_PAGE_SHIFT) +
	       (va & (PAGE - 1));
}

/* UNMAP_DMA with VFIO_DMA_UNMAP_FLAG_VADDR: the bytes whose vaddr went. */
static long invalidate_vaddrs(struct kapi_vfio *c, unsigned long long iova,
			      unsigned long long size, unsigned int flags,
			      unsigned long long *bytes)
{
	return kapi_vfio_unmap_dma(c, iova, size, VADDR_UNMAP | flags, bytes);
}

static long give_new_vaddr(struct kapi_vfio *c, unsigned long va,
			   unsigned long long iova, unsigned long long size)
{
	return kapi_vfio_map_dma(c, va, iova, size, VADDR_MAP);
}

static unsigned long pins_held(void)
{
	return kapi_mm_pins_outstanding() - at_start.pins;
}

/* Locked_vm of process p, read as p. */
static unsigned long locked_vm_of(struct kapi_proc *p)
{
	struct kapi_proc *was = kapi_proc_current();
	unsigned long pages;

	kapi_proc_set_current(p);
	pages = kapi_mm_locked_vm();
	kapi_proc_set_current(was);
	return pages;
}

/*
 * An external pin of one page at iova whose record in type1 cannot be
 * allocated: fail the 2nd, 3rd ... fallible call of the pin until the one
 * failing is the first kmalloc after kapi's own page array (call 1), and
 * expect -ENOMEM there.  An earlier failure either pins nothing or is
 * worked around (GUP failing on a pfnmap, which is only looked up).
 */
static void pin_with_its_record_failing(struct kapi_vfio *c,
					struct kapi_vfio_dev *dev,
					unsigned long long iova)
{
	for (unsigned long long nth = 2; nth < 32; nth++) {
		unsigned long pfn;
		int ret, point;

		sim_fault_nth_start(nth, 0);
		ret = kapi_vfio_pin_pages(c, dev, iova, 1, RW, &pfn);
		point = sim_fault_nth_first_point();
		sim_fault_nth_stop();
		if (ret > 0) {
			assert_int_not_equal(point, SIM_FP_KMALLOC);
			kapi_vfio_unpin_pages(c, dev, iova, 1);
		}
		assert_int_equal(kapi_vfio_dev_nr_pins(dev), 0);
		if (point == SIM_FP_KMALLOC) {
			assert_int_equal(ret, -ENOMEM);
			return;
		}
	}
	fail_msg("no kmalloc in an external pin");
}

/* ---- device reads and writes (vfio_dma_rw) ---- */

/*
 *   va:    [ anon page 0 | anon page 1 ]      iova 1 MiB
 *                      ^^^^^^^^ 16 bytes straddle the page boundary
 *
 * An emulated device reads untouched memory as zeros, writes 16 bytes
 * across two pages into exactly the bytes the CPU sees there, and reads
 * them back; nothing gets pinned or charged for it.
 */
static void test_device_reads_and_writes_the_owners_memory(void **state)
{
	static const unsigned char data[16] = "0123456789abcdef";
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * PAGE);
	unsigned char buf[16];

	attach_an_emulated_device(c);
	map_dma(c, va, MiB, 2 * PAGE, RW);

	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(kapi_vfio_dma_rw(c, MiB + PAGE - 8, buf, 16, 0), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);

	assert_int_equal(kapi_vfio_dma_rw(c, MiB + PAGE - 8, (void *)data, 16, 1),
			 0);
	assert_memory_equal(cpu_bytes(va + PAGE - 8), data, 8);
	assert_memory_equal(cpu_bytes(va + PAGE), data + 8, 8);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(kapi_vfio_dma_rw(c, MiB + PAGE - 8, buf, 16, 0), 0);
	assert_memory_equal(buf, data, 16);

	assert_int_equal(pins_held(), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	unmap_dma_exactly(c, MiB, 2 * PAGE);
	kapi_vfio_close(c);
}

/*
 * A kernel thread (no mm of its own: the boot task) borrows the owner's
 * mm for each access and gives it back, twice in a row; its writes land
 * in the owner's pages.
 */
static void test_kernel_thread_borrows_the_owners_mm(void **state)
{
	struct kapi_proc *owner = kapi_proc_current();
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(PAGE);
	unsigned int word = 0xfeedf00d, back = 0;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, PAGE, RW);

	kapi_proc_set_current(NULL);
	assert_int_equal(kapi_vfio_dma_rw(c, 64, &word, sizeof(word), 1), 0);
	assert_int_equal(kapi_vfio_dma_rw(c, 64, &back, sizeof(back), 0), 0);
	kapi_proc_set_current(owner);

	assert_int_equal(back, word);
	assert_memory_equal(cpu_bytes(va + 64), &word, sizeof(word));
	unmap_dma_exactly(c, 0, PAGE);
	kapi_vfio_close(c);
}

/* A user thread of another process may not reach the owner's memory: -EFAULT. */
static void test_another_process_gets_efault(void **state)
{
	struct kapi_proc *owner = kapi_proc_current(), *other;
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(PAGE);
	unsigned int word = 0x12345678;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, PAGE, RW);

	other = kapi_proc_create();
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 1), -EFAULT);
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 0), -EFAULT);
	assert_int_equal(word, 0x12345678);
	kapi_proc_set_current(owner);
	kapi_proc_destroy(other);

	assert_int_equal(*(unsigned int *)cpu_bytes(va), 0);
	unmap_dma_exactly(c, 0, PAGE);
	kapi_vfio_close(c);
}

/*
 * The last byte of a DMA belongs to it: a one-byte write and read there
 * reach the owner's last byte, the byte after it belongs to no DMA.
 */
static void test_last_byte_of_a_dma_is_reachable(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * PAGE);
	unsigned char byte = 0xa5, back = 0;

	attach_an_emulated_device(c);
	map_dma(c, va, MiB, 2 * PAGE, RW);

	assert_int_equal(kapi_vfio_dma_rw(c, MiB + 2 * PAGE - 1, &byte, 1, 1), 0);
	assert_int_equal(kapi_vfio_dma_rw(c, MiB + 2 * PAGE - 1, &back, 1, 0), 0);
	assert_int_equal(back, byte);
	assert_int_equal(*(unsigned char *)cpu_bytes(va + 2 * PAGE - 1), byte);
	assert_int_equal(kapi_vfio_dma_rw(c, MiB + 2 * PAGE, &back, 1, 0),
			 -EINVAL);

	unmap_dma_exactly(c, MiB, 2 * PAGE);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ DMA a: 1 page ][ DMA b: 1 page ][ nothing ]
 *   va:    [ a ]  (hole)    [ b ]
 *
 * One access is split at the DMA boundary and lands in both VMAs; one
 * that runs past b writes b's part, then fails on the hole with -EINVAL.
 */
static void test_access_crosses_dmas_and_stops_at_a_hole(void **state)
{
	static const unsigned char data[16] = "ABCDEFGHIJKLMNOP";
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long a = map_anon(PAGE), b = map_anon(PAGE);

	attach_an_emulated_device(c);
	map_dma(c, a, 0, PAGE, RW);
	map_dma(c, b, PAGE, PAGE, RW);

	assert_int_equal(kapi_vfio_dma_rw(c, PAGE - 8, (void *)data, 16, 1), 0);
	assert_memory_equal(cpu_bytes(a + PAGE - 8), data, 8);
	assert_memory_equal(cpu_bytes(b), data + 8, 8);

	assert_int_equal(kapi_vfio_dma_rw(c, 2 * PAGE - 4, (void *)data, 16, 1),
			 -EINVAL);
	assert_memory_equal(cpu_bytes(b + PAGE - 4), data, 4);

	unmap_dma_exactly(c, 0, 2 * PAGE);
	kapi_vfio_close(c);
}

struct rw_refusal {
	const char *what;
	unsigned int prot;		/* of the DMA at iova 0; 0: none */
	int write;
	int err;
};

/* Accesses the mapping's permissions or the IOVA space refuse, and their errno. */
static void test_refused_accesses(void **state)
{
	static const struct rw_refusal cases[] = {
		{ "write to a read-only mapping", RD, 1, -EPERM },
		{ "read of a write-only mapping", WR, 0, -EPERM },
		{ "write to a write-only mapping", WR, 1, -EPERM },
		{ "read where nothing is mapped", 0, 0, -EINVAL },
		{ "write where nothing is mapped", 0, 1, -EINVAL },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rw_refusal *t = &cases[i];
		struct kapi_vfio *c = open_a_v2_container();
		unsigned long va = map_anon(PAGE);
		unsigned int word = 0xa5a5a5a5;

		attach_an_emulated_device(c);
		if (t->prot)
			map_dma(c, va, 0, PAGE, t->prot);
		assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word),
						  t->write), t->err);
		assert_int_equal(word, 0xa5a5a5a5);
		assert_int_equal(*(unsigned int *)cpu_bytes(va), 0);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
		assert_nothing_held();
	}
}

/* A copy that faults (either direction) is -EFAULT and changes nothing. */
static void test_faulting_copy_is_efault(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(PAGE);
	unsigned int word = 0x5a5a5a5a;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, PAGE, RW);
	fail_every_call_of("shim/uaccess/copy_to_user");
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, 4, 1), -EFAULT);
	stop_failing("shim/uaccess/copy_to_user");
	fail_every_call_of("shim/uaccess/copy_from_user");
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, 4, 0), -EFAULT);
	stop_failing("shim/uaccess/copy_from_user");
	assert_int_equal(word, 0x5a5a5a5a);
	assert_int_equal(*(unsigned int *)cpu_bytes(va), 0);
	unmap_dma_exactly(c, 0, PAGE);
	kapi_vfio_close(c);
}

/*
 * An ioctl whose copy to or from the user fails is -EFAULT: UNMAP_DMA
 * whose result cannot be copied back (the mapping is gone all the same:
 * the unmap came first; nothing stays pinned), and a dirty-bitmap query
 * whose range cannot be read (the second copy_from_user(), after the
 * header's).
 */
static void test_ioctls_whose_user_copies_fault_are_efault(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(PAGE);
	unsigned long long bitmap = 0;

	map_dma(c, va, 0, PAGE, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);
	fail_nth_call_of("shim/uaccess/copy_from_user", 1);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, PAGE, PAGE, &bitmap,
					     sizeof(bitmap)), -EFAULT);
	assert_true(stop_failing("shim/uaccess/copy_from_user") > 1);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);

	fail_every_call_of("shim/uaccess/copy_to_user");
	assert_int_equal(kapi_vfio_unmap_dma(c, 0, PAGE, 0, NULL), -EFAULT);
	stop_failing("shim/uaccess/copy_to_user");
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   iova:  [ p0 | p1 | p2 | p3 ]   an emulated device's mapping; p2
 *                                  pinned before tracking starts
 *
 * A page the device holds pinned when tracking starts may be written any
 * time: it reads dirty from the first GET_BITMAP on, as long as it stays
 * pinned.
 */
static void test_pages_pinned_before_tracking_read_dirty(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
	unsigned long va = map_anon(4 * PAGE), pfn;
	unsigned long long bits = 0;

	map_dma(c, va, 0, 4 * PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 2 * PAGE, 1, RW, &pfn), 1);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 4 * PAGE, PAGE, &bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits, 1ULL << 2);
	kapi_vfio_unpin_pages(c, mdev, 2 * PAGE, 1);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, 0, 4 * PAGE);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ p0 | p1 | p2 | p3 ]   an emulated device's mapping, tracked
 *                ^^^^ a 2-byte write across p1/p2
 *
 * Under dirty tracking a device write dirties exactly the pages it
 * touched (a write of p1 whole: p1 alone), a read dirties nothing, and
 * reading the bitmap clears it.
 */
static void test_device_writes_dirty_the_pages_they_touch(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(4 * PAGE);
	unsigned long long bits = ~0ULL;
	unsigned char two[2] = { 1, 2 }, *page;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, 4 * PAGE, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);

	assert_int_equal(kapi_vfio_dma_rw(c, 3 * PAGE, two, 2, 0), 0);
	assert_int_equal(kapi_vfio_dma_rw(c, 2 * PAGE - 1, two, 2, 1), 0);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 4 * PAGE, PAGE, &bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits, 0x6);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 4 * PAGE, PAGE, &bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits, 0);

	page = calloc(1, PAGE);
	assert_non_null(page);
	assert_int_equal(kapi_vfio_dma_rw(c, PAGE, page, PAGE, 1), 0);
	free(page);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 4 * PAGE, PAGE, &bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits, 0x2);

	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, 0, 4 * PAGE);
	kapi_vfio_close(c);
}

/*
 * The owner exits while its DMAs stay mapped and pinned: a kernel thread's
 * access is refused (-EPERM: no mm to borrow), an emulated device cannot
 * pin (-ENODEV), and closing the container from the kernel unpins
 * everything (the dead mm's locked_vm is not touched).
 */
static void test_owner_that_exited(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev;
	unsigned long va = map_anon(2 * MiB), pfn;
	unsigned int word;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	mdev = attach_an_emulated_device(c);
	map_dma(c, va, 0, 2 * MiB, RW);
	assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);

	kapi_proc_destroy(kapi_proc_current());
	assert_int_equal(pins_held(), 2 * MiB / PAGE);

	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 0), -EPERM);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), -ENODEV);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 0);

	kapi_vfio_close(c);
	assert_int_equal(pins_held(), 0);
}

/*
 * While a vaddr is invalid (live update in progress) neither device reads
 * and writes nor external pins may run: -EBUSY, with a WARN the first
 * time each is tried.  With the vaddr back both work again.
 */
static void test_device_access_waits_for_the_new_vaddr(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(PAGE), pfn;
	unsigned long long bytes;
	unsigned int word = 7;

	assert_int_equal(kapi_vfio_dev_register_pinning(c, dev), 0);
	map_dma(c, va, 0, PAGE, RW);
	assert_int_equal(invalidate_vaddrs(c, 0, PAGE, 0, &bytes), 0);
	assert_int_equal(bytes, PAGE);

	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 1), -EBUSY);
	assert_int_equal(kapi_vfio_pin_pages(c, dev, 0, 1, RW, &pfn), -EBUSY);
	expect_warnings(2);
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 1), -EBUSY);
	assert_int_equal(kapi_vfio_pin_pages(c, dev, 0, 1, RW, &pfn), -EBUSY);
	expect_warnings(0);	/* once */

	assert_int_equal(give_new_vaddr(c, va, 0, PAGE), 0);
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 1), 0);
	assert_int_equal(kapi_vfio_pin_pages(c, dev, 0, 1, RW, &pfn), 1);
	kapi_vfio_unpin_pages(c, dev, 0, 1);
	unmap_dma_exactly(c, 0, PAGE);
	kapi_vfio_close(c);
}

/* ---- live update (VFIO_UPDATE_VADDR) ---- */

/*
 *   va old: [ anon 2 MiB ]  --invalidate-->  va new: [ anon 2 MiB ]
 *   iova:   [ 1 GiB, +2 MiB )  stays mapped and pinned throughout
 *
 * Within one process: the vaddr goes (the IOMMU keeps translating to the
 * old pages, still pinned and charged once), invalidating twice fails,
 * the new vaddr comes, and device accesses then reach the new memory.
 */
static void test_live_update_within_one_process(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long old = map_anon(2 * MiB), new = map_anon(2 * MiB);
	unsigned long pfn_before, pfn_after;
	unsigned long long bytes;
	unsigned int word;

	map_dma(c, old, GiB, 2 * MiB, RW);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev, GiB, &pfn_before), 0);

	assert_int_equal(invalidate_vaddrs(c, GiB, 2 * MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);
	assert_int_equal(invalidate_vaddrs(c, GiB, 2 * MiB, 0, &bytes), -EINVAL);
	assert_int_equal(bytes, 2 * MiB);	/* a failed ioctl writes nothing back */
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev, GiB, &pfn_after), 0);
	assert_int_equal(pfn_after, pfn_before);
	assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);

	*(unsigned int *)cpu_bytes(new + 8) = 0xc0ffee;
	assert_int_equal(give_new_vaddr(c, new, GiB, 2 * MiB), 0);
	assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);
	assert_int_equal(pins_held(), 2 * MiB / PAGE);
	assert_int_equal(kapi_vfio_dma_rw(c, GiB + 8, &word, sizeof(word), 0), 0);
	assert_int_equal(word, 0xc0ffee);

	unmap_dma_exactly(c, GiB, 2 * MiB);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	kapi_vfio_close(c);
}

struct bad_vaddr {
	const char *what;
	unsigned long long va;		/* 0: the new VMA */
	unsigned long long iova, size;
	int err;
};

/*
 *   iova:  [ 1 GiB, +2 MiB ) vaddr invalid   [ 2 GiB, +2 MiB ) vaddr valid
 *
 * MAP_DMA with VFIO_DMA_MAP_FLAG_VADDR must name an invalidated DMA
 * exactly; each miss is refused with the kernel's errno and leaves the
 * DMA waiting, so the exact request still succeeds afterwards.
 */
static void test_new_vaddr_must_match_an_invalid_dma_exactly(void **state)
{
	const struct bad_vaddr cases[] = {
		{ "a DMA whose vaddr is valid", 0, 2 * GiB, 2 * MiB, -EINVAL },
		{ "inside the DMA, not at its start", 0, GiB + MiB, MiB, -EINVAL },
		{ "at its start, shorter", 0, GiB, MiB, -EINVAL },
		{ "at its start, longer", 0, GiB, 4 * MiB, -EINVAL },
		{ "no DMA there", 0, 3 * GiB, 2 * MiB, -ENOENT },
		{ "vaddr + size wraps", ~0ULL - MiB + 1, GiB, 2 * MiB, WRAP_ERRNO },
	};
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long old = map_anon(4 * MiB), new = map_anon(2 * MiB);
	unsigned long long bytes;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, old, GiB, 2 * MiB, RW);
	map_dma(c, old + 2 * MiB, 2 * GiB, 2 * MiB, RW);
	assert_int_equal(invalidate_vaddrs(c, GiB, 2 * MiB, 0, &bytes), 0);

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bad_vaddr *t = &cases[i];
		assert_int_equal(give_new_vaddr(c, t->va ? t->va : new, t->iova,
						t->size), t->err);
		assert_int_equal(kapi_mm_locked_vm(), 4 * MiB / PAGE);
	}
	assert_int_equal(give_new_vaddr(c, new, GiB, 2 * MiB), 0);
	assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0, UNMAP_ALL, &bytes), 0);
	assert_int_equal(bytes, 4 * MiB);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ a: 0, +1 MiB )   [ b: 2 MiB, +1 MiB )
 *
 * Invalidation is all or nothing: with b already invalid, a request over
 * both fails and leaves a valid.  UNMAP_ALL with VADDR invalidates every
 * DMA; DMAs removed while invalid stop counting as invalid (device
 * accesses work again on a new mapping).
 */
static void test_invalidation_is_all_or_nothing(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(4 * MiB);
	unsigned long long bytes;
	unsigned int word = 1;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, 0, MiB, RW);
	map_dma(c, va + 2 * MiB, 2 * MiB, MiB, RW);

	assert_int_equal(invalidate_vaddrs(c, 2 * MiB, MiB, 0, &bytes), 0);
	assert_int_equal(invalidate_vaddrs(c, 0, 4 * MiB, 0, &bytes), -EINVAL);
	assert_int_equal(invalidate_vaddrs(c, 0, 0, UNMAP_ALL, &bytes), -EINVAL);
	/* a is still valid: there is nothing to give back to it. */
	assert_int_equal(give_new_vaddr(c, va, 0, MiB), -EINVAL);

	assert_int_equal(give_new_vaddr(c, va + 2 * MiB, 2 * MiB, MiB), 0);
	assert_int_equal(invalidate_vaddrs(c, 0, 0, UNMAP_ALL, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);

	/* Removing invalid DMAs ends the update: accesses run again. */
	assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0, UNMAP_ALL, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);
	map_dma(c, va, 0, MiB, RW);
	assert_int_equal(kapi_vfio_dma_rw(c, 0, &word, sizeof(word), 1), 0);
	unmap_dma_exactly(c, 0, MiB);
	kapi_vfio_close(c);
}

/* With an emulated device in the container, vaddrs may not go: -EBUSY. */
static void test_no_live_update_with_an_emulated_device(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(MiB);
	unsigned long long bytes;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, MiB, RW);
	assert_int_equal(invalidate_vaddrs(c, 0, MiB, 0, &bytes), -EBUSY);
	assert_int_equal(give_new_vaddr(c, va, 0, MiB), -EINVAL);
	unmap_dma_exactly(c, 0, MiB);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ 2 MiB, +2 MiB )   one DMA in a v1 (VFIO_TYPE1_IOMMU) container
 *
 * v1 keeps its old looseness: a range starting inside a DMA removes (or
 * invalidates) nothing and succeeds; a range over the DMA's first byte
 * removes all of it, however short.
 */
static void test_v1_container_unmaps_loosely(void **state)
{
	struct kapi_vfio *c = open_a_container(KAPI_VFIO_TYPE1_IOMMU);
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(2 * MiB);
	unsigned long long bytes;

	map_dma(c, va, 2 * MiB, 2 * MiB, RW);
	assert_int_equal(invalidate_vaddrs(c, 3 * MiB, MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(kapi_vfio_unmap_dma(c, 3 * MiB, MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);

	assert_int_equal(invalidate_vaddrs(c, MiB, 2 * MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);
	assert_int_equal(give_new_vaddr(c, va, 2 * MiB, 2 * MiB), 0);
	/* A range starting exactly at the DMA's first byte: the same. */
	assert_int_equal(invalidate_vaddrs(c, 2 * MiB, MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);
	assert_int_equal(give_new_vaddr(c, va, 2 * MiB, 2 * MiB), 0);

	assert_int_equal(kapi_vfio_unmap_dma(c, MiB, 2 * MiB, 0, &bytes), 0);
	assert_int_equal(bytes, 2 * MiB);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
}

/* How the new vaddr's owner comes to be, in the owner-change table. */
enum new_owner {
	ANOTHER_PROCESS,
	ANOTHER_PROCESS_WITH_CAP_IPC_LOCK,
	ANOTHER_PROCESS_OVER_ITS_MEMLOCK,
	ANOTHER_PROCESS_BEING_KILLED,
	ANOTHER_PROCESS_AFTER_THE_OLD_ONE_EXITED,
	THE_SAME_PROCESS_AFTER_EXEC,
};

struct owner_case {
	const char *what;
	enum new_owner how;
	int err;			/* of the first MAP_DMA VADDR */
};

/*
 *   process old: [ anon 2 MiB ] --MAP_DMA--> iova 0, 512 pages charged
 *                UNMAP_DMA VADDR
 *   process new: [ anon 2 MiB ] --MAP_DMA VADDR--> the same DMA
 *
 * The charge moves with the DMA: to the new address space, off the old
 * one, against the new owner's RLIMIT_MEMLOCK unless it has
 * CAP_IPC_LOCK.  A refused move (over the limit, killed) changes nothing
 * and can be retried.  An old owner that exited has nothing to uncharge;
 * after exec the same task owns the DMA through its new mm.  In every
 * case the new owner's unmap uncharges it and unpins everything.
 */
static void test_new_vaddr_from_another_owner_moves_the_charge(void **state)
{
	static const struct owner_case cases[] = {
		{ "another process", ANOTHER_PROCESS, 0 },
		{ "one with CAP_IPC_LOCK and no memlock",
		  ANOTHER_PROCESS_WITH_CAP_IPC_LOCK, 0 },
		{ "one over its memlock", ANOTHER_PROCESS_OVER_ITS_MEMLOCK,
		  -ENOMEM },
		{ "one being killed", ANOTHER_PROCESS_BEING_KILLED, -EINTR },
		{ "one after the old owner exited",
		  ANOTHER_PROCESS_AFTER_THE_OLD_ONE_EXITED, 0 },
		{ "the same process after exec", THE_SAME_PROCESS_AFTER_EXEC, 0 },
	};
	const unsigned long npages = 2 * MiB / PAGE;

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct owner_case *t = &cases[i];
		struct kapi_proc *old = kapi_proc_current(), *new;
		struct kapi_vfio *c = open_a_v2_container();
		unsigned long long bytes;
		unsigned long va;

		attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		map_dma(c, map_anon(2 * MiB), 0, 2 * MiB, RW);
		assert_int_equal(invalidate_vaddrs(c, 0, 2 * MiB, 0, &bytes), 0);

		if (t->how == THE_SAME_PROCESS_AFTER_EXEC) {
			new = old;
			assert_int_equal(kapi_proc_exec(old), 0);
		} else {
			if (t->how == ANOTHER_PROCESS_AFTER_THE_OLD_ONE_EXITED) {
				kapi_proc_destroy(old);
				old = NULL;
			}
			new = kapi_proc_create();
		}
		va = map_anon(2 * MiB);
		if (t->how == ANOTHER_PROCESS_WITH_CAP_IPC_LOCK) {
			kapi_mm_set_rlimit_memlock(0);
			kapi_mm_set_cap_ipc_lock(1);
		}
		if (t->how == ANOTHER_PROCESS_OVER_ITS_MEMLOCK)
			kapi_mm_set_rlimit_memlock(MiB);
		if (t->how == ANOTHER_PROCESS_BEING_KILLED)
			kapi_task_set_fatal_signal(1);

		assert_int_equal(give_new_vaddr(c, va, 0, 2 * MiB), t->err);
		if (t->err) {
			/* Nothing moved: the old owner still pays, retry works. */
			assert_int_equal(kapi_mm_locked_vm(), 0);
			assert_int_equal(locked_vm_of(old), npages);
			kapi_task_set_fatal_signal(0);
			kapi_mm_set_rlimit_memlock(8 * MiB);
			assert_int_equal(give_new_vaddr(c, va, 0, 2 * MiB), 0);
		}
		assert_int_equal(kapi_mm_locked_vm(), npages);
		if (old && old != new)
			assert_int_equal(locked_vm_of(old), 0);
		assert_int_equal(pins_held(), npages);

		unmap_dma_exactly(c, 0, 2 * MiB);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		assert_int_equal(pins_held(), 0);
		kapi_vfio_close(c);
		if (old && old != new)
			kapi_proc_destroy(old);
		kapi_mm_set_cap_ipc_lock(0);
		kapi_mm_set_rlimit_memlock(8 * MiB);
		assert_nothing_held();
	}
}

/*
 *   process old: [ anon 4 pages ] --MAP_DMA--> iova 0, UNMAP_DMA VADDR
 *   process new: [ anon 4 pages ] --MAP_DMA VADDR--> the same DMA, then
 *                RLIMIT_MEMLOCK 0; an emulated device joins, the IOMMU
 *                device leaves (the DMA stays, unpinned, uncharged)
 *
 * The capability moves with the DMA: the emulated device's later pin is
 * charged to the new owner under its own CAP_IPC_LOCK, not the old
 * owner's.  Without it, a memlock of 0 refuses the pin (-ENOMEM) and
 * nothing is pinned or charged; with it, the pin is charged anyway.
 */
static void test_new_owner_pins_under_its_own_capability(void **state)
{
	static const struct {
		const char *what;
		int old_cap, new_cap;
		int ret;			/* of a one-page pin */
	} cases[] = {
		{ "the new owner has CAP_IPC_LOCK, the old one not", 0, 1, 1 },
		{ "the old owner had CAP_IPC_LOCK, the new one not", 1, 0,
		  -ENOMEM },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_proc *old = kapi_proc_current();
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		struct kapi_vfio_dev *mdev;
		unsigned long long bytes;
		unsigned long pfn;

		kapi_mm_set_cap_ipc_lock(cases[i].old_cap);
		map_dma(c, map_anon(4 * PAGE), 0, 4 * PAGE, RW);
		assert_int_equal(invalidate_vaddrs(c, 0, 4 * PAGE, 0, &bytes), 0);
		kapi_proc_create();
		kapi_mm_set_rlimit_memlock(4 * PAGE);
		kapi_mm_set_cap_ipc_lock(cases[i].new_cap);
		assert_int_equal(give_new_vaddr(c, map_anon(4 * PAGE), 0,
						4 * PAGE), 0);
		kapi_mm_set_rlimit_memlock(0);
		mdev = attach_an_emulated_device(c);
		kapi_vfio_detach_dev(c, dev);
		assert_int_equal(kapi_mm_locked_vm(), 0);

		assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn),
				 cases[i].ret);
		assert_int_equal(kapi_vfio_dev_nr_pins(mdev), cases[i].ret > 0);
		assert_int_equal(kapi_mm_locked_vm(), cases[i].ret > 0);
		assert_int_equal(pins_held(), cases[i].ret > 0);
		assert_int_equal(locked_vm_of(old), 0);

		if (cases[i].ret > 0)
			kapi_vfio_unpin_pages(c, mdev, 0, 1);
		kapi_vfio_close(c);
		kapi_proc_destroy(old);
		kapi_mm_set_cap_ipc_lock(0);
		kapi_mm_set_rlimit_memlock(8 * MiB);
		assert_nothing_held();
	}
}

/* ---- the external pin interface ---- */

struct pin_refusal {
	const char *what;
	unsigned long type;		/* container */
	int emulated;			/* else an IOMMU device, not pinning */
	unsigned int map_prot, pin_prot;
	unsigned long long memlock;	/* bytes */
	int killed;
	int npage;
	int err;
};

/*
 *   iova:  [ 0, +4 pages )  mapped with map_prot, owner's memlock as given
 *
 * pin_pages refuses and leaves nothing pinned or charged: v1 containers
 * (-EACCES), a container with no device that pins (-EINVAL), a pin wider
 * than the mapping's permissions (-EPERM), a charge over RLIMIT_MEMLOCK
 * on the first or a later page (-ENOMEM), a charge interrupted by a
 * fatal signal (-EINTR), a range running off the DMA (-EINVAL).
 */
static void test_external_pin_refusals(void **state)
{
	static const struct pin_refusal cases[] = {
		{ "v1 container", KAPI_VFIO_TYPE1_IOMMU, 1, RW, RW, 8 * MiB, 0,
		  1, -EACCES },
		{ "no device that pins", KAPI_VFIO_TYPE1v2_IOMMU, 0, RW, RW,
		  8 * MiB, 0, 1, -EINVAL },
		{ "write pin of a read-only DMA", KAPI_VFIO_TYPE1v2_IOMMU, 1, RD,
		  RW, 8 * MiB, 0, 1, -EPERM },
		{ "no memlock at all", KAPI_VFIO_TYPE1v2_IOMMU, 1, RW, RW, 0, 0,
		  1, -ENOMEM },
		{ "memlock for one page of two", KAPI_VFIO_TYPE1v2_IOMMU, 1, RW,
		  RD, PAGE, 0, 2, -ENOMEM },
		{ "owner being killed", KAPI_VFIO_TYPE1v2_IOMMU, 1, RW, RW,
		  8 * MiB, 1, 1, -EINTR },
		{ "running off the DMA", KAPI_VFIO_TYPE1v2_IOMMU, 1, RW, RW,
		  8 * MiB, 0, 5, -EINVAL },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct pin_refusal *t = &cases[i];
		struct kapi_vfio *c = open_a_container(t->type);
		struct kapi_vfio_dev *dev = t->emulated ?
			attach_an_emulated_device(c) : attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		unsigned long va = map_anon(4 * PAGE), pfns[8];

		map_dma(c, va, 0, 4 * PAGE, t->map_prot);
		kapi_mm_set_rlimit_memlock(t->memlock);
		kapi_task_set_fatal_signal(t->killed);
		assert_int_equal(kapi_vfio_pin_pages(c, dev, 0, t->npage,
						     t->pin_prot, pfns), t->err);
		kapi_task_set_fatal_signal(0);
		kapi_mm_set_rlimit_memlock(8 * MiB);
		assert_int_equal(kapi_vfio_dev_nr_pins(dev), 0);
		if (t->emulated)
			assert_int_equal(kapi_mm_locked_vm(), 0);
		unmap_dma_exactly(c, 0, 4 * PAGE);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
		assert_nothing_held();
	}
}

/*
 * Unpinning what is not pinned: a page of a DMA never pinned is ignored;
 * a page outside every DMA, or any unpin on a v1 container, is a driver
 * bug the kernel WARNs about, changing nothing.
 */
static void test_unpinning_what_is_not_pinned(void **state)
{
	struct kapi_vfio *c = open_a_v2_container(), *v1;
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c), *v1dev;
	unsigned long va = map_anon(4 * PAGE), pfn;

	map_dma(c, va, 0, 4 * PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, PAGE, 1, RW, &pfn), 1);

	kapi_vfio_unpin_pages(c, mdev, 2 * PAGE, 1);
	expect_warnings(0);
	kapi_vfio_unpin_pages(c, mdev, 64 * MiB, 1);
	expect_warnings(1);
	kapi_vfio_unpin_pages(c, mdev, 3 * PAGE, 2);	/* runs off the DMA */
	expect_warnings(1);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 1);
	assert_int_equal(kapi_mm_locked_vm(), 1);

	v1 = open_a_container(KAPI_VFIO_TYPE1_IOMMU);
	v1dev = attach_an_emulated_device(v1);
	kapi_vfio_unpin_pages(v1, v1dev, 0, 1);
	expect_warnings(1);
	kapi_vfio_close(v1);

	kapi_vfio_unpin_pages(c, mdev, PAGE, 1);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	unmap_dma_exactly(c, 0, 4 * PAGE);
	kapi_vfio_close(c);
}

/* The unmap of iova 0, one page, in a child: whether it came back at all. */
static int unmap_of_page_0_returns(void *arg)
{
	unsigned long long bytes = 0;

	return kapi_vfio_unmap_dma(arg, 0, PAGE, 0, &bytes) || bytes != PAGE;
}

/*
 *   iova:  [ 0, +1 page )   pinned by an emulated device
 *
 * Another thread of the device's driver pins the page again each time
 * just after the device unpinned it for an unmap, ten times in a row (the
 * most type1 waits out: an eleventh is a BUG): type1 notifies again
 * until the DMA is free, then removes it.  Eleven races in a row are a
 * device that never lets go: type1's BUG_ON() stops the machine (in a
 * child) instead of notifying for ever.
 */
static void test_unmap_outlasts_pins_that_race_with_it(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
	unsigned long va = map_anon(PAGE), pfn;

	map_dma(c, va, 0, PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), 1);
	kapi_vfio_dev_race_pins_with_dma_unmap(mdev, 11);
	assert_false(returns_0_in_a_child(unmap_of_page_0_returns, c));
	kapi_vfio_dev_race_pins_with_dma_unmap(mdev, 10);

	unmap_dma_exactly(c, 0, PAGE);
	assert_int_equal(kapi_vfio_dev_nr_dma_unmaps(mdev), 11);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 0);
	assert_int_equal(pins_held(), 0);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ 0, +2 MiB )   mapped through an IOMMU device whose driver
 *                          (2 * DIRTY_LEN: 2 MiB or 128 pages)
 *                          also pins (it reports what it touches)
 *
 * Until the device pins, its group could DMA anywhere: every page reads
 * dirty.  Its first pin narrows the group's dirty scope to what it pins:
 * from then on only pinned pages read dirty, as long as they are pinned.
 */
static void test_a_pinning_iommu_device_narrows_the_dirty_scope(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(2 * DIRTY_LEN), pfn;
	unsigned long long bits[2 * DIRTY_LEN / PAGE / 64];

	assert_int_equal(kapi_vfio_dev_register_pinning(c, dev), 0);
	assert_int_equal(kapi_vfio_dev_register_pinning(c, dev), -EINVAL);
	map_dma(c, va, 0, 2 * DIRTY_LEN, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(bits); i++)
		assert_int_equal(bits[i], ~0ULL);

	assert_int_equal(kapi_vfio_pin_pages(c, dev, 5 * PAGE, 1, RW, &pfn), 1);
	/* Already pinned and charged by the IOMMU mapping: not again. */
	assert_int_equal(kapi_mm_locked_vm(), 2 * DIRTY_LEN / PAGE);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits[0], 1ULL << 5);
	for (unsigned i = 1; i < ARRAY_SIZE(bits); i++)
		assert_int_equal(bits[i], 0);

	kapi_vfio_unpin_pages(c, dev, 5 * PAGE, 1);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits[0], 1ULL << 5);	/* pinned for part of it */
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits[0], 0);

	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, 0, 2 * DIRTY_LEN);
	kapi_vfio_close(c);
}

/*
 * With an IOMMU domain and an emulated device, an external pin whose
 * bookkeeping cannot be allocated gives back its extra pin and charges
 * nothing (the IOMMU mapping already pays for the page).
 */
static void test_external_pin_without_memory_for_its_record(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev;
	unsigned long va = map_anon(4 * PAGE);

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	mdev = attach_an_emulated_device(c);
	map_dma(c, va, 0, 4 * PAGE, RW);
	assert_int_equal(pins_held(), 4);

	pin_with_its_record_failing(c, mdev, PAGE);

	assert_int_equal(pins_held(), 4);
	assert_int_equal(kapi_mm_locked_vm(), 4);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 0);
	unmap_dma_exactly(c, 0, 4 * PAGE);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ 0, +1 page )        pinned by an emulated device (charged)
 *          [ 1 MiB, +4 pages )   not pinned by anyone yet
 *
 * The emulated device's pin takes one page, without a page of page
 * pointers for a GUP batch.  The first IOMMU device pins every DMA as it
 * joins, with the joining task's mm: a kernel thread has none (-ENODEV,
 * nothing changes).  From the owner it pins all, charging only the pages
 * not charged already.
 */
static void test_first_iommu_device_pins_what_was_left_unpinned(void **state)
{
	struct kapi_proc *owner = kapi_proc_current();
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c), *dev;
	unsigned long va = map_anon(2 * MiB), pfn;
	unsigned long long bytes;

	map_dma(c, va, 0, PAGE, RW);
	map_dma(c, va + MiB, MiB, 4 * PAGE, RW);
	/* An external pin is one page: no page of pointers for a batch. */
	fail_nth_call_of("shim/mm/get_free_page", ~0ULL);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), 1);
	assert_int_equal(stop_failing("shim/mm/get_free_page"), 0);
	assert_int_equal(kapi_mm_locked_vm(), 1);

	kapi_proc_set_current(NULL);
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev),
			 -ENODEV);
	kapi_proc_set_current(owner);
	assert_int_equal(kapi_mm_locked_vm(), 1);
	assert_int_equal(pins_held(), 1);
	assert_int_equal(sim_iommu_nr_domains(), at_start.domains);

	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_mm_locked_vm(), 5);
	assert_int_equal(pins_held(), 1 + 5);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev, 0, &pfn), 0);

	assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0, UNMAP_ALL, &bytes), 0);
	assert_int_equal(bytes, 5 * PAGE);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(pins_held(), 0);
	kapi_vfio_close(c);
}

/*
 *   iova 1 GiB: [ first batch of pins ][ second batch of pins ]
 *                ^ first        last ^  ^ first        last ^
 *
 * The first IOMMU device's pinning charges each batch of pages less the
 * pages an emulated device already holds in exactly that batch: one
 * externally pinned page at either edge of either batch leaves locked_vm
 * at the DMA's size, neither charged twice nor skipped in the batch next
 * to it.
 */
static void test_external_pins_at_batch_edges_are_charged_once(void **state)
{
	const unsigned long batch = PAGE / sizeof(void *);	/* pages a batch holds */
	const unsigned long pinned_page[] = { 0, batch - 1, batch, 2 * batch - 1 };
	unsigned int i;

	/* Two batches are 1 MiB at 4 KiB pages, 1 GiB at 64 KiB: allow them. */
	kapi_mm_set_rlimit_memlock(2 * batch * PAGE);
	for (i = 0; i < ARRAY_SIZE(pinned_page); i++) {
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
		unsigned long va = map_anon(2 * batch * PAGE), pfn;
		unsigned long long iova = GiB + pinned_page[i] * PAGE;

		print_message("external pin at page %lu\n", pinned_page[i]);
		map_dma(c, va, GiB, 2 * batch * PAGE, RW);
		assert_int_equal(kapi_vfio_pin_pages(c, mdev, iova, 1, RW, &pfn), 1);
		assert_int_equal(kapi_mm_locked_vm(), 1);

		attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		assert_int_equal(kapi_mm_locked_vm(), 2 * batch);
		assert_int_equal(pins_held(), 1 + 2 * batch);

		kapi_vfio_unpin_pages(c, mdev, iova, 1);
		assert_int_equal(kapi_mm_locked_vm(), 2 * batch);
		unmap_dma_exactly(c, GiB, 2 * batch * PAGE);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		assert_int_equal(pins_held(), 0);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
	}
	kapi_mm_set_rlimit_memlock(8 * MiB);
}

/*
 *   iova 1 GiB: [ p0 | p1 | ... | p15 ]   an emulated device's DMA, its
 *                 ^ pinned by the device  pages faulted in from the last
 *                                         to the first (one run each)
 *
 * The first IOMMU device's replay pins the DMA (one GUP call takes all
 * sixteen pages into the batch) and maps it run by run.  Whichever IOMMU
 * map call fails, the attach fails with -ENOMEM and gives back exactly
 * what it took: the pages of the run that failed, those still waiting in
 * the batch, and the runs mapped before; locked_vm is back to the one
 * page the device pinned (the pages it holds are given back uncharged).
 */
static void test_failing_replay_gives_back_what_it_pinned(void **state)
{
	const unsigned long pages = 16;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c), *dev;
	unsigned long va = map_anon(pages * PAGE), pfn;
	unsigned long long n, calls, failed = 0;
	int ret;

	for (long i = pages - 1; i >= 0; i--)
		assert_int_equal(kapi_mm_touch(va + i * PAGE, PAGE, 1), 0);
	map_dma(c, va, GiB, pages * PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, GiB, 1, RW, &pfn), 1);
	for (n = 0;; n++) {
		fail_nth_call_of("shim/iommu/map", n);
		ret = kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev);
		calls = stop_failing("shim/iommu/map");
		if (calls <= n)
			break;
		print_message("IOMMU map call %llu fails: %d\n", n, ret);
		/* The fine-grained-superpage probe's map may fail: no probe. */
		if (!ret) {
			assert_iommu_matches_cpu(dev, GiB, va, pages * PAGE);
			kapi_vfio_detach_dev(c, dev);
		} else {
			assert_int_equal(ret, -ENOMEM);
			failed++;
		}
		assert_int_equal(kapi_mm_locked_vm(), 1);
		assert_int_equal(pins_held(), 1);
	}
	/* Every run's map failed once. */
	assert_true(failed >= pages);
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	assert_iommu_matches_cpu(dev, GiB, va, pages * PAGE);
	assert_int_equal(kapi_mm_locked_vm(), pages);
	kapi_vfio_unpin_pages(c, mdev, GiB, 1);
	unmap_dma_exactly(c, GiB, pages * PAGE);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   iova:  [ 1 GiB, +2 pages )          the DMA asked for
 *                         ^ one reserved byte: the DMA's last
 *
 * The IOMMU reserves one byte at an odd address (a driver may report a
 * region of any start and length): a MAP_DMA whose last byte is that byte
 * is refused with -EINVAL and pins nothing; the page before it maps.
 */
static void test_dma_ending_on_a_reserved_byte_is_refused(void **state)
{
	const unsigned long long iova = GiB;
	struct kapi_vfio_dev_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL, .nr_resv = 1,
		.resv = { { iova + 2 * PAGE - 1, 1, KAPI_VFIO_RESV_RESERVED } },
	};
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * PAGE);

	attach_a_device_with(c, &o);
	assert_int_equal(kapi_vfio_map_dma(c, va, iova, 2 * PAGE, RW), -EINVAL);
	assert_int_equal(pins_held(), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	map_dma(c, va, iova, PAGE, RW);
	unmap_dma_exactly(c, iova, PAGE);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   iova:  [ 1 GiB, +1 page )   an emulated device's DMA
 *                        ^ pinned by the device at the page's last byte
 *
 * The VFIO core hands the backend the device's IOVA as it is (the
 * iommufd path says it ignores the offset within the page), so a device
 * may pin a page by any byte of it.  That page is charged once: when the
 * emulated device pins it, not again when the first IOMMU device pins the
 * DMA; the device's unpin by the same IOVA leaves the IOMMU's charge, and
 * the unmap takes that.  Known bug type1-unaligned-external-pin (6.12):
 * the replay looks the pin up by the page's own IOVA, does not find it,
 * charges the page again, and the unmap gives back only one of the two.
 */
static void test_pin_by_a_pages_last_byte_is_charged_once(void **state)
{
	const unsigned long long iova = GiB, last_byte = GiB + PAGE - 1;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
	unsigned long va = map_anon(PAGE), pfn;

	map_dma(c, va, iova, PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, last_byte, 1, RW, &pfn), 1);
	assert_int_equal(kapi_mm_locked_vm(), 1);
	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	if (!expect_known_bug(TYPE1_UNALIGNED_EXTERNAL_PIN,
			      kapi_mm_locked_vm() == 1)) {
		/* The symptom: charged twice, and one charge outlives the DMA. */
		assert_int_equal(kapi_mm_locked_vm(), 2);
		kapi_vfio_unpin_pages(c, mdev, last_byte, 1);
		unmap_dma_exactly(c, iova, PAGE);
		assert_int_equal(kapi_mm_locked_vm(), 1);
		assert_int_equal(pins_held(), 0);
		/* The leak is the bug's: give it back for the checks after. */
		assert_int_equal(kapi_mm_account_locked_vm(1, 0), 0);
	} else {
		kapi_vfio_unpin_pages(c, mdev, last_byte, 1);
		assert_int_equal(kapi_mm_locked_vm(), 1);
		unmap_dma_exactly(c, iova, PAGE);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		assert_int_equal(pins_held(), 0);
	}
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/* How many of the n pages the CPU maps from va are marked dirty. */
static unsigned long dirty_pages_at(unsigned long va, unsigned long n)
{
	unsigned long i, pfn, dirty = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(kapi_mm_cpu_pfn(va + i * PAGE, &pfn, NULL), 0);
		dirty += sim_page_test(sim_pfn_to_page(pfn), SIM_PG_DIRTY) != 0;
	}
	return dirty;
}

/*
 *   va:  [ anon, 4 pages ]  or  [ THP ]  or  [ anon page ][ BAR page ]
 *
 * Type1 dirties the pages it unpins only when the DMA let the device
 * write them: every way back (an emulated device's unpin, an unmap of
 * small pages, of a THP run, of a DMA holding reserved pfns) leaves the
 * pages of a read-only DMA clean and marks those of a read-write one.
 */
static void test_only_a_writable_dma_dirties_what_it_unpins(void **state)
{
	static const struct {
		const char *what;
		int kind;		/* KAPI_MM_* of the memory */
		unsigned long len;	/* of that memory */
		int bar_page_after;	/* a BAR page follows: reserved pfns */
		int emulated;		/* an emulated device pins page 1 */
		int stride;		/* core's unmap_stride on: runs noted */
	} cases[] = {
		{ "emulated device's pin", KAPI_MM_ANON, 4 * PAGE, 0, 1, 0 },
		{ "small pages", KAPI_MM_ANON, 4 * PAGE, 0, 0, 0 },
		{ "THP run", KAPI_MM_THP, THP_BLOCK, 0, 0, 0 },
		{ "THP run, noted", KAPI_MM_THP, THP_BLOCK, 0, 0, 1 },
		{ "with a reserved pfn", KAPI_MM_ANON, PAGE, 1, 0, 0 },
	};
	static const unsigned int prots[] = {
		KAPI_VFIO_DMA_MAP_FLAG_READ, RW,
	};
	unsigned int i, p;

	/* A THP run is 2 MiB at 4 KiB pages, 512 MiB at 64 KiB: allow it. */
	kapi_mm_set_rlimit_memlock(THP_BLOCK + PAGE);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		for (p = 0; p < ARRAY_SIZE(prots); p++) {
			struct kapi_vfio *c = open_a_v2_container();
			struct kapi_mm_map m = {
				.len = cases[i].len + cases[i].bar_page_after * PAGE,
				.kind = cases[i].kind, .writable = 1,
				.populate = 1, .align = PMD,
			};
			unsigned long va = map_memory(&m), n = cases[i].len / PAGE;
			int writes = prots[p] == RW;
			struct kapi_vfio_dev *mdev;
			unsigned long pfn;
			int was = -1;

			print_message("%s, %s\n", cases[i].what,
				      writes ? "read-write" : "read-only");
			if (cases[i].stride) {
				/* A parameter of core's alone. */
				if (unmap_stride_get() < 0) {
					kapi_vfio_close(c);
					assert_int_equal(kapi_mm_munmap(va), 0);
					continue;
				}
				was = unmap_stride_set(1);
			}
			if (cases[i].bar_page_after) {
				/* The same range again: memory, then the BAR page. */
				assert_int_equal(kapi_mm_munmap(va), 0);
				m.addr = va;
				m.len = cases[i].len;
				map_memory(&m);
				map_bar(&(struct kapi_mm_map){
					.addr = va + cases[i].len, .len = PAGE,
					.max_leaf = KAPI_MM_LEAF_PTE,
					.writable = 1, .populate = 1,
				}, NULL, NULL);
			}
			assert_int_equal(dirty_pages_at(va, n), 0);
			if (cases[i].emulated) {
				mdev = attach_an_emulated_device(c);
				map_dma(c, va, 0, cases[i].len, prots[p]);
				assert_int_equal(kapi_vfio_pin_pages(c, mdev, PAGE, 1,
								     prots[p], &pfn), 1);
				kapi_vfio_unpin_pages(c, mdev, PAGE, 1);
				assert_int_equal(dirty_pages_at(va + PAGE, 1), writes);
				unmap_dma_exactly(c, 0, cases[i].len);
			} else {
				attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
				map_dma(c, va, 0, n * PAGE + cases[i].bar_page_after * PAGE,
					prots[p]);
				unmap_dma_exactly(c, 0, n * PAGE +
						  cases[i].bar_page_after * PAGE);
				assert_int_equal(dirty_pages_at(va, n), writes ? n : 0);
			}
			unmap_stride_restore(was);
			assert_int_equal(pins_held(), 0);
			kapi_vfio_close(c);
			if (cases[i].bar_page_after)
				assert_int_equal(kapi_mm_munmap(va + cases[i].len), 0);
			assert_int_equal(kapi_mm_munmap(va), 0);
		}
	kapi_mm_set_rlimit_memlock(8 * MiB);
}

/*
 *   va:    [ pfnmap of one RAM page the kernel reserved ]   iova 0
 *
 * An emulated device may pin a reserved page (it has a struct page); it
 * is never charged, not when the IOMMU device leaves (the re-count of
 * what stays pinned skips it), nor unpinned as a GUP page would be, not
 * even when the pin's record cannot be allocated.
 */
static void test_external_pin_of_a_reserved_page_is_not_charged(void **state)
{
	struct sim_page *page = kapi_alloc_pages(kapi_gfp("GFP_KERNEL"), 0);
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev, *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	struct kapi_page_info info;
	struct kapi_mm_map m = {
		.len = PAGE, .kind = KAPI_MM_PFNMAP, .writable = 1,
		.populate = 1, .max_leaf = KAPI_MM_LEAF_PTE,
	};
	unsigned long va, pfn;

	assert_non_null(page);
	kapi_page_info(page, &info);
	kapi_set_page_reserved(page, 1);
	m.pfn = info.pfn;
	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	mdev = attach_an_emulated_device(c);

	map_dma(c, va, 0, PAGE, RW);
	pin_with_its_record_failing(c, mdev, 0);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), 1);
	assert_int_equal(pfn, info.pfn);
	kapi_vfio_detach_dev(c, dev);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(pins_held(), 0);

	unmap_dma_exactly(c, 0, PAGE);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	kapi_set_page_reserved(page, 0);
	kapi___free_pages(page, 0);
}

/*
 *   va:    [ anon page, pfn P ][ pfnmap of P + 1, reserved by a driver ]
 *
 * A pinned page and the reserved pfn after it are physically contiguous
 * but of two kinds: two runs, only the pinned one charged.  (P is a
 * movable page given back to the allocator just before the anonymous
 * fault that reuses it, the per-cpu list's hot page.)
 */
static void test_pinned_page_and_a_contiguous_reserved_pfn(void **state)
{
	struct sim_page *pair = kapi_alloc_pages(kapi_gfp("GFP_HIGHUSER_MOVABLE"),
						 1);
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	struct kapi_mm_map m = {
		.len = PAGE, .kind = KAPI_MM_PFNMAP, .writable = 1,
		.populate = 1, .max_leaf = KAPI_MM_LEAF_PTE,
	};
	struct kapi_mm_map anon = {
		.len = PAGE, .kind = KAPI_MM_ANON, .writable = 1,
	};
	struct kapi_page_info info;
	struct sim_page *second;
	unsigned long va, got, pfn;

	assert_non_null(pair);
	kapi_split_page(pair, 1);
	kapi_page_info(pair, &info);
	second = sim_pfn_to_page(info.pfn + 1);
	kapi_set_page_reserved(second, 1);
	kapi___free_pages(pair, 0);

	/* Two pages of address space, the first one anonymous. */
	va = map_anon(2 * PAGE);
	assert_int_equal(kapi_mm_munmap(va), 0);
	anon.addr = va;
	assert_int_equal(kapi_mm_mmap(&anon, &got), 0);
	assert_int_equal(kapi_mm_touch(va, PAGE, 1), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, NULL), 0);
	assert_int_equal(pfn, info.pfn);
	m.addr = va + PAGE;
	m.pfn = info.pfn + 1;
	assert_int_equal(kapi_mm_mmap(&m, &got), 0);

	map_dma(c, va, 0, 2 * PAGE, RW);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev, PAGE, &pfn), 0);
	assert_int_equal(pfn, info.pfn + 1);
	assert_int_equal(kapi_mm_locked_vm(), 1);
	unmap_dma_exactly(c, 0, 2 * PAGE);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va + PAGE), 0);
	kapi_set_page_reserved(second, 0);
	kapi___free_pages(second, 0);
}

/*
 *   va:    [ pfnmap of physical page 0, reserved by the driver ]   iova 0
 *
 * A driver may hand physical page 0 to userspace (low memory the page
 * allocator never hands out, PageReserved, mapped with remap_pfn_range()),
 * and type1 maps it like any reserved pfn.  It cannot unmap it:
 * iommu_iova_to_phys() returns 0 for "not mapped" too, so the unmap WARNs,
 * skips the page and leaves its IOMMU leaf (as Linux 6.12 does); the
 * domain's teardown frees it.
 */
static void test_dma_of_physical_page_zero_stays_in_the_iommu(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	struct kapi_mm_map m = {
		.len = PAGE, .kind = KAPI_MM_PFNMAP, .writable = 1,
		.populate = 1, .max_leaf = KAPI_MM_LEAF_PTE, .pfn = 0,
	};
	unsigned long va;

	assert_true(kapi_pfn_valid(0));
	assert_int_equal(kapi_mm_mmap(&m, &va), 0);

	map_dma(c, va, 0, PAGE, RW);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), INTEL_LEAVES_PER_PAGE);
	unmap_dma_exactly(c, 0, PAGE);
	expect_warnings(1);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), INTEL_LEAVES_PER_PAGE);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(pins_held(), 0);

	kapi_vfio_close(c);
	expect_leaves_dropped(INTEL_LEAVES_PER_PAGE);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/* ---- several IOMMU domains ---- */

/*
 *   iova:  [ 0, +2 MiB )   one DMA, translated by an intel-sl and an
 *                          amd-v1 domain
 *
 * A map that fails in any domain, at any fallible call, leaves no domain
 * mapping anything and nothing pinned or charged; once nothing fails, it
 * maps in both and one unmap empties both.
 */
static void test_two_domains_map_all_or_nothing(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *intel = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL), *amd;
	unsigned long va = map_anon(2 * MiB), pfn;
	unsigned long long nth;

	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_AMD_V1, &amd), 0);
	for (nth = 1;; nth++) {
		unsigned long long injected;
		long ret;

		sim_fault_nth_start(nth, 0);
		ret = kapi_vfio_map_dma(c, va, 0, 2 * MiB, RW);
		injected = sim_fault_nth_injected();
		sim_fault_nth_stop();
		if (!ret) {
			/* A failure the map works around (a smaller batch). */
			assert_int_equal(kapi_vfio_dev_iova_to_pfn(amd, PAGE,
								   &pfn), 0);
			if (!injected)
				break;
			unmap_dma_exactly(c, 0, 2 * MiB);
			continue;
		}
		/* copy_from_user, an allocation or pin, the killable charge. */
		assert_true(ret == -EFAULT || ret == -ENOMEM || ret == -EINTR);
		assert_int_equal(kapi_vfio_dev_nr_leaves(intel), 0);
		assert_int_equal(kapi_vfio_dev_nr_leaves(amd), 0);
		assert_int_equal(pins_held(), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
	}
	assert_true(nth > 2);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(intel, PAGE, &pfn), 0);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(amd, PAGE, &pfn), 0);
	unmap_dma_exactly(c, 0, 2 * MiB);
	assert_int_equal(kapi_vfio_dev_nr_leaves(intel), 0);
	assert_int_equal(kapi_vfio_dev_nr_leaves(amd), 0);
	assert_int_equal(pins_held(), 0);
	kapi_vfio_close(c);
}

/* ---- dirty bitmaps: sizes, copies, limits ---- */

struct bad_bitmap {
	const char *what;
	unsigned long long iova, size, pgsize, bytes;
	int kernel_pointer;		/* bitmap data at a kernel address */
	int err;
};

/*
 *   iova:  [ 0, +2 MiB )   tracked; bitmaps of 64 u64 words offered
 *
 * GET_BITMAP and UNMAP_DMA's bitmap refuse every malformed bitmap with
 * the kernel's errno; the DMA stays mapped and tracked.  A bitmap of
 * exactly the size limit is well formed.
 */
static void test_dirty_bitmaps_of_bad_shape(void **state)
{
	const unsigned long long words = 64 * 8;
	const struct bad_bitmap cases[] = {
		{ "range of 0 bytes", 0, 0, PAGE, words, 0, -EINVAL },
		{ "range wraps", ~0ULL - PAGE + 1, 2 * PAGE, PAGE, words, 0,
		  WRAP_ERRNO },
		{ "data in kernel memory", 0, 2 * DIRTY_LEN, PAGE, words, 1, -EINVAL },
		{ "bitmap larger than the address space", 0, 2 * DIRTY_LEN, PAGE,
		  1ULL << 48, 0, -EINVAL },
		{ "range under one bitmap page", 0, PAGE, 2 * PAGE, words, 0,
		  -EINVAL },
		{ "bitmap of 0 bytes", 0, 2 * DIRTY_LEN, PAGE, 0, 0, -EINVAL },
		{ "bitmap over the 256 MiB limit", 0, 2 * DIRTY_LEN, PAGE,
		  (1ULL << 28) + 8, 0, -EINVAL },
		{ "bitmap too small", 0, 2 * DIRTY_LEN, PAGE, 8, 0, -EINVAL },
		{ "page size not the IOMMU's", 0, 2 * DIRTY_LEN, 2 * PAGE, words, 0,
		  -EINVAL },
		{ "unaligned iova", 1024, 2 * DIRTY_LEN, PAGE, words, 0, -EINVAL },
		{ "unaligned size", 0, 2 * DIRTY_LEN - 1024, PAGE, words, 0, -EINVAL },
	};
	static unsigned long long bits[64];
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * DIRTY_LEN);

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, 0, 2 * DIRTY_LEN, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bad_bitmap *t = &cases[i];
		unsigned long long *data = t->kernel_pointer ?
			(unsigned long long *)(1UL << 47) : bits;
		struct kapi_vfio_bitmap bm = { t->pgsize, t->bytes, data };
		unsigned long long size_out;

		assert_int_equal(kapi_vfio_dirty_get(c, t->iova, t->size,
						     t->pgsize, data, t->bytes),
				 t->err);
		if (!t->size || t->iova)
			continue;	/* UNMAP_DMA checks those itself */
		assert_int_equal(kapi_vfio_raw_unmap_dma(c,
				KAPI_VFIO_DMA_UNMAP_ARGSZ + KAPI_VFIO_BITMAP_SIZE,
				KAPI_VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP,
				t->iova, t->size, &bm, &size_out), t->err);
		assert_int_equal(kapi_mm_locked_vm(), 2 * DIRTY_LEN / PAGE);
	}
	/* A page size of 0: the kernel before these checks shifts by __ffs(0). */
	if (!DMASIM_IMPL_IS_UPSTREAM) {
		struct kapi_vfio_bitmap bm = { 0, sizeof(bits), bits };

		assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, 0, bits,
						     sizeof(bits)), -EINVAL);
		assert_int_equal(kapi_vfio_raw_unmap_dma(c,
				KAPI_VFIO_DMA_UNMAP_ARGSZ + KAPI_VFIO_BITMAP_SIZE,
				KAPI_VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP,
				0, 2 * DIRTY_LEN, &bm, NULL), -EINVAL);
	}
	/* The 256 MiB limit itself is allowed (only what the range needs is written). */
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 2 * DIRTY_LEN, PAGE, bits,
					     1ULL << 28), 0);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, 0, 2 * DIRTY_LEN);
	kapi_vfio_close(c);
}

/*
 *   user bitmap bit:  0   1 2 3 4 ...
 *   iova:           [hole][ DMA of 4 pages ]
 *
 * A DMA whose first bit is not bit 0 of a user word is merged with the
 * user's word: reading that word faults (copy_from_user, the third
 * fallible call of the ioctl) and the ioctl fails with -EFAULT; with the
 * copy working the DMA's bits land shifted, the user's bit 0 kept.
 */
static void test_dirty_bitmap_merged_into_the_users_word(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(4 * PAGE);
	unsigned long long bits = 1;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, PAGE, 4 * PAGE, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);

	sim_fault_nth_start(3, 0);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, 5 * PAGE, PAGE, &bits,
					     sizeof(bits)), -EFAULT);
	assert_int_equal(sim_fault_nth_first_point(), SIM_FP_COPY_FROM_USER);
	sim_fault_nth_stop();
	assert_int_equal(bits, 1);

	assert_int_equal(kapi_vfio_dirty_get(c, 0, 5 * PAGE, PAGE, &bits,
					     sizeof(bits)), 0);
	assert_int_equal(bits, 0x1f);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, PAGE, 4 * PAGE);
	kapi_vfio_close(c);
}

/*
 *   iova:  [ 0, 8 TiB )   an emulated device's DMA: 2^31 pages, one more
 *                          than a dirty bitmap may count (INT_MAX); 8 TiB
 *                          with 4 KiB pages, 128 TiB with 64 KiB
 *
 * Tracking cannot start over it (-EINVAL, tracking stays off); mapping it
 * while tracking runs is refused with -EINVAL and leaves no DMA.  One
 * page less, INT_MAX pages exactly, is mapped while tracking runs.
 */
static void test_dirty_tracking_limit_of_int_max_pages(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	const unsigned long va = 1ULL << 32;
	const unsigned long long beyond_int_max = (1ULL << 31) * PAGE;
	unsigned long long bytes;

	attach_an_emulated_device(c);
	map_dma(c, va, 0, beyond_int_max, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), -EINVAL);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, PAGE, PAGE, &bytes, 8),
			 -EINVAL);	/* not tracking */
	unmap_dma_exactly(c, 0, beyond_int_max);

	assert_int_equal(kapi_vfio_dirty_start(c), 0);
	assert_int_equal(kapi_vfio_map_dma(c, va, 0, beyond_int_max, RW), -EINVAL);
	assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0, UNMAP_ALL, &bytes), 0);
	assert_int_equal(bytes, 0);
	map_dma(c, va, 0, beyond_int_max - PAGE, RW);
	unmap_dma_exactly(c, 0, beyond_int_max - PAGE);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	kapi_vfio_close(c);
}

/*
 * Tracking runs when the container's smallest page shrinks (the 64 KiB
 * device leaves) and no memory can be had for the bitmaps in 4 KiB pages:
 * tracking stops, GET_BITMAP says so (-EINVAL), and starting again works.
 * (Linux 6.12 does not resize the bitmaps at all: core only, see
 * test_type1.c's test_dirty_bitmaps_follow_a_shrinking_page_size.)
 */
static void test_dirty_tracking_stops_when_resizing_fails(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_mm_map m = {
		.len = 2 * DIRTY_LEN, .kind = KAPI_MM_THP, .writable = 1,
		.align = PMD,
	};
	unsigned long long bits[DIRTY_LEN / PAGE / 64];
	struct kapi_vfio_dev *dev64k;
	unsigned long va;

	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	/* With 64 KiB pages nothing shrinks: no resize to fail. */
	if (DMASIM_IMPL_IS_UPSTREAM || PAGE >= SZ_64K) {
		kapi_vfio_close(c);
		skip();
	}
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_ARM_LPAE_64K,
						    &dev64k), 0);
	attach_an_emulated_device(c);
	map_dma(c, va, 0, DIRTY_LEN, RW);
	expect_warnings(1);	/* an IOMMU page above PAGE_SIZE, on purpose */
	assert_int_equal(kapi_vfio_dirty_start(c), 0);

	fail_every_call_of("shim/slab/kmalloc");
	kapi_vfio_detach_dev(c, dev64k);
	stop_failing("shim/slab/kmalloc");
	assert_int_equal(kapi_vfio_dirty_get(c, 0, DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), -EINVAL);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);
	assert_int_equal(kapi_vfio_dirty_get(c, 0, DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_dma_exactly(c, 0, DIRTY_LEN);
	kapi_vfio_close(c);
}

/* ---- pinning: module parameter and fault paths ---- */

/*
 * With disable_hugepages, a 2 MiB THP folio is pinned and mapped one page
 * at a time: 512 IOMMU leaves of 4 KiB (intel-sl's smallest, so
 * INTEL_LEAVES_PER_PAGE per bigger CPU page), still to the CPU's pfns and
 * charged page for page; GUP is asked one page at a time, so no page of
 * page pointers is taken for a batch.
 */
static void test_disable_hugepages_maps_page_by_page(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	struct kapi_mm_map m = {
		.len = 2 * MiB, .kind = KAPI_MM_THP, .writable = 1, .align = PMD,
	};
	unsigned long va;

	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	assert_int_equal(kapi_param_set("vfio_iommu_type1.disable_hugepages",
					"1"), 0);
	fail_nth_call_of("shim/mm/get_free_page", ~0ULL);
	map_dma(c, va, 0, 2 * MiB, RW);
	/* One page per GUP call: no page of page pointers for a batch. */
	assert_int_equal(stop_failing("shim/mm/get_free_page"), 0);
	assert_int_equal(sim_iommu_nr_leaves(kapi_vfio_dev_sim_domain(dev), 12),
			 2 * MiB / PAGE * INTEL_LEAVES_PER_PAGE);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev),
			 2 * MiB / PAGE * INTEL_LEAVES_PER_PAGE);
	assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);
	assert_iommu_matches_cpu(dev, 0, va, 2 * MiB);
	unmap_dma_exactly(c, 0, 2 * MiB);
	kapi_vfio_close(c);
}

/* A sysfs write of vfio_iommu_type1.disable_hugepages=1. */
static void disable_hugepages(void)
{
	assert_int_equal(kapi_param_set("vfio_iommu_type1.disable_hugepages",
					"1"), 0);
}

/*
 *   va:    [ anon 64 pages, faulted in from the last page to the first ]
 *          (descending pfns: every run is one page)
 *
 * disable_hugepages switched on (a sysfs write) while a MAP_DMA runs,
 * after its first GUP call pinned all 64 pages into the batch and before
 * the second run is taken from it: the rest of the batch is consumed one
 * page per run, and the mapping is still exact.
 */
static void test_disable_hugepages_switched_on_mid_map(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(64 * PAGE);
	struct sim_counters before;

	for (int i = 63; i >= 0; i--)
		assert_int_equal(kapi_mm_touch(va + i * PAGE, PAGE, 1), 0);
	sim_counters_snapshot(&before);
	run_at_nth_call_of("shim/iommu/map", 0, disable_hugepages);
	map_dma(c, va, 0, 64 * PAGE, RW);
	stop_failing("shim/iommu/map");
	assert_int_equal(sim_counters.c[SIM_CNT_GUP_CALL] -
			 before.c[SIM_CNT_GUP_CALL], 1);
	assert_iommu_matches_cpu(dev, 0, va, 64 * PAGE);
	assert_int_equal(kapi_mm_locked_vm(), 64);
	unmap_dma_exactly(c, 0, 64 * PAGE);
	kapi_vfio_close(c);
}

struct failing_bar_fault {
	const char *what;
	const char *point;
	int err;
};

/*
 *   va:    [ BAR 2 MiB, PTE leaves, not faulted in ]   iova 0
 *
 * The pfn lookup of a BAR not yet faulted in faults it in and looks
 * again.  If the fault fails (-EFAULT), or the lookup after it finds the
 * page table changed (-EINVAL), MAP_DMA fails with that errno and maps
 * nothing; afterwards the same MAP_DMA works.
 */
static void test_bar_whose_fault_or_second_lookup_fails(void **state)
{
	static const struct failing_bar_fault cases[] = {
		{ "the fault", "shim/mm/fixup_user_fault", -EFAULT },
		{ "the lookup after it", "shim/mm/pte_offset_map", -EINVAL },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		unsigned long va = map_bar(&(struct kapi_mm_map){
			.len = 2 * MiB, .writable = 1,
			.max_leaf = KAPI_MM_LEAF_PTE, .align = PMD,
		}, NULL, NULL);

		fail_every_call_of(cases[i].point);
		assert_int_equal(kapi_vfio_map_dma(c, va, 0, 2 * MiB, RW),
				 cases[i].err);
		stop_failing(cases[i].point);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		map_dma(c, va, 0, 2 * MiB, RW);
		unmap_dma_exactly(c, 0, 2 * MiB);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
		assert_nothing_held();
	}
}

/* ---- fail-nth sweeps over two of the scenarios above ---- */

/* The processes and memory of a sweep run (made in setup, faults off). */
static struct {
	struct kapi_proc *old, *new;
	unsigned long va_old, va_new;
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev;
} sw;

static int map_anon_in(struct kapi_proc *p, unsigned long len,
		       unsigned long *va)
{
	struct kapi_mm_map m = {
		.len = len, .kind = KAPI_MM_ANON, .writable = 1, .align = PMD,
	};

	kapi_proc_set_current(p);
	return kapi_mm_mmap(&m, va);
}

/* Two processes with 2 MiB of anonymous memory each; the old one current. */
static int two_processes_with_memory(const void *param)
{
	memset(&sw, 0, sizeof(sw));
	sw.old = kapi_proc_create();
	sw.new = kapi_proc_create();
	if (!sw.old || !sw.new || map_anon_in(sw.new, 2 * MiB, &sw.va_new) ||
	    map_anon_in(sw.old, 2 * MiB, &sw.va_old))
		return -1;
	return 0;
}

/*
 * The live update of test_new_vaddr_from_another_owner_moves_the_charge,
 * with a kernel thread's write through the new vaddr before the unmap.
 */
static int live_update_to_another_process(const void *param)
{
	unsigned int word = 0x600d;
	unsigned long long bytes;
	int ret;

	ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &sw.c);
	if (!ret)
		ret = kapi_vfio_attach_iommu_dev(sw.c, SIM_IOMMU_INTEL_SL,
						 &sw.dev);
	if (!ret)
		ret = kapi_vfio_map_dma(sw.c, sw.va_old, 0, 2 * MiB, RW);
	if (!ret)
		ret = invalidate_vaddrs(sw.c, 0, 2 * MiB, 0, &bytes);
	kapi_proc_set_current(sw.new);
	if (!ret)
		ret = give_new_vaddr(sw.c, sw.va_new, 0, 2 * MiB);
	kapi_proc_set_current(NULL);
	if (!ret)
		ret = kapi_vfio_dma_rw(sw.c, 8, &word, sizeof(word), 1);
	kapi_proc_set_current(sw.new);
	if (!ret)
		ret = kapi_vfio_unmap_dma(sw.c, 0, 2 * MiB, 0, &bytes);
	return ret;
}

/*
 * An emulated device's life: pins, a device write, a dirty bitmap, an
 * unmap raced by re-pins that reads its bitmap too.
 */
static int emulated_device_pins_writes_and_races(const void *param)
{
	unsigned long long bits = 0, bytes;
	unsigned long pfns[8];
	unsigned int word = 0xd1e7;
	int ret;

	ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &sw.c);
	if (!ret)
		ret = kapi_vfio_attach_emulated_dev(sw.c, &sw.dev);
	if (!ret)
		ret = kapi_vfio_map_dma(sw.c, sw.va_old, 0, 64 * PAGE, RW);
	if (!ret)
		ret = kapi_vfio_dirty_start(sw.c);
	if (!ret) {
		ret = kapi_vfio_pin_pages(sw.c, sw.dev, PAGE, 8, RW, pfns);
		ret = ret == 8 ? 0 : ret;
	}
	if (!ret)
		ret = kapi_vfio_dma_rw(sw.c, 16 * PAGE - 2, &word, 4, 1);
	if (!ret)
		ret = kapi_vfio_dirty_get(sw.c, 0, 64 * PAGE, PAGE, &bits,
					  sizeof(bits));
	if (!ret) {
		kapi_vfio_dev_race_pins_with_dma_unmap(sw.dev, 2);
		ret = kapi_vfio_unmap_dma_dirty(sw.c, 0, 64 * PAGE, PAGE, &bits,
						sizeof(bits), &bytes);
	}
	if (!ret)
		ret = kapi_vfio_dirty_stop(sw.c);
	return ret;
}

/* locked_vm p still has, which only a failed uncharge may leave. */
static void check_uncharged(struct kapi_proc *p)
{
	kapi_proc_set_current(p);
	if (kapi_mm_locked_vm() &&
	    !sweep_run_killed())
		sweep_leak("pages of locked_vm", kapi_mm_locked_vm());
}

static void close_container_and_exit_both(const void *param)
{
	if (sw.c)
		kapi_vfio_close(sw.c);
	if (kapi_vfio_nr_open())
		sweep_leak("VFIO containers", kapi_vfio_nr_open());
	check_uncharged(sw.old);
	check_uncharged(sw.new);
	kapi_proc_destroy(sw.new);
	kapi_proc_destroy(sw.old);
	kapi_proc_set_current(NULL);
}

/*
 * Every fallible call of both scenarios fails, once and from then on:
 * each run returns 0 or an errno type1 gives there (-ENOMEM, -EFAULT for
 * a failed copy, -EINTR for the killable charge), and after the
 * container is closed nothing is left (pins, locked_vm, objects, pages).
 */
static void test_sweeps_of_live_update_and_an_emulated_device(void **state)
{
	static const int errnos[] = { -ENOMEM, -EFAULT, -EINTR, -EBUSY,
				      -EOPNOTSUPP, SWEEP_DOMAIN_ALLOC_EIO, 0 };
	static const struct {
		const char *name;
		int (*run)(const void *param);
	} cases[] = {
		{ "type1_dma_live_update", live_update_to_another_process },
		{ "type1_dma_emulated", emulated_device_pins_writes_and_races },
	};
	int failed = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct sweep_scenario sc = {
			.name = cases[i].name,
			.setup = two_processes_with_memory,
			.run = cases[i].run,
			.teardown = close_container_and_exit_both,
			.errnos = errnos,
		};
		struct sweep_result res;

		failed |= sweep_run(&sc, &res);
		assert_true(res.points > 0);
		assert_true(res.runs > 0);
	}
	assert_int_equal(failed, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_device_reads_and_writes_the_owners_memory),
		T(test_kernel_thread_borrows_the_owners_mm),
		T(test_another_process_gets_efault),
		T(test_last_byte_of_a_dma_is_reachable),
		T(test_access_crosses_dmas_and_stops_at_a_hole),
		T(test_refused_accesses),
		T(test_faulting_copy_is_efault),
		T(test_ioctls_whose_user_copies_fault_are_efault),
		T(test_device_writes_dirty_the_pages_they_touch),
		T(test_pages_pinned_before_tracking_read_dirty),
		T(test_owner_that_exited),
		T(test_device_access_waits_for_the_new_vaddr),
		T(test_live_update_within_one_process),
		T(test_new_vaddr_must_match_an_invalid_dma_exactly),
		T(test_invalidation_is_all_or_nothing),
		T(test_no_live_update_with_an_emulated_device),
		T(test_v1_container_unmaps_loosely),
		T(test_new_vaddr_from_another_owner_moves_the_charge),
		T(test_new_owner_pins_under_its_own_capability),
		T(test_external_pin_refusals),
		T(test_unpinning_what_is_not_pinned),
		T(test_unmap_outlasts_pins_that_race_with_it),
		T(test_a_pinning_iommu_device_narrows_the_dirty_scope),
		T(test_external_pin_without_memory_for_its_record),
		T(test_first_iommu_device_pins_what_was_left_unpinned),
		T(test_external_pins_at_batch_edges_are_charged_once),
		T(test_failing_replay_gives_back_what_it_pinned),
		T(test_dma_ending_on_a_reserved_byte_is_refused),
		T(test_pin_by_a_pages_last_byte_is_charged_once),
		T(test_only_a_writable_dma_dirties_what_it_unpins),
		T(test_external_pin_of_a_reserved_page_is_not_charged),
		T(test_pinned_page_and_a_contiguous_reserved_pfn),
		T(test_dma_of_physical_page_zero_stays_in_the_iommu),
		T(test_two_domains_map_all_or_nothing),
		T(test_dirty_bitmaps_of_bad_shape),
		T(test_dirty_bitmap_merged_into_the_users_word),
		T(test_dirty_tracking_limit_of_int_max_pages),
		T(test_dirty_tracking_stops_when_resizing_fails),
		T(test_disable_hugepages_maps_page_by_page),
		T(test_disable_hugepages_switched_on_mid_map),
		T(test_bar_whose_fault_or_second_lookup_fails),
	};

	const struct CMUnitTest sweeps[] = {
		cmocka_unit_test(test_sweeps_of_live_update_and_an_emulated_device),
	};

	return cmocka_run_group_tests_name("type1_dma", tests, NULL, NULL) |
	       cmocka_run_group_tests_name("type1_dma_sweeps", sweeps, NULL,
					   NULL);
}
