// SPDX-License-Identifier: GPL-2.0-only
/*
 * GUP and its neighbours in the simulated kernel: pin_user_pages_remote()
 * pins real pages (faulting them in) and every pin is released by the
 * unpin family; short counts at the end of what can be pinned; pfn maps
 * refused; THP folios; the zero page; fixup_user_fault(); locked_vm
 * accounting against RLIMIT_MEMLOCK and CAP_IPC_LOCK; the test hooks and
 * fault points; and nothing left behind when a process exits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "shared.h"

/* Buddy pages allocated once the process exists (the zero page among them). */
static unsigned long allocated_at_start;

/* A booted 2 GiB machine and a process. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 2 * GiB });
	given_a_process();
	allocated_at_start = sim_buddy_nr_allocated();
	return 0;
}

/* len bytes of anonymous memory wherever the sim puts it (no alignment). */
static unsigned long map_anon_pages(unsigned long len, int writable)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_ANON, .writable = writable,
	});
}

static void assert_pfns_are_what_the_cpu_sees(unsigned long va,
					      const unsigned long *pfns,
					      unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned long cpu_pfn;

		assert_int_equal(kapi_mm_cpu_pfn(va + i * PAGE, &cpu_pfn, NULL), 0);
		assert_int_equal(pfns[i], cpu_pfn);
		assert_true(sim_pfn_valid(pfns[i]));
	}
}

/* Writable pins fault pages in, match the CPU's view, and all come back. */
static void test_pins_fault_pages_in_and_are_balanced_by_unpin(void **state)
{
	unsigned long va = map_anon_pages(16 * PAGE, 1), pfns[16];
	struct sim_counters before, after, d;

	sim_counters_snapshot(&before);
	assert_int_equal(kapi_mm_pin(va, 16, 1, 1, pfns), 16);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &d);
	assert_int_equal(d.c[SIM_CNT_FAULT], 16);
	assert_int_equal(d.c[SIM_CNT_GUP_CALL], 1);
	assert_int_equal(d.c[SIM_CNT_GUP_PAGE], 16);
	assert_int_equal(kapi_mm_pins_outstanding(), 16);
	assert_pfns_are_what_the_cpu_sees(va, pfns, 16);

	kapi_mm_unpin(pfns, 16, 1);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(sim_kernel_warnings(), 0);
}

/*
 *   [ va, va+8 pages )  anon       [ +8 .. )  hole
 * Pinning 12 pages from va pins the 8 the VMA has; from the hole, -EFAULT.
 */
