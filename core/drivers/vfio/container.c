// SPDX-License-Identifier: GPL-2.0-only
/*
 * VFIO containers: /dev/vfio/vfio, the object a VMM gathers its groups in
 * and picks an IOMMU backend for.  dmasim's own code, written from the
 * contract of the kernel's drivers/vfio/container.c (Linux 6.12) as
 * shared/kernel-notes/vfio-container-group.md states it:
 *
 *  - every open of the node is a new, empty container;
 *  - VFIO_GET_API_VERSION is VFIO_API_VERSION; VFIO_CHECK_EXTENSION asks
 *    the container's backend, or with none set each registered backend in
 *    turn (the first positive answer wins);
 *  - VFIO_SET_IOMMU needs a group in the container and no backend yet
 *    (-EINVAL otherwise); it tries each backend that claims the type:
 *    open(type), then attach_group for every group, unwinding on error;
 *    the last error, or -ENODEV if no backend claims the type;
 *  - any other command goes to the backend's ioctl, -EINVAL without one;
 *  - the backend is released when its last group leaves, not when the fd
 *    closes: groups hold the container.
 *
 * The kernel registers the node as a misc device; here it is a character
 * device of its own class, named "vfio/vfio" as devtmpfs names the misc
 * one.  No noiommu containers and no iommufd compatibility.
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/iommu.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/vfio.h>
#include "vfio.h"
#include "vfio_group.h"

struct vfio_iommu_driver {
	const struct vfio_iommu_driver_ops *ops;
	struct list_head vfio_next;
};

struct vfio_container {
	struct kref kref;
	struct list_head group_list;
	struct rw_semaphore group_lock;	/* group_list and the backend */
	struct vfio_iommu_driver *iommu_driver;
	void *iommu_data;
};

static struct {
	struct list_head iommu_drivers_list;
	struct mutex iommu_drivers_lock;
	struct class *class;
	struct cdev cdev;
	dev_t devt;
	struct device *dev;
} vfio = {
	.iommu_drivers_list = LIST_HEAD_INIT(vfio.iommu_drivers_list),
	.iommu_drivers_lock = __MUTEX_INITIALIZER(vfio.iommu_drivers_lock),
};

int vfio_register_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_iommu_driver *driver, *tmp;

	if (WARN_ON(!ops->register_device != !ops->unregister_device))
		return -EINVAL;

	driver = kzalloc(sizeof(*driver), GFP_KERNEL);
	if (!driver)
		return -ENOMEM;
	driver->ops = ops;

	mutex_lock(&vfio.iommu_drivers_lock);
	list_for_each_entry(tmp, &vfio.iommu_drivers_list, vfio_next) {
		if (tmp->ops == ops) {
			mutex_unlock(&vfio.iommu_drivers_lock);
			kfree(driver);
			return -EINVAL;
		}
	}
	list_add(&driver->vfio_next, &vfio.iommu_drivers_list);
	mutex_unlock(&vfio.iommu_drivers_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(vfio_register_iommu_driver);

void vfio_unregister_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_iommu_driver *driver;

	mutex_lock(&vfio.iommu_drivers_lock);
	list_for_each_entry(driver, &vfio.iommu_drivers_list, vfio_next) {
		if (driver->ops == ops) {
			list_del(&driver->vfio_next);
			mutex_unlock(&vfio.iommu_drivers_lock);
			kfree(driver);
			return;
		}
	}
	mutex_unlock(&vfio.iommu_drivers_lock);
}
EXPORT_SYMBOL_GPL(vfio_unregister_iommu_driver);

/*
 * dmasim: the backend a test opens a bare container on (kapi/kapi_vfio.c's
 * doors drive a backend without groups); NULL before one registers.
 */
const struct vfio_iommu_driver_ops *vfio_shim_first_backend(void)
{
	const struct vfio_iommu_driver_ops *ops = NULL;

	mutex_lock(&vfio.iommu_drivers_lock);
	if (!list_empty(&vfio.iommu_drivers_list))
		ops = list_first_entry(&vfio.iommu_drivers_list,
				       struct vfio_iommu_driver,
				       vfio_next)->ops;
	mutex_unlock(&vfio.iommu_drivers_lock);
	return ops;
}

static void vfio_container_release_kref(struct kref *kref)
{
	struct vfio_container *container;

	container = container_of(kref, struct vfio_container, kref);
	kfree(container);
}

static void vfio_container_get(struct vfio_container *container)
{
	kref_get(&container->kref);
}

static void vfio_container_put(struct vfio_container *container)
{
	kref_put(&container->kref, vfio_container_release_kref);
}

