// SPDX-License-Identifier: GPL-2.0-only
/*
 * arch/x86/kvm/mmu/mmu.c as far as the TDP MMU and the NX mitigation use
 * it:
 *   - the VM's MMU: kvm_mmu_init_vm(), kvm_mmu_uninit_vm() with the final
 *     zap, kvm_mmu_zap_all_fast() (generation flip, every root invalidated
 *     and torn down at once, as the newest tree does under slots_lock), the
 *     VM stats by their kernel names, is_nx_huge_page_enabled();
 *   - the fault path of a guest access: kvm_tdp_page_fault() ->
 *     direct_page_fault() -> fast_page_fault() (only its "make a write-
 *     protected SPTE writable again" case) and kvm_tdp_mmu_map() (in
 *     tdp_mmu.c) or, with the TDP MMU off, the shadow MMU's direct_map()
 *     (in shadow_mmu.c), with kvm_mmu_hugepage_adjust(),
 *     kvm_mmu_max_mapping_level() and disallowed_hugepage_adjust();
 *   - possible NX huge pages: track_/untrack_possible_nx_huge_page(),
 *     unaccount_nx_huge_page() and the recovery pass
 *     kvm_recover_nx_huge_pages() in its three shapes:
 *       - up to 6.1: one list, every SP zapped (dirty-logged ones too);
 *       - 6.2 to 6.17: one list, SPs of dirty-logged slots only
 *         unaccounted (eb298605705a);
 *       - 6.18: one list per MMU type, each SP unaccounted first, then
 *         zapped unless its slot is dirty-logged.
 *     to_zap is ceil(n / ratio) of the list's (or, before 6.18, the
 *     stat's) count, taken oldest first; TDP MMU pages are zapped at once,
 *     shadow MMU pages prepared on an invalid list and committed at the
 *     end (kvm_mmu_remote_flush_or_zap()): one TLB flush when anything was
 *     zapped.
 *
 * The SPTE format follows the host CPU (EPT on Intel, NPT on AMD); the
 * root has 5 levels when the host has LA57 and, on EPT, the guest's
 * MAXPHYADDR (the host's here) exceeds 48 (kvm_mmu_get_tdp_level()).
 *
 * Page-table pages come from a cache topped up at the start of the fault
 * (mmu_topup_memory_caches(); under mmu_lock here, where the cache is per
 * VM, not per vCPU), so a failed allocation changes nothing.  Faults are
 * handled under mmu_lock held for write; the kernel's read-lock
 * concurrency (and its retry paths) is left out, as are MMIO SPTEs (an
 * access outside every slot is reported as emulated).  Recovery breaks
 * mmu_lock (cond_resched_rwlock_write()) only where a test installed
 * vm_mmu->resched to stand in for the thread that runs meanwhile, and
 * leaves out the SMM address space of the memslot lookup.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

void nxsim__mmu_event(struct nxsim__vm_mmu *mmu, const char *fmt, ...)
{
	va_list ap;

	if (mmu->nr_events < NXSIM__MAX_EVENTS) {
		va_start(ap, fmt);
		vsnprintf(mmu->events[mmu->nr_events], sizeof(mmu->events[0]),
			  fmt, ap);
		va_end(ap);
	}
	mmu->nr_events++;
}

int nxsim__kvm_mmu_init_vm(const struct nxsim__mmu_config *cfg,
			   struct nxsim__vm_mmu **mmup)
{
	const struct nxsim_cpu *cpu = cfg->cpu;
	struct nxsim__vm_mmu *mmu = nxsim__zalloc(sizeof(*mmu));
	int i;

	if (!mmu)
		return -ENOMEM;
	mmu->prof = cfg->prof;
	mmu->bugs = cfg->bugs;
	mmu->params = cfg->params;
	mmu->amd = cpu->amd;
	/* With TDP off the shadow tables are the x86 page tables. */
	mmu->fmt = cpu->amd || cpu->no_tdp ? NXSIM_SPTE_LEGACY : NXSIM_SPTE_EPT;
	mmu->phys_bits = cpu->phys_bits ? cpu->phys_bits : 46;
	mmu->root_level = cpu->la57 && (cpu->amd || mmu->phys_bits > 48) ? 5 :
									   4;
	mmu->max_huge_level = cpu->no_gbpages ? NXSIM_PG_LEVEL_2M :
						NXSIM_PG_LEVEL_1G;
	mmu->tdp_mmu_enabled = cfg->tdp_mmu;
	TAILQ_INIT(&mmu->roots);
	TAILQ_INIT(&mmu->active_mmu_pages);
	TAILQ_INIT(&mmu->invalid_list);
	TAILQ_INIT(&mmu->reserve);
	TAILQ_INIT(&mmu->slots);
	for (i = 0; i < NXSIM__NR_MMU_TYPES; i++)
		TAILQ_INIT(&mmu->nx[i].pages);
	mmu->free_frame = NXSIM__NO_FRAME;
	if (!mmu->tdp_mmu_enabled && nxsim__shadow_mmu_init_vm(mmu)) {
		nxsim__free(mmu, sizeof(*mmu));
		return -ENOMEM;
	}
	pthread_rwlock_init(&mmu->mmu_lock, NULL);
	pthread_mutex_init(&mmu->tdp_mmu_pages_lock, NULL);
	*mmup = mmu;
	return 0;
}

