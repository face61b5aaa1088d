// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shadow fault path of arch/x86/kvm/mmu/paging_tmpl.h for 64-bit, PAE
 * and 32-bit guests (FNAME(page_fault), FNAME(fetch),
 * FNAME(is_self_change_mapping)), on the guest walker of guest_walk.c,
 * with the parts of arch/x86/kvm/mmu/mmu.c it calls that read the guest
 * MMU (kvm_mmu_page_fault(), kvm_mmu_load() with mmu_alloc_shadow_roots()
 * and pae_root, shadow_walk_init(), validate_direct_spte()).  A 32-bit
 * guest's 4-byte tables are shadowed by PAE pages told apart by
 * role.quadrant (get_written_sptes(), FNAME(get_level1_sp_gpa)).
 *
 * It also models the sync of unsync pages: FNAME(sync_page) with
 * FNAME(prefetch_invalid_gpte), mmu_sync_children() and
 * kvm_mmu_sync_roots() (at kvm_mmu_load() and at the CR3 load,
 * kvm_mmu_new_pgd(), without its cached roots or requests), and
 * FNAME(invlpg); FNAME(pte_prefetch) with FNAME(prefetch_gpte).  Pages
 * become unsync, and the guest's stores to its tables are trapped and
 * emulated, in pte_write.c.  A fault outside every slot caches the gfn
 * (handle_abnormal_pfn()) and, with MMIO caching on, gets an MMIO SPTE
 * below its shadow pages; the RSVD #PF that meets it is answered by
 * mmio.c (handle_mmio_page_fault(), indirect).  See docs/shadow-paging.md.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/guest_mem.h"
#include "mmu/guest_walk.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/paging_tmpl.h"
#include "mmu/shadow_mmu.h"

/* ---- shadow paging: the fault path ------------------------------------- */

/* The SPTE index of @addr at @level (SPTE_INDEX(), shadow_walk_next()). */
static unsigned int shadow_index(uint64_t addr, int level)
{
	return (addr >> (12 + (level - 1) * 9)) & (SPTE_ENT_PER_PAGE - 1);
}

/*
 * The root role of the vCPU's guest MMU (kvm_init_shadow_mmu()): the
 * guest's levels, at least PAE's 3 (KVM shadows every guest that is not
 * 64-bit with PAE tables), indirect, NX always on; nonpaging guests get
 * four direct PAE roots (pae_root_role()).
 */
static union nxsim__kvm_mmu_page_role
shadow_root_role(const struct nxsim__kvm_mmu *m)
{
	union nxsim__kvm_mmu_page_role role = { .word = 0 };

	role.level = m->cpu_role.level > PT32E_ROOT_LEVEL ? m->cpu_role.level :
							    PT32E_ROOT_LEVEL;
	role.has_4_byte_gpte = m->cpu_role.has_4_byte_gpte;
	role.access = ACC_ALL;
	role.cr0_wp = m->cpu_role.cr0_wp;
	role.efer_nx = 1;
	return role;
}

/*
 * mmu_alloc_root()'s role for pae_root entry @i: a PAE page directory;
 * a PAE guest's directory is shadowed whole (quadrant 0), a 32-bit
 * guest's 1024-entry directory by four pages, entry @i shadowing its
 * quarter @i (quadrant @i); with paging off, a direct page directory
 * (the root role of kvm_init_shadow_mmu(): cpu_role.base, direct, at
 * least PAE's level, so mmu_alloc_direct_roots() makes four).
 */
static union nxsim__kvm_mmu_page_role
pae_root_role(const struct nxsim__kvm_mmu *m, unsigned int i)
{
	union nxsim__kvm_mmu_page_role role = shadow_root_role(m);

	if (!m->cpu_role.level)
		return (union nxsim__kvm_mmu_page_role){
			.level = PT32_ROOT_LEVEL,
			.direct = 1,
			.access = ACC_ALL,
			.efer_nx = 1,
		};
	role.level = PT32_ROOT_LEVEL;
	role.quadrant = m->cpu_role.level == PT32_ROOT_LEVEL ? i : 0;
	return role;
}

/* The PTTYPE of the guest entries @sp shadows. */
static const struct pt_type *sp_pt_type(const struct nxsim__mmu_page *sp)
{
	return pt_type_of(sp->role.has_4_byte_gpte);
}

/* kvm_mmu_get_guest_pgd(): CR3's table, a pt_element_t of the mode */
static uint64_t shadow_root_gfn(const struct nxsim__kvm_mmu *m)
{
	const struct pt_type *pt = pt_type_of(m->cpu_role.has_4_byte_gpte);

	return (m->regs.cr3 & pt->base_addr_mask) >> 12;
}

/*
 * The gfn of the guest directory pae_root entry @i shadows: the one PDPTE
 * @i points at (PAE), or CR3's (32-bit); with paging off, the first gfn
 * of GiB @i, which it maps (mmu_alloc_root(vcpu, i << (30 - PAGE_SHIFT))).
 */
