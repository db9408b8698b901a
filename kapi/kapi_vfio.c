// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points into a VFIO container (<dmasim/kapi_vfio.h>): the
 * container and group plumbing of the VFIO core (drivers/vfio/container.c,
 * group.c) reduced to what a test needs, calling the registered IOMMU
 * backend's ops exactly as the core does.  "User" structs are built here,
 * in this TU's memory, and handed to the backend's ioctl as user pointers
 * (the uaccess shim copies from plain memory).
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include <shim/iommu_sim.h>
#include <shim/vfio_core.h>
#include <shim/vfio_iommu_driver.h>

#include <dmasim/kapi_mm.h>
#include "kapi_door.h"
#include <dmasim/kapi_vfio.h>

struct kapi_vfio {
	const struct vfio_iommu_driver_ops *ops;
	void *data;			/* the backend's container */
	struct list_head devices;	/* struct kapi_vfio_dev */
};

/* One page an emulated device holds pinned (a reference per pin). */
struct kapi_vfio_pin {
	unsigned long long iova;
	unsigned long refs;
};

struct kapi_vfio_dev {
	struct list_head next;
	struct kapi_vfio *container;
	struct iommu_group *group;
	bool emulated;
	struct device *idev;		/* IOMMU-backed: the device */
	struct device *peers[KAPI_VFIO_MAX_GROUP_DEVS - 1]; /* and its group */
	unsigned int nr_peers;
	struct vfio_device vdev;	/* emulated: registered with the backend */
	struct kapi_vfio_pin *pins;
	unsigned long nr_pins, cap_pins;
	unsigned long nr_dma_unmaps;
	/* IOMMU-backed, and also pins through the container (registered). */
	bool pinning;
	/* dma_unmap callbacks still to answer by pinning again (a race). */
	unsigned long repins_on_dma_unmap;
	/* Probed apart (kapi_vfio_dev_probe()): a detach leaves it probed. */
	bool probed;
};

static unsigned long kapi_vfio_open_count;
static unsigned long kapi_vfio_dev_serial;

/* ---- containers and devices ---- */

int kapi_vfio_open(unsigned long type, struct kapi_vfio **out)
{
	const struct vfio_iommu_driver_ops *ops = vfio_shim_first_backend();
	struct kapi_vfio *c;
	void *data;

	if (!ops)
		return kapi_return(-ENODEV);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return kapi_return(-ENOMEM);
	data = ops->open(type);
	if (IS_ERR(data)) {
		kfree(c);
		return kapi_return(PTR_ERR(data));
	}
	c->ops = ops;
	c->data = data;
	INIT_LIST_HEAD(&c->devices);
	kapi_vfio_open_count++;
	*out = c;
	return kapi_return(0);
}

/*
 * The container's file is closed: 6.1's VFIO core tells the backend first
 * (ops->notify, which later trees do not have), then the groups go.
 */
static void kapi_vfio_notify_close(struct kapi_vfio *c)
{
	if (c->ops->notify)
		c->ops->notify(c->data, VFIO_IOMMU_CONTAINER_CLOSE);
}

void kapi_vfio_close(struct kapi_vfio *c)
{
	kapi_vfio_notify_close(c);
	while (!list_empty(&c->devices))
		kapi_vfio_detach_dev(c, list_first_entry(&c->devices,
							 struct kapi_vfio_dev,
							 next));
	c->ops->release(c->data);
	kfree(c);
	kapi_vfio_open_count--;
	kapi_user_return();
}

unsigned long kapi_vfio_nr_open(void)
{
	return kapi_vfio_open_count;
}

/* The device of kapi_vfio_attach_iommu_dev(), probed, in no container. */
static int kapi_vfio_probe(enum sim_iommu_format_id fmt,
			   struct kapi_vfio_dev **out)
{
	struct kapi_vfio_dev *dev;
	char name[32];
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	snprintf(name, sizeof(name), "vfio-dev%lu", ++kapi_vfio_dev_serial);
	dev->idev = sim_iommu_device_create(name, fmt, NULL);
	if (IS_ERR(dev->idev)) {
		ret = PTR_ERR(dev->idev);
		kfree(dev);
		return ret;
	}
	dev->group = dev->idev->iommu_group;
	*out = dev;
	return 0;
}

/* attach_group of a device in no container to c. */
static int kapi_vfio_attach(struct kapi_vfio *c, struct kapi_vfio_dev *dev)
{
	int ret = c->ops->attach_group(c->data, dev->group, VFIO_IOMMU);

	if (ret)
		return ret;
	dev->container = c;
	list_add_tail(&dev->next, &c->devices);
	return 0;
}

