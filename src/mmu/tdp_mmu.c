// SPDX-License-Identifier: GPL-2.0-only
/*
 * TDP MMU page tables (arch/x86/kvm/mmu/tdp_mmu.c, tdp_iter.c):
 * page-table pages and their frames (freed pages wait on a bounded per-VM
 * reserve for the next topup), roots, SPTE changes with their stat
 * and teardown side effects (handle_changed_spte(), handle_removed_pt(),
 * tdp_mmu_unlink_sp()), zapping an SP through its parent SPTE, zapping
 * leaves of a gfn range, the dirty-logging walks, and the map of a fault:
 * kvm_tdp_mmu_map() with tdp_mmu_map_handle_target_level(), the in-place
 * split of a huge SPTE (tdp_mmu_split_huge_page(), 6.2) or its zap
 * (before), and the possible-NX accounting of the tables it links.
 *
 * Everything runs with mmu_lock held for write; the kernel's atomic
 * (shared-lock) variants, RCU-deferred frees, yielding and the frozen-SPTE
 * protocol are left out, as is the removal of roots by refcount (roots are
 * torn down at once when invalidated).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

/* A free frame index, growing the table if needed; false on -ENOMEM. */
static bool frame_get(struct nxsim__vm_mmu *mmu, uint32_t *id)
{
	uint32_t cap = mmu->cap_frames ? mmu->cap_frames * 2 : 64;
	struct nxsim__frame *frames;

	if (mmu->free_frame != NXSIM__NO_FRAME) {
		*id = mmu->free_frame;
		mmu->free_frame = mmu->frames[*id].next_free;
		return true;
	}
	if (mmu->nr_frames == mmu->cap_frames) {
		frames = nxsim__realloc(mmu->frames,
					mmu->cap_frames * sizeof(*frames),
					cap * sizeof(*frames));
		if (!frames)
			return false;
		mmu->frames = frames;
		mmu->cap_frames = cap;
	}
	*id = mmu->nr_frames++;
	return true;
}

static void frame_put(struct nxsim__vm_mmu *mmu, uint32_t id)
{
	mmu->frames[id].sp = NULL;
	mmu->frames[id].next_free = mmu->free_frame;
	mmu->free_frame = id;
}

/*
 * Under ASan a reserved page is poisoned but for its reserve link, so
 * that a stale pointer to a zapped page is still reported although its
 * memory was not freed.
 */
