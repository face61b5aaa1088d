/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shadow paging's view of the guest: the guest MMU of a vCPU (the parts
 * of struct kvm_mmu that describe the guest's paging: cpu_role, PDPTRs,
 * guest_rsvd_check, the permission bitmask) and the guest page-table
 * walker of arch/x86/kvm/mmu/paging_tmpl.h (struct guest_walker,
 * FNAME(walk_addr_generic)), built once for both guest PTE types (see
 * guest_walk.c), and the calls into the shadow fault path (paging_tmpl.c).
 */
#ifndef NXSIM_MMU_PAGING_TMPL_H
#define NXSIM_MMU_PAGING_TMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/guest.h>
#include <nxsim/mmu.h>

/* Paging levels of the guest (PT*_ROOT_LEVEL). */
#define PT32_ROOT_LEVEL 2
#define PT32E_ROOT_LEVEL 3
#define PT64_ROOT_4LEVEL 4

#define NXSIM__GUEST_MAX_LEVELS 4 /* PT_MAX_FULL_LEVELS without LA57 */

/**
 * struct nxsim__cpu_role - union kvm_cpu_role, the bits the walker uses
 * @level: 0 (paging off), PT32_ROOT_LEVEL, PT32E_ROOT_LEVEL or
 *	PT64_ROOT_4LEVEL
 * @has_4_byte_gpte: 32-bit paging (PTTYPE 32)
 * @cr0_wp: CR0.WP
 * @cr4_pse: CR4.PSE
 * @efer_nx: EFER.NXE
 */
struct nxsim__cpu_role {
	uint8_t level;
	bool has_4_byte_gpte;
	bool cr0_wp;
	bool cr4_pse;
	bool efer_nx;
};

/**
 * struct nxsim__kvm_mmu - a vCPU's guest MMU (struct kvm_mmu, the guest
 *			    half, and the registers it is built from)
 * @regs: CR0, CR4, EFER, CR3 and CPL as the guest loaded them
 * @cpu_role: the guest's paging mode
 * @pdptrs: the PAE PDPTRs loaded with CR3 (load_pdptrs())
 * @rsvd_bits_mask: guest_rsvd_check.rsvd_bits_mask[bit 7][level - 1]
 * @permissions: the permission bitmask, by error code >> 1, one bit per
 *	ACC_* combination (update_permission_bitmask())
 *
 * Zeroed is paging off.  Read and written under the VM's mmu_lock.
 */
struct nxsim__kvm_mmu {
	struct nxsim_guest_paging regs;
	struct nxsim__cpu_role cpu_role;
	uint64_t pdptrs[4];
	uint64_t rsvd_bits_mask[2][NXSIM__GUEST_MAX_LEVELS];
	uint8_t permissions[16];
};

/**
 * struct nxsim__guest_walker - struct guest_walker
 * @level: the level reached: the mapping's on success, the failing
 *	entry's on a fault
 * @max_level: the level the walk started at
 * @table_gfn: [level - 1]: the gfn of the table read at that level
 * @ptes: [level - 1]: the entry read there
 * @pte_gpa: [level - 1]: its guest physical address
 * @ptep_user: [level - 1]: where its bytes are in guest memory
 * @pte_writable: [level - 1]: its slot is writable (A/D may be set)
 * @pt_access: [level - 1]: the access of the walk above that entry
 * @pte_access: the mapping's effective access (ACC_*)
 * @gfn: the translated gfn
 * @fault: the walk failed
 * @error_code: the page fault's error code (fault.error_code)
 */
struct nxsim__guest_walker {
	int level;
	int max_level;
	uint64_t table_gfn[NXSIM__GUEST_MAX_LEVELS];
	uint64_t ptes[NXSIM__GUEST_MAX_LEVELS];
	uint64_t pte_gpa[NXSIM__GUEST_MAX_LEVELS];
	uint8_t *ptep_user[NXSIM__GUEST_MAX_LEVELS];
	bool pte_writable[NXSIM__GUEST_MAX_LEVELS];
	unsigned int pt_access[NXSIM__GUEST_MAX_LEVELS];
	unsigned int pte_access;
	uint64_t gfn;
	bool fault;
	uint32_t error_code;
};

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

/*
 * A guest access with TDP off (the vCPU running, kvm_mmu_page_fault()):
 * the hardware walk of the shadow tables from the VM's root and, if it
 * misses, FNAME(page_fault) (paging on) or nonpaging_page_fault()
 * (paging off), page-table pages from the vCPU's cache; takes mmu_lock.
 * Return: 0; -ERANGE for an address the mode cannot form; -ENOMEM.
 */
int nxsim__kvm_mmu_page_fault(struct nxsim__vm_mmu *mmu,
			      struct nxsim__vcpu_mmu *vcpu,
			      const struct nxsim__kvm_mmu *m,
			      enum nxsim_access_kind kind, uint64_t addr,
			      struct nxsim_access_info *info);

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