int kapi_vfio_attach_iommu_dev(struct kapi_vfio *c,
			       enum sim_iommu_format_id fmt,
			       struct kapi_vfio_dev **out)
{
	struct kapi_vfio_dev *dev;
	int ret;

	ret = kapi_vfio_probe(fmt, &dev);
	if (ret)
		return kapi_return(ret);
	ret = kapi_vfio_attach(c, dev);
	if (ret) {
		sim_iommu_device_destroy(dev->idev);
		kfree(dev);
		return kapi_return(ret);
	}
	*out = dev;
	return kapi_return(0);
}

int kapi_vfio_dev_probe(enum sim_iommu_format_id fmt,
			struct kapi_vfio_dev **out)
{
	int ret = kapi_vfio_probe(fmt, out);

	if (!ret)
		(*out)->probed = true;
	return kapi_return(ret);
}

int kapi_vfio_attach_probed_dev(struct kapi_vfio *c, struct kapi_vfio_dev *dev)
{
	if (!dev->probed || dev->container)
		return kapi_return(-EBUSY);
	return kapi_return(kapi_vfio_attach(c, dev));
}

void kapi_vfio_dev_remove(struct kapi_vfio_dev *dev)
{
	WARN_ON(!dev->probed || dev->container);
	sim_iommu_device_destroy(dev->idev);
	kfree(dev);
	kapi_user_return();
}

static struct kapi_vfio_pin *kapi_vfio_find_pin(struct kapi_vfio_dev *dev,
						unsigned long long iova)
{
	unsigned long i;

	for (i = 0; i < dev->nr_pins; i++)
		if (dev->pins[i].iova == iova)
			return &dev->pins[i];
	return NULL;
}

static void kapi_vfio_forget_pin(struct kapi_vfio_dev *dev,
				 struct kapi_vfio_pin *pin)
{
	if (--pin->refs)
		return;
	*pin = dev->pins[--dev->nr_pins];
}

static void kapi_vfio_race_a_pin(struct kapi_vfio_dev *dev, u64 iova);

/*
 * The emulated device's answer to "this range goes away": unpin every page
 * it holds there, as a mediated driver must.
 */
static void kapi_vfio_emulated_dma_unmap(struct vfio_device *vdev, u64 iova,
					 u64 length)
{
	struct kapi_vfio_dev *dev = container_of(vdev, struct kapi_vfio_dev,
						 vdev);
	struct kapi_vfio *c = dev->container;
	unsigned long i = 0;

	dev->nr_dma_unmaps++;
	while (i < dev->nr_pins) {
		struct kapi_vfio_pin *pin = &dev->pins[i];

		if (pin->iova < iova || pin->iova - iova >= length) {
			i++;
			continue;
		}
		c->ops->unpin_pages(c->data, pin->iova, 1);
		/* The slot now holds another pin (or none): look again. */
		kapi_vfio_forget_pin(dev, pin);
	}
	kapi_vfio_race_a_pin(dev, iova);
}

static const struct vfio_device_ops kapi_vfio_emulated_ops = {
	.name = "dmasim-mdev",
	.dma_unmap = kapi_vfio_emulated_dma_unmap,
};

static int kapi_vfio_attach_emulated(struct kapi_vfio *c,
				     const struct vfio_device_ops *ops,
				     struct kapi_vfio_dev **out);

int kapi_vfio_attach_emulated_dev(struct kapi_vfio *c,
				  struct kapi_vfio_dev **out)
{
	return kapi_return(kapi_vfio_attach_emulated(c, &kapi_vfio_emulated_ops, out));
}

static int kapi_vfio_attach_emulated(struct kapi_vfio *c,
				     const struct vfio_device_ops *ops,
				     struct kapi_vfio_dev **out)
{
	struct kapi_vfio_dev *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	/* The VFIO core fakes a group for a device with no IOMMU of its own. */
	dev->group = iommu_group_alloc();
	if (IS_ERR(dev->group)) {
		ret = PTR_ERR(dev->group);
		kfree(dev);
		return ret;
	}
	dev->emulated = true;
	dev->container = c;
	dev->vdev.ops = ops;
	dev->vdev.iommu_group = dev->group;
	INIT_LIST_HEAD(&dev->vdev.iommu_entry);

	ret = c->ops->attach_group(c->data, dev->group, VFIO_EMULATED_IOMMU);
	if (ret) {
		iommu_group_put(dev->group);
		kfree(dev);
		return ret;
	}
	c->ops->register_device(c->data, &dev->vdev);
	list_add_tail(&dev->next, &c->devices);
	*out = dev;
	return 0;
}