#if defined(__SANITIZE_ADDRESS__)
static void sp_poison(struct nxsim__mmu_page *sp, bool poison)
{
	char *link = (char *)&sp->link, *end = (char *)(sp + 1);
	uint64_t *spt;

	if (!poison) {
		ASAN_UNPOISON_MEMORY_REGION(sp, sizeof(*sp));
		ASAN_UNPOISON_MEMORY_REGION(sp->spt, SPTE_ENT_PER_PAGE *
							     sizeof(uint64_t));
		return;
	}
	spt = sp->spt;
	ASAN_POISON_MEMORY_REGION(spt, SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	ASAN_POISON_MEMORY_REGION(sp, link - (char *)sp);
	link += sizeof(sp->link);
	ASAN_POISON_MEMORY_REGION(link, end - link);
}
#else
static void sp_poison(struct nxsim__mmu_page *sp, bool poison)
{
	(void)sp;
	(void)poison;
}
#endif

static void sp_release(struct nxsim__mmu_page *sp)
{
	nxsim__free(sp->spt, SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	nxsim__free(sp, sizeof(*sp));
}

/* The newest reserved page, off the reserve and unpoisoned. */
static struct nxsim__mmu_page *reserve_pop(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp = TAILQ_FIRST(&mmu->reserve);

	sp_poison(sp, false);
	TAILQ_REMOVE(&mmu->reserve, sp, link);
	mmu->nr_reserve--;
	return sp;
}

/* A page with a zeroed header: reserved, or from the allocator. */
static struct nxsim__mmu_page *sp_get(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp;
	uint64_t *spt;

	if (mmu->nr_reserve) {
		sp = reserve_pop(mmu);
		spt = sp->spt;
		*sp = (struct nxsim__mmu_page){ .spt = spt };
		return sp;
	}
	sp = nxsim__zalloc(sizeof(*sp));
	if (!sp)
		return NULL;
	sp->spt = nxsim__alloc(SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	if (!sp->spt) {
		nxsim__free(sp, sizeof(*sp));
		return NULL;
	}
	return sp;
}

static void sp_put(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp)
{
	if (mmu->nr_reserve < NXSIM__SP_RESERVE_MAX) {
		TAILQ_INSERT_HEAD(&mmu->reserve, sp, link);
		mmu->nr_reserve++;
		sp_poison(sp, true);
	} else {
		sp_release(sp);
	}
}

struct nxsim__mmu_page *nxsim__tdp_mmu_alloc_sp(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp = sp_get(mmu);
	uint32_t id;

	if (!sp)
		return NULL;
	if (!frame_get(mmu, &id)) {
		sp_put(mmu, sp);
		return NULL;
	}
	sp->id = id;
	mmu->frames[id].sp = sp;
	sp->direct = true;
	sp->tdp_mmu_page = true;
	mmu->nr_sps++;
	return sp;
}

void nxsim__sp_clear(struct nxsim__mmu_page *sp)
{
	uint64_t *spt = sp->spt; /* not reloaded per entry: vectorised */
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		spt[i] = SHADOW_NONPRESENT_VALUE;
}

void nxsim__tdp_mmu_free_sp(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp)
{
	frame_put(mmu, sp->id);
	mmu->nr_sps--;
	sp_put(mmu, sp);
}

void nxsim__tdp_mmu_trim_reserve(struct nxsim__vm_mmu *mmu, unsigned int keep)
{
	while (mmu->nr_reserve > keep)
		sp_release(reserve_pop(mmu));
}

/*
 * tdp_mmu_unlink_sp(): clear the flag and untrack.  As in the kernel, the
 * lock is taken only for a flagged SP: every writer of the flag holds
 * mmu_lock for write, as this path does.
 */
static void tdp_mmu_unlink_sp(struct nxsim__vm_mmu *mmu,
			      struct nxsim__mmu_page *sp)
{
	if (!sp->nx_huge_page_disallowed)
		return;
	pthread_mutex_lock(&mmu->tdp_mmu_pages_lock);
	sp->nx_huge_page_disallowed = false;
	nxsim__untrack_possible_nx_huge_page(mmu, sp, NXSIM__TDP_MMU);
	pthread_mutex_unlock(&mmu->tdp_mmu_pages_lock);
}

static void handle_changed_spte(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, uint64_t old,
				uint64_t new);

/*
 * handle_removed_pt(): a table left the paging structure.  Its leaves
 * leave the page stats (counted by @nr_leaves, so a table of leaves is
 * not read again) and its child tables are removed in turn.
 */
static void handle_removed_pt(struct nxsim__vm_mmu *mmu,
			      struct nxsim__mmu_page *sp)
{
	unsigned int i;

	tdp_mmu_unlink_sp(mmu, sp);
	if (sp->nr_leaves)
		mmu->pages[sp->level - 1] -= sp->nr_leaves;
	for (i = 0; sp->level > NXSIM_PG_LEVEL_4K && i < SPTE_ENT_PER_PAGE;
	     i++) {
		uint64_t spte = sp->spt[i];

		if (is_shadow_present_pte(spte) && !is_large_pte(spte))
			handle_removed_pt(mmu, spte_to_child_sp(mmu, spte));
	}
	nxsim__tdp_mmu_free_sp(mmu, sp);
}

/* handle_changed_spte(): page stats and removed page tables. */
static void handle_changed_spte(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, uint64_t old,
				uint64_t new)
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
		if (is_leaf) {
			mmu->pages[level - 1]++;
			sp->nr_leaves++;
		} else {
			mmu->pages[level - 1]--;
			sp->nr_leaves--;
		}
	}
	if (was_present && !was_leaf && (is_leaf || !is_present || pfn_changed))
		handle_removed_pt(mmu, spte_to_child_sp(mmu, old));
}

void nxsim__tdp_mmu_set_spte(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp, uint64_t *sptep,
			     uint64_t new)
{
	uint64_t old = *sptep;

	WRITE_ONCE(*sptep, new);
	handle_changed_spte(mmu, sp, old, new);
}

void nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp)
{
	nxsim__sp_clear(sp);
	sp->level = mmu->root_level;
	sp->gfn = 0;
	sp->root_count = 1;
	TAILQ_INSERT_TAIL(&mmu->roots, sp, link);
	mmu->root = sp;
}

void nxsim__tdp_mmu_zap_all_roots(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *root;

	TAILQ_FOREACH(root, &mmu->roots, link)
		root->invalid = true;
	mmu->root = NULL;
	while ((root = TAILQ_FIRST(&mmu->roots))) {
		TAILQ_REMOVE(&mmu->roots, root, link);
		handle_removed_pt(mmu, root);
	}
}

