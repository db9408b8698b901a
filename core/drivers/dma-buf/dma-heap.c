// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim's own DMA-BUF heap core: a registry of heaps, one character device
 * per heap (/dev/dma_heap/<name>) and the DMA_HEAP_IOCTL_ALLOC ioctl that
 * turns an allocation request into a dma-buf file descriptor.
 *
 * Written against the Linux 6.12 interfaces (struct dma_heap_ops,
 * struct dma_heap_export_info, the uapi in <uapi/linux/dma-heap.h>) and
 * behaving as 6.12's core does at that interface:
 *  - the ioctl command is chosen by its number alone, and the argument is
 *    copied in and out with the sizes the caller's command encodes, padded
 *    with zeroes up to the kernel's structure size;
 *  - a request with fd != 0, unknown fd_flags or unknown heap_flags, or a
 *    length that page-aligns to 0, fails with -EINVAL before the heap is
 *    asked; the length is page-aligned up otherwise;
 *  - the new fd is reserved after the buffer exists and installed only once
 *    the result has been copied back to the caller.
 */

#include <linux/device.h>
#include <linux/cdev.h>
#include <linux/dma-heap.h>
#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <uapi/linux/dma-heap.h>

#define DMA_HEAP_DEVNAME	"dma_heap"
#define DMA_HEAP_MAX_MINORS	128
/* Ioctl arguments up to this size are staged on the stack. */
#define DMA_HEAP_STACK_ARG	128

struct dma_heap {
	const char *name;
	const struct dma_heap_ops *ops;
	void *priv;
	dev_t devt;
	struct list_head node;
	struct cdev cdev;
};

static LIST_HEAD(dma_heaps);
static DEFINE_MUTEX(dma_heaps_lock);
static DEFINE_XARRAY_ALLOC(dma_heap_by_minor);
static dev_t dma_heap_first_devt;
static struct class *dma_heap_class;

void *dma_heap_get_drvdata(struct dma_heap *heap)
{
	return heap->priv;
}

const char *dma_heap_get_name(struct dma_heap *heap)
{
	return heap->name;
}

static int dma_heap_open(struct inode *inode, struct file *file)
{
	struct dma_heap *heap = xa_load(&dma_heap_by_minor, iminor(inode));

	/*
	 * GCOVR_EXCL_START: defensive, no caller can reach it: a heap's cdev
	 * is added after its minor is stored and deleted before the minor is
	 * erased, and heaps are never removed.
	 */
	if (!heap) {
		pr_err("dma_heap: no heap at minor %u\n", iminor(inode));
		return -ENODEV;
	}
	/* GCOVR_EXCL_STOP */
	file->private_data = heap;
	nonseekable_open(inode, file);
	return 0;
}

/*
 * Check the request, have the heap make the buffer and reserve an fd for
 * it.  On success the reserved fd is in req->fd and the buffer is returned
 * with the reference the fd will own.
 */
static struct dma_buf *dma_heap_do_alloc(struct dma_heap *heap,
					 struct dma_heap_allocation_data *req)
{
	struct dma_buf *dmabuf;
	size_t len;
	int fd;

	if (req->fd)
		return ERR_PTR(-EINVAL);
	if (req->fd_flags & ~DMA_HEAP_VALID_FD_FLAGS)
		return ERR_PTR(-EINVAL);
	if (req->heap_flags & ~DMA_HEAP_VALID_HEAP_FLAGS)
		return ERR_PTR(-EINVAL);

	len = PAGE_ALIGN(req->len);
	if (!len)
		return ERR_PTR(-EINVAL);

	dmabuf = heap->ops->allocate(heap, len, req->fd_flags,
				     req->heap_flags);
	if (IS_ERR(dmabuf))
		return dmabuf;

	fd = get_unused_fd_flags(req->fd_flags);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return ERR_PTR(fd);
	}
	req->fd = fd;
	return dmabuf;
}

/* Commands by _IOC_NR(); the caller's type and size bits are not checked. */
static const unsigned int dma_heap_cmds[] = {
	DMA_HEAP_IOCTL_ALLOC,
};

