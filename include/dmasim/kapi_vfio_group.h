/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: the VFIO interface a VMM uses, through fds (kapi/kapi_vfio_group.c
 * over core/drivers/vfio/container.c and group.c): /dev/vfio/vfio,
 * /dev/vfio/$GROUP, device fds, and simulated vfio-pci devices to put in
 * the groups (<shim/vfio_pci_sim.h> says what such a device answers).
 *
 * Every call returns what the kernel returned: an fd, 0, or a negative
 * errno.  ioctl arguments are the caller's memory (declared as such to
 * the uaccess shim for the call).  Close fds with kapi_close()
 * (<dmasim/kapi_heap.h>).
 */
#ifndef DMASIM_KAPI_VFIO_GROUP_H
#define DMASIM_KAPI_VFIO_GROUP_H

#include <dmasim/sim.h>
#include <dmasim/kapi_vfio.h>

/* ioctl numbers beyond <dmasim/kapi_vfio.h>'s: _IO(';', 100 + n). */
#define KAPI_VFIO_GET_API_VERSION	KAPI_VFIO_IO(0)
#define KAPI_VFIO_SET_IOMMU		KAPI_VFIO_IO(2)
#define KAPI_VFIO_GROUP_GET_STATUS	KAPI_VFIO_IO(3)
#define KAPI_VFIO_GROUP_SET_CONTAINER	KAPI_VFIO_IO(4)
#define KAPI_VFIO_GROUP_UNSET_CONTAINER	KAPI_VFIO_IO(5)
#define KAPI_VFIO_GROUP_GET_DEVICE_FD	KAPI_VFIO_IO(6)
#define KAPI_VFIO_DEVICE_GET_INFO	KAPI_VFIO_IO(7)
#define KAPI_VFIO_DEVICE_GET_REGION_INFO KAPI_VFIO_IO(8)
/* On a device fd (17 is DIRTY_PAGES on a container's). */
#define KAPI_VFIO_DEVICE_FEATURE	KAPI_VFIO_IO(17)

/* VFIO_DEVICE_FEATURE: struct { u32 argsz, flags; u8 data[]; } */
#define KAPI_VFIO_DEVICE_FEATURE_MASK		0xffffu
#define KAPI_VFIO_DEVICE_FEATURE_GET		(1u << 16)
#define KAPI_VFIO_DEVICE_FEATURE_SET		(1u << 17)
#define KAPI_VFIO_DEVICE_FEATURE_PROBE		(1u << 18)
#define KAPI_VFIO_DEVICE_FEATURE_PCI_VF_TOKEN			0
#define KAPI_VFIO_DEVICE_FEATURE_MIGRATION			1
#define KAPI_VFIO_DEVICE_FEATURE_MIG_DEVICE_STATE		2
#define KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY		3
#define KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_ENTRY_WITH_WAKEUP	4
#define KAPI_VFIO_DEVICE_FEATURE_LOW_POWER_EXIT		5
#define KAPI_VFIO_DEVICE_FEATURE_DMA_LOGGING_START		6
#define KAPI_VFIO_DEVICE_FEATURE_DMA_LOGGING_STOP		7
#define KAPI_VFIO_DEVICE_FEATURE_DMA_LOGGING_REPORT		8
#define KAPI_VFIO_DEVICE_FEATURE_MIG_DATA_SIZE			9
#define KAPI_VFIO_DEVICE_FEATURE_BUS_MASTER			10

#define KAPI_VFIO_GROUP_FLAGS_VIABLE		(1u << 0)
#define KAPI_VFIO_GROUP_FLAGS_CONTAINER_SET	(1u << 1)
#define KAPI_VFIO_DEVICE_FLAGS_RESET		(1u << 0)
#define KAPI_VFIO_DEVICE_FLAGS_PCI		(1u << 1)
#define KAPI_VFIO_REGION_INFO_FLAG_READ		(1u << 0)
#define KAPI_VFIO_REGION_INFO_FLAG_WRITE	(1u << 1)
#define KAPI_VFIO_REGION_INFO_FLAG_MMAP		(1u << 2)
#define KAPI_VFIO_REGION_INFO_FLAG_CAPS		(1u << 3)
#define KAPI_VFIO_REGION_INFO_CAP_MSIX_MAPPABLE	3
#define KAPI_VFIO_PCI_ROM_REGION_INDEX		6
#define KAPI_VFIO_PCI_CONFIG_REGION_INDEX	7
#define KAPI_VFIO_PCI_VGA_REGION_INDEX		8
#define KAPI_VFIO_PCI_NUM_REGIONS		9
#define KAPI_VFIO_PCI_OFFSET_SHIFT		40
#define KAPI_VFIO_GROUP_STATUS_ARGSZ		8u
#define KAPI_VFIO_REGION_INFO_ARGSZ		32u

/* open("/dev/vfio/vfio", O_RDWR) */
int kapi_vfio_container_fd_open(void);
/* open("/dev/vfio/<group_id>", O_RDWR) */
int kapi_vfio_group_fd_open(int group_id);
/* ioctl(fd, cmd, arg) with arg by value (an extension, a type) */
long kapi_vfio_ioctl_val(int fd, unsigned int cmd, unsigned long arg);
/* ioctl(fd, cmd, buf): buf is the caller's memory, len bytes */
long kapi_vfio_ioctl_buf(int fd, unsigned int cmd, void *buf,
			 unsigned long len);

/* VFIO_GROUP_GET_STATUS with argsz; *flags gets the answer. */
long kapi_vfio_group_get_status(int group_fd, unsigned int argsz,
				unsigned int *flags);
