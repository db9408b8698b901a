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
#include <linux/file.h>
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

/* Region index and offset in a device fd's offsets and page offsets. */
#define VFIO_PCI_OFFSET_SHIFT	40
#define VFIO_PCI_PGOFF_SHIFT	(VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)
#define VFIO_PCI_SIM_CFG_SIZE	4096

struct vfio_pci_sim_vma {
	struct list_head next;
	struct vm_area_struct *vma;
};

struct vfio_pci_sim {
	struct vfio_device vdev;
	struct vfio_device_ops ops;
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
	/* in low power by the user's request: BARs unreachable */
	bool pm_runtime_engaged;
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

/*
 * vfio-pci maps memory BARs of a page or more, and a smaller one that
 * starts a page when it can reserve the rest of that page.  Every BAR
 * here starts a page (sim_bar_create() places whole pages, bar_misalign
 * is a page multiple) and has that page to itself: all memory BARs.
 */
static bool bar_mmap_supported(struct vfio_pci_sim *p, unsigned int i)
{
	return bar_is_mem(p, i);
}

/* ---- ioctls ---- */

/*
 * The first minsz bytes of the user's info struct; its argsz, the first
 * member of every VFIO info struct, must cover them (-EINVAL).
 */
static int vfio_pci_sim_info_in(void *info, const void __user *uinfo,
				size_t minsz)
{
	if (copy_from_user(info, uinfo, minsz))
		return -EFAULT;
	return *(const u32 *)info < minsz ? -EINVAL : 0;
}

static long vfio_pci_sim_get_info(struct vfio_pci_sim *p,
				  struct vfio_device_info __user *uinfo)
{
	const size_t minsz = offsetofend(struct vfio_device_info, num_irqs);
	struct vfio_device_info info = {};
	size_t out;
	int err;

	err = vfio_pci_sim_info_in(&info, uinfo, minsz);
	if (err)
		return err;
	/* The enable-time reset always works on the simulated device. */
	info.flags = VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI;
	info.num_irqs = VFIO_PCI_NUM_IRQS;
	info.num_regions = VFIO_PCI_NUM_REGIONS;
	/*
	 * Unlike region info, the whole struct goes back as far as argsz
	 * reaches: cap_offset (0, no capabilities here) and pad included.
	 */
	out = min_t(size_t, info.argsz, sizeof(info));
	return copy_to_user(uinfo, &info, out) ? -EFAULT : 0;
}

/*
 * Size and access of a region: BARs as placed (0 and no access when
 * absent, mmap for memory BARs of a page or more), the config space; no
 * ROM (size 0).  -EINVAL for VGA and past the end: none here.
 */
static int vfio_pci_sim_region(struct vfio_pci_sim *p, u32 index,
			       u64 *size, u32 *flags)
{
	const u32 rw = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;

	*size = 0;
	*flags = 0;
	if (index <= VFIO_PCI_BAR5_REGION_INDEX) {
		*size = p->bar_size[index];
		if (bar_mmap_supported(p, index))
			*flags = rw | VFIO_REGION_INFO_FLAG_MMAP;
		else if (*size)
			*flags = rw;
	} else if (index == VFIO_PCI_CONFIG_REGION_INDEX) {
		*size = VFIO_PCI_SIM_CFG_SIZE;
		*flags = rw;
	} else if (index != VFIO_PCI_ROM_REGION_INDEX) {
		return -EINVAL;
	}
	return 0;
}

/*
 * The capability chain goes right after the struct when argsz leaves room
 * for it; else argsz says how much is needed and cap_offset stays 0 (the
 * user asks again).  Either way the flags say there are capabilities.
 */
static int vfio_pci_sim_caps_out(struct vfio_region_info *info,
				 struct vfio_info_cap *caps,
				 struct vfio_region_info __user *uinfo)
{
	size_t whole = sizeof(*info) + caps->size;

