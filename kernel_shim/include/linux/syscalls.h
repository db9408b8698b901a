/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/syscalls.h>.  Kernel files include it for the
 * declarations of syscall entry points and the fd helpers they pull in;
 * the code under test calls none of the entry points, so this header only
 * brings in those helpers (<linux/file.h>, <linux/fdtable.h>).
 */
#ifndef _DMASIM_LINUX_SYSCALLS_H
#define _DMASIM_LINUX_SYSCALLS_H

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/types.h>

#endif
