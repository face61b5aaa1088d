// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TDP MMU's walks over a gfn range (arch/x86/kvm/mmu/tdp_mmu.c,
 * tdp_iter.c): zapping the leaves of a range (kvm_tdp_mmu_zap_leafs(),
 * the MMU notifier's), the dirty-logging walks (write protection of a
 * slot, and the masked ones of KVM_GET_DIRTY_LOG / KVM_CLEAR_DIRTY_LOG:
 * clear_dirty_pt_masked(), write_protect_gfn()), and the zap of leaves
 * that could be huge again when dirty logging stops
 * (recover_huge_pages_range() / zap_collapsible_spte_range(), by
 * profile).  Each visits the roots of the slot's address space top-down
 * and offers each root entry to the scheduling hook as a
 * tdp_mmu_iter_cond_resched() point, without dropping mmu_lock.  Under
 * the read lock SPTEs change by compare-and-exchange (tdp_mmu.c).
 *
 * Left out: yielding mmu_lock inside a walk (nothing in the model needs
 * the CPU back).
 */
#include <inttypes.h>

#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/tdp_mmu.h"

/*
 * Visit every present SPTE of @sp overlapping [start, end), top-down; @fn
 * gets the value read (atomically: with @shared, others change SPTEs
 * meanwhile) and returns true to skip the SPTE's subtree (it was changed).
 * Each entry of a root is a tdp_mmu_iter_cond_resched() point, offered to
 * the scheduling hook (the walk keeps mmu_lock there).
 */
typedef bool (*walk_fn)(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			uint64_t *sptep, uint64_t spte, uint64_t gfn,
			void *ctx);

static void walk(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		 uint64_t start, uint64_t end, walk_fn fn, void *ctx)
{
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level);
	bool root = !sp->parent;
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t gfn = sp->gfn + i * span, spte;

		if (gfn >= end || gfn + span <= start)
			continue;
		if (root)
			nxsim__sched_point(mmu, NXSIM__SCHED_RESCHED, gfn,
					   sp->level);
		spte = nxsim__read_spte(&sp->spt[i]);
		if (!is_shadow_present_pte(spte))
			continue;
		if (fn(mmu, sp, &sp->spt[i], spte, gfn, ctx))
			continue;
		spte = nxsim__read_spte(&sp->spt[i]);
		if (is_shadow_present_pte(spte) &&
		    !is_last_spte(spte, sp->level))
			walk(mmu, spte_to_child_sp(mmu, spte), start, end, fn,
			     ctx);
	}
}

/* for_each_tdp_mmu_root(kvm, root, as_id): the roots of one space. */
static void walk_roots(struct nxsim__vm_mmu *mmu, int as_id, uint64_t start,
		       uint64_t end, walk_fn fn, void *ctx)
{
	struct nxsim__mmu_page *root;

	nxsim__rcu_read_lock();
	TAILQ_FOREACH(root, &mmu->roots, link)
		if (kvm_mmu_page_as_id(root) == as_id)
			walk(mmu, root, start, end, fn, ctx);
	nxsim__rcu_read_unlock();
}

struct zap_range {
	uint64_t start, end;
	bool flush;
};

/*
 * A leaf is zapped; on 5.10 (zap_gfn_range()) so is a non-leaf SPTE
 * whose range lies inside the zapped one, with its table.
 */
static bool zap_leaf(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		     uint64_t *sptep, uint64_t spte, uint64_t gfn, void *ctx)
{
	struct zap_range *z = ctx;

	if (!is_last_spte(spte, sp->level) &&
	    (!mmu->prof->notifier_zaps_tables || gfn < z->start ||
	     gfn + KVM_PAGES_PER_HPAGE(sp->level) > z->end))
		return false;
	nxsim__tdp_mmu_set_spte(mmu, sp, sptep, SHADOW_NONPRESENT_VALUE);
	z->flush = true;
	return true;
}

bool nxsim__kvm_tdp_mmu_zap_leafs(struct nxsim__vm_mmu *mmu, int as_id,
				  uint64_t start, uint64_t end)
{
	struct zap_range z = { start, end, false };

	walk_roots(mmu, as_id, start, end, zap_leaf, &z);
	return z.flush;
}

/*
 * Change a leaf with @make until it sticks: under the read lock, a failed
 * compare-and-exchange re-reads the SPTE and tries again ("goto retry" of
 * the kernel's walks), giving up when it is no longer a present leaf.
 */
