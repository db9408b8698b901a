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
 *  - unknown commands -ENOTTY; closing the group leaves the container;
 *  - a device unregistered while fds of it are open: it leaves the group's
 *    list at once (GET_DEVICE_FD -ENODEV), then the unregistering task
 *    waits until the last of them is closed, asking the driver to have
 *    the user let go (its request callback) first and after every ten
 *    seconds without;
 *  - the last device unregistered with the group still open: the group
 *    leaves its container, its node goes (no new open), GET_STATUS and
 *    SET_CONTAINER answer -ENODEV, and the close frees it.
 *
 * Devices join with vfio_register_group_dev().  Not here: noiommu and
 * emulated groups, the device cdev and iommufd paths, KVM, vf_token; the
 * kernel's wait for the fds is interruptible until a signal comes, then
 * warns and waits on: no signal reaches a task here, so it waits
 * uninterruptibly from the start.
 */
#include <linux/anon_inodes.h>
#include <linux/bitmap.h>
#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/iommu.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include "vfio.h"
#include "vfio_group.h"

#define VFIO_GROUP_MINORS	1024

/* Every VFIO group, and the char device region their nodes live in. */
static struct {
	struct class *class;
	dev_t devt;
	struct mutex lock;	/* list */
	struct list_head list;	/* struct vfio_group.vfio_next */
	/* A group's minor is its own until its release, as an IDA's. */
	struct mutex minor_lock;
	DECLARE_BITMAP(minors, VFIO_GROUP_MINORS);
} vfio_groups = {
	.lock = __MUTEX_INITIALIZER(vfio_groups.lock),
	.list = LIST_HEAD_INIT(vfio_groups.list),
	.minor_lock = __MUTEX_INITIALIZER(vfio_groups.minor_lock),
};

/* ---- a device's opens ---- */

/* Registration references: the driver's, and one per device fd. */
static bool vfio_device_try_get_registration(struct vfio_device *device)
{
	return refcount_inc_not_zero(&device->refcount);
}

static void vfio_device_put_registration(struct vfio_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->comp);
}

/* Drop a group file reference vfio_device_last_close() handed back. */
static void vfio_group_file_put(struct file *group_file)
{
	if (group_file)
		fput(group_file);
}

/*
 * One more fd of the device: the first needs a container with a backend,
 * and opens the driver.  Called with the group's group_lock held.
 */
static int vfio_device_first_open(struct vfio_device *device)
{
	struct vfio_group *group = device->group;
	int err;

	lockdep_assert_held(&group->group_lock);

	if (!group->container)
		return -EINVAL;
	if (device->open_count++)
		return 0;
	err = vfio_container_open_device(device);
	if (err)
		goto not_open;
	if (device->ops->open_device) {
		err = device->ops->open_device(device);
		if (err) {
			/* The ioctl's caller holds the group file: not its last. */
			fput(vfio_container_close_device(device));
			goto not_open;
		}
	}
	return 0;

not_open:
	device->open_count = 0;
	return err;
}

/*
 * One fd of the device less: after the last, the driver closes and the
 * container is let go.  Returns the group file to put once group_lock is
 * dropped (vfio_container_close_device()), or NULL.
 */
static struct file *vfio_device_last_close(struct vfio_device *device)
{
	lockdep_assert_held(&device->group->group_lock);

	if (--device->open_count)
		return NULL;
	if (device->ops->close_device)
		device->ops->close_device(device);
	return vfio_container_close_device(device);
}

/* ---- device fds ---- */

static int vfio_device_fops_release(struct inode *inode, struct file *file)
{
	struct vfio_device *device = file->private_data;
	struct mutex *group_lock = &device->group->group_lock;
	struct file *group_file;

	mutex_lock(group_lock);
	group_file = vfio_device_last_close(device);
	mutex_unlock(group_lock);
	/* It may be the group file's last reference, whose release locks. */
	vfio_group_file_put(group_file);
	/* Last: an unregister waiting for it may free the device. */
	vfio_device_put_registration(device);
	return 0;
}

/* The core's commands and the driver's: vfio_main.c. */
static long vfio_device_fops_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	return vfio_device_ioctl(file->private_data, cmd, arg);
}

static int vfio_device_fops_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vfio_device *device = file->private_data;
	const struct vfio_device_ops *ops = device->ops;

	return ops->mmap ? ops->mmap(device, vma) : -EINVAL;
}

static const struct file_operations vfio_device_fops = {
	.owner		= THIS_MODULE,
	.mmap		= vfio_device_fops_mmap,
	.unlocked_ioctl	= vfio_device_fops_ioctl,
	.release	= vfio_device_fops_release,
};

