// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slab allocator's API over sim_kmalloc(): counted while outstanding,
 * fallible through the fault point "shim/slab/kmalloc".  kvmalloc shares
 * that point; vmalloc has its own (kernel_shim/vmalloc.c).
 */
#include <linux/slab.h>
#include <linux/string.h>

#include <dmasim/sim.h>

void *kmalloc(size_t size, gfp_t flags)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (size > KMALLOC_MAX_SIZE && !(flags & __GFP_NOWARN))
		WARN_ON_ONCE(1);
	if (size > KMALLOC_MAX_SIZE || sim_should_fail(SIM_FP_KMALLOC))
		return NULL;
	return sim_kmalloc(size, !!(flags & __GFP_ZERO));
}

void kfree(const void *objp)
{
	if (ZERO_OR_NULL_PTR(objp))
		return;
	sim_kfree(objp);
}

void *krealloc(const void *objp, size_t new_size, gfp_t flags)
{
	void *p;

	if (!new_size) {
		kfree(objp);
		return ZERO_SIZE_PTR;
	}
	if (ZERO_OR_NULL_PTR(objp))
		return kmalloc(new_size, flags);
	if (sim_should_fail(SIM_FP_KMALLOC))
		return NULL;
	p = sim_krealloc((void *)objp, new_size);
	return p;
}

void *kvmalloc(size_t size, gfp_t flags)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (sim_should_fail(SIM_FP_KMALLOC))
		return NULL;
	return sim_kmalloc(size, !!(flags & __GFP_ZERO));
}

void kvfree(const void *addr)
{
	kfree(addr);
}

char *kstrdup(const char *s, gfp_t gfp)
{
	size_t len;
	char *p;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	p = kmalloc(len, gfp);
	if (p)
		memcpy(p, s, len);
	return p;
}

void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = kmalloc(len, gfp);

	if (p && !ZERO_OR_NULL_PTR(p))
		memcpy(p, src, len);
	return p;
}

struct kmem_cache {
	const char *name;
	unsigned int size;
	void (*ctor)(void *obj);
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->name = name;
	s->size = size;
	s->ctor = ctor;
	return s;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	kfree(s);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	void *p = kmalloc(s->size, flags);

	if (p && s->ctor)
		s->ctor(p);
	return p;
}

void kmem_cache_free(struct kmem_cache *s, void *objp)
{
	kfree(objp);
}
