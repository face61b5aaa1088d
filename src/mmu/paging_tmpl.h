/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calls into the shadow fault path of arch/x86/kvm/mmu/paging_tmpl.h
 * (paging_tmpl.c) and the guest-side calls of the API: the guest's
 * paging registers, translation, guest PTE stores, INVLPG, guest memory.
 * The guest MMU and the walker's types (struct nxsim__kvm_mmu, the
 * cpu_role, struct guest_walker, the root levels) are guest_walk.h's.
 */
#ifndef NXSIM_MMU_PAGING_TMPL_H
#define NXSIM_MMU_PAGING_TMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/guest.h>
#include <nxsim/mmu.h>

#include "mmu/guest_walk.h"

struct nxsim__vm_mmu;
struct nxsim__vcpu_mmu;

/* The mode the role describes. */
enum nxsim_guest_mode nxsim__guest_mode(const struct nxsim__kvm_mmu *m);

/*
 * kvm_set_cr0() / kvm_set_cr4() / kvm_set_efer() / kvm_set_cr3() with
 * load_pdptrs(), then kvm_init_mmu() for the new state; takes mmu_lock.
 * Return: 0 or -EINVAL (the guest's MOV would #GP; nothing changed).
 */
int nxsim__guest_set_paging(struct nxsim__vm_mmu *mmu, struct nxsim__kvm_mmu *m,
			    const struct nxsim_guest_paging *p);

/*
 * FNAME(gva_to_gpa) as the API asks for it: checks @gva against the
 * mode, takes mmu_lock and fills @out.  Return: 0 or -EINVAL.
 */
int nxsim__guest_translate(struct nxsim__vm_mmu *mmu,
			   const struct nxsim__kvm_mmu *m, uint64_t gva,
			   uint32_t pfec, struct nxsim_guest_walk *out);

/*
 * A guest store of a @size-byte PTE at @gpa; takes mmu_lock.
 * Return: 0, -EINVAL, -EFAULT or -ENOMEM.
 */
int nxsim__guest_write_pte(struct nxsim__vm_mmu *mmu,
			   const struct nxsim__kvm_mmu *m, uint64_t gpa,
			   uint64_t pte, unsigned int size);

/*
 * INVLPG of @gva (kvm_mmu_invlpg() -> FNAME(invlpg) on the current root,
 * with paging on; nothing to do with paging off); takes mmu_lock.
 * Return: 0 or -ERANGE (an address the mode cannot form).
 */
int nxsim__guest_invlpg(struct nxsim__vm_mmu *mmu,
			const struct nxsim__kvm_mmu *m, uint64_t gva);

/* The registers and mode, read under mmu_lock. */
void nxsim__guest_get_paging(struct nxsim__vm_mmu *mmu,
			     const struct nxsim__kvm_mmu *m,
			     struct nxsim_guest_paging *p,
			     enum nxsim_guest_mode *mode);

/* Guest memory calls of the API, taking mmu_lock. */
int nxsim__guest_write(struct nxsim__vm_mmu *mmu, uint64_t gpa, const void *buf,
		       size_t len);
int nxsim__guest_read(struct nxsim__vm_mmu *mmu, uint64_t gpa, void *buf,
		      size_t len);
int64_t nxsim__guest_nr_pages(struct nxsim__vm_mmu *mmu);

#endif /* NXSIM_MMU_PAGING_TMPL_H */
