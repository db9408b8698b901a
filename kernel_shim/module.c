// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot, module parameters and the current task.
 *
 * Initcalls and parameters are collected by the linker: <linux/init.h> and
 * <linux/moduleparam.h> put one record per use into the sections
 * "dmasim_initcall" and "dmasim_param", and the linker provides their
 * __start_/__stop_ bounds.  Kernel objects must be linked whole (meson's
 * link_whole) so that no record is dropped, and into the one library (shared
 * or static, top-level meson.build) this file is in: the bounds span that
 * library's records.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <dmasim/kapi.h>

extern const struct dmasim_initcall __start_dmasim_initcall[] __weak;
extern const struct dmasim_initcall __stop_dmasim_initcall[] __weak;
extern const struct dmasim_param __start_dmasim_param[] __weak;
extern const struct dmasim_param __stop_dmasim_param[] __weak;

static struct task_struct init_task = {
	.pid = 1,
	.tgid = 1,
	.comm = "dmasim",
	.group_leader = &init_task,
	.usage = ATOMIC_INIT(1),
	.dmasim_cap_effective = ~0ULL,
};

static _Thread_local struct task_struct *current_task;
SIM_THREAD_LOCAL_PER_CPU(current_task)

struct task_struct *get_current(void)
{
	return current_task ? current_task : &init_task;
}

/* The shim's task code (VFIO work) switches tasks through this. */
void dmasim_set_current(struct task_struct *task);
void dmasim_set_current(struct task_struct *task)
{
	current_task = task;
}

void kapi_task_set_fatal_signal(int pending)
{
	current->fatal_signal = pending;
}

static int boot_result;
static bool booted;
static unsigned long long boot_failed_init_objects;

unsigned long long kapi_boot_failed_init_objects(void)
{
	return boot_failed_init_objects;
}

/*
 * The command line's parameters (sim_boot_params()), each "module.name=value"
 * applied with kapi_param_set(); a setting that does not apply fails the
 * boot with its error, as a test run under a mistyped parameter must not
 * pass silently.
 */
static int apply_boot_params(void)
{
	const char *s = sim_boot_params();
	char name[128], value[128];

	while (*s) {
		const char *eq;
		size_t len = 0;
		int ret;

		while (s[len] && s[len] != ' ' && s[len] != '\t' && s[len] != '\n')
			len++;
		eq = memchr(s, '=', len);
		if (!len) {	/* a blank */
			s++;
			continue;
		}
		if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name) ||
		    len - (eq - s) - 1 >= sizeof(value)) {
			pr_err("boot parameter '%.*s' is not module.name=value\n",
			       (int)len, s);
			return -EINVAL;
		}
		memcpy(name, s, eq - s);
		name[eq - s] = '\0';
		memcpy(value, eq + 1, len - (eq - s) - 1);
		value[len - (eq - s) - 1] = '\0';
		ret = kapi_param_set(name, value);
		if (ret) {
			pr_err("boot parameter %s=%s: %d\n", name, value, ret);
			return ret;
		}
		s += len;
	}
	return 0;
}

int kapi_boot_params(void)
{
	static bool applied;
	static int result;

	if (!applied) {
		applied = true;
		result = apply_boot_params();
	}
	return result;
}

int kapi_boot(void)
{
	const struct dmasim_initcall *call;
	int level;

	if (booted)
		return boot_result;
	booted = true;
	boot_result = kapi_boot_params();
	if (boot_result)
		return boot_result;
	for (level = 0; level <= 7; level++) {
		for (call = __start_dmasim_initcall; call < __stop_dmasim_initcall; call++) {
			unsigned long long objects;
			int ret;

			if (call->level != level || !call->init)
				continue;
			objects = sim_kmalloc_outstanding();
			ret = call->init();
			if (ret) {
				boot_failed_init_objects +=
					sim_kmalloc_outstanding() - objects;
				pr_err("initcall %s returned %d\n", call->name, ret);
				if (!boot_result)
					boot_result = ret;
			}
		}
	}
	return boot_result;
}

void kapi_shutdown(void)
{
	const struct dmasim_initcall *call;

	if (!booted)
		return;
	for (call = __stop_dmasim_initcall; call-- > __start_dmasim_initcall;)
		if (call->exit)
			call->exit();
	booted = false;
	boot_result = 0;
}

static const struct dmasim_param *find_param(const char *name)
{
	const struct dmasim_param *p;
	const char *dot = strchr(name, '.');

	if (!dot)
		return NULL;
	for (p = __start_dmasim_param; p < __stop_dmasim_param; p++)
		if (strlen(p->modname) == (size_t)(dot - name) &&
		    !strncmp(p->modname, name, dot - name) &&
		    !strcmp(p->name, dot + 1))
			return p;
	return NULL;
}

