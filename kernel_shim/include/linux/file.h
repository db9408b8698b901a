/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * File references and descriptors, as the kernel's <linux/file.h>.
 * (a) Definitions that must match the kernel: the prototypes and the
 *     reserve / install / release protocol of descriptors:
 *     get_unused_fd_flags() reserves the lowest free fd (or -EMFILE),
 *     fd_install() publishes a file in it (taking over the caller's
 *     reference), put_unused_fd() gives back a reserved, never-installed fd.
 * (c) Test double: the fd table is the one simulated process's
 *     (kernel_shim/fs.c); get_unused_fd_flags() asks the fault point
 *     "shim/fs/get_unused_fd" first and fails with -EMFILE.
 */
#ifndef _DMASIM_LINUX_FILE_H
#define _DMASIM_LINUX_FILE_H

#include <linux/fs.h>
#include <linux/types.h>

struct file *fget(unsigned int fd);
int get_unused_fd_flags(unsigned int flags);
void put_unused_fd(unsigned int fd);
void fd_install(unsigned int fd, struct file *file);

#endif
