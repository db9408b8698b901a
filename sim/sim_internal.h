/* SPDX-License-Identifier: GPL-2.0-only */
/* Declarations shared inside sim/ only: each part's setup and teardown. */
#ifndef DMASIM_SIM_INTERNAL_H
#define DMASIM_SIM_INTERNAL_H

#include <dmasim/sim.h>

/* sim/locking.c: 0 if zeroed storage is a valid unlocked lock. */
int sim_locking_selfcheck(void);

/* sim/clock.c: the clock back at its start (a fresh machine). */
void sim_clock_reset(void);

/* sim/physmem.c + sim/buddy.c: RAM, memmap, free lists. */
int sim_mem_init(const struct sim_config *cfg);
void sim_mem_destroy(void);
/* The host memory sim_mem_destroy() kept for the next machine, unmapped. */
void sim_mem_release_kept(void);

/* sim/iommu.c: every domain freed, format tables ready. */
int sim_iommu_init(void);
void sim_iommu_destroy(void);
/* The lock of the simulated IOMMU (recursive), for sim/iova.c. */
void sim_iommu_lock(void);
void sim_iommu_unlock(void);
/* sim/iova.c's state, hung off each domain; freed with the domain. */
struct sim_iova_space;
struct sim_iova_space **sim_iommu_domain_iova_space(struct sim_iommu_domain *dom);
void sim_iova_space_free(struct sim_iommu_domain *dom);

/* sim/mm.c: address spaces and MMIO BARs (VFIO work). */
int sim_mm_init(const struct sim_config *cfg);
void sim_mm_destroy(void);
/* The page-table chunks sim_mm_destroy() kept for the next machine, unmapped. */
void sim_mm_release_kept(void);

#endif
