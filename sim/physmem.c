// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until this part of the machine is written. */
#include "sim_internal.h"

int sim_mem_init(const struct sim_config *cfg __attribute__((unused)))
{
	return 0;
}

void sim_mem_destroy(void)
{
}
