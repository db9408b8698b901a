// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the simulated machine does differently for the kernel linked in:
 * compiled once per implementation with that implementation's
 * <dmasim/impl.h> predicates (core/meson.build for the project's core,
 * upstream/meson.build with the tree's probed ones), and linked into it,
 * so the rest of kapi/ (compiled once) reads the answer here.
 */
#include <dmasim/impl.h>
#include <dmasim/kapi_mm.h>
#include "kapi_impl.h"

/*
 * The largest leaf a pfnmap fault installs (vfio-pci's BAR fault handler):
 * PUD where the tree has huge pfnmap faults, PTE for 6.1
 * (DMASIM_IMPL_PFNMAP_HUGE_LEAVES).
 */
const unsigned int kapi_impl_pfnmap_max_leaf =
	DMASIM_IMPL_PFNMAP_HUGE_LEAVES ? KAPI_MM_LEAF_PUD : KAPI_MM_LEAF_PTE;
