/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A simulated vfio-pci device (kernel_shim/drivers/vfio_pci_sim.c): a PCI
 * function behind a simulated IOMMU, registered with the VFIO group code,
 * whose device fd answers as vfio-pci's does in 6.12 for what a VMM sizes
 * and maps a device with:
 *  - VFIO_DEVICE_GET_INFO (PCI | RESET, 9 regions, 5 IRQs);
 *  - VFIO_DEVICE_GET_REGION_INFO for BARs (absent BARs and the upper half
 *    of a 64-bit BAR: size 0, flags 0; memory BARs READ|WRITE|MMAP, a
 *    sub-page one too: it starts a page of its own, whose rest vfio-pci
 *    reserves; I/O BARs READ|WRITE; the MSI-X BAR with the MSIX_MAPPABLE
 *    capability, which raises argsz when it does not fit), ROM (none:
 *    size 0), config space (4 KiB, READ|WRITE), VGA (-EINVAL), past the
 *    end (-EINVAL);
 *  - mmap of a memory BAR (MAP_SHARED, inside the BAR's pages, offset
 *    index << 40)
 *    filled by faults only: vfio_pci_mmap_huge_fault's rules (a PUD or PMD
 *    leaf where the block lies inside the VMA and its pfn is aligned to
 *    the order, else VM_FAULT_FALLBACK; VM_FAULT_SIGBUS while memory
 *    decode is off);
 *  - a write of the command register's memory-enable bit: off zaps every
 *    BAR mmap of the device under memory_lock (write), on lets faults map
 *    them back;
 *  - VFIO_DEVICE_FEATURE, the features the VFIO core hands to vfio-pci
 *    (vfio_pci_core_ioctl_feature): LOW_POWER_ENTRY (SET only, no
 *    payload: zaps every BAR mmap and refuses faults until
 *    LOW_POWER_EXIT or the last close; -EINVAL if entered already),
 *    LOW_POWER_ENTRY_WITH_WAKEUP (SET, an 8-byte payload naming an
 *    eventfd: -EINVAL for a negative fd; the simulation has no eventfds,
 *    so an fd not open is -EBADF and any other -EINVAL, as
 *    eventfd_ctx_fdget() answers for a file that is not an eventfd),
 *    LOW_POWER_EXIT (SET only), PCI_VF_TOKEN (-ENOTTY: no SR-IOV, so no
 *    VF token), anything else -ENOTTY; a device created with
 *    no_feature_op has no device_feature callback at all;
 *  - unbinding with fds open: the VFIO core calls request, counted (no
 *    req eventfd to signal: no IRQs here);
 *  - open_device (the first device fd) allocates the virtual config
 *    space as vfio_pci_core_enable() does (-ENOMEM if it cannot),
 *    close_device (after the last) frees it.
 * Simplified: no config space beyond PCI_COMMAND (the allocated copy is
 * not read), no pread/pwrite, no IRQs, no reset, no PCI power states
 * (D3hot) and no runtime PM beyond low-power entry and exit; the
 * device inode's i_mmap is a list of the device's VMAs (added at mmap,
 * dropped by vm_ops->close).
 */
#ifndef _DMASIM_SHIM_VFIO_PCI_SIM_H
#define _DMASIM_SHIM_VFIO_PCI_SIM_H

#include <linux/types.h>
#include <dmasim/sim.h>

struct device;
struct vfio_pci_sim;

#define VFIO_PCI_SIM_NR_BARS	6
enum {
	VFIO_PCI_SIM_BAR_IO	= 1u << 0,	/* an I/O port BAR */
	VFIO_PCI_SIM_BAR_64	= 1u << 1,	/* 64-bit: takes the next index */
};

struct vfio_pci_sim_opts {
	enum sim_iommu_format_id fmt;
	u64 bar_size[VFIO_PCI_SIM_NR_BARS];	/* 0: absent */
	unsigned int bar_flags[VFIO_PCI_SIM_NR_BARS];
	/* Bytes past natural alignment where the BARs are placed (0). */
	u64 bar_misalign;
	int msix_bar;				/* -1: none */
	struct device *group_peer;		/* join that device's group */
	/* Bound to a host (DMA API) driver instead of vfio-pci. */
	bool host_driver;
	/* A driver without the device_feature callback. */
	bool no_feature_op;
};

struct vfio_pci_sim_stats {
	unsigned long faults[3];	/* leaves inserted: PTE, PMD, PUD */
	unsigned long fallbacks;	/* huge faults that fell back */
	unsigned long sigbus;		/* faults refused: decode off */
	unsigned long zaps;		/* decode-off zaps */
	unsigned long opens, closes;	/* open_device / close_device done */
	unsigned long features;		/* device_feature calls */
	unsigned long low_power;	/* low-power entries done */
	unsigned long requests;		/* request calls (unbind with fds open) */
	unsigned int request_count;	/* the last call's count */
};

/* ERR_PTR(-EINVAL) for bad options, -ENOSPC (no room for a BAR), -ENOMEM. */
struct vfio_pci_sim *vfio_pci_sim_create(const char *name,
					 const struct vfio_pci_sim_opts *opts);
/* vfio_register_group_dev() again (a driver bug): -EBUSY. */
int vfio_pci_sim_register_again(struct vfio_pci_sim *vdev);
/* Unbind (waiting for its fds) and bind again: 0 or the register's errno. */
int vfio_pci_sim_rebind(struct vfio_pci_sim *vdev);
/* A vfio_device for a struct device behind no IOMMU (a driver bug): -EINVAL. */
int vfio_pci_sim_register_without_iommu(void);
/*
 * Unbind and free: waits, asking through the request callback, until the
 * device's fds are closed (its mmaps hold its fd).
 */
void vfio_pci_sim_destroy(struct vfio_pci_sim *vdev);
struct device *vfio_pci_sim_dev(struct vfio_pci_sim *vdev);
/* The BAR's first pfn (0 if absent). */
unsigned long vfio_pci_sim_bar_pfn(struct vfio_pci_sim *vdev, unsigned int bar);
/* A config write of PCI_COMMAND with memory decode on or off. */
void vfio_pci_sim_set_memory(struct vfio_pci_sim *vdev, bool on);
void vfio_pci_sim_stats(struct vfio_pci_sim *vdev,
			struct vfio_pci_sim_stats *out);

#endif