static void leaf_update(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			uint64_t *sptep, uint64_t spte,
			uint64_t (*make)(struct nxsim__vm_mmu *mmu,
					 uint64_t spte, int level))
{
	bool shared = mmu->prof->dirty_log_read_lock;
	uint64_t new;

	do {
		if (!is_shadow_present_pte(spte) ||
		    !is_last_spte(spte, sp->level))
			return;
		new = make(mmu, spte, sp->level);
		if (new == spte)
			return;
		if (!shared) {
			nxsim__tdp_mmu_set_spte(mmu, sp, sptep, new);
			return;
		}
	} while (nxsim__tdp_mmu_set_spte_atomic(mmu, sp, sptep, &spte, new));
}

/*
 * Dirty logging on, kvm_mmu_slot_apply_flags(): with PML (EPT, whose SPTEs
 * have A/D bits), kvm_mmu_slot_leaf_clear_dirty() clears D on every leaf,
 * huge ones too (clear_dirty_gfn_range()), then kvm_tdp_mmu_wrprot_slot()
 * at min_level 2M clears W on the huge ones; without PML (NPT), it runs
 * at 4K: every leaf loses W and keeps D.
 */
static uint64_t wrprot_spte(struct nxsim__vm_mmu *mmu, uint64_t spte, int level)
{
	bool pml = mmu->fmt == NXSIM_SPTE_EPT;

	if (pml)
		spte &= ~nxsim__spte_masks(mmu->fmt)->dirty;
	if (!pml || level > NXSIM_PG_LEVEL_4K)
		spte = nxsim__spte_wrprot(spte);
	return spte;
}

static bool wrprot_leaf(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			uint64_t *sptep, uint64_t spte, uint64_t gfn, void *ctx)
{
	(void)gfn;
	(void)ctx;
	if (!is_last_spte(spte, sp->level))
		return false;
	leaf_update(mmu, sp, sptep, spte, wrprot_spte);
	return true;
}

void nxsim__kvm_tdp_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				    const struct nxsim__memslot *slot)
{
	walk_roots(mmu, slot->as_id, slot->base_gfn,
		   slot->base_gfn + slot->npages, wrprot_leaf, NULL);
}

/*
 * clear_dirty_pt_masked(): each 4K leaf of a gfn @gfn + bit of @mask
 * loses D (A/D bits, PML) or, with @wrprot or without A/D bits (NPT here:
 * no PML), W; plain stores under the write lock
 * (tdp_mmu_set_spte_no_dirty_log()).  The walk starts at the first bit
 * and visits each 4K gfn once per root.
 */
struct clear_dirty_ctx {
	uint64_t gfn;
	uint64_t mask;
	bool wrprot;
};

static bool clear_dirty_leaf(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp, uint64_t *sptep,
			     uint64_t spte, uint64_t gfn, void *ctx)
{
	struct clear_dirty_ctx *c = ctx;
	uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty, bit;

	if (!is_last_spte(spte, sp->level))
		return false;
	if (sp->level > NXSIM_PG_LEVEL_4K)
		return true;
	bit = 1ull << (gfn - c->gfn);
	if (!(c->mask & bit))
		return true;
	if (c->wrprot || mmu->fmt != NXSIM_SPTE_EPT) {
		if (is_writable_pte(spte))
			nxsim__tdp_mmu_set_spte(mmu, sp, sptep,
						nxsim__spte_wrprot(spte));
	} else if (spte & d) {
		nxsim__tdp_mmu_set_spte(mmu, sp, sptep, spte & ~d);
	}
	return true;
}

void nxsim__kvm_tdp_mmu_clear_dirty_pt_masked(struct nxsim__vm_mmu *mmu,
					      const struct nxsim__memslot *slot,
					      uint64_t gfn, uint64_t mask,
					      bool wrprot)
{
	struct clear_dirty_ctx c = { gfn, mask, wrprot };

	walk_roots(mmu, slot->as_id, gfn + (uint64_t)__builtin_ctzll(mask),
		   gfn + 64, clear_dirty_leaf, &c);
}

/*
 * write_protect_gfn(): the leaves mapping @gfn at min_level or above lose
 * W and MMU-writable.  A root has one leaf over @gfn, so the kernel's
 * stop at a leaf already without them ends that root's walk, as here.
 */
