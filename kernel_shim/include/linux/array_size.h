/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's ARRAY_SIZE(). */
#ifndef _DMASIM_LINUX_ARRAY_SIZE_H
#define _DMASIM_LINUX_ARRAY_SIZE_H

#include <linux/compiler.h>

#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))

#endif
