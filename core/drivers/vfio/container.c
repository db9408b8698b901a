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
 *    (-EINVAL otherwise); it offers the container to each backend that
 *    claims the type: open(type), then attach_group for every group,
 *    undone on error; the last error, or -ENODEV if no backend claims it;
 *  - any other command goes to the backend's ioctl, -EINVAL without one;
 *  - the backend is released when its last group leaves, not when the fd
 *    closes: groups hold the container.
 *
 * Locks, outermost first: a group's group_lock, the container's rwsem,
 * the backend registry's mutex.
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

/* ---- the backend registry ---- */

/* One registered IOMMU backend (type1 is the only one here). */
struct vfio_backend {
	struct list_head link;		/* on vfio_backends, newest first */
	const struct vfio_iommu_driver_ops *ops;
};

static LIST_HEAD(vfio_backends);
static DEFINE_MUTEX(vfio_backends_lock);

static struct vfio_backend *
vfio_backend_lookup(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_backend *b;

	lockdep_assert_held(&vfio_backends_lock);
	list_for_each_entry(b, &vfio_backends, link)
		if (b->ops == ops)
			return b;
	return NULL;
}

/*
 * A backend's module init: -EINVAL if ops are registered already, or give
 * one of register_device and unregister_device without the other.
 */
int vfio_register_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_backend *entry;
	int err = 0;

	if (WARN_ON(!ops->register_device ^ !ops->unregister_device))
		return -EINVAL;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->ops = ops;

	mutex_lock(&vfio_backends_lock);
	if (vfio_backend_lookup(ops))
		err = -EINVAL;
	else
		list_add(&entry->link, &vfio_backends);
	mutex_unlock(&vfio_backends_lock);

	if (err)
		kfree(entry);
	return err;
}
EXPORT_SYMBOL_GPL(vfio_register_iommu_driver);

/* A backend's module exit; ops never registered are ignored. */
void vfio_unregister_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_backend *entry;

	mutex_lock(&vfio_backends_lock);
	entry = vfio_backend_lookup(ops);
	if (entry)
		list_del(&entry->link);
	mutex_unlock(&vfio_backends_lock);
	kfree(entry);
}
EXPORT_SYMBOL_GPL(vfio_unregister_iommu_driver);

/*
 * dmasim: the backend a test opens a bare container on (kapi/kapi_vfio.c's
 * doors drive a backend without groups); NULL before one registers.
 */
const struct vfio_iommu_driver_ops *vfio_shim_first_backend(void)
{
	struct vfio_backend *newest;

	mutex_lock(&vfio_backends_lock);
	newest = list_first_entry_or_null(&vfio_backends, struct vfio_backend,
					  link);
	mutex_unlock(&vfio_backends_lock);
	return newest ? newest->ops : NULL;
}

/*
 * A backend's answer to VFIO_CHECK_EXTENSION asked without a container
 * of its own (iommu_data NULL); 0 while its module is going away.
 */
static long vfio_backend_answer(const struct vfio_iommu_driver_ops *ops,
				unsigned long ext)
{
	long answer;

	if (!try_module_get(ops->owner))
		return 0;
	answer = ops->ioctl(NULL, VFIO_CHECK_EXTENSION, ext);
	module_put(ops->owner);
	return answer;
}

/* CHECK_EXTENSION of a container with no backend: any backend's yes. */
static long vfio_backends_check_extension(unsigned long ext)
{
	struct vfio_backend *b;
	long yes = 0;

	mutex_lock(&vfio_backends_lock);
	list_for_each_entry(b, &vfio_backends, link) {
		long answer = vfio_backend_answer(b->ops, ext);

		if (answer > 0) {
			yes = answer;
			break;
		}
	}
	mutex_unlock(&vfio_backends_lock);
	return yes;
}

/* ---- containers ---- */

struct vfio_container {
	struct kref kref;	/* the fd, and each group in it */
	/* Held for writing to change anything below, for reading to use it. */
	struct rw_semaphore lock;
	struct list_head groups;	/* struct vfio_group.container_next */
	/* Set by VFIO_SET_IOMMU, cleared when the last group leaves. */
	const struct vfio_iommu_driver_ops *backend;
	void *backend_data;
};

static void vfio_container_free(struct kref *kref)
{
	kfree(container_of(kref, struct vfio_container, kref));
}

static void vfio_container_put(struct vfio_container *container)
{
	kref_put(&container->kref, vfio_container_free);
}

/*
 * Attach every group of the container to a backend just opened, or, if
 * one refuses, detach again those attached before it and say why.
 */
static int vfio_container_attach_all(struct vfio_container *container,
				     const struct vfio_iommu_driver_ops *ops,
				     void *data)
{
	struct vfio_group *group, *refused = NULL;
	int err = 0;

	list_for_each_entry(group, &container->groups, container_next) {
		err = ops->attach_group(data, group->iommu_group, group->type);
		if (err) {
			refused = group;
			break;
		}
	}
	if (!refused)
		return 0;
	list_for_each_entry(group, &container->groups, container_next) {
		if (group == refused)
			break;
		ops->detach_group(data, group->iommu_group);
	}
	return err;
}

