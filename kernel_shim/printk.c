// SPDX-License-Identifier: GPL-2.0-only
/*
 * printk, WARN/BUG and the string helpers the C library does not have.
 * Test double: messages go to the simulated kernel log (sim/klog.c).
 */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dmasim/sim.h>

int _printk(const char *fmt, ...)
{
	char buf[512];
	int level = SIM_KLOG_WARNING; /* the kernel's default message level */
	va_list args;
	int len;

	if (fmt[0] == KERN_SOH_ASCII && fmt[1]) {
		if (fmt[1] >= '0' && fmt[1] <= '7')
			level = fmt[1] - '0';
		fmt += 2;
	}
	va_start(args, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	sim_klog(level, buf);
	return len;
}

void __dmasim_warn(const char *file, int line, const char *fmt, ...)
{
	char buf[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	sim_kernel_warn(file, line, buf);
}

void __dmasim_bug(const char *file, int line, const char *what)
{
	sim_kernel_bug(file, line, what);
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	va_list args;
	char *p;
	int len;

	va_start(args, fmt);
	len = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	p = kmalloc(len + 1, gfp);
	if (!p)
		return NULL;
	va_start(args, fmt);
	vsnprintf(p, len + 1, fmt, args);
	va_end(args);
	return p;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int len;

	if (!size)
		return 0;
	va_start(args, fmt);
	len = vsnprintf(buf, size, fmt, args);
	va_end(args);
	return len < (int)size ? len : (int)size - 1;
}

size_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/* Parse an unsigned number as the kernel's kstrtoull(): all of s, one \n allowed. */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v = 0;
	const char *p = s;
	int digits = 0;

	if (*p == '+')
		p++;
	if (base == 0) {
		base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		    ((p[2] >= '0' && p[2] <= '9') || (p[2] >= 'a' && p[2] <= 'f') ||
		     (p[2] >= 'A' && p[2] <= 'F'))) {
			base = 16;
			p += 2;
		} else if (p[0] == '0' && p[1] >= '0' && p[1] <= '7') {
			base = 8;
		}
	} else if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
	}
	for (; *p && *p != '\n'; p++, digits++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (check_mul_overflow(v, (unsigned long long)base, &v) ||
		    check_add_overflow(v, (unsigned long long)d, &v))
			return -ERANGE;
	}
	if (!digits || (*p == '\n' && p[1]))
		return -EINVAL;
	*res = v;
	return 0;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (!ret)
		*res = v;
	return ret;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (ret)
		return ret;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	unsigned long long v;
	int neg = s[0] == '-';
	int ret = kstrtoull(s + neg, base, &v);

	if (ret)
		return ret;
	if (v > (unsigned long long)INT_MAX + neg)
		return -ERANGE;
	*res = neg ? -(long long)v : (long long)v;
	return 0;
}

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}
