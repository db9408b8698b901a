/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device numbers, as the kernel's <linux/kdev_t.h>.
 * (a) Definitions that must match the kernel: 12-bit major, 20-bit minor.
 */
#ifndef _DMASIM_LINUX_KDEV_T_H
#define _DMASIM_LINUX_KDEV_T_H

#include <linux/types.h>

#define MINORBITS	20
#define MINORMASK	((1U << MINORBITS) - 1)

#define MAJOR(dev)	((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev)	((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi)	(((ma) << MINORBITS) | (mi))

#endif
