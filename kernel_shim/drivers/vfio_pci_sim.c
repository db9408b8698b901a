// SPDX-License-Identifier: GPL-2.0-only
/*
 * A simulated vfio-pci device: see <shim/vfio_pci_sim.h> for what it
 * answers and what it leaves out.  dmasim's own code, written from
 * shared/kernel-notes/vfio-pci-bar-mmap.md (6.12.117 with the stable
 * backports of "Fallback huge faults for unaligned pfn" and "Align huge
 * faults to order").
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include <shim/iommu_sim.h>
#include <shim/vfio_pci_sim.h>

#include <dmasim/sim.h>

#define VFIO_PCI_OFFSET_SHIFT	40
#define VFIO_PCI_OFFSET_TO_INDEX(off)	((off) >> VFIO_PCI_OFFSET_SHIFT)
#define VFIO_PCI_INDEX_TO_OFFSET(index)	((u64)(index) << VFIO_PCI_OFFSET_SHIFT)
#define VFIO_PCI_OFFSET_MASK	((1ULL << VFIO_PCI_OFFSET_SHIFT) - 1)
#define VFIO_PCI_SIM_CFG_SIZE	4096

struct vfio_pci_sim_vma {
	struct list_head next;
	struct vm_area_struct *vma;
};

struct vfio_pci_sim {
	struct vfio_device vdev;
	struct device *dev;
	bool registered;
	u64 bar_size[VFIO_PCI_SIM_NR_BARS];
	unsigned long bar_pfn[VFIO_PCI_SIM_NR_BARS];
	unsigned int bar_flags[VFIO_PCI_SIM_NR_BARS];
	int msix_bar;
	bool host_driver;
	/* the virtual config space: from the first open to the last close */
	u8 *vconfig;
	/* memory decode (vconfig PCI_COMMAND's MEMORY bit), and the mmaps */
	struct rw_semaphore memory_lock;
	bool memory_enabled;
	struct list_head vmas;
	struct vfio_pci_sim_stats stats;
};

static struct vfio_pci_sim *to_sim(struct vfio_device *vdev)
{
	return container_of(vdev, struct vfio_pci_sim, vdev);
}

static bool bar_is_mem(struct vfio_pci_sim *p, unsigned int i)
{
	return p->bar_size[i] && !(p->bar_flags[i] & VFIO_PCI_SIM_BAR_IO);
}

/* vfio-pci maps memory BARs of a page or more (and page-aligned ones). */
static bool bar_mmap_supported(struct vfio_pci_sim *p, unsigned int i)
{
	return bar_is_mem(p, i) && p->bar_size[i] >= PAGE_SIZE;
}

/* ---- ioctls ---- */

static long vfio_pci_sim_get_info(struct vfio_pci_sim *p,
				  struct vfio_device_info __user *arg)
{
	unsigned long minsz = offsetofend(struct vfio_device_info, num_irqs);
	struct vfio_device_info info;

	if (copy_from_user(&info, arg, minsz))
		return -EFAULT;
	if (info.argsz < minsz)
		return -EINVAL;
	info.flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
	info.num_regions = VFIO_PCI_NUM_REGIONS;
	info.num_irqs = VFIO_PCI_NUM_IRQS;
	return copy_to_user(arg, &info, minsz) ? -EFAULT : 0;
}

static long vfio_pci_sim_get_region_info(struct vfio_pci_sim *p,
					 struct vfio_region_info __user *arg)
{
	unsigned long minsz = offsetofend(struct vfio_region_info, offset);
	struct vfio_info_cap caps = { .buf = NULL, .size = 0 };
	struct vfio_region_info info;
	long ret = 0;

	if (copy_from_user(&info, arg, minsz))
		return -EFAULT;
	if (info.argsz < minsz)
		return -EINVAL;

