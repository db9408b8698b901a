// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOMMU core: the generic half of the IOMMU API that sits between its users
 * (VFIO type1, the DMA layer) and an IOMMU driver's domain operations.
 *
 * Written for dmasim from the behaviour of Linux 6.12's
 * drivers/iommu/iommu.c (see shared/kernel-notes/iommu.md).  The map, unmap
 * and page-size paths, which follow that contract exactly since they are
 * what the project measures, are iommu-map.c (upstream mode replaces them
 * with the tree's own).  Groups, probing and attach keep only what users of
 * the API observe:
 *  - a device is probed with its IOMMU instance already named in
 *    dev->iommu (platform code does this, as firmware would), gets a group
 *    from the driver and a default DMA domain;
 *  - a group's domain may be replaced only while it is the default domain
 *    (-EBUSY otherwise; a NULL domain is -EINVAL) and goes back to it on
 *    detach;
 *  - DMA ownership is a count per group: a kernel driver bound to a device
 *    (iommu_device_use_default_domain()) or a user owner (VFIO's
 *    iommu_group_claim_dma_owner()) holds it, and the two exclude each
 *    other; the claim does not switch the group to a blocking domain (there
 *    is none), it leaves the default domain attached for the owner to
 *    replace;
 *  - there is no blocking domain or PASID support.
 */

#define pr_fmt(fmt)	"iommu: " fmt

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/gfp_types.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/msi.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/iommu.h>

struct group_device {
	struct list_head list;
	struct device *dev;
};

struct iommu_group {
	struct mutex mutex;		/* devices, domain, default_domain */
	struct list_head devices;	/* of struct group_device */
	int id;
	int refs;			/* under iommu_groups_lock */
	char *name;
	struct {			/* the IOMMU driver's, for the group's life */
		void *data;
		void (*release)(void *data);	/* at the group's end */
	} drv;
	struct iommu_domain *default_domain;
	struct iommu_domain *domain;	/* attached now; NULL: DMA blocked */
	unsigned int owner_cnt;		/* DMA owners (drivers, or one user) */
	void *owner;			/* the user owner's cookie, or NULL */
};

static DEFINE_MUTEX(iommu_groups_lock);
static int iommu_next_group_id;

static DEFINE_MUTEX(iommu_device_lock);
static LIST_HEAD(iommu_device_list);

static bool dev_has_iommu(struct device *dev)
{
	return dev && dev->iommu && dev->iommu->iommu_dev;
}

static const struct iommu_ops *dev_iommu_ops(struct device *dev)
{
	return dev->iommu->iommu_dev->ops;
}

/* ---------------------------------------------------------------------
 * Domains
 */

static struct iommu_domain *iommu_alloc_domain_of(const struct iommu_ops *ops,
						  struct device *dev,
						  unsigned int type)
{
	unsigned int alloc_type = type & IOMMU_DOMAIN_ALLOC_FLAGS;
	struct iommu_domain *domain;

	if (alloc_type == IOMMU_DOMAIN_IDENTITY && ops->identity_domain)
		return ops->identity_domain;
	/*
	 * Nobody here asks for BLOCKED: the default domain's type comes from
	 * def_domain_type(), whose 0 means "no preference".
	 */
	if (alloc_type == IOMMU_DOMAIN_BLOCKED && ops->blocked_domain) /* GCOVR_EXCL_BR_LINE */
		return ops->blocked_domain;

	/* Paging domains from the per-device op where the driver has one. */
	if (!(type & __IOMMU_DOMAIN_PAGING) || !ops->domain_alloc_paging) {
		if (!ops->domain_alloc)
			return ERR_PTR(-EOPNOTSUPP);
		domain = ops->domain_alloc(alloc_type);
	} else {
		domain = ops->domain_alloc_paging(dev);
	}

	/* Drivers may report failure either way. */
	if (!domain)
		return ERR_PTR(-ENOMEM);
	if (IS_ERR(domain))
		return domain;

	domain->type = type;
	domain->owner = ops;
	if (!domain->ops)
		domain->ops = ops->default_domain_ops;
	if (!domain->pgsize_bitmap)
		domain->pgsize_bitmap = ops->pgsize_bitmap;
	return domain;
}

struct iommu_domain *iommu_paging_domain_alloc(struct device *dev)
{
	if (!dev_has_iommu(dev))
		return ERR_PTR(-ENODEV);
	return iommu_alloc_domain_of(dev_iommu_ops(dev), dev,
				     IOMMU_DOMAIN_UNMANAGED);
}
EXPORT_SYMBOL_GPL(iommu_paging_domain_alloc);

void iommu_domain_free(struct iommu_domain *domain)
{
	if (domain->ops->free)
		domain->ops->free(domain);
}
EXPORT_SYMBOL_GPL(iommu_domain_free);

void iommu_set_fault_handler(struct iommu_domain *domain,
			     iommu_fault_handler_t handler, void *token)
{
	if (WARN_ON(!domain))
		return;
	domain->handler = handler;
	domain->handler_token = token;
}
EXPORT_SYMBOL_GPL(iommu_set_fault_handler);

/* Only unmanaged domains of a driver that can nest. */
int iommu_enable_nesting(struct iommu_domain *domain)
{
	const struct iommu_domain_ops *ops = domain->ops;

	if (domain->type != IOMMU_DOMAIN_UNMANAGED || !ops->enable_nesting)
		return -EINVAL;
	return ops->enable_nesting(domain);
}
EXPORT_SYMBOL_GPL(iommu_enable_nesting);

int iommu_set_pgtable_quirks(struct iommu_domain *domain,
			     unsigned long quirks)
{
	const struct iommu_domain_ops *ops = domain->ops;

	if (domain->type != IOMMU_DOMAIN_UNMANAGED || !ops->set_pgtable_quirks)
		return -EINVAL;
	return ops->set_pgtable_quirks(domain, quirks);
}
EXPORT_SYMBOL_GPL(iommu_set_pgtable_quirks);

/* False for a device without an IOMMU or a driver without ->capable. */
bool device_iommu_capable(struct device *dev, enum iommu_cap cap)
{
	bool (*capable)(struct device *dev, enum iommu_cap cap) =
		dev_has_iommu(dev) ? dev_iommu_ops(dev)->capable : NULL;

	return capable && capable(dev, cap);
}
EXPORT_SYMBOL_GPL(device_iommu_capable);

/* ---------------------------------------------------------------------
 * Groups
 */

struct iommu_group *iommu_group_alloc(void)
{
	struct iommu_group *group;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);
	mutex_init(&group->mutex);
	INIT_LIST_HEAD(&group->devices);
	group->refs = 1;
	mutex_lock(&iommu_groups_lock);
	group->id = iommu_next_group_id++;
	mutex_unlock(&iommu_groups_lock);
	return group;
}
EXPORT_SYMBOL_GPL(iommu_group_alloc);

