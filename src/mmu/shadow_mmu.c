// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shadow MMU: the half of arch/x86/kvm/mmu/mmu.c that keeps
 * struct kvm_mmu_page by gfn and role (this file's name is the one of the
 * upstream proposal to split that half out of mmu.c, shadow_mmu.c).
 *   - shadow pages: kvm_mmu_alloc_shadow_page() (active_mmu_pages, newest
 *     first, and the gfn hash), kvm_mmu_find_shadow_page(),
 *     kvm_mmu_get_shadow_page(), kvm_mmu_child_role() and
 *     kvm_mmu_get_child_sp(), link_shadow_page() with the parent rmap
 *     (mmu_page_add_parent_pte(), drop_parent_pte()), and the two-step zap
 *     kvm_mmu_prepare_zap_page() / kvm_mmu_commit_zap_page() with an
 *     invalid list (mmu_page_zap_pte(), kvm_mmu_page_unlink_children(),
 *     kvm_mmu_unlink_parents());
 *   - generations: is_obsolete_sp(), kvm_zap_obsolete_pages() for
 *     kvm_mmu_zap_all_fast(), and kvm_mmu_zap_all() at destruction;
 *   - leaf SPTEs and their rmaps: mmu_set_spte(), rmap_add(),
 *     drop_spte(), kvm_mmu_page_get_gfn();
 *   - indirect pages' hooks: account_shadowed() / unaccount_shadowed()
 *     (write-tracking the gfn, kvm_mmu_gfn_disallow_lpage(), and
 *     kvm_mmu_slot_gfn_write_protect());
 *   - unsync pages' bookkeeping: kvm_mmu_mark_parents_unsync() with
 *     mark_unsync(), kvm_unlink_unsync_page() (on a sync or a zap), and
 *     kvm_mmu_find_shadow_page()'s zap or sync of unsync pages;
 *   - the rmap walks of dirty logging (kvm_mmu_slot_remove_write_access(),
 *     kvm_mmu_slot_leaf_clear_dirty(), kvm_rmap_zap_collapsible_sptes())
 *     and of the MMU notifier (kvm_unmap_gfn_range() -> kvm_zap_rmap()).
 * The legacy direct MMU that maps through these pages is direct_map.c.
 *
 * Everything runs under mmu_lock held for write, as in the kernel.  Left
 * out: the n_max_mmu_pages limit and kvm_mmu_zap_oldest_mmu_pages(), nested
 * (guest_mode) pages and their recursive zap, the write-flooding count,
 * access tracking without A/D bits, the stats max_mmu_page_hash_collisions /
 * max_mmu_rmap_size, and RMAP_RECYCLE_THRESHOLD.  A root zapped while a vCPU holds it (a fast
 * zap, write flooding of the guest's top-level table) is unlinked and
 * marked invalid, and freed when the vCPU drops it at its next entry
 * (KVM_REQ_MMU_FREE_OBSOLETE_ROOTS -> kvm_mmu_free_obsolete_roots() ->
 * kvm_mmu_free_roots(), with a second remote flush), as in 6.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

int nxsim__shadow_mmu_init_vm(struct nxsim__vm_mmu *mmu)
{
	unsigned int i;

	mmu->mmu_page_hash = nxsim__alloc(NXSIM__MMU_HASH_SIZE *
					  sizeof(*mmu->mmu_page_hash));
	if (!mmu->mmu_page_hash)
		return -ENOMEM;
	for (i = 0; i < NXSIM__MMU_HASH_SIZE; i++)
		LIST_INIT(&mmu->mmu_page_hash[i]);
	return 0;
}

void nxsim__shadow_mmu_uninit_vm(struct nxsim__vm_mmu *mmu)
{
	nxsim__free(mmu->mmu_page_hash,
		    NXSIM__MMU_HASH_SIZE * sizeof(*mmu->mmu_page_hash));
	mmu->mmu_page_hash = NULL;
}

int nxsim__mmu_topup_shadowed_info_cache(struct nxsim__vm_mmu *mmu)
{
	unsigned int had = mmu->nr_info_cache;

	while (mmu->nr_info_cache < ARRAY_SIZE(mmu->shadowed_info_cache)) {
		uint64_t *t = nxsim__alloc(SPTE_ENT_PER_PAGE * sizeof(*t));

		if (!t) {
			while (mmu->nr_info_cache > had)
				nxsim__free(mmu->shadowed_info_cache
						    [--mmu->nr_info_cache],
					    SPTE_ENT_PER_PAGE * sizeof(*t));
			return -ENOMEM;
		}
		mmu->shadowed_info_cache[mmu->nr_info_cache++] = t;
	}
	return 0;
}

void nxsim__mmu_free_shadowed_info_cache(struct nxsim__vm_mmu *mmu)
{
	while (mmu->nr_info_cache)
		nxsim__free(mmu->shadowed_info_cache[--mmu->nr_info_cache],
			    SPTE_ENT_PER_PAGE * sizeof(uint64_t));
}

/* kvm_page_table_hashfn(): hash_64(gfn, KVM_MMU_HASH_SHIFT) */
static unsigned int kvm_page_table_hashfn(uint64_t gfn)
{
	return (unsigned int)((gfn * GOLDEN_RATIO_64) >>
			      (64 - NXSIM__MMU_HASH_SHIFT));
}

bool nxsim__is_obsolete_sp(const struct nxsim__vm_mmu *mmu,
			   const struct nxsim__mmu_page *sp)
{
	if (sp->role.invalid)
		return true;
	/* TDP MMU pages do not use the generation. */
	return !sp->tdp_mmu_page && sp->mmu_valid_gen != mmu->mmu_valid_gen;
}

struct nxsim__sp_hlist *nxsim__gfn_sp_list(struct nxsim__vm_mmu *mmu,
					   uint64_t gfn)
{
	return &mmu->mmu_page_hash[kvm_page_table_hashfn(gfn)];
}

uint64_t nxsim__kvm_mmu_page_get_gfn(const struct nxsim__mmu_page *sp,
				     unsigned int idx)
{
	if (sp->shadowed_translation)
		return sp->shadowed_translation[idx] >> 12;
	return sp->gfn + ((uint64_t)idx << ((sp->role.level - 1) * 9));
}

struct nxsim__kvm_rmap_head *nxsim__gfn_to_rmap(uint64_t gfn, int level,
						const struct nxsim__memslot *s)
{
	return &s->rmap[level - 1][nxsim__gfn_to_index(gfn, s->base_gfn, level)];
}

/* spte_write_protect() */
static bool spte_write_protect(struct nxsim__vm_mmu *mmu, uint64_t *sptep,
			       bool pt_protect)
{
	uint64_t spte = *sptep;

	if (!is_writable_pte(spte) &&
	    !(pt_protect && nxsim__is_mmu_writable_spte(mmu->fmt, spte)))
		return false;
	if (pt_protect)
		spte &= ~nxsim__spte_masks(mmu->fmt)->mmu_writable;
	spte = nxsim__spte_wrprot(spte);
	WRITE_ONCE(*sptep, spte);
	return true;
}

/* rmap_write_protect() */
static bool rmap_write_protect(struct nxsim__vm_mmu *mmu,
			       struct nxsim__kvm_rmap_head *head,
			       bool pt_protect)
{
	struct nxsim__rmap_iterator iter;
	bool flush = false;
	uintptr_t ref;

	for_each_rmap_spte(head, &iter, ref) flush |=
		spte_write_protect(mmu, ref_to_sptep(mmu, ref), pt_protect);
	return flush;
}

bool nxsim__kvm_mmu_slot_gfn_write_protect(struct nxsim__vm_mmu *mmu,
					   struct nxsim__memslot *slot,
					   uint64_t gfn, int min_level)
{
	bool flush = false;
	int level;

	/* kvm_memslots_have_rmaps() */
	if (slot->rmap[0])
		for (level = min_level; level <= NXSIM_PG_LEVEL_1G; level++)
			flush |= rmap_write_protect(
				mmu, nxsim__gfn_to_rmap(gfn, level, slot),
				true);
	if (mmu->tdp_mmu_enabled)
		flush |= nxsim__kvm_tdp_mmu_write_protect_gfn(mmu, slot, gfn,
							      min_level);
	return flush;
}

void nxsim__account_shadowed(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp)
{
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), sp->gfn);

	mmu->indirect_shadow_pages++;
	if (WARN_ON(!slot))
		return;
	/* The non-leaf shadow pages are kept read-only. */
	if (sp->role.level > NXSIM_PG_LEVEL_4K) {
		nxsim__kvm_slot_page_track_add_page(mmu, slot, sp->gfn);
		return;
	}
	nxsim__kvm_mmu_gfn_disallow_lpage(slot, sp->gfn);
	/* kvm_flush_remote_tlbs_with_address(kvm, gfn, 1) */
	if (nxsim__kvm_mmu_slot_gfn_write_protect(mmu, slot, sp->gfn,
						  NXSIM_PG_LEVEL_4K))
		nxsim__kvm_flush_remote_tlbs(mmu);
}

