// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reverse maps of the shadow MMU (arch/x86/kvm/mmu/mmu.c): the list of
 * SPTEs kept in a struct kvm_rmap_head, which holds one SPTE inline or a
 * chain of struct pte_list_desc of PTE_LIST_EXT entries each
 * (pte_list_add(), pte_list_remove(), pte_list_count(), the
 * rmap_get_first()/rmap_get_next() iterator), and the descriptor cache
 * topped up before a fault (mmu_pte_list_desc_cache).  Used for the leaf
 * SPTEs of each gfn and level (slot->arch.rmap) and for the parent SPTEs
 * of each shadow page (sp->parent_ptes).
 *
 * An SPTE's address is kept as its page's frame and its index (struct
 * nxsim__sptep_ref, see mmu_internal.h), as page-table "physical
 * addresses" are frame numbers in this model: sptep_to_sp() is then an
 * array lookup, as virt_to_page() is.  Left out: the rmap printk tracing
 * and the max_mmu_rmap_size stat.
 */
#include <errno.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"

/* PTE_LIST_EXT: a descriptor is 128 bytes, as in 6.1. */
#define PTE_LIST_EXT 14

/**
 * struct nxsim__pte_list_desc - struct pte_list_desc
 * @more: the next descriptor, or NULL
 * @spte_count: entries used in @sptes (PTE_LIST_EXT: full)
 * @sptes: the SPTE references
 */
struct nxsim__pte_list_desc {
	struct nxsim__pte_list_desc *more;
	uint64_t spte_count;
	uintptr_t sptes[PTE_LIST_EXT];
};

int nxsim__mmu_topup_desc_cache(struct nxsim__vm_mmu *mmu)
{
	unsigned int had = mmu->nr_desc_cache;

	while (mmu->nr_desc_cache < NXSIM__DESC_CACHE_MIN) {
		struct nxsim__pte_list_desc *d = nxsim__alloc(sizeof(*d));

		if (!d) {
			while (mmu->nr_desc_cache > had)
				nxsim__free(
					mmu->desc_cache[--mmu->nr_desc_cache],
					sizeof(*d));
			return -ENOMEM;
		}
		mmu->desc_cache[mmu->nr_desc_cache++] = d;
	}
	return 0;
}

void nxsim__mmu_free_desc_cache(struct nxsim__vm_mmu *mmu)
{
	while (mmu->nr_desc_cache)
		nxsim__free(mmu->desc_cache[--mmu->nr_desc_cache],
			    sizeof(struct nxsim__pte_list_desc));
}

/* kvm_mmu_memory_cache_alloc() from the topped-up cache: never fails. */
static struct nxsim__pte_list_desc *desc_alloc(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__pte_list_desc *d;

	assert(mmu->nr_desc_cache);
	d = mmu->desc_cache[--mmu->nr_desc_cache];
	d->more = NULL;
	d->spte_count = 0;
	mmu->nr_descs++;
	return d;
}

/* mmu_free_pte_list_desc() */
static void mmu_free_pte_list_desc(struct nxsim__vm_mmu *mmu,
				   struct nxsim__pte_list_desc *d)
{
	mmu->nr_descs--;
	nxsim__free(d, sizeof(*d));
}

static struct nxsim__pte_list_desc *head_desc(uintptr_t val)
{
	return (struct nxsim__pte_list_desc *)(val & ~(uintptr_t)1);
}

int nxsim__pte_list_add(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			struct nxsim__kvm_rmap_head *rmap_head)
{
	struct nxsim__pte_list_desc *desc;
	int count = 0;

	if (!rmap_head->val) {
		rmap_head->val = spte;
	} else if (!(rmap_head->val & 1)) {
		desc = desc_alloc(mmu);
		desc->sptes[0] = rmap_head->val;
		desc->sptes[1] = spte;
		desc->spte_count = 2;
		rmap_head->val = (uintptr_t)desc | 1;
		count++;
	} else {
		desc = head_desc(rmap_head->val);
		while (desc->spte_count == PTE_LIST_EXT) {
			count += PTE_LIST_EXT;
			if (!desc->more) {
				desc->more = desc_alloc(mmu);
				desc = desc->more;
				break;
			}
			desc = desc->more;
		}
		count += (int)desc->spte_count;
		desc->sptes[desc->spte_count++] = spte;
	}
	return count;
}

/* pte_list_desc_remove_entry() */
static void pte_list_desc_remove_entry(struct nxsim__vm_mmu *mmu,
				       struct nxsim__kvm_rmap_head *rmap_head,
				       struct nxsim__pte_list_desc *desc, int i,
				       struct nxsim__pte_list_desc *prev_desc)
{
	int j = (int)desc->spte_count - 1;

	desc->sptes[i] = desc->sptes[j];
	desc->sptes[j] = 0;
	desc->spte_count--;
	if (desc->spte_count)
		return;
	if (!prev_desc && !desc->more)
		rmap_head->val = 0;
	else if (prev_desc)
		prev_desc->more = desc->more;
	else
		rmap_head->val = (uintptr_t)desc->more | 1;
	mmu_free_pte_list_desc(mmu, desc);
}

void nxsim__pte_list_remove(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			    struct nxsim__kvm_rmap_head *rmap_head)
{
	struct nxsim__pte_list_desc *desc, *prev_desc = NULL;
	int i;

	/* The kernel BUG()s on a missing entry; so does the model. */
	assert(rmap_head->val);
	if (!(rmap_head->val & 1)) {
		assert(rmap_head->val == spte);
		rmap_head->val = 0;
		return;
	}
	for (desc = head_desc(rmap_head->val); desc; desc = desc->more) {
		for (i = 0; i < (int)desc->spte_count; i++) {
			if (desc->sptes[i] == spte) {
				pte_list_desc_remove_entry(mmu, rmap_head, desc,
							   i, prev_desc);
				return;
			}
		}
		prev_desc = desc;
	}
	assert(!"pte_list_remove: SPTE not on the list");
}

unsigned int nxsim__pte_list_count(const struct nxsim__kvm_rmap_head *head)
{
	struct nxsim__pte_list_desc *desc;
	unsigned int count = 0;

	if (!head->val)
		return 0;
	if (!(head->val & 1))
		return 1;
	for (desc = head_desc(head->val); desc; desc = desc->more)
		count += (unsigned int)desc->spte_count;
	return count;
}

uintptr_t nxsim__rmap_get_first(const struct nxsim__kvm_rmap_head *head,
				struct nxsim__rmap_iterator *iter)
{
	if (!head->val)
		return 0;
	if (!(head->val & 1)) {
		iter->desc = NULL;
		return head->val;
	}
	iter->desc = head_desc(head->val);
	iter->pos = 0;
	return iter->desc->sptes[0];
}

uintptr_t nxsim__rmap_get_next(struct nxsim__rmap_iterator *iter)
{
	if (!iter->desc)
		return 0;
	if (iter->pos < PTE_LIST_EXT - 1 &&
	    (uint64_t)++iter->pos < iter->desc->spte_count)
		return iter->desc->sptes[iter->pos];
	iter->desc = iter->desc->more;
	if (!iter->desc)
		return 0;
	iter->pos = 0;
	return iter->desc->sptes[0];
}

size_t nxsim__pte_list_desc_size(void)
{
	return sizeof(struct nxsim__pte_list_desc);
}
