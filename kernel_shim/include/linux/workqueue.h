/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Work queues (<linux/workqueue.h>).  vfio_iommu_type1.c includes this
 * header and uses nothing from it; dmasim runs everything synchronously in
 * the calling thread and has no worker threads.
 *
 * (b) On purpose, only the type names: struct work_struct and
 * struct delayed_work are declared, not defined, so code that would queue
 * work fails to compile rather than silently never running it; the drift
 * report (tools/shim-drift.py) lists such uses.
 */
#ifndef _DMASIM_LINUX_WORKQUEUE_H
#define _DMASIM_LINUX_WORKQUEUE_H

struct work_struct;
struct delayed_work;
struct workqueue_struct;

#endif
