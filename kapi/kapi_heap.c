// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points to the dma-buf heap path (<dmasim/kapi_heap.h>).
 * Everything goes through the interfaces userspace and importers use: the
 * heap's character device and its ioctl, dma-buf fds, the dma-buf API and
 * the DMA API.  No heap-internal function is called.
 */
#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/fdtable.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <uapi/linux/dma-buf.h>
#include <uapi/linux/dma-heap.h>

#include "kapi_door.h"
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>
#include <shim/fs.h>
#include <shim/dma_debug.h>
#include <shim/sg_table.h>
#include <linux/iommu.h>
#include <linux/iommu-dma.h>
#include <shim/iommu_sim.h>

static_assert(sizeof(struct kapi_dma_heap_allocation_data) ==
	      sizeof(struct dma_heap_allocation_data));
static_assert(KAPI_DMA_HEAP_IOCTL_ALLOC == DMA_HEAP_IOCTL_ALLOC);
static_assert(KAPI_O_CLOEXEC == O_CLOEXEC && KAPI_O_RDWR == O_RDWR &&
	      KAPI_O_WRONLY == O_WRONLY && KAPI_O_RDONLY == O_RDONLY &&
	      KAPI_O_ACCMODE == O_ACCMODE);
static_assert(KAPI_DMA_BUF_SYNC_RW == DMA_BUF_SYNC_RW &&
	      KAPI_DMA_BUF_SYNC_END == DMA_BUF_SYNC_END);
static_assert(KAPI_DMA_BIDIRECTIONAL == (int)DMA_BIDIRECTIONAL &&
	      KAPI_DMA_TO_DEVICE == (int)DMA_TO_DEVICE &&
	      KAPI_DMA_FROM_DEVICE == (int)DMA_FROM_DEVICE);

int kapi_heap_open(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/dma_heap/%s", name);
	return kapi_return(shim_open_devnode(path, O_RDONLY | O_CLOEXEC));
}

int kapi_heap_alloc(int heap_fd, unsigned long long len, unsigned int fd_flags,
		    unsigned long long heap_flags)
{
	struct dma_heap_allocation_data data = {
		.len = len,
		.fd = 0,
		.fd_flags = fd_flags,
		.heap_flags = heap_flags,
	};
	long ret;

	ret = kapi_ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &data);
	return ret ? ret : (int)data.fd;
}

/* arg is the caller's host memory, _IOC_SIZE(cmd) bytes (see uaccess.h). */
long kapi_ioctl(int fd, unsigned int cmd, void *arg)
{
	long ret;

	if (fd < 0)
		return kapi_return(-EBADF);
	dmasim_uaccess_host_ranges(arg, _IOC_SIZE(cmd), NULL, 0);
	ret = shim_ioctl(fd, cmd, (unsigned long)arg);
	dmasim_uaccess_host_ranges(NULL, 0, NULL, 0);
	return kapi_return(ret);
}

int kapi_fcntl_getfl(int fd)
{
	if (fd < 0)
		return kapi_return(-EBADF);
	return kapi_return(shim_fcntl_getfl(fd));
}

long kapi_pread(int fd, void *buf, unsigned long count, long long pos)
{
	long ret;

	if (fd < 0)
		return kapi_return(-EBADF);
	dmasim_uaccess_host_ranges(buf, count, NULL, 0);
	ret = shim_pread(fd, buf, count, pos);
	dmasim_uaccess_host_ranges(NULL, 0, NULL, 0);
	return kapi_return(ret);
}

int kapi_close(int fd)
{
	if (fd < 0)
		return kapi_return(-EBADF);
	return kapi_return(close_fd(fd));
}

unsigned int kapi_nr_open_fds(void)
{
	return shim_nr_open_fds();
}

unsigned long kapi_nr_files(void)
{
	return shim_nr_files();
}

int kapi_devnode_numbers(const char *path, unsigned int *major,
			 unsigned int *minor)
{
	dev_t devt;
	int ret = shim_devnode_devt(path, &devt);

	if (!ret) {
		*major = MAJOR(devt);
		*minor = MINOR(devt);
	}
	return kapi_return(ret);
}

int kapi_chrdev_open(unsigned int major, unsigned int minor)
{
	return kapi_return(shim_open_chrdev(MKDEV(major, minor),
					    O_RDONLY | O_CLOEXEC));
}

int kapi_chrdev_region_register(unsigned int major, unsigned int minor,
				unsigned int count)
{
	return kapi_return(register_chrdev_region(MKDEV(major, minor), count,
						  "kapi"));
}

