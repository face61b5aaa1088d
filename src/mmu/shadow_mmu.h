/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shadow MMU's calls between files (the shadow-page half of
 * arch/x86/kvm/mmu/mmu.c, split out as upstream proposes to): the rmaps
 * (rmap.c), shadow pages (shadow_mmu.c), the legacy direct MMU
 * (direct_map.c) and the write protection of guest tables (pte_write.c).
 * The shadow fault path itself is paging_tmpl.h's.
 */
#ifndef NXSIM_MMU_SHADOW_MMU_H
#define NXSIM_MMU_SHADOW_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/mmu_internal.h"

LIST_HEAD(nxsim__sp_hlist, nxsim__mmu_page);

/* KVM_MMU_HASH_SHIFT */
#define NXSIM__MMU_HASH_SHIFT 12
#define NXSIM__MMU_HASH_SIZE (1u << NXSIM__MMU_HASH_SHIFT)

/* ---- rmap.c: reverse maps ------------------------------------------------ */

/*
 * An SPTE's address as rmaps keep it: its page's frame (plus one, so that
 * no reference is 0) and its index, shifted left once (bit 0 of a
 * struct nxsim__kvm_rmap_head tells a descriptor chain).
 */
static inline uintptr_t sptep_ref(const struct nxsim__mmu_page *sp,
				  unsigned int idx)
{
	return ((uintptr_t)(sp->id + 1ull) << 10) | ((uintptr_t)idx << 1);
}

/* sptep_to_sp() */
static inline struct nxsim__mmu_page *ref_to_sp(struct nxsim__vm_mmu *mmu,
						uintptr_t ref)
{
	return nxsim__frame(mmu, (uint32_t)((ref >> 10) - 1))->sp;
}

/* spte_index(sptep) */
static inline unsigned int ref_index(uintptr_t ref)
{
	return (ref >> 1) & (SPTE_ENT_PER_PAGE - 1);
}

static inline uint64_t *ref_to_sptep(struct nxsim__vm_mmu *mmu, uintptr_t ref)
{
	return &ref_to_sp(mmu, ref)->spt[ref_index(ref)];
}

/* struct rmap_iterator */
struct nxsim__rmap_iterator {
	struct nxsim__pte_list_desc *desc;
	int pos;
};

/* Fill the descriptor cache (0 or -ENOMEM, taking back what it took). */
int nxsim__mmu_topup_desc_cache(struct nxsim__vm_mmu *mmu);
void nxsim__mmu_free_desc_cache(struct nxsim__vm_mmu *mmu);
/* pte_list_add(): Return: entries there were before. */
int nxsim__pte_list_add(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			struct nxsim__kvm_rmap_head *rmap_head);
/* pte_list_remove(): @spte must be on the list. */
void nxsim__pte_list_remove(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			    struct nxsim__kvm_rmap_head *rmap_head);
/* pte_list_count() */
unsigned int nxsim__pte_list_count(const struct nxsim__kvm_rmap_head *head);
/* rmap_get_first(), rmap_get_next(): 0 ends the walk. */
uintptr_t nxsim__rmap_get_first(const struct nxsim__kvm_rmap_head *head,
				struct nxsim__rmap_iterator *iter);
uintptr_t nxsim__rmap_get_next(struct nxsim__rmap_iterator *iter);
/* sizeof(struct pte_list_desc) */
size_t nxsim__pte_list_desc_size(void);

#define for_each_rmap_spte(head, iter, ref)                        \
	for ((ref) = nxsim__rmap_get_first((head), (iter)); (ref); \
	     (ref) = nxsim__rmap_get_next(iter))

/* ---- shadow_mmu.c: shadow pages, zaps, rmap walks ------------------------ */

/* Allocate the gfn hash (kvm_mmu_init_vm()); 0 or -ENOMEM. */
int nxsim__shadow_mmu_init_vm(struct nxsim__vm_mmu *mmu);
/* Free the gfn hash, after kvm_mmu_zap_all(). */
void nxsim__shadow_mmu_uninit_vm(struct nxsim__vm_mmu *mmu);
/*
 * Fill the shadowed_translation cache (PT64_ROOT_MAX_LEVEL arrays), for a
 * fault that may make indirect pages.  0 or -ENOMEM; on -ENOMEM the
 * cache is as it was.
 */