static uint64_t pae_root_gfn(const struct nxsim__kvm_mmu *m, unsigned int i)
{
	if (!m->cpu_role.level)
		return (uint64_t)i << 18;
	if (m->cpu_role.level == PT32_ROOT_LEVEL)
		return shadow_root_gfn(m);
	return (m->pdptrs[i] & nxsim__paging64.base_addr_mask) >> 12;
}

/*
 * pae_root entry @i is wanted: paging off or 32-bit paging, or a present
 * PDPTE.
 */
static bool pae_root_wanted(const struct nxsim__kvm_mmu *m, unsigned int i)
{
	return m->cpu_role.level < PT32E_ROOT_LEVEL ||
	       is_present_gpte(m->pdptrs[i]);
}

/* The VM's current root is the one the vCPU's paging state wants. */
static bool root_matches(struct nxsim__vm_mmu *mmu,
			 const struct nxsim__kvm_mmu *m)
{
	struct nxsim__mmu_page *root = mmu->root[0];
	unsigned int i;

	if (m->cpu_role.level < PT64_ROOT_4LEVEL) {
		if (root)
			return false;
		for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++) {
			root = mmu->pae_root[i];
			if (!root != !pae_root_wanted(m, i))
				return false;
			if (root &&
			    (nxsim__is_obsolete_sp(mmu, root) ||
			     root->gfn != pae_root_gfn(m, i) ||
			     root->role.word != pae_root_role(m, i).word))
				return false;
		}
		return true;
	}
	if (!root || nxsim__is_obsolete_sp(mmu, root))
		return false;
	return !root->role.direct && root->gfn == shadow_root_gfn(m) &&
	       root->role.word == shadow_root_role(m).word;
}

/* Roots are loaded: the current root or a pae_root entry. */
static bool roots_loaded(const struct nxsim__vm_mmu *mmu)
{
	return nxsim__pae_roots_loaded(mmu) || mmu->root[0];
}

/*
 * kvm_mmu_free_roots() of the current roots when the vCPU's paging no
 * longer matches them (a CR3 or mode change: kvm_mmu_new_pgd(),
 * kvm_mmu_reset_context()); the pages stay as cached shadow pages.
 */
static void put_stale_roots(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__kvm_mmu *m)
{
	if (roots_loaded(mmu) && !root_matches(mmu, m))
		nxsim__mmu_free_root_page(mmu, 0);
}

static void sync_root(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		      struct nxsim__mmu_page *root);

/*
 * mmu_alloc_shadow_roots() / mmu_alloc_direct_roots(), then
 * kvm_mmu_sync_roots() (kvm_mmu_load()).  A PAE guest gets pae_root: for
 * each present PDPTE the level-2 shadow page of the directory it points
 * at (mmu_alloc_root()), none for a PDPTE that is not present; a guest
 * with paging off four direct ones, one per GiB.
 */
static void kvm_mmu_load(struct nxsim__vm_mmu *mmu,
			 struct nxsim__mmu_memory_cache *mc,
			 const struct nxsim__kvm_mmu *m)
{
	struct nxsim__mmu_page *root;
	unsigned int i;

	if (roots_loaded(mmu))
		return;
	if (m->cpu_role.level < PT64_ROOT_4LEVEL) {
		for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++) {
			if (!pae_root_wanted(m, i))
				continue;
			root = nxsim__kvm_mmu_get_shadow_page(
				mmu, mc, m->cpu_role.level ? m : NULL,
				pae_root_gfn(m, i), pae_root_role(m, i));
			root->root_count++;
			mmu->pae_root[i] = root;
		}
		for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++)
			if (mmu->pae_root[i])
				sync_root(mmu, m, mmu->pae_root[i]);
		return;
	}
	root = nxsim__kvm_mmu_get_shadow_page(mmu, mc, m, shadow_root_gfn(m),
					      shadow_root_role(m));
	root->root_count++;
	mmu->root[0] = root;
	sync_root(mmu, m, root);
}

/*
 * shadow_walk_init(): the page the hardware walk of @addr starts from and
 * its level; a PAE root starts below the shadow PDPTE of @addr.
 */
static struct nxsim__mmu_page *shadow_walk_init(struct nxsim__vm_mmu *mmu,
						uint64_t addr, int *level)
{
	struct nxsim__mmu_page *sp = mmu->root[0];

	if (!sp)
		sp = mmu->pae_root[(addr >> 30) & 3];
	*level = sp ? (int)sp->role.level : 0;
	return sp;
}

/* Whether the SPTE lets @access (PFERR bits) through. */
static bool spte_permits(struct nxsim__vm_mmu *mmu, uint64_t spte,
			 uint32_t access)
{
	if ((access & PFERR_USER_MASK) &&
	    !(spte & nxsim__spte_masks(mmu->fmt)->user))
		return false;
	if (access & PFERR_WRITE_MASK)
		return is_writable_pte(spte);
	if (access & PFERR_FETCH_MASK)
		return nxsim__is_executable_pte(mmu->fmt, spte);
	return true;
}

/*
 * The leaf SPTE mapping @addr from the current root, or NULL; *@spte
 * receives the last SPTE read (0 if there is no root), an MMIO SPTE where
 * the walk stops at one.
 */
