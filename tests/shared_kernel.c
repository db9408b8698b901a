// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel part of the shared test fixtures (see shared.h): the leak
 * check's snapshot, a booted machine with a process, its teardown with the
 * leak check, mappings, VFIO containers and devices.  Plain C: it reaches
 * the kernel only through <dmasim/kapi*.h>, and links with whichever
 * kernel implementation the test does.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

struct leak_snapshot at_start;

void leak_snapshot_take(struct leak_snapshot *s)
{
	s->kmalloc = sim_kmalloc_outstanding();
	s->buddy_allocated = sim_buddy_nr_allocated();
	s->buddy_free = sim_buddy_nr_free();
	s->pins = sim_pins_outstanding();
	s->domains = sim_iommu_nr_domains();
	s->devices = kapi_iommu_nr_devices();
	s->cdevs = kapi_nr_char_devices();
	s->device_nodes = kapi_nr_device_nodes();
	s->leaves_dropped = sim_iommu_leaves_dropped();
	s->vmaps = sim_vmap_outstanding();
	s->warnings = sim_kernel_warnings();
	s->fds = kapi_nr_open_fds();
	s->files = kapi_nr_files();
	s->containers = kapi_vfio_nr_open();
	s->locked_vm = kapi_mm_locked_vm();
	s->zero_page_taken = sim_zero_pfn != ~0UL;
}

/* ---- a booted machine, and what must come back ---- */

void given_a_booted_machine(const struct sim_config *cfg)
{
	given_a_fresh_machine(cfg);
	assert_int_equal(kapi_boot(), 0);
	sim_klog_reset();
	leak_snapshot_take(&at_start);
}

void grow_the_fd_table(void)
{
	assert_int_equal(kapi_close(kapi_heap_open("system")), 0);
	leak_snapshot_take(&at_start);
}

int boot_the_kernel(void **state)
{
	assert_int_equal(kapi_boot(), 0);
	return 0;
}

struct kapi_proc *given_a_process(void)
{
	struct kapi_proc *p = kapi_proc_create();

	assert_non_null(p);
	kapi_mm_hooks_reset();
	return p;
}

static void print_leak(void *ctx, const char *msg)
{
	print_error("%s\n", msg);
}

static void assert_back_to_start(unsigned int what)
{
	struct leak_snapshot now;

	leak_snapshot_take(&now);
	if (leak_snapshot_diff(&at_start, &now, what, 0, 0, print_leak, NULL))
		fail_msg("something was left behind (above)");
}

void assert_nothing_held(void)
{
	assert_back_to_start(LEAK_HELD);
}

void assert_nothing_left_behind(void)
{
	assert_back_to_start(LEAK_ALL);
}

void expect_warnings(unsigned long long n)
{
	assert_int_equal(sim_kernel_warnings(), at_start.warnings + n);
	at_start.warnings += n;
}

void expect_leaves_dropped(unsigned long long n)
{
	assert_int_equal(sim_iommu_leaves_dropped(), at_start.leaves_dropped + n);
	at_start.leaves_dropped += n;
}

void check_and_destroy_except(unsigned int unchecked)
{
	struct kapi_proc *p = kapi_proc_current();

	kapi_task_set_fatal_signal(0);
	kapi_mm_hooks_reset();
	sim_mm_set_legacy_addr_mask(0);
	assert_back_to_start(LEAK_HELD & ~unchecked);
	if (p)
		kapi_proc_destroy(p);
	kapi_proc_set_current(NULL);
	assert_back_to_start(LEAK_ALL & ~unchecked);
	sim_machine_destroy();
}

void check_and_destroy(void)
{
	check_and_destroy_except(0);
}

int check_and_destroy_the_machine(void **state)
{
	check_and_destroy();
	return 0;
}

/* ---- mappings ---- */

unsigned long map_memory(const struct kapi_mm_map *m)
{
	unsigned long va;

	assert_int_equal(kapi_mm_mmap(m, &va), 0);
	if (m->addr)
		assert_int_equal(va, m->addr);
	return va;
}

