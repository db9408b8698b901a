/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct page and struct folio: the part of <linux/mm_types.h> that
 * describes page frames.
 *
 * (a) Definitions that must match the kernel, as code under test uses them:
 *     page->flags, page->lru, page->private, page->_refcount (atomic_t),
 *     struct folio with ->page, ->flags, ->lru, ->private.
 * Simplified: struct page is the simulator's struct sim_page under kernel
 * names, byte for byte (64 bytes, each offset asserted below), so the
 * memmap is one array both sides index by pfn.  There is no ->mapping or
 * ->index; the compound head pointer has a field of its own (the kernel
 * overlays it on lru.next); the fields the kernel does not have are named
 * _dmasim_* and belong to the shim (the zone, the migratetype, pin and map
 * counts kept by the GUP shim, zero based).  A folio is a view of its head
 * page: folio_order() is the head's compound order, and tail-page folio
 * fields (_folio_nr_pages, ...) do not exist.
 */
#ifndef _DMASIM_SHIM_PAGE_TYPES_H
#define _DMASIM_SHIM_PAGE_TYPES_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include <dmasim/sim.h>

struct page {
	unsigned long flags;
	struct list_head lru;
	unsigned long private;
	unsigned long compound_head;		/* tail: head | 1 */
	unsigned char _dmasim_compound_order;	/* head of a compound page */
	unsigned char _dmasim_zone;
	unsigned char _dmasim_migratetype;
	unsigned char _dmasim_pcp_order;
	atomic_t _refcount;
	atomic_t _dmasim_pincount;
	atomic_t _dmasim_mapcount;
	unsigned long _dmasim_owner;
};

struct folio {
	union {
		struct {
			unsigned long flags;
			struct list_head lru;
			unsigned long private;
		};
		struct page page;
	};
};

#define DMASIM_PAGE_FIELD(kfield, sfield)				\
	static_assert(offsetof(struct page, kfield) ==			\
		      offsetof(struct sim_page, sfield) &&		\
		      sizeof(((struct page *)0)->kfield) ==		\
		      sizeof(((struct sim_page *)0)->sfield))
DMASIM_PAGE_FIELD(flags, flags);
DMASIM_PAGE_FIELD(lru, lru);
DMASIM_PAGE_FIELD(private, private);
DMASIM_PAGE_FIELD(compound_head, compound_head);
DMASIM_PAGE_FIELD(_dmasim_compound_order, compound_order);
DMASIM_PAGE_FIELD(_dmasim_zone, zone);
DMASIM_PAGE_FIELD(_dmasim_migratetype, migratetype);
DMASIM_PAGE_FIELD(_dmasim_pcp_order, pcp_order);
DMASIM_PAGE_FIELD(_refcount, refcount);
DMASIM_PAGE_FIELD(_dmasim_pincount, pincount);
DMASIM_PAGE_FIELD(_dmasim_mapcount, mapcount);
DMASIM_PAGE_FIELD(_dmasim_owner, owner);
#undef DMASIM_PAGE_FIELD
static_assert(sizeof(struct page) == 64);
static_assert(sizeof(struct page) == sizeof(struct sim_page));
static_assert(sizeof(struct folio) == sizeof(struct page));
static_assert(offsetof(struct folio, lru) == offsetof(struct page, lru));
static_assert(offsetof(struct folio, private) == offsetof(struct page, private));

#endif