void kapi_chrdev_region_unregister(unsigned int major, unsigned int minor,
				   unsigned int count)
{
	unregister_chrdev_region(MKDEV(major, minor), count);
	kapi_user_return();
}

unsigned int kapi_nr_char_devices(void)
{
	return shim_nr_cdevs();
}

void kapi_chrdev_open_race_set(void (*hook)(void *arg), void *arg)
{
	shim_chrdev_open_race_set(hook, arg);
}

unsigned int kapi_nr_device_nodes(void)
{
	return shim_nr_devices();
}

/* ------------------------------------------------------------------------
 * Devices.
 */
struct kapi_dev {
	struct device *dev;		/* &direct, or the simulated IOMMU's */
	struct device direct;
	struct device_dma_parameters dma_parms;
	u64 dma_mask;
	bool behind_iommu;
};

/* What the bus and the driver's probe set up before DMA. */
static void kapi_dev_dma_init(struct kapi_dev *kd,
			      const struct kapi_dev_opts *o)
{
	struct device *dev = kd->dev;

	if (!dev->dma_mask)
		dev->dma_mask = &kd->dma_mask;
	dev->dma_parms = &kd->dma_parms;
	dev->dma_coherent = true;
	dev->untrusted = o->untrusted;
	dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (o->max_seg_size)
		dma_set_max_seg_size(dev, o->max_seg_size);
	if (o->seg_boundary)
		dma_set_seg_boundary(dev, o->seg_boundary);
}

int kapi_dev_create_opts(const struct kapi_dev_opts *o, struct kapi_dev **devp)
{
	struct kapi_dev *kd;
	struct device *dev;

	if (o->format != KAPI_DEV_NO_IOMMU &&
	    (o->format < 0 || o->format >= SIM_NR_IOMMU_FORMATS))
		return -EINVAL;
	kd = kzalloc(sizeof(*kd), GFP_KERNEL);
	if (!kd)
		return -ENOMEM;
	if (o->format == KAPI_DEV_NO_IOMMU) {
		kd->direct.init_name = "kapi-dmabuf-importer";
		kd->dev = &kd->direct;
	} else {
		dev = sim_iommu_device_create("kapi-dmabuf-importer", o->format,
					      NULL);
		if (IS_ERR(dev)) {
			kfree(kd);
			return PTR_ERR(dev);
		}
		kd->dev = dev;
		kd->behind_iommu = true;
		iommu_setup_dma_ops(dev);
		/* A driver that needs its IOMMU fails its probe without it. */
		if (!dev->dma_iommu) {
			sim_iommu_device_destroy(dev);
			kfree(kd);
			return -EINVAL;
		}
	}
	kapi_dev_dma_init(kd, o);
	*devp = kd;
	return 0;
}

int kapi_dev_create(int format, unsigned int max_seg_size,
		    struct kapi_dev **devp)
{
	struct kapi_dev_opts o = { .format = format,
				   .max_seg_size = max_seg_size };

	return kapi_dev_create_opts(&o, devp);
}

int kapi_dev_format_backs_dma_api(int format)
{
	return format >= 0 && format < SIM_NR_IOMMU_FORMATS &&
	       sim_iommu_format(format)->granule_shift <= PAGE_SHIFT;
}

void kapi_dev_destroy(struct kapi_dev *kd)
{
	if (!kd)
		return;
	debug_dma_device_release(kd->dev);
	if (kd->behind_iommu) {
		kd->dev->dma_parms = NULL;
		sim_iommu_device_destroy(kd->dev);
	}
	kfree(kd);
}

struct sim_iommu_domain *kapi_dev_sim_domain(const struct kapi_dev *kd)
{
	if (!kd->behind_iommu)
		return NULL;
	return sim_iommu_domain_of(iommu_get_dma_domain(kd->dev));
}

/* ------------------------------------------------------------------------
 * Attachments.
 */
struct kapi_attach {
	struct kapi_dev *kdev;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
};

int kapi_dmabuf_attach(int buf_fd, struct kapi_dev *kd,
		       struct kapi_attach **attachp)
{
	struct kapi_attach *ka;
	struct dma_buf *dmabuf;
	int ret;

	dmabuf = dma_buf_get(buf_fd);
	if (IS_ERR(dmabuf))
		return kapi_return(PTR_ERR(dmabuf));
	ka = kzalloc(sizeof(*ka), GFP_KERNEL);
	if (!ka) {
		ret = -ENOMEM;
		goto err_put;
	}
	ka->attach = dma_buf_attach(dmabuf, kd->dev);
	if (IS_ERR(ka->attach)) {
		ret = PTR_ERR(ka->attach);
		kfree(ka);
		goto err_put;
	}
	ka->kdev = kd;
	ka->dmabuf = dmabuf;
	*attachp = ka;
	return kapi_return(0);

err_put:
	dma_buf_put(dmabuf);
	return kapi_return(ret);
}

