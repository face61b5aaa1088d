// SPDX-License-Identifier: GPL-2.0-only
/*
 * arch/x86/kvm/mmu/mmu.c as far as the TDP MMU and the NX mitigation use
 * it:
 *   - the VM's MMU: kvm_mmu_init_vm(), kvm_mmu_uninit_vm() with the final
 *     zap, kvm_mmu_zap_all_fast() (generation flip, every root invalidated
 *     and torn down at once, as the newest tree does under slots_lock),
 *     is_nx_huge_page_enabled();
 *   - the one fault entry of a guest access, kvm_mmu_do_page_fault(),
 *     which with TDP off hands the access to the shadow fault path
 *     (paging_tmpl.c) and with TDP runs the fault path here:
 *     kvm_tdp_page_fault() -> direct_page_fault() -> fast_page_fault()
 *     (only its "make a write-protected SPTE writable again" case, which
 *     logs the page: fast_pf_fix_direct_spte() ->
 *     mark_page_dirty_in_slot()) and kvm_tdp_mmu_map() (in tdp_mmu.c) or,
 *     with the TDP MMU off, the legacy MMU's direct_map() (in
 *     direct_map.c), with kvm_mmu_hugepage_adjust(),
 *     kvm_mmu_max_mapping_level() and disallowed_hugepage_adjust()
 *     (possible NX huge pages and their recovery: nx_recovery.c);
 *   - the slot-wide changes of kvm_mmu_slot_apply_flags() (dirty logging
 *     on or off), on the TDP MMU or the rmaps;
 *
 * The SPTE format follows the host CPU (EPT on Intel, NPT on AMD); the
 * root has 5 levels when the host has LA57 and, on EPT, the guest's
 * MAXPHYADDR (the host's here) exceeds 48 (kvm_mmu_get_tdp_level()).
 *
 * Page-table pages come from the vCPU's cache, topped up before mmu_lock
 * (mmu_topup_memory_caches()), so a failed allocation changes nothing.
 * The hardware walk takes no lock (RCU keeps the tables it reads); a TDP
 * fault takes mmu_lock for read from 5.12 (the profile's fault_read_lock;
 * 5.10's TDP MMU takes it for write), after reading mmu_invalidate_seq,
 * and runs again while it returns RET_PF_RETRY: a lost compare-and-
 * exchange, a frozen SPTE, a stale invalidation sequence
 * (mmu_invalidate_retry_gfn()), or fast_page_fault()'s lost race.  The
 * shadow MMU (src/mmu/shadow_mmu.c) keeps the write lock, as in the
 * kernel; its rmap-descriptor cache is the VM's, so it is topped up under
 * that lock.
 *
 * MMIO: a fault outside every slot is answered with emulation; with MMIO
 * caching on it installs an MMIO SPTE, and the next access that
 * meets it leaves through handle_mmio_page_fault() without a fault walk.
 * Both halves are mmio.c's.  The readers of the VM's stats and counters,
 * and its event log, are mmu_stats.c's; a thread's page-stat shard is
 * taken here, at its first update (kvm_host.h).
 *
 * PML: while a slot logs dirty pages, a write that hits an EPT leaf
 * whose D bit is clear sets D and logs the gfn at once (the kernel logs
 * it in the vCPU's PML buffer and moves it to the bitmap on the next exit
 * or KVM_GET_DIRTY_LOG: the model has no buffer to fill).
 *
 * Address space 1: a vCPU in SMM faults through the root of that space
 * (role.smm) and its slots, and its MMIO cache and SPTEs carry that
 * space's generation; recovery looks an SP's slot up in the SP's space
 * (817fa998362d), or in space 0 with NXSIM_BUG_SMM_SLOT_LOOKUP.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "core/detail.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"

__thread unsigned int nxsim__page_stat_shard_id
	__attribute__((tls_model("initial-exec")));

unsigned int nxsim__page_stat_shard_take(void)
{
	static unsigned int next;
	unsigned int i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) %
			 NXSIM__PAGE_STAT_SHARDS;

	nxsim__page_stat_shard_id = i + 1;
	return i;
}

void nxsim__mmu_set_sched_hook(struct nxsim__vm_mmu *mmu, nxsim__sched_fn fn,
			       void *ctx)
{
	mmu->sched = fn;
	mmu->sched_ctx = ctx;
}

int nxsim__kvm_mmu_init_vm(const struct nxsim__mmu_config *cfg,
			   struct nxsim__vm_mmu **mmup)
{
	const struct nxsim_cpu *cpu = cfg->cpu;
	/*
	 * Slots for the readers: the TDP MMU's faults take mmu_lock for
	 * read where the profile does; the shadow MMU's, and 5.10's TDP
	 * MMU's, take it for write.
	 */
	bool sharded = cfg->tdp_mmu && cfg->prof->fault_read_lock;
	size_t size = sizeof(struct nxsim__vm_mmu) +
		      nxsim__rwlock_slots_size(sharded);
	struct nxsim__vm_mmu *mmu =
		nxsim__zalloc_aligned(size, SMP_CACHE_BYTES);
	int i;

	if (!mmu)
		return -ENOMEM;
	mmu->prof = cfg->prof;
	mmu->bugs = cfg->bugs;
	mmu->params = cfg->params;
	mmu->flush_vcpus = cfg->flush_vcpus;
	mmu->nx_recovery = cfg->nx_recovery;
	mmu->flush_ctx = cfg->flush_ctx;
	mmu->amd = cpu->amd;
	/* With TDP off the shadow tables are the x86 page tables. */
	mmu->fmt = cpu->amd || cpu->no_tdp ? NXSIM_SPTE_LEGACY : NXSIM_SPTE_EPT;
	mmu->phys_bits = cpu->phys_bits ? cpu->phys_bits : 46;
	mmu->root_level = cpu->la57 && (cpu->amd || mmu->phys_bits > 48) ? 5 :
									   4;
	mmu->max_huge_level = cpu->no_gbpages ? NXSIM_PG_LEVEL_2M :
						NXSIM_PG_LEVEL_1G;
	mmu->tdp_enabled = !cpu->no_tdp;
	mmu->tdp_mmu_enabled = cfg->tdp_mmu;
	nxsim__kvm_mmu_set_mmio_spte_mask(mmu->fmt, mmu->phys_bits,
					  cfg->mmio_caching, &mmu->mmio);
	/* kvm_create_vm(): each address space starts at its own number. */
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		mmu->memslots_gen[i] = i;
	TAILQ_INIT(&mmu->roots);
	TAILQ_INIT(&mmu->active_mmu_pages);
	TAILQ_INIT(&mmu->invalid_list);
	TAILQ_INIT(&mmu->reserve);
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		TAILQ_INIT(&mmu->slots[i]);
	for (i = 0; i < NXSIM__NR_MMU_TYPES; i++)
		TAILQ_INIT(&mmu->nx[i].pages);
	mmu->free_frame = NXSIM__NO_FRAME;
	if (!mmu->tdp_mmu_enabled && nxsim__shadow_mmu_init_vm(mmu)) {
		nxsim__free_aligned(mmu, size, SMP_CACHE_BYTES);
		return -ENOMEM;
	}
	nxsim__rwlock_init(&mmu->mmu_lock, sharded);
	mmu->tdp_mmu_pages_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	mmu->pages_alloc_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	*mmup = mmu;
	return 0;
}

