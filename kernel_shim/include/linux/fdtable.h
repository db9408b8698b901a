/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The descriptor table, as the kernel's <linux/fdtable.h>: close_fd().
 * (c) Test double: one table for the one simulated process (kernel_shim/fs.c).
 */
#ifndef _DMASIM_LINUX_FDTABLE_H
#define _DMASIM_LINUX_FDTABLE_H

#include <linux/file.h>

/* Drop the descriptor and its reference; -EBADF if fd is not open. */
int close_fd(unsigned int fd);

#endif
