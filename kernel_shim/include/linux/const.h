/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's _AC()/_UL() helpers. */
#ifndef _DMASIM_LINUX_CONST_H
#define _DMASIM_LINUX_CONST_H

#define __AC(X, Y)	(X##Y)
#define _AC(X, Y)	__AC(X, Y)
#define _AT(T, X)	((T)(X))
#define _UL(x)		(_AC(x, UL))
#define _ULL(x)		(_AC(x, ULL))
#define UL(x)		(_UL(x))
#define ULL(x)		(_ULL(x))
#define _BITUL(x)	(_UL(1) << (x))
#define _BITULL(x)	(_ULL(1) << (x))

#endif
