/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: plain-C entry points into the simulated kernel (implemented in
 * kapi/kapi_*.c, which are kernel translation units).  Tests, fuzzers
 * and the CLI call these; they never include a kernel header.
 *
 * Every kapi call returns the kernel's errno (negative) or 0, exactly as the
 * kernel code under test returned it, so tests can compare errnos.
 */
#ifndef DMASIM_KAPI_H
#define DMASIM_KAPI_H

#include <dmasim/sim.h>

/*
 * Run the initcalls of every linked kernel file (module_init and the
 * *_initcall levels), once per process; later calls return the first
 * result.  The machine (sim_machine_init) may be rebuilt between scenarios
 * after boot: kernel modules keep no pages across scenarios.
 */
int kapi_boot(void);
/*
 * Apply the command line's module parameters (sim_boot_params(), from
 * DMASIM_PARAMS), once per process; kapi_boot() does it first.  A program
 * that sets parameters itself before booting (the CLI's --param) calls it
 * before, so that its own settings win.  0 or the first setting's error.
 */
int kapi_boot_params(void);
/*
 * Kernel objects (sim_kmalloc_outstanding()) that initcalls which failed
 * kept: a failing init must give back what it allocated, so 0.
 */
unsigned long long kapi_boot_failed_init_objects(void);
/* Run the module_exit functions (in reverse order). */
void kapi_shutdown(void);

/*
 * Module parameters, by "module.name" (module = the file's KBUILD_MODNAME):
 * "system_heap.orders" = "8,4,0", "vfio_iommu_type1.disable_hugepages" = "1".
 * Returns 0, -ENOENT (no such parameter) or -EINVAL (value does not parse).
 */
int kapi_param_set(const char *name, const char *value);
int kapi_param_get(const char *name, char *buf, unsigned long size);
/* Calls fn for every parameter; for --help and docs. */
void kapi_param_for_each(void (*fn)(void *arg, const char *name,
				    const char *type), void *arg);

/* The task the calling thread runs as: a fatal signal pending or not. */
void kapi_task_set_fatal_signal(int pending);

#endif