void nxsim__unaccount_shadowed(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp)
{
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), sp->gfn);

	mmu->indirect_shadow_pages--;
	if (WARN_ON(!slot))
		return;
	if (sp->role.level > NXSIM_PG_LEVEL_4K) {
		nxsim__kvm_slot_page_track_remove_page(mmu, slot, sp->gfn);
		return;
	}
	nxsim__kvm_mmu_gfn_allow_lpage(slot, sp->gfn);
}

/*
 * kvm_mmu_alloc_shadow_page(): the page comes from the vCPU's topped-up
 * cache @mc; an indirect one also gets its shadowed_translation array
 * from @shadowed_info (NULL for direct pages).
 */
static struct nxsim__mmu_page *
kvm_mmu_alloc_shadow_page(struct nxsim__vm_mmu *mmu,
			  struct nxsim__mmu_memory_cache *mc, uint64_t gfn,
			  struct nxsim__sp_hlist *sp_list,
			  union nxsim__kvm_mmu_page_role role)
{
	struct nxsim__mmu_page *sp;

	assert(mc->nobjs);
	sp = nxsim__mmu_cache_pop(mmu, mc);
	sp->tdp_mmu_page = false;
	nxsim__sp_clear(sp);
	if (!role.direct) {
		assert(mmu->nr_info_cache);
		sp->shadowed_translation =
			mmu->shadowed_info_cache[--mmu->nr_info_cache];
	}
	/* active_mmu_pages is a FIFO: kvm_zap_obsolete_pages() relies on it */
	sp->mmu_valid_gen = mmu->mmu_valid_gen;
	TAILQ_INSERT_HEAD(&mmu->active_mmu_pages, sp, link);
	mmu->n_used_mmu_pages++;
	sp->gfn = gfn;
	sp->role = role;
	sp->level = role.level;
	sp->direct = role.direct;
	sp->unsync = false;
	sp->write_flooding_count = 0;
	sp->unsync_children = 0;
	memset(sp->unsync_child_bitmap, 0, sizeof(sp->unsync_child_bitmap));
	LIST_INSERT_HEAD(sp_list, sp, hash_link);
	if (sp_has_gptes(sp))
		nxsim__account_shadowed(mmu, sp);
	return sp;
}

