/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/mm_types.h>, in two parts with one owner each:
 * struct page and folios (shim/page_types.h), and address spaces - struct
 * vm_area_struct, struct mm_struct (shim/vma_types.h).
 */
#ifndef _DMASIM_LINUX_MM_TYPES_H
#define _DMASIM_LINUX_MM_TYPES_H

/* The kernel's mm_types.h brings bitmaps in through <linux/cpumask.h>. */
#include <linux/bitmap.h>
#include <shim/page_types.h>
#include <shim/vma_types.h>

#endif
