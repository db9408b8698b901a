// SPDX-License-Identifier: GPL-2.0-only
/* High-order attempts under each allocation policy (see scenario_order9.h). */
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm_page.h>

#include "scenario_order9.h"

const struct order9_policy_info order9_policies[O9_NR_POLICIES] = {
	[O9_NONE] = { "none", "HIGH_ORDER_GFP (NORETRY, no __GFP_RECLAIM): today's heap" },
	[O9_RECLAIM] = { "reclaim", "+ __GFP_DIRECT_RECLAIM - __GFP_IO: reclaim, no compaction" },
	[O9_COMPACT] = { "compaction", "+ __GFP_DIRECT_RECLAIM | __GFP_THISNODE: async compaction" },
	[O9_BOTH] = { "both", "+ __GFP_DIRECT_RECLAIM: compaction, reclaim, compaction" },
	[O9_RETRY_MAYFAIL] = { "retry_mayfail",
			       "+ __GFP_DIRECT_RECLAIM | __GFP_RETRY_MAYFAIL - NORETRY: sync" },
	[O9_COMPACT_MOVABLE] = { "movable_comp",
				 "compaction with __GFP_MOVABLE: not the heap's, for scale" },
};

unsigned int order9_gfp(enum order9_policy p)
{
	unsigned int base = (kapi_gfp("GFP_HIGHUSER") | kapi_gfp("__GFP_NOWARN") |
			     kapi_gfp("__GFP_NORETRY") | kapi_gfp("__GFP_COMP")) &
			    ~kapi_gfp("__GFP_RECLAIM");
	unsigned int direct = kapi_gfp("__GFP_DIRECT_RECLAIM");

	switch (p) {
	case O9_RECLAIM:
		return (base | direct) & ~kapi_gfp("__GFP_IO");
	case O9_COMPACT:
		return base | direct | kapi_gfp("__GFP_THISNODE");
	case O9_BOTH:
		return base | direct;
	case O9_COMPACT_MOVABLE:
		return base | direct | kapi_gfp("__GFP_THISNODE") | kapi_gfp("__GFP_MOVABLE");
	case O9_RETRY_MAYFAIL:
		return ((base | direct) & ~kapi_gfp("__GFP_NORETRY")) |
		       kapi_gfp("__GFP_RETRY_MAYFAIL");
	default:
		return base;
	}
}

void order9_attempt_here(enum order9_policy p, unsigned int order,
			 struct order9_result *res)
{
	struct sim_counters before, after, delta;
	struct sim_page *page;

	memset(res, 0, sizeof(*res));
	sim_counters_snapshot(&before);
	page = kapi_alloc_pages(order9_gfp(p), order);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &delta);
	res->ok = page != NULL;
	res->migrated = delta.c[SIM_CNT_COMPACT_MIGRATE];
	res->reclaimed = delta.c[SIM_CNT_RECLAIM_PAGE];
	res->scanned = delta.c[SIM_CNT_COMPACT_SCAN];
	res->sim_us = sim_cost_ns(&delta) / 1e3;
	if (page)
		kapi___free_pages(page, order);
}
