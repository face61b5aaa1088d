// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLB of each vCPU on the MMU's mappings, and the remote flushes that
 * reach it.  A guest access looks up the vCPU's TLB (the iTLB for a fetch,
 * the dTLB otherwise, then the second level); a miss, or an entry whose
 * cached rights do not allow the access, pays a two-dimensional walk and
 * goes to the MMU's fault entry (nxsim__kvm_mmu_do_page_fault(): with TDP a
 * TDP page fault if the SPTE does not allow it, with TDP off the shadow
 * fault path), then fills an entry of the size the hardware caches: the
 * smaller of the guest's page and the SPTE's level (splintering).
 *
 * The MMU's remote flushes (kvm_flush_remote_tlbs(), its ranged forms,
 * and KVM_REQ_MMU_FREE_OBSOLETE_ROOTS from kvm_mmu_zap_all_fast()) post
 * requests to every vCPU (kvm_make_all_cpus_request(), virt/kvm/
 * kvm_main.c); each vCPU handles its requests at its next access, as
 * vcpu_enter_guest() of arch/x86/kvm/x86.c does before entering the guest:
 * KVM_REQ_TLB_FLUSH flushes everything (kvm_vcpu_flush_tlb_all(), counted
 * in vcpu->stat.tlb_flush); a root reload flushes everything too
 * (kvm_mmu_load()'s flush of the new root) and is counted apart.  A ranged
 * flush reaches the vCPUs as a range only where the VM's config says the
 * host has one (kvm_x86_ops.flush_remote_tlbs_range: Hyper-V's enlightened
 * flush); otherwise, as on bare-metal EPT and NPT, it is a full flush.
 * Pending ranges of one vCPU merge into their envelope, flushed page by
 * page up to the TLB's ceiling and in full above it.
 *
 * The hit path takes no lock and allocates nothing: one relaxed load of
 * the vCPU's request word, the TLB probe and the rights check.  The TLB
 * is used under the vCPU's mutex (its accesses, the guest's INVLPG and
 * CR3 loads); other threads only post requests.
 *
 * Guest page tables: an access at a guest level of its own is the fast
 * mode (the guest maps gpa = gva with pages of that level; the frame an
 * entry holds is the gfn).  An access with NXSIM_GUEST_LEVEL_WALK names
 * a gva: a miss walks the guest's 4-level tables in guest memory
 * (nxsim__guest_translate(), which sets A and D), and the entry, tagged by
 * the gva, caches min(guest level, SPTE level) with what both allow, the
 * walk charged with the guest's real level.  With TDP off such a miss is
 * the shadow MMU's (kvm_mmu_page_fault() -> FNAME(page_fault)) and the
 * entry caches the shadow leaf, a one-dimensional walk.
 *
 * The guest's own flushes reach the TLB too: its INVLPG drops the page's
 * entries, its CR3 loads flush them all (nxsim_guest_invlpg(),
 * nxsim_guest_set_paging()).
 *
 * Left out: PCIDs/VPIDs (one address space per vCPU, no global entries,
 * so no CR4.PGE or PCIDE flushes), the role bits the guest's state cannot
 * express (CR4.LA57, SMEP, SMAP, PKE; EFER.LME apart from LMA), EPT
 * violations on the guest's own table pages (the walk reads them
 * without the TDP MMU), and the A/D bits of the fast mode.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/vcpu.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "kvm/host.h"
#include "kvm/profile.h"
#include "kvm/vcpu_tlb.h"
#include "kvm/vm.h"
#include "mmu/mmu.h"
#include "mmu/paging_tmpl.h"
#include "tlb/lookup_word.h"
#include "tlb/tlb.h"

/*
 * The frame word of an entry: the gfn of its first page, with what the
 * SPTE allowed (NXSIM__RIGHT_*) and the SPTE's level above any gfn.
 */
#define ENT_RIGHTS_SHIFT 62
#define ENT_LEVEL_SHIFT 59
#define ENT_GFN_MASK ((1ull << ENT_LEVEL_SHIFT) - 1)

void nxsim_vcpu_tlb_config_default(struct nxsim_vcpu_tlb_config *c)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	nxsim_tlb_config_default(&c->tlb, 1);
	nxsim_guest_costs_default(&c->costs);
}

