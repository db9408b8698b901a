// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XArray subset of <linux/xarray.h>: a sorted array of (index, entry)
 * pairs, binary-searched, under the array's spinlock.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

/* Position of the first pair with index >= index. */
static unsigned int xa_lower_bound(const struct xarray *xa, unsigned long index)
{
	unsigned int lo = 0, hi = xa->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (xa->pairs[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int xa_reserve_slot(struct xarray *xa, gfp_t gfp)
{
	struct xa_pair *pairs;
	unsigned int cap;

	if (xa->nr < xa->cap)
		return 0;
	cap = xa->cap ? xa->cap * 2 : 8;
	pairs = kmalloc_array(cap, sizeof(*pairs), gfp);
	if (!pairs)
		return -ENOMEM;
	if (xa->nr)
		memcpy(pairs, xa->pairs, xa->nr * sizeof(*pairs));
	kfree(xa->pairs);
	xa->pairs = pairs;
	xa->cap = cap;
	return 0;
}

static void xa_insert_at(struct xarray *xa, unsigned int pos,
			 unsigned long index, void *entry)
{
	memmove(&xa->pairs[pos + 1], &xa->pairs[pos],
		(xa->nr - pos) * sizeof(*xa->pairs));
	xa->pairs[pos].index = index;
	xa->pairs[pos].entry = entry;
	xa->nr++;
}

static void *xa_remove_at(struct xarray *xa, unsigned int pos)
{
	void *old = xa->pairs[pos].entry;

	memmove(&xa->pairs[pos], &xa->pairs[pos + 1],
		(xa->nr - pos - 1) * sizeof(*xa->pairs));
	xa->nr--;
	if (!xa->nr) {
		kfree(xa->pairs);
		xa->pairs = NULL;
		xa->cap = 0;
	}
	return old;
}

void *xa_load(struct xarray *xa, unsigned long index)
{
	unsigned int pos;
	void *entry = NULL;

	spin_lock(&xa->xa_lock);
	pos = xa_lower_bound(xa, index);
	if (pos < xa->nr && xa->pairs[pos].index == index)
		entry = xa->pairs[pos].entry;
	spin_unlock(&xa->xa_lock);
	return entry;
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	unsigned int pos;
	void *old = NULL;

	spin_lock(&xa->xa_lock);
	pos = xa_lower_bound(xa, index);
	if (pos < xa->nr && xa->pairs[pos].index == index) {
		old = xa->pairs[pos].entry;
		if (entry)
			xa->pairs[pos].entry = entry;
		else
			xa_remove_at(xa, pos);
	} else if (entry) {
		if (xa_reserve_slot(xa, gfp))
			old = ERR_PTR(-ENOMEM);
		else
			xa_insert_at(xa, pos, index, entry);
	}
	spin_unlock(&xa->xa_lock);
	return old;
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	return xa_store(xa, index, NULL, 0);
}

int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	     gfp_t gfp)
{
	unsigned long want = limit.min;
	unsigned int pos;
	int ret = 0;

	if (WARN_ON_ONCE(!entry))
		return -EINVAL;
	if ((xa->xa_flags & XA_FLAGS_ALLOC1) && want == 0)
		want = 1;
	spin_lock(&xa->xa_lock);
	/* Walk the used indices from the limit's floor to the first gap. */
	pos = xa_lower_bound(xa, want);
	while (pos < xa->nr && xa->pairs[pos].index == want) {
		want++;
		pos++;
	}
	if (want > limit.max) {
		ret = -EBUSY;
	} else if (xa_reserve_slot(xa, gfp)) {
		ret = -ENOMEM;
	} else {
		xa_insert_at(xa, pos, want, entry);
		*id = want;
	}
	spin_unlock(&xa->xa_lock);
	return ret;
}

void xa_destroy(struct xarray *xa)
{
	spin_lock(&xa->xa_lock);
	kfree(xa->pairs);
	xa->pairs = NULL;
	xa->nr = 0;
	xa->cap = 0;
	spin_unlock(&xa->xa_lock);
}

void *xa_find(struct xarray *xa, unsigned long *index, unsigned long max,
	      unsigned int filter)
{
	unsigned int pos;
	void *entry = NULL;

	spin_lock(&xa->xa_lock);
	pos = xa_lower_bound(xa, *index);
	if (pos < xa->nr && xa->pairs[pos].index <= max) {
		*index = xa->pairs[pos].index;
		entry = xa->pairs[pos].entry;
	}
	spin_unlock(&xa->xa_lock);
	return entry;
}

void *xa_find_after(struct xarray *xa, unsigned long *index, unsigned long max,
		    unsigned int filter)
{
	unsigned long next = *index + 1;

	if (!next)
		return NULL;
	*index = next;
	return xa_find(xa, index, max, filter);
}