static long dma_heap_ioctl(struct file *file, unsigned int ucmd,
			   unsigned long uptr)
{
	void __user *uarg = (void __user *)uptr;
	char stack_arg[DMA_HEAP_STACK_ARG];
	unsigned int in_size, out_size, size;
	struct dma_heap_allocation_data *req;
	unsigned int nr = _IOC_NR(ucmd);
	struct dma_buf *dmabuf;
	unsigned int kcmd;
	char *karg;
	long ret;

	if (nr >= ARRAY_SIZE(dma_heap_cmds))
		return -EINVAL;
	nr = array_index_nospec(nr, ARRAY_SIZE(dma_heap_cmds));
	kcmd = dma_heap_cmds[nr];

	/* Copy only the directions both the caller and the kernel declare. */
	in_size = (ucmd & kcmd & IOC_IN) ? _IOC_SIZE(ucmd) : 0;
	out_size = (ucmd & kcmd & IOC_OUT) ? _IOC_SIZE(ucmd) : 0;
	size = max3(in_size, out_size, (unsigned int)_IOC_SIZE(kcmd));

	karg = stack_arg;
	if (size > sizeof(stack_arg)) {
		karg = kmalloc(size, GFP_KERNEL);
		if (!karg)
			return -ENOMEM;
	}
	if (copy_from_user(karg, uarg, in_size)) {
		ret = -EFAULT;
		goto out;
	}
	memset(karg + in_size, 0, size - in_size);

	switch (kcmd) {
	case DMA_HEAP_IOCTL_ALLOC:
		req = (struct dma_heap_allocation_data *)karg;
		dmabuf = dma_heap_do_alloc(file->private_data, req);
		if (IS_ERR(dmabuf)) {
			ret = PTR_ERR(dmabuf);
			break;
		}
		if (copy_to_user(uarg, karg, out_size)) {
			put_unused_fd(req->fd);
			dma_buf_put(dmabuf);
			ret = -EFAULT;
			break;
		}
		fd_install(req->fd, dmabuf->file);
		ret = 0;
		break;
	default:
		ret = -ENOTTY;
		break;
	}
out:
	if (karg != stack_arg)
		kfree(karg);
	return ret;
}

static const struct file_operations dma_heap_fops = {
	.open = dma_heap_open,
	.unlocked_ioctl = dma_heap_ioctl,
	.compat_ioctl = dma_heap_ioctl,
	.owner = THIS_MODULE,
};

static bool dma_heap_name_taken(const char *name)
{
	struct dma_heap *h;

	list_for_each_entry(h, &dma_heaps, node)
		if (!strcmp(h->name, name))
			return true;
	return false;
}

struct dma_heap *dma_heap_add(const struct dma_heap_export_info *exp_info)
{
	struct dma_heap *heap;
	struct device *dev;
	u32 minor;
	int ret;

	if (!exp_info->name || !exp_info->name[0]) {
		pr_err("dma_heap: a heap needs a name\n");
		return ERR_PTR(-EINVAL);
	}
	if (!exp_info->ops || !exp_info->ops->allocate) {
		pr_err("dma_heap: heap %s has no allocate op\n",
		       exp_info->name);
		return ERR_PTR(-EINVAL);
	}

	heap = kzalloc(sizeof(*heap), GFP_KERNEL);
	if (unlikely(!heap))
		return ERR_PTR(-ENOMEM);
	heap->name = exp_info->name;
	heap->ops = exp_info->ops;
	heap->priv = exp_info->priv;

	ret = xa_alloc(&dma_heap_by_minor, &minor, heap,
		       XA_LIMIT(0, DMA_HEAP_MAX_MINORS - 1), GFP_KERNEL);
	if (ret < 0) {
		pr_err("dma_heap: no free minor for heap %s\n", heap->name);
		goto err_free;
	}
	heap->devt = MKDEV(MAJOR(dma_heap_first_devt), minor);

	cdev_init(&heap->cdev, &dma_heap_fops);
	ret = cdev_add(&heap->cdev, heap->devt, 1);
	if (ret < 0) {
		pr_err("dma_heap: cannot add the char device of %s\n",
		       heap->name);
		goto err_minor;
	}

	dev = device_create(dma_heap_class, NULL, heap->devt, NULL, "%s",
			    heap->name);
	if (IS_ERR(dev)) {
		pr_err("dma_heap: cannot create the device of %s\n",
		       heap->name);
		ret = PTR_ERR(dev);
		goto err_cdev;
	}

	mutex_lock(&dma_heaps_lock);
	if (dma_heap_name_taken(heap->name)) {
		mutex_unlock(&dma_heaps_lock);
		pr_err("dma_heap: a heap named %s exists\n", heap->name);
		ret = -EINVAL;
		goto err_device;
	}
	list_add(&heap->node, &dma_heaps);
	mutex_unlock(&dma_heaps_lock);
	return heap;

err_device:
	device_destroy(dma_heap_class, heap->devt);
err_cdev:
	cdev_del(&heap->cdev);
err_minor:
	xa_erase(&dma_heap_by_minor, minor);
err_free:
	kfree(heap);
	return ERR_PTR(ret);
}

/* Heap nodes live below /dev/dma_heap/. */
static char *dma_heap_devnode(const struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, DMA_HEAP_DEVNAME "/%s", dev_name(dev));
}

/* The char-device region and the class every heap's node is made in. */
static int dma_heap_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&dma_heap_first_devt, 0, DMA_HEAP_MAX_MINORS,
				  DMA_HEAP_DEVNAME);
	if (ret)
		return ret;

	dma_heap_class = class_create(DMA_HEAP_DEVNAME);
	if (IS_ERR(dma_heap_class)) {
		unregister_chrdev_region(dma_heap_first_devt,
					 DMA_HEAP_MAX_MINORS);
		return PTR_ERR(dma_heap_class);
	}
	dma_heap_class->devnode = dma_heap_devnode;
	return 0;
}
subsys_initcall(dma_heap_init);
