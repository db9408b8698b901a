/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/msi.h>, the one question VFIO asks of MSIs: can this device's
 * interrupts be forged by its DMA?  iommu_group_has_isolated_msi() asks
 * msi_device_has_isolated_msi() of every device of the group.
 *
 * Reproduces: msi_device_has_isolated_msi() as declared with
 * CONFIG_GENERIC_MSI_IRQ (true when the device's MSI parent domain
 * isolates MSIs: interrupt remapping on x86, an ITS on arm64).
 * Simplified: there are no MSI irq domains.  The answer is the simulated
 * platform's: true, except for a device of the simulated IOMMU driver
 * created without interrupt remapping (sim_iommu_dev_opts.no_isolated_msi,
 * kernel_shim/drivers/iommu_sim.c), as on a machine with the IOMMU on but
 * interrupt remapping off.
 * (a) the declaration must match the kernel's.
 */
#ifndef _LINUX_MSI_H
#define _LINUX_MSI_H

#include <linux/types.h>

struct device;

bool msi_device_has_isolated_msi(struct device *dev);

#endif /* _LINUX_MSI_H */
