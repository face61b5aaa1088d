// SPDX-License-Identifier: GPL-2.0-only
/*
 * The invariant checker (the numbered invariants of docs/mmu.md), over the
 * whole MMU state of a VM, plus the page-table structure the kernel's
 * WARNs assume (parent links, levels, gfns, frames) and what the fault
 * and recovery paths recorded since the last check.
 *
 * The shadow MMU's pages are checked from vm_mmu->active_mmu_pages (a
 * shadow page may be parentless and still hold leaves): every leaf is on
 * the rmap of its gfn and level and every rmap entry is such a leaf,
 * every parent SPTE is on its child's parent_ptes and every entry there
 * points at the child, no page of an old generation is left, every gfn an
 * indirect page shadows is write-protected, and no operation left pages
 * prepared for zap and not committed (e89505698c9f).  Both MMUs' leaves
 * count towards the page stats.
 *
 * Invariants that depend on a fix are checked only on profiles that carry
 * it (a 6.1 host legitimately leaves untracked exec-made tables unflagged),
 * so a bug switch that undoes a fix on a newer profile is caught.
 * Not checked here: invariant 10 (the worker's lifecycle, src/kvm/worker.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/compiler.h"
#include "mmu/guest_walk.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/shadow_mmu.h"

struct checker {
	struct nxsim__vm_mmu *mmu;
	nxsim_text_fn report;
	void *ctx;
	int violations;
	bool nx;	  /* the VM's nx_huge_pages, read once */
	bool hard_off_nx; /* "never" and nx_huge_pages both set */
	uint64_t leaves[3];
	uint64_t sps;
};

static void __attribute__((format(printf, 2, 3)))
violation(struct checker *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	c->violations++;
	if (!c->report)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->report(c->ctx, buf);
}

/* The checks on a page's own fields, for both MMUs. */
static void check_sp_flags(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	bool tag = mmu->prof->nx_tag_untracked;
	uint64_t gfn = sp->gfn;

	c->sps++;
	if (sp->id >= mmu->nr_frames || nxsim__frame(mmu, sp->id)->sp != sp)
		violation(c,
			  "SP gfn 0x%" PRIx64 " level %d: frame %u not its own",
			  gfn, sp->level, sp->id);
	/* 5.4 accounts every page an exec fault links (5bcaf3e1715f) */
	if (sp->nx_tracked &&
	    (!sp->made_hpd || (sp->made_req_level < sp->level + 1 &&
			       !mmu->prof->nx_account_any_level)))
		violation(c,
			  "invariant 3: "
			  "SP gfn 0x%" PRIx64 " level %d tracked, but made "
			  "by a fault with huge_page_disallowed=%d "
			  "req_level=%d",
			  gfn, sp->level, sp->made_hpd, sp->made_req_level);
	if (!sp->nx_tracked && sp->nx_huge_page_disallowed && sp->made_hpd &&
	    sp->made_req_level >= sp->level + 1 && !sp->unaccounted)
		violation(c,
			  "invariant 1: "
			  "SP gfn 0x%" PRIx64 " level %d made where a huge "
			  "page was possible (req_level=%d) is flagged but "
			  "not tracked",
			  gfn, sp->level, sp->made_req_level);
	if (sp->nx_tracked && (!sp->nx_huge_page_disallowed || !sp->direct))
		violation(c,
			  "invariant 2: tracked SP gfn 0x%" PRIx64
			  " level %d not "
			  "flagged or not direct",
			  gfn, sp->level);
	if (tag && sp->made_hpd && !sp->nx_huge_page_disallowed &&
	    !sp->unaccounted)
		violation(c,
			  "428e921611bc: SP gfn 0x%" PRIx64 " level %d made by "
			  "an exec fault is not flagged nx_huge_page_"
			  "disallowed",
			  gfn, sp->level);
}

/* A present leaf of either MMU: stats and invariant 4. */
static void check_leaf(struct checker *c, struct nxsim__mmu_page *sp,
		       uint64_t spte, uint64_t gfn)
{
	if (sp->level > NXSIM_PG_LEVEL_1G) {
		violation(c, "leaf at level %d", sp->level);
		return;
	}
	c->leaves[sp->level - 1]++;
	if (c->nx && sp->level > NXSIM_PG_LEVEL_4K &&
	    nxsim__is_executable_pte(c->mmu->fmt, spte))
		violation(c,
			  "invariant 4: executable huge SPTE 0x%016" PRIx64
			  " at level %d gfn 0x%" PRIx64,
			  spte, sp->level, gfn);
}