static uint64_t *shadow_find_leaf(struct nxsim__vm_mmu *mmu, uint64_t addr,
				  int *level, uint64_t *spte)
{
	int l;
	struct nxsim__mmu_page *sp = shadow_walk_init(mmu, addr, &l);

	*spte = 0;
	for (; sp; l--) {
		uint64_t *sptep = &sp->spt[shadow_index(addr, l)];

		*spte = *sptep;
		if (!is_shadow_present_pte(*sptep))
			return NULL;
		if (is_last_spte(*sptep, l)) {
			*level = l;
			return sptep;
		}
		sp = spte_to_child_sp(mmu, *sptep);
	}
	return NULL;
}

/* FNAME(prefetch_invalid_gpte) without the drop: not worth an SPTE. */
static bool prefetch_invalid_gpte(const struct nxsim__kvm_mmu *m, uint64_t gpte)
{
	return !is_present_gpte(gpte) || !(gpte & PT_GUEST_ACCESSED_MASK) ||
	       is_rsvd_bits_set(m, gpte, NXSIM_PG_LEVEL_4K);
}

/*
 * The guest entry an SPTE of the 4K table @sp shadows
 * (FNAME(get_level1_sp_gpa) plus the index): a 4-byte table's page of
 * quadrant q shadows its entries from q * 512.
 */
static int read_level1_gpte(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__mmu_page *sp, unsigned int idx,
			    uint64_t *gpte)
{
	const struct pt_type *pt = sp_pt_type(sp);
	uint64_t offset = (uint64_t)sp->role.quadrant * SPTE_ENT_PER_PAGE;

	*gpte = 0;
	return nxsim__kvm_read_guest(
		mmu, (sp->gfn << 12) + (offset + idx) * pt->size, gpte,
		pt->size);
}

/*
 * mmu_spte_update()'s answer for the present SPTE @old made @new: must the
 * TLBs be flushed?  6.1 flushes when an MMU-writable SPTE loses W and when
 * A or D is cleared; from b7ed46b201a4 (6.13) only when it stops being
 * MMU-writable.
 */
static bool mmu_spte_update_flush(struct nxsim__vm_mmu *mmu, uint64_t old,
				  uint64_t new)
{
	const struct nxsim__spte_masks *mk = nxsim__spte_masks(mmu->fmt);
	bool mmu_writable = nxsim__is_mmu_writable_spte(mmu->fmt, old);

	if (mmu->prof->spte_update_wp_flush_only)
		return mmu_writable &&
		       !nxsim__is_mmu_writable_spte(mmu->fmt, new);
	return (mmu_writable && !is_writable_pte(new)) ||
	       ((old & mk->accessed) && !(new & mk->accessed)) ||
	       ((old & mk->dirty) && !(new & mk->dirty));
}

int nxsim__sync_page(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		     struct nxsim__mmu_page *sp)
{
	const union nxsim__kvm_mmu_page_role ign = {
		.level = 0xf, .access = 0x7, .quadrant = 0x3, .passthrough = 1
	};
	const struct nxsim__spte_masks *mk = nxsim__spte_masks(mmu->fmt);
	unsigned int i, pte_access;
	uint64_t gpte, gfn, spte;
	bool flush = false, host_writable, wrprot;

	if (WARN_ON(!m || !m->cpu_role.level || sp->role.direct ||
		    ((sp->role.word ^ shadow_root_role(m).word) & ~ign.word)))
		return -1;
	MMU_COUNT(mmu, synced);
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		if (!is_shadow_present_pte(sp->spt[i]) &&
		    !is_mmio_spte(&mmu->mmio, sp->spt[i]))
			continue;
		if (read_level1_gpte(mmu, sp, i, &gpte))
			return -1;
		if (prefetch_invalid_gpte(m, gpte)) {
			nxsim__drop_spte(mmu, sp, i);
			flush = true;
			continue;
		}
		gfn = gpte_to_gfn_lvl(sp_pt_type(sp), gpte, NXSIM_PG_LEVEL_4K);
		pte_access = sp->role.access & gpte_access(gpte);
		protect_clean_gpte(&pte_access, gpte);
		/* sync_mmio_spte(): cleared, or made in this generation */
		if (unlikely(is_mmio_spte(&mmu->mmio, sp->spt[i]))) {
			WRITE_ONCE(
				sp->spt[i],
				gfn != get_mmio_spte_gfn(&mmu->mmio,
							 sp->spt[i]) ?
					SHADOW_NONPRESENT_VALUE :
					nxsim__make_mmio_spte(
						&mmu->mmio,
						READ_ONCE(mmu->memslots_gen[0]),
						gfn, pte_access));
			continue;
		}
		if (gfn != nxsim__kvm_mmu_page_get_gfn(sp, i)) {
			nxsim__drop_spte(mmu, sp, i);
			flush = true;
			continue;
		}
		/* kvm_mmu_page_set_access() */
		sp->shadowed_translation[i] = gfn << 12 | pte_access;
		/* make_spte(prefetch, !can_unsync) and mmu_spte_update() */
		host_writable = sp->spt[i] & mk->host_writable;
		wrprot = (pte_access & ACC_WRITE_MASK) && host_writable &&
			 nxsim__mmu_try_to_unsync_pages(
				 mmu, nxsim__gfn_to_memslot(mmu, 0, gfn), gfn,
				 false, true);
		spte = nxsim__make_spte(
			mmu->fmt, NXSIM_PG_LEVEL_4K, spte_to_pfn(sp->spt[i]),
			wrprot ? pte_access & ~ACC_WRITE_MASK : pte_access,
			host_writable, false);
		spte &= ~mk->accessed;
		flush |= mmu_spte_update_flush(mmu, sp->spt[i], spte);
		WRITE_ONCE(sp->spt[i], spte);
	}
	return flush;
}

