/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files with no filesystem behind them, as the kernel's <linux/anon_inodes.h>.
 * (a) The kernel's contract: a new struct file with one reference, the given
 *     fops and private data, and f_flags from flags (O_ACCMODE | O_NONBLOCK).
 * Simplified: each file gets its own inode (the kernel shares one anon inode,
 *     or, for dma-buf, makes one per buffer); it is freed with the file.
 * (c) Test double: allocation failure is kmalloc's fault point.
 */
#ifndef _DMASIM_LINUX_ANON_INODES_H
#define _DMASIM_LINUX_ANON_INODES_H

#include <linux/fs.h>

struct file *anon_inode_getfile(const char *name,
				const struct file_operations *fops,
				void *priv, int flags);

#endif
