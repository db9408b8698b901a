/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points to the DMA-BUF heap, the dma-buf core and the
 * DMA layer (kapi/kapi_heap.c).  See kapi.h for the conventions:
 * every call returns what the kernel returned (negative errno or >= 0).
 *
 * The heap is reached only as userspace and importing drivers reach it:
 * open("/dev/dma_heap/<name>") and DMA_HEAP_IOCTL_ALLOC on the heap's
 * character device give a dma-buf fd; a simulated device attaches to the
 * buffer and maps it through the dma-buf API (dma_buf_attach,
 * dma_buf_map_attachment_unlocked), which runs the heap's ops and the DMA
 * layer (dma-iommu onto the device's IOMMU domain, or dma-direct).  So the
 * same calls exercise dmasim's own heap and, in upstream mode, the kernel
 * tree's.
 */
#ifndef DMASIM_KAPI_HEAP_H
#define DMASIM_KAPI_HEAP_H

#include <dmasim/sim.h>

/*
 * uapi facts (<uapi/linux/dma-heap.h>, <uapi/linux/dma-buf.h>,
 * <asm-generic/fcntl.h>), restated for plain C; kapi_heap.c checks at build
 * time that they equal the shim's definitions.
 */
struct kapi_dma_heap_allocation_data {
	unsigned long long len;
	unsigned int fd;
	unsigned int fd_flags;
	unsigned long long heap_flags;
};
#define KAPI_DMA_HEAP_IOCTL_ALLOC	0xc0184800u	/* _IOWR('H', 0, 24 bytes) */
#define KAPI_O_RDONLY			00000000u
#define KAPI_O_WRONLY			00000001u
#define KAPI_O_RDWR			00000002u
#define KAPI_O_ACCMODE			00000003u
#define KAPI_O_CLOEXEC			02000000u
#define KAPI_DMA_BUF_SYNC_READ		(1u << 0)
#define KAPI_DMA_BUF_SYNC_WRITE		(2u << 0)
#define KAPI_DMA_BUF_SYNC_RW		(KAPI_DMA_BUF_SYNC_READ | KAPI_DMA_BUF_SYNC_WRITE)
#define KAPI_DMA_BUF_SYNC_START		(0u << 2)
#define KAPI_DMA_BUF_SYNC_END		(1u << 2)

/* enum dma_data_direction */
enum {
	KAPI_DMA_BIDIRECTIONAL = 0,
	KAPI_DMA_TO_DEVICE = 1,
	KAPI_DMA_FROM_DEVICE = 2,
};

/* ------------------------------------------------------------------------
 * File descriptors of the simulated process.
 */

/* open("/dev/dma_heap/<name>", O_RDONLY | O_CLOEXEC): an fd or -errno. */
int kapi_heap_open(const char *name);
/*
 * DMA_HEAP_IOCTL_ALLOC on a heap fd, with the request in a user buffer:
 * the new dma-buf fd, or the ioctl's -errno.
 */
int kapi_heap_alloc(int heap_fd, unsigned long long len, unsigned int fd_flags,
		    unsigned long long heap_flags);
/* ioctl(fd, cmd, arg) as userspace issues it (arg is a user pointer). */
long kapi_ioctl(int fd, unsigned int cmd, void *arg);
/* fcntl(fd, F_GETFL): the file's flags (KAPI_O_ACCMODE part: its access mode). */
int kapi_fcntl_getfl(int fd);
/* pread(fd, buf, count, pos): bytes read or -errno (-ESPIPE: nonseekable). */
long kapi_pread(int fd, void *buf, unsigned long count, long long pos);
/* close(fd): 0 or -EBADF. */
int kapi_close(int fd);
/* Descriptors open, and files alive (a dma-buf lives while either holds it). */
unsigned int kapi_nr_open_fds(void);
unsigned long kapi_nr_files(void);
/* stat(path).st_rdev's major and minor: 0, or -ENOENT. */
int kapi_devnode_numbers(const char *path, unsigned int *major,
			 unsigned int *minor);
/* open() of a node mknod(major, minor) made, O_RDONLY: an fd or -errno. */
int kapi_chrdev_open(unsigned int major, unsigned int minor);
/*
 * Another driver's register_chrdev_region() of count minors from
 * (major, minor): 0, or -EBUSY if a region overlaps; and its unregister.
 */
int kapi_chrdev_region_register(unsigned int major, unsigned int minor,
				unsigned int count);
void kapi_chrdev_region_unregister(unsigned int major, unsigned int minor,
				   unsigned int count);
/*
 * Char devices added and not deleted (or deleted while an open still holds
 * them); device nodes (class devices) alive.
 */
unsigned int kapi_nr_char_devices(void);
/*
 * A race on demand: the next open of a node or char device number calls
 * hook(arg) once, after the open found the cdev and before the driver's
 * ->open, as another task would run there; NULL disarms.
 */
void kapi_chrdev_open_race_set(void (*hook)(void *arg), void *arg);
unsigned int kapi_nr_device_nodes(void);

/* ------------------------------------------------------------------------
 * Simulated devices (importers).
 */
struct kapi_dev;

#define KAPI_DEV_NO_IOMMU	(-1)

/*
 * A device with a 64-bit DMA mask, either behind a DMA-API IOMMU domain of
 * the given format (enum sim_iommu_format_id) or, with KAPI_DEV_NO_IOMMU,
 * mapped by dma-direct.  max_seg_size is dma_set_max_seg_size()'s value;
 * 0 leaves the kernel's default (64 KiB).
 */
int kapi_dev_create(int format, unsigned int max_seg_size,
		    struct kapi_dev **devp);
/*
 * The same with every option: seg_boundary is dma_set_seg_boundary()'s
 * mask (0: none); untrusted marks it as behind an external-facing port
 * (pci_dev->untrusted), so dma-iommu maps its lists one entry at a time
 * and bounces what is not granule-aligned (swiotlb).  A format whose
 * granule is larger than the build's page cannot back the DMA API:
 * -EINVAL, nothing left (see kapi_dev_format_backs_dma_api()).
 */
struct kapi_dev_opts {
	int format;			/* enum sim_iommu_format_id or NO_IOMMU */
	unsigned int max_seg_size;
	unsigned long seg_boundary;
	int untrusted;
};
int kapi_dev_create_opts(const struct kapi_dev_opts *o, struct kapi_dev **devp);
/*
 * Whether a device behind this IOMMU format can use the DMA API on this
 * build: its granule is at most PAGE_SIZE (16 and 64 KiB granules need a
 * -Dpage_shift=14 / 16 build).
 */
int kapi_dev_format_backs_dma_api(int format);
/*
 * Unbinds the device: lists it still has mapped are a driver bug, reported
 * by the DMA-API checks (a WARN) and forgotten.
 */
void kapi_dev_destroy(struct kapi_dev *dev);
/* The device's simulated IOMMU table (NULL without an IOMMU). */
struct sim_iommu_domain *kapi_dev_sim_domain(const struct kapi_dev *dev);

/* ------------------------------------------------------------------------
 * Importing a dma-buf: attach, map, inspect, unmap, detach.
 */
struct kapi_attach;

/* dma_buf_get(fd) + dma_buf_attach(); the attachment holds the reference. */
int kapi_dmabuf_attach(int buf_fd, struct kapi_dev *dev,
		       struct kapi_attach **attachp);
/* Unmaps first if mapped; then dma_buf_detach() + dma_buf_put(). */
void kapi_dmabuf_detach(struct kapi_attach *attach);
/*
 * dma_buf_map_attachment_unlocked(attach, dir): the number of DMA segments
 * (sg_table.nents), or -errno.  -EBUSY if already mapped through this handle.
 */
int kapi_dmabuf_map(struct kapi_attach *attach, int dir);
/* dma_buf_unmap_attachment_unlocked(); nothing if not mapped. */
void kapi_dmabuf_unmap(struct kapi_attach *attach);

/* One scatterlist entry: the CPU side, and the DMA side once mapped. */
struct kapi_sg_entry {
	unsigned long pfn;		/* first page */
	unsigned int offset;
	unsigned int length;
	unsigned long long dma_address;	/* valid for i < nents */
	unsigned int dma_length;
};
/* orig_nents (CPU entries) and nents (DMA segments) of the mapped table. */
unsigned int kapi_attach_nr_entries(const struct kapi_attach *attach);
unsigned int kapi_attach_nr_segments(const struct kapi_attach *attach);
/* Entry i (< orig_nents) of the mapped table: 0, or -EINVAL. */
int kapi_attach_sg_entry(const struct kapi_attach *attach, unsigned int i,
			 struct kapi_sg_entry *entry);

/*
 * The IOMMU leaves that map a mapped attachment: its IOVA range (from the
 * first segment's start to the last one's end, granule-aligned), the live
 * leaves inside it by size, the 2 MiB-aligned 2 MiB windows wholly inside
 * it, and how many of those one leaf of 2 MiB or more maps.
 */
struct kapi_iommu_cover {
	unsigned long long iova_start;
	unsigned long long iova_size;
	unsigned long long nr_leaves;
	unsigned long long leaves_by_shift[64];
	unsigned long long windows_2m;
	unsigned long long windows_2m_superpage;
};
/* 0, or -EINVAL if the attachment is not mapped through an IOMMU. */
int kapi_attach_iommu_cover(const struct kapi_attach *attach,
			    struct kapi_iommu_cover *cover);

/* ------------------------------------------------------------------------
 * A list of one's own through the streaming DMA API, as a driver maps it
 * (what the DMA-API checks, dma-debug's, see of each call).
 */
struct kapi_dma_list;

/*
 * sg_alloc_table() of n entries, entry i = entries[i] (pfn, offset,
 * length; the DMA fields are ignored), then dma_map_sgtable(dev, dir):
 * the DMA segment count (sgt->nents) and *listp, or -errno and nothing
 * left.
 */
int kapi_dma_list_map(struct kapi_dev *dev, const struct kapi_sg_entry *entries,
		      unsigned int n, int dir, struct kapi_dma_list **listp);
/* dma_unmap_sg(dev, sgl, nents, dir) as given, then the list freed. */
void kapi_dma_list_unmap(struct kapi_dma_list *list, int nents, int dir);
/* The list freed without an unmap (after its device was destroyed). */
void kapi_dma_list_free(struct kapi_dma_list *list);
/* dma_sync_sg_for_cpu() / _for_device() with the count and direction given. */
void kapi_dma_list_sync(struct kapi_dma_list *list, int nents, int dir,
			int for_device);
/* Entry i (< n) as it is now: 0, or -EINVAL. */
int kapi_dma_list_entry(const struct kapi_dma_list *list, unsigned int i,
			struct kapi_sg_entry *entry);
/* The list's first entry carries SG_DMA_SWIOTLB (bounced path). */
int kapi_dma_list_is_swiotlb(const struct kapi_dma_list *list);

/* ------------------------------------------------------------------------
 * CPU access to a dma-buf.
 */

/* dma_buf_vmap_unlocked(): 0 and *vaddr, or -errno.  Holds a reference. */
int kapi_dmabuf_vmap(int buf_fd, void **vaddr);
/* dma_buf_vunmap_unlocked() of what kapi_dmabuf_vmap() gave: 0 or -errno. */
int kapi_dmabuf_vunmap(int buf_fd, void *vaddr);
/*
 * The same, with the importer's map: *vaddr is what it holds afterwards
 * (NULL once the exporter cleared it, at the last vunmap).
 */
int kapi_dmabuf_vunmap_map(int buf_fd, void **vaddr);
/* The buffer's exporter name (fdinfo's exp_name) into name[len]; 0 or -errno. */
int kapi_dmabuf_exp_name(int buf_fd, char *name, unsigned long len);
/* dma_buf_begin_cpu_access() / dma_buf_end_cpu_access(). */
int kapi_dmabuf_begin_cpu_access(int buf_fd, int dir);
int kapi_dmabuf_end_cpu_access(int buf_fd, int dir);
/* DMA_BUF_IOCTL_SYNC with flags (KAPI_DMA_BUF_SYNC_*). */
int kapi_dmabuf_sync(int buf_fd, unsigned long long flags);

/*
 * mmap() of a dma-buf into the current process (kapi_mm.h), as a driver
 * forwarding its mmap does: a shared VM_IO VMA of len bytes (writable or
 * not) at a free address, then dma_buf_mmap(dmabuf, vma, pgoff).  0 and
 * *addr, or -errno with the VMA unmapped again.  Unmap with
 * kapi_mm_munmap() before the buffer's last reference goes (the shim's VMA
 * holds none).
 */
int kapi_dmabuf_mmap(int buf_fd, unsigned long long pgoff, unsigned long len,
		     int writable, unsigned long *addr);

/* ------------------------------------------------------------------------
 * Registering heaps: dma_heap_add() of test heaps, for the heap core.
 */
enum kapi_heap_ops {
	KAPI_HEAP_OPS,			/* an allocate op (below) */
	KAPI_HEAP_OPS_NONE,		/* exp_info.ops NULL */
	KAPI_HEAP_OPS_NO_ALLOCATE,	/* ops without allocate */
};
/* What a test heap's allocate op was asked, and what it answers. */
struct kapi_heap_request {
	int ret;			/* set by the caller: the -errno to fail with */
	unsigned int calls;
	unsigned long long len;
	unsigned int fd_flags;
	unsigned long long heap_flags;
	char name[32];			/* dma_heap_get_name() of the heap asked */
	/* kapi_heap_add(): dma_heap_get_name() of the heap dma_heap_add() returned */
	char added_name[32];
};
/*
 * dma_heap_add() of a heap called name (NULL: none) with the given ops
 * and *req as its driver data: its allocate op finds req through
 * dma_heap_get_drvdata(), records the request there and fails with
 * req->ret.  0 or dma_heap_add()'s -errno; nothing is kept on error.  A
 * heap added stays for the life of the process (6.12 cannot remove heaps).
 */
int kapi_heap_add(const char *name, enum kapi_heap_ops ops,
		  struct kapi_heap_request *req);

/* ------------------------------------------------------------------------
 * The heap's block layout, as an importer sees it: the buffer attached to
 * a dma-direct device and mapped, one scatterlist entry per block.
 */
struct kapi_heap_layout {
	unsigned long long bytes;
	unsigned long nr_chunks;
	unsigned long chunks_by_order[SIM_NR_ORDERS];
	unsigned long other_chunks;	/* lengths that are not a page order */
};
int kapi_dmabuf_layout(int buf_fd, struct kapi_heap_layout *layout);

#endif
