/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim's VFIO core, shim side (kernel_shim/vfio.c): what kapi_vfio.c
 * needs beyond the kernel interface.  No kernel counterpart.
 */
#ifndef _DMASIM_SHIM_VFIO_CORE_H
#define _DMASIM_SHIM_VFIO_CORE_H

struct vfio_iommu_driver_ops;

/* The first registered IOMMU backend (type1), or NULL before its init. */
const struct vfio_iommu_driver_ops *vfio_shim_first_backend(void);

#endif
