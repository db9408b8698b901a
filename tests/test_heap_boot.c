// SPDX-License-Identifier: GPL-2.0-only
/*
 * Booting the heap: the heap core's init (a char-device region and the
 * "dma_heap" class) and the system heap's module init (its orders and its
 * dma_heap_add()), failed in turn; and, in the same boots, the VFIO
 * container and group layer's init (/dev/vfio/vfio, the group class and
 * region) and type1's registration as a backend.  Run once per
 * implementation.
 *
 * The kernel boots once per process, so each scenario runs in a child
 * process forked before anything booted; the child boots with its failure
 * set up, reports what it saw through a pipe, and exits.  The parent
 * checks the report:
 *
 *   boot          every allocation of the boot (kmalloc), failed in turn,
 *                 then none
 *   failed init   an initcall that fails keeps no kernel object
 *   heap          /dev/dma_heap/system opens and allocates if and only if
 *                 both inits succeeded; with the core's init failed, no
 *                 heap can be added (-ENODEV), not even a test heap
 *   vfio          /dev/vfio/vfio opens if and only if the VFIO init
 *                 succeeded, and its containers find type1 if and only if
 *                 type1 registered; either failure fails the boot
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/kapi_vfio_group.h>
#include <dmasim/sim.h>

#include "shared.h"

/* What a child saw. */
struct boot_report {
	int boot;			/* kapi_boot() */
	int failed;			/* the nth allocation was failed */
	unsigned long long kept;	/* objects failed initcalls kept */
	unsigned long long errors;	/* error lines the boot logged */
	int system_open;		/* kapi_heap_open("system") */
	int system_alloc;		/* a 64 KiB allocation from it */
	int system_leftovers;		/* after closing it: objects, pages, fds */
	int test_heap_add;		/* kapi_heap_add() of a test heap */
	int vfio_open;			/* kapi_vfio_container_fd_open() */
	long vfio_type1;		/* its CHECK_EXTENSION(TYPE1v2) */
};

/*
 * In the child: set the orders (NULL: leave them), fail the nth kmalloc
 * of the boot (~0: none), boot, and try the heaps.
 */
static void boot_and_report(const char *orders, unsigned long long nth,
			    struct boot_report *r)
{
	struct sim_config cfg = { .ram_bytes = 256 * MiB, .nr_cpus = 1, .seed = 1 };
	static struct kapi_heap_request req = { .ret = -ENOSPC };
	unsigned long long objects;
	unsigned long free_pages;
	unsigned int fds;

	memset(r, 0, sizeof(*r));
	if (orders && kapi_param_set("system_heap.orders", orders))
		r->boot = 1;	/* not an errno: the parent fails */
	fail_nth_call_of("shim/slab/kmalloc", nth);
	r->boot = kapi_boot();
	r->failed = stop_failing("shim/slab/kmalloc") > nth;
	r->kept = kapi_boot_failed_init_objects();
	r->errors = sim_klog_count(SIM_KLOG_ERR);

	if (sim_machine_init(&cfg))
		_exit(2);
	r->system_open = kapi_heap_open("system");
	r->system_alloc = -EBADF;
	if (r->system_open >= 0) {
		objects = sim_kmalloc_outstanding();
		free_pages = sim_buddy_nr_free();
		fds = kapi_nr_open_fds();
		r->system_alloc = kapi_heap_alloc(r->system_open, 64 * KiB,
						  KAPI_O_RDWR, 0);
		if (r->system_alloc >= 0)
			kapi_close(r->system_alloc);
		r->system_leftovers = sim_kmalloc_outstanding() != objects ||
				      sim_buddy_nr_free() != free_pages ||
				      kapi_nr_open_fds() != fds;
		kapi_close(r->system_open);
	}
	r->test_heap_add = kapi_heap_add("kapi-boot", KAPI_HEAP_OPS, &req);

	r->vfio_open = kapi_vfio_container_fd_open();
	r->vfio_type1 = -EBADF;
	if (r->vfio_open >= 0) {
		r->vfio_type1 = kapi_vfio_ioctl_val(r->vfio_open,
						    KAPI_VFIO_CHECK_EXTENSION,
						    KAPI_VFIO_TYPE1v2_IOMMU);
		kapi_close(r->vfio_open);
	}
}

