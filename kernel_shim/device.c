// SPDX-License-Identifier: GPL-2.0-only
/*
 * The few driver-model calls the shims need (<linux/device.h>): names and
 * the reference count.  See the header for what is simplified.
 */
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/sprintf.h>

int dev_set_name(struct device *dev, const char *fmt, ...)
{
	char *name, buf[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	name = kasprintf(GFP_KERNEL, "%s", buf);
	if (!name)
		return -ENOMEM;
	kfree(dev->name);
	dev->name = name;
	return 0;
}

void dev_free_name(struct device *dev)
{
	kfree(dev->name);
	dev->name = NULL;
}

void device_initialize(struct device *dev)
{
	dev->refcount = 1;
}

/* Atomic: a file's last fput may put its cdev's parent from any task. */
struct device *get_device(struct device *dev)
{
	if (dev)
		__atomic_add_fetch(&dev->refcount, 1, __ATOMIC_RELAXED);
	return dev;
}

void put_device(struct device *dev)
{
	if (!dev)
		return;
	if (WARN_ON(__atomic_load_n(&dev->refcount, __ATOMIC_RELAXED) <= 0))
		return;
	if (__atomic_sub_fetch(&dev->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	dev_free_name(dev);
	if (dev->release)
		dev->release(dev);
}
