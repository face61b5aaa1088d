// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest page-table walker of arch/x86/kvm/mmu/paging_tmpl.h, and the
 * guest-mode half of arch/x86/kvm/mmu/mmu.c and x86.c it depends on:
 *   - the guest MMU of a vCPU: the cpu_role of the control registers
 *     (kvm_calc_cpu_role()), the reserved-bit masks
 *     (reset_guest_rsvds_bits_mask(), __reset_rsvds_bits_mask()), the
 *     permission bitmask (update_permission_bitmask()) and the checks of
 *     kvm_set_cr0/cr4/efer/cr3() with load_pdptrs();
 *   - FNAME(walk_addr_generic) with is_present_gpte(), is_rsvd_bits_set(),
 *     is_last_gpte(), gpte_access(), protect_clean_gpte(),
 *     permission_fault(), pse36_gfn_delta() and
 *     update_accessed_dirty_bits(), for 4-level 64-bit and PAE paging
 *     (PTTYPE 64) and 2-level 32-bit paging (PTTYPE 32).
 *
 * The kernel compiles paging_tmpl.h once per PTTYPE, the functions named
 * by FNAME().  Here the walker is written once and takes the PTTYPE as a
 * constant descriptor (struct pt_type: PT_LEVEL_BITS, the element size,
 * PT_BASE_ADDR_MASK, the NX bit the walk inverts): the two instances
 * differ in exactly those constants and in two #if blocks (the PSE-36
 * gfn delta and is_last_gpte()'s CR4.PSE rule), which test the type.  So
 * each function keeps the kernel's name, without FNAME()'s prefix, and
 * reads line for line beside the template.
 *
 * Left out: the EPT PTTYPE (nested guests), 5-level paging, SMEP, SMAP
 * and protection keys (permission_fault()'s pkru and not_smap parts),
 * SMM (no vCPU with TDP off enters it: shadow paging keeps to address
 * space 0), nested translation of table addresses (kvm_translate_gpa() is the
 * identity), and the cmpxchg retry of update_accessed_dirty_bits(): guest
 * memory is only written under mmu_lock here, so the compare always
 * succeeds.
 *
 * With the shadow fault path it also models unsync pages:
 * mmu_try_to_unsync_pages() and kvm_unsync_page(), FNAME(sync_page) with
 * FNAME(prefetch_invalid_gpte), mmu_sync_children() and
 * kvm_mmu_sync_roots() (at kvm_mmu_load() and at the CR3 load,
 * kvm_mmu_new_pgd(), without its cached roots or requests), and
 * FNAME(invlpg); see docs/shadow-paging.md.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/guest_mem.h"
#include "mmu/mmu_internal.h"
#include "mmu/paging_tmpl.h"

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

static const struct pt_type paging64 = {
	.pttype = 64,
	.level_bits = 9,
	.size = 8,
	.elem_mask = ~0ull,
	.base_addr_mask = ((1ull << 52) - 1) & ~4095ull,
	.walk_nx_mask = 1ull << PT64_NX_SHIFT,
};

static const struct pt_type paging32 = {
	.pttype = 32,
	.level_bits = 10,
	.size = 4,
	.elem_mask = 0xffffffffull,
	.base_addr_mask = 0xfffff000ull,
	.walk_nx_mask = 0,
};

static uint64_t rsvd_bits(int s, int e)
{
	if (e < s)
		return 0;
	return ((2ull << (e - s)) - 1) << s;
}

/* ---- the guest MMU: role, reserved bits, permissions ------------------- */

enum nxsim_guest_mode nxsim__guest_mode(const struct nxsim__kvm_mmu *m)
{
	switch (m->cpu_role.level) {
	case PT32_ROOT_LEVEL:
		return NXSIM_GUEST_32BIT;
	case PT32E_ROOT_LEVEL:
		return NXSIM_GUEST_PAE;
	case PT64_ROOT_4LEVEL:
		return NXSIM_GUEST_64BIT;
	default:
		return NXSIM_GUEST_NONPAGING;
	}
}

/* kvm_calc_cpu_role(), the bits kept */
static struct nxsim__cpu_role
kvm_calc_cpu_role(const struct nxsim_guest_paging *p)
{
	struct nxsim__cpu_role role = { 0 };

	if (!p->cr0_pg)
		return role;
	role.cr0_wp = p->cr0_wp;
	role.cr4_pse = p->cr4_pse;
	role.efer_nx = p->efer_nxe;
	if (p->efer_lma)
		role.level = PT64_ROOT_4LEVEL;
	else if (p->cr4_pae)
		role.level = PT32E_ROOT_LEVEL;
	else
		role.level = PT32_ROOT_LEVEL;
	role.has_4_byte_gpte = role.level == PT32_ROOT_LEVEL;
	return role;
}

/*
 * __reset_rsvds_bits_mask() for the guest (reset_guest_rsvds_bits_mask()):
 * @pa_bits_rsvd is vcpu->arch.reserved_gpa_bits; @gbpages the guest's
 * CPUID GBPAGES (TDP off), @amd whether its CPUID is AMD's.  PSE-36 is
 * always on (is_cpuid_PSE36()).
 */
static void __reset_rsvds_bits_mask(uint64_t mask[2][NXSIM__GUEST_MAX_LEVELS],
				    uint64_t pa_bits_rsvd, int level, bool nx,
				    bool gbpages, bool pse, bool amd)
{
	uint64_t gbpages_bit_rsvd = 0, nonleaf_bit8_rsvd = 0, high_bits_rsvd;

	memset(mask, 0, sizeof(uint64_t) * 2 * NXSIM__GUEST_MAX_LEVELS);
	if (!gbpages)
		gbpages_bit_rsvd = rsvd_bits(7, 7);
	if (level == PT32E_ROOT_LEVEL)
		high_bits_rsvd = pa_bits_rsvd & rsvd_bits(0, 62);
	else
		high_bits_rsvd = pa_bits_rsvd & rsvd_bits(0, 51);
	if (!nx)
		high_bits_rsvd |= rsvd_bits(63, 63);
	if (amd)
		nonleaf_bit8_rsvd = rsvd_bits(8, 8);

	switch (level) {
	case PT32_ROOT_LEVEL:
		/* 4 KiB entries reserve nothing; 4 MiB ones, with PSE-36 */
		if (pse)
			mask[1][1] = rsvd_bits(17, 21);
		break;
	case PT32E_ROOT_LEVEL:
		mask[0][2] = rsvd_bits(63, 63) | high_bits_rsvd |
			     rsvd_bits(5, 8) | rsvd_bits(1, 2); /* PDPTE */
		mask[0][1] = high_bits_rsvd;
		mask[0][0] = high_bits_rsvd;
		mask[1][1] = high_bits_rsvd | rsvd_bits(13, 20);
		mask[1][0] = mask[0][0];
		break;
	case PT64_ROOT_4LEVEL:
		mask[0][3] = high_bits_rsvd | nonleaf_bit8_rsvd |
			     rsvd_bits(7, 7);
		mask[0][2] = high_bits_rsvd | gbpages_bit_rsvd;
		mask[0][1] = high_bits_rsvd;
		mask[0][0] = high_bits_rsvd;
		mask[1][3] = mask[0][3];
		mask[1][2] = high_bits_rsvd | gbpages_bit_rsvd |
			     rsvd_bits(13, 29);
		mask[1][1] = high_bits_rsvd | rsvd_bits(13, 20);
		mask[1][0] = mask[0][0];
		break;
	}
}

/* BYTE_MASK(): bit i set for every UWX combination i that has @access. */
static uint8_t byte_mask(unsigned int access)
{
	uint8_t m = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (i & access)
			m |= 1u << i;
	return m;
}

/* update_permission_bitmask() for a non-EPT MMU without SMEP and SMAP */
static void update_permission_bitmask(struct nxsim__kvm_mmu *m)
{
	const uint8_t x = byte_mask(ACC_EXEC_MASK);
	const uint8_t w = byte_mask(ACC_WRITE_MASK);
	const uint8_t u = byte_mask(ACC_USER_MASK);
	unsigned int byte;

	for (byte = 0; byte < ARRAY_SIZE(m->permissions); byte++) {
		unsigned int pfec = byte << 1;
		/* writes to non-writable pages */
		uint8_t wf = (pfec & PFERR_WRITE_MASK) ? (uint8_t)~w : 0;
		/* user accesses to supervisor pages */
		uint8_t uf = (pfec & PFERR_USER_MASK) ? (uint8_t)~u : 0;
		/* fetches from non-executable pages */
		uint8_t ff = (pfec & PFERR_FETCH_MASK) ? (uint8_t)~x : 0;

		if (!m->cpu_role.efer_nx)
			ff = 0;
		/* supervisor writes ignore W while CR0.WP is clear */
		if (!m->cpu_role.cr0_wp)
			wf = (pfec & PFERR_USER_MASK) ? wf : 0;
		m->permissions[byte] = ff | uf | wf;
	}
}

/* permission_fault(): PFERR_PRESENT_MASK if @access may not use @pte_access. */
static uint32_t permission_fault(const struct nxsim__kvm_mmu *m,
				 unsigned int pte_access, uint32_t access)
{
	bool fault = (m->permissions[access >> 1] >> pte_access) & 1;

	return fault ? PFERR_PRESENT_MASK : 0;
}

/*
 * load_pdptrs(): the four PDPTEs at CR3 (32-byte aligned), none present
 * with a reserved bit (pdptr_rsvd_bits()).  Return: 1 or 0 (#GP).
 */
static int load_pdptrs(struct nxsim__vm_mmu *mmu, uint64_t cr3,
		       uint64_t pdptrs[4])
{
	uint64_t rsvd = rsvd_bits(mmu->phys_bits, 63) | rsvd_bits(5, 8) |
			rsvd_bits(1, 2);
	uint64_t pdpte[4];
	int i;

	if (nxsim__kvm_read_guest(mmu, (cr3 & ~4095ull) | (cr3 & 0xfe0), pdpte,
				  sizeof(pdpte)))
		return 0;
	for (i = 0; i < 4; i++)
		if ((pdpte[i] & PT_PRESENT_MASK) && (pdpte[i] & rsvd))
			return 0;
	memcpy(pdptrs, pdpte, sizeof(pdpte));
	return 1;
}

static void kvm_mmu_new_pgd(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__kvm_mmu *m);

int nxsim__guest_set_paging(struct nxsim__vm_mmu *mmu, struct nxsim__kvm_mmu *m,
			    const struct nxsim_guest_paging *p)
{
	struct nxsim__kvm_mmu new = { .regs = *p };
	int rc = -EINVAL;

	/* kvm_set_cr0()/kvm_set_cr4()/kvm_set_efer(): long mode needs both */
	if (p->efer_lma && (!p->cr0_pg || !p->cr4_pae))
		return -EINVAL;
	/* kvm_vcpu_is_illegal_gpa(); outside long mode CR3 has 32 bits */
	if ((p->cr3 >> mmu->phys_bits) || (!p->efer_lma && p->cr3 >> 32))
		return -EINVAL;
	new.cpu_role = kvm_calc_cpu_role(p);
	nxsim__write_lock(&mmu->mmu_lock);
	if (new.cpu_role.level == PT32E_ROOT_LEVEL &&
	    !load_pdptrs(mmu, p->cr3, new.pdptrs))
		goto out;
	/* kvm_init_mmu() -> shadow_mmu_init_context() */
	if (new.cpu_role.level) {
		__reset_rsvds_bits_mask(
			new.rsvd_bits_mask, rsvd_bits(mmu->phys_bits, 63),
			new.cpu_role.level, new.cpu_role.efer_nx,
			mmu->max_huge_level >= NXSIM_PG_LEVEL_1G,
			new.cpu_role.cr4_pse, mmu->amd);
		update_permission_bitmask(&new);
	}
	*m = new;
	kvm_mmu_new_pgd(mmu, m);
	rc = 0;
out:
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

void nxsim__guest_get_paging(struct nxsim__vm_mmu *mmu,
			     const struct nxsim__kvm_mmu *m,
			     struct nxsim_guest_paging *p,
			     enum nxsim_guest_mode *mode)
{
	nxsim__read_lock(&mmu->mmu_lock);
	*p = m->regs;
	if (mode)
		*mode = nxsim__guest_mode(m);
	nxsim__rw_unlock(&mmu->mmu_lock);
}

/* ---- the walker: paging_tmpl.h ----------------------------------------- */

/* __PT_INDEX() */
static unsigned int pt_index(const struct pt_type *pt, uint64_t addr, int level)
{
	return (addr >> (12 + (level - 1) * pt->level_bits)) &
	       ((1u << pt->level_bits) - 1);
}

/* PT_LVL_ADDR_MASK() */
static uint64_t pt_lvl_addr_mask(const struct pt_type *pt, int level)
{
	return pt->base_addr_mask &
	       ~((1ull << (12 + (level - 1) * pt->level_bits)) - 1);
}

/* PT_LVL_OFFSET_MASK() */
static uint64_t pt_lvl_offset_mask(const struct pt_type *pt, int level)
{
	return pt->base_addr_mask &
	       ((1ull << (12 + (level - 1) * pt->level_bits)) - 1);
}

/* FNAME(gpte_to_gfn_lvl) */
static uint64_t gpte_to_gfn_lvl(const struct pt_type *pt, uint64_t gpte,
				int lvl)
{
	return (gpte & pt_lvl_addr_mask(pt, lvl)) >> 12;
}

/* pse36_gfn_delta(): bits 13-16 of a 4 MiB PDE are address bits 32-35. */
static uint64_t pse36_gfn_delta(uint64_t gpte)
{
	int shift = 32 - PT32_DIR_PSE36_SHIFT - 12;

	return (gpte & PT32_DIR_PSE36_MASK) << shift;
}

/* FNAME(protect_clean_gpte): no write access through a clean gpte. */
static void protect_clean_gpte(unsigned int *access, uint64_t gpte)
{
	unsigned int mask = ~(unsigned int)ACC_WRITE_MASK;

	mask |= (gpte >> (PT_GUEST_DIRTY_SHIFT - PT_WRITABLE_SHIFT)) &
		PT_WRITABLE_MASK;
	*access &= mask;
}

/* FNAME(is_present_gpte) */
static bool is_present_gpte(uint64_t pte)
{
	return pte & PT_PRESENT_MASK;
}

/* FNAME(is_rsvd_bits_set): __is_rsvd_bits_set() on guest_rsvd_check */
static bool is_rsvd_bits_set(const struct nxsim__kvm_mmu *m, uint64_t gpte,
			     int level)
{
	int bit7 = (gpte >> 7) & 1;

	return gpte & m->rsvd_bits_mask[bit7][level - 1];
}

/*
 * FNAME(gpte_access): W, U and P (which is ACC_EXEC_MASK), with NX
 * folded into exec.  PTTYPE 32 entries have no bit 63.
 */
static unsigned int gpte_access(uint64_t gpte)
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
static bool is_last_gpte(const struct pt_type *pt,
			 const struct nxsim__kvm_mmu *m, int level,
			 uint64_t gpte)
{
	if (pt->pttype == 32)
		gpte &= (uint64_t)(level -
				   (PT32_ROOT_LEVEL + m->cpu_role.cr4_pse));
	gpte |= (uint64_t)(level - NXSIM_PG_LEVEL_4K - 1);
	return gpte & PT_PAGE_SIZE_MASK;
}

/*
 * FNAME(update_accessed_dirty_bits): set A on every entry of the walk, and
 * D on the last one for a write, skipping read-only slots.
 * Return: 0, or -EFAULT if an entry could not be written.
 */
static int update_accessed_dirty_bits(const struct pt_type *pt,
				      struct nxsim__guest_walker *w,
				      bool write_fault)
{
	uint64_t pte, orig_pte;
	int level;

	for (level = w->max_level; level >= w->level; --level) {
		pte = orig_pte = w->ptes[level - 1];
		if (!(pte & PT_GUEST_ACCESSED_MASK))
			pte |= PT_GUEST_ACCESSED_MASK;
		if (level == w->level && write_fault &&
		    !(pte & PT_GUEST_DIRTY_MASK))
			pte |= PT_GUEST_DIRTY_MASK;
		if (pte == orig_pte)
			continue;
		if (unlikely(!w->pte_writable[level - 1]))
			continue;
		/* __try_cmpxchg_user() on ptep_user: a present entry was
		 * read from a page that exists */
		if (WARN_ON(!w->ptep_user[level - 1]))
			return -EFAULT;
		memcpy(w->ptep_user[level - 1], &pte, pt->size);
		w->ptes[level - 1] = pte;
	}
	return 0;
}

/* FNAME(walk_addr_generic) */
static int walk_addr_generic(struct nxsim__vm_mmu *mmu,
			     const struct nxsim__kvm_mmu *m,
			     struct nxsim__guest_walker *w, uint64_t addr,
			     uint32_t access)
{
	const struct pt_type *pt = m->cpu_role.has_4_byte_gpte ? &paging32 :
								 &paging64;
	const uint64_t walk_nx_mask = pt->walk_nx_mask;
	const uint32_t write_fault = access & PFERR_WRITE_MASK;
	const uint32_t user_fault = access & PFERR_USER_MASK;
	const uint32_t fetch_fault = access & PFERR_FETCH_MASK;
	uint64_t pte, table_gfn, pte_gpa, pt_access, pte_access, gfn;
	uint64_t accessed_dirty;
	uint32_t errcode = 0;
	unsigned int index;

	w->fault = false;
	w->max_level = 0;
	w->level = m->cpu_role.level;
	/* kvm_mmu_get_guest_pgd(): CR3, truncated to a pt_element_t */
	pte = m->regs.cr3 & pt->elem_mask;
	if (w->level == PT32E_ROOT_LEVEL) {
		pte = m->pdptrs[(addr >> 30) & 3];
		if (!is_present_gpte(pte))
			goto error;
		--w->level;
	}
	w->max_level = w->level;

	pte_access = ~0ull;
	++w->level;
	do {
		pt_access = pte_access;
		--w->level;

		index = pt_index(pt, addr, w->level);
		table_gfn = gpte_to_gfn_lvl(pt, pte, NXSIM_PG_LEVEL_4K);
		pte_gpa = (table_gfn << 12) + index * pt->size;
		w->table_gfn[w->level - 1] = table_gfn;
		w->pte_gpa[w->level - 1] = pte_gpa;

		/* kvm_vcpu_gfn_to_hva_prot() + __get_user() */
		if (unlikely(nxsim__guest_read_pte(
			    mmu, pte_gpa, pt->size, &pte,
			    &w->pte_writable[w->level - 1],
			    &w->ptep_user[w->level - 1])))
			goto error;

		/* NX inverted, so that it ANDs like the permission bits */
		pte_access = pt_access & (pte ^ walk_nx_mask);

		if (unlikely(!is_present_gpte(pte)))
			goto error;
		if (unlikely(is_rsvd_bits_set(m, pte, w->level))) {
			errcode = PFERR_RSVD_MASK | PFERR_PRESENT_MASK;
			goto error;
		}
		w->ptes[w->level - 1] = pte;
		w->pt_access[w->level - 1] =
			gpte_access(pt_access ^ walk_nx_mask);
	} while (!is_last_gpte(pt, m, w->level, pte));

	accessed_dirty = pte_access & PT_GUEST_ACCESSED_MASK;
	w->pte_access = gpte_access(pte_access ^ walk_nx_mask);
	errcode = permission_fault(m, w->pte_access, access);
	if (unlikely(errcode))
		goto error;

	gfn = gpte_to_gfn_lvl(pt, pte, w->level);
	gfn += (addr & pt_lvl_offset_mask(pt, w->level)) >> 12;
	if (pt->pttype == 32 && w->level > NXSIM_PG_LEVEL_4K)
		gfn += pse36_gfn_delta(pte);
	w->gfn = gfn;

	if (!write_fault)
		protect_clean_gpte(&w->pte_access, pte);
	else
		/* a write also needs D on the last entry */
		accessed_dirty &=
			pte >> (PT_GUEST_DIRTY_SHIFT - PT_GUEST_ACCESSED_SHIFT);
	if (unlikely(!accessed_dirty) &&
	    update_accessed_dirty_bits(pt, w, write_fault) < 0)
		goto error;
	return 1;

error:
	errcode |= write_fault | user_fault;
	if (fetch_fault && m->cpu_role.efer_nx)
		errcode |= PFERR_FETCH_MASK;
	w->fault = true;
	w->error_code = errcode;
	return 0;
}

/* The linear addresses the mode can form: canonical, or 32 bits. */
static bool gva_ok(const struct nxsim__kvm_mmu *m, uint64_t gva)
{
	if (m->cpu_role.level == PT64_ROOT_4LEVEL)
		return (uint64_t)((int64_t)(gva << 16) >> 16) == gva;
	return !(gva >> 32);
}

int nxsim__guest_translate(struct nxsim__vm_mmu *mmu,
			   const struct nxsim__kvm_mmu *m, uint64_t gva,
			   uint32_t pfec, struct nxsim_guest_walk *out)
{
	struct nxsim__guest_walker w;
	int i;

	if ((pfec & ~(PFERR_WRITE_MASK | PFERR_USER_MASK | PFERR_FETCH_MASK)) ||
	    ((pfec & PFERR_WRITE_MASK) && (pfec & PFERR_FETCH_MASK)))
		return -EINVAL;
	nxsim__write_lock(&mmu->mmu_lock);
	if (!gva_ok(m, gva)) {
		nxsim__rw_unlock(&mmu->mmu_lock);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->mode = nxsim__guest_mode(m);
	if (!m->cpu_role.level) {
		/* nonpaging_gva_to_gpa() */
		out->access = ACC_ALL;
		out->gpa = gva;
		nxsim__rw_unlock(&mmu->mmu_lock);
		return 0;
	}
	/* the levels the walk does not reach read as 0 */
	memset(&w, 0, sizeof(w));
	walk_addr_generic(mmu, m, &w, gva, pfec);
	nxsim__rw_unlock(&mmu->mmu_lock);
	out->fault = w.fault;
	out->error_code = w.error_code;
	out->level = w.level;
	out->max_level = w.max_level;
	if (!w.fault) {
		out->access = w.pte_access;
		out->gpa = (w.gfn << 12) | (gva & 4095);
	}
	for (i = 0; i < NXSIM__GUEST_MAX_LEVELS; i++) {
		out->table_gfn[i] = w.table_gfn[i];
		out->pte[i] = w.ptes[i];
	}
	return 0;
}

static bool gfn_write_protected(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot,
				uint64_t gfn);
static int emulate_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			     const void *val, unsigned int bytes);

int nxsim__guest_write_pte(struct nxsim__vm_mmu *mmu,
			   const struct nxsim__kvm_mmu *m, uint64_t gpa,
			   uint64_t pte, unsigned int size)
{
	const struct nxsim__memslot *slot;
	int rc;

	(void)m;
	if ((size != 4 && size != 8) || (gpa & (size - 1)) ||
	    (size == 4 && (pte >> 32)))
		return -EINVAL;
	nxsim__write_lock(&mmu->mmu_lock);
	slot = nxsim__gfn_to_memslot(mmu, 0, gpa >> 12);
	if (slot && gfn_write_protected(mmu, slot, gpa >> 12)) {
		/* the store faults on the write-protected table: emulated */
		rc = emulate_pte_write(mmu, gpa, &pte, size);
		if (!rc) {
			MMU_COUNT(mmu, faults);
			MMU_COUNT(mmu, emulated);
		}
	} else {
		rc = nxsim__kvm_write_guest(mmu, gpa, &pte, size);
	}
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

int nxsim__guest_write(struct nxsim__vm_mmu *mmu, uint64_t gpa, const void *buf,
		       size_t len)
{
	int rc;

	nxsim__write_lock(&mmu->mmu_lock);
	rc = nxsim__kvm_write_guest(mmu, gpa, buf, len);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

int nxsim__guest_read(struct nxsim__vm_mmu *mmu, uint64_t gpa, void *buf,
		      size_t len)
{
	int rc;

	nxsim__read_lock(&mmu->mmu_lock);
	rc = nxsim__kvm_read_guest(mmu, gpa, buf, len);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

int64_t nxsim__guest_nr_pages(struct nxsim__vm_mmu *mmu)
{
	int64_t n;

	nxsim__read_lock(&mmu->mmu_lock);
	n = (int64_t)nxsim__guest_mem_pages(&mmu->gmem);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return n;
}

/* ---- shadow paging: the fault path ------------------------------------- */

/* The SPTE index of @addr at @level (SPTE_INDEX(), shadow_walk_next()). */
static unsigned int shadow_index(uint64_t addr, int level)
{
	return (addr >> (12 + (level - 1) * 9)) & (SPTE_ENT_PER_PAGE - 1);
}

/*
 * The root role of the vCPU's guest MMU (kvm_init_shadow_mmu()): the
 * guest's 4 levels, indirect, NX always on; nonpaging guests get a direct
 * root, that of the legacy direct MMU (nxsim__mmu_alloc_direct_roots()).
 */
static union nxsim__kvm_mmu_page_role
shadow_root_role(const struct nxsim__kvm_mmu *m)
{
	union nxsim__kvm_mmu_page_role role = { .word = 0 };

	role.level = PT64_ROOT_4LEVEL;
	role.access = ACC_ALL;
	role.cr0_wp = m->cpu_role.cr0_wp;
	role.efer_nx = 1;
	return role;
}

static uint64_t shadow_root_gfn(const struct nxsim__kvm_mmu *m)
{
	return (m->regs.cr3 & paging64.base_addr_mask) >> 12;
}

/* The VM's current root is the one the vCPU's paging state wants. */
static bool root_matches(struct nxsim__vm_mmu *mmu,
			 const struct nxsim__kvm_mmu *m)
{
	struct nxsim__mmu_page *root = mmu->root[0];

	if (!root || nxsim__is_obsolete_sp(mmu, root))
		return false;
	if (!m->cpu_role.level)
		return root->role.direct;
	return !root->role.direct && root->gfn == shadow_root_gfn(m) &&
	       root->role.word == shadow_root_role(m).word;
}

/*
 * kvm_mmu_free_roots() of the current root when the vCPU's paging no
 * longer matches it (a CR3 or mode change: kvm_mmu_new_pgd(),
 * kvm_mmu_reset_context()); the page stays as a cached shadow page.
 */
static void kvm_mmu_put_stale_root(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__kvm_mmu *m)
{
	if (mmu->root[0] && !root_matches(mmu, m)) {
		mmu->root[0]->root_count--;
		mmu->root[0] = NULL;
	}
}

static void kvm_mmu_sync_root(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__kvm_mmu *m,
			      struct nxsim__mmu_page *root);

/*
 * mmu_alloc_shadow_roots() / mmu_alloc_direct_roots(), then
 * kvm_mmu_sync_roots() (kvm_mmu_load())
 */
static void kvm_mmu_load(struct nxsim__vm_mmu *mmu,
			 struct nxsim__mmu_memory_cache *mc,
			 const struct nxsim__kvm_mmu *m)
{
	struct nxsim__mmu_page *root;

	if (mmu->root[0])
		return;
	if (!m->cpu_role.level) {
		nxsim__mmu_alloc_direct_roots(mmu, mc, 0);
		return;
	}
	root = nxsim__kvm_mmu_get_shadow_page(mmu, mc, m, shadow_root_gfn(m),
					      shadow_root_role(m));
	root->root_count++;
	mmu->root[0] = root;
	kvm_mmu_sync_root(mmu, m, root);
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

/* The leaf SPTE mapping @addr from the current root, or NULL. */
static uint64_t *shadow_find_leaf(struct nxsim__vm_mmu *mmu, uint64_t addr,
				  int *level)
{
	struct nxsim__mmu_page *sp = mmu->root[0];
	int l = sp ? sp->role.level : 0;

	for (; sp; l--) {
		uint64_t *sptep = &sp->spt[shadow_index(addr, l)];

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

/*
 * The valid shadow pages of guest tables at @gfn
 * (for_each_gfn_valid_sp_with_gptes()).
 */
#define for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)                      \
	LIST_FOREACH(sp, nxsim__gfn_sp_list(mmu, gfn), hash_link)           \
		if ((sp)->gfn != (gfn) || nxsim__is_obsolete_sp(mmu, sp) || \
		    !sp_has_gptes(sp)) {                                    \
		} else

/* kvm_unsync_page(): the guest may write @sp's table without a trap. */
static void kvm_unsync_page(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp)
{
	MMU_COUNT(mmu, unsync);
	mmu->nr_unsync++;
	sp->unsync = true;
	nxsim__kvm_mmu_mark_parents_unsync(mmu, sp);
}

/*
 * mmu_try_to_unsync_pages(): may a writable SPTE map @gfn?  Never while it
 * is write-tracked (a shadowed table above 4K: account_shadowed()).  Its
 * other shadow pages, 4K tables, go unsync where @can_unsync (a fault, not
 * a sync); a prefetch does not unsync a page.  Return: 0, -EPERM or
 * -EEXIST.
 */
int nxsim__mmu_try_to_unsync_pages(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t gfn, bool can_unsync, bool prefetch)
{
	struct nxsim__mmu_page *sp;

	if (nxsim__kvm_slot_page_track_is_active(slot, gfn))
		return -EPERM;
	if (!mmu->indirect_shadow_pages)
		return 0;
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (!can_unsync)
			return -EPERM;
		if (sp->unsync)
			continue;
		if (prefetch)
			return -EEXIST;
		WARN_ON(sp->role.level != NXSIM_PG_LEVEL_4K);
		kvm_unsync_page(mmu, sp);
	}
	return 0;
}

/* detect_write_misaligned() */
static bool detect_write_misaligned(const struct nxsim__mmu_page *sp,
				    uint64_t gpa, unsigned int bytes)
{
	unsigned int offset = gpa & 4095, pte_size = 8, misaligned;

	if (!(offset & (pte_size - 1)) && bytes == 1)
		return false;
	misaligned = (offset ^ (offset + bytes - 1)) & ~(pte_size - 1);
	misaligned |= bytes < 4;
	return misaligned;
}

/*
 * kvm_mmu_pte_write(): the guest wrote @bytes at @gpa, a shadowed table:
 * zap each shadow page of the gfn the write does not fit (misaligned),
 * else the SPTE shadowing the written entry, then one flush or commit.
 * Left out: detect_write_flooding() and the 32-bit gpte split.
 */
static void kvm_mmu_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			      unsigned int bytes)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	uint64_t gfn = gpa >> 12;
	struct nxsim__mmu_page *sp;
	bool flush = false;
	unsigned int idx;

	if (!mmu->indirect_shadow_pages)
		return;
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (detect_write_misaligned(sp, gpa, bytes)) {
			nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &invalid_list);
			continue;
		}
		/* get_written_sptes(): one 8-byte entry */
		idx = (gpa & 4095) >> 3;
		if (is_shadow_present_pte(sp->spt[idx]))
			flush = true;
		nxsim__mmu_page_zap_pte(mmu, sp, idx, &invalid_list);
	}
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, flush);
}

/*
 * The emulated store of a trapped guest write (x86_emulate_instruction()
 * -> emulator_write_phys() -> kvm_page_track_write()): the bytes land in
 * guest memory, then kvm_mmu_pte_write().
 */
static int emulate_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			     const void *val, unsigned int bytes)
{
	int rc = nxsim__kvm_write_guest(mmu, gpa, val, bytes);

	if (!rc)
		kvm_mmu_pte_write(mmu, gpa, bytes);
	return rc;
}

/*
 * A write to @gfn traps: it is write-tracked, or a 4K table with a shadow
 * page that is not unsync.
 */
static bool gfn_write_protected(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot, uint64_t gfn)
{
	struct nxsim__mmu_page *sp;

	if (nxsim__kvm_slot_page_track_is_active(slot, gfn))
		return true;
	if (!mmu->indirect_shadow_pages)
		return false;
	for_each_gfn_valid_sp_with_gptes(mmu, sp,
					 gfn) if (!sp->unsync) return true;
	return false;
}

/* FNAME(prefetch_invalid_gpte) without the drop: not worth an SPTE. */
static bool prefetch_invalid_gpte(const struct nxsim__kvm_mmu *m, uint64_t gpte)
{
	return !is_present_gpte(gpte) || !(gpte & PT_GUEST_ACCESSED_MASK) ||
	       is_rsvd_bits_set(m, gpte, NXSIM_PG_LEVEL_4K);
}

/*
 * The guest entry an SPTE of the 4K table @sp shadows
 * (FNAME(get_level1_sp_gpa) plus the index).
 */
static int read_level1_gpte(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__mmu_page *sp, unsigned int idx,
			    uint64_t *gpte)
{
	return nxsim__kvm_read_guest(mmu, (sp->gfn << 12) + idx * 8, gpte, 8);
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

	if (WARN_ON(!m || m->cpu_role.level != PT64_ROOT_4LEVEL ||
		    sp->role.direct ||
		    ((sp->role.word ^ shadow_root_role(m).word) & ~ign.word)))
		return -1;
	MMU_COUNT(mmu, synced);
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		if (!is_shadow_present_pte(sp->spt[i]))
			continue;
		if (read_level1_gpte(mmu, sp, i, &gpte))
			return -1;
		if (prefetch_invalid_gpte(m, gpte)) {
			nxsim__drop_spte(mmu, sp, i);
			flush = true;
			continue;
		}
		gfn = gpte_to_gfn_lvl(&paging64, gpte, NXSIM_PG_LEVEL_4K);
		pte_access = sp->role.access & gpte_access(gpte);
		protect_clean_gpte(&pte_access, gpte);
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
		if (is_writable_pte(sp->spt[i]) && !is_writable_pte(spte))
			flush = true;
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

/*
 * mmu_sync_children(): below @parent, each unsync page (found through
 * the unsync_child_bitmap, mmu_unsync_walk()) is write-protected again,
 * made sync and brought up to date from the guest's table (a page whose
 * table cannot be read is zapped).  Return: whether a flush is due.
 */
static bool mmu_sync_children(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__kvm_mmu *m,
			      struct nxsim__mmu_page *parent,
			      struct nxsim__sp_list *invalid_list)
{
	struct nxsim__mmu_page *child;
	bool flush = false;
	unsigned int idx;
	uint64_t spte;
	int ret;

	for (idx = 0; idx < SPTE_ENT_PER_PAGE; idx++) {
		if (!(parent->unsync_child_bitmap[idx / 64] &
		      (1ull << (idx % 64))))
			continue;
		spte = parent->spt[idx];
		if (!is_shadow_present_pte(spte) ||
		    is_last_spte(spte, parent->role.level)) {
			clear_unsync_child_bit(parent, idx);
			continue;
		}
		child = spte_to_child_sp(mmu, spte);
		if (child->unsync_children)
			flush |= mmu_sync_children(mmu, m, child, invalid_list);
		if (child->unsync) {
			/* kvm_vcpu_write_protect_gfn() */
			flush |= nxsim__kvm_mmu_slot_gfn_write_protect(
				mmu, nxsim__gfn_to_memslot(mmu, 0, child->gfn),
				child->gfn, NXSIM_PG_LEVEL_4K);
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
 * kvm_mmu_sync_roots() for @root: a root with unsync pages below it is
 * synced (the guest flushed its TLB: a CR3 load).
 */
static void kvm_mmu_sync_root(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__kvm_mmu *m,
			      struct nxsim__mmu_page *root)
{
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	bool flush;

	if (root->role.direct || !(root->unsync || root->unsync_children))
		return;
	flush = mmu_sync_children(mmu, m, root, &invalid_list);
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, flush);
}

/*
 * The CR3 load of nxsim__guest_set_paging(): kvm_mmu_new_pgd() leaves the
 * root of the new CR3 synced before the guest runs on it
 * (KVM_REQ_MMU_SYNC, or kvm_mmu_load() after a free).
 */
static void kvm_mmu_new_pgd(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__kvm_mmu *m)
{
	union nxsim__kvm_mmu_page_role role = shadow_root_role(m);
	uint64_t gfn = shadow_root_gfn(m);
	struct nxsim__mmu_page *sp;

	if (m->cpu_role.level != PT64_ROOT_4LEVEL ||
	    !mmu->indirect_shadow_pages)
		return;
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (sp->role.word == role.word) {
			kvm_mmu_sync_root(mmu, m, sp);
			return;
		}
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
	struct nxsim__mmu_page *sp = mmu->root[0];
	unsigned int idx, pte_access;
	uint64_t old, gpte, gfn;
	struct nxsim__memslot *slot;
	int level;

	for (level = sp->role.level; level >= NXSIM_PG_LEVEL_4K; level--) {
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
			/* FNAME(prefetch_gpte) */
			if (prefetch_invalid_gpte(m, gpte))
				break;
			gfn = gpte_to_gfn_lvl(&paging64, gpte,
					      NXSIM_PG_LEVEL_4K);
			pte_access = sp->role.access & gpte_access(gpte);
			protect_clean_gpte(&pte_access, gpte);
			slot = nxsim__gfn_to_memslot(mmu, 0, gfn);
			if (!slot)
				break;
			nxsim__mmu_set_spte(mmu, slot, sp, idx, pte_access, gfn,
					    nxsim__gfn_to_pfn(slot, gfn), NULL);
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
	if (!gva_ok(m, gva))
		return -ERANGE;
	nxsim__write_lock(&mmu->mmu_lock);
	if (m->cpu_role.level == PT64_ROOT_4LEVEL && root_matches(mmu, m))
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
	struct nxsim__mmu_page *sp = mmu->root[0], *child;
	int level = sp->role.level, ret;
	uint64_t base_gfn;

	for (;; sp = spte_to_child_sp(mmu, sp->spt[idx]), level--) {
		idx = shadow_index(addr, level);
		if (level <= gw->level)
			break;
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
	/* FNAME(pte_prefetch): direct pages only (see the file comment) */
	if (ret != RET_PF_SPURIOUS && sp->role.direct)
		nxsim__direct_pte_prefetch(mmu, sp, idx);
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
 * FNAME(page_fault) for 64-bit guests: walk the guest tables (a failed
 * walk is the guest's #PF), emulate writes to write-tracked tables
 * (page_fault_handle_page_track()), cap the level where the guest maps
 * its own tables, and fetch.  Called with mmu_lock held for write and the
 * caches topped up.
 */
static void page_fault(struct nxsim__vm_mmu *mmu,
		       struct nxsim__mmu_memory_cache *mc,
		       const struct nxsim__kvm_mmu *m, uint64_t addr,
		       uint32_t pfec, struct nxsim_access_info *info)
{
	struct nxsim__kvm_page_fault f = {
		.exec = pfec & PFERR_FETCH_MASK,
		.write = pfec & PFERR_WRITE_MASK,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
	};
	bool self_pt = false, user = pfec & PFERR_USER_MASK;
	struct nxsim__guest_walker w;
	uint64_t gpte;
	int ret;

	if (!walk_addr_generic(mmu, m, &w, addr, pfec)) {
		/* kvm_inject_emulated_page_fault(): the guest's #PF */
		info->outcome = NXSIM_ACCESS_GUEST_FAULT;
		return;
	}
	MMU_COUNT(mmu, faults);
	f.gfn = w.gfn;
	f.slot = nxsim__gfn_to_memslot(mmu, 0, f.gfn);
	if (!f.slot || (f.write && (f.slot->flags & NXSIM_MEM_READONLY))) {
		MMU_COUNT(mmu, emulated);
		info->outcome = NXSIM_ACCESS_EMULATE;
		return;
	}
	if (f.write && nxsim__kvm_slot_page_track_is_active(f.slot, f.gfn))
		goto emulate;
	f.max_level = is_self_change_mapping(m, &w, user, &self_pt) ?
			      NXSIM_PG_LEVEL_4K :
			      w.level;
	f.pfn = nxsim__gfn_to_pfn(f.slot, f.gfn);
	f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	f.nx_huge_page_workaround_enabled = nxsim__is_nx_huge_page_enabled(mmu);
	/* a supervisor write with CR0.WP=0 to a read-only page */
	if (f.write && !(w.pte_access & ACC_WRITE_MASK) &&
	    !m->cpu_role.cr0_wp && !user) {
		w.pte_access |= ACC_WRITE_MASK;
		w.pte_access &= ~ACC_USER_MASK;
	}
	kvm_mmu_load(mmu, mc, m);
	ret = fetch(mmu, mc, m, &f, addr, &w, info);
	info->req_level = f.req_level;
	info->goal_level = f.goal_level;
	info->huge_page_disallowed = f.huge_page_disallowed;
	if (ret == RET_PF_EMULATE)
		goto emulate;
	info->outcome = ret == RET_PF_SPURIOUS ? NXSIM_ACCESS_SPURIOUS :
						 NXSIM_ACCESS_FAULT;
	return;
emulate:
	/* the store the instruction makes: the entry rewritten as it is */
	MMU_COUNT(mmu, emulated);
	nxsim__kvm_read_guest(mmu, (f.gfn << 12) | (addr & 4088), &gpte, 8);
	emulate_pte_write(mmu, (f.gfn << 12) | (addr & 4088), &gpte, 8);
	info->outcome = NXSIM_ACCESS_EMULATE;
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
	uint64_t *sptep;
	int level = 0, rc = 0;

	if (!gva_ok(m, addr))
		return -ERANGE;
	if (m->cpu_role.level && m->cpu_role.level != PT64_ROOT_4LEVEL)
		return -EOPNOTSUPP;
	nxsim__write_lock(&mmu->mmu_lock);
	kvm_mmu_put_stale_root(mmu, m);
	if (!m->cpu_role.level) {
		rc = nxsim__nonpaging_page_fault(mmu, vcpu, kind, addr, info);
		goto out;
	}
	sptep = shadow_find_leaf(mmu, addr, &level);
	if (sptep && spte_permits(mmu, *sptep, pfec)) {
		info->outcome = NXSIM_ACCESS_HIT;
		info->level = level;
		goto out;
	}
	rc = shadow_topup_caches(mmu, &vcpu->mmu_cache);
	if (!rc)
		page_fault(mmu, &vcpu->mmu_cache, m, addr, pfec, info);
out:
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}