bool nxsim__kvm_tdp_mmu_zap_sp(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp)
{
	uint64_t old;

	if (WARN_ON(!sp->ptep))
		return false;
	old = *sp->ptep;
	/* The parent no longer points here: nothing to do. */
	if (!is_shadow_present_pte(old) || is_large_pte(old) ||
	    spte_to_pfn(old) != sp_pfn(sp))
		return false;
	nxsim__tdp_mmu_set_spte(mmu, sp->parent, sp->ptep,
				SHADOW_NONPRESENT_VALUE);
	return true;
}

/*
 * Visit every present SPTE of @sp overlapping [start, end), top-down; @fn
 * returns true to skip the SPTE's subtree (it was changed).
 */
typedef bool (*walk_fn)(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			uint64_t *sptep, uint64_t gfn, void *ctx);

static void walk(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		 uint64_t start, uint64_t end, walk_fn fn, void *ctx)
{
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level);
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t gfn = sp->gfn + i * span, spte = sp->spt[i];

		if (gfn >= end || gfn + span <= start ||
		    !is_shadow_present_pte(spte))
			continue;
		if (fn(mmu, sp, &sp->spt[i], gfn, ctx))
			continue;
		spte = sp->spt[i];
		if (is_shadow_present_pte(spte) &&
		    !is_last_spte(spte, sp->level))
			walk(mmu, spte_to_child_sp(mmu, spte), start, end, fn,
			     ctx);
	}
}

static void walk_roots(struct nxsim__vm_mmu *mmu, uint64_t start, uint64_t end,
		       walk_fn fn, void *ctx)
{
	struct nxsim__mmu_page *root;

	TAILQ_FOREACH(root, &mmu->roots, link)
		walk(mmu, root, start, end, fn, ctx);
}

static bool zap_leaf(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		     uint64_t *sptep, uint64_t gfn, void *ctx)
{
	(void)gfn;
	if (!is_last_spte(*sptep, sp->level))
		return false;
	nxsim__tdp_mmu_set_spte(mmu, sp, sptep, SHADOW_NONPRESENT_VALUE);
	*(bool *)ctx = true;
	return true;
}

bool nxsim__kvm_tdp_mmu_zap_leafs(struct nxsim__vm_mmu *mmu, uint64_t start,
				  uint64_t end)
{
	bool flush = false;

	walk_roots(mmu, start, end, zap_leaf, &flush);
	return flush;
}

/*
 * Dirty logging on, kvm_mmu_slot_apply_flags(): with PML (EPT, whose SPTEs
 * have A/D bits), kvm_mmu_slot_leaf_clear_dirty() clears D on every leaf,
 * huge ones too (clear_dirty_gfn_range()), then kvm_tdp_mmu_wrprot_slot()
 * at min_level 2M clears W on the huge ones; without PML (NPT), it runs
 * at 4K: every leaf loses W and keeps D.
 */
static bool wrprot_leaf(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			uint64_t *sptep, uint64_t gfn, void *ctx)
{
	int level = sp->level;
	const struct nxsim__spte_masks *m = nxsim__spte_masks(mmu->fmt);
	bool pml = mmu->fmt == NXSIM_SPTE_EPT;
	uint64_t spte = *sptep;

	(void)gfn;
	(void)ctx;
	if (!is_last_spte(spte, level))
		return false;
	if (pml)
		spte &= ~m->dirty;
	if (!pml || level > NXSIM_PG_LEVEL_4K)
		spte = nxsim__spte_wrprot(spte);
	WRITE_ONCE(*sptep, spte);
	return true;
}

void nxsim__tdp_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot)
{
	walk_roots(mmu, slot->base_gfn, slot->base_gfn + slot->npages,
		   wrprot_leaf, NULL);
}

/* The first present leaf below a non-leaf SPTE (tdp_mmu_make_huge_spte()). */
static bool first_leaf(struct nxsim__vm_mmu *mmu, uint64_t spte, int level,
		       uint64_t *leaf)
{
	struct nxsim__mmu_page *sp = spte_to_child_sp(mmu, spte);
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t c = sp->spt[i];

		if (!is_shadow_present_pte(c))
			continue;
		if (is_last_spte(c, level - 1)) {
			*leaf = c;
			return true;
		}
		if (first_leaf(mmu, c, level - 1, leaf))
			return true;
	}
	return false;
}

