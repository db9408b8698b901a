// SPDX-License-Identifier: GPL-2.0-only
/*
 * The part of the VFIO core (drivers/vfio/vfio_main.c, container.c) that
 * IOMMU backends call: backend registration and the capability-chain
 * helpers of <linux/vfio.h>.  dmasim's own code.
 *
 * Registration keeps the backends in a list; kapi/kapi_vfio.c opens containers
 * on the first one, as VFIO_SET_IOMMU picks the first backend whose open()
 * accepts the type.
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vfio.h>
#include <shim/vfio_iommu_driver.h>
#include <shim/vfio_core.h>

struct vfio_backend {
	struct list_head next;
	const struct vfio_iommu_driver_ops *ops;
};

static LIST_HEAD(vfio_backends);
static DEFINE_MUTEX(vfio_backends_lock);

int vfio_register_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_backend *b;

	mutex_lock(&vfio_backends_lock);
	list_for_each_entry(b, &vfio_backends, next) {
		if (b->ops == ops) {
			mutex_unlock(&vfio_backends_lock);
			return -EEXIST;
		}
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b) {
		mutex_unlock(&vfio_backends_lock);
		return -ENOMEM;
	}
	b->ops = ops;
	list_add_tail(&b->next, &vfio_backends);
	mutex_unlock(&vfio_backends_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(vfio_register_iommu_driver);

void vfio_unregister_iommu_driver(const struct vfio_iommu_driver_ops *ops)
{
	struct vfio_backend *b, *tmp;

	mutex_lock(&vfio_backends_lock);
	list_for_each_entry_safe(b, tmp, &vfio_backends, next) {
		if (b->ops == ops) {
			list_del(&b->next);
			kfree(b);
		}
	}
	mutex_unlock(&vfio_backends_lock);
}
EXPORT_SYMBOL_GPL(vfio_unregister_iommu_driver);

const struct vfio_iommu_driver_ops *vfio_shim_first_backend(void)
{
	const struct vfio_iommu_driver_ops *ops = NULL;

	mutex_lock(&vfio_backends_lock);
	if (!list_empty(&vfio_backends))
		ops = list_first_entry(&vfio_backends, struct vfio_backend,
				       next)->ops;
	mutex_unlock(&vfio_backends_lock);
	return ops;
}

struct vfio_info_cap_header *vfio_info_cap_add(struct vfio_info_cap *caps,
					       size_t size, u16 id,
					       u16 version)
{
	struct vfio_info_cap_header *header, *last;
	size_t at = caps->size;
	void *buf;

	/* Each capability starts 8-byte aligned, as the kernel pads them. */
	size = ALIGN(size, sizeof(u64));
	buf = krealloc(caps->buf, at + size, GFP_KERNEL);
	if (!buf) {
		/* The whole chain is lost, as the kernel's is. */
		kfree(caps->buf);
		*caps = (struct vfio_info_cap){ .buf = NULL, .size = 0 };
		return ERR_PTR(-ENOMEM);
	}
	caps->buf = buf;
	header = buf + at;
	memset(header, 0, size);
	header->id = id;
	header->version = version;

	/* Link it after the last capability (offsets from the buffer). */
	if (at) {
		last = buf;
		while (last->next)
			last = buf + last->next;
		last->next = at;
	}
	caps->size = at + size;
	return header;
}
EXPORT_SYMBOL_GPL(vfio_info_cap_add);

void vfio_info_cap_shift(struct vfio_info_cap *caps, size_t offset)
{
	struct vfio_info_cap_header *cap;
	void *buf = caps->buf;
	size_t at = 0;

	if (!caps->size)
		return;
	/* Each link moves by offset; walk with the old offsets. */
	for (;;) {
		size_t next;

		cap = buf + at;
		next = cap->next;
		if (!next)
			break;
		cap->next = next + offset;
		at = next;
	}
}
EXPORT_SYMBOL_GPL(vfio_info_cap_shift);

/* Append a whole capability whose header and body the caller filled. */
int vfio_info_add_capability(struct vfio_info_cap *caps,
			     struct vfio_info_cap_header *cap, size_t size)
{
	struct vfio_info_cap_header *added;

	added = vfio_info_cap_add(caps, size, cap->id, cap->version);
	if (IS_ERR(added))
		return PTR_ERR(added);
	/* Everything after the header; the chain link stays ours. */
	memcpy((void *)added + sizeof(*cap), (void *)cap + sizeof(*cap),
	       size - sizeof(*cap));
	return 0;
}
EXPORT_SYMBOL_GPL(vfio_info_add_capability);