/* The file of a new fd of the device, which it opens; group_lock held. */
static struct file *vfio_device_new_file(struct vfio_device *device)
{
	struct file *file;
	int err;

	err = vfio_device_first_open(device);
	if (err)
		return ERR_PTR(err);
	file = anon_inode_getfile("[vfio-device]", &vfio_device_fops, device,
				  O_RDWR);
	if (IS_ERR(file)) {
		/* As above: the group file is the ioctl caller's too. */
		vfio_group_file_put(vfio_device_last_close(device));
		return file;
	}
	/* Regions are read and written at offsets: pread and pwrite. */
	file->f_mode |= FMODE_PREAD | FMODE_PWRITE;
	return file;
}

static struct vfio_device *vfio_group_device_named(struct vfio_group *group,
						   const char *name)
{
	struct vfio_device *device;

	lockdep_assert_held(&group->group_lock);
	list_for_each_entry(device, &group->device_list, group_next)
		if (strcmp(dev_name(device->dev), name) == 0 &&
		    vfio_device_try_get_registration(device))
			return device;
	return NULL;
}

/* VFIO_GROUP_GET_DEVICE_FD: the name, then a free fd, then the open. */
static int vfio_group_get_device_fd(struct vfio_group *group,
				    char __user *uname)
{
	struct vfio_device *device;
	struct file *file = NULL;
	char *name;
	int fd;

	name = strndup_user(uname, PAGE_SIZE);
	if (IS_ERR(name))
		return PTR_ERR(name);

	mutex_lock(&group->group_lock);
	device = vfio_group_device_named(group, name);
	fd = device ? get_unused_fd_flags(O_CLOEXEC) : -ENODEV;
	if (fd >= 0) {
		file = vfio_device_new_file(device);
		if (IS_ERR(file)) {
			put_unused_fd(fd);
			fd = PTR_ERR(file);
		}
	}
	mutex_unlock(&group->group_lock);
	kfree(name);
	/* No fd holds the registration the lookup took. */
	if (device && fd < 0)
		vfio_device_put_registration(device);

	if (fd >= 0)
		fd_install(fd, file);
	return fd;
}

/* ---- the group's ioctls ---- */

static u32 vfio_group_flags(struct vfio_group *group)
{
	lockdep_assert_held(&group->group_lock);

	if (group->container)
		return VFIO_GROUP_FLAGS_VIABLE | VFIO_GROUP_FLAGS_CONTAINER_SET;
	/* Viable while no kernel driver owns the group's DMA. */
	if (iommu_group_dma_owner_claimed(group->iommu_group))
		return 0;
	return VFIO_GROUP_FLAGS_VIABLE;
}

static int vfio_group_get_status(struct vfio_group *group,
				 struct vfio_group_status __user *ustatus)
{
	const size_t minsz = offsetofend(struct vfio_group_status, flags);
	struct vfio_group_status status;

	if (copy_from_user(&status, ustatus, minsz))
		return -EFAULT;
	if (status.argsz < minsz)
		return -EINVAL;
	mutex_lock(&group->group_lock);
	/* Its last device went while the group stayed open. */
	if (!group->iommu_group) {
		mutex_unlock(&group->group_lock);
		return -ENODEV;
	}
	status.flags = vfio_group_flags(group);
	mutex_unlock(&group->group_lock);
	return copy_to_user(ustatus, &status, minsz) ? -EFAULT : 0;
}

static int vfio_group_join(struct vfio_group *group, int __user *ufd)
{
	struct vfio_container *container;
	struct file *file;
	int fd, err;

	if (get_user(fd, ufd))
		return -EFAULT;
	file = fd >= 0 ? fget(fd) : NULL;
	if (!file)
		return -EBADF;
	container = vfio_container_from_file(file);

	mutex_lock(&group->group_lock);
	if (group->container)
		err = -EINVAL;
	else if (!group->iommu_group)
		err = -ENODEV;
	else if (!container)
		err = -EBADFD;
	else
		err = vfio_container_attach_group(container, group);
	mutex_unlock(&group->group_lock);

	fput(file);
	return err;
}

static int vfio_group_leave(struct vfio_group *group)
{
	int err = -EINVAL;

	mutex_lock(&group->group_lock);
	if (group->container) {
		/* Each open device is a user besides the group itself. */
		err = group->container_users > 1 ? -EBUSY : 0;
		if (!err)
			vfio_group_detach_container(group);
	}
	mutex_unlock(&group->group_lock);
	return err;
}

