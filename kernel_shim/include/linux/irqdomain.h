/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IRQ domains, as the kernel's <linux/irqdomain.h>, only for what 6.1's
 * VFIO type1 asks: irq_domain_check_msi_remap(), whether some IRQ domain
 * isolates MSIs itself (IRQ_DOMAIN_FLAG_MSI_REMAP: an ARM GICv3 ITS).
 * (a) Definition that must match the kernel: the prototype.
 * Simplified: the simulated platform is x86-64, where no IRQ domain sets
 *     that flag (interrupt remapping is reported per device, by the
 *     IOMMU's IOMMU_CAP_INTR_REMAP in 6.1), so the answer is false.
 * (b) Stubs, (c) test doubles: none.
 */
#ifndef _DMASIM_LINUX_IRQDOMAIN_H
#define _DMASIM_LINUX_IRQDOMAIN_H

#include <linux/types.h>

static inline bool irq_domain_check_msi_remap(void)
{
	return false;
}

#endif
