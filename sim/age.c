// SPDX-License-Identifier: GPL-2.0-only
/* Ageing workload (first part: the hooks buddy.c calls). */
#include "mem_internal.h"

unsigned long sim_age_held_pages(void)
{
	return 0;
}

unsigned long sim_age_reclaim(unsigned int order, unsigned int sim_gfp,
			      unsigned long max_pages)
{
	return 0;
}

void sim_age_forget(void)
{
}
