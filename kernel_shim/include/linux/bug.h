/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Definitions matching the kernel's BUG/WARN contract: WARN*() return the
 * condition and log "WARNING" (counted, so tests can assert that no warning
 * fired or that one did); BUG*() log and abort the process.
 */
#ifndef _DMASIM_LINUX_BUG_H
#define _DMASIM_LINUX_BUG_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/printk.h>

void __dmasim_warn(const char *file, int line, const char *fmt, ...);
void __dmasim_bug(const char *file, int line, const char *what) __noreturn;

#define BUG() __dmasim_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(condition) do {						\
	if (unlikely(condition))					\
		__dmasim_bug(__FILE__, __LINE__, "BUG_ON(" #condition ")"); \
} while (0)

#define WARN_ON(condition) ({						\
	int __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		__dmasim_warn(__FILE__, __LINE__, "WARN_ON(%s)", #condition); \
	unlikely(__ret_warn_on);					\
})

#define WARN(condition, format...) ({					\
	int __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		__dmasim_warn(__FILE__, __LINE__, format);		\
	unlikely(__ret_warn_on);					\
})

#define WARN_ON_ONCE(condition) ({					\
	static bool __warned;						\
	int __ret_warn_once = !!(condition);				\
	if (unlikely(__ret_warn_once && !__warned)) {			\
		__warned = true;					\
		__dmasim_warn(__FILE__, __LINE__, "WARN_ON_ONCE(%s)", #condition); \
	}								\
	unlikely(__ret_warn_once);					\
})

#define WARN_ONCE(condition, format...) ({				\
	static bool __warned;						\
	int __ret_warn_once = !!(condition);				\
	if (unlikely(__ret_warn_once && !__warned)) {			\
		__warned = true;					\
		__dmasim_warn(__FILE__, __LINE__, format);		\
	}								\
	unlikely(__ret_warn_once);					\
})

#define VM_BUG_ON(cond)			BUG_ON(cond)
#define VM_BUG_ON_PAGE(cond, page)	BUG_ON(cond)
#define VM_WARN_ON(cond)		(void)WARN_ON(cond)
#define VM_WARN_ON_ONCE(cond)		(void)WARN_ON_ONCE(cond)

#endif
