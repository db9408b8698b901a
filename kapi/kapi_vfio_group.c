// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points into the VFIO container and group interface
 * (<dmasim/kapi_vfio_group.h>): fds opened, ioctl'd and mmapped as a VMM
 * does, and simulated vfio-pci devices to put behind them.
 */
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include <shim/fs.h>
#include <shim/vfio_core.h>
#include <shim/vfio_iommu_driver.h>
#include <shim/vfio_pci_sim.h>

#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include "kapi_door.h"
#include <dmasim/kapi_vfio_group.h>

static_assert(KAPI_VFIO_GET_API_VERSION == VFIO_GET_API_VERSION &&
	      KAPI_VFIO_SET_IOMMU == VFIO_SET_IOMMU &&
	      KAPI_VFIO_GROUP_GET_STATUS == VFIO_GROUP_GET_STATUS &&
	      KAPI_VFIO_GROUP_SET_CONTAINER == VFIO_GROUP_SET_CONTAINER &&
	      KAPI_VFIO_GROUP_UNSET_CONTAINER == VFIO_GROUP_UNSET_CONTAINER &&
	      KAPI_VFIO_GROUP_GET_DEVICE_FD == VFIO_GROUP_GET_DEVICE_FD &&
	      KAPI_VFIO_DEVICE_GET_INFO == VFIO_DEVICE_GET_INFO &&
	      KAPI_VFIO_DEVICE_GET_REGION_INFO == VFIO_DEVICE_GET_REGION_INFO);
static_assert(KAPI_VFIO_GROUP_STATUS_ARGSZ == sizeof(struct vfio_group_status) &&
	      KAPI_VFIO_REGION_INFO_ARGSZ == sizeof(struct vfio_region_info));
static_assert(KAPI_VFIO_PCI_BAR_IO == VFIO_PCI_SIM_BAR_IO &&
	      KAPI_VFIO_PCI_BAR_64 == VFIO_PCI_SIM_BAR_64);

int kapi_vfio_container_fd_open(void)
{
	return kapi_return(shim_open_devnode("/dev/vfio/vfio", O_RDWR));
}

int kapi_vfio_group_fd_open(int group_id)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/vfio/%d", group_id);
	return kapi_return(shim_open_devnode(path, O_RDWR));
}

long kapi_vfio_ioctl_val(int fd, unsigned int cmd, unsigned long arg)
{
	if (fd < 0)
		return kapi_return(-EBADF);
	return kapi_return(shim_ioctl(fd, cmd, arg));
}

long kapi_vfio_ioctl_buf(int fd, unsigned int cmd, void *buf,
			 unsigned long len)
{
	long ret;

	if (fd < 0)
		return kapi_return(-EBADF);
	dmasim_uaccess_host_ranges(buf, len, NULL, 0);
	ret = shim_ioctl(fd, cmd, (unsigned long)buf);
	dmasim_uaccess_host_ranges(NULL, 0, NULL, 0);
	return kapi_return(ret);
}

long kapi_vfio_group_get_status(int group_fd, unsigned int argsz,
				unsigned int *flags)
{
	struct vfio_group_status status = { .argsz = argsz };
	long ret;

	ret = kapi_vfio_ioctl_buf(group_fd, VFIO_GROUP_GET_STATUS, &status,
				  sizeof(status));
	if (!ret && flags)
		*flags = status.flags;
	return ret;
}

long kapi_vfio_group_set_container(int group_fd, int container_fd)
{
	int fd = container_fd;

	return kapi_vfio_ioctl_buf(group_fd, VFIO_GROUP_SET_CONTAINER, &fd,
				   sizeof(fd));
}

long kapi_vfio_group_unset_container(int group_fd)
{
	return kapi_vfio_ioctl_val(group_fd, VFIO_GROUP_UNSET_CONTAINER, 0);
}

int kapi_vfio_group_get_device_fd(int group_fd, const char *name)
{
	return kapi_vfio_ioctl_buf(group_fd, VFIO_GROUP_GET_DEVICE_FD,
				   (void *)name, strlen(name) + 1);
}

long kapi_vfio_device_get_info(int device_fd,
			       struct kapi_vfio_device_info *out)
{
	struct vfio_device_info info = { .argsz = sizeof(info) };
	long ret;

	ret = kapi_vfio_ioctl_buf(device_fd, VFIO_DEVICE_GET_INFO, &info,
				  sizeof(info));
	if (!ret) {
		out->flags = info.flags;
		out->num_regions = info.num_regions;
		out->num_irqs = info.num_irqs;
	}
	return ret;
}

