// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VFIO interface a VMM uses, above type1 (core/drivers/vfio/container.c
 * and group.c): the container and group ioctls in the VMM's order and in
 * every wrong order with the kernel's errno, device fds and region info of
 * a simulated vfio-pci device, and its BAR mmap as vfio-pci's huge fault
 * fills it (leaf size by alignment, PTEs alone in a tree before huge pfnmap
 * faults; zapped while memory decode is off); a device unbound while its
 * fds are open, the unbind on a second thread, waiting for them.
 * Every case ends with nothing left behind: fds, files, pins, domains,
 * devices, locked_vm, memory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/kapi_vfio_group.h>
#include <dmasim/sim.h>
#include <dmasim/sim_iommu.h>

#include "shared.h"

#define RW		KAPI_VFIO_DMA_MAP_RW
#define IOVA		(8 * GiB)
#define BAR_SIZE	(4 * GiB)
/* The BAR whose mmap gets each leaf size: 4 PUDs (4 GiB with 4 KiB pages). */
#define LEAF_BAR	(4 * PUD)
#define VIABLE		KAPI_VFIO_GROUP_FLAGS_VIABLE
#define CONTAINER_SET	KAPI_VFIO_GROUP_FLAGS_CONTAINER_SET

/* A booted 2 GiB machine, a process, the fd table grown. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 2 * GiB });
	grow_the_fd_table();
	given_a_process();
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(kapi_vfio_pci_nr_alive(), 0);
	check_and_destroy();
	return 0;
}

/* ---- helpers ---- */

/* A vfio-pci device with a 64-bit BAR0 of bar_size (BAR1 its upper half). */
static struct kapi_vfio_pci *a_gpu_with_a_bar_of(unsigned long long bar_size)
{
	struct kapi_vfio_pci_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL,
		.bar_size = { bar_size },
		.bar_flags = { KAPI_VFIO_PCI_BAR_64 },
	};
	struct kapi_vfio_pci *p;

	assert_int_equal(kapi_vfio_pci_create(&o, &p), 0);
	return p;
}

/* A vfio-pci device with a 64-bit 4 GiB BAR0. */
static struct kapi_vfio_pci *a_gpu(void)
{
	return a_gpu_with_a_bar_of(BAR_SIZE);
}

/* What a VMM holds for one device. */
struct vmm {
	struct kapi_vfio_pci *dev;
	int cfd, gfd, dfd;
};

/* How far the VMM got. */
enum stage {
	OPENED,		/* container and group fds */
	CONTAINER,	/* SET_CONTAINER done */
	IOMMU,		/* SET_IOMMU done */
	DEVICE,		/* device fd open */
};

static void the_vmm_reaches(struct vmm *v, enum stage stage)
{
	unsigned int flags = 0;

	v->dfd = -1;
	v->cfd = kapi_vfio_container_fd_open();
	assert_true(v->cfd >= 0);
	assert_int_equal(kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_GET_API_VERSION,
					     0), 0);
	assert_int_equal(kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_CHECK_EXTENSION,
					     KAPI_VFIO_TYPE1v2_IOMMU), 1);
	v->gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(v->dev));
	assert_true(v->gfd >= 0);
	assert_int_equal(kapi_vfio_group_get_status(v->gfd, 8, &flags), 0);
	assert_int_equal(flags, VIABLE);
	if (stage < CONTAINER)
		return;
	assert_int_equal(kapi_vfio_group_set_container(v->gfd, v->cfd), 0);
	if (stage < IOMMU)
		return;
	assert_int_equal(kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_SET_IOMMU,
					     KAPI_VFIO_TYPE1v2_IOMMU), 0);
	if (stage < DEVICE)
		return;
	v->dfd = kapi_vfio_group_get_device_fd(v->gfd,
					       kapi_vfio_pci_name(v->dev));
	assert_true(v->dfd >= 0);
}

static unsigned int group_status_of(struct vmm *v)
{
	unsigned int flags = ~0u;

	assert_int_equal(kapi_vfio_group_get_status(v->gfd, 8, &flags), 0);
	return flags;
}

/* The VMM exits: device, group, container fds closed; the device goes. */
static void the_vmm_exits(struct vmm *v)
{
	if (v->dfd >= 0)
		assert_int_equal(kapi_close(v->dfd), 0);
	assert_int_equal(kapi_close(v->gfd), 0);
	assert_int_equal(kapi_close(v->cfd), 0);
	kapi_vfio_pci_destroy(v->dev);
}

/* ---- the VMM's sequence ---- */

/*
 * The VMM's order gives a device fd whose GET_INFO is vfio-pci's, and
 * MAP_DMA through the container pins the memory until the VMM exits.
 */
static void test_the_vmm_sequence_maps_dma_and_leaves_nothing(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct kapi_vfio_device_info info;
	unsigned long va = map_anon(2 * MiB);
	unsigned long long unmapped = 0;

	the_vmm_reaches(&v, CONTAINER);
	/* No backend yet: the backends asked without a container say 0. */
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_CHECK_EXTENSION,
					     KAPI_VFIO_DMA_CC_IOMMU), 0);
	kapi_close(v.gfd);
	kapi_close(v.cfd);
	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(group_status_of(&v), VIABLE | CONTAINER_SET);
	/* Now the container's own backend answers, from its domains. */
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_CHECK_EXTENSION,
					     KAPI_VFIO_DMA_CC_IOMMU), 1);
	assert_int_equal(kapi_vfio_device_get_info(v.dfd, &info), 0);
	assert_int_equal(info.flags, KAPI_VFIO_DEVICE_FLAGS_PCI |
				     KAPI_VFIO_DEVICE_FLAGS_RESET);
	assert_int_equal(info.num_regions, 9);
	assert_int_equal(info.num_irqs, 5);

	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	assert_int_equal(kapi_vfio_fd_unmap_dma(v.cfd, IOVA, 2 * MiB,
						&unmapped), 0);
	assert_int_equal(unmapped, 2 * MiB);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	/* Exiting with the DMA still mapped: the last group takes it all. */
	the_vmm_exits(&v);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/* CHECK_EXTENSION before any group asks every backend: type1's answers. */
static void test_check_extension_without_a_group_asks_the_backends(void **state)
{
	static const struct {
		unsigned long ext;
		long answer;
	} cases[] = {
		{ KAPI_VFIO_TYPE1_IOMMU, 1 },
		{ KAPI_VFIO_TYPE1v2_IOMMU, 1 },
		{ KAPI_VFIO_UNMAP_ALL, 1 },
		{ 2 /* SPAPR_TCE */, 0 },
		{ 8 /* NOIOMMU */, 0 },
		{ KAPI_VFIO_DMA_CC_IOMMU, 0 },
	};
	int cfd = kapi_vfio_container_fd_open();
	unsigned int i;

	assert_true(cfd >= 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(kapi_vfio_ioctl_val(cfd, KAPI_VFIO_CHECK_EXTENSION,
						     cases[i].ext),
				 cases[i].answer);
	assert_int_equal(kapi_close(cfd), 0);
}

/* ---- wrong orders ---- */

enum op {
	OP_SET_IOMMU_V2,
	OP_SET_IOMMU_SPAPR,
	OP_MAP_DMA,
	OP_GET_DEVICE_FD,
	OP_GET_DEVICE_FD_UNKNOWN,
	OP_SET_CONTAINER,
	OP_SET_CONTAINER_GROUP_FD,
	OP_SET_CONTAINER_BAD_FD,
	OP_SET_CONTAINER_NEGATIVE_FD,
	OP_UNSET_CONTAINER,
	OP_GET_STATUS_SHORT,
	OP_GET_STATUS_UNREADABLE,
	OP_GET_STATUS_UNWRITABLE,
	OP_SET_CONTAINER_UNREADABLE,
	OP_GROUP_UNKNOWN_IOCTL,
	OP_OPEN_GROUP_AGAIN,
	OP_CONTAINER_IOCTL_NO_BACKEND,
};

/* GET_STATUS whose first copy in the direction of @point faults. */
static long get_status_with_a_faulting_copy(struct vmm *v, const char *point)
{
	unsigned int flags;
	long ret;

	fail_nth_call_of(point, 0);
	ret = kapi_vfio_group_get_status(v->gfd, 8, &flags);
	assert_int_equal(stop_failing(point), 1);
	return ret;
}

static long the_vmm_tries(struct vmm *v, enum op op)
{
	unsigned long va;
	unsigned int flags;
	int fd;

	switch (op) {
	case OP_SET_IOMMU_V2:
		return kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_SET_IOMMU,
					   KAPI_VFIO_TYPE1v2_IOMMU);
	case OP_SET_IOMMU_SPAPR:
		return kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_SET_IOMMU, 2);
	case OP_MAP_DMA:
		va = map_anon(2 * MiB);
		return kapi_vfio_fd_map_dma(v->cfd, va, IOVA, 2 * MiB, RW);
	case OP_GET_DEVICE_FD:
		return kapi_vfio_group_get_device_fd(v->gfd,
						     kapi_vfio_pci_name(v->dev));
	case OP_GET_DEVICE_FD_UNKNOWN:
		return kapi_vfio_group_get_device_fd(v->gfd, "0000:ff:1f.7");
	case OP_SET_CONTAINER:
		return kapi_vfio_group_set_container(v->gfd, v->cfd);
	case OP_SET_CONTAINER_GROUP_FD:
		return kapi_vfio_group_set_container(v->gfd, v->gfd);
	case OP_SET_CONTAINER_BAD_FD:
		return kapi_vfio_group_set_container(v->gfd, 999);
	case OP_SET_CONTAINER_NEGATIVE_FD:
		return kapi_vfio_group_set_container(v->gfd, -1);
	case OP_UNSET_CONTAINER:
		return kapi_vfio_group_unset_container(v->gfd);
	case OP_GET_STATUS_SHORT:
		return kapi_vfio_group_get_status(v->gfd, 4, &flags);
	case OP_GET_STATUS_UNREADABLE:
		return get_status_with_a_faulting_copy(v, "shim/uaccess/copy_from_user");
	case OP_GET_STATUS_UNWRITABLE:
		return get_status_with_a_faulting_copy(v, "shim/uaccess/copy_to_user");
	case OP_SET_CONTAINER_UNREADABLE:
		fail_nth_call_of("shim/uaccess/copy_from_user", 0);
		fd = kapi_vfio_group_set_container(v->gfd, v->cfd);
		assert_int_equal(stop_failing("shim/uaccess/copy_from_user"), 1);
		return fd;
	case OP_GROUP_UNKNOWN_IOCTL:
		return kapi_vfio_ioctl_val(v->gfd, KAPI_VFIO_IO(50), 0);
	case OP_OPEN_GROUP_AGAIN:
		fd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(v->dev));
		if (fd >= 0)
			kapi_close(fd);
		return fd;
	case OP_CONTAINER_IOCTL_NO_BACKEND:
		return kapi_vfio_ioctl_val(v->cfd, KAPI_VFIO_IOMMU_GET_INFO, 0);
	}
	return 0;
}