void nxsim__mmu_rcu_barrier(void)
{
	nxsim__rcu_barrier();
}

/*
 * kvm_mmu_uninit_vm() after kvm_mmu_zap_all(): the roots go, then
 * rcu_barrier() (kvm_mmu_uninit_tdp_mmu()) waits for their pages' RCU
 * callbacks, so that every page is back before the VM is freed.
 */
void nxsim__kvm_mmu_uninit_vm(struct nxsim__vm_mmu *mmu)
{
	uint64_t pending;

	nxsim__write_lock(&mmu->mmu_lock);
	if (!mmu->tdp_mmu_enabled) {
		nxsim__kvm_mmu_zap_all(mmu);
		nxsim__mmu_free_desc_cache(mmu);
		nxsim__mmu_free_shadowed_info_cache(mmu);
		nxsim__shadow_mmu_uninit_vm(mmu);
	}
	nxsim__tdp_mmu_zap_all_roots(mmu);
	nxsim__rw_unlock(&mmu->mmu_lock);
	/*
	 * Only this VM's callbacks matter: a callback drops the count under
	 * pages_alloc_lock and touches nothing of the VM after it, so a VM
	 * with none pending needs no wait (one that never faulted).
	 */
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	pending = __atomic_load_n(&mmu->nr_rcu_pending, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	if (pending)
		nxsim__rcu_barrier();
	WARN_ON(__atomic_load_n(&mmu->nr_sps, __ATOMIC_ACQUIRE) ||
		__atomic_load_n(&mmu->nr_rcu_pending, __ATOMIC_ACQUIRE));
	nxsim__tdp_mmu_trim_reserve(mmu, 0);
	nxsim__kvm_free_memslots(mmu);
	nxsim__guest_mem_free(&mmu->gmem);
	nxsim__tdp_mmu_release(mmu);
	pthread_mutex_destroy(&mmu->pages_alloc_lock);
	pthread_mutex_destroy(&mmu->tdp_mmu_pages_lock);
	nxsim__rwlock_destroy(&mmu->mmu_lock);
	nxsim__mmu_free_events(mmu);
	nxsim__free_aligned(
		mmu, sizeof(*mmu) + nxsim__rwlock_size_of(&mmu->mmu_lock),
		SMP_CACHE_BYTES);
}

void nxsim__kvm_mmu_create(struct nxsim__vm_mmu *mmu,
			   struct nxsim__vcpu_mmu *vcpu)
{
	nxsim__write_lock(&mmu->mmu_lock);
	vcpu->next = mmu->vcpus;
	mmu->vcpus = vcpu;
	nxsim__rw_unlock(&mmu->mmu_lock);
}

void nxsim__kvm_mmu_free_memory_caches(struct nxsim__vm_mmu *mmu,
				       struct nxsim__mmu_memory_cache *mc)
{
	while (mc->nobjs)
		nxsim__tdp_mmu_free_cached_sp(mmu, mc);
}

void nxsim__kvm_mmu_zap_all_fast(struct nxsim__vm_mmu *mmu)
{
	nxsim__write_lock(&mmu->mmu_lock);
	mmu->mmu_valid_gen ^= 1;
	nxsim__mmu_request_free_obsolete_roots(mmu);
	if (mmu->tdp_mmu_enabled)
		nxsim__tdp_mmu_zap_all_roots(mmu);
	else
		nxsim__kvm_zap_obsolete_pages(mmu);
	MMU_COUNT(mmu, zap_all);
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

int nxsim__kvm_mmu_max_mapping_level(struct nxsim__vm_mmu *mmu,
				     const struct nxsim__memslot *slot,
				     uint64_t gfn, int max_level)
{
	int level = MIN(max_level, mmu->max_huge_level), host_level;

	for (; level > NXSIM_PG_LEVEL_4K; level--)
		if (!nxsim__lpage_disallowed(slot, gfn, level))
			break;
	if (level == NXSIM_PG_LEVEL_4K)
		return level;
	host_level = nxsim__host_pfn_mapping_level(slot, gfn);
	return MIN(level, host_level);
}

void nxsim__kvm_mmu_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				    struct nxsim__kvm_page_fault *f)
{
	f->huge_page_disallowed = f->exec && f->nx_huge_page_workaround_enabled;
	if (unlikely(f->rule_huge))
		f->huge_page_disallowed = f->rule_huge == NXSIM__RULE_NOT_HUGE;
	/* is_error_noslot_pfn(): MMIO maps at 4K. */
	if (!f->slot || nxsim__slot_dirty_logging(f->slot))
		return;
	f->req_level = nxsim__kvm_mmu_max_mapping_level(mmu, f->slot, f->gfn,
							f->max_level);
	if (f->req_level == NXSIM_PG_LEVEL_4K || f->huge_page_disallowed)
		return;
	f->goal_level = f->req_level;
	f->pfn &= ~(KVM_PAGES_PER_HPAGE(f->goal_level) - 1);
}

/*
 * The refill of nxsim__mmu_topup_memory_caches() (below), for a cache
 * that holds fewer than @want pages or a shadow MMU's descriptors.
 */
static __attribute__((noinline)) int topup(struct nxsim__vm_mmu *mmu,
					   struct nxsim__mmu_memory_cache *mc,
					   unsigned int want)
{
	unsigned int had = mc->nobjs, reserved = 0;

	if (had < want && nxsim__tdp_mmu_topup_sps(mmu, mc, want, &reserved))
		goto fail;
	if (mmu->tdp_mmu_enabled || !nxsim__mmu_topup_desc_cache(mmu))
		return 0;
fail:
	if (had < want) {
		while (mc->nobjs > had)
			nxsim__tdp_mmu_free_cached_sp(mmu, mc);
		/* Pages are alike: keep as many as there were. */
		nxsim__tdp_mmu_trim_reserve(mmu, reserved);
	}
	/* The first frame chunk goes too: nothing changed. */
	nxsim__tdp_mmu_release_unused(mmu);
	return -ENOMEM;
}

/*
 * mmu_topup_memory_caches(): enough page-table pages in the vCPU's cache
 * for a walk from the root (and the root itself if there is none),
 * reserved pages first, and for the shadow MMU the rmap descriptors (1
 * rmap, 1 parent PTE per level, the prefetched rmaps); before mmu_lock as
 * in the kernel, except on the shadow MMU, whose descriptor cache is the
 * VM's: it tops up under the write lock.  0 or -ENOMEM, and
 * on -ENOMEM the reserve and the allocator get back what this call took.
 */
__attribute__((noinline)) int
nxsim__mmu_topup_memory_caches(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_memory_cache *mc, int as_id)
{
	unsigned int want =
		mmu->root_level +
		!__atomic_load_n(&mmu->root[as_id], __ATOMIC_RELAXED);

	/*
	 * A full cache takes nothing, and no lock (nobjs >= min): on the TDP
	 * MMU every fault but about one in 512 returns here, without the
	 * frame of the refill (topup(), out of line).  Not inlined either:
	 * inside nxsim__mmu_access() it cost its hit path 5 instructions.
	 */
	if (mc->nobjs >= want && mmu->tdp_mmu_enabled)
		return 0;
	return topup(mmu, mc, want);
}

/*
 * The hardware walk from the root of @as_id towards @gfn: the leaf mapping
 * @gfn, or NULL.  *@level and *@spte receive the last SPTE read and its
 * level: the leaf, or the non-present entry the walk stopped at (an MMIO
 * SPTE there raises the misconfiguration exit), or 0 and the root level
 * when there is no root.  One dependent load per level beyond the SPTE:
 * the child's table, from its frame.  Also the kernel's own walk for an
 * MMIO SPTE (get_mmio_spte(), mmio.c).
 */
uint64_t *nxsim__mmu_find_leaf(struct nxsim__vm_mmu *mmu, int as_id,
			       uint64_t gfn, int *level, uint64_t *spte)
{
	struct nxsim__mmu_page *root =
		__atomic_load_n(&mmu->root[as_id], __ATOMIC_ACQUIRE);
	int l = mmu->root_level;
	uint64_t *spt, *sptep, v;

	*level = l;
	*spte = 0;
	if (!root)
		return NULL;
	for (spt = root->spt;; l--) {
		sptep = &spt[spte_index(gfn, l)];
		v = nxsim__read_spte(sptep);
		if (!is_shadow_present_pte(v) || is_last_spte(v, l))
			break;
		spt = spte_to_child_spt(mmu, v);
	}
	*level = l;
	*spte = v;
	return is_shadow_present_pte(v) ? sptep : NULL;
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
 * mmu_invalidate_retry_gfn(): an MMU-notifier invalidation covering @gfn
 * is in progress, or one ended since the fault read @mmu_seq: the pfn the
 * fault resolved may be stale.  Called with mmu_lock held.
 */
static bool mmu_invalidate_retry_gfn(struct nxsim__vm_mmu *mmu,
				     unsigned long mmu_seq, uint64_t gfn)
{
	if (mmu->mmu_invalidate_in_progress &&
	    gfn >= mmu->mmu_invalidate_range_start &&
	    gfn < mmu->mmu_invalidate_range_end)
		return true;
	return __atomic_load_n(&mmu->mmu_invalidate_seq, __ATOMIC_RELAXED) !=
	       mmu_seq;
}

/* A rule's answer @a of hook @hook at @gfn is not 0 or 1. */
static int bad_answer(struct nxsim__vm_mmu *mmu, const char *hook, uint64_t gfn,
		      int a)
{
	nxsim__mmu_event(mmu,
			 "recovery rule %s: %s answered %d (not 0 or 1) at "
			 "gfn 0x%" PRIx64,
			 mmu->nx_recovery->name, hook, a, gfn);
	return nxsim__fail(-EINVAL, "NX rule %s: %s answered %d, not 0 or 1",
			   mmu->nx_recovery->name, hook, a);
}

/*
 * The host rule's exec decisions (<nxsim/nx_recovery.h>) for the exec
 * fault @f, whose leaf (@sptep NULL: none) is @spte at @level: into
 * @f->rule_huge and @f->tdp_split.  Return: 0, or -EINVAL (and a checker
 * report) for an answer other than 0 or 1, before anything changed.
 */
static int exec_rule(struct nxsim__vm_mmu *mmu, struct nxsim__kvm_page_fault *f,
		     const uint64_t *sptep, uint64_t spte, int level)
{
	const struct nxsim_nx_recovery_ops *ops = mmu->nx_recovery;
	struct nxsim_nx_exec_fault v = {
		.gfn = f->gfn,
		.req_level = NXSIM_PG_LEVEL_4K,
		.nx_huge_pages = f->nx_huge_page_workaround_enabled,
		.tdp_mmu = mmu->tdp_mmu_enabled,
	};
	int a;

	if (ops->version < 2 || (!ops->exec_huge && !ops->exec_split))
		return 0;
	if (sptep && level > NXSIM_PG_LEVEL_4K && is_shadow_present_pte(spte) &&
	    is_large_pte(spte))
		v.huge_level = level;
	if (!nxsim__slot_dirty_logging(f->slot))
		v.req_level = nxsim__kvm_mmu_max_mapping_level(
			mmu, f->slot, f->gfn, f->max_level);
	if (ops->exec_huge) {
		a = ops->exec_huge(&v, !v.nx_huge_pages);
		if (a != 0 && a != 1)
			return bad_answer(mmu, "exec_huge", f->gfn, a);
		f->rule_huge = a ? NXSIM__RULE_HUGE : NXSIM__RULE_NOT_HUGE;
	}
	if (ops->exec_split && v.huge_level && v.tdp_mmu) {
		a = ops->exec_split(&v, f->tdp_split);
		if (a != 0 && a != 1)
			return bad_answer(mmu, "exec_split", f->gfn, a);
		f->tdp_split = a;
	}
	return 0;
}

/*
 * The leaf a fault's walk finds for its gfn (@sptep NULL if none, holding
 * @spte, at @level), walked from the root of @as_id when first asked for
 * (@walked): fast_page_fault(), the emulation exit and a host rule read
 * it, most faults never do.
 */
struct fault_leaf {
	uint64_t *sptep;
	uint64_t spte;
	int level;
	int as_id;
	bool walked;
};

static uint64_t *fault_leaf(struct nxsim__vm_mmu *mmu, uint64_t gfn,
			    struct fault_leaf *l)
{
	if (!l->walked) {
		l->sptep = nxsim__mmu_find_leaf(mmu, l->as_id, gfn, &l->level,
						&l->spte);
		l->walked = true;
	}
	return l->sptep;
}

/*
 * direct_page_fault(): the access the walk could not complete; @leaf is
 * the leaf the walk finds (under mmu_lock, with the lock the caller
 * holds).  A TDP fault (kvm_tdp_page_fault(), @is_tdp) may map up to 1G;
 * one of the nonpaging MMU up to 2M (nonpaging_page_fault()).  Return: a
 * RET_PF_* code.
 */
static int direct_page_fault(struct nxsim__vm_mmu *mmu,
			     struct nxsim__vcpu_mmu *vcpu,
			     enum nxsim_access_kind kind, uint64_t gfn,
			     struct fault_leaf *leaf, unsigned long mmu_seq,
			     struct nxsim_access_info *info, bool is_tdp)
{
	struct nxsim__mmu_memory_cache *mc = &vcpu->mmu_cache;
	struct nxsim__kvm_page_fault f = {
		.gfn = gfn,
		.exec = kind == NXSIM_ACCESS_EXEC,
		.write = kind == NXSIM_ACCESS_WRITE,
		.max_level = is_tdp ? NXSIM_PG_LEVEL_1G : NXSIM_PG_LEVEL_2M,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
		.as_id = kvm_arch_vcpu_memslots_id(vcpu),
		.tdp_split = mmu->prof->tdp_split_on_fault,
		.is_tdp = is_tdp,
	};
	int r;

	VCPU_COUNT(vcpu, faults);
	f.slot = nxsim__gfn_to_memslot(mmu, f.as_id, gfn);
	if (!f.slot) {
		/* handle_abnormal_pfn() */
		nxsim__vcpu_cache_mmio_info(mmu, vcpu, gfn);
		if (mmu->mmio.enabled) {
			f.nx_huge_page_workaround_enabled =
				nxsim__is_nx_huge_page_enabled(mmu);
			f.mmio_gen = vcpu_memslots_gen(mmu, vcpu);
			if (mmu->tdp_mmu_enabled) {
				r = nxsim__kvm_tdp_mmu_map(mmu, mc, &f, info);
			} else {
				nxsim__direct_map(mmu, mc, &f, info);
				r = RET_PF_EMULATE;
			}
			info->req_level = f.req_level;
			info->goal_level = f.goal_level;
			info->huge_page_disallowed = f.huge_page_disallowed;
			info->level = 0;
			/* the MMIO SPTE: vcpu->stat.pf_mmio_spte_created */
			if (info->outcome == NXSIM_ACCESS_EMULATE) {
				VCPU_COUNT(vcpu, emulated);
				VCPU_COUNT(vcpu, mmio_spte_created);
			}
			return r;
		}
	}
	/* fast_page_fault(): restore W on an MMU-writable SPTE. */
	if (f.slot && f.write && fault_leaf(mmu, gfn, leaf) &&
	    nxsim__is_mmu_writable_spte(mmu->fmt, leaf->spte) &&
	    (leaf->level == NXSIM_PG_LEVEL_4K ||
	     !nxsim__slot_dirty_logging(f.slot))) {
		uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty;

		/* fast_pf_fix_direct_spte(): lost a race, fault again */
		if (!nxsim__cmpxchg_spte(leaf->sptep, &leaf->spte,
					 leaf->spte | PT_WRITABLE_MASK | d))
			return RET_PF_RETRY;
		/* W restored: mark_page_dirty_in_slot() */
		nxsim__mark_page_dirty_in_slot(f.slot, gfn);
		info->outcome = NXSIM_ACCESS_FAST;
		info->level = leaf->level;
		return RET_PF_FIXED;
	}
	/* kvm_faultin_pfn(): the slot is being deleted or moved */
	if (f.slot && nxsim__memslot_invalid(f.slot))
		return RET_PF_RETRY;
	if (!f.slot || (f.write && (f.slot->flags & NXSIM_MEM_READONLY))) {
		/* RET_PF_EMULATE: uncached MMIO, or KVM_PFN_ERR_RO_FAULT */
		VCPU_COUNT(vcpu, emulated);
		info->outcome = NXSIM_ACCESS_EMULATE;
		info->level = fault_leaf(mmu, gfn, leaf) ? leaf->level : 0;
		return RET_PF_EMULATE;
	}
	/* is_page_fault_stale() */
	if (mmu_invalidate_retry_gfn(mmu, mmu_seq, gfn))
		return RET_PF_RETRY;
	f.nx_huge_page_workaround_enabled = nxsim__is_nx_huge_page_enabled(mmu);
	f.pfn = nxsim__gfn_to_pfn(f.slot, gfn);
	f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	/* A host's own exec decisions (<nxsim/nx_recovery.h>). */
	if (unlikely(mmu->nx_recovery) && f.exec && is_tdp) {
		fault_leaf(mmu, gfn, leaf);
		r = exec_rule(mmu, &f, leaf->sptep, leaf->spte, leaf->level);
		if (r)
			return r;
	}
	if (mmu->tdp_mmu_enabled) {
		r = nxsim__kvm_tdp_mmu_map(mmu, mc, &f, info);
	} else {
		nxsim__direct_map(mmu, mc, &f, info);
		r = RET_PF_FIXED;
	}
	info->req_level = f.req_level;
	info->goal_level = f.goal_level;
	info->huge_page_disallowed = f.huge_page_disallowed;
	return r;
}

int nxsim__mmu_root_level(const struct nxsim__vm_mmu *mmu)
{
	return mmu->root_level;
}

/*
 * PML (EPT with A/D bits, on while a slot logs dirty pages:
 * kvm_mmu_update_cpu_dirty_logging()): a write through a writable SPTE
 * whose D bit is clear sets D and logs the gpa in the vCPU's PML buffer.
 */
static bool pml_would_log(struct nxsim__vm_mmu *mmu, uint64_t spte)
{
	return mmu->fmt == NXSIM_SPTE_EPT &&
	       !(spte & nxsim__spte_masks(mmu->fmt)->dirty) &&
	       __atomic_load_n(&mmu->nr_memslots_dirty_logging,
			       __ATOMIC_RELAXED);
}

/*
 * The write pml_would_log() saw: D set and the gfn logged at once, as if
 * the buffer were flushed right away (vmx_flush_pml_buffer() ->
 * kvm_vcpu_mark_page_dirty()).  The TDP MMU takes mmu_lock for read to
 * read the slots; the shadow MMU's walk holds the write lock already.
 */
static void pml_log_write(struct nxsim__vm_mmu *mmu, int as_id, uint64_t gfn,
			  bool tdp)
{
	uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty, *sptep, spte;
	int level;

	if (tdp)
		nxsim__read_lock(&mmu->mmu_lock);
	nxsim__rcu_read_lock();
	sptep = nxsim__mmu_find_leaf(mmu, as_id, gfn, &level, &spte);
	if (sptep && is_writable_pte(spte) && !(spte & d) &&
	    nxsim__cmpxchg_spte(sptep, &spte, spte | d))
		nxsim__mark_page_dirty_in_slot(
			nxsim__gfn_to_memslot(mmu, as_id, gfn), gfn);
	nxsim__rcu_read_unlock();
	if (tdp)
		nxsim__rw_unlock(&mmu->mmu_lock);
}

/*
 * Freed pages waiting for their grace period that the model lets pile up
 * before a fault waits for them (outside every lock and read-side
 * section), as the kernel's RCU makes a task that queues callbacks faster
 * than grace periods end wait: memory stays bounded under a fault/zap
 * storm.
 */
#define NXSIM__RCU_PENDING_MAX 4096

int nxsim__mmu_access(struct nxsim__vm_mmu *mmu, struct nxsim__vcpu_mmu *vcpu,
		      enum nxsim_access_kind kind, uint64_t gpa,
		      struct nxsim_access_info *info, unsigned int *rights)
{
	struct nxsim__mmu_memory_cache *mc = &vcpu->mmu_cache;
	bool shared = mmu->tdp_mmu_enabled && mmu->prof->fault_read_lock;
	bool tdp = mmu->tdp_mmu_enabled;
	uint64_t gfn = gpa >> 12, *sptep, spte = 0;
	int as_id = kvm_arch_vcpu_memslots_id(vcpu);
	unsigned long mmu_seq;
	int level = 0, r, rc;

	if (gpa >> mmu->phys_bits)
		return nxsim__fail(-ERANGE,
				   "gpa 0x%" PRIx64 " is above the host's "
				   "%u physical address bits",
				   gpa, mmu->phys_bits);
	if (__atomic_load_n(&mmu->nr_rcu_pending, __ATOMIC_RELAXED) >
	    NXSIM__RCU_PENDING_MAX)
		nxsim__rcu_barrier();
	for (;;) {
		bool stale = false;

		/*
		 * The hardware walk takes no lock on the TDP MMU: RCU keeps
		 * the tables it reads, and SPTEs change atomically, as the
		 * kernel's lockless walkers rely on.  The shadow MMU's SPTEs
		 * change by plain stores under the write lock here, so its
		 * walk takes that lock.
		 */
		if (!tdp) {
			nxsim__write_lock(&mmu->mmu_lock);
			/* vcpu_enter_guest(): the request first */
			nxsim__kvm_mmu_free_obsolete_roots(mmu);
		}
		nxsim__rcu_read_lock();
		sptep = nxsim__mmu_find_leaf(mmu, as_id, gfn, &level, &spte);
		nxsim__rcu_read_unlock();
		if (sptep && permits(mmu->fmt, spte, kind)) {
			info->outcome = NXSIM_ACCESS_HIT;
			info->level = level;
			if (kind == NXSIM_ACCESS_WRITE &&
			    pml_would_log(mmu, spte))
				pml_log_write(mmu, as_id, gfn, tdp);
			if (!tdp)
				nxsim__rw_unlock(&mmu->mmu_lock);
			break;
		}
		/* An MMIO SPTE: EPT misconfiguration, or #PF with PFERR_RSVD */
		if (!sptep && is_mmio_spte(&mmu->mmio, spte)) {
			/* lockless: another CPU may zap before the next walk */
			if (tdp)
				nxsim__sched_point(mmu, NXSIM__SCHED_MMIO, gfn,
						   level);
			r = nxsim__handle_mmio_page_fault(mmu, vcpu, as_id,
							  gfn);
			if (r != RET_PF_INVALID && !tdp)
				nxsim__rw_unlock(&mmu->mmu_lock);
			if (r == RET_PF_EMULATE) {
				VCPU_COUNT(vcpu, mmio_exits);
				info->outcome = NXSIM_ACCESS_EMULATE;
				sptep = NULL;
				break;
			}
			/* the table went: the guest runs the access again */
			if (r == RET_PF_RETRY)
				continue;
			/* counted once the fault can go on (-ENOMEM: no count) */
			stale = true;
		}
		/* kvm_mmu_page_fault() -> direct_page_fault() */
		if (tdp) {
			rc = nxsim__mmu_topup_memory_caches(mmu, mc, as_id);
			if (rc)
				return rc;
			mmu_seq = __atomic_load_n(&mmu->mmu_invalidate_seq,
						  __ATOMIC_ACQUIRE);
			nxsim__sched_point(mmu, NXSIM__SCHED_FAULTIN, gfn, 0);
			nxsim__mmu_lock(mmu, shared);
		} else {
			rc = nxsim__mmu_topup_memory_caches(mmu, mc, as_id);
			if (rc) {
				nxsim__rw_unlock(&mmu->mmu_lock);
				return rc;
			}
			mmu_seq = mmu->mmu_invalidate_seq;
		}
		if (stale)
			VCPU_COUNT(vcpu, mmio_stale);
		if (!mmu->root[as_id] && !mmu->tdp_mmu_enabled) {
			nxsim__mmu_alloc_direct_roots(mmu, mc, as_id);
		} else if (!mmu->root[as_id]) {
			/* mmu_alloc_direct_roots(): under the write lock */
			if (shared) {
				nxsim__rw_unlock(&mmu->mmu_lock);
				nxsim__write_lock(&mmu->mmu_lock);
			}
			if (!mmu->root[as_id])
				nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(
					mmu, nxsim__mmu_cache_pop(mmu, mc),
					as_id);
			if (shared) {
				nxsim__rw_unlock(&mmu->mmu_lock);
				continue;
			}
		}
		nxsim__rcu_read_lock();
		r = direct_page_fault(mmu, vcpu, kind, gfn,
				      &(struct fault_leaf){ .as_id = as_id },
				      mmu_seq, info, true);
		/* what the leaf allows now */
		if (r != RET_PF_RETRY && rights)
			sptep = nxsim__mmu_find_leaf(mmu, as_id, gfn, &level,
						     &spte);
		nxsim__rcu_read_unlock();
		nxsim__rw_unlock(&mmu->mmu_lock);
		if (r < 0)
			return r; /* a host rule's bad answer: nothing changed */
		if (r != RET_PF_RETRY)
			break;
		__atomic_fetch_add(&mmu->fault_retries, 1, __ATOMIC_RELAXED);
		nxsim__sched_point(mmu, NXSIM__SCHED_RETRY, gfn, 0);
		*info = (struct nxsim_access_info){ 0 };
	}
	if (rights) {
		*rights = 0;
		if (sptep && permits(mmu->fmt, spte, NXSIM_ACCESS_WRITE))
			*rights |= NXSIM__RIGHT_WRITE;
		if (sptep && permits(mmu->fmt, spte, NXSIM_ACCESS_EXEC))
			*rights |= NXSIM__RIGHT_EXEC;
	}
	return 0;
}

int nxsim__kvm_mmu_do_page_fault(struct nxsim__vm_mmu *mmu,
				 struct nxsim__vcpu_mmu *vcpu,
				 const struct nxsim__kvm_mmu *m,
				 enum nxsim_access_kind kind, uint64_t addr,
				 struct nxsim_access_info *info,
				 unsigned int *rights)
{
	if (likely(mmu->tdp_enabled))
		return nxsim__mmu_access(mmu, vcpu, kind, addr, info, rights);
	return nxsim__kvm_mmu_page_fault(mmu, vcpu, m, kind, addr, info);
}

int nxsim__nonpaging_page_fault(struct nxsim__vm_mmu *mmu,
				struct nxsim__vcpu_mmu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				uint64_t *sptep, uint64_t spte, int level,
				struct nxsim_access_info *info)
{
	/* under the write lock: no invalidation can be in progress */
	if (direct_page_fault(
		    mmu, vcpu, kind, gpa >> 12,
		    &(struct fault_leaf){ sptep, spte, level, 0, true },
		    mmu->mmu_invalidate_seq, info, false) == RET_PF_RETRY)
		return RET_PF_RETRY;
	return 0;
}

void nxsim__kvm_mmu_slot_try_split_huge_pages(struct nxsim__vm_mmu *mmu,
					      const struct nxsim__memslot *slot,
					      int target_level, bool shared)
{
	if (mmu->tdp_mmu_enabled)
		nxsim__kvm_tdp_mmu_try_split_huge_pages(
			mmu, slot, slot->base_gfn,
			slot->base_gfn + slot->npages, target_level, shared);
}

void nxsim__kvm_mmu_slot_remove_write_access(struct nxsim__vm_mmu *mmu,
					     const struct nxsim__memslot *slot)
{
	if (!mmu->tdp_mmu_enabled) {
		/* the rmaps' walk flushes at its end */
		nxsim__shadow_mmu_wrprot_slot(mmu, slot);
		return;
	}
	nxsim__kvm_tdp_mmu_wrprot_slot(mmu, slot);
	/* kvm_arch_flush_remote_tlbs_memslot(), unconditional */
	nxsim__kvm_flush_remote_tlbs_range(mmu, slot->base_gfn, slot->npages);
}

void nxsim__kvm_mmu_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					  const struct nxsim__memslot *slot)
{
	if (mmu->tdp_mmu_enabled)
		nxsim__kvm_tdp_mmu_zap_collapsible_sptes(mmu, slot);
	else
		nxsim__kvm_rmap_zap_collapsible_sptes(mmu, slot);
}

/*
 * kvm_make_all_cpus_request(KVM_REQ_MMU_FREE_OBSOLETE_ROOTS), under
 * mmu_lock: at its next access each vCPU frees its roots if they are
 * obsolete (nxsim__kvm_mmu_free_obsolete_roots() on the shadow MMU; the
 * TDP MMU's roots are torn down at once) and loads a new one, whose
 * kvm_mmu_load() flushes its TLB (kvm_x86_flush_tlb_current).
 */
void nxsim__mmu_request_free_obsolete_roots(struct nxsim__vm_mmu *mmu)
{
	if (!mmu->tdp_mmu_enabled)
		mmu->free_obsolete_roots = true;
	if (mmu->flush_vcpus)
		mmu->flush_vcpus(mmu->flush_ctx, NXSIM__FLUSH_ROOTS, 0, 0);
}

/*
 * kvm_flush_remote_tlbs() (virt/kvm/kvm_main.c): every place the kernel asks
 * for a flush of the VM's vCPU TLBs calls this or the ranged form below,
 * so that the flush is counted once, in one place; the kvm layer then
 * posts KVM_REQ_TLB_FLUSH to every vCPU.
 */
void nxsim__kvm_flush_remote_tlbs(struct nxsim__vm_mmu *mmu)
{
	MMU_COUNT(mmu, tlb_flushes);
	if (mmu->flush_vcpus)
		mmu->flush_vcpus(mmu->flush_ctx, NXSIM__FLUSH_ALL, 0, 0);
}

/*
 * kvm_flush_remote_tlbs_range() (6.6; kvm_flush_remote_tlbs_with_address()
 * of 6.1, arch/x86/kvm/mmu/mmu.c): a ranged flush where the host has one
 * (kvm_x86_ops.flush_remote_tlbs_range, Hyper-V's enlightened flush),
 * kvm_flush_remote_tlbs() otherwise; the kvm layer decides which.
 */
void nxsim__kvm_flush_remote_tlbs_range(struct nxsim__vm_mmu *mmu, uint64_t gfn,
					uint64_t pages)
{
	MMU_COUNT(mmu, tlb_flushes);
	if (mmu->flush_vcpus)
		mmu->flush_vcpus(mmu->flush_ctx, NXSIM__FLUSH_RANGE, gfn,
				 pages);
}