int nxsim_guest_walk_refs(int guest_level, int host_level, int root_level,
			  bool pwc)
{
	int g, h;

	if (guest_level < NXSIM_PG_LEVEL_4K ||
	    guest_level > NXSIM_PG_LEVEL_1G || host_level < NXSIM_PG_LEVEL_4K ||
	    host_level > NXSIM_PG_LEVEL_1G || root_level < 4 || root_level > 5)
		return -EINVAL;
	if (pwc)
		return 3;
	g = 5 - guest_level;
	h = root_level + 1 - host_level;
	return (g + 1) * (h + 1) - 1;
}

int nxsim_vm_set_vcpu_tlb(struct nxsim_vm *vm,
			  const struct nxsim_vcpu_tlb_config *cfg)
{
	struct nxsim_vcpu_tlb_config *copy;
	struct nxsim_vcpu **vcpus;
	struct nxsim_tlb *probe;
	struct nxsim_tlb_config tc;
	int rc;

	if (!cfg)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	/* The geometry is checked by making one. */
	tc = cfg->tlb;
	tc.nr_cpus = 1;
	rc = nxsim_tlb_create(&tc, &probe);
	if (rc)
		goto out;
	nxsim_tlb_destroy(probe);
	copy = nxsim__alloc(sizeof(*copy));
	vcpus = nxsim__zalloc(KVM_MAX_VCPUS * sizeof(*vcpus));
	if (!copy || !vcpus) {
		nxsim__free(copy, sizeof(*copy));
		nxsim__free(vcpus, KVM_MAX_VCPUS * sizeof(*vcpus));
		rc = -ENOMEM;
		goto out;
	}
	*copy = *cfg;
	copy->tlb.nr_cpus = 1;
	/* The caller's string may not last: keep the policy's own name. */
	copy->tlb.replacement =
		nxsim__tlb_repl_find(
			cfg->tlb.replacement ? cfg->tlb.replacement : "lru")
			->name;
	pthread_mutex_lock(&vm->lock);
	if (vm->created_vcpus || vm->tlb_cfg) {
		pthread_mutex_unlock(&vm->lock);
		nxsim__free(copy, sizeof(*copy));
		nxsim__free(vcpus, KVM_MAX_VCPUS * sizeof(*vcpus));
		rc = -EBUSY;
		goto out;
	}
	vm->tlb_vcpus = vcpus;
	__atomic_store_n(&vm->tlb_cfg, copy, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&vm->lock);
out:
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim__vcpu_tlb_create(struct nxsim_vm *vm, struct nxsim_vcpu *vcpu)
{
	struct nxsim__vcpu_tlb *vt;
	int rc;

	if (!vm->tlb_cfg)
		return 0;
	vt = nxsim__zalloc(sizeof(*vt));
	if (!vt)
		return -ENOMEM;
	rc = nxsim_tlb_create(&vm->tlb_cfg->tlb, &vt->tlb);
	if (rc) {
		nxsim__free(vt, sizeof(*vt));
		return rc;
	}
	pthread_mutex_init(&vt->range_lock, NULL);
	vcpu->tlb = vt;
	return 0;
}

void nxsim__vcpu_tlb_free(struct nxsim_vcpu *vcpu)
{
	struct nxsim__vcpu_tlb *vt = vcpu->tlb;

	if (!vt)
		return;
	nxsim_tlb_destroy(vt->tlb);
	pthread_mutex_destroy(&vt->range_lock);
	nxsim__free(vt, sizeof(*vt));
	vcpu->tlb = NULL;
}

/* kvm_make_request() for one vCPU. */
static void kvm_make_request(struct nxsim__vcpu_tlb *vt, uint32_t req,
			     uint64_t gfn, uint64_t pages)
{
	if (req == NXSIM__REQ_TLB_RANGE) {
		pthread_mutex_lock(&vt->range_lock);
		if (vt->range_start == vt->range_end) {
			vt->range_start = gfn;
			vt->range_end = gfn + pages;
		} else {
			vt->range_start = MIN(vt->range_start, gfn);
			vt->range_end = MAX(vt->range_end, gfn + pages);
		}
		pthread_mutex_unlock(&vt->range_lock);
	}
	__atomic_fetch_add(&vt->flush_requests, 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&vt->requests, req, __ATOMIC_RELEASE);
}

void nxsim__kvm_make_all_cpus_request(void *ctx, enum nxsim__vcpu_flush what,
				      uint64_t gfn, uint64_t pages)
{
	struct nxsim_vm *vm = ctx;
	const struct nxsim_vcpu_tlb_config *cfg =
		__atomic_load_n(&vm->tlb_cfg, __ATOMIC_ACQUIRE);
	unsigned int i, n;
	uint32_t req;

	if (!cfg)
		return;
	n = __atomic_load_n(&vm->nr_tlb_vcpus, __ATOMIC_ACQUIRE);
	switch (what) {
	case NXSIM__FLUSH_ROOTS:
		req = NXSIM__REQ_FREE_ROOTS;
		break;
	case NXSIM__FLUSH_RANGE:
		req = cfg->range_flush && pages ? NXSIM__REQ_TLB_RANGE :
						  NXSIM__REQ_TLB_FLUSH;
		break;
	default:
		req = NXSIM__REQ_TLB_FLUSH;
		break;
	}
	for (i = 0; i < n; i++)
		kvm_make_request(vm->tlb_vcpus[i]->tlb, req, gfn, pages);
}

/* The vCPU's roots are freed: the next access loads a new one. */
static void free_roots(struct nxsim__vcpu_tlb *vt)
{
	vt->st.root_reloads++;
	nxsim__tlb_flush_one_cpu(vt->tlb, 0, 0, 0, true);
}

/* vcpu_enter_guest()'s request handling, on the vCPU's thread. */
static void nxsim__vcpu_handle_requests(struct nxsim__vcpu_tlb *vt)
{
	uint32_t req = __atomic_exchange_n(&vt->requests, 0, __ATOMIC_ACQUIRE);
	uint64_t start, end;

	if (req & NXSIM__REQ_TLB_RANGE) {
		pthread_mutex_lock(&vt->range_lock);
		start = vt->range_start;
		end = vt->range_end;
		vt->range_start = vt->range_end = 0;
		pthread_mutex_unlock(&vt->range_lock);
		/* gva-tagged entries: a gfn range names none of them */
		if (!(req & (NXSIM__REQ_TLB_FLUSH | NXSIM__REQ_FREE_ROOTS))) {
			vt->st.tlb_flush_range++;
			nxsim__tlb_flush_one_cpu(
				vt->tlb, 0, start << NXSIM_TLB_SHIFT_4K,
				end - start,
				vt->gva || !nxsim__tlb_ranged(vt->tlb,
							      end - start));
		}
	}
	if (req & NXSIM__REQ_FREE_ROOTS)
		free_roots(vt);
	if (req & NXSIM__REQ_TLB_FLUSH) {
		/* kvm_vcpu_flush_tlb_all() */
		vt->st.tlb_flush++;
		if (!(req & NXSIM__REQ_FREE_ROOTS))
			nxsim__tlb_flush_one_cpu(vt->tlb, 0, 0, 0, true);
	}
}

void nxsim__vcpu_tlb_reset_context(struct nxsim_vcpu *vcpu)
{
	struct nxsim__vcpu_tlb *vt = vcpu->tlb;

	if (vt)
		free_roots(vt);
}

/*
 * INVLPG drops every entry of the page that holds @gva, of any size, at
 * both levels.  With TDP the CPU does it without an exit; with shadow
 * paging kvm_mmu_invlpg() intercepts it (vcpu->stat.invlpg) and issues
 * it on the guest's behalf (kvm_x86_ops.flush_tlb_gva).
 */
void nxsim__vcpu_tlb_invlpg(struct nxsim_vcpu *vcpu, uint64_t gva)
{
	struct nxsim__vcpu_tlb *vt = vcpu->tlb;

	if (!vt)
		return;
	vt->st.invlpg++;
	nxsim__tlb_invlpg(vt->tlb, 0, gva);
}

/*
 * Whether going from @old to @new changes a bit of the MMU role, so that
 * kvm_post_set_cr0(), kvm_post_set_cr4() or kvm_set_efer() calls
 * kvm_mmu_reset_context(): CR0.PG and WP, CR4.PAE and PSE, EFER.LME
 * (@efer_lma here) and NX.  With TDP a change of WP alone only refreshes
 * the MMU on the trees that have 01b31714bd90.
 */
static bool role_changes(const struct nxsim_vcpu *vcpu,
			 const struct nxsim_guest_paging *old,
			 const struct nxsim_guest_paging *new)
{
	bool wp_keeps_root = nxsim__vm_tdp_enabled(vcpu->vm) &&
			     vcpu->vm->host->prof->cr0_wp_keeps_root;

	return old->cr0_pg != new->cr0_pg ||
	       (old->cr0_wp != new->cr0_wp && !wp_keeps_root) ||
	       old->cr4_pae != new->cr4_pae || old->cr4_pse != new->cr4_pse ||
	       old->efer_lma != new->efer_lma || old->efer_nxe != new->efer_nxe;
}

/**
 * nxsim__vcpu_tlb_set_paging() - the TLB side of the guest's loads of
 *	CR0, CR4, EFER and CR3, from @old to @new
 * @vcpu: the vCPU, its mutex held
 * @old: the state before
 * @new: the state loaded
 *
 * Each MOV exits on its own (CR0.PG and CR4.PAE always do), so the
 * flushes KVM requests add up in vcpu->stat.tlb_flush:
 *   - clearing CR0.PG: KVM_REQ_TLB_FLUSH_GUEST (kvm_post_set_cr0());
 *   - toggling CR4.PAE: KVM_REQ_TLB_FLUSH_CURRENT (kvm_post_set_cr4());
 *   - a changed MMU role bit: kvm_mmu_reset_context(), a root reload,
 *     whose kvm_mmu_load() flushes everything (not in tlb_flush);
 *   - the MOV to CR3 (without PCIDs, which the model leaves out) flushes
 *     every non-global entry, and the model fills none global: with TDP
 *     the CPU does it without an exit; with shadow paging kvm_set_cr3()
 *     does it through kvm_invalidate_pcid()'s KVM_REQ_TLB_FLUSH_CURRENT.
 * Nothing happens before the vCPU's first access: that is the VMM's
 * set-up (KVM_SET_SREGS), with no root loaded and nothing cached yet.
 */
void nxsim__vcpu_tlb_set_paging(struct nxsim_vcpu *vcpu,
				const struct nxsim_guest_paging *old,
				const struct nxsim_guest_paging *new)
{
	struct nxsim__vcpu_tlb *vt = vcpu->tlb;
	bool role;

	if (!vt || !vt->st.accesses)
		return;
	role = role_changes(vcpu, old, new);
	vt->st.tlb_flush += (old->cr0_pg && !new->cr0_pg) +
			    (old->cr4_pae != new->cr4_pae) +
			    !nxsim__vm_tdp_enabled(vcpu->vm);
	vt->st.cr3_flushes++;
	if (role)
		free_roots(vt);
	else
		nxsim__tlb_flush_one_cpu(vt->tlb, 0, 0, 0, true);
}

/* What an entry's rights must hold for @kind. */
static inline bool rights_allow(uint64_t word, enum nxsim_access_kind kind)
{
	unsigned int r = (unsigned int)(word >> ENT_RIGHTS_SHIFT);

	switch (kind) {
	case NXSIM_ACCESS_WRITE:
		return r & NXSIM__RIGHT_WRITE;
	case NXSIM_ACCESS_EXEC:
		return r & NXSIM__RIGHT_EXEC;
	default:
		return true;
	}
}

static inline enum nxsim_tlb_access tlb_access(enum nxsim_access_kind kind)
{
	return kind == NXSIM_ACCESS_EXEC  ? NXSIM_TLB_EXEC :
	       kind == NXSIM_ACCESS_WRITE ? NXSIM_TLB_WRITE :
					    NXSIM_TLB_READ;
}

/* The entry for @va: @level's page, @pfn's frame word with @rights. */
static void vcpu_tlb_fill(struct nxsim__vcpu_tlb *vt,
			  enum nxsim_access_kind kind, uint64_t va,
			  uint64_t gpa, int level, int spte_level,
			  unsigned int rights)
{
	struct nxsim_tlb_entry e = { 0 };

	(&vt->st.fills_4k)[level - 1]++;
	e.page_shift = (uint8_t)(NXSIM_TLB_SHIFT_4K + 9 * (level - 1));
	e.va = va & ~((1ull << e.page_shift) - 1);
	e.pfn = ((gpa & ~((1ull << e.page_shift) - 1)) >> NXSIM_TLB_SHIFT_4K) |
		(uint64_t)spte_level << ENT_LEVEL_SHIFT |
		(uint64_t)rights << ENT_RIGHTS_SHIFT;
	nxsim__tlb_fill(vt->tlb, 0, tlb_access(kind), &e);
}

/*
 * The miss: a two-dimensional walk, the MMU (a fault if the SPTE does not
 * allow the access), and the fill at min(guest level, SPTE level) of @va
 * (the gpa itself, or the gva the guest's walk translated to @gpa) with
 * what the SPTE and the guest's mapping (@guest_rights) allow.
 */
static int vcpu_tlb_miss(struct nxsim_vcpu *vcpu, struct nxsim__vcpu_tlb *vt,
			 enum nxsim_access_kind kind, uint64_t va, uint64_t gpa,
			 int guest_level, unsigned int guest_rights,
			 struct nxsim_access_info *info)
{
	const struct nxsim_vcpu_tlb_config *cfg = vcpu->vm->tlb_cfg;
	unsigned int rights = 0;
	int rc, refs;

	vt->st.walks++;
	rc = nxsim__kvm_mmu_do_page_fault(vcpu->vm->mmu, &vcpu->mmu,
					  &vcpu->arch_mmu, kind, gpa, info,
					  &rights);
	if (rc)
		return rc;
	if (info->outcome != NXSIM_ACCESS_HIT)
		vt->st.faults++;
	if (info->outcome == NXSIM_ACCESS_EMULATE || !info->level)
		return 0; /* nothing mapped: nothing cached */
	refs = nxsim_guest_walk_refs(guest_level, info->level,
				     nxsim__mmu_root_level(vcpu->vm->mmu),
				     cfg->pwc);
	vt->st.walk_refs += (uint64_t)refs;
	vt->st.walk_cycles += (uint64_t)refs * cfg->costs.walk_ref;
	vcpu_tlb_fill(vt, kind, va, gpa, MIN(guest_level, info->level),
		      info->level, rights & guest_rights);
	return 0;
}

/* The right an access of @kind needs (NXSIM__RIGHT_*; 0 for a read). */
static unsigned int kind_right(enum nxsim_access_kind kind)
{
	return kind == NXSIM_ACCESS_WRITE ? NXSIM__RIGHT_WRITE :
	       kind == NXSIM_ACCESS_EXEC  ? NXSIM__RIGHT_EXEC :
					    0;
}

/*
 * The miss of an access at a guest virtual address with TDP: the guest's
 * walk (FNAME(walk_addr_generic) as the hardware does it, A and D set),
 * then the walk's gpa as any miss, with the guest's real mapping level
 * and rights.  A failed walk is the guest's own #PF: no exit, no fill.
 */
static int vcpu_tlb_walk_miss(struct nxsim_vcpu *vcpu,
			      struct nxsim__vcpu_tlb *vt,
			      enum nxsim_access_kind kind, uint64_t gva,
			      struct nxsim_access_info *info)
{
	uint32_t pfec = (kind == NXSIM_ACCESS_WRITE ? NXSIM_PFERR_WRITE : 0) |
			(kind == NXSIM_ACCESS_EXEC ? NXSIM_PFERR_FETCH : 0) |
			(vcpu->arch_mmu.regs.user ? NXSIM_PFERR_USER : 0);
	struct nxsim_guest_walk w;
	unsigned int rights;
	int rc;

	rc = nxsim__guest_translate(vcpu->vm->mmu, &vcpu->arch_mmu, gva, pfec,
				    &w);
	if (rc)
		return -ERANGE; /* a gva the mode cannot form */
	if (w.fault) {
		vt->st.walks++;
		info->outcome = NXSIM_ACCESS_GUEST_FAULT;
		return 0;
	}
	rights = (w.access & NXSIM_ACC_WRITE ? NXSIM__RIGHT_WRITE : 0) |
		 (w.access & NXSIM_ACC_EXEC ? NXSIM__RIGHT_EXEC : 0);
	return vcpu_tlb_miss(vcpu, vt, kind, gva, w.gpa, w.level, rights, info);
}

/*
 * The miss with TDP off: the hardware walks the shadow tables (root level
 * + 1 - leaf level references, one with page-walk caches) and, if they do
 * not allow the access, kvm_mmu_page_fault() runs FNAME(page_fault); the
 * entry caches the shadow leaf, which FNAME(fetch) never makes larger
 * than the guest's mapping.  The shadow MMU does not say what its leaf
 * allows, so the entry holds what this access proved, plus, when the
 * leaf was already there (no fault changed it), what @old proved of the
 * same leaf: an SPTE that loses a right is flushed first.
 */
static int vcpu_tlb_shadow_miss(struct nxsim_vcpu *vcpu,
				struct nxsim__vcpu_tlb *vt,
				enum nxsim_access_kind kind, uint64_t gva,
				uint64_t old, struct nxsim_access_info *info)
{
	const struct nxsim_vcpu_tlb_config *cfg = vcpu->vm->tlb_cfg;
	unsigned int rights = kind_right(kind);
	int rc, refs;

	vt->st.walks++;
	rc = nxsim__kvm_mmu_do_page_fault(vcpu->vm->mmu, &vcpu->mmu,
					  &vcpu->arch_mmu, kind, gva, info,
					  NULL);
	if (rc)
		return rc;
	if (info->outcome != NXSIM_ACCESS_HIT)
		vt->st.faults++;
	else if (old && (int)((old >> ENT_LEVEL_SHIFT) & 3) == info->level)
		rights |= (unsigned int)(old >> ENT_RIGHTS_SHIFT);
	if (info->outcome == NXSIM_ACCESS_EMULATE ||
	    info->outcome == NXSIM_ACCESS_GUEST_FAULT || !info->level)
		return 0;
	refs = cfg->pwc ?
		       1 :
		       nxsim__mmu_root_level(vcpu->vm->mmu) + 1 - info->level;
	vt->st.walk_refs += (uint64_t)refs;
	vt->st.walk_cycles += (uint64_t)refs * cfg->costs.walk_ref;
	vcpu_tlb_fill(vt, kind, gva, gva, info->level, info->level, rights);
	return 0;
}

/*
 * The miss of either mode, @old the entry that did not allow the access
 * (0 if none); kept out of line so that the hit path inlined into the
 * batch loop stays small.
 */
__attribute__((noinline)) static int
vcpu_tlb_miss_any(struct nxsim_vcpu *vcpu, struct nxsim__vcpu_tlb *vt,
		  enum nxsim_access_kind kind, uint64_t gpa, int guest_level,
		  uint64_t old, struct nxsim_access_info *info)
{
	if (likely(guest_level != NXSIM_GUEST_LEVEL_WALK))
		return vcpu_tlb_miss(vcpu, vt, kind, gpa, gpa, guest_level,
				     NXSIM__RIGHT_WRITE | NXSIM__RIGHT_EXEC,
				     info);
	vt->gva = true;
	if (!nxsim__vm_tdp_enabled(vcpu->vm))
		return vcpu_tlb_shadow_miss(vcpu, vt, kind, gpa, old, info);
	return vcpu_tlb_walk_miss(vcpu, vt, kind, gpa, info);
}

/*
 * One access on a vCPU with a TLB; the VM is entered.  @guest_level
 * NXSIM_GUEST_LEVEL_WALK: @gpa is a gva (checked by the caller).
 */
static inline int vcpu_tlb_access(struct nxsim_vcpu *vcpu,
				  enum nxsim_access_kind kind, uint64_t gpa,
				  int guest_level,
				  struct nxsim_access_info *info)
{
	struct nxsim__vcpu_tlb *vt = vcpu->tlb;
	bool exec = kind == NXSIM_ACCESS_EXEC;
	enum nxsim_tlb_level lv;
	uint64_t word;

	if (unlikely(__atomic_load_n(&vt->requests, __ATOMIC_RELAXED)))
		nxsim__vcpu_handle_requests(vt);
	vt->st.accesses++;
	vt->st.exec += exec;
	if (likely(!nxsim__tlb_lookup_word(vt->tlb, 0, tlb_access(kind), gpa,
					   &word, &lv))) {
		if (lv == NXSIM_TLB_L2) {
			vt->st.l1d_misses += !exec;
			vt->st.l1i_misses += exec;
		}
		if (likely(rights_allow(word, kind))) {
			info->outcome = NXSIM_ACCESS_HIT;
			info->level = (int)((word >> ENT_LEVEL_SHIFT) & 3);
			return 0;
		}
		vt->st.perm_misses++;
	} else {
		word = 0;
		vt->st.l1d_misses += !exec;
		vt->st.l1i_misses += exec;
	}
	return vcpu_tlb_miss_any(vcpu, vt, kind, gpa, guest_level, word, info);
}

static bool bad_level(int level)
{
	return level < NXSIM_PG_LEVEL_4K || level > NXSIM_PG_LEVEL_1G;
}

/*
 * What an access at @level may be on @vcpu: 0, or -EOPNOTSUPP (TDP off
 * wants NXSIM_GUEST_LEVEL_WALK on a TLB; a walk wants a 64-bit guest).
 */
static int access_mode_check(struct nxsim_vcpu *vcpu, int level)
{
	if (level == NXSIM_GUEST_LEVEL_WALK)
		return vcpu->tlb && nxsim__guest_mode(&vcpu->arch_mmu) ==
					       NXSIM_GUEST_64BIT ?
			       0 :
			       -EOPNOTSUPP;
	return nxsim__vm_tdp_enabled(vcpu->vm) ? 0 : -EOPNOTSUPP;
}

int nxsim__vcpu_access_entered(struct nxsim_vcpu *vcpu,
			       enum nxsim_access_kind kind, uint64_t gpa,
			       int guest_level, struct nxsim_access_info *info)
{
	int rc;

	if ((unsigned int)kind > NXSIM_ACCESS_EXEC ||
	    (guest_level != NXSIM_GUEST_LEVEL_WALK && bad_level(guest_level)))
		return -EINVAL;
	rc = access_mode_check(vcpu, guest_level);
	if (rc)
		return rc;
	if (!vcpu->tlb)
		return nxsim__kvm_mmu_do_page_fault(vcpu->vm->mmu, &vcpu->mmu,
						    &vcpu->arch_mmu, kind, gpa,
						    info, NULL);
	memset(info, 0, sizeof(*info));
	return vcpu_tlb_access(vcpu, kind, gpa, guest_level, info);
}

int64_t nxsim_vcpu_access_batch(struct nxsim_vcpu *vcpu,
				const struct nxsim_guest_access *a, size_t n)
{
	struct nxsim_access_info info;
	struct nxsim_vm *vm;
	bool tdp;
	size_t i;
	int rc;

	if (!vcpu || (!a && n))
		return -EINVAL;
	vm = vcpu->vm;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	tdp = nxsim__vm_tdp_enabled(vm);
	/* vcpu_run(): kvm_vcpu_srcu_read_lock() around the exits. */
	nxsim__lockdep_acquire(NXSIM__LOCK_KVM_SRCU);
	for (i = 0; !rc && i < n; i++) {
		if (likely(tdp && vcpu->tlb && a[i].kind <= NXSIM_ACCESS_EXEC &&
			   !bad_level(a[i].guest_level)))
			rc = vcpu_tlb_access(vcpu, a[i].kind, a[i].gpa,
					     a[i].guest_level, &info);
		else
			rc = nxsim__vcpu_access_entered(vcpu, a[i].kind,
							a[i].gpa,
							a[i].guest_level,
							&info);
	}
	nxsim__lockdep_release(NXSIM__LOCK_KVM_SRCU);
	nxsim__vcpu_exit(vcpu);
	return rc ? rc : (int64_t)n;
}

int nxsim_vcpu_stats(struct nxsim_vcpu *vcpu, struct nxsim_vcpu_stats *st)
{
	if (!vcpu || !st)
		return -EINVAL;
	if (!vcpu->tlb)
		return -ENODEV;
	*st = vcpu->tlb->st;
	st->flush_requests =
		__atomic_load_n(&vcpu->tlb->flush_requests, __ATOMIC_RELAXED);
	return 0;
}