	info->flags |= VFIO_REGION_INFO_FLAG_CAPS;
	info->cap_offset = 0;
	if (info->argsz < whole) {
		info->argsz = whole;
		return 0;
	}
	/* Chain offsets count from the start of the user's struct. */
	vfio_info_cap_shift(caps, sizeof(*info));
	if (copy_to_user((void __user *)uinfo + sizeof(*info), caps->buf,
			 caps->size))
		return -EFAULT;
	info->cap_offset = sizeof(*info);
	return 0;
}

static long vfio_pci_sim_get_region_info(struct vfio_pci_sim *p,
					 struct vfio_region_info __user *uinfo)
{
	const size_t minsz = offsetofend(struct vfio_region_info, offset);
	struct vfio_info_cap caps = { .buf = NULL, .size = 0 };
	struct vfio_region_info info;
	int err;

	err = vfio_pci_sim_info_in(&info, uinfo, minsz);
	if (!err)
		err = vfio_pci_sim_region(p, info.index, &info.size,
					  &info.flags);
	if (err)
		return err;
	info.offset = (u64)info.index << VFIO_PCI_OFFSET_SHIFT;

	/* The MSI-X BAR may be mmapped whole, table included: say so. */
	if (info.index == p->msix_bar && bar_mmap_supported(p, info.index)) {
		struct vfio_info_cap_header *msix;

		msix = vfio_info_cap_add(&caps, sizeof(*msix),
					 VFIO_REGION_INFO_CAP_MSIX_MAPPABLE, 1);
		if (IS_ERR(msix))
			return PTR_ERR(msix);
		err = vfio_pci_sim_caps_out(&info, &caps, uinfo);
		kfree(caps.buf);
	}
	if (!err && copy_to_user(uinfo, &info, minsz))
		err = -EFAULT;
	return err;
}

static long vfio_pci_sim_ioctl(struct vfio_device *vdev, unsigned int cmd,
			       unsigned long arg)
{
	struct vfio_pci_sim *p = to_sim(vdev);
	void __user *uarg = (void __user *)arg;

	if (cmd == VFIO_DEVICE_GET_INFO)
		return vfio_pci_sim_get_info(p, uarg);
	if (cmd == VFIO_DEVICE_GET_REGION_INFO)
		return vfio_pci_sim_get_region_info(p, uarg);
	return -ENOTTY;
}

/* ---- device features ---- */

/* unmap_mapping_range() of every BAR of the device; memory_lock held. */
static void vfio_pci_sim_zap_bars(struct vfio_pci_sim *p)
{
	struct vfio_pci_sim_vma *v;

	list_for_each_entry(v, &p->vmas, next)
		zap_vma_ptes(v->vma, v->vma->vm_start,
			     v->vma->vm_end - v->vma->vm_start);
}

/* Into low power: the BAR mmaps go, and fault back only after the exit. */
static int vfio_pci_sim_pm_enter(struct vfio_pci_sim *p)
{
	int ret = -EINVAL;

	down_write(&p->memory_lock);
	vfio_pci_sim_zap_bars(p);
	if (!p->pm_runtime_engaged) {
		p->pm_runtime_engaged = true;
		p->stats.low_power++;
		ret = 0;
	}
	up_write(&p->memory_lock);
	return ret;
}

static void vfio_pci_sim_pm_exit(struct vfio_pci_sim *p)
{
	down_write(&p->memory_lock);
	p->pm_runtime_engaged = false;
	up_write(&p->memory_lock);
}

/*
 * The wakeup eventfd's lookup, as eventfd_ctx_fdget() answers where no
 * file is an eventfd: -EBADF for an fd not open, else -EINVAL.
 */
static int vfio_pci_sim_eventfd_get(int fd)
{
	struct file *file = fget(fd);

	if (!file)
		return -EBADF;
	fput(file);
	return -EINVAL;
}

static int vfio_pci_sim_pm_entry_with_wakeup(struct vfio_pci_sim *p,
					     u32 flags, void __user *arg,
					     size_t argsz)
{
	struct vfio_device_low_power_entry_with_wakeup wake;
	int go = vfio_check_feature(flags, argsz, VFIO_DEVICE_FEATURE_SET,
				    sizeof(wake));

	/* A refusal, or a probe: nothing to do. */
	if (go <= 0)
		return go;
	if (copy_from_user(&wake, arg, sizeof(wake)))
		return -EFAULT;
	/* A negative fd is refused before any lookup. */
	return wake.wakeup_eventfd < 0 ? -EINVAL :
	       vfio_pci_sim_eventfd_get(wake.wakeup_eventfd);
}

static int vfio_pci_sim_device_feature(struct vfio_device *vdev, u32 flags,
				       void __user *arg, size_t argsz)
{
	struct vfio_pci_sim *p = to_sim(vdev);
	u32 feature = flags & VFIO_DEVICE_FEATURE_MASK;
	int go;

	down_write(&p->memory_lock);
	p->stats.features++;
	up_write(&p->memory_lock);

	if (feature == VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY_WITH_WAKEUP)
		return vfio_pci_sim_pm_entry_with_wakeup(p, flags, arg, argsz);
	/* No SR-IOV here: no VF token to set; other features unknown. */
	if (feature != VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY &&
	    feature != VFIO_DEVICE_FEATURE_LOW_POWER_EXIT)
		return -ENOTTY;
	/* Both take a SET and no payload. */
	go = vfio_check_feature(flags, argsz, VFIO_DEVICE_FEATURE_SET, 0);
	if (go <= 0)
		return go;
	if (feature == VFIO_DEVICE_FEATURE_LOW_POWER_EXIT) {
		vfio_pci_sim_pm_exit(p);
		return 0;
	}
	return vfio_pci_sim_pm_enter(p);
}

/* ---- mmap and faults ---- */

/* The region a BAR mmap maps, and its page offset into it. */
static unsigned int vma_region(const struct vm_area_struct *vma)
{
	return vma->vm_pgoff >> VFIO_PCI_PGOFF_SHIFT;
}

static unsigned long vma_region_pgoff(const struct vm_area_struct *vma)
{
	return vma->vm_pgoff & ((1UL << VFIO_PCI_PGOFF_SHIFT) - 1);
}

/* The pfn behind the user address addr of a BAR mmap. */
static unsigned long vma_addr_to_pfn(struct vm_area_struct *vma,
				     unsigned long addr)
{
	struct vfio_pci_sim *p = vma->vm_private_data;

	return p->bar_pfn[vma_region(vma)] + vma_region_pgoff(vma) +
	       ((addr - vma->vm_start) >> PAGE_SHIFT);
}

/*
 * A leaf of 2^order pages at start fits when its whole block lies in
 * the VMA and the BAR address is aligned like the user address.
 */
static bool vfio_pci_sim_leaf_fits(struct vm_area_struct *vma,
				   unsigned long start, unsigned int order)
{
	unsigned long end = start + (PAGE_SIZE << order);

	if (start < vma->vm_start || end > vma->vm_end)
		return false;
	return IS_ALIGNED(vma_addr_to_pfn(vma, start), 1UL << order);
}

/* Insert the leaf of that order; other orders fall back. */
static vm_fault_t vfio_pci_sim_insert(struct vm_fault *vmf,
				      unsigned long pfn, unsigned int order)
{
	pfn_t leaf = __pfn_to_pfn_t(pfn, PFN_DEV);

	if (order == PUD_ORDER)
		return vmf_insert_pfn_pud(vmf, leaf, false);
	if (order == PMD_ORDER)
		return vmf_insert_pfn_pmd(vmf, leaf, false);
	if (!order)
		return vmf_insert_pfn(vmf->vma, vmf->address, pfn);
	return VM_FAULT_FALLBACK;
}

static void vfio_pci_sim_count(struct vfio_pci_sim *p, vm_fault_t ret,
			       unsigned int order)
{
	if (ret & VM_FAULT_FALLBACK)
		p->stats.fallbacks++;
	else if (ret == VM_FAULT_NOPAGE)
		p->stats.faults[order == PUD_ORDER ? 2 : order ? 1 : 0]++;
}

/*
 * The mm asks for a leaf of order (0 from ->fault): a leaf that does not
 * fit falls back before memory_lock is taken, as vfio-pci's does; with
 * memory decode off or in low power the access gets SIGBUS.
 */
static vm_fault_t vfio_pci_sim_huge_fault(struct vm_fault *vmf,
					  unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vfio_pci_sim *p = vma->vm_private_data;
	unsigned long start = ALIGN_DOWN(vmf->address, PAGE_SIZE << order);
	vm_fault_t ret = VM_FAULT_FALLBACK;

	if (order && !vfio_pci_sim_leaf_fits(vma, start, order)) {
		vfio_pci_sim_count(p, ret, order);
		return ret;
	}
	down_read(&p->memory_lock);
	if (p->memory_enabled && !p->pm_runtime_engaged) {
		ret = vfio_pci_sim_insert(vmf, vma_addr_to_pfn(vma, start),
					  order);
		vfio_pci_sim_count(p, ret, order);
	} else {
		p->stats.sigbus++;
		ret = VM_FAULT_SIGBUS;
	}
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

/*
 * What vfio-pci maps: a shared mapping of a memory BAR it supports (not
 * the ROM, config space, VGA or past the regions), within the BAR's
 * pages.  Every refusal is -EINVAL, so the order of the tests is moot.
 */
static bool vfio_pci_sim_mmap_ok(struct vfio_pci_sim *p,
				 struct vm_area_struct *vma)
{
	unsigned int index = vma_region(vma);
	u64 first, len;

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_end < vma->vm_start)
		return false;
	if (index > VFIO_PCI_BAR5_REGION_INDEX || !bar_mmap_supported(p, index))
		return false;
	first = (u64)vma_region_pgoff(vma) << PAGE_SHIFT;
	len = vma->vm_end - vma->vm_start;
	return first + len <= PAGE_ALIGN(p->bar_size[index]);
}

static int vfio_pci_sim_mmap(struct vfio_device *vdev,
			     struct vm_area_struct *vma)
{
	struct vfio_pci_sim *p = to_sim(vdev);
	struct vfio_pci_sim_vma *v;