/*
 * Offer the container to one backend for IOMMU type @type.  1 if the
 * backend does not do that type; else 0 when it is the container's
 * backend now (holding its module until released), or the errno of its
 * open or of a group's attach, with nothing of it left.
 */
static int vfio_container_offer(struct vfio_container *container,
				const struct vfio_iommu_driver_ops *ops,
				unsigned long type)
{
	void *data;
	int err = 1;

	lockdep_assert_held_write(&container->lock);

	if (!try_module_get(ops->owner))
		return err;
	/* SET_IOMMU's argument is an extension number too. */
	if (ops->ioctl(NULL, VFIO_CHECK_EXTENSION, type) <= 0)
		goto put_module;
	data = ops->open(type);
	if (IS_ERR(data)) {
		err = PTR_ERR(data);
		goto put_module;
	}
	err = vfio_container_attach_all(container, ops, data);
	if (err) {
		ops->release(data);
		goto put_module;
	}
	container->backend = ops;
	container->backend_data = data;
	return 0;

put_module:
	module_put(ops->owner);
	return err;
}

/* The last group left: the backend goes, and every mapping with it. */
static void vfio_container_drop_backend(struct vfio_container *container)
{
	const struct vfio_iommu_driver_ops *ops = container->backend;
	void *data = container->backend_data;

	lockdep_assert_held_write(&container->lock);

	container->backend = NULL;
	container->backend_data = NULL;
	ops->release(data);
	module_put(ops->owner);
}

static long vfio_container_set_iommu(struct vfio_container *container,
				     unsigned long type)
{
	struct vfio_backend *b;
	long result = -ENODEV;

	down_write(&container->lock);
	/*
	 * Choosing a backend may take IOMMU resources: only a user who put a
	 * group in the container may, and only once until the groups leave.
	 */
	if (container->backend || list_empty(&container->groups)) {
		result = -EINVAL;
		goto unlock;
	}
	mutex_lock(&vfio_backends_lock);
	list_for_each_entry(b, &vfio_backends, link) {
		int err = vfio_container_offer(container, b->ops, type);

		if (err <= 0)
			result = err;
		if (!err)
			break;
	}
	mutex_unlock(&vfio_backends_lock);
unlock:
	up_write(&container->lock);
	return result;
}

static long vfio_container_fops_ioctl(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	struct vfio_container *container = file->private_data;
	long ret = -EINVAL;

	if (cmd == VFIO_GET_API_VERSION)
		return VFIO_API_VERSION;
	if (cmd == VFIO_SET_IOMMU)
		return vfio_container_set_iommu(container, arg);

	/* CHECK_EXTENSION and the backend's own commands (MAP_DMA ...). */
	down_read(&container->lock);
	if (container->backend)
		ret = container->backend->ioctl(container->backend_data, cmd,
						arg);
	else if (cmd == VFIO_CHECK_EXTENSION)
		ret = vfio_backends_check_extension(arg);
	up_read(&container->lock);
	return ret;
}

static int vfio_container_fops_open(struct inode *inode, struct file *file)
{
	struct vfio_container *fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);

	if (!fresh)
		return -ENOMEM;
	kref_init(&fresh->kref);
	init_rwsem(&fresh->lock);
	INIT_LIST_HEAD(&fresh->groups);
	file->private_data = fresh;
	return 0;
}

/* Only the fd's reference goes: groups still in it keep it, mappings too. */
static int vfio_container_fops_release(struct inode *inode, struct file *file)
{
	vfio_container_put(file->private_data);
	return 0;
}

static const struct file_operations vfio_container_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vfio_container_fops_ioctl,
	.open		= vfio_container_fops_open,
	.release	= vfio_container_fops_release,
};

struct vfio_container *vfio_container_from_file(struct file *file)
{
	return file->f_op == &vfio_container_fops ? file->private_data : NULL;
}

/* ---- what group.c asks of a container ---- */

/*
 * VFIO_IOMMU groups: the group's DMA becomes the user's, -EPERM while a
 * kernel driver owns it.  Other types have no DMA owner to claim.
 */
static int vfio_group_claim_dma(struct vfio_group *group)
{
	if (group->type != VFIO_IOMMU)
		return 0;
	return iommu_group_claim_dma_owner(group->iommu_group,
					   group->opened_file);
}

static void vfio_group_unclaim_dma(struct vfio_group *group)
{
	if (group->type == VFIO_IOMMU)
		iommu_group_release_dma_owner(group->iommu_group);
}

/*
 * VFIO_GROUP_SET_CONTAINER: the group claims its DMA and, if the container
 * has a backend already, is attached to it at once; on any error the
 * group is as it was.
 */