static void test_pin_stops_short_at_end_of_vma(void **state)
{
	unsigned long va = map_anon_pages(8 * PAGE, 1), pfns[12];

	assert_int_equal(kapi_mm_pin(va, 12, 1, 1, pfns), 8);
	assert_int_equal(kapi_mm_pins_outstanding(), 8);
	kapi_mm_unpin(pfns, 8, 0);
	assert_int_equal(kapi_mm_pin(va + 8 * PAGE, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/*
 *   [ a, a+4 pages ) anon  [ a+4, a+8 ) anon   (adjacent VMAs)
 * GUP walks from one VMA into the next, as the kernel's does.
 */
static void test_pin_continues_into_adjacent_vma(void **state)
{
	unsigned long a = map_anon_pages(4 * PAGE, 1), pfns[8];

	map_anon_at(a + 4 * PAGE, 4 * PAGE);
	assert_int_equal(kapi_mm_pin(a, 8, 1, 1, pfns), 8);
	assert_pfns_are_what_the_cpu_sees(a, pfns, 8);
	kapi_mm_unpin(pfns, 8, 0);
}

/*
 *   [ a, a+2 pages ) anon  [ a+2, a+2+2M ) pfnmap over a BAR
 * A pfn map cannot be pinned: -EFAULT from its start, a short count of the
 * anon pages before it.
 */
static void test_pin_refuses_pfnmap_vma(void **state)
{
	unsigned long pfn = sim_bar_create(PMD, 0, 0, 0), a, pfns[4];
	struct kapi_mm_map bar = { .len = PMD, .kind = KAPI_MM_PFNMAP,
				   .writable = 1, .populate = 1, .pfn = pfn,
				   .max_leaf = KAPI_MM_LEAF_PTE };

	a = map_anon_pages(2 * PAGE, 1);
	bar.addr = a + 2 * PAGE;
	assert_int_equal(kapi_mm_mmap(&bar, &bar.addr), 0);
	assert_int_equal(kapi_mm_pin(bar.addr, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(kapi_mm_pin(a, 4, 1, 1, pfns), 2);
	kapi_mm_unpin(pfns, 2, 0);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/*
 * GUP asserts the mmap lock (mmap_assert_locked()) on every call, the
 * pfn map's refusal decided inline included: without the lock the call
 * is reported, and still refused.
 */
static void test_a_pfnmap_refusal_without_the_mmap_lock_is_reported(void **state)
{
	unsigned long pfn = sim_bar_create(PMD, 0, 0, 0), pfns[4];
	unsigned long long reports;
	struct kapi_mm_map bar = { .len = PMD, .kind = KAPI_MM_PFNMAP,
				   .writable = 1, .populate = 1, .pfn = pfn,
				   .max_leaf = KAPI_MM_LEAF_PTE };

	assert_int_equal(kapi_mm_mmap(&bar, &bar.addr), 0);
	/* Under the lock (and the VMA now the last one looked up): silent. */
	reports = sim_lockdep_reports(SIM_LOCKDEP_NOT_HELD);
	assert_int_equal(kapi_mm_pin(bar.addr, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_NOT_HELD), reports);
	assert_int_equal(kapi_mm_pin_without_mmap_lock(bar.addr, 4, 1), -EFAULT);
	assert_int_equal(sim_lockdep_reports(SIM_LOCKDEP_NOT_HELD), reports + 1);
	expect_warnings(1);	/* the report */
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/* A BAR mapped as a pfn map of PTE leaves, and 4 anon pages: *bar, *anon. */
static void map_a_bar_and_anon_pages(unsigned long *bar, unsigned long *anon)
{
	struct kapi_mm_map m = { .len = PMD, .kind = KAPI_MM_PFNMAP,
				 .writable = 1, .populate = 1,
				 .pfn = sim_bar_create(PMD, 0, 0, 0),
				 .max_leaf = KAPI_MM_LEAF_PTE };

	assert_int_equal(kapi_mm_mmap(&m, &m.addr), 0);
	*bar = m.addr;
	*anon = map_anon_pages(4 * PAGE, 1);
}

/*
 * A pin the pfn map refuses at once (type1's per-page GUP attempt before
 * 6.15, decided with no call when nothing is armed) counts as any call
 * does: the GUP call counter, the fault point's calls and, once a test
 * hook is set, its call numbers; and an armed hook, fault point or choice
 * point still has its say first on such a call.  Nothing is left pinned.
 */
static void test_a_pfnmap_refusal_counts_and_defers_like_any_call(void **state)
{
	unsigned long long calls = sim_counters.c[SIM_CNT_GUP_CALL];
	unsigned long long fp = sim_fault_calls[SIM_FP_GUP];
	unsigned long long hits = sim_choice_hits[SIM_CH_GUP_SHORT];
	unsigned long bar, anon, pfns[4];

	map_a_bar_and_anon_pages(&bar, &anon);
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(sim_counters.c[SIM_CNT_GUP_CALL] - calls, 2);
	assert_int_equal(sim_fault_calls[SIM_FP_GUP] - fp, 2);

	/* The refusal is call 1 of the hook's count: the anon pin is its 2nd. */
	kapi_mm_gup_hook(2, KAPI_GUP_ERRNO, -EIO, 0);
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(kapi_mm_pin(anon, 4, 1, 1, pfns), -EIO);
	/* A hook on the refused call itself wins over the VMA. */
	kapi_mm_gup_hook(1, KAPI_GUP_ERRNO, -EIO, 0);
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -EIO);
	kapi_mm_hooks_reset();

	/* So does the fault point, asked before the VMA. */
	fail_every_call_of("shim/mm/pin_user_pages_remote");
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -ENOMEM);
	stop_failing("shim/mm/pin_user_pages_remote");

	/* An armed choice point is hit on the refused call too. */
	sim_choice_force(SIM_CH_GUP_SHORT, 1);
	assert_int_equal(kapi_mm_pin(bar, 4, 1, 1, pfns), -EFAULT);
	sim_choice_force(SIM_CH_GUP_SHORT, 0);
	assert_int_equal(sim_choice_hits[SIM_CH_GUP_SHORT] - hits, 1);

	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/* A writable pin of a read-only VMA fails; a read-only pin works. */
static void test_write_pin_of_read_only_vma_is_efault(void **state)
{
	unsigned long va = map_anon_pages(4 * PAGE, 0), pfns[4];

	assert_int_equal(kapi_mm_pin(va, 4, 1, 1, pfns), -EFAULT);
	assert_int_equal(kapi_mm_pin(va, 4, 0, 1, pfns), 4);
	kapi_mm_unpin(pfns, 4, 0);
}

/*
 * Untouched anonymous memory pinned read-only is the zero page, which
 * carries no pin; a write fault then gives each page its own frame.
 */
static void test_read_pin_of_untouched_memory_is_the_zero_page(void **state)
{
	unsigned long va = map_anon_pages(4 * PAGE, 1), pfns[4];

	assert_int_equal(kapi_mm_pin(va, 4, 0, 1, pfns), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pfns[i], sim_zero_pfn);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	kapi_mm_unpin(pfns, 4, 0);
	assert_int_equal(sim_kernel_warnings(), 0);

	assert_int_equal(kapi_mm_pin(va, 4, 1, 1, pfns), 4);
	for (int i = 0; i < 4; i++)
		assert_int_not_equal(pfns[i], sim_zero_pfn);
	assert_int_equal(kapi_mm_pins_outstanding(), 4);
	kapi_mm_unpin(pfns, 4, 0);
}

/*
 *   [ va, va+2M )  THP, 2 MiB  |  [ va+2M, +3 pages )  THP, small pages
 * MAP_POPULATE faults once per leaf, as the kernel's populate steps over
 * what a huge leaf maps: one fault for the PMD folio, one per tail page
 * (with 64 KiB pages no PMD folio exists: a fault per page).
 */
static void test_populate_faults_once_per_leaf(void **state)
{
	struct kapi_mm_map m = { .len = PMD + 3 * PAGE, .kind = KAPI_MM_THP,
				 .writable = 1, .populate = 1, .align = PMD };
	unsigned long va, pmd_faults = SIM_PMD_ORDER > SIM_MAX_ORDER ?
				       PAGES_PER_PMD : 1;
	struct sim_counters before, after, d;
	int level;

	sim_counters_snapshot(&before);
	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &d);
	assert_int_equal(d.c[SIM_CNT_FAULT], pmd_faults + 3);
	for (unsigned long off = 0; off < m.len; off += PAGE)
		assert_int_equal(kapi_mm_cpu_pfn(va + off, NULL, &level), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, &level), 0);
	assert_int_equal(level, pmd_faults == 1 ? KAPI_MM_LEAF_PMD :
						  KAPI_MM_LEAF_PTE);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   [ va, va+2M )  THP (one folio)  |  [ va+2M, +4 pages )  small pages
 * Unpinning the whole range at once (runs of consecutive pages go a folio
 * at a time) marks every page dirty and releases every pin; unpinning a
 * page that holds no pin WARNs and changes nothing.
 */
static void test_unpin_of_a_range_across_folios_marks_every_page_dirty(void **state)
{
	struct kapi_mm_map m = { .len = PMD + 4 * PAGE, .kind = KAPI_MM_THP,
				 .writable = 1, .align = PMD };
	unsigned long n = PAGES_PER_PMD + 4, va;
	unsigned long *pfns = calloc(n, sizeof(*pfns));

	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	assert_int_equal(kapi_mm_pin(va, n, 1, 1, pfns), n);
	assert_pfns_are_what_the_cpu_sees(va, pfns, n);
	assert_int_equal(kapi_mm_pins_outstanding(), n);
	kapi_mm_unpin(pfns, n, 1);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	for (unsigned long i = 0; i < n; i++)
		assert_true(sim_page_test(sim_pfn_to_page(pfns[i]), SIM_PG_DIRTY));

	assert_int_equal(kapi_mm_pin(va, 1, 1, 1, pfns), 1);
	kapi_mm_unpin(pfns, 1, 0);
	kapi_mm_unpin(pfns, 1, 0);
	expect_warnings(1);	/* the second unpin: not pinned */
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_mm_munmap(va), 0);
	free(pfns);
}

/*
 *   [ va, va+4M )  THP, PMD aligned: two 2 MiB folios, PMD leaves
 * Pins land on the folios' pages, contiguous within each folio.  Where PMD
 * order exceeds the buddy's highest (64 KiB pages: 13 > 10) no PMD folio
 * exists: every page is a small page, and still pinned.
 */
static void test_thp_vma_is_backed_by_pmd_folios(void **state)
{
	struct kapi_mm_map m = { .len = 2 * PMD, .kind = KAPI_MM_THP,
				 .writable = 1 };
	unsigned long va, *pfns = calloc(2 * PAGES_PER_PMD, sizeof(*pfns));
	int level;

	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	assert_int_equal(va % PMD, 0);
	assert_int_equal(kapi_mm_pin(va, 2 * PAGES_PER_PMD, 1, 1, pfns),
			 2 * PAGES_PER_PMD);
	assert_int_equal(kapi_mm_cpu_pfn(va + PMD + 5 * PAGE, NULL, &level), 0);
	if (SIM_PMD_ORDER > SIM_MAX_ORDER) {
		assert_int_equal(level, KAPI_MM_LEAF_PTE);
		assert_pfns_are_what_the_cpu_sees(va, pfns, 2 * PAGES_PER_PMD);
		kapi_mm_unpin(pfns, 2 * PAGES_PER_PMD, 1);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		free(pfns);
		return;
	}
	assert_int_equal(level, KAPI_MM_LEAF_PMD);
	for (unsigned long i = 0; i < 2 * PAGES_PER_PMD; i++) {
		if (i % PAGES_PER_PMD == 0)
			assert_int_equal(pfns[i] % PAGES_PER_PMD, 0);
		else
			assert_int_equal(pfns[i], pfns[i - 1] + 1);
	}
	assert_pfns_are_what_the_cpu_sees(va, pfns, 2 * PAGES_PER_PMD);
	assert_int_equal(sim_buddy_nr_allocated(),
			 allocated_at_start + 2 * PAGES_PER_PMD);
	kapi_mm_unpin(pfns, 2 * PAGES_PER_PMD, 1);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	free(pfns);
}

/* A page unmapped while pinned stays allocated until the last unpin. */
static void test_unmapped_pinned_page_lives_until_unpinned(void **state)
{
	unsigned long va = map_anon_pages(2 * PAGE, 1), pfns[2];

	assert_int_equal(kapi_mm_pin(va, 2, 1, 1, pfns), 2);
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(sim_buddy_nr_allocated(), allocated_at_start + 2);
	kapi_mm_unpin(pfns, 2, 0);
	assert_int_equal(sim_buddy_nr_allocated(), allocated_at_start);
}

struct gup_hook_case {
	const char *name;
	int mode;
	long value;
	long want;		/* what the hooked call returns */
	unsigned long pins;	/* pins it leaves */
};

static const struct gup_hook_case gup_hook_cases[] = {
	{ "short to 3", KAPI_GUP_SHORT, 3, 3, 3 },
	{ "short to 0", KAPI_GUP_SHORT, 0, 0, 0 },
	{ "zero", KAPI_GUP_ZERO, 0, 0, 0 },
	{ "errno", KAPI_GUP_ERRNO, -EIO, -EIO, 0 },
};

/* Each hook makes exactly the chosen call misbehave, as asked. */
static void test_gup_hooks_shape_the_nth_call(void **state)
{
	unsigned long va = map_anon_pages(8 * PAGE, 1), pfns[8];

	for (size_t i = 0; i < ARRAY_SIZE(gup_hook_cases); i++) {
		const struct gup_hook_case *c = &gup_hook_cases[i];

		print_message("hook %s\n", c->name);
		kapi_mm_gup_hook(2, c->mode, c->value, 0);
		assert_int_equal(kapi_mm_pin(va, 8, 1, 1, pfns), 8);
		kapi_mm_unpin(pfns, 8, 0);
		assert_int_equal(kapi_mm_pin(va, 8, 1, 1, pfns), c->want);
		assert_int_equal(kapi_mm_pins_outstanding(), c->pins);
		if (c->want > 0)
			kapi_mm_unpin(pfns, c->want, 0);
		assert_int_equal(kapi_mm_pin(va, 8, 1, 1, pfns), 8);
		kapi_mm_unpin(pfns, 8, 0);
	}
}

/* A persistent hook applies from the nth call on. */
static void test_persistent_gup_hook_applies_to_every_later_call(void **state)
{
	unsigned long va = map_anon_pages(8 * PAGE, 1), pfns[8];

	kapi_mm_gup_hook(1, KAPI_GUP_SHORT, 1, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(kapi_mm_pin(va + i * PAGE, 4, 1, 1, pfns), 1);
		kapi_mm_unpin(pfns, 1, 0);
	}
	kapi_mm_hooks_reset();
	assert_int_equal(kapi_mm_pin(va, 4, 1, 1, pfns), 4);
	kapi_mm_unpin(pfns, 4, 0);
}

/* The GUP fault point fails the call with -ENOMEM and pins nothing. */
static void test_gup_fault_point_fails_with_enomem(void **state)
{
	unsigned long va = map_anon_pages(4 * PAGE, 1), pfns[4];

	fail_every_call_of("shim/mm/pin_user_pages_remote");
	assert_int_equal(kapi_mm_pin(va, 4, 1, 1, pfns), -ENOMEM);
	stop_failing("shim/mm/pin_user_pages_remote");
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
}

/* fixup_user_fault maps the page; the hook makes it report the lock dropped. */
static void test_fixup_user_fault_maps_page_and_can_report_unlocked(void **state)
{
	unsigned long va = map_anon_pages(4 * PAGE, 1), pfn;
	int unlocked = -1;

	assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, NULL), -ENOENT);
	assert_int_equal(kapi_mm_fixup_user_fault(va, 1, &unlocked), 0);
	assert_false(unlocked);
	assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, NULL), 0);

	kapi_mm_fixup_unlock_once();
	assert_int_equal(kapi_mm_fixup_user_fault(va + PAGE, 1, &unlocked), 0);
	assert_true(unlocked);
	assert_int_equal(kapi_mm_fixup_user_fault(va + 2 * PAGE, 1, &unlocked), 0);
	assert_false(unlocked);

	assert_int_equal(kapi_mm_fixup_user_fault(va + 4 * PAGE, 0, &unlocked),
			 -EFAULT);
	fail_every_call_of("shim/mm/fixup_user_fault");
	assert_int_equal(kapi_mm_fixup_user_fault(va + 3 * PAGE, 1, &unlocked),
			 -EFAULT);
	stop_failing("shim/mm/fixup_user_fault");
}

