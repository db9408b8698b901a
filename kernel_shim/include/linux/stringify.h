/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _DMASIM_LINUX_STRINGIFY_H
#define _DMASIM_LINUX_STRINGIFY_H

#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)

#endif