/*
 * Disabling dirty logging: zap_collapsible_spte_range() (non-leaf SPTEs
 * that could be huge are zapped, to refault huge), or, from 6.13,
 * recover_huge_pages_range() (they are replaced by a huge SPTE made from
 * a leaf below them, without exec when the mitigation is on).
 */
struct collapse_ctx {
	const struct nxsim__memslot *slot;
	bool flush;
};

static bool collapse(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		     uint64_t *sptep, uint64_t gfn, void *ctx)
{
	struct collapse_ctx *c = ctx;
	const struct nxsim__memslot *slot = c->slot;
	int level = sp->level;
	uint64_t leaf;

	if (level > NXSIM_PG_LEVEL_1G || level == NXSIM_PG_LEVEL_4K ||
	    is_last_spte(*sptep, level))
		return false;
	if (gfn < slot->base_gfn || gfn >= slot->base_gfn + slot->npages)
		return false;
	if (nxsim__kvm_mmu_max_mapping_level(mmu, slot, gfn,
					     NXSIM_PG_LEVEL_1G) < level)
		return false;
	if (!mmu->prof->recover_huge_in_place) {
		nxsim__tdp_mmu_set_spte(mmu, sp, sptep,
					SHADOW_NONPRESENT_VALUE);
		/* tdp_mmu_zap_spte_atomic() flushes each zap. */
		nxsim__kvm_flush_remote_tlbs_range(mmu, gfn,
						   KVM_PAGES_PER_HPAGE(level));
		return true;
	}
	if (!first_leaf(mmu, *sptep, level, &leaf))
		return false;
	nxsim__tdp_mmu_set_spte(
		mmu, sp, sptep,
		nxsim__make_huge_spte(mmu->fmt, leaf, level,
				      nxsim__is_nx_huge_page_enabled(mmu)));
	c->flush = true;
	return true;
}

void nxsim__tdp_mmu_collapse_slot(struct nxsim__vm_mmu *mmu,
				  const struct nxsim__memslot *slot)
{
	struct collapse_ctx c = { .slot = slot };

	walk_roots(mmu, slot->base_gfn, slot->base_gfn + slot->npages, collapse,
		   &c);
	/* recover_huge_pages_range(): one kvm_flush_remote_tlbs_memslot() */
	if (c.flush)
		nxsim__kvm_flush_remote_tlbs_range(mmu, slot->base_gfn,
						   slot->npages);
}

void nxsim__tdp_mmu_release(struct nxsim__vm_mmu *mmu)
{
	nxsim__free(mmu->frames, mmu->cap_frames * sizeof(*mmu->frames));
	mmu->frames = NULL;
	mmu->cap_frames = mmu->nr_frames = 0;
	mmu->free_frame = NXSIM__NO_FRAME;
}

/* tdp_mmu_alloc_sp() from the cache + tdp_mmu_init_child_sp(). */
static struct nxsim__mmu_page *
tdp_mmu_init_child_sp(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *parent,
		      uint64_t *ptep, uint64_t gfn)
{
	struct nxsim__mmu_page *sp = mmu->cache[--mmu->nr_cache];
	int level = parent->level - 1;

	sp->parent = parent;
	sp->level = level;
	sp->gfn = gfn & ~(KVM_PAGES_PER_HPAGE(level + 1) - 1);
	sp->ptep = ptep;
	return sp;
}

/* tdp_mmu_split_huge_page(): fill @sp from @huge, then link it. */
static void tdp_mmu_split_huge_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp, uint64_t huge)
{
	nxsim__make_split_sptes(mmu->fmt, huge, sp->level,
				nxsim__is_nx_huge_page_enabled(mmu), sp->spt);
	nxsim__tdp_mmu_set_spte(mmu, sp->parent, sp->ptep,
				nxsim__make_nonleaf_spte(mmu->fmt, sp_pfn(sp)));
	mmu->pages[sp->level - 1] += SPTE_ENT_PER_PAGE;
	sp->nr_leaves = SPTE_ENT_PER_PAGE;
	mmu->counters.splits++;
}