void nxsim__kvm_mmu_uninit_vm(struct nxsim__vm_mmu *mmu)
{
	nxsim__write_lock(&mmu->mmu_lock);
	if (!mmu->tdp_mmu_enabled) {
		nxsim__kvm_mmu_zap_all(mmu);
		nxsim__mmu_free_desc_cache(mmu);
		nxsim__mmu_free_shadowed_info_cache(mmu);
		nxsim__shadow_mmu_uninit_vm(mmu);
	}
	nxsim__tdp_mmu_zap_all_roots(mmu);
	while (mmu->nr_cache)
		nxsim__tdp_mmu_free_sp(mmu, mmu->cache[--mmu->nr_cache]);
	nxsim__tdp_mmu_trim_reserve(mmu, 0);
	nxsim__kvm_free_memslots(mmu);
	nxsim__guest_mem_free(&mmu->gmem);
	nxsim__tdp_mmu_release(mmu);
	nxsim__rw_unlock(&mmu->mmu_lock);
	pthread_mutex_destroy(&mmu->tdp_mmu_pages_lock);
	pthread_rwlock_destroy(&mmu->mmu_lock);
	nxsim__free(mmu, sizeof(*mmu));
}

void nxsim__kvm_mmu_zap_all_fast(struct nxsim__vm_mmu *mmu)
{
	nxsim__write_lock(&mmu->mmu_lock);
	mmu->mmu_valid_gen ^= 1;
	if (!mmu->tdp_mmu_enabled)
		nxsim__kvm_zap_obsolete_pages(mmu);
	nxsim__tdp_mmu_zap_all_roots(mmu);
	mmu->counters.zap_all++;
	nxsim__rw_unlock(&mmu->mmu_lock);
}

bool nxsim__is_nx_huge_page_enabled(struct nxsim__vm_mmu *mmu)
{
	return READ_ONCE(mmu->params->nx_huge_pages) != 0 &&
	       !READ_ONCE(mmu->disable_nx_huge_pages);
}

void nxsim__mmu_disable_nx_huge_pages(struct nxsim__vm_mmu *mmu)
{
	WRITE_ONCE(mmu->disable_nx_huge_pages, true);
}

void nxsim__mmu_stats(struct nxsim__vm_mmu *mmu, struct nxsim_vm_stats *st)
{
	nxsim__read_lock(&mmu->mmu_lock);
	*st = (struct nxsim_vm_stats){
		.pages_4k = mmu->pages[0],
		.pages_2m = mmu->pages[1],
		.pages_1g = mmu->pages[2],
		.nx_lpage_splits = mmu->nx_lpage_splits,
	};
	nxsim__rw_unlock(&mmu->mmu_lock);
}