/* Run boot_and_report() in a child; its report. */
static struct boot_report boot_in_a_child(const char *orders,
					  unsigned long long nth)
{
	struct boot_report r;
	int pipefd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(pipefd[0]);
		boot_and_report(orders, nth, &r);
		/* exit(), not _exit(): coverage data is written at exit. */
		exit(write(pipefd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 3);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &r, sizeof(r)), sizeof(r));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return r;
}

/* The heaps a boot left behave as its result says. */
static void assert_heaps_consistent(const struct boot_report *r,
				    unsigned long long nth)
{
	if (r->kept)
		fail_msg("failing allocation %llu: failed initcalls kept %llu objects",
			 nth + 1, r->kept);
	if (r->system_open >= 0) {
		/* Both inits ran through: a working heap, nothing left. */
		assert_true(r->system_alloc >= 0);
		assert_false(r->system_leftovers);
		assert_int_equal(r->test_heap_add, 0);
		return;
	}
	assert_int_equal(r->system_open, -ENOENT);
	assert_false(r->system_leftovers);
	assert_int_equal(r->boot, -ENOMEM);
	/* Without the core's class there is no heap at all. */
	assert_true(r->test_heap_add == 0 || r->test_heap_add == -ENODEV);
}

/*
 * What a boot left of VFIO agrees with its result: no container node (the
 * VFIO init failed: 1 returned), or containers without type1 (its
 * registration failed: 2), each failing the boot; else both work (0).
 */
static int vfio_boot_failure(const struct boot_report *r)
{
	if (r->vfio_open < 0) {
		assert_int_equal(r->vfio_open, -ENOENT);
		assert_int_equal(r->boot, -ENOMEM);
		return 1;
	}
	if (r->vfio_type1 != 1) {
		assert_int_equal(r->vfio_type1, 0);
		assert_int_equal(r->boot, -ENOMEM);
		return 2;
	}
	return 0;
}

/*
 * Every allocation of the boot failed in turn: the first ones are the heap
 * core's (its char-device region, its class), which leave no heap to add
 * (-ENODEV); later ones fail the system heap's dma_heap_add() or another
 * module's init.  Each failed init keeps nothing.
 */
static void test_every_allocation_failure_at_boot(void **state)
{
	struct boot_report r;
	unsigned long long nth;
	int core_failures = 0, heap_failures = 0, vfio_failures[3] = { 0 };

	r = boot_in_a_child(NULL, ~0ULL);
	assert_int_equal(r.boot, 0);
	assert_int_equal(r.errors, 0);
	assert_true(r.system_open >= 0);
	assert_heaps_consistent(&r, ~0ULL);
	assert_int_equal(vfio_boot_failure(&r), 0);

	for (nth = 0;; nth++) {
		r = boot_in_a_child(NULL, nth);
		if (!r.failed)
			break;
		assert_heaps_consistent(&r, nth);
		vfio_failures[vfio_boot_failure(&r)]++;
		if (r.test_heap_add == -ENODEV)
			core_failures++;
		else if (r.system_open < 0)
			heap_failures++;
	}
	assert_int_equal(r.boot, 0);
	/* The core's region and class; the system heap's own allocations. */
	assert_int_equal(core_failures, 2);
	assert_true(heap_failures >= 4);
	print_message("VFIO init failed %d times, type1's registration %d\n",
		      vfio_failures[1], vfio_failures[2]);
	/* At the least its two classes and the container's node (9 today). */
	assert_true(vfio_failures[1] >= 3);
	/* type1's module init allocates once: its registry entry. */
	assert_int_equal(vfio_failures[2], 1);
}

/*
 * A boot with an invalid orders list has no system heap (-EINVAL), and
 * says why: the heap's own error line, then the boot's report of the
 * failed initcall.
 */
static void test_invalid_orders_at_boot_leave_no_system_heap(void **state)
{
	static const char *const bad[] = { "4,8,0", "9,9", "11,4,0" };

	if (!DMASIM_IMPL_HEAP_ORDERS_PARAM)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct boot_report r = boot_in_a_child(bad[i], ~0ULL);

		assert_int_equal(r.boot, -EINVAL);
		assert_int_equal(r.errors, 2);
		assert_int_equal(r.kept, 0);
		assert_int_equal(r.system_open, -ENOENT);
		assert_false(r.system_leftovers);
		/* The heap core itself is up. */
		assert_int_equal(r.test_heap_add, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation_failure_at_boot),
		cmocka_unit_test(test_invalid_orders_at_boot_leave_no_system_heap),
	};

	return cmocka_run_group_tests_name("heap_boot_" DMASIM_IMPL, tests,
					   NULL, NULL);
}
