/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SPTE bits and the SPTEs the TDP MMU builds (arch/x86/kvm/mmu/spte.h,
 * spte.c): masks per format as kvm_mmu_set_ept_masks() and
 * kvm_mmu_reset_all_pte_masks() set them (EPT with A/D bits and
 * exec-only support; NPT), make_spte(), make_nonleaf_spte(),
 * make_huge_page_split_spte() and the predicates; the SPTE accessors of
 * arch/x86/kvm/mmu/tdp_iter.h (kvm_tdp_mmu_read_spte(),
 * __kvm_tdp_mmu_write_spte(), the try_cmpxchg64() of __tdp_mmu_set_spte_atomic() and the xchg of
 * kvm_tdp_mmu_write_spte_atomic()) as C11 atomics, and the frozen SPTE
 * (REMOVED_SPTE in 6.1, renamed FROZEN_SPTE later: same value); MMIO
 * SPTEs (make_mmio_spte(), is_mmio_spte(), the MMIO generation) with the
 * masks kvm_mmu_set_mmio_spte_mask() settles on for the host.
 */
#ifndef NXSIM_MMU_SPTE_H
#define NXSIM_MMU_SPTE_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/mmu.h>
#include <nxsim/spte.h>

#define SPTE_ENT_PER_PAGE 512
#define PT_WRITABLE_MASK (1ull << 1)
#define PT_PAGE_SIZE_MASK (1ull << 7)
#define SPTE_MMU_PRESENT_MASK (1ull << 11)
#define SPTE_BASE_ADDR_MASK 0x000ffffffffff000ull
#define SHADOW_NONPRESENT_VALUE NXSIM_SPTE_NONPRESENT
/*
 * FROZEN_SPTE: a non-present value no fault installs, held by an SPTE
 * while one thread replaces what it maps; others who see it retry.
 */
#define FROZEN_SPTE (SHADOW_NONPRESENT_VALUE | 0x5a0ull)

/* ACC_* access bits of the role and of make_spte(). */
#define ACC_EXEC_MASK 1u
#define ACC_WRITE_MASK 2u
#define ACC_USER_MASK 4u
#define ACC_ALL 7u

#define KVM_PAGES_PER_HPAGE(l) (1ull << (((l)-1) * 9))

/**
 * struct nxsim__spte_masks - the shadow_*_mask globals for one format
 */
struct nxsim__spte_masks {
	uint64_t present;	/* shadow_present_mask */
	uint64_t user;		/* shadow_user_mask */
	uint64_t x;		/* shadow_x_mask */
	uint64_t nx;		/* shadow_nx_mask */
	uint64_t accessed;	/* shadow_accessed_mask */
	uint64_t dirty;		/* shadow_dirty_mask */
	uint64_t host_writable; /* shadow_host_writable_mask */
	uint64_t mmu_writable;	/* shadow_mmu_writable_mask */
	uint64_t memtype;	/* get_mt_mask() for RAM: WB | IPAT on EPT */
};

const struct nxsim__spte_masks *nxsim__spte_masks(enum nxsim_spte_format f);

static inline bool is_shadow_present_pte(uint64_t spte)
{
	return spte & SPTE_MMU_PRESENT_MASK;
}

static inline bool is_frozen_spte(uint64_t spte)
{
	return spte == FROZEN_SPTE;
}

/* kvm_tdp_mmu_read_spte(): READ_ONCE() of an SPTE that others may change. */
static inline uint64_t nxsim__read_spte(const uint64_t *sptep)
{
	return __atomic_load_n(sptep, __ATOMIC_ACQUIRE);
}

/* __kvm_tdp_mmu_write_spte(): WRITE_ONCE(), publishing what @new points to. */
static inline void nxsim__write_spte(uint64_t *sptep, uint64_t new)
{
	__atomic_store_n(sptep, new, __ATOMIC_RELEASE);
}

/*
 * try_cmpxchg64(): install @new if *@sptep is still *@old; on failure
 * *@old receives the current value.  Fully ordered, as in the kernel.
 */
