/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU half of struct kvm (include/linux/kvm_host.h) and of struct
 * kvm_arch (arch/x86/include/asm/kvm_host.h): struct nxsim__vm_mmu, the
 * per-VM state both MMUs share (mmu_lock, the roots, the memslots, the
 * possible-NX lists, the page-table page pool, the shadow MMU's lists and
 * caches), with the per-VM page stats (pages[] of struct kvm_vm_stat),
 * and the vCPU's address space (kvm_arch_vcpu_memslots_id()).  kvm.ko's
 * half of struct kvm is struct nxsim_vm (src/kvm/vm.h).
 */
#ifndef NXSIM_MMU_KVM_HOST_H
#define NXSIM_MMU_KVM_HOST_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include "core/compiler.h"

#include "mmu/guest_mem.h"
#include "mmu/memslot.h"
#include "mmu/mmu.h"
#include "mmu/spte.h"

enum nxsim__mmu_type {
	NXSIM__SHADOW_MMU,
	NXSIM__TDP_MMU,
	NXSIM__NR_MMU_TYPES,
};

struct nxsim__mmu_page;
struct nxsim__frame;
struct nxsim__sp_hlist;

TAILQ_HEAD(nxsim__sp_list, nxsim__mmu_page);

/*
 * The pte_list_desc cache: 1 rmap, 1 parent PTE per level and the
 * prefetched rmaps (mmu_topup_memory_caches(); PT64_ROOT_MAX_LEVEL 5,
 * PTE_PREFETCH_NUM 8).
 */
#define NXSIM__PTE_PREFETCH_NUM 8
#define NXSIM__DESC_CACHE_MIN (1 + 5 + NXSIM__PTE_PREFETCH_NUM)

struct nxsim__pte_list_desc;

/*
 * stat.pages[] is one atomic64_t per level in the kernel
 * (kvm_update_page_stats()).  Here each thread adds to a shard of its own
 * (taken round-robin at its first update and kept, a cache line each), as
 * a percpu_counter's CPUs would, and readers add the shards up (under the
 * write lock, so the sum is exact): faults of two vCPUs no longer move
 * one line between them at every leaf they map.  Callers see the kernel's
 * values; an add stays atomic, as threads beyond NXSIM__PAGE_STAT_SHARDS
 * share shards.
 */
#define NXSIM__PAGE_STAT_SHARDS 8

struct nxsim__page_stat_shard {
	uint64_t pages[3];
} ____cacheline_aligned;

/* The calling thread's shard + 1, 0 until its first update (mmu.c). */
extern __thread unsigned int nxsim__page_stat_shard_id
	__attribute__((tls_model("initial-exec")));

/* Give the calling thread its shard; returns its index. */
unsigned int nxsim__page_stat_shard_take(void);

/* The calling thread's shard. */
static inline unsigned int nxsim__page_stat_shard(void)
{
	unsigned int id = nxsim__page_stat_shard_id;

	return likely(id) ? id - 1 : nxsim__page_stat_shard_take();
}

/**
 * struct nxsim__possible_nx - kvm->arch.possible_nx_huge_pages[type]
 * @pages: the list, oldest first
 * @nr_pages: the kernel's count (NXSIM_BUG_UNTRACK_WRONG_TYPE makes it wrong)
 * @len: entries really on @pages (the simulator's own count)
 */
struct nxsim__possible_nx {
	struct nxsim__sp_list pages;
	uint64_t nr_pages;
	uint64_t len;
};

/* A violation seen by the fault or recovery path, kept for the checker. */
#define NXSIM__MAX_EVENTS 8
#define NXSIM__EVENT_LEN 160 /* bytes of one, with its NUL */