/* The possible-NX accounting after linking @sp for a fault. */
static void account_nx(struct nxsim__vm_mmu *mmu,
		       struct nxsim__kvm_page_fault *f,
		       struct nxsim__mmu_page *sp, int level, bool tag)
{
	if (!f->huge_page_disallowed ||
	    (f->req_level < level &&
	     !nxsim__mmu_has_bug(mmu, NXSIM_BUG_TRACK_ANY_LEVEL)))
		return;
	pthread_mutex_lock(&mmu->tdp_mmu_pages_lock);
	if (!tag) {
		/* account_huge_nx_page() of 6.1: flag iff tracked */
		if (!sp->nx_huge_page_disallowed) {
			sp->nx_huge_page_disallowed = true;
			nxsim__track_possible_nx_huge_page(mmu, sp,
							   NXSIM__TDP_MMU);
		}
	} else if (sp->nx_huge_page_disallowed) {
		nxsim__track_possible_nx_huge_page(mmu, sp, NXSIM__TDP_MMU);
	}
	pthread_mutex_unlock(&mmu->tdp_mmu_pages_lock);
}

void nxsim__kvm_tdp_mmu_map(struct nxsim__vm_mmu *mmu,
			    struct nxsim__kvm_page_fault *f,
			    struct nxsim_access_info *info)
{
	const struct nxsim__mmu_profile *prof = mmu->prof;
	bool tag = prof->nx_tag_untracked &&
		   !nxsim__mmu_has_bug(mmu, NXSIM_BUG_UNTAGGED_NX);
	struct nxsim__mmu_page *sp = mmu->root, *child;
	int level = mmu->root_level;
	uint64_t *sptep, old, new;

	nxsim__kvm_mmu_hugepage_adjust(mmu, f);
	for (;;) {
		sptep = &sp->spt[spte_index(f->gfn, level)];
		old = *sptep;
		if (f->nx_huge_page_workaround_enabled)
			nxsim__disallowed_hugepage_adjust(mmu, f, old, level);
		if (level == f->goal_level)
			break;
		if (is_shadow_present_pte(old) && !is_large_pte(old)) {
			sp = spte_to_child_sp(mmu, old);
			level--;
			continue;
		}
		child = tdp_mmu_init_child_sp(mmu, sp, sptep, f->gfn);
		child->made_hpd = f->huge_page_disallowed;
		child->made_req_level = f->req_level;
		if (tag)
			child->nx_huge_page_disallowed =
				f->huge_page_disallowed;
		if (is_shadow_present_pte(old) && prof->tdp_split_on_fault) {
			tdp_mmu_split_huge_page(mmu, child, old);
			info->splits++;
		} else {
			nxsim__sp_clear(child);
			if (is_shadow_present_pte(old)) {
				/* tdp_mmu_zap_spte_atomic() of 6.1 */
				nxsim__tdp_mmu_set_spte(
					mmu, sp, sptep,
					SHADOW_NONPRESENT_VALUE);
				mmu->counters.huge_zaps++;
				info->zapped_huge++;
				nxsim__kvm_flush_remote_tlbs_range(
					mmu,
					f->gfn & ~(KVM_PAGES_PER_HPAGE(level) -
						   1),
					KVM_PAGES_PER_HPAGE(level));
			}
			nxsim__tdp_mmu_set_spte(
				mmu, sp, sptep,
				nxsim__make_nonleaf_spte(mmu->fmt,
							 sp_pfn(child)));
		}
		account_nx(mmu, f, child, level, tag);
		sp = child;
		level--;
	}

	new = nxsim__make_spte(mmu->fmt, level, f->pfn, ACC_ALL,
			       f->map_writable,
			       nxsim__is_nx_huge_page_enabled(mmu));
	info->level = level;
	if (new == old) {
		info->outcome = NXSIM_ACCESS_SPURIOUS;
		return;
	}
	if (is_shadow_present_pte(old) && !is_last_spte(old, level)) {
		child = spte_to_child_sp(mmu, old);
		/*
		 * Only a table still flagged blocks a huge page: recovery of
		 * a dirty-logged SP clears the flag (eb298605705a), and the
		 * flag-checking adjust (76901e56fb51) then lets it go.
		 */
		if (child->nx_huge_page_disallowed &&
		    nxsim__is_nx_huge_page_enabled(mmu))
			nxsim__mmu_event(
				mmu,
				"invariant 5: huge SPTE at level %d gfn 0x%" PRIx64
				" replaced a table flagged "
				"nx_huge_page_disallowed",
				level, f->gfn);
	}
	nxsim__tdp_mmu_set_spte(mmu, sp, sptep, new);
	/* tdp_mmu_map_handle_target_level(): a table became a huge leaf */
	if (is_shadow_present_pte(old) && !is_last_spte(old, level))
		nxsim__kvm_flush_remote_tlbs_range(
			mmu, sp->gfn, KVM_PAGES_PER_HPAGE(level + 1));
	info->outcome = NXSIM_ACCESS_FAULT;
}