/* kvm_mmu_free_shadow_page() */
static void kvm_mmu_free_shadow_page(struct nxsim__vm_mmu *mmu,
				     struct nxsim__mmu_page *sp)
{
	LIST_REMOVE(sp, hash_link);
	if (sp->shadowed_translation)
		nxsim__free(sp->shadowed_translation,
			    SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	sp->shadowed_translation = NULL;
	nxsim__mmu_free_sp_after_grace_period(mmu, sp);
}

/*
 * kvm_mmu_find_shadow_page(): the valid page of @gfn whose role is @role.
 * An unsync page of @gfn with another role is zapped when @gfn is wanted
 * as a table above 4K; an unsync match is brought up to date
 * (kvm_sync_page(): it stays unsync), or zapped and not returned if that
 * fails.
 */
static struct nxsim__mmu_page *kvm_mmu_find_shadow_page(
	struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m, uint64_t gfn,
	struct nxsim__sp_hlist *sp_list, union nxsim__kvm_mmu_page_role role)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	struct nxsim__mmu_page *sp, *found = NULL;
	int ret;

	LIST_FOREACH(sp, sp_list, hash_link) {
		if (nxsim__is_obsolete_sp(mmu, sp) || sp->gfn != gfn)
			continue;
		if (sp->role.word != role.word) {
			if (role.level > NXSIM_PG_LEVEL_4K && sp->unsync)
				nxsim__kvm_mmu_prepare_zap_page(mmu, sp,
								&invalid_list);
			continue;
		}
		if (sp->unsync) {
			ret = nxsim__sync_page(mmu, m, sp);
			if (ret < 0) {
				nxsim__kvm_mmu_prepare_zap_page(mmu, sp,
								&invalid_list);
				break;
			}
			if (ret > 0)
				nxsim__kvm_flush_remote_tlbs(mmu);
		}
		__clear_sp_write_flooding_count(sp);
		found = sp;
		break;
	}
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
	return found;
}

struct nxsim__mmu_page *
nxsim__kvm_mmu_get_shadow_page(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_memory_cache *mc,
			       const struct nxsim__kvm_mmu *m, uint64_t gfn,
			       union nxsim__kvm_mmu_page_role role)
{
	struct nxsim__sp_hlist *sp_list =
		&mmu->mmu_page_hash[kvm_page_table_hashfn(gfn)];
	struct nxsim__mmu_page *sp;

	sp = kvm_mmu_find_shadow_page(mmu, m, gfn, sp_list, role);
	if (!sp) {
		MMU_KSTAT(mmu, mmu_cache_miss);
		sp = kvm_mmu_alloc_shadow_page(mmu, mc, gfn, sp_list, role);
	}
	return sp;
}

/* kvm_mmu_child_role() */
static union nxsim__kvm_mmu_page_role
kvm_mmu_child_role(const struct nxsim__mmu_page *parent_sp, unsigned int idx,
		   bool direct, unsigned int access)
{
	union nxsim__kvm_mmu_page_role role = parent_sp->role;

	role.level--;
	role.access = access;
	role.direct = direct;
	role.passthrough = 0;
	WARN_ON(role.invalid);
	role.invalid = 0;
	/*
	 * A 32-bit guest's 4 MiB page table is shadowed by two PAE tables:
	 * the quadrant says which half, from the parent PDE's index.
	 */
	if (role.has_4_byte_gpte) {
		WARN_ON(role.level != NXSIM_PG_LEVEL_4K);
		role.quadrant = idx & 1;
	}
	return role;
}