/**
 * struct nxsim__vm_mmu - the MMU half of struct kvm and struct kvm_arch
 * @prof: the tree's MMU behaviours
 * @bugs: NXSIM_BUG_* switches
 * @params: the module parameters (read with READ_ONCE())
 * @mmu_lock: kvm->mmu_lock; on a cache line of its own, as is @pages: every
 *	fault of every vCPU writes both, and the fields every fault reads
 *	(the profile, the parameters, the root, the slots) would otherwise
 *	move between cores with them (allocated with that alignment); last,
 *	as its slots follow it, as many as the CPUs give it
 * @disable_nx_huge_pages: kvm->arch.disable_nx_huge_pages (READ_ONCE())
 * @fmt: SPTE format (EPT or NPT, from the host CPU)
 * @root_level: 4 or 5
 * @max_huge_level: max_huge_page_level (1G unless no_gbpages)
 * @phys_bits: guest MAXPHYADDR
 * @mmu_valid_gen: flipped by each fast zap
 * @memslots_gen: __kvm_memslots(kvm, as_id)->generation per address
 *	space, with KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS while slots change;
 *	written under slots_lock and mmu_lock, read under either
 * @mmio: the host's MMIO SPTE masks and enable_mmio_caching
 * @roots: tdp_mmu_roots, valid and invalid, of both address spaces
 * @root: the vCPUs' current root per address space (role.smm), NULL until
 *	the first fault in that space after a zap
 * @pae_root: mmu->pae_root with TDP off and a PAE, 32-bit or nonpaging
 *	guest: the level-2 shadow page each of the four shadow PDPTEs points
 *	at (for paging off, the direct page directory of GiB i), NULL where
 *	the guest's PDPTE is not present (INVALID_PAE_ROOT); @root[0] is NULL
 *	while they are loaded (shadow paging keeps to address space 0)
 * @nx: possible_nx_huge_pages; one list ([0]) before per-type lists
 * @tdp_mmu_pages_lock: protects @nx and the flags of TDP SPs
 * @page_stats: stat.pages[level - 1], in per-thread shards
 *	(nxsim__page_stat() adds them up)
 * @nx_lpage_splits: stat.nx_lpage_splits
 * @slots: memory slots per address space, by base gfn
 * @nr_memslots_dirty_logging: slots with dirty logging on, in any space
 * @pages_alloc_lock: the page allocator's lock (the kernel's slab and
 *	buddy allocator): @frame_chunk, @nr_frames, @free_frame, @reserve,
 *	@nr_reserve
 * @frame_chunk: frame index -> page-table page and its table, or the next
 *	free index,
 *	NXSIM__FRAME_CHUNK frames per chunk; the table of NXSIM__FRAME_CHUNKS
 *	chunks is made with the first frame (an idle VM has none)
 * @nr_frames: entries handed out so far
 * @free_frame: first free entry, or NXSIM__NO_FRAME
 * @nr_sps: page-table pages allocated: in the tables, in vCPU caches and
 *	waiting for their RCU grace period (atomic)
 * @nr_cached: of those, pages in vCPU caches (atomic)
 * @nr_rcu_pending: of those, pages waiting for their grace period (atomic)
 * @reserve: freed page-table pages (table and header) kept for reuse,
 *	newest first
 * @nr_reserve: entries on @reserve
 * @mmu_invalidate_seq: kvm->mmu_invalidate_seq (bumped at the end of an
 *	MMU-notifier invalidation, under the write lock)
 * @mmu_invalidate_in_progress: kvm->mmu_invalidate_in_progress
 * @mmu_invalidate_range_start: kvm->mmu_invalidate_range_start (gfn)
 * @mmu_invalidate_range_end: kvm->mmu_invalidate_range_end (gfn, exclusive)
 * @sched: the scheduling hook (tests), NULL if none
 * @sched_ctx: its argument
 * @fault_retries: faults that returned RET_PF_RETRY (atomic)
 * @counters: simulator counters (atomic increments); a fault's own go to
 *	its vCPU's (VCPU_COUNT())
 * @vcpus: the vCPUs' MMU halves, newest first, whose counters the reads
 *	add; linked under the write lock
 * @flush_vcpus: struct nxsim__mmu_config's, to reach the vCPUs
 * @flush_ctx: its context
 * @events: checker records not yet reported, NXSIM__MAX_EVENTS of them;
 *	made at the first (a VM without violations has none), NULL until then
 * @gmem: guest memory: the written pages behind the slots (guest_mem.c)
 * @amd: the CPU (and so the guest's CPUID) is AMD's: guest reserved bits
 * @tdp_enabled: tdp_enabled (EPT or NPT in use, the host's): the vCPUs'
 *	root role is direct and their faults are kvm_tdp_page_fault()'s;
 *	otherwise they shadow the guest's tables (FNAME(page_fault))
 * @tdp_mmu_enabled: kvm->arch.tdp_mmu_enabled: the TDP MMU maps faults;
 *	otherwise the shadow MMU does, and memslots have rmaps
 * @active_mmu_pages: shadow pages, newest first (FIFO for the fast zap)
 * @mmu_page_hash: shadow pages by gfn (kvm->arch.mmu_page_hash)
 * @n_used_mmu_pages: shadow pages on @active_mmu_pages or being zapped
 * @indirect_shadow_pages: kvm->arch.indirect_shadow_pages
 * @nr_unsync: unsync shadow pages now (stat.mmu_unsync)
 * @desc_cache: pre-allocated rmap descriptors (mmu_pte_list_desc_cache)
 * @nr_desc_cache: entries in @desc_cache
 * @nr_descs: rmap descriptors in use (the checker counts them)
 * @shadowed_info_cache: shadowed_translation arrays for indirect pages
 *	(mmu_shadowed_info_cache, topped up when a fault may be indirect)
 * @nr_info_cache: entries in @shadowed_info_cache
 * @invalid_list: shadow pages prepared for zap and not committed; empty
 *	between operations unless a bug left them (the kernel's invalid_list
 *	lives on the stack of each operation)
 * @resched_pending: need_resched(): with @sched set, the recovery pass
 *	breaks the lock at its next break point, runs the hook there
 *	(NXSIM__SCHED_RESCHED) and clears it (set by a test, as the scheduler
 *	sets TIF_NEED_RESCHED)
 * @nr_events: how many (may exceed NXSIM__MAX_EVENTS; the rest are counted;
 *	slots are claimed atomically)
 * @free_obsolete_roots: KVM_REQ_MMU_FREE_OBSOLETE_ROOTS is pending on the
 *	vCPUs (one flag: the VM has one current root per address space)
 * @nx_recovery: the recovery rule of the host (NULL: the profile's)
 */