/* Called with no backend set: the first backend that says yes. */
static long vfio_container_check_extension_any(unsigned long arg)
{
	struct vfio_iommu_driver *driver;
	long ret = 0;

	mutex_lock(&vfio.iommu_drivers_lock);
	list_for_each_entry(driver, &vfio.iommu_drivers_list, vfio_next) {
		if (!try_module_get(driver->ops->owner))
			continue;
		ret = driver->ops->ioctl(NULL, VFIO_CHECK_EXTENSION, arg);
		module_put(driver->ops->owner);
		if (ret > 0)
			break;
	}
	mutex_unlock(&vfio.iommu_drivers_lock);
	return ret > 0 ? ret : 0;
}

static long vfio_container_ioctl_check_extension(struct vfio_container *container,
						 unsigned long arg)
{
	struct vfio_iommu_driver *driver;
	long ret;

	down_read(&container->group_lock);
	driver = container->iommu_driver;
	if (driver)
		ret = driver->ops->ioctl(container->iommu_data,
					 VFIO_CHECK_EXTENSION, arg);
	else
		ret = vfio_container_check_extension_any(arg);
	up_read(&container->group_lock);
	return ret;
}

/* Attach every group of the container to a new backend, or none of them. */
static int vfio_container_attach_groups(struct vfio_container *container,
					struct vfio_iommu_driver *driver,
					void *data)
{
	struct vfio_group *group;
	int ret;

	list_for_each_entry(group, &container->group_list, container_next) {
		ret = driver->ops->attach_group(data, group->iommu_group,
						group->type);
		if (ret)
			goto unwind;
	}
	return 0;

unwind:
	list_for_each_entry_continue_reverse(group, &container->group_list,
					     container_next)
		driver->ops->detach_group(data, group->iommu_group);
	return ret;
}

static long vfio_ioctl_set_iommu(struct vfio_container *container,
				 unsigned long arg)
{
	struct vfio_iommu_driver *driver;
	long ret = -ENODEV;

	down_write(&container->group_lock);
	if (list_empty(&container->group_list) || container->iommu_driver) {
		up_write(&container->group_lock);
		return -EINVAL;
	}

	mutex_lock(&vfio.iommu_drivers_lock);
	list_for_each_entry(driver, &vfio.iommu_drivers_list, vfio_next) {
		void *data;

		if (!try_module_get(driver->ops->owner))
			continue;
		if (driver->ops->ioctl(NULL, VFIO_CHECK_EXTENSION, arg) <= 0) {
			module_put(driver->ops->owner);
			continue;
		}
		data = driver->ops->open(arg);
		if (IS_ERR(data)) {
			ret = PTR_ERR(data);
			module_put(driver->ops->owner);
			continue;
		}
		ret = vfio_container_attach_groups(container, driver, data);
		if (ret) {
			driver->ops->release(data);
			module_put(driver->ops->owner);
			continue;
		}
		container->iommu_driver = driver;
		container->iommu_data = data;
		break;
	}
	mutex_unlock(&vfio.iommu_drivers_lock);
	up_write(&container->group_lock);
	return ret;
}

static long vfio_fops_unl_ioctl(struct file *filep, unsigned int cmd,
				unsigned long arg)
{
	struct vfio_container *container = filep->private_data;
	struct vfio_iommu_driver *driver;
	long ret = -EINVAL;

	switch (cmd) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION:
		return vfio_container_ioctl_check_extension(container, arg);
	case VFIO_SET_IOMMU:
		return vfio_ioctl_set_iommu(container, arg);
	}

	down_read(&container->group_lock);
	driver = container->iommu_driver;
	if (driver)
		ret = driver->ops->ioctl(container->iommu_data, cmd, arg);
	up_read(&container->group_lock);
	return ret;
}

static int vfio_fops_open(struct inode *inode, struct file *filep)
{
	struct vfio_container *container;

	container = kzalloc(sizeof(*container), GFP_KERNEL);
	if (!container)
		return -ENOMEM;
	INIT_LIST_HEAD(&container->group_list);
	init_rwsem(&container->group_lock);
	kref_init(&container->kref);
	filep->private_data = container;
	return 0;
}

static int vfio_fops_release(struct inode *inode, struct file *filep)
{
	struct vfio_container *container = filep->private_data;

	filep->private_data = NULL;
	/* Groups still in it keep it (and its mappings) alive. */
	vfio_container_put(container);
	return 0;
}

static const struct file_operations vfio_fops = {
	.owner		= THIS_MODULE,
	.open		= vfio_fops_open,
	.release	= vfio_fops_release,
	.unlocked_ioctl	= vfio_fops_unl_ioctl,
};

struct vfio_container *vfio_container_from_file(struct file *file)
{
	if (file->f_op != &vfio_fops)
		return NULL;
	return file->private_data;
}

/*
 * A group joins a container (VFIO_GROUP_SET_CONTAINER): the group's DMA
 * becomes the user's (-EPERM while a kernel driver owns it), and if the
 * container has a backend already the group is attached to it now.
 */