struct nxsim__mmu_page *nxsim__kvm_mmu_get_child_sp(
	struct nxsim__vm_mmu *mmu, struct nxsim__mmu_memory_cache *mc,
	const struct nxsim__kvm_mmu *m, struct nxsim__mmu_page *parent_sp,
	unsigned int idx, uint64_t gfn, bool direct, unsigned int access)
{
	union nxsim__kvm_mmu_page_role role =
		kvm_mmu_child_role(parent_sp, idx, direct, access);
	uint64_t spte = parent_sp->spt[idx];

	if (is_shadow_present_pte(spte) && !is_large_pte(spte)) {
		struct nxsim__mmu_page *child = spte_to_child_sp(mmu, spte);

		if (child->gfn == gfn && child->role.word == role.word)
			return NULL; /* ERR_PTR(-EEXIST) */
	}
	return nxsim__kvm_mmu_get_shadow_page(mmu, mc, m, gfn, role);
}

/* mmu_page_add_parent_pte() */
static void mmu_page_add_parent_pte(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp,
				    uintptr_t parent_pte)
{
	nxsim__pte_list_add(mmu, parent_pte, &sp->parent_ptes);
}

void nxsim__drop_parent_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, uintptr_t parent_pte)
{
	/* mmu_page_remove_parent_pte() + mmu_spte_clear_no_track() */
	nxsim__pte_list_remove(mmu, parent_pte, &sp->parent_ptes);
	WRITE_ONCE(*ref_to_sptep(mmu, parent_pte), SHADOW_NONPRESENT_VALUE);
}

/* rmap_remove() */
static void rmap_remove(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			unsigned int idx)
{
	uint64_t gfn = nxsim__kvm_mmu_page_get_gfn(sp, idx);
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), gfn);

	nxsim__pte_list_remove(mmu, sptep_ref(sp, idx),
			       nxsim__gfn_to_rmap(gfn, sp->role.level, slot));
}

/*
 * drop_spte(): mmu_spte_clear_track_bits() (the page stats) and
 * rmap_remove().
 */
static void drop_spte(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		      unsigned int idx)
{
	uint64_t old = sp->spt[idx];

	WRITE_ONCE(sp->spt[idx], SHADOW_NONPRESENT_VALUE);
	if (!is_shadow_present_pte(old))
		return;
	nxsim__kvm_update_page_stats(mmu, sp->role.level, -1);
	sp->nr_leaves--;
	rmap_remove(mmu, sp, idx);
}

void nxsim__drop_spte(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		      unsigned int idx)
{
	drop_spte(mmu, sp, idx);
}

/* mark_unsync(): the SPTE @ref leads to an unsync page. */
static void mark_unsync(struct nxsim__vm_mmu *mmu, uintptr_t ref)
{
	struct nxsim__mmu_page *sp = ref_to_sp(mmu, ref);
	unsigned int idx = ref_index(ref);
	uint64_t bit = 1ull << (idx % 64);

	if (sp->unsync_child_bitmap[idx / 64] & bit)
		return;
	sp->unsync_child_bitmap[idx / 64] |= bit;
	if (sp->unsync_children++)
		return;
	nxsim__kvm_mmu_mark_parents_unsync(mmu, sp);
}

void nxsim__kvm_mmu_mark_parents_unsync(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp)
{
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;

	for_each_rmap_spte(&sp->parent_ptes, &iter, ref) mark_unsync(mmu, ref);
}

void nxsim__kvm_unlink_unsync_page(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp)
{
	WARN_ON(!sp->unsync);
	sp->unsync = false;
	mmu->nr_unsync--;
}

/* rmap_add(): the stats and the rmap of a new leaf. */
static void rmap_add(struct nxsim__vm_mmu *mmu,
		     const struct nxsim__memslot *slot,
		     struct nxsim__mmu_page *sp, unsigned int idx, uint64_t gfn,
		     unsigned int access)
{
	/* kvm_mmu_page_set_translation() */
	if (sp->shadowed_translation)
		sp->shadowed_translation[idx] = gfn << 12 | access;
	nxsim__kvm_update_page_stats(mmu, sp->role.level, 1);
	sp->nr_leaves++;
	nxsim__pte_list_add(mmu, sptep_ref(sp, idx),
			    nxsim__gfn_to_rmap(gfn, sp->role.level, slot));
}

int nxsim__mmu_page_zap_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, unsigned int idx,
			    struct nxsim__sp_list *invalid_list)
{
	uint64_t pte = sp->spt[idx];

	(void)invalid_list; /* only nested pages are zapped recursively */
	if (!is_shadow_present_pte(pte)) {
		/* an MMIO SPTE: mmu_spte_clear_no_track() */
		if (is_mmio_spte(&mmu->mmio, pte))
			WRITE_ONCE(sp->spt[idx], SHADOW_NONPRESENT_VALUE);
		return 0;
	}
	if (is_last_spte(pte, sp->role.level))
		drop_spte(mmu, sp, idx);
	else
		nxsim__drop_parent_pte(mmu, spte_to_child_sp(mmu, pte),
				       sptep_ref(sp, idx));
	return 0;
}