void nxsim__mmu_counters(struct nxsim__vm_mmu *mmu,
			 struct nxsim_mmu_counters *c)
{
	nxsim__read_lock(&mmu->mmu_lock);
	*c = mmu->counters;
	nxsim__rw_unlock(&mmu->mmu_lock);
}

long nxsim__mmu_nr_pages(struct nxsim__vm_mmu *mmu)
{
	long n;

	nxsim__read_lock(&mmu->mmu_lock);
	n = (long)(mmu->nr_sps - mmu->nr_cache);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return n;
}

int nxsim__kvm_mmu_max_mapping_level(struct nxsim__vm_mmu *mmu,
				     const struct nxsim__memslot *slot,
				     uint64_t gfn, int max_level)
{
	int level = MIN(max_level, mmu->max_huge_level);

	for (; level > NXSIM_PG_LEVEL_4K; level--)
		if (!nxsim__lpage_disallowed(slot, gfn, level))
			break;
	if (level == NXSIM_PG_LEVEL_4K)
		return level;
	return MIN(level, nxsim__host_pfn_mapping_level(slot, gfn));
}

void nxsim__kvm_mmu_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				    struct nxsim__kvm_page_fault *f)
{
	f->huge_page_disallowed = f->exec && f->nx_huge_page_workaround_enabled;
	if (nxsim__slot_dirty_logging(f->slot))
		return;
	f->req_level = nxsim__kvm_mmu_max_mapping_level(mmu, f->slot, f->gfn,
							f->max_level);
	if (f->req_level == NXSIM_PG_LEVEL_4K || f->huge_page_disallowed)
		return;
	f->goal_level = f->req_level;
	f->pfn &= ~(KVM_PAGES_PER_HPAGE(f->goal_level) - 1);
}

void nxsim__disallowed_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				       struct nxsim__kvm_page_fault *f,
				       uint64_t spte, int cur_level)
{
	bool check_flag =
		mmu->prof->nx_adjust_checks_flag &&
		!nxsim__mmu_has_bug(mmu, NXSIM_BUG_ADJUST_ANY_NONLEAF);

	if (cur_level > NXSIM_PG_LEVEL_4K && cur_level == f->goal_level &&
	    is_shadow_present_pte(spte) && !is_large_pte(spte) &&
	    (!check_flag ||
	     spte_to_child_sp(mmu, spte)->nx_huge_page_disallowed)) {
		f->pfn |= f->gfn & (KVM_PAGES_PER_HPAGE(cur_level) -
				    KVM_PAGES_PER_HPAGE(cur_level - 1));
		f->goal_level--;
	}
}

/*
 * mmu_topup_memory_caches(): enough page-table pages for a walk from the
 * root (and the root itself if there is none), reserved pages first, and
 * for the shadow MMU the rmap descriptors (1 rmap, 1 parent PTE per level,
 * the prefetched rmaps).  0 or -ENOMEM, and on -ENOMEM the reserve and the
 * allocator get back what this call took.
 */
int nxsim__mmu_topup_memory_caches(struct nxsim__vm_mmu *mmu)
{
	unsigned int want = mmu->root_level + !mmu->root, had = mmu->nr_cache;
	unsigned int reserved = mmu->nr_reserve;

	while (mmu->nr_cache < want) {
		struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

		if (!sp)
			goto fail;
		mmu->cache[mmu->nr_cache++] = sp;
	}
	if (mmu->tdp_mmu_enabled || !nxsim__mmu_topup_desc_cache(mmu))
		return 0;
fail:
	while (mmu->nr_cache > had)
		nxsim__tdp_mmu_free_sp(mmu, mmu->cache[--mmu->nr_cache]);
	/* Pages are alike: keep as many as there were. */
	nxsim__tdp_mmu_trim_reserve(mmu, reserved);
	/* The first frame table goes too: nothing changed. */
	if (!mmu->nr_sps)
		nxsim__tdp_mmu_release(mmu);
	return -ENOMEM;
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
		sp = spte_to_child_sp(mmu, *sptep);
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
		return nxsim__is_executable_pte(fmt, spte);
	default:
		return true;
	}
}