/*
 * Every call out of order fails with the kernel's errno and changes
 * nothing: the group's status is what it was, and closing everything
 * leaves nothing behind.
 */
static void test_every_wrong_order_fails_and_changes_nothing(void **state)
{
	static const struct {
		const char *what;
		enum stage stage;
		enum op op;
		long err;
	} cases[] = {
		{ "SET_IOMMU before SET_CONTAINER", OPENED, OP_SET_IOMMU_V2, -EINVAL },
		{ "a second SET_IOMMU", IOMMU, OP_SET_IOMMU_V2, -EINVAL },
		{ "SET_IOMMU of a type no backend claims", CONTAINER,
		  OP_SET_IOMMU_SPAPR, -ENODEV },
		{ "MAP_DMA before SET_IOMMU", CONTAINER, OP_MAP_DMA, -EINVAL },
		{ "MAP_DMA with no group", OPENED, OP_MAP_DMA, -EINVAL },
		{ "a backend ioctl with no backend", CONTAINER,
		  OP_CONTAINER_IOCTL_NO_BACKEND, -EINVAL },
		{ "GET_DEVICE_FD before SET_CONTAINER", OPENED, OP_GET_DEVICE_FD,
		  -EINVAL },
		{ "GET_DEVICE_FD before SET_IOMMU", CONTAINER, OP_GET_DEVICE_FD,
		  -EINVAL },
		{ "GET_DEVICE_FD of no such device", IOMMU,
		  OP_GET_DEVICE_FD_UNKNOWN, -ENODEV },
		{ "a second SET_CONTAINER", CONTAINER, OP_SET_CONTAINER, -EINVAL },
		{ "SET_CONTAINER of a group fd", OPENED, OP_SET_CONTAINER_GROUP_FD,
		  -EBADFD },
		{ "SET_CONTAINER of a closed fd", OPENED, OP_SET_CONTAINER_BAD_FD,
		  -EBADF },
		{ "SET_CONTAINER of fd -1", OPENED, OP_SET_CONTAINER_NEGATIVE_FD,
		  -EBADF },
		{ "UNSET_CONTAINER with none", OPENED, OP_UNSET_CONTAINER, -EINVAL },
		{ "UNSET_CONTAINER with a device open", DEVICE, OP_UNSET_CONTAINER,
		  -EBUSY },
		{ "GET_STATUS with argsz 4", IOMMU, OP_GET_STATUS_SHORT, -EINVAL },
		{ "GET_STATUS that cannot read its argument", IOMMU,
		  OP_GET_STATUS_UNREADABLE, -EFAULT },
		{ "GET_STATUS that cannot write its answer back", IOMMU,
		  OP_GET_STATUS_UNWRITABLE, -EFAULT },
		{ "SET_CONTAINER that cannot read the fd", OPENED,
		  OP_SET_CONTAINER_UNREADABLE, -EFAULT },
		{ "an unknown group ioctl", CONTAINER, OP_GROUP_UNKNOWN_IOCTL,
		  -ENOTTY },
		{ "a second open of the group", OPENED, OP_OPEN_GROUP_AGAIN, -EBUSY },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct vmm v = { .dev = a_gpu() };
		unsigned int before;

		print_message("%s\n", cases[i].what);
		the_vmm_reaches(&v, cases[i].stage);
		before = group_status_of(&v);
		assert_int_equal(the_vmm_tries(&v, cases[i].op), cases[i].err);
		assert_int_equal(group_status_of(&v), before);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		the_vmm_exits(&v);
		assert_nothing_held();
	}
}

/*
 * Each allocation in SET_CONTAINER, SET_IOMMU and GET_DEVICE_FD fails in
 * turn: the call fails -ENOMEM (-EIO for the IOMMU domain's allocation in
 * a tree whose attach says so, DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO),
 * the group's status is what it was, and a VMM that exits then leaves
 * nothing behind.
 */
static void test_every_allocation_failing_in_each_step_leaves_nothing(void **state)
{
	static const struct {
		const char *what;
		enum stage stage;
		enum op op;
		int allocates;	/* the step allocates at all */
		int domains;	/* IOMMU domains it allocates (attach) */
	} cases[] = {
		/* into a container with no backend: no allocation */
		{ "SET_CONTAINER", OPENED, OP_SET_CONTAINER, 0, 0 },
		{ "SET_IOMMU", CONTAINER, OP_SET_IOMMU_V2, 1, 1 },
		{ "GET_DEVICE_FD", IOMMU, OP_GET_DEVICE_FD, 1, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long long nth, calls, failed = 0, eio = 0;

		for (nth = 0;; nth++) {
			struct vmm v = { .dev = a_gpu() };
			unsigned int before;
			long ret;

			the_vmm_reaches(&v, cases[i].stage);
			before = group_status_of(&v);
			fail_nth_call_of("shim/slab/kmalloc", nth);
			ret = the_vmm_tries(&v, cases[i].op);
			calls = stop_failing("shim/slab/kmalloc");
			if (calls > nth) {
				if (ret == -EIO)
					eio++;
				else
					assert_int_equal(ret, -ENOMEM);
				assert_int_equal(group_status_of(&v), before);
				failed++;
			} else {
				assert_true(ret >= 0);
				if (cases[i].op == OP_GET_DEVICE_FD)
					assert_int_equal(kapi_close((int)ret), 0);
			}
			the_vmm_exits(&v);
			assert_nothing_held();
			if (calls <= nth)
				break;
		}
		print_message("%s: %llu allocations failed in turn\n",
			      cases[i].what, failed);
		assert_int_equal(failed > 0, cases[i].allocates);
		assert_int_equal(eio, DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO ?
				      cases[i].domains : 0);
	}
}

/*
 * A group whose other device is bound to a host driver is not viable:
 * GET_STATUS says so and SET_CONTAINER fails -EPERM, leaving the container
 * empty (SET_IOMMU still -EINVAL).
 */
static void test_a_group_with_a_host_driver_is_not_viable(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct kapi_vfio_pci_opts peer_opts = {
		.fmt = SIM_IOMMU_INTEL_SL, .group_peer = v.dev, .host_driver = 1,
	};
	struct kapi_vfio_pci *peer;

	assert_int_equal(kapi_vfio_pci_create(&peer_opts, &peer), 0);
	v.cfd = kapi_vfio_container_fd_open();
	v.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(v.dev));
	v.dfd = -1;
	assert_true(v.cfd >= 0 && v.gfd >= 0);
	assert_int_equal(group_status_of(&v), 0);
	assert_int_equal(kapi_vfio_group_set_container(v.gfd, v.cfd), -EPERM);
	assert_int_equal(group_status_of(&v), 0);
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_SET_IOMMU,
					     KAPI_VFIO_TYPE1v2_IOMMU), -EINVAL);
	kapi_vfio_pci_destroy(peer);
	/* The host driver gone, the same group joins. */
	assert_int_equal(group_status_of(&v), VIABLE);
	assert_int_equal(kapi_vfio_group_set_container(v.gfd, v.cfd), 0);
	/* A host driver cannot bind to a device of a group VFIO owns. */
	assert_int_equal(kapi_vfio_pci_create(&peer_opts, &peer), -EBUSY);
	assert_int_equal(kapi_vfio_pci_nr_alive(), 1);
	the_vmm_exits(&v);
}

/*
 * The container fd closed first: the group keeps the container and its
 * DMA mappings alive; they go when the group's last user does.
 */
static void test_mappings_outlive_the_container_fd(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long va = map_anon(2 * MiB);

	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	assert_int_equal(group_status_of(&v), VIABLE | CONTAINER_SET);
	assert_int_equal(kapi_close(v.dfd), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	kapi_vfio_pci_destroy(v.dev);
}

/*
 * UNSET_CONTAINER of the last group releases the backend: the mappings
 * go, and the container needs SET_IOMMU again after the group rejoins.
 */
static void test_unset_of_the_last_group_releases_the_backend(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long va = map_anon(2 * MiB);

	the_vmm_reaches(&v, IOMMU);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	assert_int_equal(kapi_vfio_group_unset_container(v.gfd), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(group_status_of(&v), VIABLE);
	assert_int_equal(kapi_vfio_group_set_container(v.gfd, v.cfd), 0);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW),
			 -EINVAL);
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_SET_IOMMU,
					     KAPI_VFIO_TYPE1v2_IOMMU), 0);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	the_vmm_exits(&v);
}