	switch (info.index) {
	case VFIO_PCI_CONFIG_REGION_INDEX:
		info.offset = VFIO_PCI_INDEX_TO_OFFSET(info.index);
		info.size = VFIO_PCI_SIM_CFG_SIZE;
		info.flags = VFIO_REGION_INFO_FLAG_READ |
			     VFIO_REGION_INFO_FLAG_WRITE;
		break;
	case VFIO_PCI_BAR0_REGION_INDEX ... VFIO_PCI_BAR5_REGION_INDEX:
		info.offset = VFIO_PCI_INDEX_TO_OFFSET(info.index);
		info.size = p->bar_size[info.index];
		if (!info.size) {
			info.flags = 0;
			break;
		}
		info.flags = VFIO_REGION_INFO_FLAG_READ |
			     VFIO_REGION_INFO_FLAG_WRITE;
		if (bar_mmap_supported(p, info.index)) {
			info.flags |= VFIO_REGION_INFO_FLAG_MMAP;
			if (info.index == p->msix_bar) {
				struct vfio_info_cap_header *header;

				header = vfio_info_cap_add(&caps,
						sizeof(*header),
						VFIO_REGION_INFO_CAP_MSIX_MAPPABLE,
						1);
				if (IS_ERR(header))
					return PTR_ERR(header);
			}
		}
		break;
	case VFIO_PCI_ROM_REGION_INDEX:
		/* No ROM: size 0, not readable. */
		info.offset = VFIO_PCI_INDEX_TO_OFFSET(info.index);
		info.size = 0;
		info.flags = 0;
		break;
	default:
		/* No VGA, no vendor regions. */
		return -EINVAL;
	}

	if (caps.size) {
		info.flags |= VFIO_REGION_INFO_FLAG_CAPS;
		if (info.argsz < sizeof(info) + caps.size) {
			info.argsz = sizeof(info) + caps.size;
			info.cap_offset = 0;
		} else {
			vfio_info_cap_shift(&caps, sizeof(info));
			if (copy_to_user(arg + 1, caps.buf, caps.size))
				ret = -EFAULT;
			info.cap_offset = sizeof(info);
		}
		kfree(caps.buf);
	}
	if (!ret && copy_to_user(arg, &info, minsz))
		ret = -EFAULT;
	return ret;
}

static long vfio_pci_sim_ioctl(struct vfio_device *vdev, unsigned int cmd,
			       unsigned long arg)
{
	struct vfio_pci_sim *p = to_sim(vdev);
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case VFIO_DEVICE_GET_INFO:
		return vfio_pci_sim_get_info(p, uarg);
	case VFIO_DEVICE_GET_REGION_INFO:
		return vfio_pci_sim_get_region_info(p, uarg);
	default:
		return -ENOTTY;
	}
}

/* ---- mmap and faults ---- */

static unsigned long vma_to_pfn(struct vm_area_struct *vma)
{
	struct vfio_pci_sim *p = vma->vm_private_data;
	unsigned int index = vma->vm_pgoff >>
			     (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT);
	unsigned long pgoff = vma->vm_pgoff &
			      ((1UL << (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)) - 1);

	return p->bar_pfn[index] + pgoff;
}

static vm_fault_t vfio_pci_sim_huge_fault(struct vm_fault *vmf,
					  unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vfio_pci_sim *p = vma->vm_private_data;
	unsigned long addr = vmf->address & ~((PAGE_SIZE << order) - 1);
	unsigned long pgoff = (addr - vma->vm_start) >> PAGE_SHIFT;
	unsigned long pfn = vma_to_pfn(vma) + pgoff;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	if (order && (addr < vma->vm_start ||
		      addr + (PAGE_SIZE << order) > vma->vm_end ||
		      pfn & ((1UL << order) - 1))) {
		p->stats.fallbacks++;
		return VM_FAULT_FALLBACK;
	}

	down_read(&p->memory_lock);
	if (!p->memory_enabled) {
		p->stats.sigbus++;
		goto out_unlock;
	}
	switch (order) {
	case 0:
		ret = vmf_insert_pfn(vma, vmf->address, pfn);
		break;
	case PMD_ORDER:
		ret = vmf_insert_pfn_pmd(vmf, __pfn_to_pfn_t(pfn, PFN_DEV),
					 false);
		break;
	case PUD_ORDER:
		ret = vmf_insert_pfn_pud(vmf, __pfn_to_pfn_t(pfn, PFN_DEV),
					 false);
		break;
	default:
		ret = VM_FAULT_FALLBACK;
	}
	if (ret == VM_FAULT_NOPAGE)
		p->stats.faults[order == PUD_ORDER ? 2 : order ? 1 : 0]++;
	else if (ret & VM_FAULT_FALLBACK)
		p->stats.fallbacks++;
out_unlock:
	up_read(&p->memory_lock);
	return ret;
}

