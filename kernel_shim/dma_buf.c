// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma-buf core (see <linux/dma-buf.h> for what is emulated and what is
 * left out): export as an anon-inode file, fd install and lookup, reference
 * counting through the file, attachments, locked and unlocked map/unmap,
 * the core's vmap reference count, CPU access brackets and the SYNC ioctl.
 */
#include <linux/anon_inodes.h>
#include <linux/dma-buf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/dma-buf.h>

#include <dmasim/sim.h>

static const struct file_operations dma_buf_fops;

static int dma_buf_file_release(struct inode *inode, struct file *file)
{
	struct dma_buf *dmabuf = file->private_data;

	/* Whoever vmapped the buffer holds a reference until vunmap. */
	BUG_ON(dmabuf->vmapping_counter);
	WARN_ON(!list_empty(&dmabuf->attachments));
	dmabuf->ops->release(dmabuf);
	if (dmabuf->resv == (struct dma_resv *)&dmabuf[1])
		dma_resv_fini(dmabuf->resv);
	module_put(dmabuf->owner);
	kfree(dmabuf);
	return 0;
}

static long dma_buf_ioctl_sync(struct dma_buf *dmabuf, void __user *arg)
{
	struct dma_buf_sync sync;
	enum dma_data_direction dir;

	if (copy_from_user(&sync, arg, sizeof(sync)))
		return -EFAULT;
	if (sync.flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK)
		return -EINVAL;
	switch (sync.flags & DMA_BUF_SYNC_RW) {
	case DMA_BUF_SYNC_READ:
		dir = DMA_FROM_DEVICE;
		break;
	case DMA_BUF_SYNC_WRITE:
		dir = DMA_TO_DEVICE;
		break;
	case DMA_BUF_SYNC_RW:
		dir = DMA_BIDIRECTIONAL;
		break;
	default:
		return -EINVAL;
	}
	if (sync.flags & DMA_BUF_SYNC_END)
		return dma_buf_end_cpu_access(dmabuf, dir);
	return dma_buf_begin_cpu_access(dmabuf, dir);
}

