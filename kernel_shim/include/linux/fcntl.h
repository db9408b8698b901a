/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's <linux/fcntl.h>: the open flags (see uapi/asm-generic/fcntl.h). */
#ifndef _DMASIM_LINUX_FCNTL_H
#define _DMASIM_LINUX_FCNTL_H

#include <uapi/asm-generic/fcntl.h>

#endif