bool nxsim__kvm_mmu_remote_flush_or_zap(struct nxsim__vm_mmu *mmu,
					struct nxsim__sp_list *invalid_list,
					bool remote_flush)
{
	if (!remote_flush && TAILQ_EMPTY(invalid_list))
		return false;
	if (!TAILQ_EMPTY(invalid_list))
		nxsim__kvm_mmu_commit_zap_page(mmu, invalid_list);
	else
		nxsim__kvm_flush_remote_tlbs(mmu);
	return true;
}

void nxsim__link_shadow_page(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *parent_sp,
			     unsigned int idx, struct nxsim__mmu_page *sp)
{
	uint64_t *sptep = &parent_sp->spt[idx];

	if (is_shadow_present_pte(*sptep)) {
		struct nxsim__sp_list invalid_list =
			TAILQ_HEAD_INITIALIZER(invalid_list);

		WARN_ON(parent_sp->role.level == NXSIM_PG_LEVEL_4K);
		nxsim__mmu_page_zap_pte(mmu, parent_sp, idx, &invalid_list);
		nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, true);
	}
	WRITE_ONCE(*sptep, nxsim__make_nonleaf_spte(mmu->fmt, sp_pfn(sp)));
	mmu_page_add_parent_pte(mmu, sp, sptep_ref(parent_sp, idx));
	if (sp->unsync_children || sp->unsync)
		mark_unsync(mmu, sptep_ref(parent_sp, idx));
}

/* kvm_mmu_page_unlink_children() */
static int kvm_mmu_page_unlink_children(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp,
					struct nxsim__sp_list *invalid_list)
{
	unsigned int i;
	int zapped = 0;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		zapped += nxsim__mmu_page_zap_pte(mmu, sp, i, invalid_list);
	return zapped;
}

/* kvm_mmu_unlink_parents() */
static void kvm_mmu_unlink_parents(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp)
{
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;

	while ((ref = nxsim__rmap_get_first(&sp->parent_ptes, &iter)))
		nxsim__drop_parent_pte(mmu, sp, ref);
}

/*
 * __kvm_mmu_prepare_zap_page(): unlink the page from its children and
 * parents, undo its accounting, and move it to @invalid_list.  The 6.1
 * tree clears lpage_disallowed and untracks a page only when it is
 * tracked (unaccount_huge_nx_page()); from 6.2 any flagged page is
 * unaccounted (unaccount_nx_huge_page()); both leave the page unflagged
 * and untracked.  A root a vCPU still holds (root_count > 0) only leaves
 * active_mmu_pages and is marked invalid: it stays allocated and counted
 * until mmu_free_root_page() drops the last hold and prepares it again;
 * if it was valid, every vCPU is asked to free its obsolete roots
 * (KVM_REQ_MMU_FREE_OBSOLETE_ROOTS).
 */
int nxsim__kvm_mmu_prepare_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp,
				    struct nxsim__sp_list *invalid_list)
{
	bool zapped_root = false;
	int nr_zapped;

	MMU_KSTAT(mmu, mmu_shadow_zapped);
	nr_zapped = kvm_mmu_page_unlink_children(mmu, sp, invalid_list);
	kvm_mmu_unlink_parents(mmu, sp);
	if (!sp->role.invalid && sp_has_gptes(sp))
		nxsim__unaccount_shadowed(mmu, sp);
	if (sp->unsync)
		nxsim__kvm_unlink_unsync_page(mmu, sp);
	if (!sp->root_count) {
		/* Count self */
		nr_zapped++;
		/* an invalid root left active_mmu_pages when it was zapped */
		if (!sp->role.invalid)
			TAILQ_REMOVE(&mmu->active_mmu_pages, sp, link);
		TAILQ_INSERT_HEAD(invalid_list, sp, link);
		mmu->n_used_mmu_pages--;
	} else {
		TAILQ_REMOVE(&mmu->active_mmu_pages, sp, link);
		zapped_root = !nxsim__is_obsolete_sp(mmu, sp);
	}
	if (sp->nx_huge_page_disallowed || sp->nx_tracked) {
		sp->nx_huge_page_disallowed = false;
		nxsim__untrack_possible_nx_huge_page(mmu, sp,
						     NXSIM__SHADOW_MMU);
	}
	sp->role.invalid = 1;
	sp->invalid = true;
	if (zapped_root)
		nxsim__mmu_request_free_obsolete_roots(mmu);
	return nr_zapped;
}

