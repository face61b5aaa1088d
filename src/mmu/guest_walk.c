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
 *     permission_fault(), pse36_gfn_delta() (guest_walk.h) and
 *     update_accessed_dirty_bits(), for 4-level 64-bit and PAE paging
 *     (PTTYPE 64) and 2-level 32-bit paging (PTTYPE 32);
 *   - FNAME(gva_to_gpa) and the guest-memory calls of the API.
 *
 * The kernel compiles paging_tmpl.h once per PTTYPE, the functions named
 * by FNAME().  Here the walker is written once and takes the PTTYPE as a
 * constant descriptor (struct pt_type: PT_LEVEL_BITS, the element size,
 * PT_BASE_ADDR_MASK, the NX bit the walk inverts): the two instances
 * differ in exactly those constants and in two #if blocks (the PSE-36
 * gfn delta and is_last_gpte()'s CR4.PSE rule), which test the type.  So
 * each function keeps the kernel's name, without FNAME()'s prefix, and
 * reads line for line beside the template.  The shadow fault path of the
 * template (FNAME(page_fault), FNAME(fetch), sync and invlpg) is in
 * paging_tmpl.c.
 *
 * Left out: the EPT PTTYPE (nested guests), 5-level paging, SMEP, SMAP
 * and protection keys (permission_fault()'s pkru and not_smap parts),
 * SMM (no vCPU with TDP off enters it: shadow paging keeps to address
 * space 0), nested translation of table addresses (kvm_translate_gpa() is the
 * identity), and the cmpxchg retry of update_accessed_dirty_bits(): guest
 * memory is only written under mmu_lock here, so the compare always
 * succeeds.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/compiler.h"
#include "core/detail.h"
#include "mmu/guest_mem.h"
#include "mmu/guest_walk.h"
#include "mmu/mmu_internal.h"
#include "mmu/paging_tmpl.h"

const struct pt_type nxsim__paging64 = {
	.pttype = 64,
	.level_bits = 9,
	.size = 8,
	.elem_mask = ~0ull,
	.base_addr_mask = ((1ull << 52) - 1) & ~4095ull,
	.walk_nx_mask = 1ull << PT64_NX_SHIFT,
};

const struct pt_type nxsim__paging32 = {
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
	nxsim__kvm_mmu_new_pgd(mmu, m);
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
int nxsim__walk_addr_generic(struct nxsim__vm_mmu *mmu,
			     const struct nxsim__kvm_mmu *m,
			     struct nxsim__guest_walker *w, uint64_t addr,
			     uint32_t access)
{
	const struct pt_type *pt = pt_type_of(m->cpu_role.has_4_byte_gpte);
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

bool nxsim__guest_gva_ok(const struct nxsim__kvm_mmu *m, uint64_t gva)
{
	if (m->cpu_role.level == PT64_ROOT_4LEVEL) {
		if ((uint64_t)((int64_t)(gva << 16) >> 16) == gva)
			return true;
		nxsim__fail(-ERANGE,
			    "gva 0x%" PRIx64 " is not canonical: 4-level "
			    "paging forms 48-bit addresses, bits 63:47 equal",
			    gva);
		return false;
	}
	if (!(gva >> 32))
		return true;
	nxsim__fail(-ERANGE,
		    "gva 0x%" PRIx64 " is above 4 GiB: a %s guest forms only "
		    "32-bit addresses",
		    gva,
		    m->cpu_role.level ? "32-bit or PAE paging" : "nonpaging");
	return false;
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
	if (!nxsim__guest_gva_ok(m, gva)) {
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
	nxsim__walk_addr_generic(mmu, m, &w, gva, pfec);
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