/* Two groups in one container share its backend and its mappings. */
static void test_two_groups_share_one_container(void **state)
{
	struct vmm a = { .dev = a_gpu() }, b = { .dev = a_gpu() };
	unsigned long va = map_anon(2 * MiB);

	the_vmm_reaches(&a, DEVICE);
	b.cfd = a.cfd;
	b.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(b.dev));
	assert_true(b.gfd >= 0);
	assert_int_equal(kapi_vfio_group_set_container(b.gfd, a.cfd), 0);
	/* The second group joins a container that has its backend already. */
	b.dfd = kapi_vfio_group_get_device_fd(b.gfd, kapi_vfio_pci_name(b.dev));
	assert_true(b.dfd >= 0);
	assert_int_equal(kapi_vfio_fd_map_dma(a.cfd, va, IOVA, 2 * MiB, RW), 0);
	/* a leaves: b still holds the backend and the mapping. */
	assert_int_equal(kapi_close(a.dfd), 0);
	assert_int_equal(kapi_close(a.gfd), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	kapi_vfio_pci_destroy(a.dev);
	the_vmm_exits(&b);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/* ---- region info ---- */

/*
 * GET_REGION_INFO answers per region as vfio-pci does: sizes, flags, the
 * MSI-X capability (argsz raised when it does not fit), and -EINVAL for
 * VGA, past the end and a short argsz.
 */
static void test_region_info_of_each_region(void **state)
{
	struct kapi_vfio_pci_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL,
		.bar_size = { 256 * MiB, 0, 256, 2048, 4 * PAGE, 0 },
		.bar_flags = { KAPI_VFIO_PCI_BAR_64, 0, KAPI_VFIO_PCI_BAR_IO },
		.has_msix = 1, .msix_bar = 4,
	};
	static const unsigned int R = KAPI_VFIO_REGION_INFO_FLAG_READ,
		W = KAPI_VFIO_REGION_INFO_FLAG_WRITE,
		M = KAPI_VFIO_REGION_INFO_FLAG_MMAP,
		C = KAPI_VFIO_REGION_INFO_FLAG_CAPS;
	static const struct {
		const char *what;
		unsigned int index, argsz;
		long ret;
		unsigned int flags, argsz_out, cap_offset;
		unsigned long long size;
		int msix;
	} cases[] = {
		{ "64-bit memory BAR", 0, 32, 0, R | W | M, 32, 0, 256 * MiB, 0 },
		{ "its upper half", 1, 32, 0, 0, 32, 0, 0, 0 },
		{ "I/O BAR", 2, 32, 0, R | W, 32, 0, 256, 0 },
		{ "sub-page memory BAR", 3, 32, 0, R | W | M, 32, 0, 2048, 0 },
		{ "MSI-X BAR, no room", 4, 32, 0, R | W | M | C, 40, 0, 4 * PAGE, 0 },
		{ "MSI-X BAR, room", 4, 64, 0, R | W | M | C, 64, 32, 4 * PAGE, 1 },
		{ "absent BAR", 5, 32, 0, 0, 32, 0, 0, 0 },
		{ "no ROM", 6, 32, 0, 0, 32, 0, 0, 0 },
		{ "config space", 7, 32, 0, R | W, 32, 0, 4096, 0 },
		{ "VGA", 8, 32, -EINVAL, 0, 0, 0, 0, 0 },
		{ "past the end", 9, 32, -EINVAL, 0, 0, 0, 0, 0 },
		{ "argsz short", 0, 31, -EINVAL, 0, 0, 0, 0, 0 },
	};
	struct vmm v;
	unsigned int i;

	assert_int_equal(kapi_vfio_pci_create(&o, &v.dev), 0);
	the_vmm_reaches(&v, DEVICE);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_vfio_region_info info;

		print_message("%s\n", cases[i].what);
		assert_int_equal(kapi_vfio_device_get_region_info(v.dfd,
				cases[i].index, cases[i].argsz, &info),
				cases[i].ret);
		if (cases[i].ret)
			continue;
		assert_int_equal(info.flags, cases[i].flags);
		assert_int_equal(info.size, cases[i].size);
		assert_int_equal(info.offset,
				 (unsigned long long)cases[i].index << 40);
		assert_int_equal(info.argsz, cases[i].argsz_out);
		assert_int_equal(info.cap_offset, cases[i].cap_offset);
		assert_int_equal(info.msix_mappable, cases[i].msix);
	}
	the_vmm_exits(&v);
}

/*
 * DEVICE_GET_INFO writes back as much of its 24-byte struct as argsz
 * covers (cap_offset and pad 0: no capabilities), never past it.
 */
static void test_device_info_is_written_back_as_far_as_argsz(void **state)
{
	static const struct {
		unsigned int argsz;
		uint32_t cap_offset, pad, past;	/* words 4, 5, 6 after */
	} cases[] = {
		{ 16, ~0u, ~0u, ~0u },
		{ 20, 0, ~0u, ~0u },
		{ 24, 0, 0, ~0u },
		{ 28, 0, 0, ~0u },
	};
	struct vmm v = { .dev = a_gpu() };
	unsigned int i;

	the_vmm_reaches(&v, DEVICE);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint32_t words[7];

		print_message("argsz %u\n", cases[i].argsz);
		memset(words, 0xff, sizeof(words));
		words[0] = cases[i].argsz;
		assert_int_equal(kapi_vfio_ioctl_buf(v.dfd,
				KAPI_VFIO_DEVICE_GET_INFO, words,
				sizeof(words)), 0);
		assert_int_equal(words[0], cases[i].argsz);
		assert_int_equal(words[1], KAPI_VFIO_DEVICE_FLAGS_PCI |
					   KAPI_VFIO_DEVICE_FLAGS_RESET);
		assert_int_equal(words[2], 9);
		assert_int_equal(words[3], 5);
		assert_int_equal(words[4], cases[i].cap_offset);
		assert_int_equal(words[5], cases[i].pad);
		assert_int_equal(words[6], cases[i].past);
	}
	the_vmm_exits(&v);
}

/* ---- BAR mmap and its faults ---- */

static unsigned long the_vmm_mmaps(struct vmm *v, unsigned long long offset,
				   unsigned long len, unsigned long align,
				   unsigned long misalign)
{
	struct kapi_vfio_mmap m = {
		.index = 0, .offset = offset, .len = len, .shared = 1,
		.align = align, .misalign = misalign,
	};
	unsigned long va = 0;

	assert_int_equal(kapi_vfio_device_mmap(v->dfd, &m, &va), 0);
	return va;
}

/*
 * The leaf a BAR fault installs where vfio-pci's huge fault would install
 * level: that one, or a PTE in a tree before huge pfnmap faults (6.1,
 * DMASIM_IMPL_PFNMAP_HUGE_LEAVES false: the mm calls ->fault alone, so
 * nothing falls back either).
 */
static int bar_leaf_for(int level)
{
	return DMASIM_IMPL_PFNMAP_HUGE_LEAVES ? level : KAPI_MM_LEAF_PTE;
}

static unsigned long faults_of_level(const struct kapi_vfio_pci_stats *s,
				     int level)
{
	return level == KAPI_MM_LEAF_PUD ? s->faults_pud :
	       level == KAPI_MM_LEAF_PMD ? s->faults_pmd : s->faults_pte;
}

static int leaf_level_at(unsigned long va, unsigned long *pfn)
{
	int level = 0;

	assert_int_equal(kapi_mm_cpu_pfn(va, pfn, &level), 0);
	return level;
}

/*
 * A touch maps the largest leaf whose block lies inside the VMA with
 * user address and BAR address aligned alike: PUD, PMD or PTE, by table
 * (sizes from the geometry: a BAR of 4 PUDs, 4 GiB with 4 KiB pages);
 * a PTE, with no fallback, in a tree without huge pfnmap faults.
 */
