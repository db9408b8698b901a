/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-implementation answers for kapi/ (kapi/kapi_impl.c). */
#ifndef _DMASIM_KAPI_IMPL_H
#define _DMASIM_KAPI_IMPL_H

/* The largest pfnmap leaf (KAPI_MM_LEAF_*) the tree's fault handlers install. */
extern const unsigned int kapi_impl_pfnmap_max_leaf;

#endif
