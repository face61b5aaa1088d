// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dirty log of memory slots, as x86 KVM in 6.1 keeps it:
 *   - KVM_GET_DIRTY_LOG (kvm_get_dirty_log_protect() of virt/kvm/kvm_main.c):
 *     the slot's bitmap is copied out; without manual protection each
 *     non-zero word is taken (xchg with 0) and its pages are protected
 *     again (kvm_arch_mmu_enable_log_dirty_pt_masked()), then one flush of
 *     the slot (kvm_arch_flush_remote_tlbs_memslot());
 *   - KVM_CLEAR_DIRTY_LOG (kvm_clear_dirty_log_protect()): the argument
 *     checks, then the bits of the caller's bitmap that are set in the
 *     slot's are cleared (atomic_long_fetch_andnot()) and their pages
 *     protected, one flush if any bit was cleared;
 *   - KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 (kvm_vm_ioctl_enable_cap_generic());
 *   - kvm_arch_mmu_enable_log_dirty_pt_masked() of arch/x86/kvm/mmu/mmu.c:
 *     with KVM_DIRTY_LOG_INITIALLY_SET, the huge pages under the mask's
 *     first and last gfn are split to 4K when kvm.eager_page_split is set
 *     (kvm_mmu_try_split_huge_pages(), TDP MMU, mmu_lock held for write;
 *     the range ends at the last gfn itself, exclusive, as 6.1's does,
 *     or after it from 1aa4bb916808, 6.8, by profile), then
 *     write-protected at 2M and above
 *     (kvm_mmu_slot_gfn_write_protect(), the first gfn's and, if another
 *     2 MiB region, the last one's); then the 4K leaves of the mask lose
 *     D with PML (EPT here: kvm_mmu_clear_dirty_pt_masked()) or W
 *     (kvm_mmu_write_protect_pt_masked()), on the TDP MMU and through the
 *     4K rmaps.
 *
 * Both ioctls run under slots_lock (the caller's) and mmu_lock held for
 * write (KVM_MMU_LOCK()).  kvm_arch_sync_dirty_log() has nothing to do:
 * the model logs a PML write at once (src/mmu/mmu.c), as if every PML
 * buffer were flushed before the ioctl.  Left out: the dirty ring
 * (-ENXIO), the shadow MMU's eager split of nested pages
 * (kvm_shadow_mmu_try_split_huge_pages()), and -EFAULT from a partly
 * unmapped user buffer: a NULL one is -EINVAL before anything changes.
 */
#include <errno.h>
#include <string.h>

#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"

int nxsim__mmu_enable_manual_dirty_log_protect(struct nxsim__vm_mmu *mmu,
					       uint32_t flags, uint64_t arg0)
{
	uint64_t allowed = NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE;

	if (arg0 & NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE)
		allowed |= NXSIM_DIRTY_LOG_INITIALLY_SET;
	if (flags || (arg0 & ~allowed))
		return -EINVAL;
	WRITE_ONCE(mmu->manual_dirty_log_protect, arg0);
	return 0;
}

/* kvm_mmu_try_split_huge_pages(): TDP MMU only, mmu_lock held for write. */
static void kvm_mmu_try_split_huge_pages(struct nxsim__vm_mmu *mmu,
					 const struct nxsim__memslot *slot,
					 uint64_t start, uint64_t end,
					 int target_level)
{
	if (!mmu->tdp_mmu_enabled)
		return;
	nxsim__kvm_tdp_mmu_try_split_huge_pages(mmu, slot, start, end,
						target_level, false);
}

/*
 * kvm_mmu_write_protect_pt_masked() (@clear_dirty false) and
 * kvm_mmu_clear_dirty_pt_masked() (true): the 4K leaves of the gfns
 * base_gfn + @gfn_offset + bit of @mask.
 */
static void protect_pt_masked(struct nxsim__vm_mmu *mmu,
			      struct nxsim__memslot *slot, uint64_t gfn_offset,
			      uint64_t mask, bool clear_dirty)
{
	if (mmu->tdp_mmu_enabled)
		nxsim__kvm_tdp_mmu_clear_dirty_pt_masked(
			mmu, slot, slot->base_gfn + gfn_offset, mask,
			!clear_dirty);
	/* kvm_memslots_have_rmaps() */
	if (!slot->rmap[0])
		return;
	for (; mask; mask &= mask - 1)
		nxsim__rmap_protect_4k(mmu, slot,
				       slot->base_gfn + gfn_offset +
					       (uint64_t)__builtin_ctzll(mask),
				       clear_dirty);
}

/* kvm_arch_mmu_enable_log_dirty_pt_masked(); @mask is not 0. */
static void kvm_arch_mmu_enable_log_dirty_pt_masked(struct nxsim__vm_mmu *mmu,
						    struct nxsim__memslot *slot,
						    uint64_t gfn_offset,
						    uint64_t mask)
{
	if (nxsim__kvm_dirty_log_manual_protect_and_init_set(mmu)) {
		uint64_t start = slot->base_gfn + gfn_offset +
				 (uint64_t)__builtin_ctzll(mask);
		uint64_t end = slot->base_gfn + gfn_offset + 63 -
			       (uint64_t)__builtin_clzll(mask);

		/*
		 * 6.1 passes the last gfn as the (exclusive) end; from
		 * 1aa4bb916808 (6.8) the last gfn + 1
		 */
		if (READ_ONCE(mmu->params->eager_page_split))
			kvm_mmu_try_split_huge_pages(
				mmu, slot, start,
				end + mmu->prof->clear_dirty_log_end_inclusive,
				NXSIM_PG_LEVEL_4K);
		nxsim__kvm_mmu_slot_gfn_write_protect(mmu, slot, start,
						      NXSIM_PG_LEVEL_2M);
		/*
		 * "Cross two large pages?": ALIGN() rounds up, so a 2 MiB
		 * aligned start counts as crossing too (the second call
		 * then finds the huge leaf protected already).
		 */
		if (((start + 511) & ~511ull) != ((end + 511) & ~511ull))
			nxsim__kvm_mmu_slot_gfn_write_protect(
				mmu, slot, end, NXSIM_PG_LEVEL_2M);
	}
	/* kvm_x86_ops.cpu_dirty_log_size: PML, on EPT */
	protect_pt_masked(mmu, slot, gfn_offset, mask,
			  mmu->fmt == NXSIM_SPTE_EPT);
}

/* kvm_arch_flush_remote_tlbs_memslot() */
static void kvm_arch_flush_remote_tlbs_memslot(struct nxsim__vm_mmu *mmu,
					       const struct nxsim__memslot *s)
{
	nxsim__kvm_flush_remote_tlbs_range(mmu, s->base_gfn, s->npages);
}

/* The slot of @slot_id (address space in bits 16-31) with a bitmap. */
static int dirty_log_slot(struct nxsim__vm_mmu *mmu, uint32_t slot_id,
			  struct nxsim__memslot **sp)
{
	int as_id = (int)(slot_id >> 16);
	uint16_t id = (uint16_t)slot_id;

	if (as_id >= KVM_ADDRESS_SPACE_NUM || id >= NXSIM_USER_MEM_SLOTS)
		return -EINVAL;
	*sp = nxsim__id_to_memslot(mmu, as_id, id);
	if (!*sp || !(*sp)->dirty_bitmap)
		return -ENOENT;
	return 0;
}

int nxsim__kvm_get_dirty_log_protect(struct nxsim__vm_mmu *mmu,
				     uint32_t slot_id, uint64_t *out)
{
	struct nxsim__memslot *s;
	uint64_t i, n, mask;
	bool flush = false;
	int rc = dirty_log_slot(mmu, slot_id, &s);

	if (rc)
		return rc;
	n = nxsim__dirty_bitmap_words(s->npages);
	if (READ_ONCE(mmu->manual_dirty_log_protect)) {
		for (i = 0; i < n; i++)
			out[i] = __atomic_load_n(&s->dirty_bitmap[i],
						 __ATOMIC_RELAXED);
		return 0;
	}
	/* the second bitmap, as the kernel's buffer */
	memset(s->dirty_bitmap + n, 0, n * sizeof(uint64_t));
	nxsim__write_lock(&mmu->mmu_lock);
	for (i = 0; i < n; i++) {
		if (!__atomic_load_n(&s->dirty_bitmap[i], __ATOMIC_RELAXED))
			continue;
		flush = true;
		mask = __atomic_exchange_n(&s->dirty_bitmap[i], 0,
					   __ATOMIC_RELAXED);
		s->dirty_bitmap[n + i] = mask;
		kvm_arch_mmu_enable_log_dirty_pt_masked(mmu, s, i * 64, mask);
	}
	nxsim__rw_unlock(&mmu->mmu_lock);
	if (flush)
		kvm_arch_flush_remote_tlbs_memslot(mmu, s);
	memcpy(out, s->dirty_bitmap + n, n * sizeof(uint64_t));
	return 0;
}

int nxsim__kvm_clear_dirty_log_protect(struct nxsim__vm_mmu *mmu,
				       uint32_t slot_id, uint64_t first_page,
				       uint32_t num_pages,
				       const uint64_t *bitmap)
{
	struct nxsim__memslot *s;
	uint64_t offset, i, n, mask;
	bool flush = false;
	int rc;

	if (first_page & 63)
		return -EINVAL;
	rc = dirty_log_slot(mmu, slot_id, &s);
	if (rc)
		return rc;
	if (first_page > s->npages || num_pages > s->npages - first_page ||
	    (num_pages < s->npages - first_page && (num_pages & 63)))
		return -EINVAL;
	/* copy_from_user() of ALIGN(num_pages, 64) / 8 bytes: nothing is
	 * cleared yet */
	if (num_pages && !bitmap)
		return -EFAULT;
	nxsim__write_lock(&mmu->mmu_lock);
	for (offset = first_page, i = offset / 64, n = (num_pages + 63ull) / 64;
	     n--; i++, offset += 64) {
		mask = *bitmap++;
		if (!mask)
			continue;
		mask &= __atomic_fetch_and(&s->dirty_bitmap[i], ~mask,
					   __ATOMIC_RELAXED);
		if (mask) {
			flush = true;
			kvm_arch_mmu_enable_log_dirty_pt_masked(mmu, s, offset,
								mask);
		}
	}
	nxsim__rw_unlock(&mmu->mmu_lock);
	if (flush)
		kvm_arch_flush_remote_tlbs_memslot(mmu, s);
	return 0;
}