static void test_bar_mmap_leaf_size_follows_alignment(void **state)
{
	static const struct {
		const char *what;
		unsigned long long offset;	/* into the BAR */
		unsigned long len;
		unsigned long misalign;		/* of the va from a PUD */
		unsigned long touch;		/* offset into the VMA */
		int level;
		unsigned long fallbacks;
	} cases[] = {
		{ "PUD-aligned, whole BAR", 0, LEAF_BAR, 0, 0, KAPI_MM_LEAF_PUD, 0 },
		{ "PUD-aligned, second PUD", 0, LEAF_BAR, 0, PUD + 5 * PAGE,
		  KAPI_MM_LEAF_PUD, 0 },
		{ "va a PMD off a PUD", 0, LEAF_BAR - PUD, PMD, 0,
		  KAPI_MM_LEAF_PMD, 1 },
		{ "BAR offset a PMD, va PUD-aligned", PMD, PUD, 0, 0,
		  KAPI_MM_LEAF_PMD, 1 },
		{ "VMA of half a PUD", 0, PUD / 2, 0, 0, KAPI_MM_LEAF_PMD, 1 },
		{ "va a page off a PUD", 0, 32 * PMD, PAGE, 0, KAPI_MM_LEAF_PTE, 2 },
		{ "ragged tail of a PMD-aligned VMA", 0, PMD + PAGE, 0,
		  PMD, KAPI_MM_LEAF_PTE, 2 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct vmm v = { .dev = a_gpu_with_a_bar_of(LEAF_BAR) };
		struct kapi_vfio_pci_stats s;
		unsigned long va, pfn, bar;

		print_message("%s\n", cases[i].what);
		the_vmm_reaches(&v, DEVICE);
		bar = kapi_vfio_pci_bar_pfn(v.dev, 0);
		va = the_vmm_mmaps(&v, cases[i].offset, cases[i].len, PUD,
				   cases[i].misalign);
		/* Nothing is mapped before the first touch. */
		assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
		assert_int_equal(kapi_mm_touch(va + cases[i].touch, 1, 1), 0);
		assert_int_equal(leaf_level_at(va + cases[i].touch, &pfn),
				 bar_leaf_for(cases[i].level));
		assert_int_equal(pfn, bar + (cases[i].offset + cases[i].touch) /
					    PAGE);
		kapi_vfio_pci_stats(v.dev, &s);
		assert_int_equal(s.faults_pud + s.faults_pmd + s.faults_pte, 1);
		assert_int_equal(faults_of_level(&s, bar_leaf_for(cases[i].level)), 1);
		assert_int_equal(s.fallbacks, DMASIM_IMPL_PFNMAP_HUGE_LEAVES ?
					      cases[i].fallbacks : 0);
		assert_int_equal(kapi_mm_munmap(va), 0);
		the_vmm_exits(&v);
		assert_nothing_held();
	}
}

/*
 * Memory decode off zaps the BAR mmap; a touch then is refused (SIGBUS)
 * and maps nothing; decode on lets the next touch fault the leaf back.
 */
static void test_decode_off_zaps_and_on_faults_back(void **state)
{
	struct vmm v = { .dev = a_gpu_with_a_bar_of(LEAF_BAR) };
	struct kapi_vfio_pci_stats s;
	unsigned long va, pfn, off;

	the_vmm_reaches(&v, DEVICE);
	va = the_vmm_mmaps(&v, 0, LEAF_BAR, PUD, 0);
	/* One touch per PUD (kapi_mm_touch() walks every page it is given). */
	for (off = 0; off < LEAF_BAR; off += PUD)
		assert_int_equal(kapi_mm_touch(va + off, 1, 0), 0);
	assert_int_equal(leaf_level_at(va + 3 * PUD, &pfn),
			 bar_leaf_for(KAPI_MM_LEAF_PUD));

	kapi_vfio_pci_set_memory(v.dev, 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
	assert_int_equal(kapi_mm_cpu_pfn(va + 3 * PUD, NULL, NULL), -ENOENT);
	assert_int_equal(kapi_mm_touch(va, 1, 0), -EFAULT);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
	kapi_vfio_pci_stats(v.dev, &s);
	assert_int_equal(s.zaps, 1);
	assert_int_equal(s.sigbus, 1);

	kapi_vfio_pci_set_memory(v.dev, 1);
	assert_int_equal(kapi_mm_touch(va + PUD, 1, 0), 0);
	assert_int_equal(leaf_level_at(va + PUD, &pfn),
			 bar_leaf_for(KAPI_MM_LEAF_PUD));
	assert_int_equal(pfn, kapi_vfio_pci_bar_pfn(v.dev, 0) + PUD / PAGE);
	kapi_vfio_pci_stats(v.dev, &s);
	/* 4 + the one back */
	assert_int_equal(faults_of_level(&s, bar_leaf_for(KAPI_MM_LEAF_PUD)), 5);
	assert_int_equal(kapi_mm_munmap(va), 0);
	the_vmm_exits(&v);
}

/* VFIO_DEVICE_FEATURE with no payload: the header alone. */
static long the_vmm_sets_feature(struct vmm *v, unsigned int feature)
{
	unsigned int hdr[2] = { 8, KAPI_VFIO_DEVICE_FEATURE_SET | feature };

	return kapi_vfio_ioctl_buf(v->dfd, KAPI_VFIO_DEVICE_FEATURE, hdr,
				   sizeof(hdr));
}

/*
 * vfio-pci's low-power entry (a feature the core hands to the driver)
 * zaps the BAR mmaps and refuses faults; a second entry is -EINVAL and
 * changes nothing; the exit lets faults map the BAR back; the last close
 * leaves low power too, so the next open faults in at once.
 */
static void test_low_power_entry_zaps_and_exit_faults_back(void **state)
{
	struct vmm v = { .dev = a_gpu_with_a_bar_of(LEAF_BAR) };
	struct kapi_vfio_pci_stats s;
	unsigned long va;

	the_vmm_reaches(&v, DEVICE);
	va = the_vmm_mmaps(&v, 0, PUD, PUD, 0);
	assert_int_equal(kapi_mm_touch(va, 1, 0), 0);

	assert_int_equal(the_vmm_sets_feature(&v,
		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
	assert_int_equal(kapi_mm_touch(va, 1, 0), -EFAULT);
	assert_int_equal(the_vmm_sets_feature(&v,
		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY), -EINVAL);
	kapi_vfio_pci_stats(v.dev, &s);
	assert_int_equal(s.low_power, 1);
	assert_int_equal(s.sigbus, 1);
	assert_int_equal(s.features, 2);

	assert_int_equal(the_vmm_sets_feature(&v,
		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_EXIT), 0);
	assert_int_equal(kapi_mm_touch(va, 1, 0), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), 0);
	/* An exit while not in low power is no error. */
	assert_int_equal(the_vmm_sets_feature(&v,
		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_EXIT), 0);

	/* Into low power again, then the last close. */
	assert_int_equal(the_vmm_sets_feature(&v,
		KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY), 0);
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(kapi_close(v.dfd), 0);
	v.dfd = kapi_vfio_group_get_device_fd(v.gfd, kapi_vfio_pci_name(v.dev));
	assert_true(v.dfd >= 0);
	va = the_vmm_mmaps(&v, 0, PUD, PUD, 0);
	assert_int_equal(kapi_mm_touch(va, 1, 0), 0);
	kapi_vfio_pci_stats(v.dev, &s);
	assert_int_equal(s.low_power, 2);
	assert_int_equal(s.sigbus, 1);
	assert_int_equal(kapi_mm_munmap(va), 0);
	the_vmm_exits(&v);
}

/*
 * MAP_DMA of a BAR mmap while decode is off faults through the handler,
 * which refuses: -EFAULT, nothing mapped or pinned.  A mapping made while
 * decode was on survives the zap (type1 has no invalidation hook).
 */
static void test_map_dma_of_a_disabled_bar(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long long unmapped = ~0ULL;
	unsigned long va;

	the_vmm_reaches(&v, DEVICE);
	va = the_vmm_mmaps(&v, 0, BAR_SIZE, GiB, 0);
	kapi_vfio_pci_set_memory(v.dev, 0);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, BAR_SIZE, RW),
			 -EFAULT);
	assert_int_equal(kapi_vfio_fd_unmap_dma(v.cfd, IOVA, BAR_SIZE,
						&unmapped), 0);
	assert_int_equal(unmapped, 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);

	kapi_vfio_pci_set_memory(v.dev, 1);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, BAR_SIZE, RW), 0);
	kapi_vfio_pci_set_memory(v.dev, 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
	assert_int_equal(kapi_vfio_fd_unmap_dma(v.cfd, IOVA, BAR_SIZE,
						&unmapped), 0);
	assert_int_equal(unmapped, BAR_SIZE);
	assert_int_equal(kapi_mm_munmap(va), 0);
	the_vmm_exits(&v);
}

/* mmap requests vfio-pci refuses: -EINVAL and no VMA, no file held. */
static void test_bad_bar_mmaps_fail_and_map_nothing(void **state)
{
	struct kapi_vfio_pci_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL,
		.bar_size = { 64 * MiB, 0, 256, 2048 },
		.bar_flags = { KAPI_VFIO_PCI_BAR_64, 0, KAPI_VFIO_PCI_BAR_IO },
	};
	static const struct {
		const char *what;
		unsigned int index;
		unsigned long long offset;
		unsigned long len;
		int shared;
	} cases[] = {
		{ "MAP_PRIVATE", 0, 0, 2 * MiB, 0 },
		{ "past the BAR's end", 0, 64 * MiB - PAGE, 2 * PAGE, 1 },
		{ "the upper half of a 64-bit BAR", 1, 0, PAGE, 1 },
		{ "an I/O BAR", 2, 0, PAGE, 1 },
		{ "past a sub-page BAR's page", 3, 0, 2 * PAGE, 1 },
		{ "the ROM", 6, 0, PAGE, 1 },
		{ "config space", 7, 0, PAGE, 1 },
		{ "past the regions", 9, 0, PAGE, 1 },
	};
	struct vmm v;
	unsigned int i;

	assert_int_equal(kapi_vfio_pci_create(&o, &v.dev), 0);
	the_vmm_reaches(&v, DEVICE);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_vfio_mmap m = {
			.index = cases[i].index, .offset = cases[i].offset,
			.len = cases[i].len, .shared = cases[i].shared,
		};
		unsigned long files = kapi_nr_files(), va = 0;

		print_message("%s\n", cases[i].what);
		assert_int_equal(kapi_vfio_device_mmap(v.dfd, &m, &va), -EINVAL);
		assert_int_equal(kapi_nr_files(), files);
	}
	the_vmm_exits(&v);
}

/*
 * A page-aligned sub-page BAR maps as vfio-pci maps it: one page, whose
 * touch puts a PTE on the BAR's first pfn.
 */
static void test_a_sub_page_bar_maps_its_page(void **state)
{
	struct kapi_vfio_pci_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL, .bar_size = { 2048 },
	};
	struct kapi_vfio_mmap m = { .index = 0, .len = PAGE, .shared = 1 };
	struct kapi_vfio_pci_stats s;
	unsigned long va = 0, pfn;
	struct vmm v;

	assert_int_equal(kapi_vfio_pci_create(&o, &v.dev), 0);
	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(kapi_vfio_device_mmap(v.dfd, &m, &va), 0);
	assert_int_equal(kapi_mm_touch(va, 1, 1), 0);
	assert_int_equal(leaf_level_at(va, &pfn), KAPI_MM_LEAF_PTE);
	assert_int_equal(pfn, kapi_vfio_pci_bar_pfn(v.dev, 0));
	kapi_vfio_pci_stats(v.dev, &s);
	assert_int_equal(s.faults_pte, 1);
	assert_int_equal(kapi_mm_munmap(va), 0);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/*
 * The group fd closed while a device fd is open: the device holds the
 * group file, so the group stays open (node -EBUSY) and in its container
 * (MAP_DMA works) until the device's last close, which takes the last
 * group out: the backend and every pin go, the node opens again.
 */