static long vfio_group_fops_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	struct vfio_group *group = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case VFIO_GROUP_GET_STATUS:
		return vfio_group_get_status(group, uarg);
	case VFIO_GROUP_SET_CONTAINER:
		return vfio_group_join(group, uarg);
	case VFIO_GROUP_UNSET_CONTAINER:
		return vfio_group_leave(group);
	case VFIO_GROUP_GET_DEVICE_FD:
		return vfio_group_get_device_fd(group, uarg);
	}
	return -ENOTTY;
}

/* One open at a time, and only while the group has a device. */
static int vfio_group_fops_open(struct inode *inode, struct file *file)
{
	struct vfio_group *group = container_of(inode->i_cdev,
						struct vfio_group, cdev);
	int err = 0;

	mutex_lock(&group->group_lock);
	/* Its last device went between the node's lookup and here. */
	if (!group->iommu_group)
		err = -ENODEV;
	else if (group->opened_file)
		err = -EBUSY;
	else
		group->opened_file = file;
	mutex_unlock(&group->group_lock);

	if (!err)
		file->private_data = group;
	return err;
}

/*
 * Device fds hold this file: by its release they are all closed.  The
 * file holds the cdev, and so the group, until after this.
 */
static int vfio_group_fops_release(struct inode *inode, struct file *file)
{
	struct vfio_group *group = file->private_data;

	mutex_lock(&group->group_lock);
	group->opened_file = NULL;
	/* A group closed in its container leaves it, as UNSET_CONTAINER. */
	if (group->container)
		vfio_group_detach_container(group);
	mutex_unlock(&group->group_lock);
	return 0;
}

/* The node's file: /dev/vfio/$N. */
static const struct file_operations vfio_group_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vfio_group_fops_ioctl,
	.release	= vfio_group_fops_release,
	.open		= vfio_group_fops_open,
};

/* ---- groups and their devices ---- */

static struct vfio_group *vfio_group_of(struct iommu_group *iommu_group)
{
	struct vfio_group *group;

	lockdep_assert_held(&vfio_groups.lock);
	list_for_each_entry(group, &vfio_groups.list, vfio_next)
		if (group->iommu_group == iommu_group)
			return group;
	return NULL;
}

/* The first free minor, taken, or -ENOSPC: as ida_alloc_max(). */
static int vfio_group_minor_get(void)
{
	int minor;

	mutex_lock(&vfio_groups.minor_lock);
	minor = find_first_zero_bit(vfio_groups.minors, VFIO_GROUP_MINORS);
	if (minor == VFIO_GROUP_MINORS)
		minor = -ENOSPC;
	else
		__set_bit(minor, vfio_groups.minors);
	mutex_unlock(&vfio_groups.minor_lock);
	return minor;
}

static void vfio_group_minor_put(int minor)
{
	mutex_lock(&vfio_groups.minor_lock);
	__clear_bit(minor, vfio_groups.minors);
	mutex_unlock(&vfio_groups.minor_lock);
}

/*
 * The group's last reference went: its devices' (vfio_group_remove()),
 * and its cdev's, which every open of the node and every file of it
 * holds.  Its minor is free again.
 */
static void vfio_group_release(struct device *dev)
{
	struct vfio_group *group = container_of(dev, struct vfio_group, dev);

	vfio_group_minor_put(MINOR(group->dev.devt));
	mutex_destroy(&group->group_lock);
	kfree(group);
}

/* A new group and its node, for the first device of iommu_group. */
static struct vfio_group *vfio_group_create(struct iommu_group *iommu_group)
{
	struct vfio_group *group;
	int minor, err;

	lockdep_assert_held(&vfio_groups.lock);

	minor = vfio_group_minor_get();
	if (minor < 0)
		return ERR_PTR(minor);
	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group) {
		vfio_group_minor_put(minor);
		return ERR_PTR(-ENOMEM);
	}
	device_initialize(&group->dev);
	group->dev.devt = MKDEV(MAJOR(vfio_groups.devt), minor);
	group->dev.class = vfio_groups.class;
	group->dev.release = vfio_group_release;
	cdev_init(&group->cdev, &vfio_group_fops);
	group->type = VFIO_IOMMU;
	group->iommu_group = iommu_group_ref_get(iommu_group);
	INIT_LIST_HEAD(&group->device_list);
	mutex_init(&group->group_lock);

	err = dev_set_name(&group->dev, "%d", iommu_group_id(iommu_group));
	if (!err)
		err = cdev_device_add(&group->cdev, &group->dev);
	if (err) {
		iommu_group_put(iommu_group);
		put_device(&group->dev);
		return ERR_PTR(err);
	}
	list_add(&group->vfio_next, &vfio_groups.list);
	return group;
}

