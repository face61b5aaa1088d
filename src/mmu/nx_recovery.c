// SPDX-License-Identifier: GPL-2.0-only
/*
 * Possible NX huge pages: tracking (track_/untrack_possible_nx_huge_page(),
 * unaccount_nx_huge_page() of arch/x86/kvm/mmu/mmu.c) and the recovery
 * pass kvm_recover_nx_huge_pages() in its three shapes:
 *   - up to 6.1: one list, every SP zapped (dirty-logged ones too);
 *   - 6.2 to 6.17: one list, SPs of dirty-logged slots only unaccounted
 *     (eb298605705a);
 *   - 6.18: one list per MMU type, each SP unaccounted first, then zapped
 *     unless its slot is dirty-logged.
 * to_zap is ceil(n / ratio) of the list's (or, before 6.18, the stat's)
 * count, taken oldest first; a TLB flush is requested when anything was
 * zapped.
 *
 * Left out: the shadow MMU's list (always empty here: no shadow paging),
 * lock breaking, and the SMM address space of the memslot lookup.
 */
#include "core/compiler.h"
#include "core/profile.h"
#include "mmu/host.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/vm.h"

struct nxsim__possible_nx *nxsim__nx_list(struct nxsim_vm *vm,
					  enum nxsim__mmu_type type)
{
	return &vm->mmu->nx[vm->host->prof->per_type_lists ? type : 0];
}

void nxsim__track_possible_nx_huge_page(struct nxsim_vm *vm,
					struct nxsim__mmu_page *sp,
					enum nxsim__mmu_type type)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(vm, type);

	if (sp->nx_tracked)
		return;
	vm->mmu->nx_lpage_splits++;
	l->nr_pages++;
	l->len++;
	TAILQ_INSERT_TAIL(&l->pages, sp, possible_nx_huge_page_link);
	sp->nx_tracked = true;
}

void nxsim__untrack_possible_nx_huge_page(struct nxsim_vm *vm,
					  struct nxsim__mmu_page *sp,
					  enum nxsim__mmu_type type)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(vm, type);

	if (!sp->nx_tracked)
		return;
	vm->mmu->nx_lpage_splits--;
	l->nr_pages--;
	/* list_del() needs no list head: the entry leaves whatever list. */
	l = nxsim__nx_list(vm, sp->tdp_mmu_page ? NXSIM__TDP_MMU :
						  NXSIM__SHADOW_MMU);
	l->len--;
	TAILQ_REMOVE(&l->pages, sp, possible_nx_huge_page_link);
	sp->nx_tracked = false;
}

/* unaccount_nx_huge_page() as the recovery loop calls it. */
static void unaccount_nx_huge_page(struct nxsim_vm *vm,
				   struct nxsim__mmu_page *sp,
				   enum nxsim__mmu_type type)
{
	if (nxsim__host_has_bug(vm->host, NXSIM_BUG_UNTRACK_WRONG_TYPE))
		type = NXSIM__SHADOW_MMU;
	sp->nx_huge_page_disallowed = false;
	nxsim__untrack_possible_nx_huge_page(vm, sp, type);
}

/* kvm_mmu_sp_dirty_logging_enabled() */
static bool sp_dirty_logging(struct nxsim_vm *vm, struct nxsim__mmu_page *sp)
{
	struct nxsim__memslot *slot;

	if (!vm->mmu->nr_memslots_dirty_logging)
		return false;
	slot = nxsim__gfn_to_memslot(vm, sp->gfn);
	return slot && nxsim__slot_dirty_logging(slot);
}

/* kvm_recover_nx_huge_pages(kvm, type); called with mmu_lock for write. */
static void recover(struct nxsim_vm *vm, enum nxsim__mmu_type type)
{
	const struct nxsim__profile *prof = vm->host->prof;
	struct nxsim__possible_nx *l = nxsim__nx_list(vm, type);
	struct nxsim__vm_mmu *mmu = vm->mmu;
	bool skip_dirty =
		prof->recovery_skip_dirty &&
		!nxsim__host_has_bug(vm->host, NXSIM_BUG_RECOVER_DIRTY);
	unsigned int ratio = READ_ONCE(vm->host->nx.recovery_ratio);
	uint64_t nr = prof->per_type_lists ? l->nr_pages : mmu->nx_lpage_splits;
	uint64_t to_zap = ratio ? DIV_ROUND_UP(nr, ratio) : 0, done = 0;
	uint64_t len = l->len; /* the true length, for invariant 9 */
	struct nxsim__mmu_page *sp;
	bool flush = false, dirty;

	mmu->counters.recovery_passes++;
	for (; to_zap; to_zap--) {
		pthread_mutex_lock(&mmu->tdp_mmu_pages_lock);
		sp = TAILQ_FIRST(&l->pages);
		if (!sp) {
			pthread_mutex_unlock(&mmu->tdp_mmu_pages_lock);
			break;
		}
		WARN_ON(!sp->nx_huge_page_disallowed || !sp->direct);
		if (prof->per_type_lists)
			unaccount_nx_huge_page(vm, sp, type);
		pthread_mutex_unlock(&mmu->tdp_mmu_pages_lock);
		done++;

		dirty = sp_dirty_logging(vm, sp);
		if (skip_dirty && dirty) {
			if (!prof->per_type_lists)
				unaccount_nx_huge_page(vm, sp, type);
			sp->unaccounted = true;
			mmu->counters.recovery_unaccounted++;
			continue;
		}
		if (dirty && prof->recovery_skip_dirty)
			nxsim__mmu_event(mmu,
					 "5.2#9: recovery zapped SP gfn 0x%llx "
					 "level %d in a dirty-logged slot",
					 (unsigned long long)sp->gfn,
					 sp->level);
		if (nxsim__tdp_mmu_zap_sp(vm, sp)) {
			flush = true;
			mmu->counters.recovery_zapped++;
		}
	}
	if (ratio && done > DIV_ROUND_UP(len, ratio))
		nxsim__mmu_event(mmu,
				 "5.2#9: recovery took %llu SPs, more than "
				 "ceil(%llu / %u)",
				 (unsigned long long)done,
				 (unsigned long long)len, ratio);
	if (flush)
		mmu->counters.tlb_flushes++;
}

void nxsim__mmu_recover_nx_huge_pages(struct nxsim_vm *vm)
{
	nxsim__write_lock(&vm->mmu_lock);
	if (vm->host->prof->per_type_lists)
		recover(vm, NXSIM__SHADOW_MMU);
	recover(vm, NXSIM__TDP_MMU);
	nxsim__rw_unlock(&vm->mmu_lock);
}