static void test_a_device_fd_keeps_its_closed_group_in_the_container(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long va = map_anon(4 * MiB);
	int group = kapi_vfio_pci_group_id(v.dev);

	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_vfio_group_fd_open(group), -EBUSY);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va + 2 * MiB,
					      IOVA + 2 * MiB, 2 * MiB, RW), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 4 * MiB / PAGE);

	assert_int_equal(kapi_close(v.dfd), 0);
	v.dfd = -1;
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW),
			 -EINVAL);
	v.gfd = kapi_vfio_group_fd_open(group);
	assert_true(v.gfd >= 0);
	assert_int_equal(group_status_of(&v), VIABLE);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/* A BAR mmap holds the device fd's file: the device closes after munmap. */
static void test_a_bar_mmap_holds_the_device_file(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long va;

	the_vmm_reaches(&v, DEVICE);
	va = the_vmm_mmaps(&v, 0, 2 * MiB, GiB, 0);
	assert_int_equal(kapi_close(v.dfd), 0);
	v.dfd = -1;
	/* The device is still open: the group cannot leave its container. */
	assert_int_equal(kapi_vfio_group_unset_container(v.gfd), -EBUSY);
	assert_int_equal(kapi_mm_touch(va, 1, 0), 0);
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(kapi_vfio_group_unset_container(v.gfd), 0);
	the_vmm_exits(&v);
}

/* ---- device opens, groups of several devices, registration ---- */

static struct kapi_vfio_pci_stats stats_of(struct kapi_vfio_pci *dev)
{
	struct kapi_vfio_pci_stats s;

	kapi_vfio_pci_stats(dev, &s);
	return s;
}

/*
 * A second GET_DEVICE_FD of an open device shares its open: the driver's
 * open_device ran once, close_device runs after the last fd, and the
 * group stays busy until then.
 */
static void test_a_second_device_fd_shares_the_driver_open(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	int dfd2;

	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(stats_of(v.dev).opens, 1);
	dfd2 = kapi_vfio_group_get_device_fd(v.gfd, kapi_vfio_pci_name(v.dev));
	assert_true(dfd2 >= 0 && dfd2 != v.dfd);
	assert_int_equal(stats_of(v.dev).opens, 1);
	assert_int_equal(kapi_close(v.dfd), 0);
	v.dfd = -1;
	assert_int_equal(stats_of(v.dev).closes, 0);
	assert_int_equal(kapi_vfio_group_unset_container(v.gfd), -EBUSY);
	assert_int_equal(kapi_close(dfd2), 0);
	assert_int_equal(stats_of(v.dev).closes, 1);
	assert_int_equal(kapi_vfio_group_unset_container(v.gfd), 0);
	assert_int_equal(group_status_of(&v), VIABLE);
	the_vmm_exits(&v);
}

/*
 * A device fd is read and written at offsets (region index << 40): the
 * file takes pread (FMODE_PREAD), so a pread reaches the device, which
 * has no read here: -EINVAL, as 6.12's VFIO core answers for a driver
 * without one (an fd without FMODE_PREAD is -ESPIPE before that).
 */
static void test_a_device_fd_is_read_at_offsets(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	char buf[4];

	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(kapi_pread(v.dfd, buf, sizeof(buf),
				    (long long)KAPI_VFIO_PCI_CONFIG_REGION_INDEX
				    << KAPI_VFIO_PCI_OFFSET_SHIFT), -EINVAL);
	the_vmm_exits(&v);
}

/* The minor of a device's group node. */
static unsigned int group_minor_of(struct kapi_vfio_pci *dev)
{
	unsigned int major, minor;
	char path[32];

	snprintf(path, sizeof(path), "/dev/vfio/%d",
		 kapi_vfio_pci_group_id(dev));
	assert_int_equal(kapi_devnode_numbers(path, &major, &minor), 0);
	return minor;
}

/*
 * A group's minor is free again once the group goes: the next group
 * takes the lowest free one, as 6.12's ida does (else 1024 groups made
 * and gone in a machine's life would leave none).
 */
static void test_a_gone_groups_minor_is_taken_again(void **state)
{
	struct kapi_vfio_pci *a = a_gpu(), *b = a_gpu(), *c;
	unsigned int minor_a = group_minor_of(a);

	assert_int_not_equal(group_minor_of(b), minor_a);
	kapi_vfio_pci_destroy(a);
	c = a_gpu();
	assert_int_equal(group_minor_of(c), minor_a);
	kapi_vfio_pci_destroy(c);
	kapi_vfio_pci_destroy(b);
}

/*
 * fd 0 is an fd like any other: with the container's fd (the process's
 * first, 0) closed after SET_IOMMU, GET_DEVICE_FD hands out 0, installed
 * and answering GET_INFO; the group file it holds keeps the container.
 */
