// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA-BUF heap core (dma-heap.c) on its own: the DMA_HEAP_IOCTL_ALLOC
 * ioctl's argument handling and request checks, and heap registration
 * (dma_heap_add()) with its errors.  Run once per implementation (the
 * project's core and, in upstream mode, the kernel tree's dma-heap.c).
 *
 * Besides the system heap, the tests register test heaps through
 * kapi_heap_add(): a heap whose allocate op records what the core asked it
 * for (length, flags, its own name) in a struct of the test and fails with
 * the errno the test chose, so the core's part of a request is seen alone.
 *
 *   /dev/dma_heap/system         the system heap (booted)
 *   /dev/dma_heap/kapi-probe     a test heap, registered by the first test
 *   /dev/dma_heap/kapi-minor-N   test heaps filling the minors (last test)
 *
 * Heaps cannot be removed (6.12 has no dma_heap_remove()): a heap added
 * stays for the rest of the process, so "nothing left behind" is checked
 * around each failed registration, not against the machine's start.
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

/* _IOC(dir, 'H', nr, size) as <uapi/asm-generic/ioctl.h> encodes it. */
#define HEAP_IOC(dir, nr, size) \
	(((unsigned int)(dir) << 30) | ((unsigned int)(size) << 16) | \
	 ('H' << 8) | (nr))
#define IOC_NONE	0u
#define IOC_WRITE	1u	/* userspace writes: the kernel copies in */
#define IOC_READ	2u	/* the kernel copies out */
#define ALLOC_SIZE	((unsigned int)sizeof(struct kapi_dma_heap_allocation_data))

static int system_fd = -1;
static int probe_fd = -1;
static struct kapi_heap_request probe = { .ret = -EIO };

/* A fresh machine with the system heap and the probe heap open. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){
		.ram_bytes = 1 * GiB, .nr_cpus = 1, .seed = 1,
	});
	system_fd = kapi_heap_open("system");
	probe_fd = kapi_heap_open("kapi-probe");
	if (probe_fd == -ENOENT) {
		if (kapi_heap_add("kapi-probe", KAPI_HEAP_OPS, &probe))
			return -1;
		probe_fd = kapi_heap_open("kapi-probe");
	}
	if (system_fd < 0 || probe_fd < 0)
		return -1;
	memset(&probe, 0, sizeof(probe));
	probe.ret = -EIO;
	/* What every check compares against: the heaps open. */
	leak_snapshot_take(&at_start);
	return 0;
}

static int teardown(void **state)
{
	kapi_close(system_fd);
	kapi_close(probe_fd);
	system_fd = probe_fd = -1;
	sim_machine_destroy();
	return 0;
}

/* ------------------------------------------------------------------------
 * The ioctl.
 */

/* The core hands the heap the page-aligned length and the caller's flags. */
static void test_heap_gets_the_page_aligned_request(void **state)
{
	static const struct {
		unsigned long long len;
		unsigned int fd_flags;
		unsigned long long want_len;
	} cases[] = {
		{ 1,			KAPI_O_RDWR,			PAGE },
		{ PAGE,			KAPI_O_RDONLY,			PAGE },
		{ PAGE + PAGE / 4,	KAPI_O_RDWR | KAPI_O_CLOEXEC,	2 * PAGE },
		{ 1 * GiB + 1,		KAPI_O_WRONLY,			1 * GiB + PAGE },
		{ 64ULL * GiB,		KAPI_O_CLOEXEC,			64ULL * GiB },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int calls = probe.calls;

		assert_int_equal(kapi_heap_alloc(probe_fd, cases[i].len,
						 cases[i].fd_flags, 0), -EIO);
		assert_int_equal(probe.calls, calls + 1);
		assert_int_equal(probe.len, cases[i].want_len);
		assert_int_equal(probe.fd_flags, cases[i].fd_flags);
		assert_int_equal(probe.heap_flags, 0);
		assert_string_equal(probe.name, "kapi-probe");
		assert_nothing_left_behind();
	}
}