/* A write fault on a read-only VMA is refused. */
static void test_fixup_write_fault_on_read_only_vma_is_efault(void **state)
{
	unsigned long va = map_anon_pages(PAGE, 0);
	int unlocked;

	assert_int_equal(kapi_mm_fixup_user_fault(va, 1, &unlocked), -EFAULT);
	assert_int_equal(kapi_mm_fixup_user_fault(va, 0, &unlocked), 0);
}

/*
 * locked_vm is charged against RLIMIT_MEMLOCK; past the limit the charge
 * fails and changes nothing, unless the task has CAP_IPC_LOCK.
 */
static void test_locked_vm_respects_rlimit_and_cap_ipc_lock(void **state)
{
	kapi_mm_set_rlimit_memlock(16 * PAGE);
	assert_int_equal(kapi_mm_account_locked_vm(10, 1), 0);
	assert_int_equal(kapi_mm_locked_vm(), 10);
	assert_int_equal(kapi_mm_account_locked_vm(7, 1), -ENOMEM);
	assert_int_equal(kapi_mm_locked_vm(), 10);
	assert_int_equal(kapi_mm_account_locked_vm(6, 1), 0);
	assert_int_equal(kapi_mm_locked_vm(), 16);

	kapi_mm_set_cap_ipc_lock(1);
	assert_int_equal(kapi_mm_account_locked_vm(100, 1), 0);
	assert_int_equal(kapi_mm_locked_vm(), 116);
	kapi_mm_set_cap_ipc_lock(0);

	assert_int_equal(kapi_mm_account_locked_vm(116, 0), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(kapi_mm_account_locked_vm(0, 1), 0);
}

/*
 * The killable form is interrupted by its fault point or a fatal signal,
 * leaving locked_vm as it was; bypass_rlim skips the limit.
 */
static void test_killable_locked_vm_charge_can_be_interrupted(void **state)
{
	kapi_mm_set_rlimit_memlock(4 * PAGE);
	assert_int_equal(kapi_mm_account_locked_vm_killable(3, 0), 0);
	assert_int_equal(kapi_mm_account_locked_vm_killable(2, 0), -ENOMEM);
	assert_int_equal(kapi_mm_account_locked_vm_killable(2, 1), 0);
	assert_int_equal(kapi_mm_locked_vm(), 5);

	fail_every_call_of("shim/mm/account_locked_vm");
	assert_int_equal(kapi_mm_account_locked_vm_killable(-5, 0), -EINTR);
	stop_failing("shim/mm/account_locked_vm");
	assert_int_equal(kapi_mm_locked_vm(), 5);

	kapi_task_set_fatal_signal(1);
	assert_int_equal(kapi_mm_account_locked_vm_killable(-5, 0), -EINTR);
	kapi_task_set_fatal_signal(0);
	assert_int_equal(kapi_mm_account_locked_vm_killable(-5, 0), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
}

/* Exiting a process frees its pages, tables and kernel objects. */
static void test_process_exit_leaves_nothing_behind(void **state)
{
	unsigned long long objs = sim_kmalloc_outstanding();
	struct kapi_mm_map thp = { .len = 2 * PMD, .kind = KAPI_MM_THP,
				   .writable = 1 };
	unsigned long va = map_anon_pages(64 * PAGE, 1), thp_va;

	assert_int_equal(kapi_mm_touch(va, 64 * PAGE, 1), 0);
	assert_int_equal(kapi_mm_mmap(&thp, &thp_va), 0);
	assert_int_equal(kapi_mm_touch(thp_va, thp.len, 0), 0);
	assert_true(sim_buddy_nr_allocated() > allocated_at_start);

	kapi_proc_destroy(kapi_proc_current());
	assert_int_equal(sim_buddy_nr_allocated(), allocated_at_start);
	/* the task, its signal_struct and the mm were made before the snapshot */
	assert_int_equal(sim_kmalloc_outstanding(), objs - 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, check_and_destroy_the_machine)
		T(test_pins_fault_pages_in_and_are_balanced_by_unpin),
		T(test_pin_stops_short_at_end_of_vma),
		T(test_pin_continues_into_adjacent_vma),
		T(test_pin_refuses_pfnmap_vma),
		T(test_a_pfnmap_refusal_counts_and_defers_like_any_call),
		T(test_a_pfnmap_refusal_without_the_mmap_lock_is_reported),
		T(test_write_pin_of_read_only_vma_is_efault),
		T(test_read_pin_of_untouched_memory_is_the_zero_page),
		T(test_populate_faults_once_per_leaf),
		T(test_thp_vma_is_backed_by_pmd_folios),
		T(test_unpin_of_a_range_across_folios_marks_every_page_dirty),
		T(test_unmapped_pinned_page_lives_until_unpinned),
		T(test_gup_hooks_shape_the_nth_call),
		T(test_persistent_gup_hook_applies_to_every_later_call),
		T(test_gup_fault_point_fails_with_enomem),
		T(test_fixup_user_fault_maps_page_and_can_report_unlocked),
		T(test_fixup_write_fault_on_read_only_vma_is_efault),
		T(test_locked_vm_respects_rlimit_and_cap_ipc_lock),
		T(test_killable_locked_vm_charge_can_be_interrupted),
		T(test_process_exit_leaves_nothing_behind),
#undef T
	};

	/* The page walk under test, over the leaves each test builds. */
	kapi_mm_set_exact_pfnmap_leaves(1);
	return cmocka_run_group_tests_name("gup", tests, NULL, NULL);
}
