// SPDX-License-Identifier: GPL-2.0-only
/*
 * TDP MMU page tables (arch/x86/kvm/mmu/tdp_mmu.c,
 * arch/x86/kvm/mmu/tdp_iter.c): roots (their pages come from
 * mmu_pages.c), SPTE changes with their stat and teardown side effects
 * (handle_changed_spte(), handle_removed_pt(), tdp_mmu_unlink_sp()),
 * zapping an SP through its parent SPTE (the walks
 * over gfn ranges are tdp_mmu_walk.c's), and the map of a fault
 * (make_spte() logging a writable 4K leaf of a dirty-logged slot):
 * kvm_tdp_mmu_map() with tdp_mmu_map_handle_target_level(), the in-place
 * split of a huge SPTE (tdp_mmu_split_huge_page(), 6.2) or its zap
 * (before), and the possible-NX accounting of the tables it links.
 *
 * Under mmu_lock held for read (faults from 5.12, the dirty-logging walks
 * from 5.13, recovery from 6.18), SPTEs change only by compare-and-
 * exchange (tdp_mmu_set_spte_atomic(), -EBUSY when another thread got
 * there first), a huge SPTE being zapped is frozen first
 * (tdp_mmu_zap_spte_atomic()), a removed table's entries are frozen one
 * by one (handle_removed_pt()), and a new child is flagged
 * nx_huge_page_disallowed before its SPTE is published (61f94478547b),
 * its tracking re-checked under tdp_mmu_pages_lock.  Removed tables are
 * freed after an RCU grace period (tdp_mmu_free_sp_rcu_callback()).
 * Walks offer each root entry to the scheduling hook as a
 * tdp_mmu_iter_cond_resched() point without dropping mmu_lock (nothing in
 * the model needs the CPU back); roots are torn down at once when
 * invalidated, not by refcount, and under the write lock, where removed
 * tables are not frozen (no lockless walker writes).  Roots and their
 * pages carry role.smm: address space 1 (vCPUs in SMM) has roots of its
 * own, and the walks of a slot visit the roots of its space only
 * (for_each_tdp_mmu_root(kvm, root, slot->as_id)).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/tdp_mmu.h"

/*
 * tdp_mmu_unlink_sp(): clear the flag and untrack.  As in the kernel, the
 * lock is taken only for a flagged SP and only when @shared (mmu_lock
 * held for read), and the flag is written again under it: a fault under
 * the read lock tracks the SP only if the flag is still set when it
 * holds the lock.  Under the write lock no fault runs.
 */
static void tdp_mmu_unlink_sp(struct nxsim__vm_mmu *mmu,
			      struct nxsim__mmu_page *sp, bool shared)
{
	if (!sp_nx_disallowed(sp))
		return;
	if (shared)
		nxsim__mutex_lock(&mmu->tdp_mmu_pages_lock,
				  NXSIM__LOCK_TDP_MMU_PAGES);
	sp_set_nx_disallowed(sp, false);
	nxsim__untrack_possible_nx_huge_page(mmu, sp, NXSIM__TDP_MMU);
	if (shared)
		nxsim__mutex_unlock(&mmu->tdp_mmu_pages_lock,
				    NXSIM__LOCK_TDP_MMU_PAGES);
}

static void handle_changed_spte(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, uint64_t old,
				uint64_t new, bool shared);

/*
 * handle_removed_pt(): a table left the paging structure; its page goes
 * back after an RCU grace period (call_rcu() of
 * tdp_mmu_free_sp_rcu_callback()), as walkers may still read it.
 *
 * @shared (mmu_lock held for read): every entry is frozen with an atomic
 * exchange, so that a fault still holding a pointer into the table fails
 * its compare-and-exchange there, and what each entry held leaves the
 * stats; an entry another thread froze is waited for (cpu_relax()).
 * Exclusive: no other thread walks, so entries are not frozen, and the
 * leaves leave the stats in one update: a table a split filled and that
 * still holds all of them by its @nr_leaves without being read again,
 * any other by a count of its entries.
 */
static void handle_removed_pt(struct nxsim__vm_mmu *mmu,
			      struct nxsim__mmu_page *sp, bool shared)
{
	unsigned int i = 0, leaves = 0;
	uint64_t old;

