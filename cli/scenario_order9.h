/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One high-order attempt (order 9 by default: 2 MiB with 4 KiB pages) per
 * allocation policy, on one aged machine: how often the system heap's
 * order-9 attempt would succeed with its flags of today and with
 * alternatives that let the page allocator reclaim, compact, or both.
 * Each policy is a set of the kernel's GFP flags; the attempt goes through
 * the shim's alloc_pages() (kapi_alloc_pages), so the flags act as in the
 * kernel's slow path (sim/buddy.c, sim/compact.c).
 */
#ifndef DMASIM_CLI_SCENARIO_ORDER9_H
#define DMASIM_CLI_SCENARIO_ORDER9_H

#include "cli.h"

enum order9_policy {
	O9_NONE,		/* the heap's HIGH_ORDER_GFP: no direct reclaim */
	O9_RECLAIM,		/* + __GFP_DIRECT_RECLAIM, no __GFP_IO: no compaction */
	O9_COMPACT,		/* + __GFP_DIRECT_RECLAIM | __GFP_THISNODE: compaction only */
	O9_BOTH,		/* + __GFP_DIRECT_RECLAIM: compact, reclaim, compact */
	O9_RETRY_MAYFAIL,	/* __GFP_RETRY_MAYFAIL instead of NORETRY: sync compaction */
	O9_COMPACT_MOVABLE,	/* O9_COMPACT for a movable request (as THP's) */
	O9_NR_POLICIES
};

struct order9_policy_info {
	const char *name;	/* "none", "reclaim", ... (CSV, JSON) */
	const char *flags;	/* the GFP flags, as a kernel developer writes them */
};
extern const struct order9_policy_info order9_policies[O9_NR_POLICIES];

struct order9_result {
	int ok;				/* the block was allocated */
	unsigned long long migrated;	/* pages migrated by compaction */
	unsigned long long reclaimed;	/* pages reclaimed */
	unsigned long long scanned;	/* struct pages read by compaction's scanners */
	double sim_us;			/* modelled time of the attempt */
};

/* The kernel gfp_t of a policy (__GFP_ZERO left out: the attempt is priced alone). */
unsigned int order9_gfp(enum order9_policy p);
/* One attempt of this order with policy p on the machine as it is now; freed after. */
void order9_attempt_here(enum order9_policy p, unsigned int order,
			 struct order9_result *res);

#endif
