/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/mm.h>, in two parts with one owner each: pages, the
 * memmap and page allocation (shim/mm_page.h), and VMAs, GUP, faults and
 * the page-table walk API (shim/mm_vma.h).  num_pages_contiguous() is
 * declared by <linux/mm.h> in linux-next (type1 there includes only
 * <linux/mm.h> for it), so this header pulls in <linux/mm_inline.h>, where
 * the shim defines it; 6.12 has no such helper and never calls it.
 */
#ifndef _DMASIM_LINUX_MM_H
#define _DMASIM_LINUX_MM_H

#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <shim/mm_page.h>
#include <shim/mm_vma.h>
#include <linux/mm_inline.h>

#endif
