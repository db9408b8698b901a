// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until this part of the machine is written. */
#include "sim_internal.h"

int sim_iommu_init(void)
{
	return 0;
}

void sim_iommu_destroy(void)
{
}
