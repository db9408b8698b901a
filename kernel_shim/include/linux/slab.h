/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Slab allocator.  Test double backed by sim_kmalloc(): every object is
 * counted while outstanding (sim_kmalloc_outstanding()), and each allocating
 * call first asks the fault point "shim/slab/kmalloc".  kvmalloc() and
 * friends share that point.  Caches (kmem_cache_*) are thin wrappers over
 * the same allocator.  kmalloc(0) returns ZERO_SIZE_PTR as the kernel's does.
 */
#ifndef _DMASIM_LINUX_SLAB_H
#define _DMASIM_LINUX_SLAB_H

#include <linux/bug.h>
#include <linux/gfp_types.h>
#include <linux/overflow.h>
#include <linux/types.h>

#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(x)	((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)
#define KMALLOC_MAX_SIZE	(1UL << 22)
#define SLAB_HWCACHE_ALIGN	((__force slab_flags_t)0x00002000U)
#define SLAB_ACCOUNT		((__force slab_flags_t)0x04000000U)
#define SLAB_PANIC		((__force slab_flags_t)0x00040000U)

void *__must_check __malloc kmalloc(size_t size, gfp_t flags);
void kfree(const void *objp);
void *__must_check krealloc(const void *objp, size_t new_size, gfp_t flags);
void *kvmalloc(size_t size, gfp_t flags);
void kvfree(const void *addr);

static inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kmalloc(bytes, flags);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

static inline void *kvzalloc(size_t size, gfp_t flags)
{
	return kvmalloc(size, flags | __GFP_ZERO);
}

static inline void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kvmalloc(bytes, flags);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kvmalloc_array(n, size, flags | __GFP_ZERO);
}

/*
 * Mainline's typed allocators: the gfp argument is optional and defaults
 * to GFP_KERNEL (linux-next's system heap calls kzalloc_obj(*buffer)).
 */
#define __shim_first_gfp(FLAGS, ...)	FLAGS
#define __shim_default_gfp(...) \
	__shim_first_gfp(__VA_ARGS__ __VA_OPT__(,) GFP_KERNEL)
#define kmalloc_obj(VAR, ...) \
	kmalloc(sizeof(VAR), __shim_default_gfp(__VA_ARGS__))
#define kzalloc_obj(VAR, ...) \
	kzalloc(sizeof(VAR), __shim_default_gfp(__VA_ARGS__))
#define kmalloc_objs(VAR, N, ...) \
	kmalloc_array(N, sizeof(VAR), __shim_default_gfp(__VA_ARGS__))
#define kzalloc_objs(VAR, N, ...) \
	kcalloc(N, sizeof(VAR), __shim_default_gfp(__VA_ARGS__))

struct kmem_cache;
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags);
void kmem_cache_free(struct kmem_cache *s, void *objp);

static inline void *kmem_cache_zalloc(struct kmem_cache *k, gfp_t flags)
{
	return kmem_cache_alloc(k, flags | __GFP_ZERO);
}

#define KMEM_CACHE(__struct, __flags) \
	kmem_cache_create(#__struct, sizeof(struct __struct), \
			  __alignof__(struct __struct), (__flags), NULL)

#endif