/*
 * direct_page_fault(): the access the walk could not complete; @sptep is
 * the leaf it found (NULL if none), at @level.  A TDP fault
 * (kvm_tdp_page_fault(), @is_tdp) may map up to 1G; one of the nonpaging
 * MMU up to 2M (nonpaging_page_fault()).
 */
static int direct_page_fault(struct nxsim__vm_mmu *mmu,
			     enum nxsim_access_kind kind, uint64_t gfn,
			     uint64_t *sptep, int level,
			     struct nxsim_access_info *info, bool is_tdp)
{
	struct nxsim__kvm_page_fault f = {
		.gfn = gfn,
		.exec = kind == NXSIM_ACCESS_EXEC,
		.write = kind == NXSIM_ACCESS_WRITE,
		.max_level = is_tdp ? NXSIM_PG_LEVEL_1G : NXSIM_PG_LEVEL_2M,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
	};
	int rc;

	rc = nxsim__mmu_topup_memory_caches(mmu);
	if (rc)
		return rc;
	if (!mmu->root && mmu->tdp_mmu_enabled)
		nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(
			mmu, mmu->cache[--mmu->nr_cache]);
	else if (!mmu->root)
		nxsim__mmu_alloc_direct_roots(mmu);
	mmu->counters.faults++;
	f.slot = nxsim__gfn_to_memslot(mmu, gfn);
	if (!f.slot || (f.write && (f.slot->flags & NXSIM_MEM_READONLY))) {
		/* RET_PF_EMULATE: MMIO, or KVM_PFN_ERR_RO_FAULT */
		mmu->counters.emulated++;
		info->outcome = NXSIM_ACCESS_EMULATE;
		info->level = sptep ? level : 0;
		return 0;
	}
	/* fast_page_fault(): restore W on an MMU-writable SPTE. */
	if (sptep && f.write && nxsim__is_mmu_writable_spte(mmu->fmt, *sptep) &&
	    (level == NXSIM_PG_LEVEL_4K ||
	     !nxsim__slot_dirty_logging(f.slot))) {
		uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty;

		WRITE_ONCE(*sptep, *sptep | PT_WRITABLE_MASK | d);
		info->outcome = NXSIM_ACCESS_FAST;
		info->level = level;
		return 0;
	}
	f.nx_huge_page_workaround_enabled = nxsim__is_nx_huge_page_enabled(mmu);
	f.pfn = nxsim__gfn_to_pfn(f.slot, gfn);
	f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	f.is_tdp = is_tdp;
	if (mmu->tdp_mmu_enabled)
		nxsim__kvm_tdp_mmu_map(mmu, &f, info);
	else
		nxsim__direct_map(mmu, &f, info);
	info->req_level = f.req_level;
	info->goal_level = f.goal_level;
	info->huge_page_disallowed = f.huge_page_disallowed;
	return 0;
}

/* The hardware walk, then direct_page_fault(); under mmu_lock. */
static int direct_access(struct nxsim__vm_mmu *mmu, enum nxsim_access_kind kind,
			 uint64_t gpa, struct nxsim_access_info *info,
			 bool is_tdp)
{
	uint64_t gfn = gpa >> 12, *sptep;
	int level = 0;

	sptep = find_leaf(mmu, gfn, &level);
	if (sptep && permits(mmu->fmt, *sptep, kind)) {
		info->outcome = NXSIM_ACCESS_HIT;
		info->level = level;
		return 0;
	}
	return direct_page_fault(mmu, kind, gfn, sptep, level, info, is_tdp);
}

