// SPDX-License-Identifier: GPL-2.0-only
/*
 * VFIO groups: /dev/vfio/$N, one per IOMMU group with a device bound to a
 * VFIO driver, and the device fds handed out through them.  dmasim's own
 * code, written from the contract of the kernel's drivers/vfio/group.c
 * (Linux 6.12) as shared/kernel-notes/vfio-container-group.md states it:
 *
 *  - one opener at a time (-EBUSY);
 *  - VFIO_GROUP_GET_STATUS: argsz >= 8 (-EINVAL); CONTAINER_SET | VIABLE
 *    once in a container, else VIABLE iff no kernel driver owns the
 *    group's DMA;
 *  - VFIO_GROUP_SET_CONTAINER: -EINVAL if set already, -EBADF for a bad
 *    fd, -EBADFD for a file that is not a container, then the container's
 *    attach (-EPERM for a group that is not viable);
 *  - VFIO_GROUP_UNSET_CONTAINER: -EINVAL without one, -EBUSY while a
 *    device fd is open;
 *  - VFIO_GROUP_GET_DEVICE_FD: the device of that name (-ENODEV), only
 *    with a container that has a backend (-EINVAL); the first open of a
 *    device holds the container and calls the driver's open_device;
 *  - unknown commands -ENOTTY; closing the group leaves the container.
 *
 * Devices join with vfio_register_group_dev().  Not here: noiommu and
 * emulated groups, the device cdev and iommufd paths, KVM, vf_token.
 */
#include <linux/anon_inodes.h>
#include <linux/bitmap.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include "vfio.h"
#include "vfio_group.h"

#define VFIO_GROUP_MINORS	1024

static struct {
	struct class *class;
	dev_t devt;
	struct mutex group_lock;	/* group_list, minors */
	struct list_head group_list;
	DECLARE_BITMAP(minors, VFIO_GROUP_MINORS);
} vfio = {
	.group_lock = __MUTEX_INITIALIZER(vfio.group_lock),
	.group_list = LIST_HEAD_INIT(vfio.group_list),
};

/* ---- device fds ---- */

/*
 * A device fd goes: the last one closes the driver and lets the container
 * go.  Returns the group file to fput() once group_lock is dropped, or
 * NULL.
 */
static struct file *vfio_df_group_close(struct vfio_device *device)
{
	lockdep_assert_held(&device->group->group_lock);

	if (--device->open_count)
		return NULL;
	if (device->ops->close_device)
		device->ops->close_device(device);
	vfio_device_container_unregister(device);
	return vfio_group_unuse_container(device->group);
}

static int vfio_device_fops_release(struct inode *inode, struct file *filep)
{
	struct vfio_device *device = filep->private_data;
	struct vfio_group *group = device->group;
	struct file *group_file;

	mutex_lock(&group->group_lock);
	group_file = vfio_df_group_close(device);
	mutex_unlock(&group->group_lock);
	if (group_file)
		fput(group_file);
	return 0;
}

static long vfio_device_fops_unl_ioctl(struct file *filep, unsigned int cmd,
				       unsigned long arg)
{
	struct vfio_device *device = filep->private_data;

	if (unlikely(!device->ops->ioctl))
		return -EINVAL;
	return device->ops->ioctl(device, cmd, arg);
}

static int vfio_device_fops_mmap(struct file *filep, struct vm_area_struct *vma)
{
	struct vfio_device *device = filep->private_data;

	if (unlikely(!device->ops->mmap))
		return -EINVAL;
	return device->ops->mmap(device, vma);
}

static const struct file_operations vfio_device_fops = {
	.owner		= THIS_MODULE,
	.release	= vfio_device_fops_release,
	.unlocked_ioctl	= vfio_device_fops_unl_ioctl,
	.mmap		= vfio_device_fops_mmap,
};

/* The first open of a device holds the container and opens the driver. */
static int vfio_df_group_open(struct vfio_device *device)
{
	struct vfio_group *group = device->group;
	int ret;

	lockdep_assert_held(&group->group_lock);

	if (!group->container)
		return -EINVAL;
	if (device->open_count) {
		device->open_count++;
		return 0;
	}
	ret = vfio_group_use_container(group);
	if (ret)
		return ret;
	vfio_device_container_register(device);
	if (device->ops->open_device) {
		ret = device->ops->open_device(device);
		if (ret) {
			vfio_device_container_unregister(device);
			/* Not the last reference: the group fd holds one. */
			fput(vfio_group_unuse_container(group));
			return ret;
		}
	}
	device->open_count = 1;
	return 0;
}

static struct vfio_device *vfio_group_find_device(struct vfio_group *group,
						  const char *buf)
{
	struct vfio_device *device;

	list_for_each_entry(device, &group->device_list, group_next)
		if (!strcmp(dev_name(device->dev), buf))
			return device;
	return NULL;
}