	__atomic_store_n(&sp->removed, true, __ATOMIC_RELAXED);
	tdp_mmu_unlink_sp(mmu, sp, shared);
	if (!shared && sp->nr_leaves) {
		/* a split's table that holds all its leaves: nothing to read */
		leaves = sp->nr_leaves;
		sp->nr_leaves = 0;
		i = SPTE_ENT_PER_PAGE;
	}
	for (; i < SPTE_ENT_PER_PAGE; i++) {
		if (shared) {
			while (is_frozen_spte(
				old = nxsim__xchg_spte(&sp->spt[i],
						       FROZEN_SPTE)))
				nxsim__sched_point(mmu, NXSIM__SCHED_FROZEN,
						   sp->gfn, sp->level);
			handle_changed_spte(mmu, sp, old, FROZEN_SPTE, true);
			continue;
		}
		old = sp->spt[i];
		if (!is_shadow_present_pte(old))
			continue;
		if (is_last_spte(old, sp->level))
			leaves++;
		else
			handle_removed_pt(mmu, spte_to_child_sp(mmu, old),
					  false);
	}
	if (leaves)
		nxsim__kvm_update_page_stats(mmu, sp->level, -(int64_t)leaves);
	nxsim__mmu_free_sp_after_grace_period(mmu, sp);
}

/* handle_changed_spte(): page stats and removed page tables. */
static void handle_changed_spte(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, uint64_t old,
				uint64_t new, bool shared)
{
	int level = sp->level;
	bool was_present = is_shadow_present_pte(old);
	bool is_present = is_shadow_present_pte(new);
	bool was_leaf = was_present && is_last_spte(old, level);
	bool is_leaf = is_present && is_last_spte(new, level);
	bool pfn_changed = spte_to_pfn(old) != spte_to_pfn(new);

	if (old == new)
		return;
	if (was_leaf != is_leaf) {
		nxsim__kvm_update_page_stats(mmu, level, is_leaf ? 1 : -1);
		/* a split's table no longer holds all its leaves */
		if (was_leaf &&
		    __atomic_load_n(&sp->nr_leaves, __ATOMIC_RELAXED))
			__atomic_store_n(&sp->nr_leaves, 0, __ATOMIC_RELAXED);
	}
	if (was_present && !was_leaf && (is_leaf || !is_present || pfn_changed))
		handle_removed_pt(mmu, spte_to_child_sp(mmu, old), shared);
}

void nxsim__tdp_mmu_set_spte(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp, uint64_t *sptep,
			     uint64_t new)
{
	uint64_t old = *sptep;

	nxsim__write_spte(sptep, new);
	handle_changed_spte(mmu, sp, old, new, false);
}

int nxsim__tdp_mmu_set_spte_atomic(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp, uint64_t *sptep,
				   uint64_t *old, uint64_t new)
{
	WARN_ON(is_frozen_spte(*old));
	if (!nxsim__cmpxchg_spte(sptep, old, new))
		return -EBUSY;
	handle_changed_spte(mmu, sp, *old, new, true);
	return 0;
}

int nxsim__tdp_mmu_zap_spte_atomic(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp, uint64_t *sptep,
				   uint64_t *old, bool shared)
{
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level);
	uint64_t gfn = sp->gfn + (uint64_t)(sptep - sp->spt) * span;

	if (!shared) {
		nxsim__tdp_mmu_set_spte(mmu, sp, sptep,
					SHADOW_NONPRESENT_VALUE);
		nxsim__kvm_flush_remote_tlbs_range(mmu, gfn, span);
		return 0;
	}
	if (nxsim__tdp_mmu_set_spte_atomic(mmu, sp, sptep, old, FROZEN_SPTE))
		return -EBUSY;
	nxsim__kvm_flush_remote_tlbs_range(mmu, gfn, span);
	/* FROZEN_SPTE -> non-present needs no handling. */
	nxsim__write_spte(sptep, SHADOW_NONPRESENT_VALUE);
	return 0;
}

/*
 * tdp_mmu_init_sp(): set @sp's header for its use as a table of @role at
 * @gfn under @parent's SPTE @ptep (a root: both NULL), with no leaves, no
 * NX flag and no checker record, as a page a failed link or split gave
 * back to the cache is reused.
 */
static void tdp_mmu_init_sp(struct nxsim__mmu_page *sp,
			    struct nxsim__mmu_page *parent, uint64_t *ptep,
			    uint64_t gfn, union nxsim__kvm_mmu_page_role role)
{
	sp->parent = parent;
	sp->ptep = ptep;
	sp->role = role;
	sp->level = (uint8_t)role.level;
	sp->gfn = gfn;
	sp->nr_leaves = 0;
	sp->nx_huge_page_disallowed = false;
	sp->nx_flag_pending = false;
	sp->made_hpd = false;
	sp->made_req_level = 0;
	sp->unaccounted = false;
}

void nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp, int as_id)
{
	/* kvm_mmu_get_tdp_level() and the vCPU's root_role */
	union nxsim__kvm_mmu_page_role role = {
		.level = (unsigned int)mmu->root_level,
		.direct = 1,
		.access = ACC_ALL,
		.smm = (unsigned int)as_id,
	};

	nxsim__sp_clear(sp);
	tdp_mmu_init_sp(sp, NULL, NULL, 0, role);
	sp->root_count = 1;
	TAILQ_INSERT_TAIL(&mmu->roots, sp, link);
	__atomic_store_n(&mmu->root[as_id], sp, __ATOMIC_RELEASE);
}

void nxsim__tdp_mmu_zap_all_roots(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *root;

	int i;

	TAILQ_FOREACH(root, &mmu->roots, link)
		root->invalid = true;
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		__atomic_store_n(&mmu->root[i], NULL, __ATOMIC_RELEASE);
	while ((root = TAILQ_FIRST(&mmu->roots))) {
		TAILQ_REMOVE(&mmu->roots, root, link);
		handle_removed_pt(mmu, root, false);
	}
}

bool nxsim__kvm_tdp_mmu_zap_sp(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp, bool shared)
{
	uint64_t old;

	if (WARN_ON(!sp->ptep))
		return false;
	old = nxsim__read_spte(sp->ptep);
	/* The parent no longer points here: nothing to do. */
	if (!is_shadow_present_pte(old) || is_large_pte(old) ||
	    spte_to_pfn(old) != sp_pfn(sp))
		return false;
	if (shared)
		return !nxsim__tdp_mmu_set_spte_atomic(mmu, sp->parent,
						       sp->ptep, &old,
						       SHADOW_NONPRESENT_VALUE);
	nxsim__tdp_mmu_set_spte(mmu, sp->parent, sp->ptep,
				SHADOW_NONPRESENT_VALUE);
	return true;
}

/*
 * tdp_mmu_alloc_sp() from the vCPU's cache + tdp_mmu_init_child_sp(): the
 * header is set for this use (a page a failed link gave back is reused).
 */
static struct nxsim__mmu_page *tdp_mmu_init_child_sp(
	struct nxsim__vm_mmu *mmu, struct nxsim__mmu_memory_cache *mc,
	struct nxsim__mmu_page *parent, uint64_t *ptep, uint64_t gfn)
{
	struct nxsim__mmu_page *sp = nxsim__mmu_cache_pop(mmu, mc);
	/* tdp_mmu_init_child_sp(): the parent's role, a level down */
	union nxsim__kvm_mmu_page_role role = parent->role;

	role.level = (unsigned int)parent->level - 1;
	tdp_mmu_init_sp(sp, parent, ptep,
			gfn & ~(KVM_PAGES_PER_HPAGE(parent->level) - 1), role);
	return sp;
}

/*
 * tdp_mmu_link_sp(): publish @sp in its parent SPTE, whose value was
 * *@old.  -EBUSY (the parent SPTE changed) under the read lock.
 */
static int tdp_mmu_link_sp(struct nxsim__vm_mmu *mmu,
			   struct nxsim__mmu_page *sp, uint64_t *old,
			   bool shared)
{
	uint64_t new = nxsim__make_nonleaf_spte(mmu->fmt, sp_pfn(sp));

	if (shared)
		return nxsim__tdp_mmu_set_spte_atomic(mmu, sp->parent, sp->ptep,
						      old, new);
	nxsim__tdp_mmu_set_spte(mmu, sp->parent, sp->ptep, new);
	return 0;
}

/*
 * tdp_mmu_split_huge_page(): fill @sp from the huge SPTE *@old (no atomics:
 * nobody sees @sp yet), then link it in its place.
 */
static int tdp_mmu_split_huge_page(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp, uint64_t *old,
				   bool shared)
{
	int r;

	nxsim__make_split_sptes(mmu->fmt, *old, sp->level,
				nxsim__is_nx_huge_page_enabled(mmu), sp->spt);
	sp->nr_leaves = SPTE_ENT_PER_PAGE;
	r = tdp_mmu_link_sp(mmu, sp, old, shared);
	if (r) {
		sp->nr_leaves = 0; /* never published: it holds nothing */
		return r;
	}
	nxsim__kvm_update_page_stats(mmu, sp->level, SPTE_ENT_PER_PAGE);
	return 0;
}