/* clear_unsync_child_bit() */
static void clear_unsync_child_bit(struct nxsim__mmu_page *sp, unsigned int idx)
{
	--sp->unsync_children;
	sp->unsync_child_bitmap[idx / 64] &= ~(1ull << (idx % 64));
}

/* The page the set bit @idx of @parent's bitmap leads to, or NULL. */
static struct nxsim__mmu_page *unsync_child(struct nxsim__vm_mmu *mmu,
					    struct nxsim__mmu_page *parent,
					    unsigned int idx)
{
	uint64_t spte = parent->spt[idx];

	if (!is_shadow_present_pte(spte) ||
	    is_last_spte(spte, parent->role.level))
		return NULL;
	return spte_to_child_sp(mmu, spte);
}

/* Bit @idx of @sp's unsync_child_bitmap is set. */
static bool unsync_bit(const struct nxsim__mmu_page *sp, unsigned int idx)
{
	return sp->unsync_child_bitmap[idx / 64] & (1ull << (idx % 64));
}

/*
 * The first half of mmu_sync_children()'s loop: each unsync page below
 * @parent (mmu_unsync_walk()) gets its gfn write-protected again
 * (kvm_vcpu_write_protect_gfn()).  Return: whether an SPTE lost W.
 */
static bool protect_unsync_children(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *parent)
{
	struct nxsim__mmu_page *child;
	bool protected = false;
	unsigned int idx;

	for (idx = 0; idx < SPTE_ENT_PER_PAGE; idx++) {
		child = unsync_bit(parent, idx) ?
				unsync_child(mmu, parent, idx) :
				NULL;
		if (!child)
			continue;
		if (child->unsync_children)
		protected |= protect_unsync_children(mmu, child);
		if (child->unsync)
		protected |= nxsim__kvm_mmu_slot_gfn_write_protect(
			mmu, nxsim__gfn_to_memslot(mmu, 0, child->gfn),
			child->gfn, NXSIM_PG_LEVEL_4K);
	}
	return protected;
}

/*
 * The second half: each unsync page below @parent is made sync and
 * brought up to date from the guest's table (kvm_sync_page(); a page
 * whose table cannot be read is zapped), and the bits that lead nowhere
 * any more are cleared (mmu_pages_clear_parents()).  Return: whether a
 * sync asked for a flush.
 */
static bool sync_unsync_children(struct nxsim__vm_mmu *mmu,
				 const struct nxsim__kvm_mmu *m,
				 struct nxsim__mmu_page *parent,
				 struct nxsim__sp_list *invalid_list)
{
	struct nxsim__mmu_page *child;
	bool flush = false;
	unsigned int idx;
	int ret;

	for (idx = 0; idx < SPTE_ENT_PER_PAGE; idx++) {
		if (!unsync_bit(parent, idx))
			continue;
		child = unsync_child(mmu, parent, idx);
		if (!child) {
			clear_unsync_child_bit(parent, idx);
			continue;
		}
		if (child->unsync_children)
			flush |= sync_unsync_children(mmu, m, child,
						      invalid_list);
		if (child->unsync) {
			nxsim__kvm_unlink_unsync_page(mmu, child);
			ret = nxsim__sync_page(mmu, m, child);
			if (ret < 0)
				nxsim__kvm_mmu_prepare_zap_page(mmu, child,
								invalid_list);
			flush |= ret > 0;
		}
		if (!is_shadow_present_pte(parent->spt[idx]) ||
		    (!child->unsync && !child->unsync_children))
			clear_unsync_child_bit(parent, idx);
	}
	return flush;
}

/*
 * mmu_sync_children() (6.1 arch/x86/kvm/mmu/mmu.c): the unsync pages
 * below @parent are write-protected again, with a flush at once if that
 * took W from any SPTE, then synced, with a flush at the end if a sync
 * asked for one: up to two flushes.
 */
static void mmu_sync_children(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__kvm_mmu *m,
			      struct nxsim__mmu_page *parent)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	bool flush;

	if (protect_unsync_children(mmu, parent))
		nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, true);
	flush = sync_unsync_children(mmu, m, parent, &invalid_list);
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, flush);
}

/*
 * kvm_mmu_sync_roots() for @root: a root with unsync pages below it is
 * synced (the guest flushed its TLB: a CR3 load).
 */
static void sync_root(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		      struct nxsim__mmu_page *root)
{
	if (root->role.direct || !(root->unsync || root->unsync_children))
		return;
	mmu_sync_children(mmu, m, root);
}