static size_t param_elem_size(const char *type)
{
	if (!strcmp(type, "bool"))
		return sizeof(bool);
	if (!strcmp(type, "int") || !strcmp(type, "uint"))
		return sizeof(int);
	if (!strcmp(type, "ulong") || !strcmp(type, "charp"))
		return sizeof(long);
	if (!strcmp(type, "ullong"))
		return sizeof(long long);
	return 0;
}

/* Parse one value of the parameter's type into dst, as param_set_<type>. */
static int param_parse_one(const char *type, const char *val, void *dst)
{
	unsigned long long ull;
	int ret;

	if (!strcmp(type, "bool"))
		return kstrtobool(val, dst);
	if (!strcmp(type, "int"))
		return kstrtoint(val, 0, dst);
	if (!strcmp(type, "uint"))
		return kstrtouint(val, 0, dst);
	if (!strcmp(type, "ulong"))
		return kstrtoul(val, 0, dst);
	if (!strcmp(type, "ullong")) {
		ret = kstrtoull(val, 0, &ull);
		if (!ret)
			*(unsigned long long *)dst = ull;
		return ret;
	}
	return -EINVAL;
}

int kapi_param_set(const char *name, const char *value)
{
	const struct dmasim_param *p = find_param(name);
	size_t esz;
	char elem[64];
	const char *s;
	unsigned int n = 0;
	int ret;

	if (!p)
		return -ENOENT;
	esz = param_elem_size(p->type);
	if (!esz)
		return -EINVAL;
	if (!p->num)
		return param_parse_one(p->type, value, p->arg) ? -EINVAL : 0;

	/*
	 * Arrays: parse into a scratch copy first, so a bad value leaves the
	 * parameter as it was (the kernel's param_array_set does the same).
	 */
	{
		unsigned char scratch[64 * sizeof(long long)];

		if (p->max * esz > sizeof(scratch))
			return -EINVAL;
		s = value;
		while (*s) {
			const char *comma = strchr(s, ',');
			size_t len = comma ? (size_t)(comma - s) : strlen(s);

			if (n >= p->max || len == 0 || len >= sizeof(elem))
				return -EINVAL;
			memcpy(elem, s, len);
			elem[len] = '\0';
			ret = param_parse_one(p->type, elem, scratch + n * esz);
			if (ret)
				return -EINVAL;
			n++;
			s += len + (comma ? 1 : 0);
			if (comma && !*s)
				return -EINVAL;
		}
		if (!n)
			return -EINVAL;
		memcpy(p->arg, scratch, n * esz);
		*p->num = n;
	}
	return 0;
}

static int param_format_one(const char *type, const void *src, char *buf, size_t size)
{
	if (!strcmp(type, "bool"))
		return snprintf(buf, size, "%c", *(const bool *)src ? 'Y' : 'N');
	if (!strcmp(type, "int"))
		return snprintf(buf, size, "%d", *(const int *)src);
	if (!strcmp(type, "uint"))
		return snprintf(buf, size, "%u", *(const unsigned int *)src);
	if (!strcmp(type, "ulong"))
		return snprintf(buf, size, "%lu", *(const unsigned long *)src);
	if (!strcmp(type, "ullong"))
		return snprintf(buf, size, "%llu", *(const unsigned long long *)src);
	return snprintf(buf, size, "?");
}

int kapi_param_get(const char *name, char *buf, unsigned long size)
{
	const struct dmasim_param *p = find_param(name);
	size_t esz, off = 0;
	unsigned int i, n;

	if (!p)
		return -ENOENT;
	if (!size)
		return -EINVAL;
	esz = param_elem_size(p->type);
	n = p->num ? *p->num : 1;
	buf[0] = '\0';
	for (i = 0; i < n && off < size; i++) {
		if (i)
			off += snprintf(buf + off, size - off, ",");
		if (off < size)
			off += param_format_one(p->type, (const char *)p->arg + i * esz,
						buf + off, size - off);
	}
	return off < size ? 0 : -E2BIG;
}

void kapi_param_for_each(void (*fn)(void *arg, const char *name, const char *type),
			 void *arg)
{
	const struct dmasim_param *p;
	char name[128];

	for (p = __start_dmasim_param; p < __stop_dmasim_param; p++) {
		snprintf(name, sizeof(name), "%s.%s", p->modname, p->name);
		fn(arg, name, p->type);
	}
}
