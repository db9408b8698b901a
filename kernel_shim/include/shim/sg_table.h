/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Random access into a table sg_alloc_table() built (kernel_shim/
 * scatterlist.c), for the kapi_*.c files that report entry i of a table:
 * the kernel has no such call (its users walk with sg_next()); the shim
 * knows how it chained the chunks, so it hops a whole chunk at a time.
 */
#ifndef _DMASIM_SHIM_SG_TABLE_H
#define _DMASIM_SHIM_SG_TABLE_H

#include <linux/scatterlist.h>

/* Entry i (< sgt->orig_nents) of a table sg_alloc_table() laid out. */
struct scatterlist *shim_sg_table_entry(struct sg_table *sgt, unsigned int i);

#endif