int vfio_container_attach_group(struct vfio_container *container,
				struct vfio_group *group)
{
	struct vfio_iommu_driver *driver;
	int ret = 0;

	lockdep_assert_held(&group->group_lock);

	down_write(&container->group_lock);
	if (group->type == VFIO_IOMMU) {
		ret = iommu_group_claim_dma_owner(group->iommu_group,
						  group->opened_file);
		if (ret)
			goto out_unlock;
	}

	driver = container->iommu_driver;
	if (driver) {
		ret = driver->ops->attach_group(container->iommu_data,
						group->iommu_group,
						group->type);
		if (ret) {
			if (group->type == VFIO_IOMMU)
				iommu_group_release_dma_owner(group->iommu_group);
			goto out_unlock;
		}
	}

	group->container = container;
	group->container_users = 1;
	vfio_container_get(container);
	list_add(&group->container_next, &container->group_list);

out_unlock:
	up_write(&container->group_lock);
	return ret;
}

/* The group leaves its container; the last group takes the backend. */
void vfio_group_detach_container(struct vfio_group *group)
{
	struct vfio_container *container = group->container;
	struct vfio_iommu_driver *driver;

	lockdep_assert_held(&group->group_lock);
	WARN_ON(group->container_users != 1);

	down_write(&container->group_lock);
	driver = container->iommu_driver;
	if (driver)
		driver->ops->detach_group(container->iommu_data,
					  group->iommu_group);
	if (group->type == VFIO_IOMMU)
		iommu_group_release_dma_owner(group->iommu_group);

	group->container = NULL;
	group->container_users = 0;
	list_del(&group->container_next);

	if (driver && list_empty(&container->group_list)) {
		driver->ops->release(container->iommu_data);
		module_put(driver->ops->owner);
		container->iommu_driver = NULL;
		container->iommu_data = NULL;
	}
	up_write(&container->group_lock);

	vfio_container_put(container);
}

/*
 * A device of the group opens: the container must have a backend
 * (VFIO_SET_IOMMU done), and the device fd holds the group file.
 */
int vfio_group_use_container(struct vfio_group *group)
{
	lockdep_assert_held(&group->group_lock);

	if (!group->container->iommu_driver)
		return -EINVAL;
	if (WARN_ON(!group->opened_file))
		return -EINVAL;
	get_file(group->opened_file);
	group->container_users++;
	return 0;
}

/*
 * The device closes: returns the group file the device held, for the
 * caller to fput() once it dropped group_lock (the kernel's fput() is
 * deferred to the return to user space; the shim's runs at once, and the
 * last reference releases the group, which takes group_lock).
 */
struct file *vfio_group_unuse_container(struct vfio_group *group)
{
	lockdep_assert_held(&group->group_lock);

	WARN_ON(group->container_users <= 1);
	group->container_users--;
	return group->opened_file;
}

void vfio_device_container_register(struct vfio_device *device)
{
	struct vfio_container *container = device->group->container;
	const struct vfio_iommu_driver_ops *ops;

	ops = container->iommu_driver->ops;
	if (ops->register_device)
		ops->register_device(container->iommu_data, device);
}

void vfio_device_container_unregister(struct vfio_device *device)
{
	struct vfio_container *container = device->group->container;
	const struct vfio_iommu_driver_ops *ops;

	ops = container->iommu_driver->ops;
	if (ops->unregister_device)
		ops->unregister_device(container->iommu_data, device);
}

static char *vfio_container_devnode(const struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "vfio/%s", dev_name(dev));
}

int vfio_container_init(void)
{
	int ret;

	vfio.class = class_create("vfio-container");
	if (IS_ERR(vfio.class))
		return PTR_ERR(vfio.class);
	vfio.class->devnode = vfio_container_devnode;

	ret = alloc_chrdev_region(&vfio.devt, 0, 1, "vfio-container");
	if (ret)
		goto err_class;
	cdev_init(&vfio.cdev, &vfio_fops);
	ret = cdev_add(&vfio.cdev, vfio.devt, 1);
	if (ret)
		goto err_region;
	vfio.dev = device_create(vfio.class, NULL, vfio.devt, NULL, "vfio");
	if (IS_ERR(vfio.dev)) {
		ret = PTR_ERR(vfio.dev);
		goto err_cdev;
	}
	return 0;

err_cdev:
	cdev_del(&vfio.cdev);
err_region:
	unregister_chrdev_region(vfio.devt, 1);
err_class:
	class_destroy(vfio.class);
	vfio.class = NULL;
	return ret;
}

void vfio_container_cleanup(void)
{
	device_destroy(vfio.class, vfio.devt);
	cdev_del(&vfio.cdev);
	unregister_chrdev_region(vfio.devt, 1);
	class_destroy(vfio.class);
	vfio.class = NULL;
}
