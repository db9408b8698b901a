/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The test fixtures every cmocka suite in tests/ shares (as the kernel's
 * tools/testing/vma has shared.c): one name for each idea, one copy of
 * each helper.  Helpers are named like sentences; the ones that check
 * fail the running cmocka test.
 *
 * Two libraries, both linked into every test (tests/meson.build):
 *
 *  plain part (shared.c; the simulator and libfiu only, no kernel code):
 *   - sizes: KiB .. TiB, SZ_4K .. SZ_1G (hardware sizes, such as IOMMU
 *     page sizes), and PAGE, PMD, PUD, PAGES_PER_PMD, PAGES_PER_PUD
 *     derived from the build's page size (DMASIM_PAGE_SHIFT, <dmasim/sim.h>);
 *     ARRAY_SIZE(); mask_of_level() of a page-table leaf;
 *   - fault injection by call number: fail_nth_call_of(),
 *     fail_calls_from_nth_of(), fail_calls_in_mask_of(),
 *     fail_every_call_of(), run_at_nth_call_of(), ... stop_failing()
 *     (one libfiu external callback serves every plan);
 *   - a machine of the simulator: given_a_fresh_machine(), and the cmocka
 *     teardown destroy_the_machine();
 *   - the leak check's snapshot and comparison (struct leak_snapshot,
 *     leak_snapshot_diff()): what must come back to its value once a
 *     scenario is over.
 *
 *  kernel part (shared_kernel.c; plain C calling the kernel through
 *  <dmasim/kapi*.h>, so linked with one kernel implementation):
 *   - leak_snapshot_take(): kmalloc'd objects, buddy pages (allocated and
 *     free), pins, IOMMU domains, devices and leaves freed with their
 *     domain, vmaps, WARNs, open fds and files, open VFIO containers,
 *     locked_vm of the current process;
 *   - given_a_booted_machine() (a fresh machine, the kernel booted, the
 *     snapshot at_start taken), given_a_process(), then
 *     assert_nothing_held() mid-scenario (a process may still own its
 *     memory; nothing may stay pinned, charged, attached or open) and
 *     assert_nothing_left_behind() once every process exited (the whole
 *     snapshot is back to at_start), expect_warnings() and
 *     expect_leaves_dropped() for what the kernel is meant to leave; the
 *     cmocka teardown check_and_destroy_the_machine() does both
 *     (check_and_destroy_except() leaves out what a file says it must);
 *     boot_the_kernel() as a cmocka group setup, grow_the_fd_table();
 *   - mappings from a struct kapi_mm_map with designated initialisers
 *     (map_memory(), map_anon(), map_anon_at(), map_bar()), VFIO
 *     containers, devices and DMAs (open_a_container(),
 *     attach_a_device_of_format(), map_dma(), unmap_dma_exactly(),
 *     assert_iommu_matches_cpu(), ...).
 *
 * The fail-nth sweeps (sweep.h, sweep.c: in the kernel part's library)
 * build on the same snapshot.  A test
 * includes "shared.h" (and "sweep.h" for sweeps) besides <dmasim/...>,
 * cmocka and libc.
 */
#ifndef DMASIM_TESTS_SHARED_H
#define DMASIM_TESTS_SHARED_H

#include <stddef.h>

#include <dmasim/impl.h>
#include <dmasim/sim.h>

/* ---- sizes ---- */

#define KiB	(1ULL << 10)
#define MiB	(1ULL << 20)
#define GiB	(1ULL << 30)
#define TiB	(1ULL << 40)

/* Sizes that are the hardware's whatever the CPU page size (IOMMU pages). */
#define SZ_4K	(4 * KiB)
#define SZ_8K	(8 * KiB)
#define SZ_16K	(16 * KiB)
#define SZ_64K	(64 * KiB)
#define SZ_1M	(1 * MiB)
#define SZ_2M	(2 * MiB)
#define SZ_4M	(4 * MiB)
#define SZ_32M	(32 * MiB)
#define SZ_512M	(512 * MiB)
#define SZ_1G	(1 * GiB)

/* The simulated CPU's page and leaf sizes (the build's DMASIM_PAGE_SHIFT). */
#define PAGE		SIM_PAGE_SIZE
#define PMD		SIM_PMD_SIZE
#define PUD		SIM_PUD_SIZE
#define PAGES_PER_PMD	(PMD / PAGE)
#define PAGES_PER_PUD	(PUD / PAGE)
/*
 * A range whose dirty bitmap (a bit per page, in 64-bit words) is at least
 * one word: 1 MiB (256 pages of 4 KiB), or 64 pages when that is more.
 */
#define DIRTY_LEN	(MiB > 64 * PAGE ? MiB : 64 * PAGE)
/*
 * The 32 GiB BAR of the VFIO report (DESIGN.md) and the largest CPU leaf
 * it maps with: a PUD (1 GiB, 32 of them) with 4 KiB pages; a PMD (32 or
 * 512 MiB) where a PUD (64 GiB, 4 TiB) is bigger than the BAR.
 */
#define BAR_32G		(32 * GiB)
#define BAR_32G_LEAF	(PUD <= BAR_32G ? PUD : PMD)
/*
 * What backs a THP range: a PMD folio where the buddy allocator has PMD
 * order (4 KiB pages); with 16 and 64 KiB pages (PMD order 11, 13 above
 * SIM_MAX_ORDER, THP backed by small pages, sim_mem.h) a max-order block
 * (16, 64 MiB), so a range of a few fits a small machine.
 */
#define THP_BLOCK	(SIM_PMD_ORDER <= SIM_MAX_ORDER ? PMD : PAGE << SIM_MAX_ORDER)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The max_seg_size of a DMA importer that takes segments of any length, as
 * GPU drivers declare it (dma_set_max_seg_size(dev, UINT_MAX)): the
 * system heap's blocks (up to 2 MiB) are then within its limits, which
 * the DMA-API checks (dma-debug's) verify at every map.
 */
#define ANY_SEGMENT_SIZE	0xffffffffu

/* The address mask of a leaf at level (SIM_PT_PTE/PMD/PUD = KAPI_MM_LEAF_*). */
unsigned long mask_of_level(int level);

/*
 * The addr_mask a follow_pfnmap lookup reports for a leaf whose mask is
 * leaf_mask: that mask where follow_pfnmap_start() fills it
 * (DMASIM_IMPL_PFNMAP_ADDR_MASK: core's, and trees from 6.15), else the
 * caller's zero, left untouched (6.12's, taken by upstream mode).
 */
#define expected_addr_mask(leaf_mask) \
	(DMASIM_IMPL_PFNMAP_ADDR_MASK ? (unsigned long)(leaf_mask) : 0UL)

/* ---- fault injection by call number (plain) ---- */

/*
 * Calls of the fault point `point` are numbered from when a plan starts
 * (0: the next call).  The fault points are armed (sim_faults_arm) until
 * stop_failing(point).  One plan at a time, except fail_every_call_of(),
 * which holds no count and may be on for several points at once.
 */
/* Fail call nth only. */
void fail_nth_call_of(const char *point, unsigned long long nth);
/* Let nth calls through, fail every later one. */
void fail_calls_from_nth_of(const char *point, unsigned long long nth);
/* Fail call n when bit n of mask is set (n < 64). */
void fail_calls_in_mask_of(const char *point, unsigned long long mask);
/* Fail every call. */
void fail_every_call_of(const char *point);
/* Fail nothing; run action at call nth only / at call nth and every later. */
void run_at_nth_call_of(const char *point, unsigned long long nth,
			void (*action)(void));
void run_from_nth_call_of(const char *point, unsigned long long nth,
			  void (*action)(void));
/*
 * End the plan of point and disarm; returns how many calls of point were
 * made since it started (more than nth: call nth was made).
 */
unsigned long long stop_failing(const char *point);

/* ---- the simulator's machine (plain) ---- */

/* sim_machine_init(cfg) (NULL: the sim's defaults), asserted. */
void given_a_fresh_machine(const struct sim_config *cfg);
/* cmocka teardown: sim_machine_destroy(). */
int destroy_the_machine(void **state);

/* ---- what must come back (the leak check) ---- */

struct leak_snapshot {
	unsigned long long kmalloc;
	unsigned long buddy_allocated;
	unsigned long buddy_free;
	unsigned long pins;
	unsigned long domains;
	unsigned long devices;
	unsigned long cdevs, device_nodes;
	unsigned long long leaves_dropped;
	unsigned long vmaps;
	unsigned long long warnings;
	unsigned long fds;
	unsigned long files;
	unsigned long containers;
	unsigned long locked_vm;
	int zero_page_taken;
};

/* What leak_snapshot_diff() compares (LEAK_ALL: everything). */
enum {
	LEAK_KMALLOC		= 1 << 0,
	LEAK_BUDDY		= 1 << 1,
	LEAK_PINS		= 1 << 2,
	LEAK_DOMAINS		= 1 << 3,
	LEAK_DEVICES		= 1 << 4,
	LEAK_LEAVES		= 1 << 5,
	LEAK_VMAPS		= 1 << 6,
	LEAK_WARNINGS		= 1 << 7,
	LEAK_FDS		= 1 << 8,
	LEAK_CONTAINERS		= 1 << 9,
	LEAK_LOCKED_VM		= 1 << 10,
	LEAK_ALL		= (1 << 11) - 1,
	/* What a live process may not hold between its scenarios' steps. */
	LEAK_HELD		= LEAK_CONTAINERS | LEAK_PINS | LEAK_LOCKED_VM |
				  LEAK_DOMAINS | LEAK_DEVICES | LEAK_WARNINGS,
};

/*
 * Compare after against before on the fields in `what`: say() gets one
 * message per difference ("+1 page pins left"); 1 if any.
 * expected_kmalloc: the objects a known upstream leak leaves (0: none);
 * warning_ok: a new WARN is expected.  The zero page, taken with a
 * machine's first mm, is not a difference.
 */
int leak_snapshot_diff(const struct leak_snapshot *before,
		       const struct leak_snapshot *after, unsigned int what,
		       unsigned long expected_kmalloc, int warning_ok,
		       void (*say)(void *ctx, const char *msg), void *ctx);

/* ---- kernel part (shared_kernel.c) ---- */

struct kapi_mm_map;
struct kapi_proc;
struct kapi_vfio;
struct kapi_vfio_dev;
struct kapi_vfio_dev_opts;

/* The whole snapshot, kernel counters included. */
void leak_snapshot_take(struct leak_snapshot *s);

/* The machine as the last given_a_booted_machine() left it. */
extern struct leak_snapshot at_start;

/*
 * A fresh machine (cfg; NULL: the sim's defaults), the kernel booted
 * (kapi_boot(): its initcalls run once per process), the kernel log
 * cleared, then at_start taken.
 */
void given_a_booted_machine(const struct sim_config *cfg);
/*
 * The fd table grows once per process, with its first descriptor (a
 * kmalloc'd object that stays): open and close one, then take at_start
 * again, so that a scenario's first descriptor is not counted as a leak.
 */
void grow_the_fd_table(void);
/* cmocka group setup: kapi_boot() before any machine, asserted. */
int boot_the_kernel(void **state);
/* A new process (kapi_proc_create()), made current; GUP hooks cleared. */
struct kapi_proc *given_a_process(void);
/*
 * Mid-scenario, the process still alive: no VFIO container open, no pin,
 * no locked_vm, no IOMMU domain or device and no WARN beyond at_start.
 */
void assert_nothing_held(void);
/* Every process exited: the whole snapshot is back to at_start. */
void assert_nothing_left_behind(void);
/* n WARNs came since at_start (and the last check): expected, absorbed. */
void expect_warnings(unsigned long long n);
/*
 * fn(arg) run in a forked child with the default crash handlers (cmocka's
 * would resume its runner in the child): whether it returned 0, not
 * crashed.  For a tree's known bug that crashes or corrupts the machine;
 * fn must not use cmocka's assertions.
 */
int returns_0_in_a_child(int (*fn)(void *arg), void *arg);
/*
 * n IOMMU leaves were freed with their domain since at_start (type1 frees
 * a detached group's domain without unmapping when another domain keeps
 * the DMAs): expected, absorbed.
 */
void expect_leaves_dropped(unsigned long long n);
/*
 * The end of a scenario: no fatal signal pending, GUP hooks and the
 * legacy addr_mask switch reset, assert_nothing_held(), the current
 * process (if any) exits, assert_nothing_left_behind(), the machine is
 * destroyed.  As a cmocka teardown: check_and_destroy_the_machine().
 */
void check_and_destroy(void);
int check_and_destroy_the_machine(void **state);
/* The same, not checking what `unchecked` (LEAK_*) says, with the reason. */
void check_and_destroy_except(unsigned int unchecked);

/* mmap *m into the current process, asserted; returns the address (m->addr if set). */
unsigned long map_memory(const struct kapi_mm_map *m);
/* The everyday buffer: len bytes of anonymous memory, writable, PMD-aligned. */
unsigned long map_anon(unsigned long len);
/* len bytes of anonymous writable memory at va exactly. */
unsigned long map_anon_at(unsigned long va, unsigned long len);

/* Where sim_bar_create() puts a BAR in the physical address map. */
struct bar_placement {
	unsigned long align;		/* 0: no alignment asked */
	unsigned long misalign;		/* bytes past that alignment */
	int below4g;			/* in the hole below 4 GiB, else above RAM */
};
/*
 * A BAR of m->len bytes placed as *where says (NULL: aligned to m->align,
 * above RAM), mapped as *m says with kind KAPI_MM_PFNMAP over its first
 * pfn (stored in *bar_pfn unless NULL).  Returns the address.
 */
unsigned long map_bar(const struct kapi_mm_map *m,
		      const struct bar_placement *where, unsigned long *bar_pfn);

/*
 * Core's type1 unmap change, module parameter vfio_iommu_type1.unmap_stride
 * (docs/next-bottleneck.md; core only: upstream trees have no such
 * parameter).  unmap_stride_get(): 1 on, 0 off, -1 no such parameter.
 * unmap_stride_set(): turns it on or off, asserted, and returns what it
 * was (0/1), or -1 with nothing set when there is no such parameter;
 * unmap_stride_restore() puts back what unmap_stride_set() returned
 * (nothing for -1).
 */
int unmap_stride_get(void);
int unmap_stride_set(int on);
void unmap_stride_restore(int was);

/* VFIO: a container of that type (KAPI_VFIO_TYPE1*_IOMMU), asserted. */
struct kapi_vfio *open_a_container(unsigned long type);
/* The everyday one: type1v2. */
struct kapi_vfio *open_a_v2_container(void);
/* A device behind a simulated IOMMU of that format, attached to c. */
struct kapi_vfio_dev *attach_a_device_of_format(struct kapi_vfio *c,
						enum sim_iommu_format_id fmt);
struct kapi_vfio_dev *attach_a_device_with(struct kapi_vfio *c,
					   const struct kapi_vfio_dev_opts *o);
/* An emulated device (mdev-style: pins through the external interface). */
struct kapi_vfio_dev *attach_an_emulated_device(struct kapi_vfio *c);
/* MAP_DMA of [va, +size) at iova with prot (KAPI_VFIO_DMA_MAP_*), asserted. */
void map_dma(struct kapi_vfio *c, unsigned long va, unsigned long long iova,
	     unsigned long long size, unsigned int prot);
/* UNMAP_DMA of [iova, +size): 0, and exactly size bytes unmapped. */
void unmap_dma_exactly(struct kapi_vfio *c, unsigned long long iova,
		       unsigned long long size);
/* The IOMMU translates [iova, +len) to exactly the CPU's pfns of [va, +len). */
void assert_iommu_matches_cpu(struct kapi_vfio_dev *dev, unsigned long long iova,
			      unsigned long va, unsigned long long len);

#endif
