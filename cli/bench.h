/* SPDX-License-Identifier: GPL-2.0-only */
/* Benchmark sections of `dmasim bench`, one per scenario file. */
#ifndef DMASIM_CLI_BENCH_H
#define DMASIM_CLI_BENCH_H

#include "json.h"

/* VFIO type1: 32 GiB BAR before/after, anonymous memory pages/s. */
void bench_bar(struct json *j, unsigned int repeat);

#endif