/*
 * tdp_mmu_alloc_sp_for_split(): a page for an eager split, into @cache.
 * The kernel first allocates with GFP_NOWAIT under mmu_lock; when that
 * fails it drops mmu_lock and the RCU read side, allocates with reclaim
 * allowed and takes them again (iter->yielded: the walk restarts).
 * Return: 0, 1 if the lock was dropped (the page may or may not be
 * there), -ENOMEM if both allocations failed.
 */
static int tdp_mmu_alloc_sp_for_split(struct nxsim__vm_mmu *mmu,
				      struct nxsim__mmu_memory_cache *cache,
				      bool shared)
{
	struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

	if (sp) {
		cache->objs[cache->nobjs++] = sp;
		return 0;
	}
	nxsim__rcu_read_unlock();
	nxsim__rw_unlock(&mmu->mmu_lock);
	nxsim__sched_point(mmu, NXSIM__SCHED_RESCHED, 0, 0);
	sp = nxsim__tdp_mmu_alloc_sp(mmu);
	if (shared)
		nxsim__read_lock(&mmu->mmu_lock);
	else
		nxsim__write_lock(&mmu->mmu_lock);
	nxsim__rcu_read_lock();
	if (!sp)
		return -ENOMEM;
	cache->objs[cache->nobjs++] = sp;
	return 1;
}

/*
 * tdp_mmu_split_huge_pages_root(), from @sp down (recursively): every
 * huge SPTE in [start, end) above @target_level is split one level down,
 * pre-order,
 * so a 1G page becomes 512 2M pages and each of those 512 4K pages.  The
 * children are the huge page's (make_huge_page_split_spte(): 4K children
 * executable), and the new table is neither flagged
 * nx_huge_page_disallowed nor tracked: 6.1's tdp_mmu_split_huge_page()
 * has no possible-NX accounting.  Return: 0, 1 when mmu_lock was dropped
 * (the caller restarts from the roots: the tables may have changed),
 * -ENOMEM.
 */
static int tdp_mmu_split_huge_pages_root(struct nxsim__vm_mmu *mmu,
					 struct nxsim__mmu_page *sp,
					 uint64_t start, uint64_t end,
					 int target_level, bool shared,
					 struct nxsim__mmu_memory_cache *cache)
{
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level), old;
	struct nxsim__mmu_page *child;
	unsigned int i;
	int r;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t gfn = sp->gfn + i * span;

		if (gfn >= end || gfn + span <= start)
			continue;
		if (!sp->parent)
			nxsim__sched_point(mmu, NXSIM__SCHED_RESCHED, gfn,
					   sp->level);
retry:
		old = nxsim__read_spte(&sp->spt[i]);
		if (is_shadow_present_pte(old) && is_large_pte(old)) {
			if (!cache->nobjs) {
				r = tdp_mmu_alloc_sp_for_split(mmu, cache,
							       shared);
				if (r)
					return r;
			}
			child = tdp_mmu_init_child_sp(mmu, cache, sp,
						      &sp->spt[i], gfn);
			child->made_req_level = NXSIM_PG_LEVEL_4K;
			if (tdp_mmu_split_huge_page(mmu, child, &old, shared)) {
				nxsim__mmu_cache_push(mmu, cache, child);
				goto retry;
			}
			old = nxsim__read_spte(&sp->spt[i]);
		}
		if (sp->level - 1 > target_level &&
		    is_shadow_present_pte(old) &&
		    !is_last_spte(old, sp->level)) {
			r = tdp_mmu_split_huge_pages_root(
				mmu, spte_to_child_sp(mmu, old), start, end,
				target_level, shared, cache);
			if (r)
				return r;
		}
	}
	return 0;
}

void nxsim__kvm_tdp_mmu_try_split_huge_pages(struct nxsim__vm_mmu *mmu,
					     const struct nxsim__memslot *slot,
					     uint64_t start, uint64_t end,
					     int target_level, bool shared)
{
	struct nxsim__mmu_memory_cache cache = { .nobjs = 0 };
	struct nxsim__mmu_page *root;
	int r;

	nxsim__rcu_read_lock();
restart:
	TAILQ_FOREACH(root, &mmu->roots, link) {
		if (root->invalid || kvm_mmu_page_as_id(root) != slot->as_id)
			continue;
		r = tdp_mmu_split_huge_pages_root(mmu, root, start, end,
						  target_level, shared, &cache);
		if (r == 1)
			goto restart;
		/* -ENOMEM: the kernel stops splitting, every root */
		if (r)
			break;
	}
	nxsim__rcu_read_unlock();
	/* a page a lost race left unused (tdp_mmu_free_sp()) */
	while (cache.nobjs)
		nxsim__tdp_mmu_free_cached_sp(mmu, &cache);
}