static void kapi_vfio_destroy_group_devs(struct kapi_vfio_dev *dev)
{
	while (dev->nr_peers)
		sim_iommu_device_destroy(dev->peers[--dev->nr_peers]);
	sim_iommu_device_destroy(dev->idev);
}

/*
 * A device leaves its container: a probed one stays probed, in none;
 * any other is destroyed with its group.
 */
static void kapi_vfio_dev_put(struct kapi_vfio_dev *dev)
{
	kfree(dev->pins);
	dev->pins = NULL;
	dev->nr_pins = dev->cap_pins = 0;
	if (dev->probed) {
		dev->container = NULL;
		return;
	}
	if (dev->emulated)
		iommu_group_put(dev->group);
	else
		kapi_vfio_destroy_group_devs(dev);
	kfree(dev);
}

void kapi_vfio_detach_dev(struct kapi_vfio *c, struct kapi_vfio_dev *dev)
{
	list_del(&dev->next);
	if (dev->emulated || dev->pinning) {
		/* A departing pinning driver drops its pins first. */
		while (dev->nr_pins) {
			c->ops->unpin_pages(c->data, dev->pins[0].iova, 1);
			kapi_vfio_forget_pin(dev, &dev->pins[0]);
		}
		c->ops->unregister_device(c->data, &dev->vdev);
	}
	c->ops->detach_group(c->data, dev->group);
	kapi_vfio_dev_put(dev);
	kapi_user_return();
}

static struct iommu_domain *kapi_vfio_dev_domain(struct kapi_vfio_dev *dev)
{
	return dev->emulated ? NULL : iommu_get_domain_for_dev(dev->idev);
}

struct sim_iommu_domain *kapi_vfio_dev_sim_domain(struct kapi_vfio_dev *dev)
{
	struct iommu_domain *domain = kapi_vfio_dev_domain(dev);

	return domain ? sim_iommu_domain_of(domain) : NULL;
}

int kapi_vfio_dev_iova_to_pfn(struct kapi_vfio_dev *dev,
			      unsigned long long iova, unsigned long *pfn)
{
	struct iommu_domain *domain = kapi_vfio_dev_domain(dev);
	phys_addr_t phys;

	if (!domain)
		return -ENODEV;
	phys = iommu_iova_to_phys(domain, iova);
	if (!phys)
		return -ENOENT;
	*pfn = phys >> PAGE_SHIFT;
	return 0;
}

/* Bytes from addr to the end of the CPU leaf at level (KAPI_MM_LEAF_*). */
static unsigned long cpu_leaf_left(unsigned long addr, int level)
{
	unsigned long size = PAGE_SIZE << ((level - 1) * (PAGE_SHIFT - 3));

	return size - (addr & (size - 1));
}

/*
 * One IOMMU leaf and one CPU leaf each map consecutive pfns, so where they
 * overlap the pfns agree page by page iff they agree at the overlap's
 * first page: one comparison per overlap, not per page.
 */
int kapi_vfio_dev_check_translation(struct kapi_vfio_dev *dev,
				    unsigned long long iova, unsigned long vaddr,
				    unsigned long long size,
				    unsigned long long *bad_offset)
{
	struct sim_iommu_domain *sd = kapi_vfio_dev_sim_domain(dev);
	unsigned long long off = 0;

	if (!sd)
		return -ENODEV;
	while (off < size) {
		unsigned long long leaf_iova, leaf, step, cpu_left;
		unsigned long cpu_pfn;
		sim_phys_t phys;
		int level, ret = 0;

		leaf = sim_iommu_leaf_at(sd, iova + off, &leaf_iova, NULL);
		phys = sim_iommu_iova_to_phys(sd, iova + off);
		if (!leaf)
			ret = -ENOENT;
		else if (kapi_mm_cpu_pfn(vaddr + off, &cpu_pfn, &level))
			ret = -EFAULT;
		else if (phys >> PAGE_SHIFT != cpu_pfn)
			ret = -EILSEQ;
		if (ret) {
			if (bad_offset)
				*bad_offset = off;
			return ret;
		}
		step = leaf_iova + leaf - (iova + off);
		cpu_left = cpu_leaf_left(vaddr + off, level);
		if (cpu_left < step)
			step = cpu_left;
		if (!step || step > size - off)	/* step 0: the leaf ends at 2^64 */
			step = size - off;
		off += step;
	}
	return 0;
}