/* A present non-leaf SPTE points at a live page-table page. */
static bool points_at_table(struct checker *c, struct nxsim__mmu_page *sp,
			    uint64_t spte)
{
	struct nxsim__vm_mmu *mmu = c->mmu;

	if (sp->level == NXSIM_PG_LEVEL_4K ||
	    spte_to_pfn(spte) - NXSIM__SP_PFN_BASE >= mmu->nr_frames ||
	    !nxsim__frame(mmu,
			  (uint32_t)(spte_to_pfn(spte) - NXSIM__SP_PFN_BASE))
		     ->sp) {
		violation(c,
			  "SPTE 0x%016" PRIx64 " at level %d points at no "
			  "page table",
			  spte, sp->level);
		return false;
	}
	return true;
}

static void check_sp(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	uint64_t gfn = sp->gfn;
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level);
	unsigned int i, leaves = 0;

	check_sp_flags(c, sp);
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t spte = sp->spt[i];
		struct nxsim__mmu_page *child;

		if (!is_shadow_present_pte(spte))
			continue;
		if (is_last_spte(spte, sp->level)) {
			leaves++;
			check_leaf(c, sp, spte, gfn + i * span);
			continue;
		}
		if (!points_at_table(c, sp, spte))
			continue;
		child = spte_to_child_sp(mmu, spte);
		if (child->ptep != &sp->spt[i] || child->parent != sp ||
		    child->level != sp->level - 1 ||
		    child->gfn != sp->gfn + i * span)
			violation(c,
				  "SP gfn 0x%" PRIx64
				  " level %d: bad parent link, "
				  "level or gfn",
				  child->gfn, child->level);
		check_sp(c, child);
	}
	/* a TDP table's count is a split's 512, kept while all are there */
	if (sp->nr_leaves &&
	    (sp->nr_leaves != SPTE_ENT_PER_PAGE || leaves != sp->nr_leaves))
		violation(c,
			  "SP gfn 0x%" PRIx64
			  " level %d: %u leaves, counted %u",
			  gfn, sp->level, leaves, sp->nr_leaves);
}

/* Is @ref on @head? */
static bool rmap_has(const struct nxsim__kvm_rmap_head *head, uintptr_t ref)
{
	struct nxsim__rmap_iterator iter;
	uintptr_t r;

	for_each_rmap_spte(head, &iter, r) if (r == ref) return true;
	return false;
}

/* Entry @i of a shadow page: its rmap, or its child and parent link. */
static void check_shadow_spte(struct checker *c, struct nxsim__mmu_page *sp,
			      unsigned int i, unsigned int *leaves)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	uint64_t spte = sp->spt[i], gfn = nxsim__kvm_mmu_page_get_gfn(sp, i);
	const struct nxsim__memslot *slot;
	struct nxsim__mmu_page *child;

	if (is_last_spte(spte, sp->level)) {
		(*leaves)++;
		check_leaf(c, sp, spte, gfn);
		slot = nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), gfn);
		if (!slot || !rmap_has(nxsim__gfn_to_rmap(gfn, sp->level, slot),
				       sptep_ref(sp, i)))
			violation(c,
				  "shadow leaf gfn 0x%" PRIx64 " level %d "
				  "not on its rmap",
				  gfn, sp->level);
		return;
	}
	if (!points_at_table(c, sp, spte))
		return;
	child = spte_to_child_sp(mmu, spte);
	if (child->tdp_mmu_page || child->level != sp->level - 1 ||
	    (child->direct && sp->direct && child->gfn != gfn) ||
	    !rmap_has(&child->parent_ptes, sptep_ref(sp, i)))
		violation(c,
			  "shadow SP gfn 0x%" PRIx64 " level %d: bad parent "
			  "link, level or gfn",
			  child->gfn, child->level);
}

/* The pages' parent_ptes point back at them. */
static void check_parent_ptes(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;

	for_each_rmap_spte(&sp->parent_ptes, &iter, ref)
	{
		uint64_t spte = *ref_to_sptep(mmu, ref);

		if (!is_shadow_present_pte(spte) || is_large_pte(spte) ||
		    spte_to_pfn(spte) != sp_pfn(sp))
			violation(c,
				  "shadow SP gfn 0x%" PRIx64 " level %d: a "
				  "parent_ptes entry does not point here",
				  sp->gfn, sp->level);
	}
}

