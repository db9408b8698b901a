/* SPDX-License-Identifier: GPL-2.0-only */
/* Sections of `dmasim report` that live beside their scenario. */
#ifndef DMASIM_CLI_REPORT_H
#define DMASIM_CLI_REPORT_H

#include "json.h"

/* VFIO type1: the 32 GiB BAR seed table (scenario_bar.c). */
void report_bar_text(void);
void report_bar_json(struct json *j);

#endif