unsigned long long kapi_vfio_dev_nr_leaves(struct kapi_vfio_dev *dev)
{
	struct sim_iommu_domain *sd = kapi_vfio_dev_sim_domain(dev);

	return sd ? sim_iommu_nr_leaves_total(sd) : 0;
}

/* ---- ioctls ---- */

/*
 * An ioctl whose argument struct (len bytes) and bitmap (bitmap_len bytes,
 * or NULL) are this file's or the test's host memory: the shim copies
 * them as such, whatever simulated VMA lies at the same address.  A
 * bitmap the host does not map (a bad pointer of the caller's) is not
 * declared: the kernel's copy to it faults (-EFAULT), as on a real
 * machine, instead of crashing the test.
 */
static long kapi_vfio_ioctl_bitmap(struct kapi_vfio *c, unsigned int cmd,
				   void *arg, size_t len,
				   const struct kapi_vfio_bitmap *bitmap)
{
	int declared = bitmap && sim_host_mapped((unsigned long)bitmap->data,
						 bitmap->size);
	long ret;

	dmasim_uaccess_host_ranges(arg, len, declared ? bitmap->data : NULL,
				   declared ? bitmap->size : 0);
	ret = c->ops->ioctl(c->data, cmd, (unsigned long)arg);
	dmasim_uaccess_host_ranges(NULL, 0, NULL, 0);
	return ret;
}

static long kapi_vfio_ioctl(struct kapi_vfio *c, unsigned int cmd, void *arg,
			    size_t len)
{
	return kapi_vfio_ioctl_bitmap(c, cmd, arg, len, NULL);
}

long kapi_vfio_raw_ioctl(struct kapi_vfio *c, unsigned int cmd,
			 unsigned long arg)
{
	return kapi_return(c->ops->ioctl(c->data, cmd, arg));
}

long kapi_vfio_check_extension(struct kapi_vfio *c, unsigned long ext)
{
	return kapi_return(c->ops->ioctl(c->data, VFIO_CHECK_EXTENSION, ext));
}

long kapi_vfio_raw_map_dma(struct kapi_vfio *c, unsigned int argsz,
			   unsigned int flags, unsigned long long vaddr,
			   unsigned long long iova, unsigned long long size)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = argsz, .flags = flags, .vaddr = vaddr, .iova = iova,
		.size = size,
	};

	return kapi_return(kapi_vfio_ioctl(c, VFIO_IOMMU_MAP_DMA, &map, sizeof(map)));
}

long kapi_vfio_map_dma(struct kapi_vfio *c, unsigned long long vaddr,
		       unsigned long long iova, unsigned long long size,
		       unsigned int flags)
{
	return kapi_vfio_raw_map_dma(c, sizeof(struct vfio_iommu_type1_dma_map),
				     flags, vaddr, iova, size);
}

long kapi_vfio_raw_unmap_dma(struct kapi_vfio *c, unsigned int argsz,
			     unsigned int flags, unsigned long long iova,
			     unsigned long long size,
			     const struct kapi_vfio_bitmap *bitmap,
			     unsigned long long *size_out)
{
	u8 buf[sizeof(struct vfio_iommu_type1_dma_unmap) +
	       sizeof(struct vfio_bitmap)] __aligned(8);
	struct vfio_iommu_type1_dma_unmap *unmap = (void *)buf;
	struct vfio_bitmap *bm = (void *)(buf + sizeof(*unmap));
	long ret;

	memset(buf, 0, sizeof(buf));
	unmap->argsz = argsz;
	unmap->flags = flags;
	unmap->iova = iova;
	unmap->size = size;
	if (bitmap) {
		bm->pgsize = bitmap->pgsize;
		bm->size = bitmap->size;
		bm->data = (u64 __user *)bitmap->data;
	}
	ret = kapi_vfio_ioctl_bitmap(c, VFIO_IOMMU_UNMAP_DMA, buf, sizeof(buf),
				     bitmap);
	if (size_out)
		*size_out = unmap->size;
	return kapi_return(ret);
}

long kapi_vfio_unmap_dma(struct kapi_vfio *c, unsigned long long iova,
			 unsigned long long size, unsigned int flags,
			 unsigned long long *unmapped)
{
	return kapi_vfio_raw_unmap_dma(c,
			sizeof(struct vfio_iommu_type1_dma_unmap), flags,
			iova, size, NULL, unmapped);
}