int vfio_container_attach_group(struct vfio_container *container,
				struct vfio_group *group)
{
	const struct vfio_iommu_driver_ops *ops;
	int err;

	lockdep_assert_held(&group->group_lock);

	down_write(&container->lock);
	err = vfio_group_claim_dma(group);
	if (err)
		goto unlock;
	ops = container->backend;
	err = ops ? ops->attach_group(container->backend_data,
				      group->iommu_group, group->type) : 0;
	if (err) {
		vfio_group_unclaim_dma(group);
		goto unlock;
	}
	kref_get(&container->kref);
	list_add(&group->container_next, &container->groups);
	group->container_users = 1;
	group->container = container;
unlock:
	up_write(&container->lock);
	return err;
}

/*
 * The group leaves its container (UNSET_CONTAINER, or its fd's release);
 * no device of it may be open.  The last group out takes the backend.
 */
void vfio_group_detach_container(struct vfio_group *group)
{
	struct vfio_container *container = group->container;
	const struct vfio_iommu_driver_ops *ops;

	lockdep_assert_held(&group->group_lock);
	WARN_ON(group->container_users != 1);

	down_write(&container->lock);
	list_del(&group->container_next);
	ops = container->backend;
	/* Out of the backend's domain before the DMA API gets it back. */
	if (ops)
		ops->detach_group(container->backend_data, group->iommu_group);
	vfio_group_unclaim_dma(group);
	if (ops && list_empty(&container->groups))
		vfio_container_drop_backend(container);
	up_write(&container->lock);

	group->container = NULL;
	group->container_users = 0;
	vfio_container_put(container);
}

/*
 * The first fd of a device of the group: the container must have its
 * backend (SET_IOMMU done), which learns of the device; the device holds
 * the group's file, and counts as a user of the container.
 */
int vfio_container_open_device(struct vfio_device *device)
{
	struct vfio_group *group = device->group;
	struct vfio_container *container = group->container;
	const struct vfio_iommu_driver_ops *ops;
	int err = -EINVAL;

	lockdep_assert_held(&group->group_lock);

	down_read(&container->lock);
	ops = container->backend;
	if (ops && !WARN_ON(!group->opened_file)) {
		get_file(group->opened_file);
		group->container_users++;
		if (ops->register_device)
			ops->register_device(container->backend_data, device);
		err = 0;
	}
	up_read(&container->lock);
	return err;
}

/*
 * After the device's last fd: the backend forgets the device.  Returns
 * the group file the device held, for the caller to fput() once it
 * dropped group_lock (the kernel defers fput() to the return to user
 * space; the shim's runs at once, and the last reference releases the
 * group, which takes group_lock).
 */
struct file *vfio_container_close_device(struct vfio_device *device)
{
	struct vfio_group *group = device->group;
	struct vfio_container *container = group->container;
	const struct vfio_iommu_driver_ops *ops;

	lockdep_assert_held(&group->group_lock);

	down_read(&container->lock);
	ops = container->backend;
	if (ops->unregister_device)
		ops->unregister_device(container->backend_data, device);
	up_read(&container->lock);

	WARN_ON(group->container_users < 2);
	group->container_users--;
	return group->opened_file;
}

/* ---- the node ---- */

static struct {
	struct class *class;
	dev_t devt;
	struct cdev cdev;
	struct device *dev;
} vfio_container_node;

static char *vfio_container_devnode(const struct device *dev, umode_t *mode)
{
	/* Anyone may open it: a container grants nothing until a group joins. */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "vfio/%s", dev_name(dev));
}

int vfio_container_init(void)
{
	struct class *class;
	struct device *dev;
	dev_t devt;
	int err;

	class = class_create("vfio-container");
	if (IS_ERR(class))
		return PTR_ERR(class);
	class->devnode = vfio_container_devnode;
	err = alloc_chrdev_region(&devt, 0, 1, "vfio-container");
	if (err)
		goto destroy_class;
	cdev_init(&vfio_container_node.cdev, &vfio_container_fops);
	err = cdev_add(&vfio_container_node.cdev, devt, 1);
	if (err)
		goto free_region;
	dev = device_create(class, NULL, devt, NULL, "vfio");
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		cdev_del(&vfio_container_node.cdev);
		goto free_region;
	}
	vfio_container_node.class = class;
	vfio_container_node.devt = devt;
	vfio_container_node.dev = dev;
	return 0;

free_region:
	unregister_chrdev_region(devt, 1);
destroy_class:
	class_destroy(class);
	return err;
}

void vfio_container_cleanup(void)
{
	device_destroy(vfio_container_node.class, vfio_container_node.devt);
	cdev_del(&vfio_container_node.cdev);
	unregister_chrdev_region(vfio_container_node.devt, 1);
	class_destroy(vfio_container_node.class);
	vfio_container_node.class = NULL;
}