/*
 * The possible-NX accounting after linking @sp for a fault, under
 * tdp_mmu_pages_lock.  6.1 (@tag false): account_huge_nx_page() sets the
 * flag and tracks together.  6.2 on: the flag was set before the link and
 * is re-checked under the lock, so an SP a concurrent zap has already
 * unlinked (which cleared the flag) is not tracked.  A removed SP is never
 * tracked here: with NXSIM_BUG_TDP_FLAG_AFTER_LINK the kernel's code would
 * put a page that is being freed on the list; the model reports the huge
 * page that replaced it instead.
 */
static void account_nx(struct nxsim__vm_mmu *mmu,
		       struct nxsim__kvm_page_fault *f,
		       struct nxsim__mmu_page *sp, int level, bool tag)
{
	if (!f->huge_page_disallowed ||
	    (f->req_level < level &&
	     !nxsim__mmu_has_bug(mmu, NXSIM_BUG_TRACK_ANY_LEVEL)))
		return;
	nxsim__mutex_lock(&mmu->tdp_mmu_pages_lock, NXSIM__LOCK_TDP_MMU_PAGES);
	if (__atomic_load_n(&sp->removed, __ATOMIC_RELAXED)) {
		/* unlinked already */
	} else if (!tag) {
		/* account_huge_nx_page() of 6.1: flag iff tracked */
		if (!sp_nx_disallowed(sp)) {
			sp_set_nx_disallowed(sp, true);
			nxsim__track_possible_nx_huge_page(mmu, sp,
							   NXSIM__TDP_MMU);
		}
	} else if (sp_nx_disallowed(sp)) {
		nxsim__track_possible_nx_huge_page(mmu, sp, NXSIM__TDP_MMU);
	}
	nxsim__mutex_unlock(&mmu->tdp_mmu_pages_lock,
			    NXSIM__LOCK_TDP_MMU_PAGES);
}

/*
 * Whether a huge leaf at @level replacing @old would break the checker's
 * invariant 5 (the mitigation on, and the table @old points to flagged,
 * or its fault decided to flag it and had not yet: the window that
 * NXSIM_BUG_TDP_FLAG_AFTER_LINK opens).
 * Only a table still flagged blocks a huge page: recovery of a
 * dirty-logged SP clears the flag (eb298605705a), and the flag-checking
 * adjust (76901e56fb51) then lets it go.
 */
static bool huge_over_flagged_table(struct nxsim__vm_mmu *mmu, uint64_t old,
				    int level)
{
	struct nxsim__mmu_page *child;

	if (!is_shadow_present_pte(old) || is_last_spte(old, level))
		return false;
	child = spte_to_child_sp(mmu, old);
	return (sp_nx_disallowed(child) ||
		__atomic_load_n(&child->nx_flag_pending, __ATOMIC_RELAXED)) &&
	       nxsim__is_nx_huge_page_enabled(mmu);
}

int nxsim__kvm_tdp_mmu_map(struct nxsim__vm_mmu *mmu,
			   struct nxsim__mmu_memory_cache *mc,
			   struct nxsim__kvm_page_fault *f,
			   struct nxsim_access_info *info)
{
	bool shared = mmu->prof->fault_read_lock, tag, late_flag, bad;
	struct nxsim__mmu_page *sp = mmu->root[f->as_id], *child;
	int level = mmu->root_level, r;
	uint64_t *sptep, old, new;