long kapi_vfio_unmap_dma_dirty(struct kapi_vfio *c, unsigned long long iova,
			       unsigned long long size,
			       unsigned long long pgsize,
			       unsigned long long *bitmap,
			       unsigned long long bitmap_bytes,
			       unsigned long long *unmapped)
{
	struct kapi_vfio_bitmap bm = {
		.pgsize = pgsize, .size = bitmap_bytes, .data = bitmap,
	};

	return kapi_vfio_raw_unmap_dma(c,
			sizeof(struct vfio_iommu_type1_dma_unmap) +
			sizeof(struct vfio_bitmap),
			VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP, iova, size, &bm,
			unmapped);
}

long kapi_vfio_raw_get_info(struct kapi_vfio *c, unsigned int argsz,
			    void *buf, unsigned long buf_bytes)
{
	struct vfio_iommu_type1_info *info = buf;

	/*
	 * kapi precondition: the buffer holds what the kernel reads (argsz
	 * and flags) and all the reply argsz allows.
	 */
	if (buf_bytes < offsetofend(struct vfio_iommu_type1_info, flags) + 8 ||
	    buf_bytes < argsz)
		return kapi_return(-ERANGE);
	memset(buf, 0, buf_bytes);
	info->argsz = argsz;
	return kapi_return(kapi_vfio_ioctl(c, VFIO_IOMMU_GET_INFO, buf, buf_bytes));
}

/* Follow the capability chain of a GET_INFO reply of len bytes. */
static void kapi_vfio_decode_caps(const u8 *buf, size_t len,
				  struct kapi_vfio_info *out)
{
	size_t off = out->cap_offset;
	unsigned int hops = 0;

	while (off && off + sizeof(struct vfio_info_cap_header) <= len &&
	       hops++ < 64) {
		const struct vfio_info_cap_header *h = (const void *)(buf + off);

		if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
			const struct vfio_iommu_type1_info_cap_iova_range *r =
				(const void *)h;
			unsigned int i;

			out->has_iova_range = 1;
			out->iova_range_version = h->version;
			out->nr_iovas = r->nr_iovas;
			for (i = 0; i < r->nr_iovas && i < KAPI_VFIO_MAX_IOVAS;
			     i++) {
				out->iovas[i].start = r->iova_ranges[i].start;
				out->iovas[i].end = r->iova_ranges[i].end;
			}
		} else if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION) {
			const struct vfio_iommu_type1_info_cap_migration *m =
				(const void *)h;

			out->has_migration = 1;
			out->migration_version = h->version;
			out->migration_flags = m->flags;
			out->migration_pgsize_bitmap = m->pgsize_bitmap;
			out->max_dirty_bitmap_size = m->max_dirty_bitmap_size;
		} else if (h->id == VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL) {
			const struct vfio_iommu_type1_info_dma_avail *a =
				(const void *)h;

			out->has_dma_avail = 1;
			out->dma_avail_version = h->version;
			out->dma_avail = a->avail;
		}
		off = h->next;
	}
}

/* As a VMM does it: ask with the bare struct, then again with room. */
long kapi_vfio_get_info(struct kapi_vfio *c, struct kapi_vfio_info *out)
{
	struct vfio_iommu_type1_info first;
	size_t len;
	u8 *buf;
	long ret;

	memset(out, 0, sizeof(*out));
	ret = kapi_vfio_raw_get_info(c, sizeof(first), &first, sizeof(first));
	if (ret)
		return kapi_return(ret);
	len = max_t(size_t, first.argsz, sizeof(first));
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		return kapi_return(-ENOMEM);
	ret = kapi_vfio_raw_get_info(c, len, buf, len);
	if (!ret) {
		struct vfio_iommu_type1_info *info = (void *)buf;

		out->argsz = info->argsz;
		out->flags = info->flags;
		out->iova_pgsizes = info->iova_pgsizes;
		out->cap_offset = info->cap_offset;
		if (info->flags & VFIO_IOMMU_INFO_CAPS)
			kapi_vfio_decode_caps(buf, len, out);
	}
	kfree(buf);
	return kapi_return(ret);
}