/*
 * The CR3 load of nxsim__guest_set_paging(): kvm_mmu_new_pgd() leaves the
 * root of the new CR3 synced before the guest runs on it
 * (KVM_REQ_MMU_SYNC, or kvm_mmu_load() after a free).
 */
void nxsim__kvm_mmu_new_pgd(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__kvm_mmu *m)
{
	union nxsim__kvm_mmu_page_role role = shadow_root_role(m);
	uint64_t gfn = shadow_root_gfn(m);
	struct nxsim__mmu_page *sp;

	/*
	 * fast_pgd_switch() fails on pae_root, which has no shadow page: the
	 * PAE roots are freed, and kvm_mmu_load() syncs them again
	 */
	if (m->cpu_role.level < PT64_ROOT_4LEVEL && !mmu->root[0])
		nxsim__mmu_free_root_page(mmu, 0);
	if (m->cpu_role.level != PT64_ROOT_4LEVEL ||
	    !mmu->indirect_shadow_pages)
		return;
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (sp->role.word == role.word) {
			sync_root(mmu, m, sp);
			__clear_sp_write_flooding_count(sp);
			return;
		}
	}
}

/*
 * FNAME(prefetch_gpte): the non-present SPTE @idx of the indirect 4K page
 * @sp made from the guest's @gpte, as a prefetch (no A bit, no unsync);
 * with @no_dirty_log, not a writable one in a dirty-logged slot
 * (gfn_to_memslot_dirty_bitmap()).  Return: false where the gpte is not
 * worth an SPTE or has no slot.
 */
static bool prefetch_gpte(struct nxsim__vm_mmu *mmu,
			  const struct nxsim__kvm_mmu *m,
			  struct nxsim__mmu_page *sp, unsigned int idx,
			  uint64_t gpte, bool no_dirty_log)
{
	const struct nxsim__memslot *slot;
	unsigned int pte_access;
	uint64_t gfn;

	if (prefetch_invalid_gpte(m, gpte))
		return false;
	gfn = gpte_to_gfn_lvl(sp_pt_type(sp), gpte, NXSIM_PG_LEVEL_4K);
	pte_access = sp->role.access & gpte_access(gpte);
	protect_clean_gpte(&pte_access, gpte);
	slot = nxsim__gfn_to_memslot(mmu, 0, gfn);
	/* gfn_to_memslot_dirty_bitmap() */
	if (!slot || nxsim__memslot_invalid(slot) ||
	    (no_dirty_log && (pte_access & ACC_WRITE_MASK) &&
	     (slot->flags & NXSIM_MEM_LOG_DIRTY_PAGES)))
		return false;
	nxsim__mmu_set_spte(mmu, slot, sp, idx, pte_access, gfn,
			    nxsim__gfn_to_pfn(slot, gfn), NULL);
	return true;
}

/*
 * FNAME(pte_prefetch) after a fault mapped SPTE @idx of @sp: 4K pages
 * only, none while an invalidation is in progress; a direct page is
 * direct_pte_prefetch()'s; an indirect one gets the non-present SPTEs of
 * its group of PTE_PREFETCH_NUM made from the guest entries beside the
 * walk's leaf (gw->prefetch_ptes, read by FNAME(gpte_changed) at the 4K
 * level), stopping at the first that is not worth one.
 */
static void pte_prefetch(struct nxsim__vm_mmu *mmu,
			 const struct nxsim__kvm_mmu *m,
			 const struct nxsim__guest_walker *gw,
			 struct nxsim__mmu_page *sp, unsigned int idx)
{
	const struct pt_type *pt = sp_pt_type(sp);
	uint64_t gptes[NXSIM__PTE_PREFETCH_NUM] = { 0 }, base;
	unsigned int i, first = idx & ~(NXSIM__PTE_PREFETCH_NUM - 1u);

	if (sp->role.level > NXSIM_PG_LEVEL_4K ||
	    mmu->mmu_invalidate_in_progress)
		return;
	if (sp->role.direct) {
		nxsim__direct_pte_prefetch(mmu, sp, idx);
		return;
	}
	base = gw->pte_gpa[0] &
	       ~(uint64_t)(NXSIM__PTE_PREFETCH_NUM * pt->size - 1);
	for (i = 0; i < NXSIM__PTE_PREFETCH_NUM; i++)
		if (nxsim__kvm_read_guest(mmu, base + i * pt->size, &gptes[i],
					  pt->size))
			return;
	for (i = 0; i < NXSIM__PTE_PREFETCH_NUM; i++) {
		if (first + i == idx ||
		    is_shadow_present_pte(sp->spt[first + i]))
			continue;
		if (!prefetch_gpte(mmu, m, sp, first + i, gptes[i], true))
			break;
	}
}

/*
 * FNAME(invlpg): below the current root, the 4K SPTE of @gva in an unsync
 * page is dropped and made again from the guest's entry
 * (FNAME(prefetch_gpte)); the walk goes down only through pages with
 * unsync children.
 */
