// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TDP page-fault path for a guest access: kvm_tdp_page_fault() ->
 * direct_page_fault() -> fast_page_fault() (only its "make a write-
 * protected SPTE writable again" case) and kvm_tdp_mmu_map(), with
 * kvm_mmu_hugepage_adjust(), kvm_mmu_max_mapping_level(),
 * disallowed_hugepage_adjust(), the in-place split of a huge SPTE
 * (tdp_mmu_split_huge_page(), 6.2) or its zap (before), possible-NX
 * accounting, and tdp_mmu_map_handle_target_level().
 *
 * Page-table pages come from a cache topped up at the start of the fault
 * (mmu_topup_memory_caches(); under mmu_lock here, where the cache is per
 * VM, not per vCPU), so a failed allocation changes nothing.
 * Faults are handled under mmu_lock held for write; the kernel's
 * read-lock concurrency (and its retry paths) is left out, as are MMIO
 * SPTEs (an access outside every slot is reported as emulated).
 */
#include <errno.h>

#include "core/compiler.h"
#include "core/profile.h"
#include "mmu/host.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/vm.h"

/* The fields of struct kvm_page_fault this path uses. */
struct page_fault {
	uint64_t gfn;
	uint64_t pfn;
	bool exec;
	bool write;
	bool nx_huge_page_workaround_enabled;
	bool huge_page_disallowed;
	bool map_writable;
	int max_level;
	int req_level;
	int goal_level;
	const struct nxsim__memslot *slot;
};

int nxsim__max_mapping_level(struct nxsim_vm *vm,
			     const struct nxsim__memslot *slot, uint64_t gfn,
			     int max_level)
{
	int level = MIN(max_level, vm->mmu->max_huge_level);

	for (; level > NXSIM_PG_LEVEL_4K; level--)
		if (!nxsim__lpage_disallowed(slot, gfn, level))
			break;
	if (level == NXSIM_PG_LEVEL_4K)
		return level;
	return MIN(level, nxsim__host_mapping_level(slot, gfn));
}

/* kvm_mmu_hugepage_adjust() */
static void hugepage_adjust(struct nxsim_vm *vm, struct page_fault *f)
{
	f->huge_page_disallowed = f->exec && f->nx_huge_page_workaround_enabled;
	if (nxsim__slot_dirty_logging(f->slot))
		return;
	f->req_level =
		nxsim__max_mapping_level(vm, f->slot, f->gfn, f->max_level);
	if (f->req_level == NXSIM_PG_LEVEL_4K || f->huge_page_disallowed)
		return;
	f->goal_level = f->req_level;
	f->pfn &= ~(KVM_PAGES_PER_HPAGE(f->goal_level) - 1);
}

/* disallowed_hugepage_adjust() */
static void disallowed_hugepage_adjust(struct nxsim_vm *vm,
				       struct page_fault *f, uint64_t spte,
				       int cur_level)
{
	bool check_flag =
		vm->host->prof->nx_adjust_checks_flag &&
		!nxsim__host_has_bug(vm->host, NXSIM_BUG_ADJUST_ANY_NONLEAF);

	if (cur_level > NXSIM_PG_LEVEL_4K && cur_level == f->goal_level &&
	    is_shadow_present_pte(spte) && !is_large_pte(spte) &&
	    (!check_flag ||
	     nxsim__spte_to_child_sp(vm->mmu, spte)->nx_huge_page_disallowed)) {
		f->pfn |= f->gfn & (KVM_PAGES_PER_HPAGE(cur_level) -
				    KVM_PAGES_PER_HPAGE(cur_level - 1));
		f->goal_level--;
	}
}

/*
 * mmu_topup_memory_caches(): enough page-table pages for a walk from the
 * root (and the root itself if there is none), reserved pages first.
 * 0 or -ENOMEM, and on -ENOMEM the reserve and the allocator get back
 * what this call took.
 */
static int topup_cache(struct nxsim__vm_mmu *mmu)
{
	unsigned int want = mmu->root_level + !mmu->root, had = mmu->nr_cache;
	unsigned int reserved = mmu->nr_reserve;

	while (mmu->nr_cache < want) {
		struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

		if (!sp) {
			while (mmu->nr_cache > had)
				nxsim__tdp_mmu_free_sp(
					mmu, mmu->cache[--mmu->nr_cache]);
			/* Pages are alike: keep as many as there were. */
			nxsim__tdp_mmu_trim_reserve(mmu, reserved);
			/* The first frame table goes too: nothing changed. */
			if (!mmu->nr_sps)
				nxsim__tdp_mmu_release(mmu);
			return -ENOMEM;
		}
		mmu->cache[mmu->nr_cache++] = sp;
	}
	return 0;
}

/* tdp_mmu_alloc_sp() from the cache + tdp_mmu_init_child_sp(). */
static struct nxsim__mmu_page *child_sp(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *parent,
					uint64_t *ptep, uint64_t gfn)
{
	struct nxsim__mmu_page *sp = mmu->cache[--mmu->nr_cache];
	int level = parent->level - 1;

	sp->parent = parent;
	sp->level = level;
	sp->gfn = gfn & ~(KVM_PAGES_PER_HPAGE(level + 1) - 1);
	sp->ptep = ptep;
	return sp;
}

/* tdp_mmu_split_huge_page(): fill @sp from @huge, then link it. */
static void split_huge_page(struct nxsim_vm *vm, struct nxsim__mmu_page *sp,
			    uint64_t huge)
{
	nxsim__make_split_sptes(vm->mmu->fmt, huge, sp->level,
				nxsim__vm_nx_huge_page_enabled(vm), sp->spt);
	nxsim__tdp_mmu_set_spte(vm, sp->parent, sp->ptep,
				nxsim__make_nonleaf_spte(vm->mmu->fmt,
							 sp_pfn(sp)));
	vm->mmu->pages[sp->level - 1] += SPTE_ENT_PER_PAGE;
	sp->nr_leaves = SPTE_ENT_PER_PAGE;
	vm->mmu->counters.splits++;
}

/* The possible-NX accounting after linking @sp for a fault. */
static void account_nx(struct nxsim_vm *vm, struct page_fault *f,
		       struct nxsim__mmu_page *sp, int level, bool tag)
{
	if (!f->huge_page_disallowed ||
	    (f->req_level < level &&
	     !nxsim__host_has_bug(vm->host, NXSIM_BUG_TRACK_ANY_LEVEL)))
		return;
	pthread_mutex_lock(&vm->mmu->tdp_mmu_pages_lock);
	if (!tag) {
		/* account_huge_nx_page() of 6.1: flag iff tracked */
		if (!sp->nx_huge_page_disallowed) {
			sp->nx_huge_page_disallowed = true;
			nxsim__track_possible_nx_huge_page(vm, sp,
							   NXSIM__TDP_MMU);
		}
	} else if (sp->nx_huge_page_disallowed) {
		nxsim__track_possible_nx_huge_page(vm, sp, NXSIM__TDP_MMU);
	}
	pthread_mutex_unlock(&vm->mmu->tdp_mmu_pages_lock);
}

/* kvm_tdp_mmu_map() with the target-level handling. */
static void tdp_mmu_map(struct nxsim_vm *vm, struct page_fault *f,
			struct nxsim_access_info *info)
{
	const struct nxsim__profile *prof = vm->host->prof;
	struct nxsim__vm_mmu *mmu = vm->mmu;
	bool tag = prof->nx_tag_untracked &&
		   !nxsim__host_has_bug(vm->host, NXSIM_BUG_UNTAGGED_NX);
	struct nxsim__mmu_page *sp = mmu->root, *child;
	int level = mmu->root_level;
	uint64_t *sptep, old, new;

	hugepage_adjust(vm, f);
	for (;;) {
		sptep = &sp->spt[spte_index(f->gfn, level)];
		old = *sptep;
		if (f->nx_huge_page_workaround_enabled)
			disallowed_hugepage_adjust(vm, f, old, level);
		if (level == f->goal_level)
			break;
		if (is_shadow_present_pte(old) && !is_large_pte(old)) {
			sp = nxsim__spte_to_child_sp(mmu, old);
			level--;
			continue;
		}
		child = child_sp(mmu, sp, sptep, f->gfn);
		child->made_hpd = f->huge_page_disallowed;
		child->made_req_level = f->req_level;
		if (tag)
			child->nx_huge_page_disallowed =
				f->huge_page_disallowed;
		if (is_shadow_present_pte(old) && prof->tdp_split_on_fault) {
			split_huge_page(vm, child, old);
			info->splits++;
		} else {
			nxsim__sp_clear(child);
			if (is_shadow_present_pte(old)) {
				/* tdp_mmu_zap_spte_atomic() of 6.1 */
				nxsim__tdp_mmu_set_spte(
					vm, sp, sptep, SHADOW_NONPRESENT_VALUE);
				mmu->counters.huge_zaps++;
				info->zapped_huge++;
			}
			nxsim__tdp_mmu_set_spte(
				vm, sp, sptep,
				nxsim__make_nonleaf_spte(mmu->fmt,
							 sp_pfn(child)));
		}
		account_nx(vm, f, child, level, tag);
		sp = child;
		level--;
	}

	new = nxsim__make_spte(mmu->fmt, level, f->pfn, ACC_ALL,
			       f->map_writable,
			       nxsim__vm_nx_huge_page_enabled(vm));
	info->level = level;
	if (new == old) {
		info->outcome = NXSIM_ACCESS_SPURIOUS;
		return;
	}
	if (is_shadow_present_pte(old) && !is_last_spte(old, level)) {
		child = nxsim__spte_to_child_sp(mmu, old);
		/*
		 * Only a table still flagged blocks a huge page: recovery of
		 * a dirty-logged SP clears the flag (eb298605705a), and the
		 * flag-checking adjust (76901e56fb51) then lets it go.
		 */
		if (child->nx_huge_page_disallowed &&
		    nxsim__vm_nx_huge_page_enabled(vm))
			nxsim__mmu_event(
				mmu,
				"5.2#5: huge SPTE at level %d gfn 0x%llx "
				"replaced a table flagged "
				"nx_huge_page_disallowed",
				level, (unsigned long long)f->gfn);
	}
	nxsim__tdp_mmu_set_spte(vm, sp, sptep, new);
	info->outcome = NXSIM_ACCESS_FAULT;
}

/* The leaf mapping @gfn, or NULL; *level receives its level. */
static uint64_t *find_leaf(struct nxsim__vm_mmu *mmu, uint64_t gfn, int *level)
{
	struct nxsim__mmu_page *sp = mmu->root;
	int l = mmu->root_level;

	for (; sp; l--) {
		uint64_t *sptep = &sp->spt[spte_index(gfn, l)];

		if (!is_shadow_present_pte(*sptep))
			return NULL;
		if (is_last_spte(*sptep, l)) {
			*level = l;
			return sptep;
		}
		sp = nxsim__spte_to_child_sp(mmu, *sptep);
	}
	return NULL;
}

static bool permits(enum nxsim_spte_format fmt, uint64_t spte,
		    enum nxsim_access_kind kind)
{
	switch (kind) {
	case NXSIM_ACCESS_WRITE:
		return is_writable_pte(spte);
	case NXSIM_ACCESS_EXEC:
		return nxsim__spte_executable(fmt, spte);
	default:
		return true;
	}
}

static int handle_access(struct nxsim_vm *vm, enum nxsim_access_kind kind,
			 uint64_t gfn, struct nxsim_access_info *info)
{
	struct nxsim__vm_mmu *mmu = vm->mmu;
	struct page_fault f = {
		.gfn = gfn,
		.exec = kind == NXSIM_ACCESS_EXEC,
		.write = kind == NXSIM_ACCESS_WRITE,
		.max_level = NXSIM_PG_LEVEL_1G,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
	};
	uint64_t *sptep;
	int level = 0, rc;

	sptep = find_leaf(mmu, gfn, &level);
	if (sptep && permits(mmu->fmt, *sptep, kind)) {
		info->outcome = NXSIM_ACCESS_HIT;
		info->level = level;
		return 0;
	}
	rc = topup_cache(mmu);
	if (rc)
		return rc;
	if (!mmu->root)
		nxsim__tdp_mmu_new_root(vm, mmu->cache[--mmu->nr_cache]);
	mmu->counters.faults++;
	f.slot = nxsim__gfn_to_memslot(vm, gfn);
	if (!f.slot || (f.write && (f.slot->flags & NXSIM_MEM_READONLY))) {
		/* RET_PF_EMULATE: MMIO, or KVM_PFN_ERR_RO_FAULT */
		mmu->counters.emulated++;
		info->outcome = NXSIM_ACCESS_EMULATE;
		info->level = sptep ? level : 0;
		return 0;
	}
	/* fast_page_fault(): restore W on an MMU-writable SPTE. */
	if (sptep && f.write && nxsim__spte_mmu_writable(mmu->fmt, *sptep) &&
	    (level == NXSIM_PG_LEVEL_4K ||
	     !nxsim__slot_dirty_logging(f.slot))) {
		uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty;

		WRITE_ONCE(*sptep, *sptep | PT_WRITABLE_MASK | d);
		info->outcome = NXSIM_ACCESS_FAST;
		info->level = level;
		return 0;
	}
	f.nx_huge_page_workaround_enabled = nxsim__vm_nx_huge_page_enabled(vm);
	f.pfn = nxsim__gfn_to_pfn(f.slot, gfn);
	f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	tdp_mmu_map(vm, &f, info);
	info->req_level = f.req_level;
	info->goal_level = f.goal_level;
	info->huge_page_disallowed = f.huge_page_disallowed;
	return 0;
}

static bool uses_tdp_mmu(struct nxsim_host *host)
{
	return host->prof->tdp_mmu_default && !host->cpu.no_tdp &&
	       !host->cpu.no_tdp_mmu;
}

int nxsim_vcpu_access(struct nxsim_vcpu *vcpu, enum nxsim_access_kind kind,
		      uint64_t gpa, struct nxsim_access_info *info)
{
	struct nxsim_access_info local;
	struct nxsim_vm *vm;
	int rc;

	if (!vcpu || (unsigned int)kind > NXSIM_ACCESS_EXEC)
		return -EINVAL;
	vm = vcpu->vm;
	rc = nxsim__mmu_vm_enter(vm);
	if (rc)
		return rc;
	if (!uses_tdp_mmu(vm->host)) {
		rc = -EOPNOTSUPP;
		goto out;
	}
	if (gpa >> vm->mmu->phys_bits) {
		rc = -ERANGE;
		goto out;
	}
	local = (struct nxsim_access_info){ 0 };
	nxsim__write_lock(&vm->mmu_lock);
	rc = handle_access(vm, kind, gpa >> 12, &local);
	nxsim__rw_unlock(&vm->mmu_lock);
	if (!rc && info)
		*info = local;
out:
	nxsim__mmu_vm_exit(vm);
	return rc;
}
