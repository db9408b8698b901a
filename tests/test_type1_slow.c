// SPDX-License-Identifier: GPL-2.0-only
/*
 * The long VFIO type1 scenarios (suite 'slow'): the same file as
 * test_type1.c, built to run only its slow group (the 32 GiB BAR mapped
 * with a lookup per 4 KiB page, 8,388,608 follow_pfnmap_start() calls).
 */
#define TYPE1_SLOW_SUITE 1
#include "test_type1.c"