/* Every valid shadow page of guest tables at @gfn is unsync. */
static bool gfn_all_unsync(struct nxsim__vm_mmu *mmu, uint64_t gfn)
{
	struct nxsim__mmu_page *sp;

	LIST_FOREACH(sp, nxsim__gfn_sp_list(mmu, gfn), hash_link)
		if (sp->gfn == gfn && !nxsim__is_obsolete_sp(mmu, sp) &&
		    sp_has_gptes(sp) && !sp->unsync)
			return false;
	return true;
}

/*
 * Unsync pages (mmu_try_to_unsync_pages()): only 4K guest tables, never
 * a write-tracked gfn; each parent SPTE of a page that is or leads to an
 * unsync page has its unsync_child_bitmap bit (mark_unsync()), and
 * unsync_children counts the bits.  Return: 1 if @sp is unsync.
 */
static unsigned int check_unsync(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), sp->gfn);
	struct nxsim__rmap_iterator iter;
	unsigned int i, bits = 0;
	uintptr_t ref;

	for (i = 0; i < SPTE_ENT_PER_PAGE / 64; i++)
		bits += (unsigned int)__builtin_popcountll(
			sp->unsync_child_bitmap[i]);
	if (bits != sp->unsync_children)
		violation(c,
			  "SP gfn 0x%" PRIx64 " level %d: unsync_children %u, "
			  "%u bits set",
			  sp->gfn, sp->level, sp->unsync_children, bits);
	if (sp->unsync &&
	    (sp->direct || sp->level != NXSIM_PG_LEVEL_4K ||
	     (slot && nxsim__kvm_slot_page_track_is_active(slot, sp->gfn))))
		violation(c,
			  "unsync SP gfn 0x%" PRIx64 " level %d is not a 4K "
			  "table, or its gfn is write-tracked",
			  sp->gfn, sp->level);
	if (!sp->unsync && !sp->unsync_children)
		return 0;
	for_each_rmap_spte(&sp->parent_ptes, &iter, ref)
	{
		struct nxsim__mmu_page *parent = ref_to_sp(mmu, ref);
		unsigned int idx = ref_index(ref);

		if (!(parent->unsync_child_bitmap[idx / 64] &
		      (1ull << (idx % 64))))
			violation(c,
				  "SP gfn 0x%" PRIx64 " level %d leads to an "
				  "unsync page, parent entry %u not marked",
				  sp->gfn, sp->level, idx);
	}
	return sp->unsync;
}

/*
 * A gfn an indirect page shadows has no huge page, and no writable leaf
 * unless all its shadow pages are unsync.
 */
static void check_shadowed_gfn(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), sp->gfn);
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;
	int level;

	if (!slot)
		return;
	for (level = NXSIM_PG_LEVEL_4K; level <= NXSIM_PG_LEVEL_1G; level++) {
		if (level > NXSIM_PG_LEVEL_4K &&
		    !nxsim__lpage_disallowed(slot, sp->gfn, level))
			violation(c,
				  "shadowed gfn 0x%" PRIx64 " may be mapped "
				  "at level %d",
				  sp->gfn, level);
		for_each_rmap_spte(
			nxsim__gfn_to_rmap(sp->gfn, level, slot), &iter,
			ref) if (is_writable_pte(*ref_to_sptep(mmu, ref)) &&
				 !gfn_all_unsync(mmu, sp->gfn))
			violation(c,
				  "shadowed gfn 0x%" PRIx64
				  " is mapped writable",
				  sp->gfn);
	}
	if (sp->level > NXSIM_PG_LEVEL_4K &&
	    !nxsim__kvm_slot_page_track_is_active(slot, sp->gfn))
		violation(c, "shadowed gfn 0x%" PRIx64 " not write-tracked",
			  sp->gfn);
}

/*
 * The guest entry SPTE @i of the indirect page @sp above 4K shadows, and
 * the first gfn of the part of its huge page that SPTE maps: an 8-byte
 * entry is entry @i; a 32-bit guest's 4 MiB PDE (4 bytes, PSE-36) is
 * shadowed by two 2 MiB SPTEs of the page of its quadrant.
 */