/* VFIO_GROUP_SET_CONTAINER with *arg = container_fd. */
long kapi_vfio_group_set_container(int group_fd, int container_fd);
long kapi_vfio_group_unset_container(int group_fd);
/* VFIO_GROUP_GET_DEVICE_FD: the device fd, or -errno. */
int kapi_vfio_group_get_device_fd(int group_fd, const char *name);

struct kapi_vfio_device_info {
	unsigned int flags, num_regions, num_irqs;
};
long kapi_vfio_device_get_info(int device_fd,
			       struct kapi_vfio_device_info *info);
struct kapi_vfio_region_info {
	unsigned int argsz;		/* as written back */
	unsigned int flags;
	unsigned int cap_offset;
	unsigned long long size, offset;
	int msix_mappable;		/* the capability was in the chain */
};
/* VFIO_DEVICE_GET_REGION_INFO of index with argsz (room for 64 bytes). */
long kapi_vfio_device_get_region_info(int device_fd, unsigned int index,
				      unsigned int argsz,
				      struct kapi_vfio_region_info *info);

/*
 * mmap(addr or anywhere aligned to align + misalign, len, PROT_READ |
 * PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, device_fd,
 * (index << 40) + offset) into the current process: 0 and *addr, or the
 * driver's errno (nothing mapped).  munmap with kapi_mm_munmap().
 */
struct kapi_vfio_mmap {
	unsigned int index;
	unsigned long long offset;
	unsigned long len;
	int shared;
	unsigned long addr;		/* 0: the sim picks one */
	unsigned long align, misalign;
};
int kapi_vfio_device_mmap(int device_fd, const struct kapi_vfio_mmap *m,
			  unsigned long *addr);

/* MAP_DMA / UNMAP_DMA through a container fd. */
long kapi_vfio_fd_map_dma(int container_fd, unsigned long long vaddr,
			  unsigned long long iova, unsigned long long size,
			  unsigned int flags);
long kapi_vfio_fd_unmap_dma(int container_fd, unsigned long long iova,
			    unsigned long long size,
			    unsigned long long *unmapped);

/* ---- simulated vfio-pci devices ---- */
struct kapi_vfio_pci;

#define KAPI_VFIO_PCI_BAR_IO	(1u << 0)
#define KAPI_VFIO_PCI_BAR_64	(1u << 1)
struct kapi_vfio_pci_opts {
	enum sim_iommu_format_id fmt;
	unsigned long long bar_size[6];	/* 0: absent */
	unsigned int bar_flags[6];	/* KAPI_VFIO_PCI_BAR_* */
	unsigned long long bar_misalign;
	int has_msix;
	unsigned int msix_bar;
	struct kapi_vfio_pci *group_peer;	/* in that device's group */
	int host_driver;		/* bound to a host driver, not VFIO */
	int no_feature_op;		/* a driver without device_feature */
};
int kapi_vfio_pci_create(const struct kapi_vfio_pci_opts *opts,
			 struct kapi_vfio_pci **out);
/*
 * Unbind the device from vfio-pci and free it: waits until its fds (and
 * the mmaps that hold them) are closed, calling the driver's request
 * callback each ten seconds, from the first (vfio_unregister_group_dev()).
 */
void kapi_vfio_pci_destroy(struct kapi_vfio_pci *p);
const char *kapi_vfio_pci_name(const struct kapi_vfio_pci *p);
int kapi_vfio_pci_group_id(const struct kapi_vfio_pci *p);
unsigned long kapi_vfio_pci_bar_pfn(const struct kapi_vfio_pci *p,
				    unsigned int bar);
/* The guest writes PCI_COMMAND with memory decode on or off. */
void kapi_vfio_pci_set_memory(struct kapi_vfio_pci *p, int on);
struct kapi_vfio_pci_stats {
	unsigned long faults_pte, faults_pmd, faults_pud;
	unsigned long fallbacks, sigbus, zaps;
	unsigned long opens, closes;	/* the driver's open/close_device */
	unsigned long features;		/* the driver's device_feature calls */
	unsigned long low_power;	/* low-power entries */
	unsigned long requests;		/* the driver's request calls */
	unsigned int request_count;	/* the last call's count argument */
};
void kapi_vfio_pci_stats(const struct kapi_vfio_pci *p,
			 struct kapi_vfio_pci_stats *s);
/* Devices created and not destroyed. */
unsigned long kapi_vfio_pci_nr_alive(void);
/*
 * A driver bug: vfio_register_group_dev() of a device registered already
 * (the VFIO core refuses it, -EBUSY).
 */
int kapi_vfio_pci_register_again(struct kapi_vfio_pci *p);
/*
 * The device unbound from vfio-pci and bound again (driver_override and
 * a rebind): the unbind waits for its fds, as kapi_vfio_pci_destroy();
 * 0, or the register's errno (the device is then unbound).
 */
int kapi_vfio_pci_rebind(struct kapi_vfio_pci *p);
/*
 * A driver bug: vfio_register_group_dev() of a device no IOMMU translates
 * (no IOMMU group): refused, -EINVAL, with no group node made.
 */
int kapi_vfio_pci_register_without_iommu(void);

/*
 * The IOMMU backend registered at boot (type1), as its module's exit and
 * init would: vfio_unregister_iommu_driver() (no backend for containers
 * opened then) and vfio_register_iommu_driver() (-EINVAL while it is
 * registered).  -ENODEV if none registered at boot.
 */
int kapi_vfio_backend_register(void);
/*
 * A driver bug: type1's ops with register_device alone (keep_register 1)
 * or unregister_device alone (0) registered as another backend: refused,
 * -EINVAL, with a WARN.
 */
int kapi_vfio_backend_register_lopsided(int keep_register);
void kapi_vfio_backend_unregister(void);

#endif
