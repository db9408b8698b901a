// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated VFS: one process's descriptor table, struct file reference
 * counting, anonymous-inode files, character-device regions, cdevs, device
 * classes and the device nodes devtmpfs would create.  See <linux/fs.h>,
 * <linux/file.h>, <linux/cdev.h>, <linux/device/class.h> and <shim/fs.h>
 * for what is emulated and what is simplified.
 */
#include <linux/anon_inodes.h>
#include <linux/array_size.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dmasim/sim.h>
#include <shim/fs.h>

/* RLIMIT_NOFILE of the simulated process. */
#define SHIM_NR_OPEN		65536
/* A slot taken by get_unused_fd_flags() and not yet installed. */
#define FD_RESERVED		((struct file *)1)

static DEFINE_MUTEX(files_lock);
static struct file **fd_table;
static unsigned int fd_table_size;
static unsigned int fd_next;		/* no free slot below this one */
static unsigned int fd_open;		/* reserved or installed slots */
static unsigned long files_alive;

static int fd_table_grow(unsigned int want)
{
	unsigned int size = fd_table_size ? fd_table_size : 64;
	struct file **table;

	while (size <= want)
		size *= 2;
	if (size > SHIM_NR_OPEN)
		size = SHIM_NR_OPEN;
	table = sim_kmalloc(size * sizeof(*table), 1);
	if (!table)
		return -ENOMEM;
	if (fd_table_size)
		memcpy(table, fd_table, fd_table_size * sizeof(*table));
	sim_kfree(fd_table);
	fd_table = table;
	fd_table_size = size;
	return 0;
}

int get_unused_fd_flags(unsigned int flags)
{
	unsigned int fd;
	int ret;

	if (sim_should_fail(SIM_FP_GET_UNUSED_FD))
		return -EMFILE;
	mutex_lock(&files_lock);
	for (fd = fd_next; fd < fd_table_size && fd_table[fd]; fd++)
		;
	if (fd >= SHIM_NR_OPEN) {
		ret = -EMFILE;
		goto out;
	}
	if (fd >= fd_table_size) {
		ret = fd_table_grow(fd);
		if (ret)
			goto out;
	}
	fd_table[fd] = FD_RESERVED;
	fd_next = fd + 1;
	fd_open++;
	ret = fd;
out:
	mutex_unlock(&files_lock);
	return ret;
}

static void fd_release_slot(unsigned int fd)
{
	fd_table[fd] = NULL;
	fd_open--;
	if (fd < fd_next)
		fd_next = fd;
}

void put_unused_fd(unsigned int fd)
{
	mutex_lock(&files_lock);
	BUG_ON(fd >= fd_table_size || fd_table[fd] != FD_RESERVED);
	fd_release_slot(fd);
	mutex_unlock(&files_lock);
}

void fd_install(unsigned int fd, struct file *file)
{
	mutex_lock(&files_lock);
	BUG_ON(fd >= fd_table_size || fd_table[fd] != FD_RESERVED);
	fd_table[fd] = file;
	mutex_unlock(&files_lock);
}

static struct file *fd_lookup_locked(unsigned int fd)
{
	struct file *file;

	if (fd >= fd_table_size)
		return NULL;
	file = fd_table[fd];
	return file == FD_RESERVED ? NULL : file;
}

struct file *fget(unsigned int fd)
{
	struct file *file;

	mutex_lock(&files_lock);
	file = fd_lookup_locked(fd);
	if (file)
		get_file(file);
	mutex_unlock(&files_lock);
	return file;
}

int close_fd(unsigned int fd)
{
	struct file *file;

	mutex_lock(&files_lock);
	file = fd_lookup_locked(fd);
	if (file)
		fd_release_slot(fd);
	mutex_unlock(&files_lock);
	if (!file)
		return -EBADF;
	fput(file);
	return 0;
}

unsigned int shim_nr_open_fds(void)
{
	return fd_open;
}

unsigned long shim_nr_files(void)
{
	return files_alive;
}

/*
 * A file and its own inode, one reference.  Its seek modes: a device node
 * opened by open(2) has FMODE_LSEEK (if fops has ->llseek), FMODE_PREAD
 * and FMODE_PWRITE (do_dentry_open()), which nonseekable_open() takes
 * away; a pseudo file (anon_inode_getfile(), alloc_file_pseudo()) only
 * FMODE_LSEEK, if fops has ->llseek (file_init_path()).
 */