static void test_a_device_fd_may_be_fd_0(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct kapi_vfio_device_info info;

	the_vmm_reaches(&v, IOMMU);
	assert_int_equal(v.cfd, 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	v.dfd = kapi_vfio_group_get_device_fd(v.gfd, kapi_vfio_pci_name(v.dev));
	assert_int_equal(v.dfd, 0);
	assert_int_equal(kapi_vfio_device_get_info(v.dfd, &info), 0);
	assert_int_equal(info.num_regions, KAPI_VFIO_PCI_NUM_REGIONS);
	assert_int_equal(kapi_close(v.dfd), 0);
	assert_int_equal(kapi_close(v.gfd), 0);
	kapi_vfio_pci_destroy(v.dev);
}

/*
 * GET_DEVICE_FD reads the device's name from the user a byte at a time,
 * at most a page of it (strndup_user()): a name at an address nothing
 * maps is -EFAULT, a page of bytes without a NUL is -EINVAL even with
 * nothing readable after it, and a name whose NUL is the last byte before
 * an unreadable page opens the device.  The failures open nothing.
 *
 *   host:  [ PAGE + one host page, read-write ][ one host page, PROT_NONE ]
 *          the name ends at the edge          ^ the unreadable address
 */
static void test_device_names_read_up_to_what_is_mapped(void **state)
{
	unsigned long host = (unsigned long)sysconf(_SC_PAGESIZE);
	unsigned long rw = PAGE + host;
	struct vmm v = { .dev = a_gpu() };
	const char *name = kapi_vfio_pci_name(v.dev);
	size_t len = strlen(name) + 1;
	char *buf;

	buf = mmap(NULL, rw + host, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	assert_int_equal(mprotect(buf + rw, host, PROT_NONE), 0);
	the_vmm_reaches(&v, IOMMU);

	assert_int_equal(kapi_vfio_ioctl_val(v.gfd, KAPI_VFIO_GROUP_GET_DEVICE_FD,
					     (unsigned long)(buf + rw)), -EFAULT);
	memset(buf + rw - PAGE, 'a', PAGE);
	assert_int_equal(kapi_vfio_ioctl_val(v.gfd, KAPI_VFIO_GROUP_GET_DEVICE_FD,
					     (unsigned long)(buf + rw - PAGE)),
			 -EINVAL);
	assert_int_equal(stats_of(v.dev).opens, 0);

	memcpy(buf + rw - len, name, len);
	v.dfd = kapi_vfio_ioctl_val(v.gfd, KAPI_VFIO_GROUP_GET_DEVICE_FD,
				    (unsigned long)(buf + rw - len));
	assert_true(v.dfd >= 0);
	assert_int_equal(stats_of(v.dev).opens, 1);
	the_vmm_exits(&v);
	assert_int_equal(munmap(buf, rw + host), 0);
	assert_nothing_held();
}

/*
 * GET_DEVICE_FD fails at each of its steps with that step's errno: no fd
 * number (-EMFILE), the driver's open_device (-ENOMEM); the device is not
 * left open and the group can leave its container (no user held).
 */
static void test_get_device_fd_failing_at_each_step_opens_nothing(void **state)
{
	static const struct {
		const char *what;
		const char *point;
		unsigned long long nth;	/* of the point's calls in the ioctl */
		long err;
	} cases[] = {
		{ "no free fd number", "shim/fs/get_unused_fd", 0, -EMFILE },
		/* strndup_user() of the name, then open_device's config space */
		{ "open_device", "shim/slab/kmalloc", 1, -ENOMEM },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct vmm v = { .dev = a_gpu() };
		unsigned long fds;

		print_message("%s\n", cases[i].what);
		the_vmm_reaches(&v, IOMMU);
		fds = kapi_nr_files();
		fail_nth_call_of(cases[i].point, cases[i].nth);
		assert_int_equal(kapi_vfio_group_get_device_fd(v.gfd,
				kapi_vfio_pci_name(v.dev)), cases[i].err);
		assert_true(stop_failing(cases[i].point) > cases[i].nth);
		assert_int_equal(stats_of(v.dev).opens, 0);
		assert_int_equal(kapi_nr_files(), fds);
		/* The retry is the device's first open: the driver opens. */
		v.dfd = kapi_vfio_group_get_device_fd(v.gfd,
						      kapi_vfio_pci_name(v.dev));
		assert_true(v.dfd >= 0);
		assert_int_equal(stats_of(v.dev).opens, 1);
		assert_int_equal(kapi_close(v.dfd), 0);
		v.dfd = -1;
		assert_int_equal(kapi_vfio_group_unset_container(v.gfd), 0);
		assert_int_equal(group_status_of(&v), VIABLE);
		the_vmm_exits(&v);
		assert_nothing_held();
	}
}

/*
 * A group joins a container whose backend cannot attach it (the IOMMU
 * driver refuses the domain): SET_CONTAINER fails with the backend's
 * errno, the group's DMA ownership is given back (viable, no container),
 * the group already there keeps its mapping, and the retry succeeds.
 */
static void test_joining_a_container_whose_backend_refuses_the_group(void **state)
{
	struct vmm a = { .dev = a_gpu() }, b = { .dev = a_gpu() };
	unsigned long va = map_anon(2 * MiB);

	the_vmm_reaches(&a, IOMMU);
	assert_int_equal(kapi_vfio_fd_map_dma(a.cfd, va, IOVA, 2 * MiB, RW), 0);
	b.cfd = a.cfd;
	b.dfd = -1;
	b.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(b.dev));
	assert_true(b.gfd >= 0);
	fail_every_call_of("shim/iommu/attach_dev");
	assert_int_equal(kapi_vfio_group_set_container(b.gfd, a.cfd), -ENOMEM);
	assert_true(stop_failing("shim/iommu/attach_dev") > 0);
	assert_int_equal(group_status_of(&b), VIABLE);
	assert_int_equal(group_status_of(&a), VIABLE | CONTAINER_SET);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	assert_int_equal(kapi_vfio_group_set_container(b.gfd, a.cfd), 0);
	assert_int_equal(group_status_of(&b), VIABLE | CONTAINER_SET);
	assert_int_equal(kapi_close(b.gfd), 0);
	kapi_vfio_pci_destroy(b.dev);
	the_vmm_exits(&a);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/*
 * SET_IOMMU of a container with two groups, each IOMMU attach failing in
 * turn: a failure attaching either group fails the call -ENOMEM, the group
 * attached before it is detached again, no backend is set (MAP_DMA
 * -EINVAL) and no IOMMU domain is left.  (A failure moving the second
 * group into the first one's domain, type1's third attach, is absorbed:
 * type1 keeps the group in a domain of its own.)
 */
static void test_set_iommu_unwinds_the_groups_attached_before_a_failure(void **state)
{
	unsigned long long nth, calls, failed = 0;
	unsigned long va = map_anon(2 * MiB);

	for (nth = 0;; nth++) {
		struct vmm a = { .dev = a_gpu() }, b = { .dev = a_gpu() };
		unsigned long domains;
		long ret;

		the_vmm_reaches(&a, CONTAINER);
		b.cfd = a.cfd;
		b.dfd = -1;
		b.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(b.dev));
		assert_true(b.gfd >= 0);
		assert_int_equal(kapi_vfio_group_set_container(b.gfd, a.cfd), 0);
		domains = sim_iommu_nr_domains();
		fail_nth_call_of("shim/iommu/attach_dev", nth);
		ret = kapi_vfio_ioctl_val(a.cfd, KAPI_VFIO_SET_IOMMU,
					  KAPI_VFIO_TYPE1v2_IOMMU);
		calls = stop_failing("shim/iommu/attach_dev");
		if (ret) {
			assert_int_equal(ret, -ENOMEM);
			assert_int_equal(kapi_vfio_fd_map_dma(a.cfd, va, IOVA,
							      2 * MiB, RW),
					 -EINVAL);
			assert_int_equal(sim_iommu_nr_domains(), domains);
			failed++;
		}
		assert_int_equal(group_status_of(&a), VIABLE | CONTAINER_SET);
		assert_int_equal(group_status_of(&b), VIABLE | CONTAINER_SET);
		assert_int_equal(kapi_close(b.gfd), 0);
		kapi_vfio_pci_destroy(b.dev);
		the_vmm_exits(&a);
		assert_nothing_held();
		if (calls <= nth)
			break;
	}
	assert_int_equal(failed, 2);
}

/*
 * Two VFIO devices in one IOMMU group share one group node: each gets its
 * own device fd and driver open, and the group goes with its last device.
 */
static void test_two_devices_of_one_group_share_its_node(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct kapi_vfio_pci_opts peer_opts = {
		.fmt = SIM_IOMMU_INTEL_SL, .group_peer = v.dev,
	};
	struct kapi_vfio_pci *peer;
	int group, pfd, gfd;

	assert_int_equal(kapi_vfio_pci_create(&peer_opts, &peer), 0);
	group = kapi_vfio_pci_group_id(v.dev);
	assert_int_equal(kapi_vfio_pci_group_id(peer), group);
	the_vmm_reaches(&v, DEVICE);
	pfd = kapi_vfio_group_get_device_fd(v.gfd, kapi_vfio_pci_name(peer));
	assert_true(pfd >= 0);
	assert_int_equal(stats_of(peer).opens, 1);
	assert_int_equal(stats_of(v.dev).opens, 1);
	assert_int_equal(kapi_close(pfd), 0);
	assert_int_equal(stats_of(peer).closes, 1);
	assert_int_equal(stats_of(v.dev).closes, 0);
	assert_int_equal(kapi_close(v.dfd), 0);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	/* One device gone, the group is still there for the other. */
	kapi_vfio_pci_destroy(peer);
	gfd = kapi_vfio_group_fd_open(group);
	assert_true(gfd >= 0);
	assert_int_equal(kapi_close(gfd), 0);
	kapi_vfio_pci_destroy(v.dev);
	assert_int_equal(kapi_vfio_group_fd_open(group), -ENOENT);
}

/*
 * Every allocation of a VFIO device's registration failing in turn (its
 * group, the group's char device and device node among them): the device
 * is not created (-ENOMEM), no group node appears and nothing is held.
 */
static void test_every_allocation_failing_in_device_creation_leaves_nothing(void **state)
{
	unsigned long long nth, calls, failed = 0;

	for (nth = 0;; nth++) {
		struct kapi_vfio_pci *dev = NULL;
		unsigned long files = kapi_nr_files();
		int ret;

		fail_nth_call_of("shim/slab/kmalloc", nth);
		ret = kapi_vfio_pci_create(&(struct kapi_vfio_pci_opts){
				.fmt = SIM_IOMMU_INTEL_SL }, &dev);
		calls = stop_failing("shim/slab/kmalloc");
		if (calls <= nth) {
			assert_int_equal(ret, 0);
			kapi_vfio_pci_destroy(dev);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(kapi_vfio_pci_nr_alive(), 0);
		assert_int_equal(kapi_nr_files(), files);
		assert_nothing_held();
		failed++;
	}
	print_message("%llu allocations failed in turn\n", failed);
	assert_true(failed >= 4);
}

/* A driver registering its device a second time is refused, harmlessly. */
static void test_registering_a_device_twice_is_refused(void **state)
{
	struct vmm v = { .dev = a_gpu() };

	assert_int_equal(kapi_vfio_pci_register_again(v.dev), -EBUSY);
	the_vmm_reaches(&v, DEVICE);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/*
 * A device unbound from vfio-pci and bound again is a VFIO device again
 * (its group made anew): the VMM's sequence works on it.
 */
static void test_a_device_bound_again_is_a_vfio_device_again(void **state)
{
	struct vmm v = { .dev = a_gpu() };

	assert_int_equal(kapi_vfio_pci_rebind(v.dev), 0);
	the_vmm_reaches(&v, DEVICE);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/* Devices without BARs, one per IOMMU group, until n or an error. */
static int groups_made(struct kapi_vfio_pci **devs, int n)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = kapi_vfio_pci_create(&(struct kapi_vfio_pci_opts){
			.fmt = SIM_IOMMU_INTEL_SL }, &devs[i]);
	return ret ? ret : i;
}

/*
 * 1024 group nodes at most (the minors of the region): the next device
 * of a new IOMMU group is refused, -ENOSPC, with nothing of it kept;
 * once a group goes, its minor serves the next.
 */
static void test_the_1025th_group_is_refused(void **state)
{
	static struct kapi_vfio_pci *devs[1025];
	int i;

	assert_int_equal(groups_made(devs, 1024), 1024);
	assert_int_equal(groups_made(&devs[1024], 1), -ENOSPC);
	kapi_vfio_pci_destroy(devs[0]);
	assert_int_equal(groups_made(devs, 1), 1);
	for (i = 0; i < 1024; i++)
		kapi_vfio_pci_destroy(devs[i]);
}

/*
 * A device behind no IOMMU cannot become a VFIO device: -EINVAL with
 * nothing held, and a VMM then gets a device fd as before.
 */
static void test_registering_a_device_without_an_iommu_group_is_refused(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	unsigned long files = kapi_nr_files();

	assert_int_equal(kapi_vfio_pci_register_without_iommu(), -EINVAL);
	assert_int_equal(kapi_nr_files(), files);
	the_vmm_reaches(&v, DEVICE);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/* ---- unbinding a device in use ---- */

struct unbind {
	struct kapi_vfio_pci *dev;
	int done;
};

/* The host's driver core unbinds the device from vfio-pci. */
static void *unbind_the_device(void *arg)
{
	struct unbind *u = arg;

	kapi_vfio_pci_destroy(u->dev);
	__atomic_store_n(&u->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int unbind_done(const struct unbind *u)
{
	return __atomic_load_n(&u->done, __ATOMIC_SEQ_CST);
}

static void sleep_ms(long ms)
{
	const struct timespec ts = { .tv_nsec = ms * 1000000 };

	nanosleep(&ts, NULL);
}

/* The driver's request callback has run n times (within 30 s). */
static void wait_for_requests(struct kapi_vfio_pci *dev, unsigned long n)
{
	for (int ms = 0; ms < 30000 && stats_of(dev).requests < n; ms++)
		sleep_ms(1);
	assert_int_equal(stats_of(dev).requests, n);
}

/*
 * The device unbound while the VMM holds its fd and a BAR mmap (which
 * holds the fd's file): the unbind asks the driver to have the user let
 * go (request, once: the VMM lets go within ten seconds) and waits.
 * Meanwhile the device has left its group's list (GET_DEVICE_FD -ENODEV)
 * but the group is whole (in its container, open: a second open -EBUSY);
 * closing the fd is not enough while the mmap holds its file.  The munmap
 * ends the wait: the driver closes, the group (its last device gone)
 * leaves its container and its node, GET_STATUS -ENODEV, no WARN.
 */
static void test_unbinding_a_device_in_use_waits_for_its_fds(void **state)
{
	struct vmm v = { .dev = a_gpu_with_a_bar_of(LEAF_BAR) };
	struct unbind u = { .dev = v.dev };
	int group = kapi_vfio_pci_group_id(v.dev);
	unsigned long va;
	pthread_t t;

	the_vmm_reaches(&v, DEVICE);
	va = the_vmm_mmaps(&v, 0, PUD, PUD, 0);
	assert_int_equal(kapi_mm_touch(va, 1, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, unbind_the_device, &u), 0);

	wait_for_requests(v.dev, 1);
	assert_false(unbind_done(&u));
	/* Asked for the first time: count 0 (vfio-pci's notice, once). */
	assert_int_equal(stats_of(v.dev).request_count, 0);
	assert_int_equal(kapi_vfio_group_get_device_fd(v.gfd,
						       kapi_vfio_pci_name(v.dev)),
			 -ENODEV);
	assert_int_equal(kapi_vfio_group_fd_open(group), -EBUSY);
	assert_int_equal(group_status_of(&v), VIABLE | CONTAINER_SET);
	assert_int_equal(stats_of(v.dev).closes, 0);

	assert_int_equal(kapi_close(v.dfd), 0);
	sleep_ms(20);
	assert_false(unbind_done(&u));
	assert_int_equal(stats_of(v.dev).closes, 0);
	assert_int_equal(stats_of(v.dev).requests, 1);

	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(unbind_done(&u));
	assert_int_equal(kapi_vfio_pci_nr_alive(), 0);
	assert_int_equal(kapi_vfio_group_get_status(v.gfd, 8, NULL), -ENODEV);
	assert_int_equal(kapi_vfio_group_fd_open(group), -ENOENT);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	assert_nothing_held();
}

/*
 * The unbind has begun its n-th wait on the machine's clock (or returned:
 * then it fails here), within 30 s.  It asks the driver before each wait.
 */
static void the_unbind_waits(const struct unbind *u, unsigned long n)
{
	for (int ms = 0; ms < 30000 && sim_clock_waits() < n && !unbind_done(u);
	     ms++)
		sleep_ms(1);
	assert_false(unbind_done(u));
	assert_int_equal(sim_clock_waits(), n);
}

/*
 * The device unbound while the VMM holds its fd and does not let go: the
 * unbind asks again each time ten seconds pass on the machine's clock
 * (advanced here, so no host time), with the number of times it asked
 * before.  A jiffy short of ten seconds it has asked once (count 0) and
 * still waits; at ten seconds the wait times out and it asks a second
 * time (count 1), at twenty a third (count 2).  Closing the fd ends the
 * wait: the driver closes and the unbind returns, nothing left.
 */
static void test_unbinding_asks_again_every_ten_seconds(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct unbind u = { .dev = v.dev };
	unsigned long asked;
	pthread_t t;

	the_vmm_reaches(&v, DEVICE);
	assert_int_equal(sim_clock_waits(), 0);
	assert_int_equal(pthread_create(&t, NULL, unbind_the_device, &u), 0);
	for (asked = 1; ; asked++) {
		the_unbind_waits(&u, asked);
		assert_int_equal(stats_of(v.dev).requests, asked);
		assert_int_equal(stats_of(v.dev).request_count, asked - 1);
		sim_clock_advance(10 * SIM_HZ - 1);
		assert_int_equal(sim_clock_timeouts(), asked - 1);
		assert_int_equal(sim_clock_waits(), asked);
		assert_int_equal(stats_of(v.dev).requests, asked);
		if (asked == 3)
			break;
		sim_clock_advance(1);
		assert_int_equal(sim_clock_timeouts(), asked);
	}

	assert_int_equal(stats_of(v.dev).closes, 0);
	assert_int_equal(kapi_close(v.dfd), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(unbind_done(&u));
	assert_int_equal(sim_clock_waits(), 3);
	assert_int_equal(sim_clock_timeouts(), 2);
	assert_int_equal(kapi_vfio_pci_nr_alive(), 0);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	assert_nothing_held();
}

/*
 * The backend's registration as its module's exit and init make it: a
 * second register is refused (-EINVAL), one unregister removes it (a
 * container then finds no backend), a second unregister changes nothing,
 * and registering again brings it back.
 */
static void test_backend_registration_is_once_and_undone_once(void **state)
{
	struct vmm v = { .dev = a_gpu() };

	assert_int_equal(kapi_vfio_backend_register(), -EINVAL);
	kapi_vfio_backend_unregister();
	kapi_vfio_backend_unregister();
	v.cfd = kapi_vfio_container_fd_open();
	v.gfd = kapi_vfio_group_fd_open(kapi_vfio_pci_group_id(v.dev));
	v.dfd = -1;
	assert_true(v.cfd >= 0 && v.gfd >= 0);
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_CHECK_EXTENSION,
					     KAPI_VFIO_TYPE1v2_IOMMU), 0);
	assert_int_equal(kapi_vfio_group_set_container(v.gfd, v.cfd), 0);
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_SET_IOMMU,
					     KAPI_VFIO_TYPE1v2_IOMMU), -ENODEV);
	assert_int_equal(kapi_vfio_backend_register(), 0);
	assert_int_equal(kapi_vfio_ioctl_val(v.cfd, KAPI_VFIO_SET_IOMMU,
					     KAPI_VFIO_TYPE1v2_IOMMU), 0);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/*
 * A backend giving one of register_device and unregister_device without
 * the other is refused (-EINVAL, a WARN each); a VMM then works as before.
 */
static void test_a_backend_with_one_device_hook_of_two_is_refused(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	int keep_register;

	for (keep_register = 0; keep_register <= 1; keep_register++) {
		assert_int_equal(kapi_vfio_backend_register_lopsided(keep_register),
				 -EINVAL);
		expect_warnings(1);
	}
	the_vmm_reaches(&v, DEVICE);
	the_vmm_exits(&v);
	assert_nothing_held();
}

/*
 * The device unregistered (unbound) while the VMM still holds the group
 * fd, in a container with DMA mapped or in none: the group leaves its
 * container (the last one takes the backend: pins, locked_vm and domain
 * go), its node goes (a new open -ENOENT), the open fd gets -ENODEV from
 * GET_STATUS and SET_CONTAINER, no WARN, and the close frees the group.
 */
static void test_a_device_unregistered_under_an_open_group_fd(void **state)
{
	static const enum stage stages[] = { OPENED, IOMMU };

	for (unsigned int i = 0; i < ARRAY_SIZE(stages); i++) {
		unsigned long domains = sim_iommu_nr_domains();
		unsigned int cdevs = kapi_nr_char_devices();
		unsigned int nodes = kapi_nr_device_nodes();
		struct vmm v = { .dev = a_gpu() };
		unsigned long va = map_anon(2 * MiB);
		int group = kapi_vfio_pci_group_id(v.dev);
		unsigned int flags = ~0u;
		char name[64];

		snprintf(name, sizeof(name), "%s", kapi_vfio_pci_name(v.dev));
		the_vmm_reaches(&v, stages[i]);
		if (stages[i] == IOMMU) {
			assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA,
							      2 * MiB, RW), 0);
			assert_int_equal(kapi_mm_pins_outstanding(),
					 2 * MiB / PAGE);
		}
		kapi_vfio_pci_destroy(v.dev);

		expect_warnings(0);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		assert_int_equal(sim_iommu_nr_domains(), domains);
		assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB,
						      RW), -EINVAL);
		assert_int_equal(kapi_vfio_group_get_status(v.gfd, 8, &flags),
				 -ENODEV);
		assert_int_equal(flags, ~0u);
		assert_int_equal(kapi_vfio_group_set_container(v.gfd, v.cfd),
				 -ENODEV);
		assert_int_equal(kapi_vfio_group_unset_container(v.gfd),
				 -EINVAL);
		assert_int_equal(kapi_vfio_group_get_device_fd(v.gfd, name),
				 -ENODEV);
		assert_int_equal(kapi_vfio_group_fd_open(group), -ENOENT);
		/* The open file holds the cdev, and the group, to its close. */
		assert_int_equal(kapi_nr_char_devices(), cdevs + 1);
		assert_int_equal(kapi_nr_device_nodes(), nodes);

		assert_int_equal(kapi_close(v.gfd), 0);
		assert_int_equal(kapi_nr_char_devices(), cdevs);
		assert_int_equal(kapi_close(v.cfd), 0);
		assert_nothing_held();
	}
}