void kapi_dmabuf_detach(struct kapi_attach *ka)
{
	if (!ka)
		return;
	kapi_dmabuf_unmap(ka);
	dma_buf_detach(ka->dmabuf, ka->attach);
	dma_buf_put(ka->dmabuf);
	kfree(ka);
	kapi_user_return();
}

int kapi_dmabuf_map(struct kapi_attach *ka, int dir)
{
	struct sg_table *sgt;

	if (ka->sgt)
		return kapi_return(-EBUSY);
	if (!valid_dma_direction(dir))
		return kapi_return(-EINVAL);
	sgt = dma_buf_map_attachment_unlocked(ka->attach, dir);
	if (IS_ERR(sgt))
		return kapi_return(PTR_ERR(sgt));
	ka->sgt = sgt;
	ka->dir = dir;
	return kapi_return(sgt->nents);
}

void kapi_dmabuf_unmap(struct kapi_attach *ka)
{
	if (!ka->sgt)
		return;
	dma_buf_unmap_attachment_unlocked(ka->attach, ka->sgt, ka->dir);
	ka->sgt = NULL;
	kapi_user_return();
}

unsigned int kapi_attach_nr_entries(const struct kapi_attach *ka)
{
	return ka->sgt ? ka->sgt->orig_nents : 0;
}

unsigned int kapi_attach_nr_segments(const struct kapi_attach *ka)
{
	return ka->sgt ? ka->sgt->nents : 0;
}

/* Entry i of a table, both sides. */
static int kapi_sg_entry_of(struct sg_table *sgt, unsigned int i,
			    struct kapi_sg_entry *entry)
{
	struct scatterlist *sg;

	if (!sgt || i >= sgt->orig_nents)
		return -EINVAL;
	sg = shim_sg_table_entry(sgt, i);
	entry->pfn = page_to_pfn(sg_page(sg));
	entry->offset = sg->offset;
	entry->length = sg->length;
	entry->dma_address = sg_dma_address(sg);
	entry->dma_length = sg_dma_len(sg);
	return 0;
}

int kapi_attach_sg_entry(const struct kapi_attach *ka, unsigned int i,
			 struct kapi_sg_entry *entry)
{
	return kapi_sg_entry_of(ka->sgt, i, entry);
}

struct cover_walk {
	unsigned long long start, last;
	struct kapi_iommu_cover *cover;
};

static int cover_count_leaf(void *arg, unsigned long long iova,
			    sim_phys_t paddr, unsigned long long size, int prot)
{
	struct cover_walk *w = arg;

	if (iova < w->start || iova > w->last)
		return 0;
	w->cover->nr_leaves++;
	w->cover->leaves_by_shift[ilog2(size)]++;
	return 0;
}

int kapi_attach_iommu_cover(const struct kapi_attach *ka,
			    struct kapi_iommu_cover *cover)
{
	struct sim_iommu_domain *sdom = kapi_dev_sim_domain(ka->kdev);
	unsigned long long start = 0, last = 0, granule, win, leaf_iova;
	struct cover_walk walk;
	struct scatterlist *sg;
	unsigned int i;
	int prot;

	if (!ka->sgt || !sdom)
		return -EINVAL;
	memset(cover, 0, sizeof(*cover));
	/* Last byte, not end: the range may end at 2^64 (64-bit apertures). */
	for_each_sgtable_dma_sg(ka->sgt, sg, i) {
		if (!i)
			start = sg_dma_address(sg);
		last = sg_dma_address(sg) + sg_dma_len(sg) - 1;
	}
	granule = 1ULL << sim_iommu_domain_format(sdom)->granule_shift;
	start = ALIGN_DOWN(start, granule);
	last |= granule - 1;
	cover->iova_start = start;
	cover->iova_size = last - start + 1;

	walk.start = start;
	walk.last = last;
	walk.cover = cover;
	sim_iommu_for_each_leaf(sdom, cover_count_leaf, &walk);