long kapi_vfio_raw_dirty(struct kapi_vfio *c, unsigned int argsz,
			 unsigned int flags, unsigned long long iova,
			 unsigned long long size,
			 const struct kapi_vfio_bitmap *bitmap)
{
	u8 buf[sizeof(struct vfio_iommu_type1_dirty_bitmap) +
	       sizeof(struct vfio_iommu_type1_dirty_bitmap_get)] __aligned(8);
	struct vfio_iommu_type1_dirty_bitmap *hdr = (void *)buf;
	struct vfio_iommu_type1_dirty_bitmap_get *range =
		(void *)(buf + sizeof(*hdr));

	memset(buf, 0, sizeof(buf));
	hdr->argsz = argsz;
	hdr->flags = flags;
	range->iova = iova;
	range->size = size;
	if (bitmap) {
		range->bitmap.pgsize = bitmap->pgsize;
		range->bitmap.size = bitmap->size;
		range->bitmap.data = (u64 __user *)bitmap->data;
	}
	return kapi_return(kapi_vfio_ioctl_bitmap(c, VFIO_IOMMU_DIRTY_PAGES, buf,
						  sizeof(buf), bitmap));
}

long kapi_vfio_dirty_start(struct kapi_vfio *c)
{
	return kapi_vfio_raw_dirty(c, sizeof(struct vfio_iommu_type1_dirty_bitmap),
				   VFIO_IOMMU_DIRTY_PAGES_FLAG_START, 0, 0,
				   NULL);
}

long kapi_vfio_dirty_stop(struct kapi_vfio *c)
{
	return kapi_vfio_raw_dirty(c, sizeof(struct vfio_iommu_type1_dirty_bitmap),
				   VFIO_IOMMU_DIRTY_PAGES_FLAG_STOP, 0, 0,
				   NULL);
}

long kapi_vfio_dirty_get(struct kapi_vfio *c, unsigned long long iova,
			 unsigned long long size, unsigned long long pgsize,
			 unsigned long long *bitmap,
			 unsigned long long bitmap_bytes)
{
	struct kapi_vfio_bitmap bm = {
		.pgsize = pgsize, .size = bitmap_bytes, .data = bitmap,
	};

	return kapi_vfio_raw_dirty(c,
			sizeof(struct vfio_iommu_type1_dirty_bitmap) +
			sizeof(struct vfio_iommu_type1_dirty_bitmap_get),
			VFIO_IOMMU_DIRTY_PAGES_FLAG_GET_BITMAP, iova, size,
			&bm);
}

/* ---- the external interface ---- */