/*
 * Of two devices in a group, one unregistered under the open group fd:
 * the group stays in its container for the other (status, mappings and
 * pins kept, MAP_DMA works) and only the gone one's name is -ENODEV; the
 * other's unregister then takes the group out of the container.
 */
static void test_a_peer_unregistered_under_an_open_group_fd(void **state)
{
	struct vmm v = { .dev = a_gpu() };
	struct kapi_vfio_pci_opts peer_opts = {
		.fmt = SIM_IOMMU_INTEL_SL, .group_peer = v.dev,
	};
	unsigned long va = map_anon(4 * MiB);
	struct kapi_vfio_pci *peer;
	unsigned int flags;
	char name[64];
	int dfd;

	assert_int_equal(kapi_vfio_pci_create(&peer_opts, &peer), 0);
	snprintf(name, sizeof(name), "%s", kapi_vfio_pci_name(peer));
	the_vmm_reaches(&v, IOMMU);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va, IOVA, 2 * MiB, RW), 0);
	kapi_vfio_pci_destroy(peer);

	assert_int_equal(group_status_of(&v), VIABLE | CONTAINER_SET);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * MiB / PAGE);
	assert_int_equal(kapi_vfio_fd_map_dma(v.cfd, va + 2 * MiB,
					      IOVA + 2 * MiB, 2 * MiB, RW), 0);
	assert_int_equal(kapi_vfio_group_get_device_fd(v.gfd, name), -ENODEV);
	dfd = kapi_vfio_group_get_device_fd(v.gfd, kapi_vfio_pci_name(v.dev));
	assert_true(dfd >= 0);
	assert_int_equal(kapi_close(dfd), 0);

	kapi_vfio_pci_destroy(v.dev);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_vfio_group_get_status(v.gfd, 8, &flags), -ENODEV);
	assert_int_equal(kapi_close(v.gfd), 0);
	assert_int_equal(kapi_close(v.cfd), 0);
	assert_nothing_held();
}