static struct file *file_alloc(const struct file_operations *fops,
			       unsigned int flags, bool devnode)
{
	struct file *file;
	struct inode *inode;

	inode = kzalloc(sizeof(*inode), GFP_KERNEL);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file) {
		kfree(inode);
		return ERR_PTR(-ENOMEM);
	}
	atomic_set(&inode->i_count, 1);
	atomic_long_set(&file->f_count, 1);
	file->f_inode = inode;
	file->f_op = fops;
	file->f_flags = flags & (O_ACCMODE | O_NONBLOCK);
	file->f_mode = devnode ? FMODE_PREAD | FMODE_PWRITE : 0;
	if (fops && fops->llseek)
		file->f_mode |= FMODE_LSEEK;
	if ((flags & O_ACCMODE) != O_WRONLY)
		file->f_mode |= FMODE_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		file->f_mode |= FMODE_WRITE;
	mutex_init(&file->f_pos_lock);
	__atomic_add_fetch(&files_alive, 1, __ATOMIC_RELAXED);
	return file;
}

static void file_free(struct file *file)
{
	kfree(file->f_inode);
	kfree(file);
	__atomic_sub_fetch(&files_alive, 1, __ATOMIC_RELAXED);
}

void fput(struct file *file)
{
	if (!atomic_long_dec_and_test(&file->f_count))
		return;
	if (file->f_op && file->f_op->release)
		file->f_op->release(file->f_inode, file);
	file_free(file);
}

/*
 * fput() from a user task runs the release at its return to user space
 * (task_work), not inside the caller's locks: munmap drops a mapping's
 * file under mmap_lock, and its release may take locks that nest outside
 * mmap_lock.  The shim defers only the fputs that need it (a VMA's file);
 * kapi doors run them on their way out (kapi_door.h).
 */
static _Thread_local struct file *deferred_fputs[16];
static _Thread_local unsigned int nr_deferred_fputs;
SIM_THREAD_LOCAL_PER_CPU(deferred_fputs)
SIM_THREAD_LOCAL_PER_CPU(nr_deferred_fputs)

void shim_fput_deferred(struct file *file)
{
	if (nr_deferred_fputs == ARRAY_SIZE(deferred_fputs))
		shim_task_work_run();
	deferred_fputs[nr_deferred_fputs++] = file;
}

void shim_task_work_run(void)
{
	while (nr_deferred_fputs)
		fput(deferred_fputs[--nr_deferred_fputs]);
}

struct file *anon_inode_getfile(const char *name,
				const struct file_operations *fops,
				void *priv, int flags)
{
	struct file *file = file_alloc(fops, flags, false);

	if (!IS_ERR(file))
		file->private_data = priv;
	return file;
}

/* ------------------------------------------------------------------------
 * Character-device regions and cdevs.
 */
struct chrdev_region {
	struct list_head list;
	dev_t base;
	unsigned int count;
	const char *name;
};

static LIST_HEAD(chrdev_regions);
static LIST_HEAD(cdev_list);
static unsigned int cdevs_alive;
static DEFINE_MUTEX(chrdev_lock);
/* Dynamic majors are handed out downwards from here, as the kernel's are. */
static unsigned int chrdev_next_major = 511;

static bool chrdev_overlaps(dev_t base, unsigned int count)
{
	struct chrdev_region *r;

	list_for_each_entry(r, &chrdev_regions, list)
		if (base < r->base + r->count && r->base < base + count)
			return true;
	return false;
}

static int chrdev_record(dev_t base, unsigned int count, const char *name)
{
	struct chrdev_region *r;

	if (chrdev_overlaps(base, count))
		return -EBUSY;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->base = base;
	r->count = count;
	r->name = name;
	list_add_tail(&r->list, &chrdev_regions);
	return 0;
}

int alloc_chrdev_region(dev_t *dev, unsigned int baseminor, unsigned int count,
			const char *name)
{
	int ret;

	mutex_lock(&chrdev_lock);
	if (chrdev_next_major < 234) {
		ret = -EBUSY;
	} else {
		*dev = MKDEV(chrdev_next_major, baseminor);
		ret = chrdev_record(*dev, count, name);
		if (!ret)
			chrdev_next_major--;
	}
	mutex_unlock(&chrdev_lock);
	return ret;
}

int register_chrdev_region(dev_t from, unsigned int count, const char *name)
{
	int ret;

	mutex_lock(&chrdev_lock);
	ret = chrdev_record(from, count, name);
	mutex_unlock(&chrdev_lock);
	return ret;
}

