/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pool of page-table pages both MMUs draw from (mmu_pages.c): frames,
 * the per-VM reserve, allocation into a vCPU's cache, freeing after a
 * grace period (one call_rcu() per batch), and the lookups of a page by
 * its frame.  mmu_internal.h includes it at its end, so that every file
 * of the MMU sees it; it may be included alone too.
 */
#ifndef NXSIM_MMU_MMU_PAGES_H
#define NXSIM_MMU_MMU_PAGES_H

#include <assert.h>
#include <stdint.h>

#include "mmu/mmu_internal.h"

/*
 * One frame of page-table memory: its page and the page's table (@spt,
 * sp->spt, so that a walk goes from an SPTE to the next table with one
 * load, as the hardware goes from an SPTE to the next table's address);
 * or, free (@sp NULL), the next free frame.
 */
struct nxsim__frame {
	struct nxsim__mmu_page *sp;
	union {
		uint64_t *spt;
		uint32_t next_free;
	};
};

#define NXSIM__NO_FRAME UINT32_MAX

/*
 * Frames live in chunks that never move, so that a walker under the read
 * lock can look a frame up while another thread adds one: at most
 * NXSIM__FRAME_CHUNKS * NXSIM__FRAME_CHUNK frames (4 GiB of page tables).
 */
#define NXSIM__FRAME_CHUNK 4096u
#define NXSIM__FRAME_CHUNKS 256u

/*
 * Freed page-table pages a VM keeps for its next allocations, as many as a
 * kvm_mmu_memory_cache holds (KVM_ARCH_NR_OBJS_PER_MEMORY_CACHE); the
 * rest go back to the allocator.
 */
#define NXSIM__SP_RESERVE_MAX 40

/* The frame entry of index @id (allocated). */
static inline struct nxsim__frame *nxsim__frame(struct nxsim__vm_mmu *mmu,
						uint32_t id)
{
	return &mmu->frame_chunk[id / NXSIM__FRAME_CHUNK]
				[id % NXSIM__FRAME_CHUNK];
}

static inline uint64_t sp_pfn(const struct nxsim__mmu_page *sp)
{
	return NXSIM__SP_PFN_BASE + sp->id;
}

/* The SP a present non-leaf SPTE points to (spte_to_child_sp()). */
static inline struct nxsim__mmu_page *
spte_to_child_sp(struct nxsim__vm_mmu *mmu, uint64_t spte)
{
	uint64_t idx = spte_to_pfn(spte) - NXSIM__SP_PFN_BASE;
	struct nxsim__mmu_page *sp;

	assert(idx < NXSIM__FRAME_CHUNK * NXSIM__FRAME_CHUNKS);
	sp = nxsim__frame(mmu, (uint32_t)idx)->sp;
	assert(sp);
	return sp;
}

/*
 * The table of the SP a present non-leaf SPTE points to
 * (spte_to_child_sp(mmu, spte)->spt), without touching the SP's header.
 */
static inline uint64_t *spte_to_child_spt(struct nxsim__vm_mmu *mmu,
					  uint64_t spte)
{
	uint64_t idx = spte_to_pfn(spte) - NXSIM__SP_PFN_BASE;
	const struct nxsim__frame *fr;

	assert(idx < NXSIM__FRAME_CHUNK * NXSIM__FRAME_CHUNKS);
	fr = nxsim__frame(mmu, (uint32_t)idx);
	assert(fr->sp);
	return fr->spt;
}
/*
 * tdp_mmu_alloc_sp(), taking a page from @reserve first, with its frame,
 * counted in nr_cached (the caller puts it in a vCPU's cache); NULL on
 * -ENOMEM.  Level and gfn are set when the page leaves the cache
 * (tdp_mmu_init_child_sp(), nxsim__kvm_tdp_mmu_get_vcpu_root_hpa()).  The
 * SPTEs are not set: the user fills them (nxsim__sp_clear() or a split),
 * as the kernel's page cache hands out pages filled with the non-present
 * value.
 */
struct nxsim__mmu_page *nxsim__tdp_mmu_alloc_sp(struct nxsim__vm_mmu *mmu);
/*
 * The page allocations of mmu_topup_memory_caches(): tdp_mmu_alloc_sp()
 * into @mc until it holds @want pages, under one hold of
 * pages_alloc_lock, which also reads into *@reserved how many pages the
 * reserve held before.  Return: 0, or -ENOMEM with the pages taken so far
 * left in @mc (the caller gives them back).
 */
