/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files, inodes and character-device numbers: the part of the kernel's
 * <linux/fs.h> the dma-buf and dma-heap code uses.
 *
 * (a) Definitions that must match the kernel: the names and prototypes of
 *     struct file / struct inode / struct file_operations members kernel code
 *     touches (f_op, private_data, f_flags, f_mode, f_inode; i_rdev, i_cdev,
 *     i_size; owner, open, release, unlocked_ioctl, compat_ioctl, mmap,
 *     llseek), the FMODE_* bits, and iminor()/imajor().  The structs carry
 *     only those members.
 * Simplified: one simulated process with one fd table (kernel_shim/fs.c);
 *     a file's reference count is f_count, and the last fput() calls
 *     f_op->release at once (no task_work deferral).  Character-device
 *     regions and class devices are recorded in tables so the kapi can
 *     "open /dev/NAME" as the VFS would (see <shim/fs.h>).
 * (b) Stubs: nonseekable_open() only clears the seek modes;
 *     noop_llseek() returns the position unchanged.
 * Like the kernel's, this header makes the slab allocator and the task's
 * signal state visible to its users (the kernel gets them through the long
 * chain of headers <linux/fs.h> includes).
 */
#ifndef _DMASIM_LINUX_FS_H
#define _DMASIM_LINUX_FS_H

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/uaccess.h>

struct cdev;
struct module;
struct poll_table_struct;
struct vm_area_struct;

#define FMODE_READ		((__force fmode_t)(1 << 0))
#define FMODE_WRITE		((__force fmode_t)(1 << 1))
#define FMODE_LSEEK		((__force fmode_t)(1 << 2))
#define FMODE_PREAD		((__force fmode_t)(1 << 3))
#define FMODE_PWRITE		((__force fmode_t)(1 << 4))
#define FMODE_EXEC		((__force fmode_t)(1 << 5))
#define FMODE_ATOMIC_POS	((__force fmode_t)(1 << 15))
#define FMODE_STREAM		((__force fmode_t)(1 << 21))

#define S_IFMT	00170000
#define S_IFCHR	0020000
#define S_IFREG	0100000
#define S_ISCHR(m)	(((m) & S_IFMT) == S_IFCHR)

struct inode {
	umode_t i_mode;
	dev_t i_rdev;
	loff_t i_size;
	struct cdev *i_cdev;
	void *i_private;
	atomic_t i_count;
};

struct file {
	const struct file_operations *f_op;
	void *private_data;
	struct inode *f_inode;
	unsigned int f_flags;
	fmode_t f_mode;
	loff_t f_pos;
	atomic_long_t f_count;
	struct mutex f_pos_lock;
};

typedef unsigned int __poll_t;

struct file_operations {
	struct module *owner;
	loff_t (*llseek)(struct file *file, loff_t offset, int whence);
	ssize_t (*read)(struct file *file, char __user *buf, size_t count,
			loff_t *pos);
	ssize_t (*write)(struct file *file, const char __user *buf,
			 size_t count, loff_t *pos);
	__poll_t (*poll)(struct file *file, struct poll_table_struct *pt);
	long (*unlocked_ioctl)(struct file *file, unsigned int cmd,
			       unsigned long arg);
	long (*compat_ioctl)(struct file *file, unsigned int cmd,
			     unsigned long arg);
	int (*mmap)(struct file *file, struct vm_area_struct *vma);
	int (*open)(struct inode *inode, struct file *file);
	int (*flush)(struct file *file, void *id);
	int (*release)(struct inode *inode, struct file *file);
	void (*show_fdinfo)(void *m, struct file *file);
};

static inline struct inode *file_inode(const struct file *f)
{
	return f->f_inode;
}

static inline unsigned int iminor(const struct inode *inode)
{
	return MINOR(inode->i_rdev);
}

static inline unsigned int imajor(const struct inode *inode)
{
	return MAJOR(inode->i_rdev);
}

static inline struct file *get_file(struct file *f)
{
	atomic_long_inc(&f->f_count);
	return f;
}

static inline long file_count(struct file *f)
{
	return atomic_long_read(&f->f_count);
}

void fput(struct file *file);

static inline int nonseekable_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE);
	return 0;
}

static inline int stream_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE |
			  FMODE_ATOMIC_POS);
	filp->f_mode |= FMODE_STREAM;
	return 0;
}

static inline loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	return file->f_pos;
}

/* Character-device number regions (recorded in kernel_shim/fs.c). */
int alloc_chrdev_region(dev_t *dev, unsigned int baseminor, unsigned int count,
			const char *name);
int register_chrdev_region(dev_t from, unsigned int count, const char *name);
void unregister_chrdev_region(dev_t from, unsigned int count);

#endif
