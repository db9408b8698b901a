// SPDX-License-Identifier: GPL-2.0-only
/*
 * expect_known_bug() (tests/known_bug.h): XFAIL, XPASS or a failure by
 * name.  Built into every kernel test, once per implementation, so the
 * predicates of <dmasim/impl.h> are those of the tree under test.  The lock
 * checker is told, at start, of the lock-order inversions the tree is
 * known to have: those are reported as expected, not as warnings, and the
 * suite that provokes them on purpose checks them by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/sim.h>

#include "known_bug.h"

static const struct {
	const char *name;
	bool has;
	const char *what;
} known_bugs[DMASIM_NR_BUGS] = {
#define DMASIM_BUG(id, bname, bhas, bwhat) \
	[DMASIM_BUG_##id] = { .name = bname, .has = (bhas), .what = bwhat },
#include <dmasim/known_bugs.def>
#undef DMASIM_BUG
};

bool tree_has_known_bug(enum dmasim_bug bug)
{
	return known_bugs[bug].has;
}

/* Check sites that already printed their XFAIL line. */
static struct { const char *file; int line; } xfail_sites[64];
static unsigned int nr_xfail_sites;

static bool first_xfail_at(const char *file, int line)
{
	for (unsigned int i = 0; i < nr_xfail_sites; i++)
		if (xfail_sites[i].line == line &&
		    !strcmp(xfail_sites[i].file, file))
			return false;
	if (nr_xfail_sites < sizeof(xfail_sites) / sizeof(xfail_sites[0])) {
		xfail_sites[nr_xfail_sites].file = file;
		xfail_sites[nr_xfail_sites++].line = line;
	}
	return true;
}

bool known_bug_check(enum dmasim_bug bug, bool has, bool correct,
		     const char *file, int line)
{
	const char *name = known_bugs[bug].name;

	if (has && !correct) {
		if (first_xfail_at(file, line)) {
			printf("XFAIL %s (%s:%d): %s (impl %s)\n", name, file,
			       line, known_bugs[bug].what, DMASIM_IMPL);
			fflush(stdout);
		}
	} else if (has) {
		printf("XPASS %s (%s:%d)\n", name, file, line);
		fflush(stdout);
		fail_msg("unexpected pass: impl %s behaves correctly at %s:%d, "
			 "without known bug %s: update <dmasim/impl.h>",
			 DMASIM_IMPL, file, line, name);
	} else if (!correct) {
		fail_msg("known bug %s (%s) in impl %s, which should not have it "
			 "(%s:%d)", name, known_bugs[bug].what, DMASIM_IMPL,
			 file, line);
	}
	return correct;
}

__attribute__((constructor)) static void expect_known_inversions(void)
{
	if (tree_has_known_bug(DMASIM_BUG_TYPE1_DEVICE_LIST_LOCK_ORDER))
		sim_lockdep_expect_inversion(
			known_bugs[DMASIM_BUG_TYPE1_DEVICE_LIST_LOCK_ORDER].name,
			"&iommu->lock", "&iommu->device_list_lock");
}
