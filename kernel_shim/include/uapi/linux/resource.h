/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Resource limits (<uapi/linux/resource.h> with <asm-generic/resource.h>).
 * (a) Definitions that must match the kernel: struct rlimit, the RLIMIT_*
 *     numbers of x86-64 and RLIM_INFINITY.
 */
#ifndef _DMASIM_UAPI_LINUX_RESOURCE_H
#define _DMASIM_UAPI_LINUX_RESOURCE_H

#include <uapi/linux/types.h>

struct rlimit {
	__kernel_ulong_t rlim_cur;
	__kernel_ulong_t rlim_max;
};

#define RLIMIT_CPU		0
#define RLIMIT_FSIZE		1
#define RLIMIT_DATA		2
#define RLIMIT_STACK		3
#define RLIMIT_CORE		4
#define RLIMIT_RSS		5
#define RLIMIT_NPROC		6
#define RLIMIT_NOFILE		7
#define RLIMIT_MEMLOCK		8
#define RLIMIT_AS		9
#define RLIMIT_LOCKS		10
#define RLIMIT_SIGPENDING	11
#define RLIMIT_MSGQUEUE		12
#define RLIMIT_NICE		13
#define RLIMIT_RTPRIO		14
#define RLIMIT_RTTIME		15
#define RLIM_NLIMITS		16

#define RLIM_INFINITY		(~0UL)

#endif