static int guest_entry(struct checker *c, const struct nxsim__mmu_page *sp,
		       unsigned int i, uint64_t *gpte, uint64_t *base)
{
	unsigned int e;

	*gpte = 0;
	if (!sp->role.has_4_byte_gpte) {
		if (nxsim__guest_read_pte(c->mmu, (sp->gfn << 12) + 8 * i, 8,
					  gpte, NULL, NULL))
			return -1;
		*base = gpte_to_gfn_lvl(&nxsim__paging64, *gpte, sp->level);
		return 0;
	}
	e = sp->role.quadrant * (SPTE_ENT_PER_PAGE / 2) + i / 2;
	if (nxsim__guest_read_pte(c->mmu, (sp->gfn << 12) + 4 * e, 4, gpte,
				  NULL, NULL))
		return -1;
	*base = gpte_to_gfn_lvl(&nxsim__paging32, *gpte, PT32_ROOT_LEVEL) +
		pse36_gfn_delta(*gpte) + (i & 1) * SPTE_ENT_PER_PAGE;
	return 0;
}

/*
 * Shadow paging: no shadow mapping is larger than the guest's.  A leaf of
 * an indirect page above 4K shadows a guest huge entry (present, PS) of
 * that level; a direct page under one maps part of the guest huge page
 * the entry holds, at the gfn it starts at.
 */
static void check_guest_mapping(struct checker *c, struct nxsim__mmu_page *sp)
{
	uint64_t spte, gpte, base;
	unsigned int i;

	if (sp->level == NXSIM_PG_LEVEL_4K)
		return;
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		spte = sp->spt[i];
		if (!is_shadow_present_pte(spte))
			continue;
		if (!is_last_spte(spte, sp->level) &&
		    !spte_to_child_sp(c->mmu, spte)->direct)
			continue;
		if (guest_entry(c, sp, i, &gpte, &base) || !(gpte & 1) ||
		    !(gpte & PT_PAGE_SIZE_MASK)) {
			violation(
				c,
				"shadow SP gfn 0x%" PRIx64 " level %d entry "
				"%u maps more than the guest entry 0x%" PRIx64,
				sp->gfn, sp->level, i, gpte);
			continue;
		}
		if (!is_last_spte(spte, sp->level) &&
		    spte_to_child_sp(c->mmu, spte)->gfn != base)
			violation(c,
				  "direct SP gfn 0x%" PRIx64 " under a guest "
				  "huge page at gfn 0x%" PRIx64,
				  spte_to_child_sp(c->mmu, spte)->gfn, base);
	}
}

struct rmap_count {
	struct checker *c;
	uint64_t total;
};

/* Every entry of @head is a present leaf of its gfn and level. */
static bool check_rmap(struct nxsim__vm_mmu *mmu,
		       struct nxsim__kvm_rmap_head *head,
		       const struct nxsim__memslot *slot, int level, void *ctx)
{
	struct rmap_count *rc = ctx;
	uint64_t i = (uint64_t)(head - slot->rmap[level - 1]);
	struct nxsim__rmap_iterator iter;
	uintptr_t ref;

	for_each_rmap_spte(head, &iter, ref)
	{
		struct nxsim__mmu_page *sp = ref_to_sp(mmu, ref);
		uint64_t gfn = nxsim__kvm_mmu_page_get_gfn(sp, ref_index(ref));

		rc->total++;
		if (sp->level != level ||
		    !is_shadow_present_pte(sp->spt[ref_index(ref)]) ||
		    nxsim__gfn_to_index(gfn, slot->base_gfn, level) != i)
			violation(rc->c,
				  "rmap of gfn index 0x%" PRIx64
				  " level %d holds a stale SPTE",
				  i, level);
	}
	return false;
}

/* Every rmap entry of @slot is a present leaf of its gfn and level. */
static uint64_t check_slot_rmaps(struct checker *c,
				 const struct nxsim__memslot *slot)
{
	struct rmap_count rc = { c, 0 };

	nxsim__slot_handle_level(c->mmu, slot, check_rmap, NXSIM_PG_LEVEL_4K,
				 NXSIM_PG_LEVEL_1G, &rc);
	return rc.total;
}

/*
 * A root zapped while held (off active_mmu_pages, invalid): allocated and
 * counted in n_used_mmu_pages until the vCPU frees it on the pending
 * KVM_REQ_MMU_FREE_OBSOLETE_ROOTS, with its children unlinked.  Return:
 * 1 if @sp is such a root, 0 otherwise.
 */