static void iommu_group_release(struct iommu_group *group)
{
	/* Each listed device holds a reference: the list is empty by now. */
	WARN_ON(!list_empty(&group->devices)); /* GCOVR_EXCL_BR_LINE */
	/* A user that attached its own domain must have detached it. */
	WARN_ON(group->domain && group->domain != group->default_domain);
	if (group->drv.release)
		group->drv.release(group->drv.data);
	if (group->default_domain)
		iommu_domain_free(group->default_domain);
	kfree(group->name);
	mutex_destroy(&group->mutex);
	kfree(group);
}

struct iommu_group *iommu_group_ref_get(struct iommu_group *group)
{
	mutex_lock(&iommu_groups_lock);
	group->refs++;
	mutex_unlock(&iommu_groups_lock);
	return group;
}
EXPORT_SYMBOL_GPL(iommu_group_ref_get);

struct iommu_group *iommu_group_get(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;

	if (group)
		iommu_group_ref_get(group);
	return group;
}
EXPORT_SYMBOL_GPL(iommu_group_get);

void iommu_group_put(struct iommu_group *group)
{
	bool last;

	if (!group)
		return;
	mutex_lock(&iommu_groups_lock);
	last = !--group->refs;
	mutex_unlock(&iommu_groups_lock);
	if (last)
		iommu_group_release(group);
}
EXPORT_SYMBOL_GPL(iommu_group_put);