int nxsim__mmu_topup_shadowed_info_cache(struct nxsim__vm_mmu *mmu);
void nxsim__mmu_free_shadowed_info_cache(struct nxsim__vm_mmu *mmu);

/* Some pae_root entry is loaded (a PAE or 32-bit guest's roots). */
static inline bool nxsim__pae_roots_loaded(const struct nxsim__vm_mmu *mmu)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++)
		if (mmu->pae_root[i])
			return true;
	return false;
}

/* is_obsolete_sp() */
bool nxsim__is_obsolete_sp(const struct nxsim__vm_mmu *mmu,
			   const struct nxsim__mmu_page *sp);
struct nxsim__kvm_mmu;
/*
 * kvm_mmu_get_shadow_page(): the valid page of @gfn and @role from the
 * hash, or a new one from the cache (kvm_mmu_alloc_shadow_page(), which
 * write-protects @gfn for an indirect page: account_shadowed()).  A found
 * unsync page is synced against the guest MMU @m (kvm_sync_page(); zapped
 * and made anew if that fails); unsync pages of @gfn are zapped when it
 * becomes a table above 4K.  @m is NULL for direct pages.
 */
struct nxsim__mmu_page *
nxsim__kvm_mmu_get_shadow_page(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_memory_cache *mc,
			       const struct nxsim__kvm_mmu *m, uint64_t gfn,
			       union nxsim__kvm_mmu_page_role role);
/*
 * kvm_mmu_get_child_sp(): the page for the child of the SPTE @parent_sp
 * ->spt[@idx]; NULL (the kernel's ERR_PTR(-EEXIST)) when that SPTE
 * already points at a page of this gfn and role.
 */
struct nxsim__mmu_page *nxsim__kvm_mmu_get_child_sp(
	struct nxsim__vm_mmu *mmu, struct nxsim__mmu_memory_cache *mc,
	const struct nxsim__kvm_mmu *m, struct nxsim__mmu_page *parent_sp,
	unsigned int idx, uint64_t gfn, bool direct, unsigned int access);
/* link_shadow_page(): point @parent_sp->spt[@idx] at @sp. */
void nxsim__link_shadow_page(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *parent_sp,
			     unsigned int idx, struct nxsim__mmu_page *sp);
/* drop_parent_pte() */
void nxsim__drop_parent_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, uintptr_t parent_pte);
/* drop_spte() of the leaf @sp->spt[@idx] */
void nxsim__drop_spte(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		      unsigned int idx);
/* mark_unsync() / kvm_mmu_mark_parents_unsync() */
void nxsim__kvm_mmu_mark_parents_unsync(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp);
/* kvm_unlink_unsync_page(): the page is sync again. */
void nxsim__kvm_unlink_unsync_page(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp);
/*
 * FNAME(sync_page) against the guest MMU @m (paging_tmpl.c).  Return: 1
 * if an SPTE changed (a flush is due), 0 if none did, -1 if the page must
 * be zapped (a guest entry could not be read).
 */
int nxsim__sync_page(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		     struct nxsim__mmu_page *sp);
/*
 * mmu_page_zap_pte(): a leaf dropped, a child unlinked, an MMIO SPTE
 * cleared.  Return: child pages zapped.
 */
int nxsim__mmu_page_zap_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, unsigned int idx,
			    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_prepare_zap_page(): Return: pages zapped. */
int nxsim__kvm_mmu_prepare_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp,
				    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_commit_zap_page(): one flush, then free every page. */
void nxsim__kvm_mmu_commit_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_remote_flush_or_zap() */
bool nxsim__kvm_mmu_remote_flush_or_zap(struct nxsim__vm_mmu *mmu,
					struct nxsim__sp_list *invalid_list,
					bool remote_flush);
