/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's uapi <linux/ioctl.h>: the generic encoding (x86-64). */
#ifndef _DMASIM_UAPI_LINUX_IOCTL_H
#define _DMASIM_UAPI_LINUX_IOCTL_H

#include <uapi/asm-generic/ioctl.h>

#endif