static void invlpg(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		   uint64_t gva)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	unsigned int idx;
	uint64_t old, gpte;
	int level;
	struct nxsim__mmu_page *sp = shadow_walk_init(mmu, gva, &level);

	for (; sp && level >= NXSIM_PG_LEVEL_4K; level--) {
		idx = shadow_index(gva, level);
		old = sp->spt[idx];
		if (level == NXSIM_PG_LEVEL_4K ||
		    (is_shadow_present_pte(old) && is_last_spte(old, level))) {
			if (!sp->unsync)
				break;
			nxsim__mmu_page_zap_pte(mmu, sp, idx, &invalid_list);
			if (is_shadow_present_pte(old))
				nxsim__kvm_flush_remote_tlbs(mmu);
			/* rmap_can_add() */
			if (!mmu->nr_desc_cache ||
			    read_level1_gpte(mmu, sp, idx, &gpte))
				break;
			prefetch_gpte(mmu, m, sp, idx, gpte, false);
			break;
		}
		if (!sp->unsync_children || !is_shadow_present_pte(old))
			break;
		sp = spte_to_child_sp(mmu, old);
	}
}

int nxsim__guest_invlpg(struct nxsim__vm_mmu *mmu,
			const struct nxsim__kvm_mmu *m, uint64_t gva)
{
	if (!nxsim__guest_gva_ok(m, gva))
		return -ERANGE;
	nxsim__write_lock(&mmu->mmu_lock);
	if (m->cpu_role.level && root_matches(mmu, m))
		invlpg(mmu, m, gva);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return 0;
}

/*
 * FNAME(is_self_change_mapping): the guest maps one of the tables of this
 * walk writably through the mapping being made.  *@self_pt is set when
 * the mapped page is itself such a table.
 */
static bool is_self_change_mapping(const struct nxsim__kvm_mmu *m,
				   const struct nxsim__guest_walker *w,
				   bool user_fault, bool *self_pt)
{
	uint64_t mask = ~(KVM_PAGES_PER_HPAGE(w->level) - 1);
	bool self_changed = false;
	int level;

	if (!(w->pte_access & ACC_WRITE_MASK ||
	      (!m->cpu_role.cr0_wp && !user_fault)))
		return false;
	for (level = w->level; level <= w->max_level; level++) {
		uint64_t gfn = w->gfn ^ w->table_gfn[level - 1];

		self_changed |= !(gfn & mask);
		*self_pt |= !gfn;
	}
	return self_changed;
}

/*
 * validate_direct_spte(): a direct child made for other access rights is
 * dropped before the walk goes down through it.
 */
static void validate_direct_spte(struct nxsim__vm_mmu *mmu,
				 struct nxsim__mmu_page *sp, unsigned int idx,
				 unsigned int direct_access)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	struct nxsim__mmu_page *child;

	if (!is_shadow_present_pte(sp->spt[idx]) || is_large_pte(sp->spt[idx]))
		return;
	child = spte_to_child_sp(mmu, sp->spt[idx]);
	if (child->role.access == direct_access)
		return;
	nxsim__drop_parent_pte(mmu, child, sptep_ref(sp, idx));
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, true);
}

/*
 * FNAME(fetch): indirect shadow pages for the guest's tables down to the
 * guest's mapping level, then (kvm_mmu_hugepage_adjust(),
 * disallowed_hugepage_adjust()) direct pages where the guest's huge page
 * is mapped smaller, and the leaf.  Return: RET_PF_FIXED,
 * RET_PF_SPURIOUS or RET_PF_EMULATE (a write to a write-protected table).
 */
static int fetch(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_memory_cache *mc,
		 const struct nxsim__kvm_mmu *m,
		 struct nxsim__kvm_page_fault *f, uint64_t addr,
		 const struct nxsim__guest_walker *gw,
		 struct nxsim_access_info *info)
{
	unsigned int direct_access = gw->pte_access, idx;
	int level, ret;
	struct nxsim__mmu_page *sp = shadow_walk_init(mmu, addr, &level),
			       *child;
	uint64_t base_gfn;

	for (;; sp = spte_to_child_sp(mmu, sp->spt[idx]), level--) {
		idx = shadow_index(addr, level);
		if (level <= gw->level)
			break;
		__clear_sp_write_flooding_count(sp);
		child = nxsim__kvm_mmu_get_child_sp(mmu, mc, m, sp, idx,
						    gw->table_gfn[level - 2],
						    false,
						    gw->pt_access[level - 2]);
		if (child)
			nxsim__link_shadow_page(mmu, sp, idx, child);
	}
	nxsim__kvm_mmu_hugepage_adjust(mmu, f);
	for (;; sp = spte_to_child_sp(mmu, sp->spt[idx]), level--) {
		idx = shadow_index(addr, level);
		__clear_sp_write_flooding_count(sp);
		if (f->nx_huge_page_workaround_enabled)
			nxsim__disallowed_hugepage_adjust(mmu, f, sp->spt[idx],
							  level);
		base_gfn = f->gfn & ~(KVM_PAGES_PER_HPAGE(level) - 1);
		if (level == f->goal_level)
			break;
		validate_direct_spte(mmu, sp, idx, direct_access);
		child = nxsim__kvm_mmu_get_child_sp(
			mmu, mc, NULL, sp, idx, base_gfn, true, direct_access);
		if (!child)
			continue;
		if (is_shadow_present_pte(sp->spt[idx])) {
			MMU_COUNT(mmu, huge_zaps);
			info->zapped_huge++;
		}
		nxsim__link_shadow_page(mmu, sp, idx, child);
		nxsim__account_nx_huge_page(mmu, f, child, level);
	}
	ret = nxsim__mmu_set_spte(mmu, f->slot, sp, idx, gw->pte_access,
				  base_gfn, f->pfn, f);
	info->level = level;
	if (ret != RET_PF_SPURIOUS)
		pte_prefetch(mmu, m, gw, sp, idx);
	return ret;
}