/*
 * kvm_mmu_zap_all_fast()'s shadow half, after the generation flip: every
 * obsolete page is zapped (kvm_zap_obsolete_pages()); a root a vCPU holds
 * is left invalid for nxsim__kvm_mmu_free_obsolete_roots().
 */
void nxsim__kvm_zap_obsolete_pages(struct nxsim__vm_mmu *mmu);
/*
 * kvm_mmu_free_obsolete_roots() at the vCPU's next entry, if the request
 * is pending: obsolete roots (and loaded PAE roots) are freed, a zapped
 * root with its last hold, and committed with a remote flush.
 */
void nxsim__kvm_mmu_free_obsolete_roots(struct nxsim__vm_mmu *mmu);
/* Post KVM_REQ_MMU_FREE_OBSOLETE_ROOTS to every vCPU (mmu.c). */
void nxsim__mmu_request_free_obsolete_roots(struct nxsim__vm_mmu *mmu);
/* kvm_mmu_zap_all(): every shadow page, at VM destruction. */
void nxsim__kvm_mmu_zap_all(struct nxsim__vm_mmu *mmu);
/* account_shadowed() / unaccount_shadowed() */
void nxsim__account_shadowed(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp);
void nxsim__unaccount_shadowed(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp);
/* kvm_mmu_page_get_gfn() */
uint64_t nxsim__kvm_mmu_page_get_gfn(const struct nxsim__mmu_page *sp,
				     unsigned int idx);
/* gfn_to_rmap() */
struct nxsim__kvm_rmap_head *nxsim__gfn_to_rmap(uint64_t gfn, int level,
						const struct nxsim__memslot *s);
/*
 * kvm_mmu_slot_gfn_write_protect(): clear W (and MMU-writable) on every
 * leaf of @gfn at @min_level or above, through the rmaps and on the TDP
 * MMU; Return: true if a flush is needed.
 */
bool nxsim__kvm_mmu_slot_gfn_write_protect(struct nxsim__vm_mmu *mmu,
					   struct nxsim__memslot *slot,
					   uint64_t gfn, int min_level);
/*
 * rmap_write_protect() (@pt_protect false: W only) or __rmap_clear_dirty()
 * (@clear_dirty) of the 4K rmap of @gfn.
 */
bool nxsim__rmap_protect_4k(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__memslot *slot, uint64_t gfn,
			    bool clear_dirty);

/* sp_has_gptes(): an indirect page shadows a guest table. */
static inline bool sp_has_gptes(const struct nxsim__mmu_page *sp)
{
	return !sp->role.direct && !sp->role.passthrough;
}

/* The gfn hash bucket of @gfn (kvm->arch.mmu_page_hash[hash of @gfn]). */
struct nxsim__sp_hlist *nxsim__gfn_sp_list(struct nxsim__vm_mmu *mmu,
					   uint64_t gfn);

/*
 * The valid shadow pages of guest tables at @gfn
 * (for_each_gfn_valid_sp_with_gptes()).
 */
#define for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)                      \
	LIST_FOREACH(sp, nxsim__gfn_sp_list(mmu, gfn), hash_link)           \
		if ((sp)->gfn != (gfn) || nxsim__is_obsolete_sp(mmu, sp) || \
		    !sp_has_gptes(sp)) {                                    \
		} else

/*
 * mmu_set_spte(): install the leaf of @gfn at @sp->spt[@idx] with
 * @pte_access (ACC_*), keeping rmaps and stats; @f is NULL for a
 * prefetch, which makes the SPTE without the accessed bit
 * (mark_spte_for_access_track() with A/D bits) and with a writable pfn.
 * A table it replaces is unlinked, a different pfn dropped (one flush);
 * W is dropped where the gfn is a shadowed guest table
 * (mmu_try_to_unsync_pages()).  With no @slot (MMIO, caching on) the
 * SPTE is an MMIO SPTE of @f->mmio_gen (mark_mmio_spte()), in no rmap.
 * Return: RET_PF_FIXED, RET_PF_SPURIOUS, or RET_PF_EMULATE for MMIO and
 * for a write fault on a write-protected guest table.
 */