	if (!vfio_pci_sim_mmap_ok(p, vma))
		return -EINVAL;
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	v->vma = vma;
	/* Nothing is mapped now: every entry comes from a fault. */
	vma->vm_private_data = p;
	vma->vm_ops = &vfio_pci_sim_mmap_ops;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
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

/*
 * The device is being unbound with fds open: vfio-pci relays the request
 * to the user's req eventfd (VFIO_PCI_REQ_IRQ_INDEX) or, with none, says
 * it is blocked until released.  No IRQs here: the requests are counted.
 */
static void vfio_pci_sim_request(struct vfio_device *vdev, unsigned int count)
{
	struct vfio_pci_sim *p = to_sim(vdev);

	down_write(&p->memory_lock);
	p->stats.requests++;
	p->stats.request_count = count;
	up_write(&p->memory_lock);
}

/*
 * The last close: vfio_pci_core_disable() leaves low power and frees the
 * config space.
 */
static void vfio_pci_sim_close_device(struct vfio_device *vdev)
{
	struct vfio_pci_sim *p = to_sim(vdev);

	vfio_pci_sim_pm_exit(p);
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
	.request = vfio_pci_sim_request,
	.device_feature = vfio_pci_sim_device_feature,
};


/* ---- memory decode ---- */

void vfio_pci_sim_set_memory(struct vfio_pci_sim *p, bool on)
{
	down_write(&p->memory_lock);
	if (!on) {
		vfio_pci_sim_zap_bars(p);
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
	/* The driver's ops, less device_feature for a driver without it. */
	p->ops = vfio_pci_sim_ops;
	if (opts->no_feature_op)
		p->ops.device_feature = NULL;
	p->vdev.ops = &p->ops;
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

/* Unbound from vfio-pci and bound again (as a driver_override rebind). */
int vfio_pci_sim_rebind(struct vfio_pci_sim *p)
{
	int ret;

	vfio_unregister_group_dev(&p->vdev);
	ret = vfio_register_group_dev(&p->vdev);
	p->registered = !ret;
	return ret;
}

/*
 * Another driver bug: a vfio_device for a struct device no IOMMU
 * translates (it has no IOMMU group).  Nothing of it may be kept.
 */
int vfio_pci_sim_register_without_iommu(void)
{
	struct device bare = { .init_name = "dmasim-no-iommu" };
	struct vfio_device vdev = { .dev = &bare, .ops = &vfio_pci_sim_ops };

	return vfio_register_group_dev(&vdev);
}

/* Unbinding waits, in vfio_unregister_group_dev(), for the fds to close. */
void vfio_pci_sim_destroy(struct vfio_pci_sim *p)
{
	if (p->registered)
		vfio_unregister_group_dev(&p->vdev);
	WARN_ON(!list_empty(&p->vmas) || p->vconfig);
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