int nxsim__tdp_mmu_topup_sps(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_memory_cache *mc,
			     unsigned int want, unsigned int *reserved);
/* Fill @sp with SHADOW_NONPRESENT_VALUE. */
void nxsim__sp_clear(struct nxsim__mmu_page *sp);
/*
 * tdp_mmu_free_sp() of the newest page in @mc: onto @reserve while it has
 * room, else freed; at once, as no walker can see it.  Pages that left
 * the tables go back after their grace period instead
 * (tdp_mmu_free_sp_rcu_callback()).
 */
void nxsim__tdp_mmu_free_cached_sp(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc);
/*
 * A page that left the tables goes back after an RCU grace period
 * (call_rcu() of tdp_mmu_free_sp_rcu_callback()), since the lockless
 * hardware walk may still read it.  The shadow MMU's pages go this way
 * too: in the kernel, kvm_mmu_commit_zap_page()'s remote flush waits for
 * lockless walkers (they run with interrupts off); RCU stands in for that.
 */
void nxsim__mmu_free_sp_after_grace_period(struct nxsim__vm_mmu *mmu,
					   struct nxsim__mmu_page *sp);

/* Pages a batch holds before it queues them (its backlog's bound). */
#define NXSIM__RCU_BATCH_MAX 1024

/**
 * struct nxsim__rcu_batch - pages of one VM sharing one call_rcu()
 * @mmu: the VM
 * @first: the first page, whose rcu_head is queued; NULL if empty
 * @last: the last page, the chain's tail (through rcu_next)
 * @nr: pages chained
 *
 * While a thread has a batch open for a VM, the pages of that VM it
 * hands to nxsim__mmu_free_sp_after_grace_period() are chained on it,
 * and queued with one call_rcu() when the batch ends (or fills).  Each
 * page's grace period then starts later than the kernel's own call_rcu()
 * per page (tdp_mmu_free_sp_rcu_callback()) would start it, never
 * earlier, so no page is freed while a walker that could see it runs.
 * The pages join nr_rcu_pending when the batch is queued, not one by
 * one: the counts' readers (nxsim__mmu_nr_pages_allocated(), the
 * checker) hold mmu_lock for write, which the batch's holder holds too
 * (a fault's check of the backlog, without the lock, may see the pages
 * of one open batch less).  End a batch before dropping mmu_lock, so
 * that other threads see what they would see without it.
 */
struct nxsim__rcu_batch {
	struct nxsim__vm_mmu *mmu;
	struct nxsim__mmu_page *first, *last;
	unsigned int nr;
};

void nxsim__rcu_batch_begin(struct nxsim__rcu_batch *b,
			    struct nxsim__vm_mmu *mmu);
void nxsim__rcu_batch_end(struct nxsim__rcu_batch *b);
/* Free reserved pages until @keep are left. */
void nxsim__tdp_mmu_trim_reserve(struct nxsim__vm_mmu *mmu, unsigned int keep);
/* Free the frame chunks (at VM teardown, after zapping). */
void nxsim__tdp_mmu_release(struct nxsim__vm_mmu *mmu);
/* The same while no page is allocated (a failed first topup); locked. */
void nxsim__tdp_mmu_release_unused(struct nxsim__vm_mmu *mmu);

/*
 * A page out of a vCPU's cache into the tables, or back (a failed link);
 * with mmu_lock held, so the checker sees the counts agree.
 */
static inline struct nxsim__mmu_page *
nxsim__mmu_cache_pop(struct nxsim__vm_mmu *mmu,
		     struct nxsim__mmu_memory_cache *mc)
{
	__atomic_fetch_sub(&mmu->nr_cached, 1, __ATOMIC_RELAXED);
	return mc->objs[--mc->nobjs];
}

static inline void nxsim__mmu_cache_push(struct nxsim__vm_mmu *mmu,
					 struct nxsim__mmu_memory_cache *mc,
					 struct nxsim__mmu_page *sp)
{
	__atomic_fetch_add(&mmu->nr_cached, 1, __ATOMIC_RELAXED);
	mc->objs[mc->nobjs++] = sp;
}

#endif /* NXSIM_MMU_MMU_PAGES_H */
