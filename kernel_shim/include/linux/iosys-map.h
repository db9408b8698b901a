/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pointer to system or I/O memory, as the kernel's <linux/iosys-map.h>.
 * (a) Definitions that must match the kernel: struct iosys_map (a vaddr /
 *     vaddr_iomem union and is_iomem) and the helpers dma-buf code uses.
 * Simplified: I/O memory is ordinary memory here, so the memcpy helpers
 *     treat both kinds alike.  Nothing is a stub.
 */
#ifndef _DMASIM_LINUX_IOSYS_MAP_H
#define _DMASIM_LINUX_IOSYS_MAP_H

#include <linux/string.h>
#include <linux/types.h>

struct iosys_map {
	union {
		void __iomem *vaddr_iomem;	/* is_iomem */
		void *vaddr;			/* !is_iomem */
	};
	bool is_iomem;
};

#define IOSYS_MAP_INIT_VADDR(vaddr_)	{ .vaddr = (vaddr_), .is_iomem = false }
#define IOSYS_MAP_INIT_VADDR_IOMEM(vaddr_iomem_) \
	{ .vaddr_iomem = (vaddr_iomem_), .is_iomem = true }

static inline void iosys_map_set_vaddr(struct iosys_map *map, void *vaddr)
{
	*map = (struct iosys_map)IOSYS_MAP_INIT_VADDR(vaddr);
}

static inline void iosys_map_set_vaddr_iomem(struct iosys_map *map,
					     void __iomem *vaddr_iomem)
{
	*map = (struct iosys_map)IOSYS_MAP_INIT_VADDR_IOMEM(vaddr_iomem);
}

static inline bool iosys_map_is_null(const struct iosys_map *map)
{
	return map->is_iomem ? !map->vaddr_iomem : !map->vaddr;
}

static inline bool iosys_map_is_set(const struct iosys_map *map)
{
	return !iosys_map_is_null(map);
}

static inline bool iosys_map_is_equal(const struct iosys_map *lhs,
				      const struct iosys_map *rhs)
{
	if (lhs->is_iomem != rhs->is_iomem)
		return false;
	return lhs->is_iomem ? lhs->vaddr_iomem == rhs->vaddr_iomem :
			       lhs->vaddr == rhs->vaddr;
}

static inline void iosys_map_clear(struct iosys_map *map)
{
	map->vaddr = NULL;
	map->is_iomem = false;
}

static inline void iosys_map_memcpy_to(struct iosys_map *dst, size_t dst_offset,
				       const void *src, size_t len)
{
	memcpy((char *)dst->vaddr + dst_offset, src, len);
}

static inline void iosys_map_memcpy_from(void *dst, const struct iosys_map *src,
					 size_t src_offset, size_t len)
{
	memcpy(dst, (const char *)src->vaddr + src_offset, len);
}

static inline void iosys_map_incr(struct iosys_map *map, size_t incr)
{
	map->vaddr = (char *)map->vaddr + incr;
}

#endif
