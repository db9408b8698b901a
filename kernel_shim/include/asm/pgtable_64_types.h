/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 4-level paging geometry (<asm/pgtable_64_types.h>).
 *
 * (a) Definitions that must match the kernel for 4 KiB pages: PMD_SHIFT 21,
 *     PUD_SHIFT 30, PGDIR_SHIFT 39, 512 entries per table, P4D folded into
 *     the PGD.  With page_shift 14/16 the same four-level shape is kept with
 *     PAGE_SIZE/8 entries per table (an arm64-like geometry: 32 MiB / 512
 *     MiB PMD leaves), which is enough for page-size sweeps.
 */
#ifndef _DMASIM_ASM_PGTABLE_64_TYPES_H
#define _DMASIM_ASM_PGTABLE_64_TYPES_H

#include <dmasim/sim.h>

#define PTRS_PER_PTE	((int)SIM_PT_ENTRIES)
#define PTRS_PER_PMD	((int)SIM_PT_ENTRIES)
#define PTRS_PER_PUD	((int)SIM_PT_ENTRIES)
#define PTRS_PER_P4D	1
#define PTRS_PER_PGD	((int)SIM_PT_ENTRIES)

#define PMD_SHIFT	SIM_PMD_SHIFT
#define PUD_SHIFT	SIM_PUD_SHIFT
#define P4D_SHIFT	SIM_PGDIR_SHIFT
#define PGDIR_SHIFT	SIM_PGDIR_SHIFT

#define PMD_SIZE	(1UL << PMD_SHIFT)
#define PMD_MASK	(~(PMD_SIZE - 1))
#define PUD_SIZE	(1UL << PUD_SHIFT)
#define PUD_MASK	(~(PUD_SIZE - 1))
#define P4D_SIZE	(1UL << P4D_SHIFT)
#define P4D_MASK	(~(P4D_SIZE - 1))
#define PGDIR_SIZE	(1UL << PGDIR_SHIFT)
#define PGDIR_MASK	(~(PGDIR_SIZE - 1))

#define TASK_SIZE	SIM_TASK_SIZE
#define TASK_SIZE_MAX	SIM_TASK_SIZE

#endif