void unregister_chrdev_region(dev_t from, unsigned int count)
{
	struct chrdev_region *r, *tmp;

	mutex_lock(&chrdev_lock);
	list_for_each_entry_safe(r, tmp, &chrdev_regions, list) {
		if (r->base == from && r->count == count) {
			list_del(&r->list);
			kfree(r);
			break;
		}
	}
	mutex_unlock(&chrdev_lock);
}

void cdev_init(struct cdev *cdev, const struct file_operations *fops)
{
	memset(cdev, 0, sizeof(*cdev));
	INIT_LIST_HEAD(&cdev->list);
	cdev->ops = fops;
}

int cdev_add(struct cdev *p, dev_t dev, unsigned int count)
{
	/* The kernel's kobj_map() allocates the range's probe records. */
	if (sim_should_fail(SIM_FP_KMALLOC))
		return -ENOMEM;
	p->dev = dev;
	p->count = count;
	mutex_lock(&chrdev_lock);
	list_add_tail(&p->list, &cdev_list);
	p->refs = 1;		/* the table's */
	cdevs_alive++;
	mutex_unlock(&chrdev_lock);
	return 0;
}

/* The cdev's last reference went: its kobject would be released. */
static void cdev_put_locked(struct cdev *p)
{
	lockdep_assert_held(&chrdev_lock);
	if (WARN_ON(!p->refs))
		return;
	if (!--p->refs)
		cdevs_alive--;
}

static void cdev_put(struct cdev *p)
{
	mutex_lock(&chrdev_lock);
	cdev_put_locked(p);
	mutex_unlock(&chrdev_lock);
}

/* No new lookup finds p; an open that found it already goes on. */
void cdev_del(struct cdev *p)
{
	mutex_lock(&chrdev_lock);
	if (!list_empty(&p->list)) {
		list_del_init(&p->list);
		cdev_put_locked(p);
	}
	mutex_unlock(&chrdev_lock);
}

unsigned int shim_nr_cdevs(void)
{
	return cdevs_alive;
}

static struct cdev *cdev_lookup(dev_t dev)
{
	struct cdev *p, *found = NULL;

	mutex_lock(&chrdev_lock);
	list_for_each_entry(p, &cdev_list, list) {
		if (dev >= p->dev && dev < p->dev + p->count) {
			found = p;
			found->refs++;	/* chrdev_open()'s cdev_get() */
			break;
		}
	}
	mutex_unlock(&chrdev_lock);
	return found;
}

static void (*chrdev_open_race_hook)(void *arg);
static void *chrdev_open_race_arg;

void shim_chrdev_open_race_set(void (*hook)(void *arg), void *arg)
{
	chrdev_open_race_arg = arg;
	__atomic_store_n(&chrdev_open_race_hook, hook, __ATOMIC_RELEASE);
}

/* The test double's hook, once: another task, between lookup and ->open. */
static void chrdev_open_race(void)
{
	void (*hook)(void *arg);

	hook = __atomic_exchange_n(&chrdev_open_race_hook, NULL,
				   __ATOMIC_ACQ_REL);
	if (hook)
		hook(chrdev_open_race_arg);
}

/* ------------------------------------------------------------------------
 * Classes, class devices and their device nodes.
 */
struct devnode_record {
	struct list_head list;
	const struct class *cls;
	struct device *dev;
	dev_t devt;
	char *node;		/* path below /dev */
};

static LIST_HEAD(devnodes);
static unsigned int devices_alive;

struct class *class_create(const char *name)
{
	struct class *cls = kzalloc(sizeof(*cls), GFP_KERNEL);

	if (!cls)
		return ERR_PTR(-ENOMEM);
	cls->name = name;
	return cls;
}

void class_destroy(const struct class *cls)
{
	if (IS_ERR_OR_NULL(cls))
		return;
	kfree(cls);
}

struct device *device_create(const struct class *cls, struct device *parent,
			     dev_t devt, void *drvdata, const char *fmt, ...)
{
	struct devnode_record *rec;
	struct device *dev;
	char name[128];
	umode_t mode = 0;
	va_list args;

	/* As device_create_groups_vargs(): no class, no device. */
	if (IS_ERR_OR_NULL(cls))
		return ERR_PTR(-ENODEV);
	va_start(args, fmt);
	vsnprintf(name, sizeof(name), fmt, args);
	va_end(args);

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!rec || !dev)
		goto nomem;
	dev->parent = parent;
	dev->devt = devt;
	dev_set_drvdata(dev, drvdata);
	if (dev_set_name(dev, "%s", name))
		goto nomem;
	rec->node = cls && cls->devnode ? cls->devnode(dev, &mode) :
					   kstrdup(dev_name(dev), GFP_KERNEL);
	if (!rec->node)
		goto nomem_name;
	rec->cls = cls;
	rec->dev = dev;
	rec->devt = devt;
	mutex_lock(&chrdev_lock);
	list_add_tail(&rec->list, &devnodes);
	devices_alive++;
	mutex_unlock(&chrdev_lock);
	return dev;