	nxsim__kvm_mmu_hugepage_adjust(mmu, f);
	for (;;) {
		sptep = &sp->spt[spte_index(f->gfn, level)];
		old = nxsim__read_spte(sptep);
		nxsim__sched_point(mmu, NXSIM__SCHED_WALK, f->gfn, level);
		/* An SPTE frozen by another thread: retry the fault. */
		if (is_frozen_spte(old))
			return RET_PF_RETRY;
		if (f->nx_huge_page_workaround_enabled)
			nxsim__disallowed_hugepage_adjust(mmu, f, old, level);
		if (level == f->goal_level)
			break;
		if (is_shadow_present_pte(old) && !is_large_pte(old)) {
			sp = spte_to_child_sp(mmu, old);
			level--;
			continue;
		}
		if (is_shadow_present_pte(old) && !f->tdp_split) {
			/* the huge SPTE is zapped (6.1), then replaced */
			if (nxsim__tdp_mmu_zap_spte_atomic(mmu, sp, sptep, &old,
							   shared))
				return RET_PF_RETRY;
			MMU_COUNT(mmu, huge_zaps);
			info->zapped_huge++;
			old = nxsim__read_spte(sptep);
			if (is_shadow_present_pte(old) || is_frozen_spte(old))
				return RET_PF_RETRY;
		}
		/* the tree's tagging, read where a table is linked (rarely) */
		tag = mmu->prof->nx_tag_untracked &&
		      !nxsim__mmu_has_bug(mmu, NXSIM_BUG_UNTAGGED_NX);
		late_flag = tag && nxsim__mmu_has_bug(
					   mmu, NXSIM_BUG_TDP_FLAG_AFTER_LINK);
		child = tdp_mmu_init_child_sp(mmu, mc, sp, sptep, f->gfn);
		child->made_hpd = f->huge_page_disallowed;
		child->made_req_level = f->req_level;
		/* 61f94478547b: the flag before the SPTE is published */
		if (tag && !late_flag)
			child->nx_huge_page_disallowed =
				f->huge_page_disallowed;
		else if (late_flag)
			child->nx_flag_pending = f->huge_page_disallowed;
		if (is_shadow_present_pte(old)) {
			nxsim__sched_point(mmu, NXSIM__SCHED_LINK, f->gfn,
					   level);
			r = tdp_mmu_split_huge_page(mmu, child, &old, shared);
			if (!r) {
				info->splits++;
				MMU_COUNT(mmu, splits);
			}
		} else {
			nxsim__sp_clear(child);
			nxsim__sched_point(mmu, NXSIM__SCHED_LINK, f->gfn,
					   level);
			r = tdp_mmu_link_sp(mmu, child, &old, shared);
		}
		if (r) {
			/* tdp_mmu_free_sp(): never published; back to the cache */
			nxsim__mmu_cache_push(mmu, mc, child);
			return RET_PF_RETRY;
		}
		nxsim__sched_point(mmu, NXSIM__SCHED_LINKED, f->gfn, level);
		if (late_flag && f->huge_page_disallowed) {
			sp_set_nx_disallowed(child, true);
			__atomic_store_n(&child->nx_flag_pending, false,
					 __ATOMIC_RELAXED);
		}
		account_nx(mmu, f, child, level, tag);
		sp = child;
		level--;
	}

	/* tdp_mmu_map_handle_target_level() */
	nxsim__sched_point(mmu, NXSIM__SCHED_TARGET, f->gfn, level);
	if (!f->slot)
		new = nxsim__make_mmio_spte(&mmu->mmio, f->mmio_gen, f->gfn,
					    ACC_ALL);
	else
		new = nxsim__make_spte(mmu->fmt, level, f->pfn, ACC_ALL,
				       f->map_writable,
				       nxsim__is_nx_huge_page_enabled(mmu));
	/* make_spte(): a writable 4K SPTE logs its gfn */
	if (f->slot && is_writable_pte(new))
		nxsim__mark_page_dirty_in_slot(f->slot, f->gfn);
	info->level = level;
	if (new == old) {
		info->outcome = NXSIM_ACCESS_SPURIOUS;
		return RET_PF_SPURIOUS;
	}
	bad = huge_over_flagged_table(mmu, old, level);
	if (!shared)
		nxsim__tdp_mmu_set_spte(mmu, sp, sptep, new);
	else if (nxsim__tdp_mmu_set_spte_atomic(mmu, sp, sptep, &old, new))
		return RET_PF_RETRY;
	if (bad)
		nxsim__mmu_event(
			mmu,
			"invariant 5: huge SPTE at level %d gfn 0x%" PRIx64
			" replaced a table flagged "
			"nx_huge_page_disallowed",
			level, f->gfn);
	/* tdp_mmu_map_handle_target_level(): a table became a huge leaf */
	if (is_shadow_present_pte(old) && !is_last_spte(old, level))
		nxsim__kvm_flush_remote_tlbs_range(
			mmu, sp->gfn, KVM_PAGES_PER_HPAGE(level + 1));
	info->outcome = NXSIM_ACCESS_FAULT;
	if (!f->slot) /* an MMIO SPTE (the caller counts it), RET_PF_EMULATE */
		info->outcome = NXSIM_ACCESS_EMULATE;
	return RET_PF_FIXED;
}