void nxsim__kvm_mmu_commit_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__sp_list *invalid_list)
{
	struct nxsim__mmu_page *sp;

	if (TAILQ_EMPTY(invalid_list))
		return;
	/* Every vCPU out of guest mode before the tables are freed. */
	nxsim__kvm_flush_remote_tlbs(mmu);
	while ((sp = TAILQ_FIRST(invalid_list))) {
		TAILQ_REMOVE(invalid_list, sp, link);
		WARN_ON(!sp->role.invalid || sp->root_count);
		kvm_mmu_free_shadow_page(mmu, sp);
	}
}

/*
 * mmu_free_root_page(): drop a hold on @sp; the last hold on a root that
 * was zapped meanwhile prepares it for the zap it was spared.
 */
static void mmu_free_root_page(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp,
			       struct nxsim__sp_list *invalid_list)
{
	if (!--sp->root_count && sp->role.invalid)
		nxsim__kvm_mmu_prepare_zap_page(mmu, sp, invalid_list);
}

/*
 * kvm_mmu_free_roots() of the vCPUs' root of @as_id, or, in address space
 * 0, of each valid entry of pae_root, into @invalid_list.
 */
static void kvm_mmu_free_roots(struct nxsim__vm_mmu *mmu, int as_id,
			       struct nxsim__sp_list *invalid_list)
{
	struct nxsim__mmu_page *root = mmu->root[as_id];
	unsigned int i;

	for (i = 0; !as_id && i < ARRAY_SIZE(mmu->pae_root); i++) {
		if (mmu->pae_root[i])
			mmu_free_root_page(mmu, mmu->pae_root[i], invalid_list);
		mmu->pae_root[i] = NULL;
	}
	if (!root || root->tdp_mmu_page)
		return;
	mmu_free_root_page(mmu, root, invalid_list);
	mmu->root[as_id] = NULL;
}

void nxsim__mmu_free_root_page(struct nxsim__vm_mmu *mmu, int as_id)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);

	kvm_mmu_free_roots(mmu, as_id, &invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
}

/*
 * is_obsolete_root() of the current root of @as_id: pae_root has no shadow
 * page, so loaded PAE roots always count as obsolete (the kernel's accepted
 * false positive: they are freed at every fast zap).
 */
static bool is_obsolete_root(struct nxsim__vm_mmu *mmu, int as_id)
{
	if (!as_id && nxsim__pae_roots_loaded(mmu))
		return true;
	return mmu->root[as_id] && nxsim__is_obsolete_sp(mmu, mmu->root[as_id]);
}