nomem_name:
	dev_free_name(dev);
nomem:
	kfree(dev);
	kfree(rec);
	return ERR_PTR(-ENOMEM);
}

void device_destroy(const struct class *cls, dev_t devt)
{
	struct devnode_record *rec, *found = NULL;

	mutex_lock(&chrdev_lock);
	list_for_each_entry(rec, &devnodes, list) {
		if (rec->cls == cls && rec->devt == devt) {
			found = rec;
			list_del(&rec->list);
			devices_alive--;
			break;
		}
	}
	mutex_unlock(&chrdev_lock);
	if (!found)
		return;
	kfree(found->node);
	dev_free_name(found->dev);
	kfree(found->dev);
	kfree(found);
}

unsigned int shim_nr_devices(void)
{
	return devices_alive;
}

static bool devnode_lookup(const char *name, dev_t *devt)
{
	struct devnode_record *rec;
	bool found = false;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	mutex_lock(&chrdev_lock);
	list_for_each_entry(rec, &devnodes, list) {
		if (!strcmp(rec->node, name)) {
			*devt = rec->devt;
			found = true;
			break;
		}
	}
	mutex_unlock(&chrdev_lock);
	return found;
}

int shim_devnode_devt(const char *name, dev_t *devt)
{
	return devnode_lookup(name, devt) ? 0 : -ENOENT;
}

int shim_open_chrdev(dev_t devt, unsigned int flags)
{
	struct file *file;
	struct cdev *cdev;
	int fd, ret;

	cdev = cdev_lookup(devt);
	if (!cdev)
		return -ENXIO;
	chrdev_open_race();
	fd = get_unused_fd_flags(flags);
	if (fd < 0) {
		ret = fd;
		goto put_cdev;
	}
	file = file_alloc(cdev->ops, flags, true);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		ret = PTR_ERR(file);
		goto put_cdev;
	}
	file->f_inode->i_mode = S_IFCHR;
	file->f_inode->i_rdev = devt;
	file->f_inode->i_cdev = cdev;
	if (file->f_op->open) {
		ret = file->f_op->open(file->f_inode, file);
		if (ret) {
			/* No ->release for a file whose ->open failed. */
			file_free(file);
			put_unused_fd(fd);
			goto put_cdev;
		}
	}
	fd_install(fd, file);
	ret = fd;
put_cdev:
	/* The kernel's file keeps it to its last fput: see <linux/cdev.h>. */
	cdev_put(cdev);
	return ret;
}

int shim_open_devnode(const char *name, unsigned int flags)
{
	dev_t devt;

	if (!devnode_lookup(name, &devt))
		return -ENOENT;
	return shim_open_chrdev(devt, flags);
}

int shim_fcntl_getfl(unsigned int fd)
{
	struct file *file = fget(fd);
	int ret;

	if (!file)
		return -EBADF;
	ret = file->f_flags;
	fput(file);
	return ret;
}

ssize_t shim_pread(unsigned int fd, char __user *buf, size_t count, loff_t pos)
{
	struct file *file;
	ssize_t ret;

	/* ksys_pread64(), then vfs_read() without its permission hooks */
	if (pos < 0)
		return -EINVAL;
	file = fget(fd);
	if (!file)
		return -EBADF;
	if (!(file->f_mode & FMODE_PREAD))
		ret = -ESPIPE;
	else if (!(file->f_mode & FMODE_READ))
		ret = -EBADF;
	else if (!file->f_op || !file->f_op->read)
		ret = -EINVAL;	/* no FMODE_CAN_READ */
	else
		ret = file->f_op->read(file, buf, count, &pos);
	fput(file);
	return ret;
}

long shim_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg)
{
	struct file *file = fget(fd);
	long ret;

	if (!file)
		return -EBADF;
	if (file->f_op && file->f_op->unlocked_ioctl)
		ret = file->f_op->unlocked_ioctl(file, cmd, arg);
	else
		ret = -ENOTTY;
	fput(file);
	return ret;
}