/*
 * Topped-up caches for a shadow fault: page-table pages and rmap
 * descriptors (mmu_topup_memory_caches()), and shadowed_translation
 * arrays.  On -ENOMEM everything taken goes back.
 */
static int shadow_topup_caches(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_memory_cache *mc)
{
	unsigned int had = mmu->nr_info_cache;
	int rc = nxsim__mmu_topup_shadowed_info_cache(mmu);

	if (rc)
		return rc;
	rc = nxsim__mmu_topup_memory_caches(mmu, mc, 0);
	if (rc)
		while (mmu->nr_info_cache > had)
			nxsim__free(
				mmu->shadowed_info_cache[--mmu->nr_info_cache],
				SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	return rc;
}

/*
 * shadow_page_table_clear_flood(): the pages the hardware walk of @addr
 * goes through, a write to a write-tracked table about to be emulated,
 * are in use: their flooding counts are cleared.
 */
static void shadow_page_table_clear_flood(struct nxsim__vm_mmu *mmu,
					  uint64_t addr)
{
	int level;
	struct nxsim__mmu_page *sp = shadow_walk_init(mmu, addr, &level);
	uint64_t spte;

	for (; sp; level--) {
		__clear_sp_write_flooding_count(sp);
		spte = sp->spt[shadow_index(addr, level)];
		if (!is_shadow_present_pte(spte) || is_last_spte(spte, level))
			break;
		sp = spte_to_child_sp(mmu, spte);
	}
}

/*
 * FNAME(page_fault): walk the guest tables (a failed
 * walk is the guest's #PF), emulate writes to write-tracked tables
 * (page_fault_handle_page_track()), cap the level where the guest maps
 * its own tables, and fetch.  Called with mmu_lock held for write and the
 * caches topped up.  Return: RET_PF_RETRY when the gfn's slot is being
 * deleted or moved (kvm_faultin_pfn()), else 0.
 */
static int page_fault(struct nxsim__vm_mmu *mmu, struct nxsim__vcpu_mmu *vcpu,
		      const struct nxsim__kvm_mmu *m, uint64_t addr,
		      uint32_t pfec, struct nxsim_access_info *info)
{
	struct nxsim__mmu_memory_cache *mc = &vcpu->mmu_cache;
	struct nxsim__kvm_page_fault f = {
		.exec = pfec & PFERR_FETCH_MASK,
		.write = pfec & PFERR_WRITE_MASK,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
	};
	bool self_pt = false, user = pfec & PFERR_USER_MASK;
	struct nxsim__guest_walker w;
	uint64_t gpte, gpa;
	unsigned int size;
	int ret;

	if (!nxsim__walk_addr_generic(mmu, m, &w, addr, pfec)) {
		/* kvm_inject_emulated_page_fault(): the guest's #PF */
		info->outcome = NXSIM_ACCESS_GUEST_FAULT;
		return 0;
	}
	MMU_COUNT(mmu, faults);
	f.gfn = w.gfn;
	f.slot = nxsim__gfn_to_memslot(mmu, 0, f.gfn);
	/*
	 * page_fault_handle_page_track(): a write that faulted on a present
	 * SPTE (PFERR_PRESENT); a write through a missing one goes on to
	 * FNAME(fetch), whose make_spte() installs the SPTE read-only before
	 * RET_PF_EMULATE
	 */
	if (f.slot && f.write && (pfec & PFERR_PRESENT_MASK) &&
	    nxsim__kvm_slot_page_track_is_active(f.slot, f.gfn)) {
		shadow_page_table_clear_flood(mmu, addr);
		goto emulate;
	}
	/* kvm_faultin_pfn(): the slot is being deleted or moved */
	if (f.slot && nxsim__memslot_invalid(f.slot))
		return RET_PF_RETRY;
	/* handle_abnormal_pfn(): MMIO, cached if caching is on */
	if (!f.slot)
		nxsim__vcpu_cache_mmio_info(mmu, vcpu, f.gfn);
	if ((!f.slot && !mmu->mmio.enabled) ||
	    (f.slot && f.write && (f.slot->flags & NXSIM_MEM_READONLY))) {
		MMU_COUNT(mmu, emulated);
		info->outcome = NXSIM_ACCESS_EMULATE;
		return 0;
	}
	f.max_level = is_self_change_mapping(m, &w, user, &self_pt) ?
			      NXSIM_PG_LEVEL_4K :
			      w.level;
	if (f.slot) {
		f.pfn = nxsim__gfn_to_pfn(f.slot, f.gfn);
		f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	} else {
		f.mmio_gen = vcpu_memslots_gen(mmu, vcpu);
	}
	f.nx_huge_page_workaround_enabled = nxsim__is_nx_huge_page_enabled(mmu);
	/* a supervisor write with CR0.WP=0 to a read-only page, not MMIO */
	if (f.write && !(w.pte_access & ACC_WRITE_MASK) &&
	    !m->cpu_role.cr0_wp && !user && f.slot) {
		w.pte_access |= ACC_WRITE_MASK;
		w.pte_access &= ~ACC_USER_MASK;
	}
	kvm_mmu_load(mmu, mc, m);
	ret = fetch(mmu, mc, m, &f, addr, &w, info);
	info->req_level = f.req_level;
	info->goal_level = f.goal_level;
	info->huge_page_disallowed = f.huge_page_disallowed;
	if (ret == RET_PF_EMULATE && !f.slot) {
		/* the MMIO SPTE: vcpu->stat.pf_mmio_spte_created */
		MMU_COUNT(mmu, emulated);
		VCPU_COUNT(vcpu, mmio_spte_created);
		info->outcome = NXSIM_ACCESS_EMULATE;
		info->level = 0;
		return 0;
	}
	if (ret == RET_PF_EMULATE)
		goto emulate;
	info->outcome = ret == RET_PF_SPURIOUS ? NXSIM_ACCESS_SPURIOUS :
						 NXSIM_ACCESS_FAULT;
	return 0;
emulate:
	/* the store the instruction makes: the entry rewritten as it is */
	MMU_COUNT(mmu, emulated);
	size = pt_type_of(m->cpu_role.has_4_byte_gpte)->size;
	gpa = (f.gfn << 12) | (addr & 4095 & ~(uint64_t)(size - 1));
	gpte = 0;
	nxsim__kvm_read_guest(mmu, gpa, &gpte, size);
	nxsim__emulate_pte_write(mmu, gpa, &gpte, size);
	info->outcome = NXSIM_ACCESS_EMULATE;
	return 0;
}

int nxsim__kvm_mmu_page_fault(struct nxsim__vm_mmu *mmu,
			      struct nxsim__vcpu_mmu *vcpu,
			      const struct nxsim__kvm_mmu *m,
			      enum nxsim_access_kind kind, uint64_t addr,
			      struct nxsim_access_info *info)
{
	uint32_t pfec = (kind == NXSIM_ACCESS_WRITE ? PFERR_WRITE_MASK : 0) |
			(kind == NXSIM_ACCESS_EXEC ? PFERR_FETCH_MASK : 0) |
			(m->regs.user ? PFERR_USER_MASK : 0);
	uint64_t *sptep, spte;
	int level = 0, rc = 0;
	bool mmio;

	if (!nxsim__guest_gva_ok(m, addr))
		return -ERANGE;
	for (;;) {
		nxsim__write_lock(&mmu->mmu_lock);
		/* vcpu_enter_guest(): the request first, then the CR3 */
		nxsim__kvm_mmu_free_obsolete_roots(mmu);
		put_stale_roots(mmu, m);
		sptep = shadow_find_leaf(mmu, addr, &level, &spte);
		if (sptep && spte_permits(mmu, *sptep, pfec)) {
			info->outcome = NXSIM_ACCESS_HIT;
			info->level = level;
			goto out;
		}
		/* An MMIO SPTE: #PF with PFERR_RSVD */
		mmio = !sptep && is_mmio_spte(&mmu->mmio, spte);
		if (mmio && nxsim__handle_mmio_page_fault_shadow(
				    mmu, vcpu, !m->cpu_role.level, addr >> 12,
				    spte) == RET_PF_EMULATE) {
			VCPU_COUNT(vcpu, mmio_exits);
			info->outcome = NXSIM_ACCESS_EMULATE;
			goto out;
		}
		/* paging off: the nonpaging MMU (gva = gpa), no guest walk */
		if (!m->cpu_role.level) {
			rc = nxsim__mmu_topup_memory_caches(
				mmu, &vcpu->mmu_cache, 0);
			if (rc)
				goto out;
			if (mmio)
				VCPU_COUNT(vcpu, mmio_stale);
			kvm_mmu_load(mmu, &vcpu->mmu_cache, m);
			rc = nxsim__nonpaging_page_fault(mmu, vcpu, kind, addr,
							 sptep, spte, level,
							 info);
			goto out;
		}
		rc = shadow_topup_caches(mmu, &vcpu->mmu_cache);
		if (!rc && mmio)
			VCPU_COUNT(vcpu, mmio_stale);
		/* the hardware's error code: a present SPTE refused it */
		if (!rc)
			rc = page_fault(mmu, vcpu, m, addr,
					pfec | (sptep ? PFERR_PRESENT_MASK : 0),
					info);
out:
		nxsim__rw_unlock(&mmu->mmu_lock);
		if (rc != RET_PF_RETRY)
			return rc;
		/* the guest faults again */
		__atomic_fetch_add(&mmu->fault_retries, 1, __ATOMIC_RELAXED);
		nxsim__sched_point(mmu, NXSIM__SCHED_RETRY, addr >> 12, 0);
		*info = (struct nxsim_access_info){ 0 };
	}
}