struct nxsim__vm_mmu {
	const struct nxsim__mmu_profile *prof;
	uint64_t bugs;
	const struct nxsim__nx_params *params;
	bool disable_nx_huge_pages ____cacheline_aligned;
	enum nxsim_spte_format fmt;
	int root_level;
	int max_huge_level;
	unsigned int phys_bits;
	uint8_t mmu_valid_gen;
	uint64_t memslots_gen[KVM_ADDRESS_SPACE_NUM];
	struct nxsim__mmio_masks mmio;
	struct nxsim__sp_list roots;
	struct nxsim__mmu_page *root[KVM_ADDRESS_SPACE_NUM];
	struct nxsim__mmu_page *pae_root[4];
	struct nxsim__possible_nx nx[NXSIM__NR_MMU_TYPES];
	pthread_mutex_t tdp_mmu_pages_lock;
	struct nxsim__page_stat_shard page_stats[NXSIM__PAGE_STAT_SHARDS];
	uint64_t nx_lpage_splits;
	struct nxsim__slot_list
		slots[KVM_ADDRESS_SPACE_NUM] ____cacheline_aligned;
	unsigned int nr_memslots_dirty_logging;
	uint64_t manual_dirty_log_protect;
	pthread_mutex_t pages_alloc_lock;
	struct nxsim__frame **frame_chunk;
	uint32_t nr_frames;
	uint32_t free_frame;
	uint64_t nr_sps;
	uint64_t nr_cached;
	uint64_t nr_rcu_pending;
	struct nxsim__sp_list reserve;
	unsigned int nr_reserve;
	unsigned long mmu_invalidate_seq;
	long mmu_invalidate_in_progress;
	uint64_t mmu_invalidate_range_start;
	uint64_t mmu_invalidate_range_end;
	nxsim__sched_fn sched;
	void *sched_ctx;
	uint64_t fault_retries;
	struct nxsim_mmu_counters counters;
	struct nxsim__mmu_kstat kstat;
	struct nxsim__vcpu_mmu *vcpus;
	nxsim__flush_vcpus_fn flush_vcpus;
	void *flush_ctx;
	char (*events)[NXSIM__EVENT_LEN];
	unsigned int nr_events;
	struct nxsim__guest_mem gmem;
	bool amd;
	bool tdp_enabled;
	bool tdp_mmu_enabled;
	struct nxsim__sp_list active_mmu_pages;
	struct nxsim__sp_hlist *mmu_page_hash;
	uint64_t n_used_mmu_pages;
	uint64_t indirect_shadow_pages;
	uint64_t nr_unsync;
	struct nxsim__pte_list_desc *desc_cache[NXSIM__DESC_CACHE_MIN];
	unsigned int nr_desc_cache;
	uint64_t nr_descs;
	uint64_t *shadowed_info_cache[5];
	unsigned int nr_info_cache;
	struct nxsim__sp_list invalid_list;
	bool resched_pending;
	bool free_obsolete_roots;
	const struct nxsim_nx_recovery_ops *nx_recovery;
	struct nxsim__rwlock mmu_lock ____cacheline_aligned;
};

