/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/mm.h>, in two parts with one owner each: pages, the
 * memmap and page allocation (shim/mm_page.h), and VMAs, GUP, faults and
 * the page-table walk API (shim/mm_vma.h).
 */
#ifndef _DMASIM_LINUX_MM_H
#define _DMASIM_LINUX_MM_H

#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <shim/mm_page.h>
#include <shim/mm_vma.h>

#endif
