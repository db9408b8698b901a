// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fail-nth sweep over VFIO type1's VFIO_IOMMU_GET_INFO, asked as a VMM asks
 * it (the bare struct to learn argsz, then again with room for the
 * capability chain), between attaching a device and mapping and unmapping
 * a little anonymous memory.  Whatever allocation or user copy fails, the
 * ioctl returns -ENOMEM or -EFAULT and closing the container leaves no
 * object, pin or charge behind.  Small on purpose: it runs in seconds in
 * upstream mode too, where Linux 6.12 (and mainline) leaks the capability
 * buffer when the IOVA-range capability cannot be allocated
 * (DMASIM_IMPL_GET_INFO_CAPS_LEAK): there exactly those runs must leak
 * exactly that buffer, reported as "expected upstream leaks"; any other
 * leak, or that one missing, fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "known_bug.h"
#include "shared.h"
#include "sweep.h"


static struct {
	struct kapi_proc *proc;
	struct kapi_vfio *c;
	unsigned long anon;
	/* kmalloc'd objects this run must leave (the known upstream leak) */
	unsigned long caps_leaks_expected;
} st;

/*   va: [ anon 16 pages ]  -> iova 0 */
static int process_with_anon(const void *param)
{
	struct kapi_mm_map m = {
		.len = 16 * PAGE, .kind = KAPI_MM_ANON, .writable = 1,
	};

	memset(&st, 0, sizeof(st));
	st.proc = kapi_proc_create();
	if (!st.proc || kapi_mm_mmap(&m, &st.anon))
		return -1;
	return 0;
}

/*
 * One VFIO_IOMMU_GET_INFO with argsz, noting when the failure injected
 * during it is the allocation a leaking tree loses the chain on: the
 * ioctl's DMASIM_IMPL_GET_INFO_CAPS_LEAK_ALLOC-th kmalloc-family call,
 * its last (a failure ends the ioctl), and the run's first failure.
 */
static long ask_info(unsigned int argsz, void *buf, unsigned long len)
{
	unsigned long long kmallocs = sim_fault_calls[SIM_FP_KMALLOC];
	unsigned long long injected = sim_fault_nth_injected();
	long ret = kapi_vfio_raw_get_info(st.c, argsz, buf, len);

	if (DMASIM_IMPL_GET_INFO_CAPS_LEAK && ret == -ENOMEM && !injected &&
	    sim_fault_nth_injected() &&
	    sim_fault_nth_first_point() == SIM_FP_KMALLOC &&
	    sim_fault_calls[SIM_FP_KMALLOC] - kmallocs ==
	    DMASIM_IMPL_GET_INFO_CAPS_LEAK_ALLOC)
		st.caps_leaks_expected++;
	return ret;
}

/* GET_INFO as a VMM asks it: the bare struct, then with room for the caps. */
static long ask_info_twice(void)
{
	/* struct vfio_iommu_type1_info is 24 bytes; the chain fits in 4 KiB. */
	static unsigned long long buf[512];
	long ret;

	memset(buf, 0, sizeof(buf));
	ret = ask_info(24, buf, sizeof(buf));
	if (!ret && (unsigned int)buf[0] <= 24)
		return -EPROTO;		/* no capability chain reported */
	if (!ret)
		ret = ask_info(sizeof(buf), buf, sizeof(buf));
	return ret;
}

static int attach_map_info_unmap(const void *param)
{
	unsigned long long unmapped;
	struct kapi_vfio_dev *dev;
	long ret;

	ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &st.c);
	if (ret)
		return ret;
	ret = kapi_vfio_attach_iommu_dev(st.c, SIM_IOMMU_INTEL_SL, &dev);
	if (!ret)
		ret = kapi_vfio_map_dma(st.c, st.anon, 0, 16 * PAGE,
					KAPI_VFIO_DMA_MAP_RW);
	if (!ret)
		ret = ask_info_twice();
	if (!ret)
		ret = kapi_vfio_unmap_dma(st.c, 0, 16 * PAGE, 0, &unmapped);
	return ret;
}

/*
 * Close and exit.  A charge left in locked_vm is tolerated only when the
 * killable mmap lock of an uncharge was "interrupted": the kernel leaves
 * it to the dying mm then.
 */
static void close_and_exit(const void *param)
{
	if (st.c)
		kapi_vfio_close(st.c);
	if (kapi_mm_locked_vm() && !sweep_run_killed())
		sweep_leak("pages of locked_vm", kapi_mm_locked_vm());
	kapi_proc_destroy(st.proc);
}

static unsigned long known_caps_leak(const void *param)
{
	return st.caps_leaks_expected;
}

/* -ENOMEM: allocations, GUP, IOMMU tables; -EFAULT: user copies; -EINTR: the charge. */
/* ... and a FOLL_LONGTERM pin GUP refuses: -EBUSY, -EOPNOTSUPP. */
static const int info_errnos[] = { -ENOMEM, -EFAULT, -EINTR, -EBUSY,
				   -EOPNOTSUPP, SWEEP_DOMAIN_ALLOC_EIO, 0 };

static void test_get_info_failures_unwind(void **state)
{
	const struct sweep_scenario s = {
		.name = "type1_get_info",
		.setup = process_with_anon,
		.run = attach_map_info_unmap,
		.teardown = close_and_exit,
		.errnos = info_errnos,
		.expected_kmalloc_leak = known_caps_leak,
	};
	struct sweep_result res;
	int ret = sweep_run(&s, &res);

	assert_true(res.points > 0);
	assert_int_equal(ret, 0);
	/*
	 * One leaking call per GET_INFO, failed once and from then on, in a
	 * tree with the bug; a tree without it leaks nothing (an unexpected
	 * leak fails the sweep itself).
	 */
	if (!expect_known_bug(TYPE1_GET_INFO_CAPS_LEAK, res.expected_leaks == 0))
		assert_int_equal(res.expected_leaks, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_info_failures_unwind),
	};

	return sweep_exit_status(cmocka_run_group_tests(tests, NULL, NULL), 0);
}
