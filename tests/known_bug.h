/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known kernel bugs as expected failures, never skipped
 * (<dmasim/known_bugs.def>, docs/kernel-bugs.md).  A suite runs its check
 * on every tree and hands the verdict to expect_known_bug():
 *
 *	ret = kapi_vfio_map_dma(...);
 *	if (expect_known_bug(TYPE1_GUP_ZERO, ret == -EFAULT)) {
 *		... the correct behaviour, checked in full
 *	} else {
 *		... the bug's documented symptom, checked, and cleaned up
 *	}
 *
 * For a tree that has the bug (its predicate in <dmasim/impl.h>): the
 * correct behaviour fails the test as an unexpected pass ("XPASS name":
 * the tree was fixed, say so in impl.h); the bug prints "XFAIL name" once
 * per check site and the test goes on.  For a tree that should not have
 * it, the bug fails the test by name.  tools/count-tests.sh counts the
 * XFAIL and XPASS lines.  Returns whether the behaviour was correct.
 */
#ifndef DMASIM_TESTS_KNOWN_BUG_H
#define DMASIM_TESTS_KNOWN_BUG_H

#include <stdbool.h>

#include <dmasim/impl.h>

enum dmasim_bug {
#define DMASIM_BUG(id, name, has, what) DMASIM_BUG_##id,
#include <dmasim/known_bugs.def>
#undef DMASIM_BUG
	DMASIM_NR_BUGS
};

bool known_bug_check(enum dmasim_bug bug, bool has, bool correct,
		     const char *file, int line);
/* Whether the tree under test is expected to have the bug. */
bool tree_has_known_bug(enum dmasim_bug bug);

#define expect_known_bug(id, correct)					\
	known_bug_check(DMASIM_BUG_##id, tree_has_known_bug(DMASIM_BUG_##id), \
			(correct), __FILE__, __LINE__)

#endif
