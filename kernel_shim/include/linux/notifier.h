/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Notifier chains (<linux/notifier.h>).  vfio_iommu_type1.c (6.12) includes
 * this header and uses nothing from it: unmap notification to mediated
 * devices goes through vfio_device_ops.dma_unmap instead.
 *
 * (a) Definitions that must match the kernel: struct notifier_block's
 *     members and the NOTIFY_* return values, for code that names them.
 * No chain registration or call is provided (nothing under test raises
 * notifications); the drift report lists them if a tree starts to.
 */
#ifndef _DMASIM_LINUX_NOTIFIER_H
#define _DMASIM_LINUX_NOTIFIER_H

struct notifier_block;

typedef int (*notifier_fn_t)(struct notifier_block *nb, unsigned long action,
			     void *data);

struct notifier_block {
	notifier_fn_t notifier_call;
	struct notifier_block *next;
	int priority;
};

#define NOTIFY_DONE		0x0000	/* not interested */
#define NOTIFY_OK		0x0001	/* handled */
#define NOTIFY_STOP_MASK	0x8000	/* stop calling further handlers */
#define NOTIFY_BAD		(NOTIFY_STOP_MASK | 0x0002)
#define NOTIFY_STOP		(NOTIFY_OK | NOTIFY_STOP_MASK)

#endif
