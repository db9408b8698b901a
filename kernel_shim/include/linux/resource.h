/* SPDX-License-Identifier: GPL-2.0-only */
/* <linux/resource.h>: the uapi limits; see uapi/linux/resource.h. */
#ifndef _DMASIM_LINUX_RESOURCE_H
#define _DMASIM_LINUX_RESOURCE_H

#include <uapi/linux/resource.h>

#endif
