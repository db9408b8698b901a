// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_iommu_pgsize: the page-size choice of iommu_map()/iommu_unmap()
 * alone, in dry run under random pgsize bitmaps: fuzz_iommu.c's pgsize
 * mode without the mode byte (every input is a bitmap and up to 8 maps and
 * unmaps; see fuzz_iommu.c for what is checked).  No page table is
 * written, so this harness runs fastest.
 */
#define FUZZ_IOMMU_PGSIZE_ONLY 1
#include "fuzz_iommu.c"
