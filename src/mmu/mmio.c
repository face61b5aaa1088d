// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMIO half of arch/x86/kvm/mmu/mmu.c, as TDP faults use it, with
 * vcpu_cache_mmio_info() of arch/x86/kvm/x86.h:
 *
 * A fault outside every slot caches the gfn in the vCPU
 * (vcpu_cache_mmio_info(), called by mmu.c's direct_page_fault()) and,
 * with MMIO caching on, installs a 4K MMIO SPTE carrying the memslots
 * generation (tdp_mmu_map_handle_target_level() with make_mmio_spte());
 * both are answered with emulation.  The next access that meets the MMIO
 * SPTE is an EPT misconfiguration or a RSVD #PF: handle_mmio_page_fault()
 * emulates from the vCPU's cache or, after its own lockless walk
 * (get_mmio_spte(), the hardware walk's code: nxsim__mmu_find_leaf() in
 * mmu.c), from the SPTE, without a fault walk.  If the generation moved
 * on (check_mmio_spte()), the full fault replaces the SPTE; if its walk
 * no longer meets an MMIO SPTE (another CPU zapped the table since the
 * hardware walk), the guest runs the access again (RET_PF_RETRY).  A wrap
 * of the MMIO generation zaps everything (kvm_mmu_invalidate_mmio_sptes()).
 *
 * The legacy and shadow MMUs install theirs through mmu_set_spte()
 * (shadow_mmu.c, mark_mmio_spte()), from direct_map() and FNAME(fetch),
 * and answer the next access here too: direct (the legacy and nonpaging
 * MMUs, by gpa) or indirect (shadow paging, by gva).
 *
 * A vCPU in SMM uses the generation of address space 1 for its cache and
 * its SPTEs (kvm_vcpu_memslots()).  Left out: the emulator itself,
 * KVM_FAST_MMIO_BUS, the reserved-bit check of the kernel's walk, and the
 * gva half of the cache (a TDP fault has no gva; see the indirect case).
 */
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

/*
 * get_mmio_spte(): the kernel's own lockless walk to @gfn after the
 * hardware stopped at an MMIO SPTE (walk_shadow_page_lockless_begin() and
 * _end() around it): the last SPTE it reads, 0 if there is no root.
 */
static uint64_t get_mmio_spte(struct nxsim__vm_mmu *mmu, int as_id,
			      uint64_t gfn)
{
	uint64_t spte;
	int level;

	nxsim__rcu_read_lock();
	nxsim__mmu_find_leaf(mmu, as_id, gfn, &level, &spte);
	nxsim__rcu_read_unlock();
	return spte;
}

/* vcpu_cache_mmio_info() (x86.h): the gfn half, no gva. */
void nxsim__vcpu_cache_mmio_info(struct nxsim__vm_mmu *mmu,
				 struct nxsim__vcpu_mmu *vcpu, uint64_t gfn)
{
	uint64_t gen = vcpu_memslots_gen(mmu, vcpu);

	if (gen & KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS)
		return;
	vcpu->mmio_gfn = gfn;
	vcpu->mmio_gen = gen;
}

/* check_mmio_spte(): the SPTE's generation is the vCPU's current one. */
static bool check_mmio_spte(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__vcpu_mmu *vcpu, uint64_t spte)
{
	uint64_t gen = vcpu_memslots_gen(mmu, vcpu);

	if (gen & KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS)
		return false;
	return (gen & MMIO_SPTE_GEN_MASK) ==
	       nxsim__get_mmio_spte_generation(spte);
}

/*
 * The end of handle_mmio_page_fault() once its walk read @spte: the full
 * fault if the generation moved on, else the gfn cached and emulation;
 * RET_PF_RETRY if the walk met no MMIO SPTE.
 */
static int mmio_spte_answer(struct nxsim__vm_mmu *mmu,
			    struct nxsim__vcpu_mmu *vcpu, uint64_t spte)
{
	/* another CPU zapped the table: let the CPU fault again */
	if (!is_mmio_spte(&mmu->mmio, spte))
		return RET_PF_RETRY;
	if (!check_mmio_spte(mmu, vcpu, spte))
		return RET_PF_INVALID;
	nxsim__vcpu_cache_mmio_info(mmu, vcpu,
				    get_mmio_spte_gfn(&mmu->mmio, spte));
	return RET_PF_EMULATE;
}

/* mmio_info_in_cache() -> vcpu_match_mmio_gpa() */
static bool mmio_gpa_in_cache(struct nxsim__vm_mmu *mmu,
			      const struct nxsim__vcpu_mmu *vcpu, uint64_t gfn)
{
	return vcpu->mmio_gfn && vcpu->mmio_gfn == gfn &&
	       vcpu->mmio_gen == vcpu_memslots_gen(mmu, vcpu);
}

/*
 * handle_mmio_page_fault(), direct: the vCPU's cache first
 * (mmio_info_in_cache()), then the kernel's own walk, whose SPTE may no
 * longer be the one the hardware met.
 */
int nxsim__handle_mmio_page_fault(struct nxsim__vm_mmu *mmu,
				  struct nxsim__vcpu_mmu *vcpu, int as_id,
				  uint64_t gfn)
{
	if (mmio_gpa_in_cache(mmu, vcpu, gfn))
		return RET_PF_EMULATE;
	return mmio_spte_answer(mmu, vcpu, get_mmio_spte(mmu, as_id, gfn));
}

/*
 * handle_mmio_page_fault() on the shadow MMU: its walk
 * (walk_shadow_page_get_mmio_spte(), from the PAE roots too) runs under
 * the write lock the hardware walk held, so it reads the hardware's
 * @spte.  Direct (paging off) checks the cache by gpa first.  Indirect
 * (shadow paging) leaves out the gva half of the cache
 * (vcpu_match_mmio_gva()): a hit there answers what that SPTE answers,
 * since a CR3 load or an INVLPG clears it and a fault or a sync that
 * rewrites the SPTE rewrites it too.
 */
int nxsim__handle_mmio_page_fault_shadow(struct nxsim__vm_mmu *mmu,
					 struct nxsim__vcpu_mmu *vcpu,
					 bool direct, uint64_t gfn,
					 uint64_t spte)
{
	if (direct && mmio_gpa_in_cache(mmu, vcpu, gfn))
		return RET_PF_EMULATE;
	return mmio_spte_answer(mmu, vcpu, spte);
}

void nxsim__kvm_mmu_invalidate_mmio_sptes(struct nxsim__vm_mmu *mmu,
					  uint64_t gen)
{
	WARN_ON(gen & KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS);
	gen &= MMIO_SPTE_GEN_MASK;
	/* Strip the address-space modifier: a wrap in any space counts. */
	gen &= ~((uint64_t)KVM_ADDRESS_SPACE_NUM - 1);
	if (gen == 0)
		nxsim__kvm_mmu_zap_all_fast(mmu);
}