struct wrprot_gfn_ctx {
	int min_level;
	bool spte_set;
};

static bool wrprot_gfn_leaf(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, uint64_t *sptep,
			    uint64_t spte, uint64_t gfn, void *ctx)
{
	struct wrprot_gfn_ctx *c = ctx;
	uint64_t new;

	(void)gfn;
	if (sp->level < c->min_level)
		return true;
	if (!is_last_spte(spte, sp->level))
		return false;
	new = spte &
	      ~(PT_WRITABLE_MASK | nxsim__spte_masks(mmu->fmt)->mmu_writable);
	if (new == spte)
		return true;
	nxsim__tdp_mmu_set_spte(mmu, sp, sptep, new);
	c->spte_set = true;
	return true;
}

bool nxsim__kvm_tdp_mmu_write_protect_gfn(struct nxsim__vm_mmu *mmu,
					  const struct nxsim__memslot *slot,
					  uint64_t gfn, int min_level)
{
	struct wrprot_gfn_ctx c = { .min_level = min_level };

	walk_roots(mmu, slot->as_id, gfn, gfn + 1, wrprot_gfn_leaf, &c);
	return c.spte_set;
}

/* The first present leaf below a non-leaf SPTE (tdp_mmu_make_huge_spte()). */
static bool first_leaf(struct nxsim__vm_mmu *mmu, uint64_t spte, int level,
		       uint64_t *leaf)
{
	struct nxsim__mmu_page *sp = spte_to_child_sp(mmu, spte);
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t c = nxsim__read_spte(&sp->spt[i]);

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
 * that could be huge are zapped, to refault huge: tdp_mmu_zap_spte_atomic()
 * under the read lock), or, from 6.13, recover_huge_pages_range() (they
 * are replaced by a huge SPTE made from a leaf below them, without exec
 * when the mitigation is on).  A lost race retries the SPTE.
 */
struct collapse_ctx {
	const struct nxsim__memslot *slot;
	bool flush;
};

static bool collapse(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		     uint64_t *sptep, uint64_t spte, uint64_t gfn, void *ctx)
{
	struct collapse_ctx *c = ctx;
	const struct nxsim__memslot *slot = c->slot;
	bool shared = mmu->prof->dirty_log_read_lock;
	int level = sp->level;
	uint64_t leaf;

	if (level > NXSIM_PG_LEVEL_1G || level == NXSIM_PG_LEVEL_4K)
		return false;
	if (gfn < slot->base_gfn || gfn >= slot->base_gfn + slot->npages)
		return false;
	if (nxsim__kvm_mmu_max_mapping_level(mmu, slot, gfn,
					     NXSIM_PG_LEVEL_1G) < level)
		return false;
	for (;;) {
		if (!is_shadow_present_pte(spte) || is_last_spte(spte, level))
			return false;
		if (!mmu->prof->recover_huge_in_place) {
			if (!nxsim__tdp_mmu_zap_spte_atomic(mmu, sp, sptep,
							    &spte, shared))
				return true;
			continue;
		}
		if (!first_leaf(mmu, spte, level, &leaf))
			return false;
		leaf = nxsim__make_huge_spte(
			mmu->fmt, leaf, level,
			nxsim__is_nx_huge_page_enabled(mmu));
		if (!shared) {
			nxsim__tdp_mmu_set_spte(mmu, sp, sptep, leaf);
			c->flush = true;
			return true;
		}
		if (!nxsim__tdp_mmu_set_spte_atomic(mmu, sp, sptep, &spte,
						    leaf)) {
			c->flush = true;
			return true;
		}
	}
}

void nxsim__kvm_tdp_mmu_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					      const struct nxsim__memslot *slot)
{
	struct collapse_ctx c = { .slot = slot };

	/* 5.10: PageTransCompoundMap() of a page-table page is false */
	if (mmu->prof->tdp_collapse_tests_table_pfn)
		return;
	walk_roots(mmu, slot->as_id, slot->base_gfn,
		   slot->base_gfn + slot->npages, collapse, &c);
	/* recover_huge_pages_range(): one kvm_flush_remote_tlbs_memslot() */
	if (c.flush)
		nxsim__kvm_flush_remote_tlbs_range(mmu, slot->base_gfn,
						   slot->npages);
}