static long dma_buf_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct dma_buf *dmabuf = file->private_data;

	switch (cmd) {
	case DMA_BUF_IOCTL_SYNC:
		return dma_buf_ioctl_sync(dmabuf, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations dma_buf_fops = {
	.owner = THIS_MODULE,
	.release = dma_buf_file_release,
	.unlocked_ioctl = dma_buf_ioctl,
	.compat_ioctl = dma_buf_ioctl,
	.llseek = noop_llseek,
};

static bool dma_buf_ops_valid(const struct dma_buf_ops *ops)
{
	if (!ops || !ops->map_dma_buf || !ops->unmap_dma_buf || !ops->release)
		return false;
	/* pin and unpin come together or not at all. */
	return !ops->pin == !ops->unpin;
}

struct dma_buf *dma_buf_export(const struct dma_buf_export_info *exp_info)
{
	struct dma_resv *resv = exp_info->resv;
	size_t alloc_size = sizeof(struct dma_buf);
	struct dma_buf *dmabuf;
	struct file *file;

	if (WARN_ON(!exp_info->priv || !dma_buf_ops_valid(exp_info->ops)))
		return ERR_PTR(-EINVAL);
	if (sim_should_fail(SIM_FP_DMA_BUF_EXPORT))
		return ERR_PTR(-ENOMEM);
	if (!try_module_get(exp_info->owner))
		return ERR_PTR(-ENOENT);

	/* Without a caller's reservation object, embed one after the buffer. */
	if (!resv)
		alloc_size += sizeof(struct dma_resv);
	dmabuf = kzalloc(alloc_size, GFP_KERNEL);
	if (!dmabuf)
		goto err_module;
	file = anon_inode_getfile("dmabuf", &dma_buf_fops, dmabuf,
				  exp_info->flags);
	if (IS_ERR(file)) {
		kfree(dmabuf);
		module_put(exp_info->owner);
		return ERR_CAST(file);
	}
	file->f_inode->i_size = exp_info->size;

	dmabuf->file = file;
	dmabuf->size = exp_info->size;
	dmabuf->ops = exp_info->ops;
	dmabuf->priv = exp_info->priv;
	dmabuf->owner = exp_info->owner;
	dmabuf->exp_name = exp_info->exp_name;
	spin_lock_init(&dmabuf->name_lock);
	INIT_LIST_HEAD(&dmabuf->attachments);
	if (!resv) {
		resv = (struct dma_resv *)&dmabuf[1];
		dma_resv_init(resv);
	}
	dmabuf->resv = resv;
	return dmabuf;

err_module:
	module_put(exp_info->owner);
	return ERR_PTR(-ENOMEM);
}

int dma_buf_fd(struct dma_buf *dmabuf, int flags)
{
	int fd = -EINVAL;

	if (dmabuf && dmabuf->file) {
		fd = get_unused_fd_flags(flags);
		if (fd >= 0)
			fd_install(fd, dmabuf->file);
	}
	return fd;
}

struct dma_buf *dma_buf_get(int fd)
{
	struct file *file = fget(fd);

	if (!file)
		return ERR_PTR(-EBADF);
	if (file->f_op != &dma_buf_fops) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	return file->private_data;
}

void dma_buf_put(struct dma_buf *dmabuf)
{
	if (WARN_ON(!dmabuf || !dmabuf->file))
		return;
	fput(dmabuf->file);
}

struct dma_buf_attachment *dma_buf_attach(struct dma_buf *dmabuf,
					  struct device *dev)
{
	struct dma_buf_attachment *attach;
	int err;

	if (WARN_ON(!dmabuf || !dev))
		return ERR_PTR(-EINVAL);
	attach = kzalloc(sizeof(*attach), GFP_KERNEL);
	if (!attach)
		return ERR_PTR(-ENOMEM);
	attach->dev = dev;
	attach->dmabuf = dmabuf;
	if (dmabuf->ops->attach) {
		err = dmabuf->ops->attach(dmabuf, attach);
		if (err) {
			kfree(attach);
			return ERR_PTR(err);
		}
	}
	dma_resv_lock(dmabuf->resv, NULL);
	list_add(&attach->node, &dmabuf->attachments);
	dma_resv_unlock(dmabuf->resv);
	return attach;
}

void dma_buf_detach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	if (WARN_ON(!dmabuf || !attach || dmabuf != attach->dmabuf))
		return;
	dma_resv_lock(dmabuf->resv, NULL);
	if (attach->sgt)
		dmabuf->ops->unmap_dma_buf(attach, attach->sgt, attach->dir);
	list_del(&attach->node);
	dma_resv_unlock(dmabuf->resv);
	if (dmabuf->ops->detach)
		dmabuf->ops->detach(dmabuf, attach);
	kfree(attach);
}

struct sg_table *dma_buf_map_attachment(struct dma_buf_attachment *attach,
					enum dma_data_direction direction)
{
	struct sg_table *sgt;

	if (WARN_ON(!attach || !attach->dmabuf))
		return ERR_PTR(-EINVAL);
	dma_resv_assert_held(attach->dmabuf->resv);

	if (attach->sgt) {
		/* A cached mapping serves only a compatible direction. */
		if (attach->dir != direction &&
		    attach->dir != DMA_BIDIRECTIONAL)
			return ERR_PTR(-EBUSY);
		return attach->sgt;
	}
	sgt = attach->dmabuf->ops->map_dma_buf(attach, direction);
	if (!sgt)
		sgt = ERR_PTR(-ENOMEM);
	if (IS_ERR(sgt))
		return sgt;
	if (attach->dmabuf->ops->cache_sgt_mapping) {
		attach->sgt = sgt;
		attach->dir = direction;
	}
	return sgt;
}

void dma_buf_unmap_attachment(struct dma_buf_attachment *attach,
			      struct sg_table *sg_table,
			      enum dma_data_direction direction)
{
	if (WARN_ON(!attach || !attach->dmabuf || !sg_table))
		return;
	dma_resv_assert_held(attach->dmabuf->resv);
	if (attach->sgt == sg_table)
		return;
	attach->dmabuf->ops->unmap_dma_buf(attach, sg_table, direction);
}

struct sg_table *
dma_buf_map_attachment_unlocked(struct dma_buf_attachment *attach,
				enum dma_data_direction direction)
{
	struct sg_table *sgt;

	if (WARN_ON(!attach || !attach->dmabuf))
		return ERR_PTR(-EINVAL);
	dma_resv_lock(attach->dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(attach, direction);
	dma_resv_unlock(attach->dmabuf->resv);
	return sgt;
}

void dma_buf_unmap_attachment_unlocked(struct dma_buf_attachment *attach,
				       struct sg_table *sg_table,
				       enum dma_data_direction direction)
{
	if (WARN_ON(!attach || !attach->dmabuf || !sg_table))
		return;
	dma_resv_lock(attach->dmabuf->resv, NULL);
	dma_buf_unmap_attachment(attach, sg_table, direction);
	dma_resv_unlock(attach->dmabuf->resv);
}

int dma_buf_begin_cpu_access(struct dma_buf *dmabuf,
			     enum dma_data_direction direction)
{
	if (WARN_ON(!dmabuf))
		return -EINVAL;
	if (dmabuf->ops->begin_cpu_access)
		return dmabuf->ops->begin_cpu_access(dmabuf, direction);
	return 0;
}

int dma_buf_end_cpu_access(struct dma_buf *dmabuf,
			   enum dma_data_direction direction)
{
	if (WARN_ON(!dmabuf))
		return -EINVAL;
	if (dmabuf->ops->end_cpu_access)
		return dmabuf->ops->end_cpu_access(dmabuf, direction);
	return 0;
}

int dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct iosys_map fresh;
	int err;

	iosys_map_clear(map);
	if (WARN_ON(!dmabuf))
		return -EINVAL;
	dma_resv_assert_held(dmabuf->resv);
	if (!dmabuf->ops->vmap)
		return -EINVAL;

	if (dmabuf->vmapping_counter) {
		BUG_ON(iosys_map_is_null(&dmabuf->vmap_ptr));
		dmabuf->vmapping_counter++;
		*map = dmabuf->vmap_ptr;
		return 0;
	}
	BUG_ON(iosys_map_is_set(&dmabuf->vmap_ptr));
	iosys_map_clear(&fresh);
	err = dmabuf->ops->vmap(dmabuf, &fresh);
	if (WARN_ON_ONCE(err))
		return err;
	dmabuf->vmapping_counter = 1;
	dmabuf->vmap_ptr = fresh;
	*map = fresh;
	return 0;
}

void dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	if (WARN_ON(!dmabuf))
		return;
	dma_resv_assert_held(dmabuf->resv);
	BUG_ON(iosys_map_is_null(&dmabuf->vmap_ptr));
	BUG_ON(dmabuf->vmapping_counter == 0);
	BUG_ON(!iosys_map_is_equal(&dmabuf->vmap_ptr, map));

	if (--dmabuf->vmapping_counter)
		return;
	if (dmabuf->ops->vunmap)
		dmabuf->ops->vunmap(dmabuf, map);
	iosys_map_clear(&dmabuf->vmap_ptr);
}

int dma_buf_vmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map)
{
	int ret;

	iosys_map_clear(map);
	if (WARN_ON(!dmabuf))
		return -EINVAL;
	dma_resv_lock(dmabuf->resv, NULL);
	ret = dma_buf_vmap(dmabuf, map);
	dma_resv_unlock(dmabuf->resv);
	return ret;
}

void dma_buf_vunmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map)
{
	if (WARN_ON(!dmabuf))
		return;
	dma_resv_lock(dmabuf->resv, NULL);
	dma_buf_vunmap(dmabuf, map);
	dma_resv_unlock(dmabuf->resv);
}

int dma_buf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma,
		 unsigned long pgoff)
{
	unsigned long pages;

	if (WARN_ON(!dmabuf || !vma))
		return -EINVAL;
	if (!dmabuf->ops->mmap)
		return -EINVAL;
	pages = vma_pages(vma);
	if (pgoff + pages < pgoff)
		return -EOVERFLOW;
	if (pgoff + pages > dmabuf->size >> PAGE_SHIFT)
		return -EINVAL;
	/* No vm_file in the shim's VMA: the mapping holds no reference. */
	vma->vm_pgoff = pgoff;
	return dmabuf->ops->mmap(dmabuf, vma);
}
