/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest page-table walker of arch/x86/kvm/mmu/paging_tmpl.h as the
 * shadow fault path shares it (guest_walk.c walks, paging_tmpl.c shadows):
 * the PFERR_* and PT_* constants, the PTTYPE descriptor (struct pt_type)
 * and its two instances, the gpte helpers of the template (FNAME()'s
 * prefix dropped, static inline as the kernel's are per instance), and
 * FNAME(walk_addr_generic), with the types it reads and fills: the guest
 * MMU of a vCPU (the parts of struct kvm_mmu that describe the guest's
 * paging: cpu_role, PDPTRs, guest_rsvd_check, the permission bitmask),
 * the root levels and struct guest_walker.  See guest_walk.c for what is
 * left out.
 */
#ifndef NXSIM_MMU_GUEST_WALK_H
#define NXSIM_MMU_GUEST_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/guest.h>

#include "mmu/spte.h"

#define PFERR_PRESENT_MASK NXSIM_PFERR_PRESENT
#define PFERR_WRITE_MASK NXSIM_PFERR_WRITE
#define PFERR_USER_MASK NXSIM_PFERR_USER
#define PFERR_RSVD_MASK NXSIM_PFERR_RSVD
#define PFERR_FETCH_MASK NXSIM_PFERR_FETCH

/* ACC_*_MASK, PT_WRITABLE_MASK and PT_PAGE_SIZE_MASK come from spte.h. */
#define PT_PRESENT_MASK NXSIM_GPTE_P
#define PT_USER_MASK NXSIM_GPTE_U
#define PT_WRITABLE_SHIFT 1
#define PT64_NX_SHIFT 63
#define PT_GUEST_ACCESSED_SHIFT 5
#define PT_GUEST_DIRTY_SHIFT 6
#define PT_GUEST_ACCESSED_MASK NXSIM_GPTE_A
#define PT_GUEST_DIRTY_MASK NXSIM_GPTE_D

#define PT32_DIR_PSE36_SIZE 4
#define PT32_DIR_PSE36_SHIFT 13
#define PT32_DIR_PSE36_MASK \
	(((1ull << PT32_DIR_PSE36_SIZE) - 1) << PT32_DIR_PSE36_SHIFT)

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

/**
 * struct pt_type - what PTTYPE selects in paging_tmpl.h
 * @pttype: 64 or 32
 * @level_bits: PT_LEVEL_BITS
 * @size: sizeof(pt_element_t)
 * @elem_mask: the bits a pt_element_t holds
 * @base_addr_mask: PT_BASE_ADDR_MASK
 * @walk_nx_mask: the NX bit the walk inverts (0 for PTTYPE 32)
 */
struct pt_type {
	int pttype;
	unsigned int level_bits;
	unsigned int size;
	uint64_t elem_mask;
	uint64_t base_addr_mask;
	uint64_t walk_nx_mask;
};

/* PTTYPE 64 (64-bit and PAE paging) and PTTYPE 32 (32-bit paging) */
extern const struct pt_type nxsim__paging64;
extern const struct pt_type nxsim__paging32;

/* The PTTYPE of 4-byte (32-bit paging) or 8-byte guest entries. */
static inline const struct pt_type *pt_type_of(bool has_4_byte_gpte)
{
	return has_4_byte_gpte ? &nxsim__paging32 : &nxsim__paging64;
}

/* __PT_INDEX() */
static inline unsigned int pt_index(const struct pt_type *pt, uint64_t addr,
				    int level)
{
	return (addr >> (12 + (level - 1) * pt->level_bits)) &
	       ((1u << pt->level_bits) - 1);
}

/* PT_LVL_ADDR_MASK() */
static inline uint64_t pt_lvl_addr_mask(const struct pt_type *pt, int level)
{
	return pt->base_addr_mask &
	       ~((1ull << (12 + (level - 1) * pt->level_bits)) - 1);
}

/* PT_LVL_OFFSET_MASK() */
static inline uint64_t pt_lvl_offset_mask(const struct pt_type *pt, int level)
{
	return pt->base_addr_mask &
	       ((1ull << (12 + (level - 1) * pt->level_bits)) - 1);
}

/* FNAME(gpte_to_gfn_lvl) */
static inline uint64_t gpte_to_gfn_lvl(const struct pt_type *pt, uint64_t gpte,
				       int lvl)
{
	return (gpte & pt_lvl_addr_mask(pt, lvl)) >> 12;
}

/* pse36_gfn_delta(): bits 13-16 of a 4 MiB PDE are address bits 32-35. */
static inline uint64_t pse36_gfn_delta(uint64_t gpte)
{
	int shift = 32 - PT32_DIR_PSE36_SHIFT - 12;

	return (gpte & PT32_DIR_PSE36_MASK) << shift;
}

/* FNAME(protect_clean_gpte): no write access through a clean gpte. */
static inline void protect_clean_gpte(unsigned int *access, uint64_t gpte)
{
	unsigned int mask = ~(unsigned int)ACC_WRITE_MASK;

	mask |= (gpte >> (PT_GUEST_DIRTY_SHIFT - PT_WRITABLE_SHIFT)) &
		PT_WRITABLE_MASK;
	*access &= mask;
}

/* FNAME(is_present_gpte) */
static inline bool is_present_gpte(uint64_t pte)
{
	return pte & PT_PRESENT_MASK;
}

/* FNAME(is_rsvd_bits_set): __is_rsvd_bits_set() on guest_rsvd_check */
static inline bool is_rsvd_bits_set(const struct nxsim__kvm_mmu *m,
				    uint64_t gpte, int level)
{
	int bit7 = (gpte >> 7) & 1;

	return gpte & m->rsvd_bits_mask[bit7][level - 1];
}

/*
 * FNAME(gpte_access): W, U and P (which is ACC_EXEC_MASK), with NX
 * folded into exec.  PTTYPE 32 entries have no bit 63.
 */
static inline unsigned int gpte_access(uint64_t gpte)
{
	unsigned int access;

	access = gpte & (PT_WRITABLE_MASK | PT_USER_MASK | PT_PRESENT_MASK);
	access ^= (gpte >> PT64_NX_SHIFT);
	return access;
}

/*
 * FNAME(is_last_gpte): bit 7 ends the walk above 4K; in 32-bit paging only
 * at the PDE and only with CR4.PSE, where it is ignored otherwise.
 */
static inline bool is_last_gpte(const struct pt_type *pt,
				const struct nxsim__kvm_mmu *m, int level,
				uint64_t gpte)
{
	if (pt->pttype == 32)
		gpte &= (uint64_t)(level -
				   (PT32_ROOT_LEVEL + m->cpu_role.cr4_pse));
	gpte |= (uint64_t)(level - NXSIM_PG_LEVEL_4K - 1);
	return gpte & PT_PAGE_SIZE_MASK;
}

struct nxsim__vm_mmu;

/*
 * FNAME(walk_addr_generic): walk @addr for @access (PFERR_* bits) in the
 * guest tables of @m, filling @w.  Called with mmu_lock held for write.
 * Return: 1, or 0 with w->fault and w->error_code set.
 */
int nxsim__walk_addr_generic(struct nxsim__vm_mmu *mmu,
			     const struct nxsim__kvm_mmu *m,
			     struct nxsim__guest_walker *w, uint64_t addr,
			     uint32_t access);

/*
 * The linear addresses the mode can form: canonical, or 32 bits; false
 * records why (nxsim_error_detail()).
 */
bool nxsim__guest_gva_ok(const struct nxsim__kvm_mmu *m, uint64_t gva);

/*
 * kvm_mmu_new_pgd() for the CR3 load of nxsim__guest_set_paging(), in
 * paging_tmpl.c; mmu_lock held for write.
 */
void nxsim__kvm_mmu_new_pgd(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__kvm_mmu *m);

#endif /* NXSIM_MMU_GUEST_WALK_H */
