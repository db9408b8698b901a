/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _DMASIM_LINUX_STDARG_H
#define _DMASIM_LINUX_STDARG_H
#include <stdarg.h>
#endif
