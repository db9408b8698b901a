/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Upstream mode: stands in for a kernel tree's driver-local
 * drivers/vfio/vfio.h, which vfio_iommu_type1.c includes with quotes and so
 * finds beside itself before any -I directory.
 *
 * That header is the VFIO core's private header (465 lines in 6.12): groups,
 * containers, device files, cdev, iommufd, KVM and debugfs glue.  Type1
 * uses only the backend contract from it: enum vfio_group_type, struct
 * vfio_iommu_driver_ops and vfio_(un)register_iommu_driver(), which
 * kernel_shim keeps in <shim/vfio_iommu_driver.h>.
 *
 * This header is force-included (-include) ahead of the tree's file, as
 * tools/testing/vma force-includes its vma_internal.h, and defines the tree
 * header's include guard, so the tree's own #include "vfio.h" expands to
 * nothing.  The guard is __VFIO_VFIO_H__ in every tree upstream mode
 * supports: Linux 6.12 (Debian's linux-source-6.12) and mainline
 * (v6.19/v7.x); upstream/meson.build checks the tree's header for it and
 * stops with an error if a tree ever renames it, rather than letting both
 * headers in.
 *
 * Nothing here is a stub or test double: the guard, and the shim's
 * definitions of the contract (which must match the kernel's).
 */
#ifndef __VFIO_VFIO_H__
#define __VFIO_VFIO_H__

#include <linux/device.h>
#include <linux/module.h>
#include <linux/vfio.h>
#include <shim/vfio_iommu_driver.h>

#endif