/* A request the core refuses never reaches the heap. */
static void test_refused_requests_never_reach_the_heap(void **state)
{
	static const struct {
		const char *what;
		unsigned long long len;
		unsigned int fd;
		unsigned int fd_flags;
		unsigned long long heap_flags;
	} cases[] = {
		{ "fd set on input",		PAGE, 3, KAPI_O_RDWR, 0 },
		{ "O_APPEND",			PAGE, 0, 02000, 0 },
		{ "O_NONBLOCK",			PAGE, 0, 04000, 0 },
		{ "heap flag 0",		PAGE, 0, KAPI_O_RDWR, 1 },
		{ "heap flag 40",		PAGE, 0, KAPI_O_RDWR, 1ULL << 40 },
		{ "zero length",		0, 0, KAPI_O_RDWR, 0 },
		{ "length that aligns to 0",	~0ULL - 100, 0, KAPI_O_RDWR, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_dma_heap_allocation_data req = {
			.len = cases[i].len,
			.fd = cases[i].fd,
			.fd_flags = cases[i].fd_flags,
			.heap_flags = cases[i].heap_flags,
		};
		long ret = kapi_ioctl(probe_fd, KAPI_DMA_HEAP_IOCTL_ALLOC, &req);

		if (ret != -EINVAL)
			fail_msg("%s: got %ld, want -EINVAL", cases[i].what, ret);
		assert_int_equal(probe.calls, 0);
		assert_nothing_left_behind();
	}
}

/*
 * Only the directions both the caller's command and DMA_HEAP_IOCTL_ALLOC
 * declare are copied, and the type is not checked:
 *
 *   _IOWR('H', 0, 24)   in and out: allocates, fd returned
 *   _IOWR('X', 0, 24)   another type, same number: the same
 *   _IOW('H', 0, 24)    in only: allocates, the fd is installed but the
 *                       caller is not told its number
 *   _IOR('H', 0, 24)    out only: the request reads as zeroes, len 0: -EINVAL
 *   _IO('H', 0)         nothing copied: -EINVAL
 */
static void test_alloc_ioctl_copies_only_the_declared_directions(void **state)
{
	static const struct {
		const char *what;
		unsigned int cmd;
		long ret;
		int fd_returned;
		int fd_installed;
	} cases[] = {
		{ "_IOWR",		KAPI_DMA_HEAP_IOCTL_ALLOC, 0, 1, 1 },
		{ "_IOWR type X",	(KAPI_DMA_HEAP_IOCTL_ALLOC & ~0xff00u) | ('X' << 8),
		  0, 1, 1 },
		{ "_IOW",		HEAP_IOC(IOC_WRITE, 0, ALLOC_SIZE), 0, 0, 1 },
		{ "_IOR",		HEAP_IOC(IOC_READ, 0, ALLOC_SIZE), -EINVAL, 0, 0 },
		{ "_IO",		HEAP_IOC(IOC_NONE, 0, 0), -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		/* Low byte nonzero: a one-byte copy in would give len 1. */
		struct kapi_dma_heap_allocation_data req = {
			.len = 64 * KiB + 1, .fd_flags = KAPI_O_RDWR,
		};
		/* The lowest free descriptor is the one a success takes. */
		int next_fd = kapi_heap_open("system");
		long ret;

		assert_true(next_fd >= 0);
		assert_int_equal(kapi_close(next_fd), 0);
		ret = kapi_ioctl(system_fd, cases[i].cmd, &req);
		if (ret != cases[i].ret)
			fail_msg("%s: got %ld, want %ld", cases[i].what, ret,
				 cases[i].ret);
		assert_int_equal(req.fd, cases[i].fd_returned ? next_fd : 0);
		assert_int_equal(kapi_nr_open_fds(), at_start.fds + cases[i].fd_installed);
		if (cases[i].fd_installed)
			assert_int_equal(kapi_close(next_fd), 0);
		assert_nothing_left_behind();
	}
}

/*
 * A command without the OUT direction copies nothing back, not even a
 * byte: with the caller's argument unwritable (every copy to user space
 * failing), _IOW still allocates and installs the fd; _IOWR fails -EFAULT
 * and installs nothing.
 */
static void test_alloc_without_out_direction_never_writes_the_argument(void **state)
{
	static const struct {
		const char *what;
		unsigned int cmd;
		long ret;
		int fd_installed;
	} cases[] = {
		{ "_IOW", HEAP_IOC(IOC_WRITE, 0, ALLOC_SIZE), 0, 1 },
		{ "_IOWR", KAPI_DMA_HEAP_IOCTL_ALLOC, -EFAULT, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_dma_heap_allocation_data req = {
			.len = 64 * KiB, .fd_flags = KAPI_O_RDWR,
		};
		int next_fd = kapi_heap_open("system");
		long ret;

		print_message("%s\n", cases[i].what);
		assert_true(next_fd >= 0);
		assert_int_equal(kapi_close(next_fd), 0);
		fail_every_call_of("shim/uaccess/copy_to_user");
		ret = kapi_ioctl(system_fd, cases[i].cmd, &req);
		stop_failing("shim/uaccess/copy_to_user");
		assert_int_equal(ret, cases[i].ret);
		assert_int_equal(req.fd, 0);
		assert_int_equal(kapi_nr_open_fds(),
				 at_start.fds + cases[i].fd_installed);
		if (cases[i].fd_installed)
			assert_int_equal(kapi_close(next_fd), 0);
		assert_nothing_left_behind();
	}
}

/*
 * Descriptor 0 is a descriptor like any other: with it free, the buffer
 * gets it, and the caller is told 0.
 */
static void test_buffer_can_get_descriptor_zero(void **state)
{
	int heap = kapi_heap_open("system");
	int zero_holder = system_fd < probe_fd ? system_fd : probe_fd;
	struct kapi_dma_heap_allocation_data req = {
		.len = 4 * KiB, .fd_flags = KAPI_O_RDWR,
	};

	assert_true(heap >= 0);
	assert_int_equal(zero_holder, 0);
	assert_int_equal(kapi_close(zero_holder), 0);
	assert_int_equal(kapi_ioctl(heap, KAPI_DMA_HEAP_IOCTL_ALLOC, &req), 0);
	assert_int_equal(req.fd, 0);
	assert_int_equal(kapi_dmabuf_begin_cpu_access(0, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(kapi_dmabuf_end_cpu_access(0, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(kapi_close(0), 0);
	/* Put the heap fd back where the teardown closes it. */
	if (zero_holder == system_fd)
		system_fd = kapi_heap_open("system");
	else
		probe_fd = kapi_heap_open("kapi-probe");
	assert_int_equal(kapi_close(heap), 0);
	assert_nothing_left_behind();
}

/*
 * An argument of up to 128 bytes, the size the core stages on its stack,
 * needs no allocation: with every kmalloc failing it still reaches the
 * heap; one byte more is -ENOMEM.
 */
static void test_ioctl_argument_up_to_128_bytes_needs_no_allocation(void **state)
{
	static const struct { unsigned int size; long ret; } cases[] = {
		{ 128, -EIO },
		{ 129, -ENOMEM },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned char arg[129] = { 0 };
		struct kapi_dma_heap_allocation_data req = {
			.len = 4 * KiB, .fd_flags = KAPI_O_RDWR,
		};
		unsigned int calls = probe.calls;
		long ret;

		memcpy(arg, &req, sizeof(req));
		fail_every_call_of("shim/slab/kmalloc");
		ret = kapi_ioctl(probe_fd, HEAP_IOC(IOC_READ | IOC_WRITE, 0,
						    cases[i].size), arg);
		stop_failing("shim/slab/kmalloc");
		if (ret != cases[i].ret)
			fail_msg("%u bytes: got %ld, want %ld", cases[i].size,
				 ret, cases[i].ret);
		assert_int_equal(probe.calls, calls + (cases[i].ret == -EIO));
		assert_nothing_left_behind();
	}
}

/*
 * A caller's argument shorter than the kernel's struct leaves the rest
 * zero (heap_flags 0), whatever an earlier request left in the kernel's
 * staging buffer: a full request with heap_flags set (refused), then a
 * 16-byte one, which the heap gets with heap_flags 0.
 */
static void test_short_argument_reads_as_zero_beyond_its_end(void **state)
{
	struct kapi_dma_heap_allocation_data req = {
		.len = 2 * PAGE, .fd_flags = KAPI_O_RDWR, .heap_flags = ~0ULL,
	};

	assert_int_equal(kapi_ioctl(probe_fd, KAPI_DMA_HEAP_IOCTL_ALLOC, &req),
			 -EINVAL);
	assert_int_equal(probe.calls, 0);
	assert_int_equal(kapi_ioctl(probe_fd, HEAP_IOC(IOC_READ | IOC_WRITE, 0, 16),
				    &req), -EIO);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(probe.len, 2 * PAGE);
	assert_int_equal(probe.heap_flags, 0);
	assert_nothing_left_behind();
}

/* Fail the nth call of one fault point during fn(arg); was one failed? */
static int with_nth_call_failing(const char *point, unsigned long long nth,
				 long (*fn)(void *), void *arg, long *ret)
{
	fail_nth_call_of(point, nth);
	*ret = fn(arg);
	return stop_failing(point) > nth;
}

struct big_request {
	struct kapi_dma_heap_allocation_data req;
	unsigned char tail[300];
};

static long alloc_with_big_argument(void *arg)
{
	struct big_request *big = arg;

	memset(big, 0, sizeof(*big));
	big->req.len = 64 * KiB;
	big->req.fd_flags = KAPI_O_RDWR;
	memset(big->tail, 0xff, sizeof(big->tail));
	return kapi_ioctl(probe_fd, HEAP_IOC(IOC_READ | IOC_WRITE, 0,
					     sizeof(*big)), big);
}

/*
 * An argument larger than the core stages on its stack is copied into a
 * kmalloc'ed buffer: when that allocation fails the ioctl is -ENOMEM and
 * the heap is not asked; when the copy in fails it is -EFAULT and the
 * buffer is freed; otherwise the heap gets the request.
 */
static void test_large_ioctl_argument_failures_unwind(void **state)
{
	struct big_request big;
	long ret;

	assert_true(with_nth_call_failing("shim/slab/kmalloc", 0,
					  alloc_with_big_argument, &big, &ret));
	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(probe.calls, 0);
	assert_nothing_left_behind();

	assert_true(with_nth_call_failing("shim/uaccess/copy_from_user", 0,
					  alloc_with_big_argument, &big, &ret));
	assert_int_equal(ret, -EFAULT);
	assert_int_equal(probe.calls, 0);
	assert_nothing_left_behind();

	assert_int_equal(alloc_with_big_argument(&big), -EIO);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(probe.len, 64 * KiB);
	assert_nothing_left_behind();
}

/*
 * The heaps' char-device region is minors 0 to 127 of one major: another
 * driver cannot register a minor inside it (-EBUSY) and can the one past
 * it; registering leaves nothing once undone.
 */
static void test_the_heaps_own_minors_0_to_127_of_their_major(void **state)
{
	static const struct {
		unsigned int minor, count;
		int ret;
	} cases[] = {
		{ 0, 1, -EBUSY },
		{ 127, 1, -EBUSY },
		{ 128, 1, 0 },
		{ 127, 2, -EBUSY },
	};
	unsigned int major, minor;
	unsigned int i;

	assert_int_equal(kapi_devnode_numbers("/dev/dma_heap/system", &major,
					      &minor), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = kapi_chrdev_region_register(major, cases[i].minor,
						      cases[i].count);

		print_message("minors %u+%u\n", cases[i].minor, cases[i].count);
		assert_int_equal(ret, cases[i].ret);
		if (!ret)
			kapi_chrdev_region_unregister(major, cases[i].minor,
						      cases[i].count);
	}
	assert_nothing_left_behind();
}

/*
 * A heap's char device is its node's minor alone: opened by number it is
 * the heap, and the next minor (no heap there yet: the probe heap is the
 * last one added before the registration tests) is no device (-ENXIO).
 */
static void test_a_heaps_char_device_is_its_one_minor(void **state)
{
	unsigned int major, minor;
	int fd;

	assert_int_equal(kapi_devnode_numbers("/dev/dma_heap/kapi-probe",
					      &major, &minor), 0);
	fd = kapi_chrdev_open(major, minor);
	assert_true(fd >= 0);
	assert_int_equal(kapi_heap_alloc(fd, PAGE, KAPI_O_RDWR, 0), -EIO);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(kapi_close(fd), 0);
	assert_int_equal(kapi_chrdev_open(major, minor + 1), -ENXIO);
	assert_nothing_left_behind();
}

/* ------------------------------------------------------------------------
 * Registration.
 */

/*
 * Export info the core refuses: the errno, one error in the kernel log,
 * and no node, object or minor.
 */
static void test_bad_export_info_is_refused(void **state)
{
	static const struct {
		const char *what;
		const char *name;
		enum kapi_heap_ops ops;
	} cases[] = {
		{ "no name",		NULL,		KAPI_HEAP_OPS },
		{ "empty name",		"",		KAPI_HEAP_OPS },
		{ "no ops",		"kapi-bad",	KAPI_HEAP_OPS_NONE },
		{ "no allocate op",	"kapi-bad",	KAPI_HEAP_OPS_NO_ALLOCATE },
		{ "the system heap's name", "system",	KAPI_HEAP_OPS },
		{ "the probe heap's name", "kapi-probe", KAPI_HEAP_OPS },
	};
	struct kapi_heap_request req = { .ret = -EIO };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long long errors = sim_klog_count(SIM_KLOG_ERR);
		int ret = kapi_heap_add(cases[i].name, cases[i].ops, &req);

		if (ret != -EINVAL)
			fail_msg("%s: got %d, want -EINVAL", cases[i].what, ret);
		/* The driver's author is told why, once. */
		assert_int_equal(sim_klog_count(SIM_KLOG_ERR), errors + 1);
		assert_nothing_left_behind();
	}
	assert_int_equal(kapi_heap_open("kapi-bad"), -ENOENT);
	/* The names already taken still reach their own heaps. */
	assert_int_equal(kapi_heap_alloc(probe_fd, PAGE, KAPI_O_RDWR, 0), -EIO);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(req.calls, 0);
}

static long add_nth_heap(void *arg)
{
	return kapi_heap_add("kapi-nth", KAPI_HEAP_OPS, arg);
}

/*
 * Fail each allocation dma_heap_add() makes in turn (the heap, its minor's
 * slot, the char device, the device, its name and node) until a run makes
 * none fail: every failure is -ENOMEM, logged as an error unless it is
 * the heap's own allocation, and leaves no object, no node and no minor
 * behind; the run that succeeds gives a working heap.
 */
static void test_every_allocation_failure_in_heap_add_unwinds(void **state)
{
	static struct kapi_heap_request req = { .ret = -ENOSPC };
	unsigned long long nth;
	long ret;

	for (nth = 0;; nth++) {
		unsigned long long errors = sim_klog_count(SIM_KLOG_ERR);

		if (!with_nth_call_failing("shim/slab/kmalloc", nth,
					   add_nth_heap, &req, &ret))
			break;
		assert_int_equal(ret, -ENOMEM);
		/*
		 * Past the name's copy (kapi_heap_add()'s) and the heap's own
		 * allocation, each failure is logged.
		 */
		assert_int_equal(sim_klog_count(SIM_KLOG_ERR), errors + (nth > 1));
		assert_nothing_left_behind();
		assert_int_equal(kapi_heap_open("kapi-nth"), -ENOENT);
	}
	/* The heap, its minor, char device and node were each allocated. */
	assert_true(nth >= 4);
	assert_int_equal(ret, 0);
	/* dma_heap_add() returned the heap: the handle has its name. */
	assert_string_equal(req.added_name, "kapi-nth");
	ret = kapi_heap_open("kapi-nth");
	assert_true(ret >= 0);
	assert_int_equal(kapi_heap_alloc((int)ret, PAGE, KAPI_O_RDWR, 0),
			 -ENOSPC);
	assert_string_equal(req.name, "kapi-nth");
	assert_int_equal(kapi_close((int)ret), 0);
}

/*
 * There are 128 minors: heaps are added until one is refused with -EBUSY,
 * which logs an error and leaves nothing behind; every heap added before opens and answers.
 */
static void test_heap_minors_run_out(void **state)
{
	static struct kapi_heap_request req = { .ret = -ENOSPC };
	char name[32];
	int added, ret = 0;

	for (added = 0; added <= 128; added++) {
		unsigned long long before = sim_kmalloc_outstanding();

		snprintf(name, sizeof(name), "kapi-minor-%d", added);
		unsigned long long errors = sim_klog_count(SIM_KLOG_ERR);

		ret = kapi_heap_add(name, KAPI_HEAP_OPS, &req);
		if (ret) {
			assert_int_equal(sim_kmalloc_outstanding(), before);
			assert_int_equal(sim_klog_count(SIM_KLOG_ERR), errors + 1);
			break;
		}
	}
	assert_int_equal(ret, -EBUSY);
	assert_int_equal(kapi_heap_open(name), -ENOENT);
	/* system, kapi-probe and kapi-nth hold three of the 128. */
	assert_int_equal(added, 128 - 3);
	for (int i = 0; i < added; i += 31) {
		int fd;

		snprintf(name, sizeof(name), "kapi-minor-%d", i);
		fd = kapi_heap_open(name);
		assert_true(fd >= 0);
		assert_int_equal(kapi_heap_alloc(fd, PAGE, KAPI_O_RDWR, 0),
				 -ENOSPC);
		assert_string_equal(req.name, name);
		assert_int_equal(kapi_close(fd), 0);
	}
	/* The system heap still allocates. */
	ret = kapi_heap_alloc(system_fd, PAGE, KAPI_O_RDWR, 0);
	assert_true(ret >= 0);
	assert_int_equal(kapi_close(ret), 0);
}

/*
 * A heap's node is opened nonseekable, as every dma-buf is a pseudo file:
 * pread() on either is -ESPIPE (a seekable file without a read op would
 * say -EINVAL), and a negative offset is -EINVAL before anything else.
 */
static void test_heap_and_buffer_fds_cannot_be_pread(void **state)
{
	static const struct {
		const char *what;
		int buffer;		/* the dma-buf fd, else the heap's */
		long long pos;
		long ret;
	} cases[] = {
		{ "the heap's node", 0, 0, -ESPIPE },
		{ "the heap's node at offset -1", 0, -1, -EINVAL },
		{ "a buffer", 1, 0, -ESPIPE },
	};
	int buf_fd = kapi_heap_alloc(system_fd, 4 * KiB, KAPI_O_RDWR, 0);
	char byte;
	unsigned int i;

	assert_true(buf_fd >= 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("%s\n", cases[i].what);
		assert_int_equal(kapi_pread(cases[i].buffer ? buf_fd : system_fd,
					    &byte, 1, cases[i].pos),
				 cases[i].ret);
	}
	assert_int_equal(kapi_close(buf_fd), 0);
	assert_nothing_left_behind();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_heap_gets_the_page_aligned_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_requests_never_reach_the_heap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_ioctl_copies_only_the_declared_directions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_without_out_direction_never_writes_the_argument, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_ioctl_argument_failures_unwind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_can_get_descriptor_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ioctl_argument_up_to_128_bytes_needs_no_allocation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_argument_reads_as_zero_beyond_its_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heap_and_buffer_fds_cannot_be_pread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_heaps_own_minors_0_to_127_of_their_major, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_heaps_char_device_is_its_one_minor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_export_info_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_allocation_failure_in_heap_add_unwinds, setup, teardown),
		/* Last: it leaves no minor free. */
		cmocka_unit_test_setup_teardown(test_heap_minors_run_out, setup, teardown),
	};

	return cmocka_run_group_tests_name("heap_core_" DMASIM_IMPL, tests,
					   boot_the_kernel, NULL);
}
