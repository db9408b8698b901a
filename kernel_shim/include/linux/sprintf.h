/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's formatting functions, with the kernel's prototypes; the
 * simulator links them to the C library's (same contract for the formats
 * the code under test uses; %p extensions print as plain pointers).
 * kasprintf() is the shim's own (kernel_shim/printk.c).
 */
#ifndef _DMASIM_LINUX_SPRINTF_H
#define _DMASIM_LINUX_SPRINTF_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <stdarg.h>

__printf(2, 3) int sprintf(char *buf, const char *fmt, ...);
__printf(3, 4) int snprintf(char *buf, size_t size, const char *fmt, ...);
__printf(3, 0) int vsnprintf(char *buf, size_t size, const char *fmt, va_list args);
__printf(3, 4) int scnprintf(char *buf, size_t size, const char *fmt, ...);
__printf(2, 3) __malloc char *kasprintf(gfp_t gfp, const char *fmt, ...);
__scanf(2, 3) int sscanf(const char *buf, const char *fmt, ...);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtobool(const char *s, bool *res);

#endif