long kapi_vfio_device_get_region_info(int device_fd, unsigned int index,
				      unsigned int argsz,
				      struct kapi_vfio_region_info *out)
{
	union {
		struct vfio_region_info info;
		u8 bytes[sizeof(struct vfio_region_info) + 32];
	} buf = { .info = { .argsz = argsz, .index = index } };
	struct vfio_region_info *info = &buf.info;
	long ret;

	if (argsz > sizeof(buf))
		return -EINVAL;
	ret = kapi_vfio_ioctl_buf(device_fd, VFIO_DEVICE_GET_REGION_INFO, &buf,
				  sizeof(buf));
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->argsz = info->argsz;
	out->flags = info->flags;
	out->cap_offset = info->cap_offset;
	out->size = info->size;
	out->offset = info->offset;
	if (info->cap_offset) {
		u32 at = info->cap_offset;

		while (at && at + sizeof(struct vfio_info_cap_header) <= argsz) {
			struct vfio_info_cap_header *cap =
				(void *)(buf.bytes + at);

			if (cap->id == VFIO_REGION_INFO_CAP_MSIX_MAPPABLE)
				out->msix_mappable = 1;
			at = cap->next;
		}
	}
	return 0;
}

int kapi_vfio_device_mmap(int device_fd, const struct kapi_vfio_mmap *m,
			  unsigned long *addr)
{
	struct kapi_mm_map map = {
		.addr = m->addr, .len = m->len, .kind = KAPI_MM_IO,
		.writable = 1, .align = m->align, .misalign = m->misalign,
		.pgoff = ((unsigned long)m->index <<
			  (KAPI_VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)) +
			 (m->offset >> PAGE_SHIFT),
	};
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct file *file;
	unsigned long va;
	int ret;

	if (!mm)
		return kapi_return(-EINVAL);
	if (m->offset & ~PAGE_MASK || m->index >= 1U << (63 - KAPI_VFIO_PCI_OFFSET_SHIFT))
		return kapi_return(-EINVAL);
	file = device_fd < 0 ? NULL : fget(device_fd);
	if (!file)
		return kapi_return(-EBADF);
	if (!file->f_op->mmap) {
		ret = -ENODEV;
		goto out_put;
	}
	ret = kapi_mm_mmap(&map, &va);
	if (ret)
		goto out_put;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, va);
	if (!m->shared)
		vm_flags_clear(vma, VM_SHARED | VM_MAYSHARE);
	ret = file->f_op->mmap(file, vma);
	if (!ret) {
		vma->vm_file = file;	/* the mapping holds the file */
		ret = shim_vma_use_vm_ops(vma);
	} else {
		fput(file);
	}
	mmap_write_unlock(mm);
	if (ret) {
		kapi_mm_munmap(va);	/* and the file with it, if it took it */
		return kapi_return(ret);
	}
	*addr = va;
	return kapi_return(0);

out_put:
	fput(file);
	return kapi_return(ret);
}

long kapi_vfio_fd_map_dma(int container_fd, unsigned long long vaddr,
			  unsigned long long iova, unsigned long long size,
			  unsigned int flags)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map), .flags = flags, .vaddr = vaddr,
		.iova = iova, .size = size,
	};

	return kapi_vfio_ioctl_buf(container_fd, VFIO_IOMMU_MAP_DMA, &map,
				   sizeof(map));
}

long kapi_vfio_fd_unmap_dma(int container_fd, unsigned long long iova,
			    unsigned long long size,
			    unsigned long long *unmapped)
{
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap), .iova = iova, .size = size,
	};
	long ret;

	ret = kapi_vfio_ioctl_buf(container_fd, VFIO_IOMMU_UNMAP_DMA, &unmap,
				  sizeof(unmap));
	if (!ret && unmapped)
		*unmapped = unmap.size;
	return ret;
}

/* ---- simulated vfio-pci devices ---- */

struct kapi_vfio_pci {
	struct vfio_pci_sim *sim;
	char name[32];
};

static unsigned long kapi_vfio_pci_alive;
static unsigned long kapi_vfio_pci_serial;

int kapi_vfio_pci_create(const struct kapi_vfio_pci_opts *o,
			 struct kapi_vfio_pci **out)
{
	struct vfio_pci_sim_opts opts = {
		.fmt = o->fmt,
		.bar_misalign = o->bar_misalign,
		.msix_bar = o->has_msix ? (int)o->msix_bar : -1,
		.group_peer = o->group_peer ?
			      vfio_pci_sim_dev(o->group_peer->sim) : NULL,
		.host_driver = o->host_driver,
		.no_feature_op = o->no_feature_op,
	};
	struct kapi_vfio_pci *p;
	unsigned int i;