void nxsim__kvm_mmu_free_obsolete_roots(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	int i;

	if (!mmu->free_obsolete_roots)
		return;
	mmu->free_obsolete_roots = false;
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		if (is_obsolete_root(mmu, i))
			kvm_mmu_free_roots(mmu, i, &invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
}

void nxsim__kvm_zap_obsolete_pages(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	struct nxsim__mmu_page *sp;

	/*
	 * Oldest first; no obsolete page is newer than a valid one.  A root
	 * a vCPU holds leaves the list, invalid, and is freed when the vCPU
	 * drops it (kvm_mmu_free_obsolete_roots()).
	 */
	while ((sp = TAILQ_LAST(&mmu->active_mmu_pages, nxsim__sp_list)) &&
	       nxsim__is_obsolete_sp(mmu, sp))
		nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
}

void nxsim__kvm_mmu_zap_all(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	struct nxsim__mmu_page *sp;
	int i;

	/* the vCPUs are gone: kvm_mmu_unload() freed their roots */
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		kvm_mmu_free_roots(mmu, i, &invalid_list);
	while ((sp = TAILQ_FIRST(&mmu->active_mmu_pages)))
		nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
	/*
	 * Pages a buggy recovery pass prepared and never committed: the
	 * kernel leaked them; the model frees them here.
	 */
	nxsim__kvm_mmu_commit_zap_page(mmu, &mmu->invalid_list);
}

/*
 * mmu_set_spte(): install the leaf of @gfn at @sp->spt[@idx]; @f is NULL
 * for a prefetch, which makes the SPTE without the accessed bit
 * (mark_spte_for_access_track() with A/D bits) and with a writable pfn.
 * make_spte() drops W where the gfn is a shadowed guest table
 * (mmu_try_to_unsync_pages()); a write fault then is RET_PF_EMULATE.  A
 * fault with no slot (KVM_PFN_NOSLOT) gets an MMIO SPTE instead
 * (mark_mmio_spte()), outside the rmaps and stats, and RET_PF_EMULATE.
 */
int nxsim__mmu_set_spte(struct nxsim__vm_mmu *mmu,
			const struct nxsim__memslot *slot,
			struct nxsim__mmu_page *sp, unsigned int idx,
			unsigned int pte_access, uint64_t gfn, uint64_t pfn,
			const struct nxsim__kvm_page_fault *f)
{
	int level = sp->role.level, ret = RET_PF_FIXED;
	bool host_writable = !f || f->map_writable;
	bool was_rmapped = false, flush = false, wrprot = false;
	uint64_t *sptep = &sp->spt[idx], spte;

	if (is_shadow_present_pte(*sptep)) {
		if (level > NXSIM_PG_LEVEL_4K && !is_large_pte(*sptep)) {
			/* A huge leaf over a table: unlink the table. */
			struct nxsim__mmu_page *child =
				spte_to_child_sp(mmu, *sptep);

			if (child->nx_huge_page_disallowed &&
			    nxsim__is_nx_huge_page_enabled(mmu))
				nxsim__mmu_event(
					mmu,
					"invariant 5: huge SPTE at level %d gfn 0x%" PRIx64
					" replaced a table flagged "
					"nx_huge_page_disallowed",
					level, gfn);
			nxsim__drop_parent_pte(mmu, child, sptep_ref(sp, idx));
			flush = true;
		} else if (!slot || pfn != spte_to_pfn(*sptep)) {
			drop_spte(mmu, sp, idx);
			flush = true;
		} else {
			was_rmapped = true;
		}
	}
	/*
	 * is_noslot_pfn(): mark_mmio_spte(), with the generation the fault
	 * read; not in the rmaps nor the page stats (the caller counts
	 * pf_mmio_spte_created)
	 */
	if (unlikely(!slot)) {
		WRITE_ONCE(*sptep,
			   nxsim__make_mmio_spte(&mmu->mmio, f->mmio_gen, gfn,
						 pte_access));
		if (flush)
			nxsim__kvm_flush_remote_tlbs(mmu);
		return RET_PF_EMULATE;
	}
	if ((pte_access & ACC_WRITE_MASK) && host_writable &&
	    nxsim__mmu_try_to_unsync_pages(mmu, slot, gfn, true, !f))
		wrprot = true;
	/* make_spte() reads the mitigation for huge leaves only */
	spte = nxsim__make_spte(mmu->fmt, level, pfn,
				wrprot ? pte_access & ~ACC_WRITE_MASK :
					 pte_access,
				host_writable,
				level > NXSIM_PG_LEVEL_4K &&
					nxsim__is_nx_huge_page_enabled(mmu));
	if (!f)
		spte &= ~nxsim__spte_masks(mmu->fmt)->accessed;
	/* make_spte(): a writable 4K SPTE logs its gfn */
	if (is_writable_pte(spte))
		nxsim__mark_page_dirty_in_slot(slot, gfn);
	if (*sptep == spte)
		ret = RET_PF_SPURIOUS;
	else
		WRITE_ONCE(*sptep, spte);
	if (wrprot && f && f->write)
		ret = RET_PF_EMULATE;
	/* kvm_flush_remote_tlbs_with_address(kvm, gfn, pages of level) */
	if (flush)
		nxsim__kvm_flush_remote_tlbs(mmu);
	if (!was_rmapped)
		rmap_add(mmu, slot, sp, idx, gfn, pte_access);
	return ret;
}

/* kvm_zap_rmap(): zap every leaf on @head; Return: true if any. */
static bool kvm_zap_rmap(struct nxsim__vm_mmu *mmu,
			 struct nxsim__kvm_rmap_head *head)
{
	struct nxsim__rmap_iterator iter;
	bool flush = false;
	uintptr_t ref;

	while ((ref = nxsim__rmap_get_first(head, &iter))) {
		drop_spte(mmu, ref_to_sp(mmu, ref), ref_index(ref));
		flush = true;
	}
	return flush;
}

void nxsim__kvm_rmap_zap_gfn_range(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t start, uint64_t end)
{
	bool flush = false;
	uint64_t gfn;
	int level;

	for (level = NXSIM_PG_LEVEL_4K; level <= NXSIM_PG_LEVEL_1G; level++) {
		uint64_t step = KVM_PAGES_PER_HPAGE(level);

		for (gfn = start & ~(step - 1); gfn < end; gfn += step)
			flush |= kvm_zap_rmap(
				mmu,
				nxsim__gfn_to_rmap(MAX(gfn, slot->base_gfn),
						   level, slot));
	}
	if (flush)
		nxsim__kvm_flush_remote_tlbs(mmu);
}

/* spte_clear_dirty() */
static void spte_clear_dirty(struct nxsim__vm_mmu *mmu, uint64_t *sptep)
{
	WRITE_ONCE(*sptep, *sptep & ~nxsim__spte_masks(mmu->fmt)->dirty);
}

bool nxsim__rmap_protect_4k(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__memslot *slot, uint64_t gfn,
			    bool clear_dirty)
{
	struct nxsim__kvm_rmap_head *head =
		nxsim__gfn_to_rmap(gfn, NXSIM_PG_LEVEL_4K, slot);
	struct nxsim__rmap_iterator iter;
	bool flush = false;
	uintptr_t ref;

	if (!clear_dirty)
		return rmap_write_protect(mmu, head, false);
	/* __rmap_clear_dirty(): A/D bits on, so D is cleared */
	for_each_rmap_spte(head, &iter, ref)
	{
		uint64_t *sptep = ref_to_sptep(mmu, ref);

		flush |= !!(*sptep & nxsim__spte_masks(mmu->fmt)->dirty);
		spte_clear_dirty(mmu, sptep);
	}
	return flush;
}

/**
 * nxsim__slot_handle_level() - call @fn on every rmap head of a slot
 * @mmu: the VM's MMU
 * @slot: the memslot, with rmaps
 * @fn: called once a head, empty or not
 * @start_level: the first level (NXSIM_PG_LEVEL_4K up)
 * @end_level: the last level
 * @ctx: passed to @fn
 *
 * Models slot_handle_level() (6.1; walk_slot_rmaps() from 6.3): the
 * levels from @start_level up and, at each, the heads of the slot's gfns
 * in order.  The kernel may yield mmu_lock between heads; the model never
 * does.
 *
 * Return: true if any call of @fn returned true.
 */
bool nxsim__slot_handle_level(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__memslot *slot,
			      nxsim__slot_level_handler fn, int start_level,
			      int end_level, void *ctx)
{
	bool flush = false;
	uint64_t i, n;
	int level;

	for (level = start_level; level <= end_level; level++) {
		n = level == NXSIM_PG_LEVEL_4K ? slot->npages :
						 slot->lpages[level - 2];
		for (i = 0; i < n; i++)
			flush |= fn(mmu, &slot->rmap[level - 1][i], slot, level,
				    ctx);
	}
	return flush;
}

/*
 * slot_rmap_write_protect(), or __rmap_clear_dirty() on a 4K head with
 * PML (@ctx non-NULL).
 */
static bool slot_rmap_write_protect(struct nxsim__vm_mmu *mmu,
				    struct nxsim__kvm_rmap_head *head,
				    const struct nxsim__memslot *slot,
				    int level, void *ctx)
{
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;

	(void)slot;
	for_each_rmap_spte(head, &iter, ref)
	{
		uint64_t *sptep = ref_to_sptep(mmu, ref);

		if (ctx && level == NXSIM_PG_LEVEL_4K)
			spte_clear_dirty(mmu, sptep);
		else
			spte_write_protect(mmu, sptep, false);
	}
	return false;
}

/*
 * Dirty logging on, kvm_mmu_slot_apply_flags(): with PML (EPT),
 * kvm_mmu_slot_leaf_clear_dirty() clears D on the 4K leaves (the legacy
 * MMU logs at 4K only) and kvm_mmu_slot_remove_write_access() at 2M
 * write-protects the huge ones; without PML (NPT), every leaf is
 * write-protected.  Then one unconditional flush (6.1).
 */
void nxsim__shadow_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot)
{
	bool pml = mmu->fmt == NXSIM_SPTE_EPT;

	nxsim__slot_handle_level(mmu, slot, slot_rmap_write_protect,
				 NXSIM_PG_LEVEL_4K, NXSIM_PG_LEVEL_1G,
				 pml ? mmu : NULL);
	/* kvm_arch_flush_remote_tlbs_memslot() */
	nxsim__kvm_flush_remote_tlbs(mmu);
}

