// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct device helpers of <linux/device.h>: names and reference counts.
 */
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>

int dev_set_name(struct device *dev, const char *fmt, ...)
{
	char buf[128];
	char *name;
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	name = kstrdup(buf, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	kfree(dev->dmasim_name);
	dev->dmasim_name = name;
	return 0;
}

void dev_free_name(struct device *dev)
{
	kfree(dev->dmasim_name);
	dev->dmasim_name = NULL;
}

struct device *get_device(struct device *dev)
{
	if (dev)
		atomic_inc(&dev->dmasim_refs);
	return dev;
}

void put_device(struct device *dev)
{
	if (dev && atomic_dec_and_test(&dev->dmasim_refs) && dev->release)
		dev->release(dev);
}