	for (win = ALIGN(start, SZ_2M); win >= start && win + (SZ_2M - 1) <= last &&
	     win + (SZ_2M - 1) >= win; win += SZ_2M) {
		cover->windows_2m++;
		if (sim_iommu_leaf_at(sdom, win, &leaf_iova, &prot) >= SZ_2M)
			cover->windows_2m_superpage++;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Lists of one's own through the streaming DMA API.
 */
struct kapi_dma_list {
	struct kapi_dev *kdev;
	struct sg_table sgt;
};

int kapi_dma_list_map(struct kapi_dev *kd, const struct kapi_sg_entry *entries,
		      unsigned int n, int dir, struct kapi_dma_list **listp)
{
	struct kapi_dma_list *l;
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	if (!valid_dma_direction(dir))
		return -EINVAL;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return kapi_return(-ENOMEM);
	ret = sg_alloc_table(&l->sgt, n, GFP_KERNEL);
	if (ret)
		goto free;
	for_each_sgtable_sg(&l->sgt, sg, i)
		sg_set_page(sg, pfn_to_page(entries[i].pfn), entries[i].length,
			    entries[i].offset);
	l->kdev = kd;
	ret = dma_map_sgtable(kd->dev, &l->sgt, dir, 0);
	if (ret) {
		sg_free_table(&l->sgt);
		goto free;
	}
	*listp = l;
	return kapi_return(l->sgt.nents);
free:
	kfree(l);
	return kapi_return(ret);
}

void kapi_dma_list_unmap(struct kapi_dma_list *l, int nents, int dir)
{
	dma_unmap_sg(l->kdev->dev, l->sgt.sgl, nents, dir);
	kapi_dma_list_free(l);
}

void kapi_dma_list_free(struct kapi_dma_list *l)
{
	sg_free_table(&l->sgt);
	kfree(l);
	kapi_user_return();
}

void kapi_dma_list_sync(struct kapi_dma_list *l, int nents, int dir,
			int for_device)
{
	if (for_device)
		dma_sync_sg_for_device(l->kdev->dev, l->sgt.sgl, nents, dir);
	else
		dma_sync_sg_for_cpu(l->kdev->dev, l->sgt.sgl, nents, dir);
	kapi_user_return();
}

int kapi_dma_list_entry(const struct kapi_dma_list *l, unsigned int i,
			struct kapi_sg_entry *entry)
{
	return kapi_sg_entry_of((struct sg_table *)&l->sgt, i, entry);
}

int kapi_dma_list_is_swiotlb(const struct kapi_dma_list *l)
{
	return sg_dma_is_swiotlb(l->sgt.sgl);
}

/* ------------------------------------------------------------------------
 * CPU access.
 */
int kapi_dmabuf_vmap(int buf_fd, void **vaddr)
{
	struct dma_buf *dmabuf = dma_buf_get(buf_fd);
	struct iosys_map map;
	int ret;

	if (IS_ERR(dmabuf))
		return kapi_return(PTR_ERR(dmabuf));
	ret = dma_buf_vmap_unlocked(dmabuf, &map);
	if (ret) {
		dma_buf_put(dmabuf);
		return kapi_return(ret);
	}
	*vaddr = map.vaddr;
	return kapi_return(0);
}

int kapi_dmabuf_vunmap_map(int buf_fd, void **vaddr)
{
	struct dma_buf *dmabuf = dma_buf_get(buf_fd);
	struct iosys_map map = IOSYS_MAP_INIT_VADDR(*vaddr);

	if (IS_ERR(dmabuf))
		return kapi_return(PTR_ERR(dmabuf));
	dma_buf_vunmap_unlocked(dmabuf, &map);
	*vaddr = iosys_map_is_null(&map) ? NULL : map.vaddr;
	/* This lookup's reference, and the one kapi_dmabuf_vmap() kept. */
	dma_buf_put(dmabuf);
	dma_buf_put(dmabuf);
	return kapi_return(0);
}

int kapi_dmabuf_vunmap(int buf_fd, void *vaddr)
{
	return kapi_dmabuf_vunmap_map(buf_fd, &vaddr);
}

int kapi_dmabuf_exp_name(int buf_fd, char *name, unsigned long len)
{
	struct dma_buf *dmabuf = dma_buf_get(buf_fd);

	if (IS_ERR(dmabuf))
		return kapi_return(PTR_ERR(dmabuf));
	strscpy(name, dmabuf->exp_name ? dmabuf->exp_name : "", len);
	dma_buf_put(dmabuf);
	return kapi_return(0);
}

static int kapi_cpu_access(int buf_fd, int dir, bool begin)
{
	struct dma_buf *dmabuf = dma_buf_get(buf_fd);
	int ret;

	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (!valid_dma_direction(dir))
		ret = -EINVAL;
	else if (begin)
		ret = dma_buf_begin_cpu_access(dmabuf, dir);
	else
		ret = dma_buf_end_cpu_access(dmabuf, dir);
	dma_buf_put(dmabuf);
	return ret;
}

int kapi_dmabuf_begin_cpu_access(int buf_fd, int dir)
{
	return kapi_return(kapi_cpu_access(buf_fd, dir, true));
}

int kapi_dmabuf_end_cpu_access(int buf_fd, int dir)
{
	return kapi_return(kapi_cpu_access(buf_fd, dir, false));
}

int kapi_dmabuf_sync(int buf_fd, unsigned long long flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return kapi_ioctl(buf_fd, DMA_BUF_IOCTL_SYNC, &sync);
}

int kapi_dmabuf_mmap(int buf_fd, unsigned long long pgoff, unsigned long len,
		     int writable, unsigned long *addr)
{
	struct kapi_mm_map m = {
		.len = len, .kind = KAPI_MM_IO, .writable = writable,
	};
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct dma_buf *dmabuf;
	int ret;

	if (!mm)
		return kapi_return(-EINVAL);
	dmabuf = dma_buf_get(buf_fd);
	if (IS_ERR(dmabuf))
		return kapi_return(PTR_ERR(dmabuf));
	ret = kapi_mm_mmap(&m, addr);
	if (ret)
		goto out;
	mmap_write_lock(mm);
	vma = vma_lookup(mm, *addr);
	ret = dma_buf_mmap(dmabuf, vma, pgoff);
	mmap_write_unlock(mm);
	if (ret)
		kapi_mm_munmap(*addr);
out:
	dma_buf_put(dmabuf);
	return kapi_return(ret);
}

/* ------------------------------------------------------------------------
 * Test heaps.
 */
static struct dma_buf *kapi_test_heap_allocate(struct dma_heap *heap,
						unsigned long len, u32 fd_flags,
						u64 heap_flags)
{
	struct kapi_heap_request *req = dma_heap_get_drvdata(heap);

	req->calls++;
	req->len = len;
	req->fd_flags = fd_flags;
	req->heap_flags = heap_flags;
	strscpy(req->name, dma_heap_get_name(heap), sizeof(req->name));
	return ERR_PTR(req->ret);
}

static const struct dma_heap_ops kapi_test_heap_ops = {
	.allocate = kapi_test_heap_allocate,
};
static const struct dma_heap_ops kapi_test_heap_no_allocate;

int kapi_heap_add(const char *name, enum kapi_heap_ops ops,
		  struct kapi_heap_request *req)
{
	struct dma_heap_export_info exp_info = { .priv = req };
	struct dma_heap *heap;
	char *dup = NULL;

	if (name) {
		/* The heap keeps the pointer: a copy that lives as long. */
		dup = kstrdup(name, GFP_KERNEL);
		if (!dup)
			return -ENOMEM;
	}
	exp_info.name = dup;
	exp_info.ops = ops == KAPI_HEAP_OPS ? &kapi_test_heap_ops :
		       ops == KAPI_HEAP_OPS_NO_ALLOCATE ?
		       &kapi_test_heap_no_allocate : NULL;
	heap = dma_heap_add(&exp_info);
	if (IS_ERR(heap)) {
		kfree(dup);
		return PTR_ERR(heap);
	}
	if (req)
		strscpy(req->added_name, heap ? dma_heap_get_name(heap) : "",
			sizeof(req->added_name));
	return 0;
}

/* ------------------------------------------------------------------------
 * Layout.
 */
int kapi_dmabuf_layout(int buf_fd, struct kapi_heap_layout *layout)
{
	/* It takes any segment: one block each, as long as the block. */
	static const struct kapi_dev_opts layout_reader = {
		.format = KAPI_DEV_NO_IOMMU, .max_seg_size = UINT_MAX,
	};
	struct kapi_dev kd = { 0 };
	struct kapi_attach *ka;
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	kd.direct.init_name = "kapi-layout";
	kd.dev = &kd.direct;
	kapi_dev_dma_init(&kd, &layout_reader);
	ret = kapi_dmabuf_attach(buf_fd, &kd, &ka);
	if (ret)
		return ret;
	ret = kapi_dmabuf_map(ka, DMA_BIDIRECTIONAL);
	if (ret < 0)
		goto out;
	memset(layout, 0, sizeof(*layout));
	for_each_sgtable_sg(ka->sgt, sg, i) {
		unsigned long pages = sg->length >> PAGE_SHIFT;

		layout->bytes += sg->length;
		layout->nr_chunks++;
		if (!sg->offset && is_power_of_2(pages) &&
		    (pages << PAGE_SHIFT) == sg->length &&
		    ilog2(pages) < SIM_NR_ORDERS)
			layout->chunks_by_order[ilog2(pages)]++;
		else
			layout->other_chunks++;
	}
	ret = 0;
out:
	kapi_dmabuf_detach(ka);
	return ret;
}