static int vfio_group_ioctl_get_device_fd(struct vfio_group *group,
					  char __user *arg)
{
	struct vfio_device *device;
	struct file *group_file = NULL;
	struct file *filep;
	char *buf;
	int fdno, ret;

	buf = strndup_user(arg, PAGE_SIZE);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	mutex_lock(&group->group_lock);
	device = vfio_group_find_device(group, buf);
	kfree(buf);
	if (!device) {
		ret = -ENODEV;
		goto out_unlock;
	}

	fdno = get_unused_fd_flags(O_CLOEXEC);
	if (fdno < 0) {
		ret = fdno;
		goto out_unlock;
	}
	ret = vfio_df_group_open(device);
	if (ret)
		goto err_put_fdno;

	filep = anon_inode_getfile("[vfio-device]", &vfio_device_fops, device,
				   O_RDWR);
	if (IS_ERR(filep)) {
		ret = PTR_ERR(filep);
		goto err_close;
	}
	filep->f_mode |= (FMODE_PREAD | FMODE_PWRITE);
	mutex_unlock(&group->group_lock);
	fd_install(fdno, filep);
	return fdno;

err_close:
	group_file = vfio_df_group_close(device);
err_put_fdno:
	put_unused_fd(fdno);
out_unlock:
	mutex_unlock(&group->group_lock);
	if (group_file)
		fput(group_file);
	return ret;
}

static int vfio_group_ioctl_get_status(struct vfio_group *group,
				       struct vfio_group_status __user *arg)
{
	unsigned long minsz = offsetofend(struct vfio_group_status, flags);
	struct vfio_group_status status;

	if (copy_from_user(&status, arg, minsz))
		return -EFAULT;
	if (status.argsz < minsz)
		return -EINVAL;

	status.flags = 0;
	mutex_lock(&group->group_lock);
	if (group->container)
		status.flags |= VFIO_GROUP_FLAGS_CONTAINER_SET |
				VFIO_GROUP_FLAGS_VIABLE;
	else if (!iommu_group_dma_owner_claimed(group->iommu_group))
		status.flags |= VFIO_GROUP_FLAGS_VIABLE;
	mutex_unlock(&group->group_lock);

	if (copy_to_user(arg, &status, minsz))
		return -EFAULT;
	return 0;
}

static int vfio_group_ioctl_set_container(struct vfio_group *group,
					  int __user *arg)
{
	struct vfio_container *container;
	struct file *file;
	int ret, fd;

	if (get_user(fd, arg))
		return -EFAULT;
	if (fd < 0)
		return -EBADF;
	file = fget(fd);
	if (!file)
		return -EBADF;

	mutex_lock(&group->group_lock);
	if (group->container) {
		ret = -EINVAL;
		goto out_unlock;
	}
	container = vfio_container_from_file(file);
	if (container)
		ret = vfio_container_attach_group(container, group);
	else
		ret = -EBADFD;
out_unlock:
	mutex_unlock(&group->group_lock);
	fput(file);
	return ret;
}

static int vfio_group_ioctl_unset_container(struct vfio_group *group)
{
	int ret = 0;

	mutex_lock(&group->group_lock);
	if (!group->container)
		ret = -EINVAL;
	else if (group->container_users != 1)
		ret = -EBUSY;
	else
		vfio_group_detach_container(group);
	mutex_unlock(&group->group_lock);
	return ret;
}

static long vfio_group_fops_unl_ioctl(struct file *filep, unsigned int cmd,
				      unsigned long arg)
{
	struct vfio_group *group = filep->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case VFIO_GROUP_GET_DEVICE_FD:
		return vfio_group_ioctl_get_device_fd(group, uarg);
	case VFIO_GROUP_GET_STATUS:
		return vfio_group_ioctl_get_status(group, uarg);
	case VFIO_GROUP_SET_CONTAINER:
		return vfio_group_ioctl_set_container(group, uarg);
	case VFIO_GROUP_UNSET_CONTAINER:
		return vfio_group_ioctl_unset_container(group);
	default:
		return -ENOTTY;
	}
}

static int vfio_group_fops_open(struct inode *inode, struct file *filep)
{
	struct vfio_group *group = container_of(inode->i_cdev,
						struct vfio_group, cdev);
	int ret = 0;

	mutex_lock(&group->group_lock);
	if (list_empty(&group->device_list))
		ret = -ENODEV;
	else if (group->opened_file)
		ret = -EBUSY;
	else {
		group->opened_file = filep;
		filep->private_data = group;
	}
	mutex_unlock(&group->group_lock);
	return ret;
}

static int vfio_group_fops_release(struct inode *inode, struct file *filep)
{
	struct vfio_group *group = filep->private_data;

	filep->private_data = NULL;
	mutex_lock(&group->group_lock);
	/* Device fds hold this file: none is open when it is released. */
	WARN_ON(group->container_users > 1);
	if (group->container)
		vfio_group_detach_container(group);
	group->opened_file = NULL;
	mutex_unlock(&group->group_lock);
	return 0;
}

static const struct file_operations vfio_group_fops = {
	.owner		= THIS_MODULE,
	.open		= vfio_group_fops_open,
	.release	= vfio_group_fops_release,
	.unlocked_ioctl	= vfio_group_fops_unl_ioctl,
};