static vm_fault_t vfio_pci_sim_page_fault(struct vm_fault *vmf)
{
	return vfio_pci_sim_huge_fault(vmf, 0);
}

static void vfio_pci_sim_vma_close(struct vm_area_struct *vma)
{
	struct vfio_pci_sim *p = vma->vm_private_data;
	struct vfio_pci_sim_vma *v, *tmp;

	down_write(&p->memory_lock);
	list_for_each_entry_safe(v, tmp, &p->vmas, next) {
		if (v->vma == vma) {
			list_del(&v->next);
			kfree(v);
		}
	}
	up_write(&p->memory_lock);
}

static const struct vm_operations_struct vfio_pci_sim_mmap_ops = {
	.close = vfio_pci_sim_vma_close,
	.fault = vfio_pci_sim_page_fault,
	.huge_fault = vfio_pci_sim_huge_fault,
};

static int vfio_pci_sim_mmap(struct vfio_device *vdev,
			     struct vm_area_struct *vma)
{
	struct vfio_pci_sim *p = to_sim(vdev);
	unsigned int index;
	u64 phys_len, req_len, pgoff, req_start;
	struct vfio_pci_sim_vma *v;

	index = vma->vm_pgoff >> (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT);
	if (index >= VFIO_PCI_NUM_REGIONS)
		return -EINVAL;
	if (vma->vm_end < vma->vm_start)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (index >= VFIO_PCI_ROM_REGION_INDEX)
		return -EINVAL;
	if (!bar_mmap_supported(p, index))
		return -EINVAL;

