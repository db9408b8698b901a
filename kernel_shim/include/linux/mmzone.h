/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/mmzone.h>, the part code outside mm/ uses.
 *
 * (a) Definitions that must match the kernel: MAX_PAGE_ORDER (10),
 *     NR_PAGE_ORDERS, pageblock_order (PMD order, capped at MAX_PAGE_ORDER,
 *     as with CONFIG_TRANSPARENT_HUGEPAGE), enum zone_type, enum
 *     migratetype (the first three values equal SIM_MIGRATE_*, which is
 *     checked below).
 * (b) The zones themselves live in the simulator (sim/buddy.c): DMA32 and
 *     Normal only; struct zone is not exposed.
 */
#ifndef _DMASIM_LINUX_MMZONE_H
#define _DMASIM_LINUX_MMZONE_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/page.h>

#include <dmasim/sim.h>

#define MAX_PAGE_ORDER		SIM_MAX_ORDER
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)
#define MAX_ORDER_NR_PAGES	(1 << MAX_PAGE_ORDER)
#define PAGE_ALLOC_COSTLY_ORDER	3
#define pageblock_order		SIM_PAGEBLOCK_ORDER
#define pageblock_nr_pages	(1UL << pageblock_order)

enum zone_type {
	ZONE_DMA,
	ZONE_DMA32,
	ZONE_NORMAL,
	ZONE_MOVABLE,
	__MAX_NR_ZONES
};
#define MAX_NR_ZONES	__MAX_NR_ZONES

enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_PCPTYPES,
	MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES,
	MIGRATE_ISOLATE,
	MIGRATE_TYPES
};

static_assert((int)MIGRATE_UNMOVABLE == (int)SIM_MIGRATE_UNMOVABLE);
static_assert((int)MIGRATE_MOVABLE == (int)SIM_MIGRATE_MOVABLE);
static_assert((int)MIGRATE_RECLAIMABLE == (int)SIM_MIGRATE_RECLAIMABLE);

#endif