	for (i = 0; i < VFIO_PCI_SIM_NR_BARS; i++) {
		opts.bar_size[i] = o->bar_size[i];
		opts.bar_flags[i] = o->bar_flags[i];
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return kapi_return(-ENOMEM);
	/* A PCI address, as vfio-pci devices are named. */
	snprintf(p->name, sizeof(p->name), "0000:%02lx:00.0",
		 ++kapi_vfio_pci_serial & 0xff);
	p->sim = vfio_pci_sim_create(p->name, &opts);
	if (IS_ERR(p->sim)) {
		int ret = PTR_ERR(p->sim);

		kfree(p);
		return kapi_return(ret);
	}
	kapi_vfio_pci_alive++;
	*out = p;
	return kapi_return(0);
}

void kapi_vfio_pci_destroy(struct kapi_vfio_pci *p)
{
	vfio_pci_sim_destroy(p->sim);
	kfree(p);
	kapi_vfio_pci_alive--;
	kapi_user_return();
}

const char *kapi_vfio_pci_name(const struct kapi_vfio_pci *p)
{
	return p->name;
}

int kapi_vfio_pci_group_id(const struct kapi_vfio_pci *p)
{
	return iommu_group_id(vfio_pci_sim_dev(p->sim)->iommu_group);
}

unsigned long kapi_vfio_pci_bar_pfn(const struct kapi_vfio_pci *p,
				    unsigned int bar)
{
	return vfio_pci_sim_bar_pfn(p->sim, bar);
}

void kapi_vfio_pci_set_memory(struct kapi_vfio_pci *p, int on)
{
	vfio_pci_sim_set_memory(p->sim, on);
	kapi_user_return();
}

void kapi_vfio_pci_stats(const struct kapi_vfio_pci *p,
			 struct kapi_vfio_pci_stats *s)
{
	struct vfio_pci_sim_stats st;

	vfio_pci_sim_stats(p->sim, &st);
	s->faults_pte = st.faults[0];
	s->faults_pmd = st.faults[1];
	s->faults_pud = st.faults[2];
	s->fallbacks = st.fallbacks;
	s->sigbus = st.sigbus;
	s->zaps = st.zaps;
	s->opens = st.opens;
	s->closes = st.closes;
	s->features = st.features;
	s->low_power = st.low_power;
	s->requests = st.requests;
	s->request_count = st.request_count;
	kapi_user_return();
}

unsigned long kapi_vfio_pci_nr_alive(void)
{
	return kapi_vfio_pci_alive;
}

int kapi_vfio_pci_register_again(struct kapi_vfio_pci *p)
{
	return kapi_return(vfio_pci_sim_register_again(p->sim));
}

int kapi_vfio_pci_rebind(struct kapi_vfio_pci *p)
{
	return kapi_return(vfio_pci_sim_rebind(p->sim));
}

int kapi_vfio_pci_register_without_iommu(void)
{
	return kapi_return(vfio_pci_sim_register_without_iommu());
}

/* The backend registered at boot (type1), remembered across unregister. */
static const struct vfio_iommu_driver_ops *kapi_vfio_backend(void)
{
	static const struct vfio_iommu_driver_ops *ops;

	if (!ops)
		ops = vfio_shim_first_backend();
	return ops;
}

int kapi_vfio_backend_register(void)
{
	const struct vfio_iommu_driver_ops *ops = kapi_vfio_backend();

	if (!ops)
		return kapi_return(-ENODEV);
	return kapi_return(vfio_register_iommu_driver(ops));
}

int kapi_vfio_backend_register_lopsided(int keep_register)
{
	static struct vfio_iommu_driver_ops lopsided;
	const struct vfio_iommu_driver_ops *ops = kapi_vfio_backend();

	if (!ops)
		return kapi_return(-ENODEV);
	lopsided = *ops;
	if (keep_register)
		lopsided.unregister_device = NULL;
	else
		lopsided.register_device = NULL;
	return kapi_return(vfio_register_iommu_driver(&lopsided));
}

void kapi_vfio_backend_unregister(void)
{
	const struct vfio_iommu_driver_ops *ops = kapi_vfio_backend();

	if (ops)
		vfio_unregister_iommu_driver(ops);
	kapi_user_return();
}
