/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into a VFIO container backed by the IOMMU
 * backend under test (type1), as a VMM drives it (kapi/kapi_vfio.c).
 *
 * A container is opened on the registered backend (kapi_boot() first), in
 * the calling thread's current process (kapi_mm.h): MAP_DMA pins that
 * process's memory.  Devices join it in one of two ways:
 *  - behind an IOMMU: a new simulated device of a format (its own group)
 *    whose group type1 attaches, allocating an IOMMU domain of that format;
 *  - emulated (a mediated device): a group of type VFIO_EMULATED_IOMMU and
 *    a vfio_device that pins through the backend's pin_pages and, when
 *    told that a range goes away (dma_unmap), unpins what it pinned there.
 *
 * Every call returns what the kernel code returned: 0 or a negative errno
 * (long for the ioctl entry points, as the backend's ioctl returns).  The
 * ioctl command numbers and flag values below are the kernel uapi's.
 *
 * Two layers of ioctl entry: the convenient ones (kapi_vfio_map_dma, ...)
 * build a well-formed uapi struct; the raw ones take argsz and every field
 * as given, for bad-input tables.
 */
#ifndef DMASIM_KAPI_VFIO_H
#define DMASIM_KAPI_VFIO_H

#include <dmasim/sim.h>

struct kapi_vfio;		/* a container */
struct kapi_vfio_dev;		/* a device in it */

/* Container types and extensions (VFIO_CHECK_EXTENSION arguments). */
enum {
	KAPI_VFIO_TYPE1_IOMMU = 1,
	KAPI_VFIO_TYPE1v2_IOMMU = 3,
	KAPI_VFIO_DMA_CC_IOMMU = 4,
	KAPI_VFIO_TYPE1_NESTING_IOMMU = 6,
	KAPI_VFIO_UNMAP_ALL = 9,
	KAPI_VFIO_UPDATE_VADDR = 10,
};

/* ioctl numbers: _IO(';', 100 + n). */
#define KAPI_VFIO_IO(n)			((';' << 8) | (100 + (n)))
#define KAPI_VFIO_CHECK_EXTENSION	KAPI_VFIO_IO(1)
#define KAPI_VFIO_IOMMU_GET_INFO	KAPI_VFIO_IO(12)
#define KAPI_VFIO_IOMMU_MAP_DMA		KAPI_VFIO_IO(13)
#define KAPI_VFIO_IOMMU_UNMAP_DMA	KAPI_VFIO_IO(14)
#define KAPI_VFIO_IOMMU_DIRTY_PAGES	KAPI_VFIO_IO(17)

/* Flags. */
#define KAPI_VFIO_DMA_MAP_FLAG_READ		(1u << 0)
#define KAPI_VFIO_DMA_MAP_FLAG_WRITE		(1u << 1)
#define KAPI_VFIO_DMA_MAP_FLAG_VADDR		(1u << 2)
#define KAPI_VFIO_DMA_MAP_RW	(KAPI_VFIO_DMA_MAP_FLAG_READ | KAPI_VFIO_DMA_MAP_FLAG_WRITE)
#define KAPI_VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP (1u << 0)
#define KAPI_VFIO_DMA_UNMAP_FLAG_ALL		(1u << 1)
#define KAPI_VFIO_DMA_UNMAP_FLAG_VADDR		(1u << 2)
#define KAPI_VFIO_DIRTY_PAGES_FLAG_START	(1u << 0)
#define KAPI_VFIO_DIRTY_PAGES_FLAG_STOP		(1u << 1)
#define KAPI_VFIO_DIRTY_PAGES_FLAG_GET_BITMAP	(1u << 2)
#define KAPI_VFIO_IOMMU_INFO_PGSIZES		(1u << 0)
#define KAPI_VFIO_IOMMU_INFO_CAPS		(1u << 1)

/* The uapi structs' sizes (what a current VMM puts in argsz). */
#define KAPI_VFIO_DMA_MAP_ARGSZ		32u	/* struct vfio_iommu_type1_dma_map */
#define KAPI_VFIO_DMA_UNMAP_ARGSZ	24u	/* struct vfio_iommu_type1_dma_unmap */
#define KAPI_VFIO_BITMAP_SIZE		24u	/* struct vfio_bitmap */
#define KAPI_VFIO_INFO_ARGSZ		24u	/* struct vfio_iommu_type1_info */
#define KAPI_VFIO_DIRTY_ARGSZ		8u	/* struct vfio_iommu_type1_dirty_bitmap */
#define KAPI_VFIO_DIRTY_GET_SIZE	40u	/* struct vfio_iommu_type1_dirty_bitmap_get */

/* ---- containers and devices ---- */

/*
 * Open a container of the given type on the registered backend: 0 and *c,
 * the backend's open() errno (-EINVAL for a type it refuses, -ENOMEM), or
 * -ENODEV if no backend is registered.
 */
int kapi_vfio_open(unsigned long type, struct kapi_vfio **c);
/*
 * Close: detach and destroy every device still in the container, then
 * release it (the backend unmaps and unpins everything).
 */
void kapi_vfio_close(struct kapi_vfio *c);
/* Containers alive (0 at the end of every test). */
unsigned long kapi_vfio_nr_open(void);

/*
 * A new device behind a simulated IOMMU of format fmt, in its own group,
 * attached to the container: 0 and *dev, or the errno of the device's
 * creation or of the backend's attach_group (the device is destroyed).
 */
int kapi_vfio_attach_iommu_dev(struct kapi_vfio *c, enum sim_iommu_format_id fmt,
			       struct kapi_vfio_dev **dev);
/* A new emulated (mediated) device, attached and registered. */
int kapi_vfio_attach_emulated_dev(struct kapi_vfio *c,
				  struct kapi_vfio_dev **dev);
/*
 * detach_group (and unregister_device) and destroy the device, unless it
 * was probed apart (below): that one stays probed, in no container.
 */
void kapi_vfio_detach_dev(struct kapi_vfio *c, struct kapi_vfio_dev *dev);

/*
 * A device probed as the kernel probes its devices at boot, once, and then
 * attached to containers one after another: kapi_vfio_dev_probe() makes
 * it behind a simulated IOMMU of format fmt, in its own group with its
 * default domain, in no container; kapi_vfio_attach_probed_dev() attaches
 * it to c (-EBUSY if it is in a container already, else the backend's
 * attach_group errno), and a detach or a close leaves it probed.
 * kapi_vfio_dev_remove() destroys it, in no container (a harness that
 * fuzzes many containers probes once instead of once per container).
 */
int kapi_vfio_dev_probe(enum sim_iommu_format_id fmt,
			struct kapi_vfio_dev **dev);
int kapi_vfio_attach_probed_dev(struct kapi_vfio *c, struct kapi_vfio_dev *dev);
void kapi_vfio_dev_remove(struct kapi_vfio_dev *dev);

/*
 * The IOMMU domain translating an IOMMU-backed device now (the one type1
 * attached its group to), for leaf queries with the sim API; NULL for an
 * emulated device.
 */
struct sim_iommu_domain *kapi_vfio_dev_sim_domain(struct kapi_vfio_dev *dev);
/*
 * iommu_iova_to_phys() on that domain, as a pfn: 0 and *pfn, or -ENOENT
 * when nothing is mapped at iova (-ENODEV for an emulated device).
 */
int kapi_vfio_dev_iova_to_pfn(struct kapi_vfio_dev *dev, unsigned long long iova,
			      unsigned long *pfn);
/*
 * The translation oracle: every page of [iova, iova + size) translates in
 * the device's IOMMU domain to the pfn the current process's page tables
 * map the page at the same offset from vaddr to (pfn 0 included).  0 if
 * so; else *bad_offset (may be NULL) gets the offset of the first page
 * that fails and the result says how: -ENOENT (the IOMMU maps nothing
 * there), -EFAULT (the CPU maps nothing there), -EILSEQ (different pfns);
 * -ENODEV for an emulated device.  Costs one comparison per run where an
 * IOMMU leaf and a CPU leaf overlap, so a 2^31-page BAR in 1 GiB leaves is
 * checked in 8,192 steps.
 */
int kapi_vfio_dev_check_translation(struct kapi_vfio_dev *dev,
				    unsigned long long iova, unsigned long vaddr,
				    unsigned long long size,
				    unsigned long long *bad_offset);
/* Live IOMMU leaves in that domain (0 for an emulated device). */
unsigned long long kapi_vfio_dev_nr_leaves(struct kapi_vfio_dev *dev);

/* ---- ioctls, well formed ---- */

long kapi_vfio_check_extension(struct kapi_vfio *c, unsigned long ext);
/* VFIO_IOMMU_MAP_DMA of [vaddr, +size) at iova; flags KAPI_VFIO_DMA_MAP_*. */
long kapi_vfio_map_dma(struct kapi_vfio *c, unsigned long long vaddr,
		       unsigned long long iova, unsigned long long size,
		       unsigned int flags);
/* VFIO_IOMMU_UNMAP_DMA; *unmapped (may be NULL) gets the size written back. */
long kapi_vfio_unmap_dma(struct kapi_vfio *c, unsigned long long iova,
			 unsigned long long size, unsigned int flags,
			 unsigned long long *unmapped);
/* UNMAP_DMA with GET_DIRTY_BITMAP into bitmap (bitmap_bytes long). */
long kapi_vfio_unmap_dma_dirty(struct kapi_vfio *c, unsigned long long iova,
			       unsigned long long size,
			       unsigned long long pgsize,
			       unsigned long long *bitmap,
			       unsigned long long bitmap_bytes,
			       unsigned long long *unmapped);

/* VFIO_IOMMU_GET_INFO, decoded (capabilities followed through the chain). */
#define KAPI_VFIO_MAX_IOVAS 16
struct kapi_vfio_info {
	unsigned int argsz;		/* as written back */
	unsigned int flags;
	unsigned long long iova_pgsizes;
	unsigned int cap_offset;
	int has_iova_range;
	unsigned int nr_iovas;		/* all of them, even past the array */
	struct {
		unsigned long long start, end;	/* inclusive */
	} iovas[KAPI_VFIO_MAX_IOVAS];
	int has_migration;
	unsigned int migration_flags;
	unsigned long long migration_pgsize_bitmap;
	unsigned long long max_dirty_bitmap_size;
	int has_dma_avail;
	unsigned int dma_avail;
	/* Each capability's header.version (uapi: 1 for all three). */
	unsigned int iova_range_version, migration_version, dma_avail_version;
};
long kapi_vfio_get_info(struct kapi_vfio *c, struct kapi_vfio_info *info);

long kapi_vfio_dirty_start(struct kapi_vfio *c);
long kapi_vfio_dirty_stop(struct kapi_vfio *c);
/* DIRTY_PAGES GET_BITMAP for [iova, +size) at pgsize into bitmap. */
long kapi_vfio_dirty_get(struct kapi_vfio *c, unsigned long long iova,
			 unsigned long long size, unsigned long long pgsize,
			 unsigned long long *bitmap,
			 unsigned long long bitmap_bytes);

/* ---- ioctls, raw (every field as given) ---- */

long kapi_vfio_raw_map_dma(struct kapi_vfio *c, unsigned int argsz,
			   unsigned int flags, unsigned long long vaddr,
			   unsigned long long iova, unsigned long long size);
/*
 * bitmap: NULL for none; otherwise {pgsize, size, data} follows the
 * struct (and counts only if argsz says so).
 */
struct kapi_vfio_bitmap {
	unsigned long long pgsize;
	unsigned long long size;	/* bytes */
	unsigned long long *data;
};
long kapi_vfio_raw_unmap_dma(struct kapi_vfio *c, unsigned int argsz,
			     unsigned int flags, unsigned long long iova,
			     unsigned long long size,
			     const struct kapi_vfio_bitmap *bitmap,
			     unsigned long long *size_out);
/* GET_INFO with argsz; buf (buf_bytes >= max(argsz, 16)) receives the reply. */
long kapi_vfio_raw_get_info(struct kapi_vfio *c, unsigned int argsz,
			    void *buf, unsigned long buf_bytes);
/* DIRTY_PAGES with argsz and flags; range used for GET_BITMAP. */
long kapi_vfio_raw_dirty(struct kapi_vfio *c, unsigned int argsz,
			 unsigned int flags, unsigned long long iova,
			 unsigned long long size,
			 const struct kapi_vfio_bitmap *bitmap);
/* Any command with a user pointer (unknown commands: -ENOTTY). */
long kapi_vfio_raw_ioctl(struct kapi_vfio *c, unsigned int cmd,
			 unsigned long arg);

/* ---- the external (emulated device) interface ---- */

/*
 * The backend's pin_pages for an emulated device: npage pages from iova,
 * prot KAPI_VFIO_DMA_MAP_* bits (READ/WRITE as IOMMU_READ/WRITE); pfns
 * receives each page's pfn.  Returns npage or a negative errno.  The
 * device remembers its pins and drops them when the range is unmapped.
 */
int kapi_vfio_pin_pages(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
			unsigned long long iova, int npage, unsigned int prot,
			unsigned long *pfns);
/* unpin_pages for [iova, +npage pages). */
void kapi_vfio_unpin_pages(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
			   unsigned long long iova, int npage);
/*
 * The backend's dma_rw (what vfio_dma_rw() calls for an emulated device):
 * copy len bytes between buf and the user memory DMA-mapped at iova;
 * write: into that memory.  0 or a negative errno.  The copy reaches the
 * simulated process's memory through its page tables (the uaccess shim),
 * as the calling thread's current task: the mapping's owner, another
 * process, or a kernel thread (kapi_proc_set_current(NULL): no mm, so the
 * backend borrows the owner's).
 */
int kapi_vfio_dma_rw(struct kapi_vfio *c, unsigned long long iova, void *buf,
		     unsigned long len, int write);
/* Pins the emulated device holds now (by its own count). */
unsigned long kapi_vfio_dev_nr_pins(struct kapi_vfio_dev *dev);
/* dma_unmap callbacks the emulated device has received. */
unsigned long kapi_vfio_dev_nr_dma_unmaps(struct kapi_vfio_dev *dev);

/* ---- live update races, pinning IOMMU devices ---- */

/*
 * An IOMMU-backed device whose driver also pins pages through the
 * container (vfio_pin_pages(), as an emulated device does): registered
 * with the backend, told of unmaps, its pins dropped at detach.  0, or
 * -EINVAL for an emulated or already registered device.
 */
int kapi_vfio_dev_register_pinning(struct kapi_vfio *c,
				   struct kapi_vfio_dev *dev);
/*
 * The next n dma_unmap callbacks the device gets are raced by another of
 * its driver's threads: after the device unpinned the range, that thread
 * pins the range's first page again (read only) before type1 takes its
 * lock back, so type1 must notify again.
 */
void kapi_vfio_dev_race_pins_with_dma_unmap(struct kapi_vfio_dev *dev,
					    unsigned long n);

/* ---- groups, domains and the platform behind them ---- */

/*
 * Reserved regions an IOMMU reports for a device (enum iommu_resv_type's
 * values): DIRECT must stay mapped 1:1, DIRECT_RELAXABLE may be assigned,
 * RESERVED is never mapped, MSI is a hardware MSI window, SW_MSI one that
 * dma-iommu maps on demand (type1 installs an MSI cookie at its base).
 */
enum kapi_vfio_resv_type {
	KAPI_VFIO_RESV_DIRECT,
	KAPI_VFIO_RESV_DIRECT_RELAXABLE,
	KAPI_VFIO_RESV_RESERVED,
	KAPI_VFIO_RESV_MSI,
	KAPI_VFIO_RESV_SW_MSI,
};
#define KAPI_VFIO_MAX_RESV	8
#define KAPI_VFIO_MAX_GROUP_DEVS 4
struct kapi_vfio_resv {
	unsigned long long start, length;
	enum kapi_vfio_resv_type type;
};
struct kapi_vfio_dev_opts {
	enum sim_iommu_format_id fmt;
	/* Devices in the group (0 counts as 1; at most MAX_GROUP_DEVS). */
	unsigned int nr_devices;
	/* The aperture of the domains allocated for it; both 0: the format's. */
	unsigned long long aperture_start, aperture_end;
	/* Behind an Intel/AMD unit that cannot block no-snoop DMA. */
	int no_snoop_control;
	/* On a platform without interrupt remapping (MSIs not isolated). */
	int no_isolated_msi;
	/* Regions every device of the group reports. */
	unsigned int nr_resv;
	struct kapi_vfio_resv resv[KAPI_VFIO_MAX_RESV];
};
/*
 * kapi_vfio_attach_iommu_dev() for a group of opts->nr_devices devices
 * described by opts: 0 and *dev, or the errno of the devices' creation
 * (-EINVAL for bad options) or of attach_group (the devices are destroyed).
 */
int kapi_vfio_attach_iommu_dev_opts(struct kapi_vfio *c,
				    const struct kapi_vfio_dev_opts *opts,
				    struct kapi_vfio_dev **dev);

/*
 * An emulated device that never pins (its driver has no dma_unmap
 * callback), attached and registered.
 */
int kapi_vfio_attach_emulated_dev_without_unmap(struct kapi_vfio *c,
						struct kapi_vfio_dev **dev);

/*
 * attach_group of dev's group (attached to some container already) to
 * container c, as dev's type, as a VFIO core that failed to stop it would:
 * the backend's errno, or 0, and then kapi_vfio_detach_group_of() must
 * undo it before dev is detached from its own container.
 */
long kapi_vfio_attach_group_of(struct kapi_vfio *c, struct kapi_vfio_dev *dev);
void kapi_vfio_detach_group_of(struct kapi_vfio *c, struct kapi_vfio_dev *dev);

/*
 * The backend's group_iommu_domain for dev's group in c (a NULL c or dev
 * is passed to it as NULL): 0 and *sd, the simulator's tables of the
 * domain it returned, or its errno.
 */
int kapi_vfio_group_iommu_domain(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
				 struct sim_iommu_domain **sd);

/* VFIO_CHECK_EXTENSION asked before any container exists (no iommu_data). */
long kapi_vfio_check_extension_no_container(unsigned long ext);

/*
 * The backend's release while groups are still attached (devices that pin
 * drop their pins and are unregistered first), then every device
 * destroyed without detach_group:
 * the backend must undo all of it by itself.
 */
void kapi_vfio_release_attached(struct kapi_vfio *c);

/*
 * The MSI cookie of the domain translating dev now: 0 and *base, -ENOENT
 * if it has none (-ENODEV for an emulated device).
 */
int kapi_vfio_dev_msi_cookie(struct kapi_vfio_dev *dev,
			     unsigned long long *base);
/* A platform without dma-iommu (CONFIG_IOMMU_DMA=n): 0; default 1. */
void kapi_vfio_set_dma_iommu(int on);

/* ---- red-black tree and bitmap shims, for their own tests ---- */

struct kapi_rbtree;
struct kapi_rbtree *kapi_rbtree_create(void);
/* Insert key (duplicates allowed, after equal keys); -ENOMEM. */
int kapi_rbtree_insert(struct kapi_rbtree *t, long key);
/* Erase one node with key: 0, or -ENOENT. */
int kapi_rbtree_erase(struct kapi_rbtree *t, long key);
/*
 * Check every red-black invariant (root black, no red node with a red
 * child, equal black height on every path, parent links, in-order keys
 * sorted, rb_next/rb_prev agree with the in-order walk).  Returns the
 * black height (>= 0) or a negative code naming the broken invariant.
 */
long kapi_rbtree_validate(const struct kapi_rbtree *t);
/* Keys in order (rb_first/rb_next); returns the node count. */
unsigned long kapi_rbtree_keys(const struct kapi_rbtree *t, long *keys,
			       unsigned long max);
/* Keys in post order (rb_first_postorder/rb_next_postorder). */
unsigned long kapi_rbtree_keys_postorder(const struct kapi_rbtree *t,
					 long *keys, unsigned long max);
void kapi_rbtree_destroy(struct kapi_rbtree *t);

/* <linux/bitmap.h> operations on a caller's unsigned long array. */
void kapi_bitmap_set(unsigned long *map, unsigned int start, unsigned int n);
void kapi_bitmap_clear(unsigned long *map, unsigned int start, unsigned int n);
void kapi_bitmap_shift_left(unsigned long *dst, const unsigned long *src,
			    unsigned int shift, unsigned int nbits);
void kapi_bitmap_shift_right(unsigned long *dst, const unsigned long *src,
			     unsigned int shift, unsigned int nbits);
unsigned int kapi_bitmap_weight(const unsigned long *map, unsigned int nbits);
unsigned long kapi_bitmap_find_next(const unsigned long *map,
				    unsigned long size, unsigned long offset,
				    int zero);
/* bitmap_zalloc(nbits) / bitmap_free(); NULL under "shim/bitmap/alloc". */
unsigned long *kapi_bitmap_zalloc(unsigned int nbits);
void kapi_bitmap_free(unsigned long *map);

#endif
