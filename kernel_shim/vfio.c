// SPDX-License-Identifier: GPL-2.0-only
/*
 * The part of the VFIO core (drivers/vfio/vfio_main.c) that IOMMU backends
 * call: the capability-chain helpers of <linux/vfio.h>.  dmasim's own code.
 * Backend registration lives with the containers, as in the kernel
 * (core/drivers/vfio/container.c).
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