static uint64_t check_zapped_root(struct checker *c, struct nxsim__mmu_page *sp)
{
	unsigned int i;

	if (!sp->invalid)
		return 0;
	c->sps++;
	if (!c->mmu->free_obsolete_roots)
		violation(c,
			  "invariant 7: zapped root %u held with no request "
			  "to free it",
			  sp->id);
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		if (is_shadow_present_pte(sp->spt[i]))
			violation(c, "zapped root %u entry %u still present",
				  sp->id, i);
	return 1;
}

/* The shadow MMU's pages, rmaps and lists. */
static void check_shadow(struct checker *c)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	uint64_t n = 0, indirect = 0, leaves = 0, rmapped = 0, pending = 0;
	uint64_t unsync = 0;
	struct nxsim__memslot *slot;
	struct nxsim__mmu_page *sp;
	unsigned int i, sp_leaves;

	TAILQ_FOREACH(sp, &mmu->active_mmu_pages, link) {
		n++;
		check_sp_flags(c, sp);
		if (sp->tdp_mmu_page || sp->invalid)
			violation(c,
				  "SP gfn 0x%" PRIx64 " level %d on "
				  "active_mmu_pages is a TDP or invalid page",
				  sp->gfn, sp->level);
		if (nxsim__is_obsolete_sp(mmu, sp))
			violation(
				c,
				"invariant 7: obsolete shadow SP gfn 0x%" PRIx64
				" level %d left",
				sp->gfn, sp->level);
		sp_leaves = 0;
		for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
			if (is_shadow_present_pte(sp->spt[i]))
				check_shadow_spte(c, sp, i, &sp_leaves);
		if (sp_leaves != sp->nr_leaves)
			violation(c,
				  "SP gfn 0x%" PRIx64
				  " level %d: %u leaves, counted %u",
				  sp->gfn, sp->level, sp_leaves, sp->nr_leaves);
		leaves += sp_leaves;
		check_parent_ptes(c, sp);
		unsync += check_unsync(c, sp);
		if (!sp->direct) {
			indirect++;
			check_shadowed_gfn(c, sp);
			check_guest_mapping(c, sp);
		}
	}
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++) {
		if (!mmu->root[i] || mmu->root[i]->tdp_mmu_page)
			continue;
		n += check_zapped_root(c, mmu->root[i]);
		if (mmu->root[i]->root_count != 1 ||
		    kvm_mmu_page_as_id(mmu->root[i]) != (int)i)
			violation(c,
				  "invariant 7: shadow root %u not held or of "
				  "another address space",
				  mmu->root[i]->id);
	}
	for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++) {
		unsigned int j, held = 0, first = i;

		if (!mmu->pae_root[i])
			continue;
		for (j = 0; j < ARRAY_SIZE(mmu->pae_root); j++) {
			held += mmu->pae_root[j] == mmu->pae_root[i];
			if (mmu->pae_root[j] == mmu->pae_root[i] && j < first)
				first = j;
		}
		if (first == i)
			n += check_zapped_root(c, mmu->pae_root[i]);
		if (mmu->root[0] || mmu->pae_root[i]->root_count != held ||
		    mmu->pae_root[i]->role.level != 2)
			violation(c,
				  "invariant 7: pae_root[%u] %u not held %u "
				  "times, or beside a root",
				  i, mmu->pae_root[i]->id, held);
	}
	if (n != mmu->n_used_mmu_pages)
		violation(c,
			  "%" PRIu64 " shadow pages active, n_used_mmu_pages "
			  "says %" PRIu64,
			  n, mmu->n_used_mmu_pages);
	if (unsync != mmu->nr_unsync)
		violation(c,
			  "%" PRIu64 " unsync shadow pages, stat mmu_unsync "
			  "says %" PRIu64,
			  unsync, mmu->nr_unsync);
	if (indirect != mmu->indirect_shadow_pages)
		violation(c,
			  "%" PRIu64 " indirect shadow pages, "
			  "indirect_shadow_pages says %" PRIu64,
			  indirect, mmu->indirect_shadow_pages);
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		TAILQ_FOREACH(slot, &mmu->slots[i], link)
			if (slot->rmap[0])
				rmapped += check_slot_rmaps(c, slot);
	if (rmapped != leaves)
		violation(c,
			  "rmaps hold %" PRIu64 " SPTEs, shadow pages %" PRIu64
			  " leaves",
			  rmapped, leaves);
	TAILQ_FOREACH(sp, &mmu->invalid_list, link) {
		pending++;
		c->sps++;
	}
	if (pending)
		violation(c,
			  "e89505698c9f: %" PRIu64 " shadow pages prepared "
			  "for zap were never committed (no TLB flush)",
			  pending);
}