static inline bool nxsim__cmpxchg_spte(uint64_t *sptep, uint64_t *old,
				       uint64_t new)
{
	return __atomic_compare_exchange_n(sptep, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* kvm_tdp_mmu_write_spte_atomic(): xchg(), returning the old value. */
static inline uint64_t nxsim__xchg_spte(uint64_t *sptep, uint64_t new)
{
	return __atomic_exchange_n(sptep, new, __ATOMIC_SEQ_CST);
}

static inline bool is_large_pte(uint64_t spte)
{
	return spte & PT_PAGE_SIZE_MASK;
}

static inline bool is_last_spte(uint64_t spte, int level)
{
	return level == NXSIM_PG_LEVEL_4K || is_large_pte(spte);
}

static inline uint64_t spte_to_pfn(uint64_t spte)
{
	return (spte & SPTE_BASE_ADDR_MASK) >> 12;
}

static inline bool is_writable_pte(uint64_t spte)
{
	return spte & PT_WRITABLE_MASK;
}

/* is_executable_pte(): (spte & (X | NX)) == X */
bool nxsim__is_executable_pte(enum nxsim_spte_format f, uint64_t spte);
bool nxsim__is_mmu_writable_spte(enum nxsim_spte_format f, uint64_t spte);

/**
 * nxsim__make_spte() - make_spte() for a direct (TDP) SP
 * @f: format
 * @level: the leaf's level
 * @pfn: host pfn (aligned for a huge leaf)
 * @access: ACC_* of the role (ACC_ALL for TDP)
 * @host_writable: the host mapping is writable (not a read-only slot)
 * @nx_huge_page_enabled: is_nx_huge_page_enabled(kvm): huge leaves lose
 *	exec
 */
uint64_t nxsim__make_spte(enum nxsim_spte_format f, int level, uint64_t pfn,
			  unsigned int access, bool host_writable,
			  bool nx_huge_page_enabled);

/* make_nonleaf_spte(): a present entry pointing at child table @pfn. */
uint64_t nxsim__make_nonleaf_spte(enum nxsim_spte_format f, uint64_t pfn);

/*
 * make_small_spte() / make_huge_page_split_spte() for all 512 children:
 * fill @spt with the SPTEs of @huge_spte split to @child_level; 4K
 * children become executable when the mitigation is on
 * (make_spte_executable()).
 */
void nxsim__make_split_sptes(enum nxsim_spte_format f, uint64_t huge_spte,
			     int child_level, bool nx_huge_page_enabled,
			     uint64_t *spt);

/* make_huge_spte(): a huge leaf at @level from a small leaf below it. */
uint64_t nxsim__make_huge_spte(enum nxsim_spte_format f, uint64_t small_spte,
			       int level, bool nx_huge_page_enabled);

/*
 * The MMIO generation: a 19-bit slice of the memslots generation, bits
 * 0-7 in SPTE bits 3-10 and bits 8-18 in SPTE bits 52-62 (6.1's layout,
 * unchanged since).  KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS is not stored: a
 * generation with it set never matches.
 */
#define MMIO_SPTE_GEN_LOW_START 3
#define MMIO_SPTE_GEN_LOW_END 10
#define MMIO_SPTE_GEN_HIGH_START 52
#define MMIO_SPTE_GEN_HIGH_END 62
#define MMIO_SPTE_GEN_LOW_BITS \
	(MMIO_SPTE_GEN_LOW_END - MMIO_SPTE_GEN_LOW_START + 1)
#define MMIO_SPTE_GEN_HIGH_BITS \
	(MMIO_SPTE_GEN_HIGH_END - MMIO_SPTE_GEN_HIGH_START + 1)
#define MMIO_SPTE_GEN_MASK \
	((1ull << (MMIO_SPTE_GEN_LOW_BITS + MMIO_SPTE_GEN_HIGH_BITS)) - 1)
#define KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS (1ull << 63)
#define KVM_ADDRESS_SPACE_NUM 2

/**
 * struct nxsim__mmio_masks - shadow_mmio_value, _mask, _access_mask and
 *	enable_mmio_caching as vendor setup leaves them
 * @value: shadow_mmio_value; 0 when caching is off
 * @mask: shadow_mmio_mask
 * @access_mask: shadow_mmio_access_mask (ACC_* bits kept in the SPTE)
 * @gfn_mask: shadow_nonpresent_or_rsvd_lower_gfn_mask: the gpa bits
 * @enabled: enable_mmio_caching
 */
struct nxsim__mmio_masks {
	uint64_t value;
	uint64_t mask;
	uint64_t access_mask;
	uint64_t gfn_mask;
	bool enabled;
};

/**
 * nxsim__kvm_mmu_set_mmio_spte_mask() - the MMIO masks of a host
 * @f: EPT (kvm_mmu_set_ept_masks(): W|X, an EPT misconfiguration) or NPT
 *	(kvm_mmu_reset_all_pte_masks(): reserved bit 51 plus present, only
 *	if MAXPHYADDR < 52, else caching is off)
 * @phys_bits: MAXPHYADDR (shadow_phys_bits)
 * @allow: kvm.mmio_caching (allow_mmio_caching)
 * @m: receives the masks
 */
void nxsim__kvm_mmu_set_mmio_spte_mask(enum nxsim_spte_format f,
				       unsigned int phys_bits, bool allow,
				       struct nxsim__mmio_masks *m);

/* make_mmio_spte() for @gfn with memslots generation @gen. */
uint64_t nxsim__make_mmio_spte(const struct nxsim__mmio_masks *m, uint64_t gen,
			       uint64_t gfn, unsigned int access);

/* is_mmio_spte() */
static inline bool is_mmio_spte(const struct nxsim__mmio_masks *m,
				uint64_t spte)
{
	return (spte & m->mask) == m->value && m->enabled;
}

/* get_mmio_spte_generation() */
uint64_t nxsim__get_mmio_spte_generation(uint64_t spte);

/* get_mmio_spte_gfn() */
static inline uint64_t get_mmio_spte_gfn(const struct nxsim__mmio_masks *m,
					 uint64_t spte)
{
	return (spte & m->gfn_mask) >> 12;
}

/* get_mmio_spte_access() */
static inline unsigned int
get_mmio_spte_access(const struct nxsim__mmio_masks *m, uint64_t spte)
{
	return spte & m->access_mask;
}

/* Write-protect for dirty logging: clear W, keep MMU-writable. */
static inline uint64_t nxsim__spte_wrprot(uint64_t spte)
{
	return spte & ~PT_WRITABLE_MASK;
}

#endif /* NXSIM_MMU_SPTE_H */
