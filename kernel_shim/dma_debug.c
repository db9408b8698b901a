// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma-debug for scatterlists (<shim/dma_debug.h> says what is checked and
 * what is simplified).  The mapped lists live in a small array scanned
 * from the end: a test or a scenario has a handful mapped at a time.
 */
#include <linux/bug.h>
#include <linux/dma-mapping.h>
#include <linux/printk.h>

#include <shim/dma_debug.h>

#define DMA_DEBUG_RECORDS	4096

struct dma_debug_record {
	struct device *dev;
	struct scatterlist *sgl;
	int call_ents;			/* nents passed to the map */
	int mapped_ents;		/* segments it produced */
	enum dma_data_direction dir;
};

static struct dma_debug_record records[DMA_DEBUG_RECORDS];
static unsigned int nr_records;
static bool disabled;

unsigned int dma_debug_nr_mapped(void)
{
	return nr_records;
}

static struct dma_debug_record *dma_debug_find(struct device *dev,
					       struct scatterlist *sgl)
{
	unsigned int i = nr_records;

	while (i--)
		if (records[i].dev == dev && records[i].sgl == sgl)
			return &records[i];
	return NULL;
}

/* check_sg_segment(): one DMA segment against the device's limits. */
static void dma_debug_check_segment(struct device *dev, struct scatterlist *s)
{
	unsigned int max_seg = dma_get_max_seg_size(dev);
	u64 start, end, boundary = dma_get_seg_boundary(dev);

	/* The entry's CPU length, as the kernel checks it. */
	WARN(s->length > max_seg,
	     "%s: mapping sg segment longer than device claims to support [len=%u] [max=%u]\n",
	     dev_name(dev), s->length, max_seg);
	if (boundary == ULONG_MAX || !sg_dma_len(s))
		return;
	start = sg_dma_address(s);
	end = start + sg_dma_len(s) - 1;
	WARN((start ^ end) & ~boundary,
	     "%s: mapping sg segment across boundary [start=0x%016llx] [end=0x%016llx] [boundary=0x%016llx]\n",
	     dev_name(dev), start, end, boundary);
}

void debug_dma_map_sg(struct device *dev, struct scatterlist *sg, int nents,
		      int mapped, enum dma_data_direction dir)
{
	struct dma_debug_record *r;
	struct scatterlist *s;
	int i;

	if (disabled || mapped <= 0)
		return;
	for_each_sg(sg, s, mapped, i)
		dma_debug_check_segment(dev, s);
	r = dma_debug_find(dev, sg);
	if (!r) {
		if (nr_records == DMA_DEBUG_RECORDS) {
			pr_err("DMA-API: debugging out of memory - disabling\n");
			disabled = true;
			return;
		}
		r = &records[nr_records++];
	}
	*r = (struct dma_debug_record){ dev, sg, nents, mapped, dir };
}

/* The checks unmap and sync share; the record, or NULL if none. */
static struct dma_debug_record *dma_debug_check(struct device *dev,
						struct scatterlist *sg,
						int nents,
						enum dma_data_direction dir,
						bool sync)
{
	const char *what = sync ? "sync" : "free";
	struct dma_debug_record *r;

	if (disabled)
		return NULL;
	r = dma_debug_find(dev, sg);
	if (!r) {
		WARN(1, "%s: device driver tries to %s DMA memory it has not allocated\n",
		     dev_name(dev), what);
		return NULL;
	}
	WARN(r->dir != dir && !(sync && r->dir == DMA_BIDIRECTIONAL),
	     "%s: device driver %ss DMA sg list with different direction [mapped as %d] [%s as %d]\n",
	     dev_name(dev), what, r->dir, what, dir);
	WARN(r->call_ents != nents,
	     "%s: device driver %ss DMA sg list with different entry count [map count=%d] [%s count=%d]\n",
	     dev_name(dev), what, r->call_ents, what, nents);
	return r;
}

void debug_dma_unmap_sg(struct device *dev, struct scatterlist *sg, int nents,
			enum dma_data_direction dir)
{
	struct dma_debug_record *r;

	r = dma_debug_check(dev, sg, nents, dir, false);
	if (r)
		*r = records[--nr_records];
}

void debug_dma_sync_sg(struct device *dev, struct scatterlist *sg, int nents,
		       enum dma_data_direction dir)
{
	dma_debug_check(dev, sg, nents, dir, true);
}

void debug_dma_device_release(struct device *dev)
{
	unsigned int i = nr_records, pending = 0;

	while (i--) {
		if (records[i].dev != dev)
			continue;
		pending++;
		records[i] = records[--nr_records];
	}
	WARN(pending, "%s: DMA-API: device driver has pending DMA allocations while released from device [count=%u]\n",
	     dev_name(dev), pending);
}
