// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plain part of the shared test fixtures (see shared.h): fault
 * injection by call number, the simulator's machine, and the leak check's
 * comparison.  The simulator and libfiu only: no kernel code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <fiu.h>
#include <fiu-control.h>

#include <dmasim/sim.h>

#include "shared.h"

unsigned long mask_of_level(int level)
{
	switch (level) {
	case SIM_PT_PUD:
		return ~(PUD - 1);
	case SIM_PT_PMD:
		return ~(PMD - 1);
	default:
		return ~(PAGE - 1);
	}
}

/* ---- fault injection by call number ---- */

enum plan_kind { PLAN_ONLY_NTH, PLAN_FROM_NTH, PLAN_MASK };

/* The plan the one libfiu callback below follows. */
static struct {
	enum plan_kind kind;
	unsigned long long nth;		/* PLAN_ONLY_NTH, PLAN_FROM_NTH */
	unsigned long long mask;	/* PLAN_MASK */
	unsigned long long calls;	/* numbered so far */
	void (*action)(void);		/* run at the planned calls, none fails */
} plan;

/* sim_fault_calls[] of each point when failing it started. */
static unsigned long long calls_at_start[SIM_NR_FAULT_POINTS];

/* libfiu external callback: is this call of the point one the plan hits? */
static int call_in_plan(const char *name, int *failnum, void **failinfo,
			unsigned int *flags)
{
	unsigned long long n = plan.calls++;
	int hit;

	switch (plan.kind) {
	case PLAN_ONLY_NTH:
		hit = n == plan.nth;
		break;
	case PLAN_FROM_NTH:
		hit = n >= plan.nth;
		break;
	default:
		hit = n < 64 && (plan.mask >> n & 1);
		break;
	}
	if (hit && plan.action) {
		plan.action();
		return 0;
	}
	return hit;
}

static void start_counting(const char *point)
{
	int fp = sim_fault_lookup(point);

	assert_true(fp >= 0);
	calls_at_start[fp] = sim_fault_calls[fp];
	sim_faults_arm(1);
}

static void start_plan(const char *point, enum plan_kind kind,
		       unsigned long long nth, unsigned long long mask,
		       void (*action)(void))
{
	plan.kind = kind;
	plan.nth = nth;
	plan.mask = mask;
	plan.calls = 0;
	plan.action = action;
	start_counting(point);
	assert_int_equal(fiu_enable_external(point, 1, NULL, 0, call_in_plan), 0);
}

void fail_nth_call_of(const char *point, unsigned long long nth)
{
	start_plan(point, PLAN_ONLY_NTH, nth, 0, NULL);
}

void fail_calls_from_nth_of(const char *point, unsigned long long nth)
{
	start_plan(point, PLAN_FROM_NTH, nth, 0, NULL);
}

void fail_calls_in_mask_of(const char *point, unsigned long long mask)
{
	start_plan(point, PLAN_MASK, 0, mask, NULL);
}

void run_at_nth_call_of(const char *point, unsigned long long nth,
			void (*action)(void))
{
	start_plan(point, PLAN_ONLY_NTH, nth, 0, action);
}

void run_from_nth_call_of(const char *point, unsigned long long nth,
			  void (*action)(void))
{
	start_plan(point, PLAN_FROM_NTH, nth, 0, action);
}

void fail_every_call_of(const char *point)
{
	start_counting(point);
	assert_int_equal(fiu_enable(point, 1, NULL, 0), 0);
}

unsigned long long stop_failing(const char *point)
{
	int fp = sim_fault_lookup(point);

	fiu_disable(point);
	sim_faults_arm(0);
	return fp >= 0 ? sim_fault_calls[fp] - calls_at_start[fp] : 0;
}

/* ---- the simulator's machine ---- */

void given_a_fresh_machine(const struct sim_config *cfg)
{
	assert_int_equal(sim_machine_init(cfg), 0);
}

int destroy_the_machine(void **state)
{
	sim_machine_destroy();
	return 0;
}

/* ---- the leak check's comparison ---- */

int leak_snapshot_diff(const struct leak_snapshot *b,
		       const struct leak_snapshot *a, unsigned int what,
		       unsigned long expected_kmalloc, int warning_ok,
		       void (*say)(void *ctx, const char *msg), void *ctx)
{
	/* The zero page is taken once per machine, with its first mm. */
	long zero = a->zero_page_taken && !b->zero_page_taken;
	long long kmalloc = (long long)(a->kmalloc - b->kmalloc);
	char msg[160];
	int bad = 0;

#define LEAK_CHECK(kind, field, expect, what_left)			\
	do {								\
		long long d = (long long)(a->field - b->field) - (expect); \
		if ((what & (kind)) && d) {				\
			snprintf(msg, sizeof(msg), "%+lld %s left", d,	\
				 what_left);				\
			say(ctx, msg);					\
			bad = 1;					\
		}							\
	} while (0)
	if (!(what & LEAK_KMALLOC)) {
		/* not compared */
	} else if (!expected_kmalloc) {
		LEAK_CHECK(LEAK_KMALLOC, kmalloc, 0, "kmalloc'd objects");
	} else if (kmalloc < (long long)expected_kmalloc) {
		/* The tree no longer has the bug impl.h says it has. */
		snprintf(msg, sizeof(msg),
			 "the known upstream leak did not happen (%lld kmalloc'd objects fewer)",
			 (long long)expected_kmalloc - kmalloc);
		say(ctx, msg);
		bad = 1;
	} else {
		LEAK_CHECK(LEAK_KMALLOC, kmalloc, (long long)expected_kmalloc,
			   "kmalloc'd objects besides the known upstream leak");
	}
	LEAK_CHECK(LEAK_BUDDY, buddy_allocated, zero, "buddy pages allocated");
	LEAK_CHECK(LEAK_BUDDY, buddy_free, -zero, "buddy pages free (vs start)");
	LEAK_CHECK(LEAK_PINS, pins, 0, "page pins");
	LEAK_CHECK(LEAK_DOMAINS, domains, 0, "IOMMU domains");
	LEAK_CHECK(LEAK_DEVICES, devices, 0, "IOMMU devices");
	LEAK_CHECK(LEAK_DEVICES, cdevs, 0, "char devices");
	LEAK_CHECK(LEAK_DEVICES, device_nodes, 0, "device nodes");
	LEAK_CHECK(LEAK_LEAVES, leaves_dropped, 0,
		   "IOMMU leaves (freed with their domain)");
	LEAK_CHECK(LEAK_VMAPS, vmaps, 0, "vmaps");
	LEAK_CHECK(LEAK_FDS, fds, 0, "open file descriptors");
	LEAK_CHECK(LEAK_FDS, files, 0, "files");
	LEAK_CHECK(LEAK_CONTAINERS, containers, 0, "open VFIO containers");
	LEAK_CHECK(LEAK_LOCKED_VM, locked_vm, 0, "locked_vm pages");
	if (a->warnings != b->warnings && !warning_ok)
		LEAK_CHECK(LEAK_WARNINGS, warnings, 0, "kernel WARNs");
#undef LEAK_CHECK
	return bad;
}