/* kvm_tdp_page_fault() for an access the walk could not complete */
int nxsim__mmu_access(struct nxsim__vm_mmu *mmu, enum nxsim_access_kind kind,
		      uint64_t gpa, struct nxsim_access_info *info)
{
	int rc;

	if (gpa >> mmu->phys_bits)
		return -ERANGE;
	nxsim__write_lock(&mmu->mmu_lock);
	rc = direct_access(mmu, kind, gpa, info, true);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

int nxsim__nonpaging_page_fault(struct nxsim__vm_mmu *mmu,
				enum nxsim_access_kind kind, uint64_t gpa,
				struct nxsim_access_info *info)
{
	return direct_access(mmu, kind, gpa, info, false);
}

struct nxsim__possible_nx *nxsim__nx_list(struct nxsim__vm_mmu *mmu,
					  enum nxsim__mmu_type type)
{
	return &mmu->nx[mmu->prof->per_type_lists ? type : 0];
}

void nxsim__track_possible_nx_huge_page(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp,
					enum nxsim__mmu_type type)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, type);

	if (sp->nx_tracked)
		return;
	mmu->nx_lpage_splits++;
	l->nr_pages++;
	l->len++;
	TAILQ_INSERT_TAIL(&l->pages, sp, possible_nx_huge_page_link);
	sp->nx_tracked = true;
}

void nxsim__untrack_possible_nx_huge_page(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp,
					  enum nxsim__mmu_type type)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, type);

	if (!sp->nx_tracked)
		return;
	mmu->nx_lpage_splits--;
	l->nr_pages--;
	/* list_del() needs no list head: the entry leaves whatever list. */
	l = nxsim__nx_list(mmu, sp->tdp_mmu_page ? NXSIM__TDP_MMU :
						   NXSIM__SHADOW_MMU);
	l->len--;
	TAILQ_REMOVE(&l->pages, sp, possible_nx_huge_page_link);
	sp->nx_tracked = false;
}

/* unaccount_nx_huge_page() as the recovery loop calls it. */
static void unaccount_nx_huge_page(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp,
				   enum nxsim__mmu_type type)
{
	if (nxsim__mmu_has_bug(mmu, NXSIM_BUG_UNTRACK_WRONG_TYPE))
		type = NXSIM__SHADOW_MMU;
	sp->nx_huge_page_disallowed = false;
	nxsim__untrack_possible_nx_huge_page(mmu, sp, type);
}

/* kvm_mmu_sp_dirty_logging_enabled() */
static bool kvm_mmu_sp_dirty_logging_enabled(struct nxsim__vm_mmu *mmu,
					     struct nxsim__mmu_page *sp)
{
	struct nxsim__memslot *slot;

	if (!mmu->nr_memslots_dirty_logging)
		return false;
	slot = nxsim__gfn_to_memslot(mmu, sp->gfn);
	return slot && nxsim__slot_dirty_logging(slot);
}

/*
 * kvm_flush_remote_tlbs() (virt/kvm/kvm_main.c): every place the kernel asks
 * for a flush of the VM's vCPU TLBs calls this, so that the flush is
 * counted once, in one place.
 */
void nxsim__kvm_flush_remote_tlbs(struct nxsim__vm_mmu *mmu)
{
	mmu->counters.tlb_flushes++;
}

/*
 * Zap one SP taken off the list: a TDP MMU page at once
 * (kvm_tdp_mmu_zap_sp()), a shadow MMU page onto @invalid_list
 * (kvm_mmu_prepare_zap_page()).  Return: true if a TDP zap needs a flush.
 */
static bool recovery_zap(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
			 struct nxsim__sp_list *invalid_list)
{
	if (sp->tdp_mmu_page) {
		if (!nxsim__kvm_tdp_mmu_zap_sp(mmu, sp))
			return false;
		mmu->counters.recovery_zapped++;
		return true;
	}
	nxsim__kvm_mmu_prepare_zap_page(mmu, sp, invalid_list);
	WARN_ON(sp->nx_tracked);
	mmu->counters.recovery_zapped++;
	return false;
}

