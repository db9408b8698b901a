/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * File permission bits, as module parameters and device nodes spell them
 * (vfio_iommu_type1.c: module_param_named(..., S_IRUGO | S_IWUSR)).
 *
 * (a) Definitions that must match the kernel: the octal permission bits of
 *     uapi/linux/stat.h and the *UGO groupings of linux/stat.h.  The file
 *     type bits (S_IFMT, S_IFCHR, ...) live in the shim's <linux/fs.h>.
 * No stubs, no test doubles: module parameters record their mode and
 * nothing checks it.
 */
#ifndef _DMASIM_LINUX_STAT_H
#define _DMASIM_LINUX_STAT_H

/* Owner, group, others: read 4, write 2, execute 1, one octal digit each. */
#define S_IRUSR	00400
#define S_IWUSR	00200
#define S_IXUSR	00100
#define S_IRWXU	(S_IRUSR | S_IWUSR | S_IXUSR)
#define S_IRGRP	00040
#define S_IWGRP	00020
#define S_IXGRP	00010
#define S_IRWXG	(S_IRGRP | S_IWGRP | S_IXGRP)
#define S_IROTH	00004
#define S_IWOTH	00002
#define S_IXOTH	00001
#define S_IRWXO	(S_IROTH | S_IWOTH | S_IXOTH)

#define S_IRUGO		(S_IRUSR | S_IRGRP | S_IROTH)
#define S_IWUGO		(S_IWUSR | S_IWGRP | S_IWOTH)
#define S_IXUGO		(S_IXUSR | S_IXGRP | S_IXOTH)
#define S_IRWXUGO	(S_IRWXU | S_IRWXG | S_IRWXO)

#endif