static int kapi_vfio_remember_pin(struct kapi_vfio_dev *dev,
				  unsigned long long iova)
{
	struct kapi_vfio_pin *pin = kapi_vfio_find_pin(dev, iova);

	if (pin) {
		pin->refs++;
		return 0;
	}
	if (dev->nr_pins == dev->cap_pins) {
		unsigned long cap = dev->cap_pins ? dev->cap_pins * 2 : 16;
		struct kapi_vfio_pin *p;

		p = krealloc(dev->pins, cap * sizeof(*p), GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		dev->pins = p;
		dev->cap_pins = cap;
	}
	dev->pins[dev->nr_pins].iova = iova;
	dev->pins[dev->nr_pins].refs = 1;
	dev->nr_pins++;
	return 0;
}

/* Pins as an emulated device's driver does (also from its callbacks). */
static int kapi_vfio_pin(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
			 unsigned long long iova, int npage, unsigned int prot,
			 unsigned long *pfns)
{
	struct page **pages;
	int iommu_prot = 0, ret, i;

	if (prot & VFIO_DMA_MAP_FLAG_READ)
		iommu_prot |= IOMMU_READ;
	if (prot & VFIO_DMA_MAP_FLAG_WRITE)
		iommu_prot |= IOMMU_WRITE;
	pages = kcalloc(npage > 0 ? npage : 1, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	ret = c->ops->pin_pages(c->data, dev->group, iova, npage, iommu_prot,
				pages);
	/*
	 * The backend's contract (type1 since it took struct pages): a
	 * failed pin leaves no page behind in the caller's array, not even
	 * of the pages it pinned and gave back before the failure.
	 */
	for (i = 0; ret < 0 && i < npage; i++)
		WARN(pages[i], "pin_pages failed (%d) but left pages[%d] set\n",
		     ret, i);
	for (i = 0; ret > 0 && i < ret; i++) {
		pfns[i] = page_to_pfn(pages[i]);
		if (kapi_vfio_remember_pin(dev, iova + (u64)i * PAGE_SIZE)) {
			/* Out of bookkeeping: give back what is not noted. */
			c->ops->unpin_pages(c->data,
					    iova + (u64)i * PAGE_SIZE, ret - i);
			ret = -ENOMEM;
			break;
		}
	}
	kfree(pages);
	return ret;
}

int kapi_vfio_pin_pages(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
			unsigned long long iova, int npage, unsigned int prot,
			unsigned long *pfns)
{
	return kapi_return(kapi_vfio_pin(c, dev, iova, npage, prot, pfns));
}

int kapi_vfio_dma_rw(struct kapi_vfio *c, unsigned long long iova, void *buf,
		     unsigned long len, int write)
{
	return kapi_return(c->ops->dma_rw(c->data, iova, buf, len, write));
}

void kapi_vfio_unpin_pages(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
			   unsigned long long iova, int npage)
{
	int i;

	c->ops->unpin_pages(c->data, iova, npage);
	for (i = 0; i < npage; i++) {
		struct kapi_vfio_pin *pin;

		pin = kapi_vfio_find_pin(dev, iova + (u64)i * PAGE_SIZE);
		if (pin)
			kapi_vfio_forget_pin(dev, pin);
	}
	kapi_user_return();
}

unsigned long kapi_vfio_dev_nr_pins(struct kapi_vfio_dev *dev)
{
	unsigned long i, n = 0;

	for (i = 0; i < dev->nr_pins; i++)
		n += dev->pins[i].refs;
	return n;
}

unsigned long kapi_vfio_dev_nr_dma_unmaps(struct kapi_vfio_dev *dev)
{
	return dev->nr_dma_unmaps;
}

/* ---- live update races, pinning IOMMU devices ---- */

int kapi_vfio_dev_register_pinning(struct kapi_vfio *c,
				   struct kapi_vfio_dev *dev)
{
	if (dev->emulated || dev->pinning)
		return kapi_return(-EINVAL);
	dev->pinning = true;
	dev->vdev.ops = &kapi_vfio_emulated_ops;
	dev->vdev.iommu_group = dev->group;
	INIT_LIST_HEAD(&dev->vdev.iommu_entry);
	c->ops->register_device(c->data, &dev->vdev);
	return kapi_return(0);
}

void kapi_vfio_dev_race_pins_with_dma_unmap(struct kapi_vfio_dev *dev,
					    unsigned long n)
{
	dev->repins_on_dma_unmap = n;
}

/*
 * Another thread of the driver pins the first page of a range just after
 * the device unpinned it, between type1 dropping its lock to notify and
 * taking it again.
 */
static void kapi_vfio_race_a_pin(struct kapi_vfio_dev *dev, u64 iova)
{
	unsigned long pfn;

	if (!dev->repins_on_dma_unmap)
		return;
	dev->repins_on_dma_unmap--;
	kapi_vfio_pin(dev->container, dev, iova, 1,
		      VFIO_DMA_MAP_FLAG_READ, &pfn);
}

/* ---- groups, domains and the platform behind them ---- */

static int kapi_vfio_dev_opts_to_sim(const struct kapi_vfio_dev_opts *opts,
				     struct sim_iommu_dev_opts *sim)
{
	unsigned int i;

	if (opts->nr_resv > KAPI_VFIO_MAX_RESV ||
	    opts->nr_resv > SIM_IOMMU_MAX_RESV ||
	    opts->nr_devices > KAPI_VFIO_MAX_GROUP_DEVS)
		return -EINVAL;
	memset(sim, 0, sizeof(*sim));
	sim->aperture_start = opts->aperture_start;
	sim->aperture_end = opts->aperture_end;
	sim->no_snoop_control = opts->no_snoop_control;
	sim->no_isolated_msi = opts->no_isolated_msi;
	sim->nr_resv = opts->nr_resv;
	for (i = 0; i < opts->nr_resv; i++) {
		sim->resv[i].start = opts->resv[i].start;
		sim->resv[i].length = opts->resv[i].length;
		sim->resv[i].type = opts->resv[i].type;
		sim->resv[i].prot = IOMMU_READ | IOMMU_WRITE;
		if (opts->resv[i].type == KAPI_VFIO_RESV_MSI ||
		    opts->resv[i].type == KAPI_VFIO_RESV_SW_MSI)
			sim->resv[i].prot |= IOMMU_MMIO;
	}
	return 0;
}

int kapi_vfio_attach_iommu_dev_opts(struct kapi_vfio *c,
				    const struct kapi_vfio_dev_opts *opts,
				    struct kapi_vfio_dev **out)
{
	struct sim_iommu_dev_opts sim;
	struct kapi_vfio_dev *dev;
	unsigned int nr_devs;
	char name[32];
	int ret;

	ret = kapi_vfio_dev_opts_to_sim(opts, &sim);
	if (ret)
		return kapi_return(ret);
	nr_devs = opts->nr_devices ? opts->nr_devices : 1;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return kapi_return(-ENOMEM);
	snprintf(name, sizeof(name), "vfio-dev%lu", ++kapi_vfio_dev_serial);
	dev->idev = sim_iommu_device_create_opts(name, opts->fmt, NULL, &sim);
	if (IS_ERR(dev->idev)) {
		ret = PTR_ERR(dev->idev);
		kfree(dev);
		return kapi_return(ret);
	}
	while (dev->nr_peers + 1 < nr_devs) {
		struct device *peer;

		snprintf(name, sizeof(name), "vfio-dev%lu.%u",
			 kapi_vfio_dev_serial, dev->nr_peers + 1);
		peer = sim_iommu_device_create_opts(name, opts->fmt, dev->idev,
						    &sim);
		if (IS_ERR(peer)) {
			kapi_vfio_destroy_group_devs(dev);
			kfree(dev);
			return kapi_return(PTR_ERR(peer));
		}
		dev->peers[dev->nr_peers++] = peer;
	}
	dev->group = dev->idev->iommu_group;
	ret = kapi_vfio_attach(c, dev);
	if (ret) {
		kapi_vfio_destroy_group_devs(dev);
		kfree(dev);
		return kapi_return(ret);
	}
	*out = dev;
	return kapi_return(0);
}

long kapi_vfio_attach_group_of(struct kapi_vfio *c, struct kapi_vfio_dev *dev)
{
	return kapi_return(c->ops->attach_group(c->data, dev->group,
						dev->emulated ?
						VFIO_EMULATED_IOMMU :
						VFIO_IOMMU));
}

void kapi_vfio_detach_group_of(struct kapi_vfio *c, struct kapi_vfio_dev *dev)
{
	c->ops->detach_group(c->data, dev->group);
	kapi_user_return();
}

int kapi_vfio_group_iommu_domain(struct kapi_vfio *c, struct kapi_vfio_dev *dev,
				 struct sim_iommu_domain **sd)
{
	const struct vfio_iommu_driver_ops *ops = c ? c->ops :
					vfio_shim_first_backend();
	struct iommu_domain *domain;

	if (!ops)
		return kapi_return(-ENODEV);
	if (!ops->group_iommu_domain)
		return kapi_return(-ENOTTY);
	domain = ops->group_iommu_domain(c ? c->data : NULL,
					 dev ? dev->group : NULL);
	if (IS_ERR(domain))
		return kapi_return(PTR_ERR(domain));
	*sd = sim_iommu_domain_of(domain);
	return kapi_return(0);
}

long kapi_vfio_check_extension_no_container(unsigned long ext)
{
	const struct vfio_iommu_driver_ops *ops = vfio_shim_first_backend();

	if (!ops)
		return kapi_return(-ENODEV);
	return kapi_return(ops->ioctl(NULL, VFIO_CHECK_EXTENSION, ext));
}

void kapi_vfio_release_attached(struct kapi_vfio *c)
{
	struct kapi_vfio_dev *dev, *tmp;

	kapi_vfio_notify_close(c);
	list_for_each_entry(dev, &c->devices, next) {
		if (!dev->emulated && !dev->pinning)
			continue;
		while (dev->nr_pins) {
			c->ops->unpin_pages(c->data, dev->pins[0].iova, 1);
			kapi_vfio_forget_pin(dev, &dev->pins[0]);
		}
		c->ops->unregister_device(c->data, &dev->vdev);
	}
	c->ops->release(c->data);
	list_for_each_entry_safe(dev, tmp, &c->devices, next) {
		list_del(&dev->next);
		kapi_vfio_dev_put(dev);
	}
	kfree(c);
	kapi_vfio_open_count--;
	kapi_user_return();
}

int kapi_vfio_dev_msi_cookie(struct kapi_vfio_dev *dev,
			     unsigned long long *base)
{
	struct iommu_domain *domain = kapi_vfio_dev_domain(dev);
	u64 b;
	int ret;

	if (!domain)
		return kapi_return(-ENODEV);
	ret = sim_iommu_domain_msi_cookie(domain, &b);
	if (!ret)
		*base = b;
	return kapi_return(ret);
}

void kapi_vfio_set_dma_iommu(int on)
{
	sim_iommu_set_dma_iommu(on);
}

/* A mediated device that never pins: nothing to tell it about unmaps. */
static const struct vfio_device_ops kapi_vfio_nopin_ops = {
	.name = "dmasim-mdev-nopin",
};

int kapi_vfio_attach_emulated_dev_without_unmap(struct kapi_vfio *c,
						struct kapi_vfio_dev **out)
{
	return kapi_return(kapi_vfio_attach_emulated(c, &kapi_vfio_nopin_ops, out));
}