/*
 * The lock-break point of the loop (need_resched() ||
 * rwlock_needbreak()): finish what was zapped so far, drop mmu_lock while
 * vm_mmu->resched runs, take it again.  Before e89505698c9f the same
 * commit was also the one of the last SP (!--to_zap); see
 * kvm_recover_nx_huge_pages().
 */
static void recovery_resched(struct nxsim__vm_mmu *mmu, bool flush)
{
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &mmu->invalid_list, flush);
	mmu->resched_pending = false;
	nxsim__rw_unlock(&mmu->mmu_lock);
	mmu->resched(mmu, mmu->resched_ctx);
	nxsim__write_lock(&mmu->mmu_lock);
}

/*
 * kvm_recover_nx_huge_pages(kvm, type); called with mmu_lock for write.
 * Shadow pages wait on vm_mmu->invalid_list (the kernel's on-stack
 * invalid_list) until the commit after the loop; with
 * NXSIM_BUG_RECOVER_NO_COMMIT the loop has its shape before e89505698c9f:
 * the commit comes with the SP that brings to_zap to 0 or at a lock
 * break, and none follows the loop, so a list found empty first leaves
 * the pages prepared since the last commit on the list, unflushed.
 */
static void kvm_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu,
				      enum nxsim__mmu_type type)
{
	const struct nxsim__mmu_profile *prof = mmu->prof;
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, type);
	bool skip_dirty = prof->recovery_skip_dirty &&
			  !nxsim__mmu_has_bug(mmu, NXSIM_BUG_RECOVER_DIRTY);
	bool no_commit = nxsim__mmu_has_bug(mmu, NXSIM_BUG_RECOVER_NO_COMMIT);
	unsigned int ratio = READ_ONCE(mmu->params->recovery_ratio);
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
			unaccount_nx_huge_page(mmu, sp, type);
		pthread_mutex_unlock(&mmu->tdp_mmu_pages_lock);
		done++;

		dirty = kvm_mmu_sp_dirty_logging_enabled(mmu, sp);
		if (skip_dirty && dirty) {
			if (!prof->per_type_lists)
				unaccount_nx_huge_page(mmu, sp, type);
			sp->unaccounted = true;
			mmu->counters.recovery_unaccounted++;
			continue;
		}
		if (dirty && prof->recovery_skip_dirty)
			nxsim__mmu_event(
				mmu,
				"invariant 9: recovery zapped SP gfn 0x%" PRIx64
				" level %d in a dirty-logged slot",
				sp->gfn, sp->level);
		flush |= recovery_zap(mmu, sp, &mmu->invalid_list);
		if (no_commit && to_zap == 1) {
			nxsim__kvm_mmu_remote_flush_or_zap(
				mmu, &mmu->invalid_list, flush);
			flush = false;
		} else if (mmu->resched && mmu->resched_pending) {
			recovery_resched(mmu, flush);
			flush = false;
		}
	}
	if (ratio && done > DIV_ROUND_UP(len, ratio))
		nxsim__mmu_event(mmu,
				 "invariant 9: recovery took %" PRIu64
				 " SPs, more than ceil(%" PRIu64 " / %u)",
				 done, len, ratio);
	if (!no_commit)
		nxsim__kvm_mmu_remote_flush_or_zap(mmu, &mmu->invalid_list,
						   flush);
}

void nxsim__mmu_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu)
{
	nxsim__write_lock(&mmu->mmu_lock);
	if (mmu->prof->per_type_lists)
		kvm_recover_nx_huge_pages(mmu, NXSIM__SHADOW_MMU);
	kvm_recover_nx_huge_pages(mmu, NXSIM__TDP_MMU);
	nxsim__rw_unlock(&mmu->mmu_lock);
}
