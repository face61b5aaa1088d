// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write tracking of guest pages (arch/x86/kvm/mmu/page_track.c, the
 * KVM_PAGE_TRACK_WRITE mode): a count per 4K gfn of the slot; a tracked
 * gfn may not be mapped huge (its lpage_info counts are raised) and its
 * leaves are write-protected.  The shadow MMU tracks the guest tables it
 * shadows at levels above 4K (account_shadowed()).
 *
 * Left out: the external trackers (kvm_page_track_notifier_node, used by
 * KVMGT) and KVM_PAGE_TRACK_PREWRITE / the write notifier chain.
 */
#include "core/compiler.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/shadow_mmu.h"

/* update_gfn_track() */
static void update_gfn_track(struct nxsim__memslot *slot, uint64_t gfn,
			     int count)
{
	unsigned short *val = &slot->gfn_write_track[gfn - slot->base_gfn];

	if (WARN_ON((int)*val + count < 0 || (int)*val + count > 0xffff))
		return;
	*val = (unsigned short)(*val + count);
}

void nxsim__kvm_slot_page_track_add_page(struct nxsim__vm_mmu *mmu,
					 struct nxsim__memslot *slot,
					 uint64_t gfn)
{
	update_gfn_track(slot, gfn, 1);
	/* A new track stops huge mappings of the tracked page. */
	nxsim__kvm_mmu_gfn_disallow_lpage(slot, gfn);
	if (nxsim__kvm_mmu_slot_gfn_write_protect(mmu, slot, gfn,
						  NXSIM_PG_LEVEL_4K))
		nxsim__kvm_flush_remote_tlbs(mmu);
}

void nxsim__kvm_slot_page_track_remove_page(struct nxsim__vm_mmu *mmu,
					    struct nxsim__memslot *slot,
					    uint64_t gfn)
{
	(void)mmu;
	update_gfn_track(slot, gfn, -1);
	/* Huge mappings are allowed again once no tracker is left. */
	nxsim__kvm_mmu_gfn_allow_lpage(slot, gfn);
}

bool nxsim__kvm_slot_page_track_is_active(const struct nxsim__memslot *slot,
					  uint64_t gfn)
{
	return slot->gfn_write_track &&
	       slot->gfn_write_track[gfn - slot->base_gfn] != 0;
}