static void check_lists(struct checker *c)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	bool per_type = mmu->prof->per_type_lists;
	uint64_t total = 0, len;
	struct nxsim__mmu_page *sp;
	int t;

	for (t = 0; t < (per_type ? NXSIM__NR_MMU_TYPES : 1); t++) {
		len = 0;
		TAILQ_FOREACH(sp, &mmu->nx[t].pages,
			      possible_nx_huge_page_link) {
			len++;
			if (!sp->nx_tracked)
				violation(c,
					  "SP gfn 0x%" PRIx64 " on a list, not "
					  "marked tracked",
					  sp->gfn);
			if (per_type &&
			    t != (sp->tdp_mmu_page ? NXSIM__TDP_MMU :
						     NXSIM__SHADOW_MMU))
				violation(c,
					  "invariant 2: "
					  "SP gfn 0x%" PRIx64 " on the list "
					  "of another MMU type",
					  sp->gfn);
		}
		if (mmu->nx[t].len != len)
			violation(c,
				  "list %d: %" PRIu64 " entries, %" PRIu64
				  " counted",
				  t, len, mmu->nx[t].len);
		if (mmu->nx[t].nr_pages != len)
			violation(c,
				  "invariant 1: list %d has %" PRIu64
				  " SPs, nr_pages says %" PRIu64,
				  t, len, mmu->nx[t].nr_pages);
		total += len;
	}
	if (total != mmu->nx_lpage_splits)
		violation(c,
			  "invariant 1: "
			  "nx_lpage_splits is %" PRIu64 ", lists hold %" PRIu64,
			  mmu->nx_lpage_splits, total);
}

int nxsim__mmu_check(struct nxsim__vm_mmu *mmu, nxsim_text_fn report, void *ctx)
{
	struct checker c = { .mmu = mmu, .report = report, .ctx = ctx };
	static const char *const names[] = { "4k", "2m", "1g" };
	struct nxsim__mmu_page *root;
	unsigned int i;

	/*
	 * One consistent snapshot: the caller holds param_lock, which a
	 * parameter write keeps until its zap of every root is done, so the
	 * values read once here match the tables; under mmu_lock no fault or
	 * zap changes them during the walk.
	 */
	nxsim__write_lock(&mmu->mmu_lock);
	/*
	 * pages_alloc_lock too: vCPUs top up their caches and RCU callbacks
	 * free pages without mmu_lock, changing frames and counts.
	 */
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	c.nx = nxsim__is_nx_huge_page_enabled(mmu);
	c.hard_off_nx = READ_ONCE(mmu->params->hard_disabled) &&
			READ_ONCE(mmu->params->nx_huge_pages);
	TAILQ_FOREACH(root, &mmu->roots, link) {
		if (root->invalid ||
		    root != mmu->root[kvm_mmu_page_as_id(root)])
			violation(&c,
				  "invariant 7: "
				  "invalid or stale root %u left",
				  root->id);
		check_sp(&c, root);
	}
	if (!mmu->tdp_mmu_enabled)
		check_shadow(&c);
	for (i = 0; i < 3; i++)
		if (c.leaves[i] != nxsim__page_stat(mmu, i + 1))
			violation(&c,
				  "invariant 6: pages_%s is %" PRIu64
				  ", the tables hold %" PRIu64 " leaves",
				  names[i], nxsim__page_stat(mmu, i + 1),
				  c.leaves[i]);
	check_lists(&c);
	if (c.sps + mmu->nr_cached + mmu->nr_rcu_pending != mmu->nr_sps)
		violation(&c,
			  "%" PRIu64 " page-table pages alive, %" PRIu64
			  " reachable, cached or awaiting RCU",
			  mmu->nr_sps,
			  c.sps + mmu->nr_cached + mmu->nr_rcu_pending);
	if (c.hard_off_nx)
		violation(&c, "invariant 8: "
			      "hard-disabled but nx_huge_pages set");
	for (i = 0; i < mmu->nr_events; i++) {
		if (i < NXSIM__MAX_EVENTS && mmu->events && mmu->events[i][0])
			violation(&c, "%s", mmu->events[i]);
		else if (i < NXSIM__MAX_EVENTS)
			violation(&c, "(an event not kept: no memory)");
		else
			violation(&c, "(more events not kept)");
	}
	mmu->nr_events = 0;
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return c.violations;
}