	phys_len = PAGE_ALIGN(p->bar_size[index]);
	req_len = vma->vm_end - vma->vm_start;
	pgoff = vma->vm_pgoff &
		((1UL << (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	req_start = pgoff << PAGE_SHIFT;
	if (req_start + req_len > phys_len)
		return -EINVAL;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	vma->vm_private_data = p;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &vfio_pci_sim_mmap_ops;
	v->vma = vma;
	down_write(&p->memory_lock);
	list_add(&v->next, &p->vmas);
	up_write(&p->memory_lock);
	return 0;
}

/*
 * The first open of the device: vfio_pci_core_enable()'s allocation of
 * the virtual config space (vfio_config_init()), which can fail -ENOMEM
 * and then opens nothing.  The VFIO core serialises open and close under
 * the group's lock.
 */
static int vfio_pci_sim_open_device(struct vfio_device *vdev)
{
	struct vfio_pci_sim *p = to_sim(vdev);

	p->vconfig = kzalloc(VFIO_PCI_SIM_CFG_SIZE, GFP_KERNEL);
	if (!p->vconfig)
		return -ENOMEM;
	p->stats.opens++;
	return 0;
}

/* The last close: vfio_pci_core_disable() frees the config space. */
static void vfio_pci_sim_close_device(struct vfio_device *vdev)
{
	struct vfio_pci_sim *p = to_sim(vdev);

	kfree(p->vconfig);
	p->vconfig = NULL;
	p->stats.closes++;
}

static const struct vfio_device_ops vfio_pci_sim_ops = {
	.name = "vfio-pci-sim",
	.open_device = vfio_pci_sim_open_device,
	.close_device = vfio_pci_sim_close_device,
	.ioctl = vfio_pci_sim_ioctl,
	.mmap = vfio_pci_sim_mmap,
};

/* ---- memory decode ---- */

void vfio_pci_sim_set_memory(struct vfio_pci_sim *p, bool on)
{
	struct vfio_pci_sim_vma *v;

	down_write(&p->memory_lock);
	if (!on) {
		/* unmap_mapping_range() of every BAR of the device */
		list_for_each_entry(v, &p->vmas, next)
			zap_vma_ptes(v->vma, v->vma->vm_start,
				     v->vma->vm_end - v->vma->vm_start);
		p->stats.zaps++;
	}
	p->memory_enabled = on;
	up_write(&p->memory_lock);
}

/* ---- the device ---- */

static int vfio_pci_sim_place_bars(struct vfio_pci_sim *p,
				   const struct vfio_pci_sim_opts *opts)
{
	unsigned int i;

	for (i = 0; i < VFIO_PCI_SIM_NR_BARS; i++) {
		u64 size = opts->bar_size[i];

		if (!size)
			continue;
		if ((opts->bar_flags[i] & VFIO_PCI_SIM_BAR_64) &&
		    (i == VFIO_PCI_SIM_NR_BARS - 1 || opts->bar_size[i + 1]))
			return -EINVAL;
		p->bar_size[i] = size;
		p->bar_flags[i] = opts->bar_flags[i];
		if (!bar_is_mem(p, i))
			continue;
		p->bar_pfn[i] = sim_bar_create(PAGE_ALIGN(size), 0,
					       opts->bar_misalign, 0);
		if (!p->bar_pfn[i])
			return -ENOSPC;
		if (opts->bar_flags[i] & VFIO_PCI_SIM_BAR_64)
			i++;	/* its upper half: absent */
	}
	return 0;
}

struct vfio_pci_sim *vfio_pci_sim_create(const char *name,
					 const struct vfio_pci_sim_opts *opts)
{
	struct vfio_pci_sim *p;
	int ret;

	if (opts->msix_bar >= VFIO_PCI_SIM_NR_BARS ||
	    opts->bar_misalign & ~PAGE_MASK)
		return ERR_PTR(-EINVAL);
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->msix_bar = opts->msix_bar;
	init_rwsem(&p->memory_lock);
	p->memory_enabled = true;
	INIT_LIST_HEAD(&p->vmas);
	ret = vfio_pci_sim_place_bars(p, opts);
	if (ret)
		goto err_free;

	p->dev = sim_iommu_device_create(name, opts->fmt, opts->group_peer);
	if (IS_ERR(p->dev)) {
		ret = PTR_ERR(p->dev);
		goto err_free;
	}
	if (opts->host_driver) {
		/* A DMA-API driver owns the group's DMA now. */
		ret = iommu_device_use_default_domain(p->dev);
		if (ret)
			goto err_dev;
		p->host_driver = true;
		return p;
	}
	p->vdev.dev = p->dev;
	p->vdev.ops = &vfio_pci_sim_ops;
	ret = vfio_register_group_dev(&p->vdev);
	if (ret)
		goto err_dev;
	p->registered = true;
	return p;

err_dev:
	sim_iommu_device_destroy(p->dev);
err_free:
	kfree(p);
	return ERR_PTR(ret);
}

/* A driver bug a test makes: registering the device a second time. */
int vfio_pci_sim_register_again(struct vfio_pci_sim *p)
{
	return vfio_register_group_dev(&p->vdev);
}

void vfio_pci_sim_destroy(struct vfio_pci_sim *p)
{
	WARN_ON(!list_empty(&p->vmas) || p->vconfig);
	if (p->registered)
		vfio_unregister_group_dev(&p->vdev);
	if (p->host_driver)
		iommu_device_unuse_default_domain(p->dev);
	sim_iommu_device_destroy(p->dev);
	kfree(p);
}

struct device *vfio_pci_sim_dev(struct vfio_pci_sim *p)
{
	return p->dev;
}

unsigned long vfio_pci_sim_bar_pfn(struct vfio_pci_sim *p, unsigned int bar)
{
	return bar < VFIO_PCI_SIM_NR_BARS ? p->bar_pfn[bar] : 0;
}

void vfio_pci_sim_stats(struct vfio_pci_sim *p, struct vfio_pci_sim_stats *out)
{
	down_read(&p->memory_lock);
	*out = p->stats;
	up_read(&p->memory_lock);
}