/* ---- groups and their devices ---- */

static struct vfio_group *vfio_group_find(struct iommu_group *iommu_group)
{
	struct vfio_group *group;

	lockdep_assert_held(&vfio.group_lock);
	list_for_each_entry(group, &vfio.group_list, vfio_next)
		if (group->iommu_group == iommu_group)
			return group;
	return NULL;
}

static struct vfio_group *vfio_group_create(struct iommu_group *iommu_group)
{
	struct vfio_group *group;
	unsigned long minor;
	int ret;

	lockdep_assert_held(&vfio.group_lock);

	minor = find_first_zero_bit(vfio.minors, VFIO_GROUP_MINORS);
	if (minor >= VFIO_GROUP_MINORS)
		return ERR_PTR(-ENOSPC);
	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);
	mutex_init(&group->group_lock);
	INIT_LIST_HEAD(&group->device_list);
	group->iommu_group = iommu_group_ref_get(iommu_group);
	group->type = VFIO_IOMMU;
	group->devt = MKDEV(MAJOR(vfio.devt), minor);

	cdev_init(&group->cdev, &vfio_group_fops);
	ret = cdev_add(&group->cdev, group->devt, 1);
	if (ret)
		goto err_free;
	group->dev = device_create(vfio.class, NULL, group->devt, group, "%d",
				   iommu_group_id(iommu_group));
	if (IS_ERR(group->dev)) {
		ret = PTR_ERR(group->dev);
		goto err_cdev;
	}
	__set_bit(minor, vfio.minors);
	list_add(&group->vfio_next, &vfio.group_list);
	return group;

err_cdev:
	cdev_del(&group->cdev);
err_free:
	iommu_group_put(group->iommu_group);
	kfree(group);
	return ERR_PTR(ret);
}

static void vfio_group_destroy(struct vfio_group *group)
{
	lockdep_assert_held(&vfio.group_lock);

	list_del(&group->vfio_next);
	device_destroy(vfio.class, group->devt);
	cdev_del(&group->cdev);
	__clear_bit(MINOR(group->devt), vfio.minors);
	iommu_group_put(group->iommu_group);
	kfree(group);
}

int vfio_register_group_dev(struct vfio_device *device)
{
	struct iommu_group *iommu_group;
	struct vfio_group *group;
	int ret = 0;

	if (!device->dev)
		return -EINVAL;
	iommu_group = iommu_group_get(device->dev);
	if (!iommu_group)
		return -EINVAL;
	if (device->group) {
		iommu_group_put(iommu_group);
		return -EBUSY;
	}

	mutex_lock(&vfio.group_lock);
	group = vfio_group_find(iommu_group);
	if (!group)
		group = vfio_group_create(iommu_group);
	if (IS_ERR(group)) {
		ret = PTR_ERR(group);
		goto out_unlock;
	}
	mutex_lock(&group->group_lock);
	device->group = group;
	device->open_count = 0;
	list_add_tail(&device->group_next, &group->device_list);
	mutex_unlock(&group->group_lock);
out_unlock:
	mutex_unlock(&vfio.group_lock);
	iommu_group_put(iommu_group);
	return ret;
}
EXPORT_SYMBOL_GPL(vfio_register_group_dev);

/*
 * The kernel waits here until the device's fds are closed; callers of
 * this one close them first (a device still open is a WARN, and stays).
 */
void vfio_unregister_group_dev(struct vfio_device *device)
{
	struct vfio_group *group = device->group;

	if (WARN_ON(!group || device->open_count))
		return;
	mutex_lock(&vfio.group_lock);
	mutex_lock(&group->group_lock);
	list_del(&device->group_next);
	device->group = NULL;
	mutex_unlock(&group->group_lock);
	if (list_empty(&group->device_list) &&
	    !WARN_ON(group->opened_file))
		vfio_group_destroy(group);
	mutex_unlock(&vfio.group_lock);
}
EXPORT_SYMBOL_GPL(vfio_unregister_group_dev);

static char *vfio_group_devnode(const struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "vfio/%s", dev_name(dev));
}

static int __init vfio_group_init(void)
{
	int ret;

	ret = vfio_container_init();
	if (ret)
		return ret;
	vfio.class = class_create("vfio");
	if (IS_ERR(vfio.class)) {
		ret = PTR_ERR(vfio.class);
		goto err_container;
	}
	vfio.class->devnode = vfio_group_devnode;
	ret = alloc_chrdev_region(&vfio.devt, 0, VFIO_GROUP_MINORS, "vfio");
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_destroy(vfio.class);
	vfio.class = NULL;
err_container:
	vfio_container_cleanup();
	return ret;
}

static void __exit vfio_group_exit(void)
{
	WARN_ON(!list_empty(&vfio.group_list));
	unregister_chrdev_region(vfio.devt, VFIO_GROUP_MINORS);
	class_destroy(vfio.class);
	vfio.class = NULL;
	vfio_container_cleanup();
}

module_init(vfio_group_init);
module_exit(vfio_group_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("VFIO groups and containers (dmasim)");
