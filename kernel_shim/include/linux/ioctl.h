/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/ioctl.h>.  A uapi header's `#include <linux/ioctl.h>`
 * lands here too, so the encoding has one definition.
 */
#ifndef _DMASIM_LINUX_IOCTL_H
#define _DMASIM_LINUX_IOCTL_H

#include <uapi/linux/ioctl.h>

#endif
