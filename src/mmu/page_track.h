/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Write tracking of guest frames (arch/x86/include/asm/kvm_page_track.h;
 * arch/x86/kvm/mmu/page_track.h from 6.5), the KVM_PAGE_TRACK_WRITE mode:
 * page_track.c.
 */
#ifndef NXSIM_MMU_PAGE_TRACK_H
#define NXSIM_MMU_PAGE_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/mmu_internal.h"

/* kvm_slot_page_track_add_page(..., KVM_PAGE_TRACK_WRITE) */
void nxsim__kvm_slot_page_track_add_page(struct nxsim__vm_mmu *mmu,
					 struct nxsim__memslot *slot,
					 uint64_t gfn);
/* kvm_slot_page_track_remove_page(..., KVM_PAGE_TRACK_WRITE) */
void nxsim__kvm_slot_page_track_remove_page(struct nxsim__vm_mmu *mmu,
					    struct nxsim__memslot *slot,
					    uint64_t gfn);
/* kvm_slot_page_track_is_active(..., KVM_PAGE_TRACK_WRITE) */
bool nxsim__kvm_slot_page_track_is_active(const struct nxsim__memslot *slot,
					  uint64_t gfn);

#endif /* NXSIM_MMU_PAGE_TRACK_H */