/* kvm_mmu_zap_collapsible_spte() */
static bool kvm_mmu_zap_collapsible_spte(struct nxsim__vm_mmu *mmu,
					 struct nxsim__kvm_rmap_head *head,
					 const struct nxsim__memslot *slot,
					 int level, void *ctx)
{
	struct nxsim__rmap_iterator iter;
	bool flush = false;
	uintptr_t ref;

	(void)level;
	(void)ctx;
restart:
	for_each_rmap_spte(head, &iter, ref)
	{
		struct nxsim__mmu_page *sp = ref_to_sp(mmu, ref);

		if (sp->role.direct && sp->gfn >= slot->base_gfn &&
		    sp->gfn < slot->base_gfn + slot->npages &&
		    sp->role.level <
			    nxsim__kvm_mmu_max_mapping_level(
				    mmu, slot, sp->gfn, NXSIM_PG_LEVEL_1G)) {
			drop_spte(mmu, sp, ref_index(ref));
			flush = true;
			goto restart;
		}
	}
	return flush;
}

/*
 * kvm_rmap_zap_collapsible_sptes(): kvm_mmu_zap_collapsible_spte() over
 * the 4K and 2M rmaps of the slot (the 4K ones only before 6.1:
 * slot_handle_leaf()): a leaf in a direct page that could be mapped at a
 * larger level is zapped (the page table itself stays), to be refaulted
 * huge.
 */
void nxsim__kvm_rmap_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					   const struct nxsim__memslot *slot)
{
	int top = mmu->prof->rmap_collapse_4k_only ? NXSIM_PG_LEVEL_4K :
						     NXSIM_PG_LEVEL_2M;

	if (nxsim__slot_handle_level(mmu, slot, kvm_mmu_zap_collapsible_spte,
				     NXSIM_PG_LEVEL_4K, top, NULL))
		nxsim__kvm_flush_remote_tlbs(mmu);
}