/* ---- the modules go ---- */

/*
 * Unloading the VFIO modules (module_exit; the last test: they stay
 * unloaded) gives back the groups' char device region, whose major
 * another driver can then register, and takes the container's node away.
 */
static void test_module_exit_gives_back_the_groups_char_region(void **state)
{
	struct kapi_vfio_pci *dev = a_gpu();
	unsigned int major, minor;
	char path[32];
	int cfd;

	snprintf(path, sizeof(path), "/dev/vfio/%d",
		 kapi_vfio_pci_group_id(dev));
	assert_int_equal(kapi_devnode_numbers(path, &major, &minor), 0);
	kapi_vfio_pci_destroy(dev);
	assert_int_equal(kapi_chrdev_region_register(major, 0, 1), -EBUSY);
	cfd = kapi_vfio_container_fd_open();
	assert_true(cfd >= 0);
	assert_int_equal(kapi_close(cfd), 0);
	kapi_shutdown();
	assert_int_equal(kapi_chrdev_region_register(major, 0, 1), 0);
	kapi_chrdev_region_unregister(major, 0, 1);
	assert_int_equal(kapi_vfio_container_fd_open(), -ENOENT);
}

/* The other task of the race below: the group's last device leaves. */
struct removal_in_the_open {
	struct kapi_vfio_pci *dev;
	unsigned int cdevs, nodes;	/* before the group was made */
	int ran;
	unsigned long long kmalloc;	/* after the removal */
};

static void the_last_device_leaves(void *arg)
{
	struct removal_in_the_open *r = arg;

	r->ran++;
	kapi_vfio_pci_destroy(r->dev);
	/* Its node and cdev are deleted; the open still holds the cdev. */
	assert_int_equal(kapi_nr_device_nodes(), r->nodes);
	assert_int_equal(kapi_nr_char_devices(), r->cdevs + 1);
	r->kmalloc = sim_kmalloc_outstanding();
}

/*
 * An open of the group's node that found its cdev before the group's last
 * device left, and reaches the group's open after: -ENODEV (the kernel's
 * "drivers is 0" check, made before the one-opener -EBUSY), not the
 * group, while another fd keeps the group's memory; that fd's close then
 * frees it.  An open after the removal finds no node: -ENOENT.
 */
static void test_an_open_racing_the_groups_removal_is_enodev(void **state)
{
	static const enum stage stages[] = { OPENED, IOMMU };

	for (unsigned int i = 0; i < ARRAY_SIZE(stages); i++) {
		struct removal_in_the_open r = {
			.cdevs = kapi_nr_char_devices(),
			.nodes = kapi_nr_device_nodes(),
		};
		struct vmm v = { .dev = a_gpu() };
		int group = kapi_vfio_pci_group_id(v.dev);

		r.dev = v.dev;
		the_vmm_reaches(&v, stages[i]);
		kapi_chrdev_open_race_set(the_last_device_leaves, &r);
		assert_int_equal(kapi_vfio_group_fd_open(group), -ENODEV);
		assert_int_equal(r.ran, 1);

		expect_warnings(0);
		/* The other fd's file holds the cdev until its close. */
		assert_int_equal(kapi_nr_char_devices(), r.cdevs + 1);
		assert_int_equal(kapi_nr_device_nodes(), r.nodes);
		assert_int_equal(kapi_vfio_group_fd_open(group), -ENOENT);
		assert_int_equal(r.ran, 1);
		assert_int_equal(kapi_close(v.gfd), 0);
		assert_int_equal(kapi_nr_char_devices(), r.cdevs);
		assert_int_equal(kapi_close(v.cfd), 0);
		assert_nothing_held();
	}
}

/*
 * The same race with no fd of the group open: only the paused open holds
 * the group (its cdev, whose parent is the group's device), so ->open
 * runs on live memory and answers -ENODEV, and its failure lets go of
 * the last reference: the group's memory and name go then (2 objects),
 * not at the removal.  Before the group embedded its device, the removal
 * freed it under the open (valgrind: invalid reads in ->open).
 */
static void test_an_open_racing_the_removal_of_an_unopened_group(void **state)
{
	struct removal_in_the_open r = {
		.cdevs = kapi_nr_char_devices(),
		.nodes = kapi_nr_device_nodes(),
	};
	int group;

	r.dev = a_gpu();
	group = kapi_vfio_pci_group_id(r.dev);
	assert_int_equal(kapi_nr_char_devices(), r.cdevs + 1);
	kapi_chrdev_open_race_set(the_last_device_leaves, &r);
	assert_int_equal(kapi_vfio_group_fd_open(group), -ENODEV);
	assert_int_equal(r.ran, 1);

	expect_warnings(0);
	assert_int_equal(sim_kmalloc_outstanding(), r.kmalloc - 2);
	assert_int_equal(kapi_nr_char_devices(), r.cdevs);
	assert_int_equal(kapi_nr_device_nodes(), r.nodes);
	assert_int_equal(kapi_vfio_group_fd_open(group), -ENOENT);
	assert_nothing_held();
}

/*
 * An open of the group's node that fails after its lookup and before
 * ->open (no fd number, no memory for the file) lets go of the cdev it
 * found: the count is back, and the next open gets the group.
 */
static void test_an_open_failing_before_the_groups_open_lets_the_cdev_go(void **state)
{
	static const struct {
		const char *point;
		int err;
	} cases[] = {
		{ "shim/fs/get_unused_fd", -EMFILE },
		{ "shim/slab/kmalloc", -ENOMEM },	/* the file's inode */
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int cdevs = kapi_nr_char_devices();
		struct kapi_vfio_pci *dev = a_gpu();
		int group = kapi_vfio_pci_group_id(dev);
		int gfd;

		assert_int_equal(kapi_nr_char_devices(), cdevs + 1);
		fail_nth_call_of(cases[i].point, 0);
		assert_int_equal(kapi_vfio_group_fd_open(group), cases[i].err);
		assert_true(stop_failing(cases[i].point) > 0);
		assert_int_equal(kapi_nr_char_devices(), cdevs + 1);
		gfd = kapi_vfio_group_fd_open(group);
		assert_true(gfd >= 0);
		assert_int_equal(kapi_close(gfd), 0);
		kapi_vfio_pci_destroy(dev);
		assert_int_equal(kapi_nr_char_devices(), cdevs);
		assert_nothing_held();
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_the_vmm_sequence_maps_dma_and_leaves_nothing),
		T(test_device_names_read_up_to_what_is_mapped),
		T(test_check_extension_without_a_group_asks_the_backends),
		T(test_every_wrong_order_fails_and_changes_nothing),
		T(test_every_allocation_failing_in_each_step_leaves_nothing),
		T(test_a_group_with_a_host_driver_is_not_viable),
		T(test_mappings_outlive_the_container_fd),
		T(test_unset_of_the_last_group_releases_the_backend),
		T(test_two_groups_share_one_container),
		T(test_region_info_of_each_region),
		T(test_device_info_is_written_back_as_far_as_argsz),
		T(test_bar_mmap_leaf_size_follows_alignment),
		T(test_decode_off_zaps_and_on_faults_back),
		T(test_low_power_entry_zaps_and_exit_faults_back),
		T(test_map_dma_of_a_disabled_bar),
		T(test_bad_bar_mmaps_fail_and_map_nothing),
		T(test_a_sub_page_bar_maps_its_page),
		T(test_a_bar_mmap_holds_the_device_file),
		T(test_a_device_fd_keeps_its_closed_group_in_the_container),
		T(test_a_second_device_fd_shares_the_driver_open),
		T(test_a_device_fd_is_read_at_offsets),
		T(test_a_gone_groups_minor_is_taken_again),
		T(test_a_device_fd_may_be_fd_0),
		T(test_get_device_fd_failing_at_each_step_opens_nothing),
		T(test_unbinding_a_device_in_use_waits_for_its_fds),
		T(test_unbinding_asks_again_every_ten_seconds),
		T(test_joining_a_container_whose_backend_refuses_the_group),
		T(test_set_iommu_unwinds_the_groups_attached_before_a_failure),
		T(test_two_devices_of_one_group_share_its_node),
		T(test_every_allocation_failing_in_device_creation_leaves_nothing),
		T(test_registering_a_device_twice_is_refused),
		T(test_a_device_bound_again_is_a_vfio_device_again),
		T(test_the_1025th_group_is_refused),
		T(test_registering_a_device_without_an_iommu_group_is_refused),
		T(test_a_backend_with_one_device_hook_of_two_is_refused),
		T(test_backend_registration_is_once_and_undone_once),
		T(test_a_device_unregistered_under_an_open_group_fd),
		T(test_a_peer_unregistered_under_an_open_group_fd),
		T(test_an_open_racing_the_groups_removal_is_enodev),
		T(test_an_open_racing_the_removal_of_an_unopened_group),
		T(test_an_open_failing_before_the_groups_open_lets_the_cdev_go),
		cmocka_unit_test_setup_teardown(
			test_module_exit_gives_back_the_groups_char_region,
			setup, destroy_the_machine),
	};

	return cmocka_run_group_tests_name("vfio_group", tests, NULL, NULL);
}