unsigned long map_anon(unsigned long len)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_ANON, .writable = 1, .align = PMD,
	});
}

unsigned long map_anon_at(unsigned long va, unsigned long len)
{
	return map_memory(&(struct kapi_mm_map){
		.addr = va, .len = len, .kind = KAPI_MM_ANON, .writable = 1,
	});
}

unsigned long map_bar(const struct kapi_mm_map *m,
		      const struct bar_placement *where, unsigned long *bar_pfn)
{
	struct kapi_mm_map bar = *m;
	struct bar_placement at = where ? *where :
		(struct bar_placement){ .align = m->align };

	bar.kind = KAPI_MM_PFNMAP;
	bar.pfn = sim_bar_create(m->len, at.align, at.misalign, at.below4g);
	assert_int_not_equal(bar.pfn, 0);
	if (bar_pfn)
		*bar_pfn = bar.pfn;
	return map_memory(&bar);
}

/* ---- core's unmap_stride ---- */

#define UNMAP_STRIDE_PARAM	"vfio_iommu_type1.unmap_stride"

int unmap_stride_get(void)
{
	char v[8];

	if (kapi_param_get(UNMAP_STRIDE_PARAM, v, sizeof(v)))
		return -1;
	return v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
}

int unmap_stride_set(int on)
{
	int was = unmap_stride_get();

	if (was >= 0)
		assert_int_equal(kapi_param_set(UNMAP_STRIDE_PARAM, on ? "1" : "0"), 0);
	return was;
}

void unmap_stride_restore(int was)
{
	if (was >= 0)
		unmap_stride_set(was);
}

/* ---- VFIO containers and devices ---- */

struct kapi_vfio *open_a_container(unsigned long type)
{
	struct kapi_vfio *c;

	assert_int_equal(kapi_vfio_open(type, &c), 0);
	return c;
}

struct kapi_vfio *open_a_v2_container(void)
{
	return open_a_container(KAPI_VFIO_TYPE1v2_IOMMU);
}

struct kapi_vfio_dev *attach_a_device_of_format(struct kapi_vfio *c,
						enum sim_iommu_format_id fmt)
{
	struct kapi_vfio_dev *dev;

	assert_int_equal(kapi_vfio_attach_iommu_dev(c, fmt, &dev), 0);
	return dev;
}

struct kapi_vfio_dev *attach_a_device_with(struct kapi_vfio *c,
					   const struct kapi_vfio_dev_opts *o)
{
	struct kapi_vfio_dev *dev;

	assert_int_equal(kapi_vfio_attach_iommu_dev_opts(c, o, &dev), 0);
	return dev;
}

struct kapi_vfio_dev *attach_an_emulated_device(struct kapi_vfio *c)
{
	struct kapi_vfio_dev *dev;

	assert_int_equal(kapi_vfio_attach_emulated_dev(c, &dev), 0);
	return dev;
}

void map_dma(struct kapi_vfio *c, unsigned long va, unsigned long long iova,
	     unsigned long long size, unsigned int prot)
{
	assert_int_equal(kapi_vfio_map_dma(c, va, iova, size, prot), 0);
}

void unmap_dma_exactly(struct kapi_vfio *c, unsigned long long iova,
		       unsigned long long size)
{
	unsigned long long unmapped = ~0ULL;

	assert_int_equal(kapi_vfio_unmap_dma(c, iova, size, 0, &unmapped), 0);
	assert_int_equal(unmapped, size);
}

void assert_iommu_matches_cpu(struct kapi_vfio_dev *dev, unsigned long long iova,
			      unsigned long va, unsigned long long len)
{
	unsigned long long bad = 0;

	/* The one oracle (kapi_vfio.h): every page, one comparison per leaf overlap. */
	assert_int_equal(kapi_vfio_dev_check_translation(dev, iova, va, len,
							 &bad), 0);
}

int returns_0_in_a_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		_exit(fn(arg) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
