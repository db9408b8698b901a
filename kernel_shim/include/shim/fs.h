/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The system-call side of the simulated VFS (kernel_shim/fs.c), for the
 * kapi_*.c files: what open(2), ioctl(2) and close(2) on a device node do
 * in the kernel (and pread(2)), reduced to the paths the code under test
 * has.
 *
 * shim_open_devnode("dma_heap/system", O_RDONLY | O_CLOEXEC) finds the
 * node that device_create() recorded under that name (the name devtmpfs
 * would give it: class->devnode's answer, else the device name; a leading
 * "/dev/" is accepted), finds the cdev that covers its dev_t, makes a file
 * with the cdev's fops and calls ->open, as chrdev_open() does; then it
 * installs the file in a new fd.
 */
#ifndef _DMASIM_SHIM_FS_H
#define _DMASIM_SHIM_FS_H

#include <linux/fs.h>

/* fd, or -ENOENT (no such node), -ENXIO (no cdev), -EMFILE, ->open's errno. */
int shim_open_devnode(const char *name, unsigned int flags);
/* The same for a char-device number, as open(2) of a node mknod made. */
int shim_open_chrdev(dev_t devt, unsigned int flags);
/* stat(2)'s st_rdev of the node: 0, or -ENOENT. */
int shim_devnode_devt(const char *name, dev_t *devt);
/* ->unlocked_ioctl of the fd's file; -EBADF, or -ENOTTY without one. */
long shim_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg);
/* fcntl(fd, F_GETFL): the file's f_flags (access mode, O_NONBLOCK), -EBADF. */
int shim_fcntl_getfl(unsigned int fd);
/*
 * pread(2): ksys_pread64() and vfs_read() (no security or fsnotify hooks):
 * -EINVAL for pos < 0, -EBADF, -ESPIPE on a file opened nonseekable (no
 * FMODE_PREAD), -EBADF if not open for reading, -EINVAL without ->read.
 */
ssize_t shim_pread(unsigned int fd, char __user *buf, size_t count, loff_t pos);
/* Descriptors open (installed or reserved) in the simulated process. */
unsigned int shim_nr_open_fds(void);
/* Files alive (referenced by an fd or by the kernel). */
unsigned long shim_nr_files(void);
/*
 * fput() as from a user task holding locks (munmap: mmap_lock): the
 * release runs at shim_task_work_run(), which every kapi door calls on
 * its way out (the return to user space), and a full queue of 16.
 */
void shim_fput_deferred(struct file *file);
void shim_task_work_run(void);
/* Class devices created and not destroyed. */
unsigned int shim_nr_devices(void);
/*
 * Char devices with a reference (<linux/cdev.h>): added (cdev_add()) and
 * not deleted, or deleted while an open still holds them.
 */
unsigned int shim_nr_cdevs(void);
/*
 * Test double (a race on demand): the next chrdev open calls hook(arg)
 * once, after it found the cdev and before ->open, as if another task ran
 * there (a driver's remove deleting the cdev, say); NULL disarms.
 */
void shim_chrdev_open_race_set(void (*hook)(void *arg), void *arg);

#endif
