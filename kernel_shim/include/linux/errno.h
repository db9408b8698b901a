/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's errno values (asm-generic, x86-64). */
#ifndef _DMASIM_LINUX_ERRNO_H
#define _DMASIM_LINUX_ERRNO_H

#include <uapi/asm-generic/errno.h>

#define ERESTARTSYS	512
#define ERESTARTNOINTR	513
#define ERESTARTNOHAND	514
#define ENOIOCTLCMD	515
#define EPROBE_DEFER	517
#define EOPENSTALE	518
#define ENOPARAM	519
#define EBADHANDLE	521
#define ENOTSUPP	524
#define ETOOSMALL	525
#define EIOCBQUEUED	529

#endif
