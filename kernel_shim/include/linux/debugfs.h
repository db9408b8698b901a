/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * debugfs (<linux/debugfs.h>), as a kernel built without CONFIG_DEBUG_FS
 * has it.  Current trees' dma-heap.c includes this header and keeps its
 * debugfs directory and per-heap "show" files under #ifdef CONFIG_DEBUG_FS,
 * which the shim's kconfig leaves unset: the simulation has no pseudo
 * filesystems, and those files only print state the suites read through
 * kapi instead.
 *
 * (a) Definitions that must match the kernel: the prototypes below and
 *     their !CONFIG_DEBUG_FS contract: creating anything returns
 *     ERR_PTR(-ENODEV), removing accepts anything (NULL and error
 *     pointers included) and does nothing.
 * (b) Stubs on purpose: all of it; nothing is created or recorded.
 */
#ifndef _DMASIM_LINUX_DEBUGFS_H
#define _DMASIM_LINUX_DEBUGFS_H

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/types.h>

struct dentry;
struct file_operations;

/* What creating anything gives when debugfs is not built in. */
#define DMASIM_NO_DEBUGFS	((struct dentry *)ERR_PTR(-ENODEV))

static inline struct dentry *
debugfs_create_dir(const char *name, struct dentry *parent)
{
	return DMASIM_NO_DEBUGFS;
}

static inline struct dentry *
debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
		    void *data, const struct file_operations *fops)
{
	return DMASIM_NO_DEBUGFS;
}

/* Removing: nothing was created; NULL and error pointers are fine. */
static inline void debugfs_remove(struct dentry *dentry) { }
static inline void debugfs_remove_recursive(struct dentry *dentry) { }

#endif