int iommu_group_id(struct iommu_group *group)
{
	return group->id;
}
EXPORT_SYMBOL_GPL(iommu_group_id);

int iommu_group_set_name(struct iommu_group *group, const char *name)
{
	char *copy = NULL;

	if (name) {
		copy = kstrdup(name, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
	}
	kfree(group->name);
	group->name = copy;
	return 0;
}
EXPORT_SYMBOL_GPL(iommu_group_set_name);

void *iommu_group_get_iommudata(struct iommu_group *group)
{
	return group->drv.data;
}
EXPORT_SYMBOL_GPL(iommu_group_get_iommudata);

/* @release is called with @iommu_data when the group goes away. */
void iommu_group_set_iommudata(struct iommu_group *group, void *iommu_data,
			       void (*release)(void *iommu_data))
{
	group->drv.release = release;
	group->drv.data = iommu_data;
}
EXPORT_SYMBOL_GPL(iommu_group_set_iommudata);

struct iommu_domain *iommu_group_default_domain(struct iommu_group *group)
{
	return group->default_domain;
}
EXPORT_SYMBOL_GPL(iommu_group_default_domain);

/*
 * A kernel driver binds to dev and will use the DMA API: the group gains a
 * kernel owner, which a user owner excludes (-EBUSY).
 */
int iommu_device_use_default_domain(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;
	bool user_owned;

	if (!group)
		return 0;
	mutex_lock(&group->mutex);
	user_owned = group->owner_cnt && group->owner;
	if (!user_owned)
		group->owner_cnt++;
	mutex_unlock(&group->mutex);
	return user_owned ? -EBUSY : 0;
}
EXPORT_SYMBOL_GPL(iommu_device_use_default_domain);

void iommu_device_unuse_default_domain(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;

	if (!group)
		return;
	mutex_lock(&group->mutex);
	if (!WARN_ON(!group->owner_cnt || group->owner))
		group->owner_cnt--;
	mutex_unlock(&group->mutex);
}
EXPORT_SYMBOL_GPL(iommu_device_unuse_default_domain);

/*
 * A user (VFIO) takes the whole group for itself: -EPERM while any owner
 * (a bound kernel driver, another user) holds it, -EBUSY while a domain
 * other than the default one is attached.
 */
static int iommu_group_claim_refusal(const struct iommu_group *group)
{
	if (group->owner_cnt)
		return -EPERM;
	if (group->domain != group->default_domain)
		return -EBUSY;
	return 0;
}

int iommu_group_claim_dma_owner(struct iommu_group *group, void *owner)
{
	int err;

	if (WARN_ON(!owner))
		return -EINVAL;
	mutex_lock(&group->mutex);
	err = iommu_group_claim_refusal(group);
	if (!err) {
		group->owner = owner;
		group->owner_cnt = 1;
	}
	mutex_unlock(&group->mutex);
	return err;
}
EXPORT_SYMBOL_GPL(iommu_group_claim_dma_owner);

void iommu_group_release_dma_owner(struct iommu_group *group)
{
	mutex_lock(&group->mutex);
	if (!WARN_ON(!group->owner_cnt || !group->owner)) {
		group->owner = NULL;
		group->owner_cnt = 0;
	}
	mutex_unlock(&group->mutex);
}
EXPORT_SYMBOL_GPL(iommu_group_release_dma_owner);

bool iommu_group_dma_owner_claimed(struct iommu_group *group)
{
	bool claimed;

	mutex_lock(&group->mutex);
	claimed = group->owner_cnt;
	mutex_unlock(&group->mutex);
	return claimed;
}
EXPORT_SYMBOL_GPL(iommu_group_dma_owner_claimed);

int iommu_group_add_device(struct iommu_group *group, struct device *dev)
{
	struct group_device *gdev;
	int ret;

	gdev = kzalloc(sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return -ENOMEM;
	gdev->dev = dev;

	mutex_lock(&group->mutex);
	if (group->domain && group->domain->ops->attach_dev) {
		ret = group->domain->ops->attach_dev(group->domain, dev);
		if (ret) {
			mutex_unlock(&group->mutex);
			kfree(gdev);
			return ret;
		}
	}
	list_add_tail(&gdev->list, &group->devices);
	mutex_unlock(&group->mutex);

	dev->iommu_group = iommu_group_ref_get(group);
	trace_add_device_to_group(group->id, dev);
	return 0;
}
EXPORT_SYMBOL_GPL(iommu_group_add_device);

void iommu_group_remove_device(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;
	struct group_device *gdev, *found = NULL;

	if (!group)
		return;

	/*
	 * dev->iommu_group is set only once the device is listed, and cleared
	 * when it is taken off: the device is always found.
	 */
	mutex_lock(&group->mutex);
	list_for_each_entry(gdev, &group->devices, list) { /* GCOVR_EXCL_BR_LINE */
		if (gdev->dev == dev) {
			found = gdev;
			list_del(&gdev->list);
			break;
		}
	}
	mutex_unlock(&group->mutex);
	if (WARN_ON(!found)) /* GCOVR_EXCL_BR_LINE */
		return; /* GCOVR_EXCL_LINE */

	trace_remove_device_from_group(group->id, dev);
	kfree(found);
	dev->iommu_group = NULL;
	iommu_group_put(group);
}
EXPORT_SYMBOL_GPL(iommu_group_remove_device);

/*
 * Call @fn for each device of the group until one returns nonzero.  (The
 * name is parenthesised because checkpatch reads any "*for_each*(" as a
 * loop statement and wants its brace on the same line.)
 */
int (iommu_group_for_each_dev)(struct iommu_group *group, void *data,
			       int (*fn)(struct device *, void *))
{
	struct group_device *gdev;
	int ret = 0;

	mutex_lock(&group->mutex);
	list_for_each_entry(gdev, &group->devices, list) {
		ret = fn(gdev->dev, data);
		if (ret)
			goto unlock;
	}
unlock:
	mutex_unlock(&group->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_group_for_each_dev);

/*
 * A group's MSIs are isolated only if those of each of its devices are:
 * one device whose interrupts its DMA could forge is enough to refuse.
 */
bool iommu_group_has_isolated_msi(struct iommu_group *group)
{
	struct group_device *gdev;
	bool isolated = true;

	mutex_lock(&group->mutex);
	list_for_each_entry(gdev, &group->devices, list) {
		if (!msi_device_has_isolated_msi(gdev->dev)) {
			isolated = false;
			break;
		}
	}
	mutex_unlock(&group->mutex);
	return isolated;
}
EXPORT_SYMBOL_GPL(iommu_group_has_isolated_msi);

/* ---------------------------------------------------------------------
 * Attaching domains to groups.  Callers hold group->mutex.
 */

/*
 * Point every device of the group at @new (not NULL).  If one refuses,
 * the devices already moved go back to the old domain, if there is one
 * (there is none while the first device is probed), and the error is
 * returned.
 */
static int iommu_group_switch_domain(struct iommu_group *group,
				     struct iommu_domain *new)
{
	struct iommu_domain *old = group->domain;
	struct group_device *gdev;
	int ret;

	if (old == new)
		return 0;
	if (new->ops->attach_dev) {
		list_for_each_entry(gdev, &group->devices, list) {
			ret = new->ops->attach_dev(new, gdev->dev);
			if (ret)
				goto revert;
			trace_attach_device_to_domain(gdev->dev);
		}
	}
	group->domain = new;
	return 0;

revert:
	if (!old || !old->ops->attach_dev)
		return ret;
	list_for_each_entry_continue_reverse(gdev, &group->devices, list)
		WARN_ON(old->ops->attach_dev(old, gdev->dev));
	return ret;
}

/*
 * Called for probed devices only, so the group has its default domain,
 * which is the only one that may be replaced.
 */
static int iommu_group_attach_locked(struct iommu_domain *domain,
				     struct iommu_group *group)
{
	struct device *dev;

	if (!domain)
		return -EINVAL;
	if (group->domain != group->default_domain)
		return -EBUSY;
	/* Only a domain of the group's own IOMMU driver can be attached. */
	dev = list_first_entry(&group->devices, struct group_device, list)->dev;
	if (!dev_has_iommu(dev) || dev_iommu_ops(dev) != domain->owner)
		return -EINVAL;
	return iommu_group_switch_domain(group, domain);
}

static void iommu_group_detach_locked(struct iommu_domain *domain,
				      struct iommu_group *group)
{
	if (WARN_ON(group->domain != domain))
		return;
	WARN_ON(iommu_group_switch_domain(group, group->default_domain));
}

int iommu_attach_group(struct iommu_domain *domain, struct iommu_group *group)
{
	int ret;

	if (!group)
		return -EINVAL;
	mutex_lock(&group->mutex);
	ret = iommu_group_attach_locked(domain, group);
	mutex_unlock(&group->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_attach_group);

void iommu_detach_group(struct iommu_domain *domain,
			struct iommu_group *group)
{
	mutex_lock(&group->mutex);
	iommu_group_detach_locked(domain, group);
	mutex_unlock(&group->mutex);
}
EXPORT_SYMBOL_GPL(iommu_detach_group);

/* Attaching a single device is only allowed if it is alone in its group. */
int iommu_attach_device(struct iommu_domain *domain, struct device *dev)
{
	struct iommu_group *group;
	int ret;

	group = dev->iommu_group;
	if (!group)
		return -ENODEV;
	mutex_lock(&group->mutex);
	ret = list_count_nodes(&group->devices) == 1 ?
	      iommu_group_attach_locked(domain, group) : -EINVAL;
	mutex_unlock(&group->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_attach_device);

void iommu_detach_device(struct iommu_domain *domain, struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;

	if (!group)
		return;
	mutex_lock(&group->mutex);
	if (!WARN_ON(list_count_nodes(&group->devices) != 1))
		iommu_group_detach_locked(domain, group);
	mutex_unlock(&group->mutex);
}
EXPORT_SYMBOL_GPL(iommu_detach_device);

struct iommu_domain *iommu_get_domain_for_dev(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;

	return group ? group->domain : NULL;
}
EXPORT_SYMBOL_GPL(iommu_get_domain_for_dev);

struct iommu_domain *iommu_get_dma_domain(struct device *dev)
{
	struct iommu_group *group = dev->iommu_group;

	return group ? group->default_domain : NULL;
}
EXPORT_SYMBOL_GPL(iommu_get_dma_domain);

/* ---------------------------------------------------------------------
 * IOMMU instances and probing
 */

int iommu_device_register(struct iommu_device *iommu,
			  const struct iommu_ops *ops, struct device *hwdev)
{
	iommu->ops = ops;
	iommu->dev = hwdev;
	mutex_lock(&iommu_device_lock);
	list_add_tail(&iommu->list, &iommu_device_list);
	mutex_unlock(&iommu_device_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(iommu_device_register);

void iommu_device_unregister(struct iommu_device *iommu)
{
	mutex_lock(&iommu_device_lock);
	list_del(&iommu->list);
	mutex_unlock(&iommu_device_lock);
}
EXPORT_SYMBOL_GPL(iommu_device_unregister);

/*
 * Give the group a default domain of the type the driver asks for (a DMA
 * domain when it has no opinion) and attach it.
 */
static int iommu_setup_default_domain(struct iommu_group *group,
				      struct device *dev)
{
	const struct iommu_ops *ops = dev_iommu_ops(dev);
	struct iommu_domain *domain;
	unsigned int type = 0;
	int ret;

	if (group->default_domain)
		return 0;
	if (ops->def_domain_type)
		type = ops->def_domain_type(dev);
	if (!type)
		type = IOMMU_DOMAIN_DMA;

	domain = iommu_alloc_domain_of(ops, dev, type);
	if (IS_ERR(domain))
		return PTR_ERR(domain);
	ret = iommu_group_switch_domain(group, domain);
	if (ret) {
		iommu_domain_free(domain);
		return ret;
	}
	group->default_domain = domain;
	return 0;
}

/*
 * Bring a device under its IOMMU: dev->iommu must already name the
 * instance (iommu_dev) that translates its DMA.
 */
int iommu_probe_device(struct device *dev)
{
	const struct iommu_ops *ops;
	struct iommu_group *group;
	int ret;

	if (!dev_has_iommu(dev))
		return -ENODEV;
	if (dev->iommu_group)
		return 0;
	ops = dev_iommu_ops(dev);

	if (ops->probe_device) {
		struct iommu_device *iommu_dev = ops->probe_device(dev);

		if (IS_ERR(iommu_dev))
			return PTR_ERR(iommu_dev);
	}

	group = ops->device_group ? ops->device_group(dev) : iommu_group_alloc();
	if (IS_ERR(group)) {
		ret = PTR_ERR(group);
		goto err_release;
	}
	ret = iommu_group_add_device(group, dev);
	iommu_group_put(group);
	if (ret)
		goto err_release;

	mutex_lock(&group->mutex);
	ret = iommu_setup_default_domain(group, dev);
	mutex_unlock(&group->mutex);
	if (ret)
		goto err_remove;
	return 0;

err_remove:
	iommu_group_remove_device(dev);
err_release:
	if (ops->release_device)
		ops->release_device(dev);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_probe_device);

/* ---------------------------------------------------------------------
 * Reserved regions
 */

struct iommu_resv_region *iommu_alloc_resv_region(phys_addr_t start,
						  size_t length, int prot,
						  enum iommu_resv_type type,
						  gfp_t gfp)
{
	struct iommu_resv_region *region = kzalloc(sizeof(*region), gfp);

	if (region) {
		region->type = type;
		region->prot = prot;
		region->start = start;
		region->length = length;
		INIT_LIST_HEAD(&region->list);
	}
	return region;
}
EXPORT_SYMBOL_GPL(iommu_alloc_resv_region);

void iommu_get_resv_regions(struct device *dev, struct list_head *list)
{
	const struct iommu_ops *ops;

	if (!dev_has_iommu(dev))
		return;
	ops = dev_iommu_ops(dev);
	if (ops->get_resv_regions)
		ops->get_resv_regions(dev, list);
}
EXPORT_SYMBOL_GPL(iommu_get_resv_regions);

void iommu_put_resv_regions(struct device *dev, struct list_head *list)
{
	struct iommu_resv_region *region, *tmp;

	list_for_each_entry_safe(region, tmp, list, list) {
		list_del(&region->list);
		if (region->free)
			region->free(dev, region);
		else
			kfree(region);
	}
}
EXPORT_SYMBOL_GPL(iommu_put_resv_regions);

/* Insert a copy of @region into @head, which is sorted by start address. */
static int iommu_resv_insert_copy(const struct iommu_resv_region *region,
				  struct list_head *head)
{
	struct iommu_resv_region *copy, *pos;

	copy = iommu_alloc_resv_region(region->start, region->length,
				       region->prot, region->type, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	list_for_each_entry(pos, head, list) {
		if (pos->start > copy->start)
			break;
	}
	list_add_tail(&copy->list, &pos->list);
	return 0;
}

/*
 * The reserved regions of every device of the group, copied into @head in
 * address order (overlapping regions are not merged; the caller frees
 * them with kfree()).
 */
int iommu_get_group_resv_regions(struct iommu_group *group,
				 struct list_head *head)
{
	struct iommu_resv_region *region;
	struct group_device *gdev;
	int ret = 0;

	mutex_lock(&group->mutex);
	list_for_each_entry(gdev, &group->devices, list) {
		LIST_HEAD(dev_resv);

		iommu_get_resv_regions(gdev->dev, &dev_resv);
		list_for_each_entry(region, &dev_resv, list) {
			ret = iommu_resv_insert_copy(region, head);
			if (ret)
				break;
		}
		iommu_put_resv_regions(gdev->dev, &dev_resv);
		if (ret)
			goto unlock;
	}
unlock:
	mutex_unlock(&group->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(iommu_get_group_resv_regions);
