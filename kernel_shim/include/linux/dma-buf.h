/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffer sharing, as the kernel's <linux/dma-buf.h> (kernel_shim/dma_buf.c).
 *
 * (a) Definitions that must match the kernel (6.12): struct dma_buf_ops
 *     (member names and prototypes, including cache_sgt_mapping), the
 *     members of struct dma_buf, dma_buf_attachment and dma_buf_export_info
 *     that exporters and importers touch, DEFINE_DMA_BUF_EXPORT_INFO, and
 *     every function below with its 6.12 prototype and locking rule: the
 *     plain map/unmap/vmap/vunmap calls want the reservation lock held, the
 *     *_unlocked ones take it.
 * Emulated: the buffer is a file (anon inode, f_op = the dma-buf fops)
 *     whose last fput() releases it through ops->release; dma_buf_fd()
 *     installs it, dma_buf_get() finds it by fd; attachments call
 *     ops->attach/detach; map results are cached when the exporter asks;
 *     vmap is reference counted in the core (vmapping_counter) as in the
 *     kernel; DMA_BUF_IOCTL_SYNC on the fd calls begin/end_cpu_access.
 * Simplified: no fences, polling, sysfs stats, debugfs list, dynamic
 *     (move_notify) importers or peer-to-peer checks.  dma_buf_mmap()
 *     checks the VMA against the buffer as the kernel's (-EOVERFLOW,
 *     -EINVAL) and calls ops->mmap, but the shim's VMA has no vm_file:
 *     the mapping holds no reference on the buffer, so a caller unmaps it
 *     before the last reference goes.
 * (c) Test double: "shim/dma-buf/export" fails dma_buf_export() with
 *     -ENOMEM before anything is allocated.
 */
#ifndef _DMASIM_LINUX_DMA_BUF_H
#define _DMASIM_LINUX_DMA_BUF_H

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>

struct device;
struct dma_buf;
struct dma_buf_attachment;
struct vm_area_struct;

struct dma_buf_ops {
	bool cache_sgt_mapping;
	int (*attach)(struct dma_buf *, struct dma_buf_attachment *);
	void (*detach)(struct dma_buf *, struct dma_buf_attachment *);
	int (*pin)(struct dma_buf_attachment *attach);
	void (*unpin)(struct dma_buf_attachment *attach);
	struct sg_table *(*map_dma_buf)(struct dma_buf_attachment *,
					enum dma_data_direction);
	void (*unmap_dma_buf)(struct dma_buf_attachment *, struct sg_table *,
			      enum dma_data_direction);
	void (*release)(struct dma_buf *);
	int (*begin_cpu_access)(struct dma_buf *, enum dma_data_direction);
	int (*end_cpu_access)(struct dma_buf *, enum dma_data_direction);
	int (*mmap)(struct dma_buf *, struct vm_area_struct *vma);
	int (*vmap)(struct dma_buf *dmabuf, struct iosys_map *map);
	void (*vunmap)(struct dma_buf *dmabuf, struct iosys_map *map);
};

struct dma_buf {
	size_t size;
	struct file *file;
	struct list_head attachments;
	const struct dma_buf_ops *ops;
	unsigned int vmapping_counter;
	struct iosys_map vmap_ptr;
	const char *exp_name;
	const char *name;
	spinlock_t name_lock;
	struct module *owner;
	void *priv;
	struct dma_resv *resv;
};

struct dma_buf_attach_ops {
	bool allow_peer2peer;
	void (*move_notify)(struct dma_buf_attachment *attach);
};

struct dma_buf_attachment {
	struct dma_buf *dmabuf;
	struct device *dev;
	struct list_head node;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	bool peer2peer;
	const struct dma_buf_attach_ops *importer_ops;
	void *importer_priv;
	void *priv;
};

struct dma_buf_export_info {
	const char *exp_name;
	struct module *owner;
	const struct dma_buf_ops *ops;
	size_t size;
	int flags;
	struct dma_resv *resv;
	void *priv;
};

#define DEFINE_DMA_BUF_EXPORT_INFO(name)				\
	struct dma_buf_export_info name = { .exp_name = KBUILD_MODNAME,	\
					    .owner = THIS_MODULE }

static inline void get_dma_buf(struct dma_buf *dmabuf)
{
	get_file(dmabuf->file);
}

static inline bool dma_buf_is_dynamic(struct dma_buf *dmabuf)
{
	return !!dmabuf->ops->pin;
}

static inline bool
dma_buf_attachment_is_dynamic(struct dma_buf_attachment *attach)
{
	return !!attach->importer_ops;
}

struct dma_buf_attachment *dma_buf_attach(struct dma_buf *dmabuf,
					  struct device *dev);
void dma_buf_detach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach);
struct dma_buf *dma_buf_export(const struct dma_buf_export_info *exp_info);
int dma_buf_fd(struct dma_buf *dmabuf, int flags);

/*
 * Debian's 6.1.192 (a stable-only helper, no mainline version has it):
 * publish a reserved fd for the buffer, after DMA_HEAP_IOCTL_ALLOC copied
 * its result out.
 */
static inline void dma_buf_fd_install(struct dma_buf *dmabuf, int fd)
{
	fd_install(fd, dmabuf->file);
}
struct dma_buf *dma_buf_get(int fd);
void dma_buf_put(struct dma_buf *dmabuf);
struct sg_table *dma_buf_map_attachment(struct dma_buf_attachment *attach,
					enum dma_data_direction direction);
void dma_buf_unmap_attachment(struct dma_buf_attachment *attach,
			      struct sg_table *sg_table,
			      enum dma_data_direction direction);
struct sg_table *
dma_buf_map_attachment_unlocked(struct dma_buf_attachment *attach,
				enum dma_data_direction direction);
void dma_buf_unmap_attachment_unlocked(struct dma_buf_attachment *attach,
				       struct sg_table *sg_table,
				       enum dma_data_direction direction);
int dma_buf_begin_cpu_access(struct dma_buf *dma_buf,
			     enum dma_data_direction dir);
int dma_buf_end_cpu_access(struct dma_buf *dma_buf,
			   enum dma_data_direction dir);
int dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map);
void dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map);
int dma_buf_vmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map);
void dma_buf_vunmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map);
int dma_buf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma,
		 unsigned long pgoff);

#endif