int nxsim__mmu_set_spte(struct nxsim__vm_mmu *mmu,
			const struct nxsim__memslot *slot,
			struct nxsim__mmu_page *sp, unsigned int idx,
			unsigned int pte_access, uint64_t gfn, uint64_t pfn,
			const struct nxsim__kvm_page_fault *f);
/*
 * kvm_mmu_free_roots() of the vCPUs' current root of @as_id, and in
 * address space 0 of each valid pae_root entry: put (mmu_free_root_page()),
 * the pages kept cached unless they were zapped while held, which are
 * freed with a remote flush (kvm_mmu_commit_zap_page()).
 */
void nxsim__mmu_free_root_page(struct nxsim__vm_mmu *mmu, int as_id);

/* kvm_unmap_gfn_range() over the rmaps of [start, end) of @slot. */
void nxsim__kvm_rmap_zap_gfn_range(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t start, uint64_t end);
/* A slot_handle_level() handler: true if the TLBs need a flush. */
typedef bool (*nxsim__slot_level_handler)(struct nxsim__vm_mmu *mmu,
					  struct nxsim__kvm_rmap_head *head,
					  const struct nxsim__memslot *slot,
					  int level, void *ctx);
/* slot_handle_level(): @fn on every rmap head of @slot's levels. */
bool nxsim__slot_handle_level(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__memslot *slot,
			      nxsim__slot_level_handler fn, int start_level,
			      int end_level, void *ctx);
/* Dirty logging on: kvm_mmu_slot_remove_write_access() and friends. */
void nxsim__shadow_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot);
/* Dirty logging off: kvm_mmu_zap_collapsible_sptes() on the rmaps. */
void nxsim__kvm_rmap_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					   const struct nxsim__memslot *slot);

/* ---- direct_map.c: the legacy direct MMU --------------------------------- */

/* direct_pte_prefetch() after a 4K leaf of a direct page */
void nxsim__direct_pte_prefetch(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, unsigned int idx);
/*
 * account_huge_nx_page() (6.1) / account_nx_huge_page() (6.2 on) of a page
 * a fault with huge_page_disallowed linked at @level.
 */
void nxsim__account_nx_huge_page(struct nxsim__vm_mmu *mmu,
				 const struct nxsim__kvm_page_fault *f,
				 struct nxsim__mmu_page *sp, int level);

/*
 * mmu_alloc_direct_roots(): a root of address space @as_id (role.smm)
 * from the vCPU's cache @mc.
 */
void nxsim__mmu_alloc_direct_roots(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc,
				   int as_id);
/*
 * direct_map(), with direct_pte_prefetch(), pages from @mc; fills @info as
 * the TDP map.
 */
void nxsim__direct_map(struct nxsim__vm_mmu *mmu,
		       struct nxsim__mmu_memory_cache *mc,
		       struct nxsim__kvm_page_fault *f,
		       struct nxsim_access_info *info);

/* ---- pte_write.c: write protection of guest tables ---------------------- */

/*
 * mmu_try_to_unsync_pages(): 0 if a writable SPTE may map @gfn (its
 * shadow pages, all 4K ones, are or are made unsync), -EPERM where it is
 * write-tracked or shadowed and !@can_unsync, -EEXIST where a sync page
 * would have to go unsync for a @prefetch.
 */
int nxsim__mmu_try_to_unsync_pages(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t gfn, bool can_unsync,
				   bool prefetch);

/*
 * The emulated store of @bytes at @val to guest table memory at @gpa
 * (emulator_write_phys() -> kvm_page_track_write() -> kvm_mmu_pte_write()).
 */
int nxsim__emulate_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			     const void *val, unsigned int bytes);

/* __clear_sp_write_flooding_count(): a fault walked through @sp. */
static inline void __clear_sp_write_flooding_count(struct nxsim__mmu_page *sp)
{
	sp->write_flooding_count = 0;
}

#endif /* NXSIM_MMU_SHADOW_MMU_H */
