/* SPDX-License-Identifier: GPL-2.0-only */
/* Part of <linux/mm.h> / <linux/mm_types.h>; placeholder until written. */
#ifndef _DMASIM_SHIM_MM_PAGE_H
#define _DMASIM_SHIM_MM_PAGE_H

#include <linux/types.h>

#endif