/*
 * The group's last device went: no new lookup or open finds the group,
 * it leaves its container (the backend goes with the last group) and
 * lets its IOMMU group go, so an fd still open gets -ENODEV.  Then the
 * devices' reference goes: an fd still open, or an open that found the
 * cdev, keeps the group's memory until it lets go.
 */
static void vfio_group_remove(struct vfio_group *group)
{
	struct iommu_group *iommu_group;

	lockdep_assert_held(&vfio_groups.lock);

	list_del(&group->vfio_next);
	cdev_device_del(&group->cdev, &group->dev);

	mutex_lock(&group->group_lock);
	iommu_group = group->iommu_group;
	if (group->container)
		vfio_group_detach_container(group);
	/* What tells an fd still open that the group is gone. */
	group->iommu_group = NULL;
	mutex_unlock(&group->group_lock);

	iommu_group_put(iommu_group);
	put_device(&group->dev);
}

int vfio_register_group_dev(struct vfio_device *device)
{
	struct iommu_group *iommu_group;
	struct vfio_group *group;
	int err = 0;

	iommu_group = device->dev ? iommu_group_get(device->dev) : NULL;
	if (!iommu_group)
		return -EINVAL;
	if (device->group) {
		err = -EBUSY;
		goto put_iommu_group;
	}

	mutex_lock(&vfio_groups.lock);
	group = vfio_group_of(iommu_group) ?: vfio_group_create(iommu_group);
	if (IS_ERR(group)) {
		err = PTR_ERR(group);
	} else {
		mutex_lock(&group->group_lock);
		list_add_tail(&device->group_next, &group->device_list);
		device->open_count = 0;
		refcount_set(&device->refcount, 1);
		init_completion(&device->comp);
		device->group = group;
		mutex_unlock(&group->group_lock);
	}
	mutex_unlock(&vfio_groups.lock);

put_iommu_group:
	iommu_group_put(iommu_group);
	return err;
}
EXPORT_SYMBOL_GPL(vfio_register_group_dev);

/*
 * Wait until no fd holds the device; each round without, ask the driver
 * (vfio-pci signals the user's request eventfd) and wait ten seconds.
 */
static void vfio_device_wait_for_fds(struct vfio_device *device)
{
	unsigned int asked = 0;

	if (try_wait_for_completion(&device->comp))
		return;
	do {
		if (device->ops->request)
			device->ops->request(device, asked++);
	} while (!wait_for_completion_timeout(&device->comp, 10 * HZ));
}

/*
 * The device leaves its group's list (no new fd), the driver's
 * registration goes, and the task waits for the fds still open; then
 * the group lets it go, and the last device takes the group.
 */
void vfio_unregister_group_dev(struct vfio_device *device)
{
	struct vfio_group *group = device->group;
	bool last;

	if (WARN_ON(!group))
		return;

	mutex_lock(&group->group_lock);
	list_del(&device->group_next);
	mutex_unlock(&group->group_lock);
	vfio_device_put_registration(device);
	vfio_device_wait_for_fds(device);

	mutex_lock(&vfio_groups.lock);
	mutex_lock(&group->group_lock);
	device->group = NULL;
	last = list_empty(&group->device_list);
	mutex_unlock(&group->group_lock);
	if (last)
		vfio_group_remove(group);
	mutex_unlock(&vfio_groups.lock);
}
EXPORT_SYMBOL_GPL(vfio_unregister_group_dev);

static char *vfio_group_devnode(const struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "vfio/%s", dev_name(dev));
}

/* Undo vfio_group_init() from the class on; the region goes apart. */
static void vfio_group_teardown(void)
{
	class_destroy(vfio_groups.class);
	vfio_groups.class = NULL;
	vfio_container_cleanup();
}

static int __init vfio_group_init(void)
{
	struct class *class;
	int err;

	err = vfio_container_init();
	if (err)
		return err;
	class = class_create("vfio");
	if (IS_ERR(class)) {
		vfio_container_cleanup();
		return PTR_ERR(class);
	}
	class->devnode = vfio_group_devnode;
	vfio_groups.class = class;
	err = alloc_chrdev_region(&vfio_groups.devt, 0, VFIO_GROUP_MINORS,
				  "vfio");
	if (err)
		vfio_group_teardown();
	return err;
}

static void __exit vfio_group_exit(void)
{
	WARN_ON(!list_empty(&vfio_groups.list));
	unregister_chrdev_region(vfio_groups.devt, VFIO_GROUP_MINORS);
	vfio_group_teardown();
}

module_init(vfio_group_init);
module_exit(vfio_group_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("VFIO groups and containers (dmasim)");