/*
 * __gfn_to_memslot(__kvm_memslots(kvm, @as_id), @gfn): NULL if no slot of
 * that address space holds @gfn.  Inline: every fault looks its slot up.
 */
static inline struct nxsim__memslot *
nxsim__gfn_to_memslot(struct nxsim__vm_mmu *mmu, int as_id, uint64_t gfn)
{
	struct nxsim__memslot *s;

	TAILQ_FOREACH(s, &mmu->slots[as_id], link) {
		if (gfn < s->base_gfn)
			break;
		if (gfn < s->base_gfn + s->npages)
			return s;
	}
	return NULL;
}

/*
 * kvm_update_page_stats(): stat.pages[level - 1] += @delta, in the shard
 * of the calling thread.
 */
static inline void nxsim__kvm_update_page_stats(struct nxsim__vm_mmu *mmu,
						int level, int64_t delta)
{
	/* leaves are 4K, 2M or 1G: a root's table never counts here */
	assert(level >= NXSIM_PG_LEVEL_4K && level <= NXSIM_PG_LEVEL_1G);
	__atomic_fetch_add(
		&mmu->page_stats[nxsim__page_stat_shard()].pages[level - 1],
		(uint64_t)delta, __ATOMIC_RELAXED);
}

/*
 * stat.pages[level - 1]: the shards' sum, exact under the write lock (no
 * fault is adding); a shard alone may have wrapped below zero.
 */
static inline uint64_t nxsim__page_stat(const struct nxsim__vm_mmu *mmu,
					int level)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < NXSIM__PAGE_STAT_SHARDS; i++)
		sum += __atomic_load_n(&mmu->page_stats[i].pages[level - 1],
				       __ATOMIC_RELAXED);
	return sum;
}

/* kvm_arch_vcpu_memslots_id(): 1 in SMM. */
static inline int kvm_arch_vcpu_memslots_id(const struct nxsim__vcpu_mmu *vcpu)
{
	return READ_ONCE(vcpu->smm);
}

/*
 * kvm_dirty_log_manual_protect_and_init_set(): KVM_DIRTY_LOG_INITIALLY_SET
 * in the VM's KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 options.
 */
static inline bool
nxsim__kvm_dirty_log_manual_protect_and_init_set(struct nxsim__vm_mmu *mmu)
{
	return __atomic_load_n(&mmu->manual_dirty_log_protect,
			       __ATOMIC_RELAXED) &
	       NXSIM_DIRTY_LOG_INITIALLY_SET;
}

#endif /* NXSIM_MMU_KVM_HOST_H */
