// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pool of page-table pages both MMUs draw from: the TDP MMU's
 * (arch/x86/kvm/mmu/tdp_mmu.c: tdp_mmu_alloc_sp(), tdp_mmu_free_sp() and,
 * after a grace period, tdp_mmu_free_sp_rcu_callback()) and the shadow
 * MMU's, whose pages reach kvm_mmu_alloc_shadow_page() through the same
 * vCPU caches (mmu_topup_memory_caches()).  A page is a header (struct
 * nxsim__mmu_page) and a 4 KiB table; each has a frame number, which
 * SPTEs hold in place of a host pfn, in chunks of frames allocated as
 * needed.  Freed pages wait on a bounded per-VM reserve for the next
 * topup, and the chunks go when the last page does.  The counts (nr_sps,
 * nr_cached, nr_rcu_pending) change together under pages_alloc_lock.
 * Pages that leave the tables while a thread has a batch open (a
 * recovery pass) share one call_rcu() per batch instead of one each.
 *
 * Left out: the kernel's kmem caches (mmu_page_header_cache,
 * mmu_shadow_page_cache) and their GFP flags; pages come from the
 * project's allocator, which a test can make fail.
 */
#include <errno.h>
#include <stddef.h>

#include "core/alloc.h"
#include "core/compiler.h"

#ifdef NXSIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

/*
 * A free frame index, adding a chunk if needed; false on -ENOMEM.  Called
 * with pages_alloc_lock held.  A new chunk is stored before any SPTE
 * naming one of its frames is published, so walkers find it.
 */
static bool frame_get(struct nxsim__vm_mmu *mmu, uint32_t *id)
{
	uint32_t c = mmu->nr_frames / NXSIM__FRAME_CHUNK;

	if (mmu->free_frame != NXSIM__NO_FRAME) {
		*id = mmu->free_frame;
		mmu->free_frame = nxsim__frame(mmu, *id)->next_free;
		return true;
	}
	if (!(mmu->nr_frames % NXSIM__FRAME_CHUNK)) {
		if (c == NXSIM__FRAME_CHUNKS)
			return false;
		if (!mmu->frame_chunk)
			mmu->frame_chunk =
				nxsim__zalloc(NXSIM__FRAME_CHUNKS *
					      sizeof(*mmu->frame_chunk));
		if (!mmu->frame_chunk)
			return false;
		mmu->frame_chunk[c] = nxsim__alloc(NXSIM__FRAME_CHUNK *
						   sizeof(struct nxsim__frame));
		if (!mmu->frame_chunk[c])
			return false;
	}
	*id = mmu->nr_frames++;
	return true;
}

static void frame_put(struct nxsim__vm_mmu *mmu, uint32_t id)
{
	struct nxsim__frame *fr = nxsim__frame(mmu, id);

	fr->sp = NULL;
	fr->next_free = mmu->free_frame;
	mmu->free_frame = id;
}

/*
 * Under ASan a reserved page is poisoned but for its reserve link, so
 * that a stale pointer to a zapped page is still reported although its
 * memory was not freed.
 */
#ifdef NXSIM_ASAN
static void sp_poison(struct nxsim__mmu_page *sp, bool poison)
{
	char *link = (char *)&sp->link, *end = (char *)(sp + 1);
	uint64_t *spt;

	if (!poison) {
		ASAN_UNPOISON_MEMORY_REGION(sp, sizeof(*sp));
		ASAN_UNPOISON_MEMORY_REGION(sp->spt, SPTE_ENT_PER_PAGE *
							     sizeof(uint64_t));
		return;
	}
	spt = sp->spt;
	ASAN_POISON_MEMORY_REGION(spt, SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	ASAN_POISON_MEMORY_REGION(sp, link - (char *)sp);
	link += sizeof(sp->link);
	ASAN_POISON_MEMORY_REGION(link, end - link);
}
#else
static void sp_poison(struct nxsim__mmu_page *sp, bool poison)
{
	(void)sp;
	(void)poison;
}
#endif

static void sp_release(struct nxsim__mmu_page *sp)
{
	nxsim__free(sp->spt, SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	nxsim__free_aligned(sp, sizeof(*sp), _Alignof(struct nxsim__mmu_page));
}

/* The newest reserved page, off the reserve and unpoisoned. */
static struct nxsim__mmu_page *reserve_pop(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp = TAILQ_FIRST(&mmu->reserve);

	sp_poison(sp, false);
	TAILQ_REMOVE(&mmu->reserve, sp, link);
	mmu->nr_reserve--;
	return sp;
}

/* A page with a zeroed header: reserved, or from the allocator. */
static struct nxsim__mmu_page *sp_get(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp;
	uint64_t *spt;

	if (mmu->nr_reserve) {
		sp = reserve_pop(mmu);
		spt = sp->spt;
		*sp = (struct nxsim__mmu_page){ .spt = spt };
		return sp;
	}
	sp = nxsim__zalloc_aligned(sizeof(*sp),
				   _Alignof(struct nxsim__mmu_page));
	if (!sp)
		return NULL;
	sp->spt = nxsim__alloc(SPTE_ENT_PER_PAGE * sizeof(uint64_t));
	if (!sp->spt) {
		nxsim__free_aligned(sp, sizeof(*sp),
				    _Alignof(struct nxsim__mmu_page));
		return NULL;
	}
	return sp;
}

static void sp_put(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp)
{
	if (mmu->nr_reserve < NXSIM__SP_RESERVE_MAX) {
		TAILQ_INSERT_HEAD(&mmu->reserve, sp, link);
		mmu->nr_reserve++;
		sp_poison(sp, true);
	} else {
		sp_release(sp);
	}
}

/* tdp_mmu_alloc_sp() with pages_alloc_lock held. */
static struct nxsim__mmu_page *alloc_sp_locked(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp = sp_get(mmu);
	uint32_t id;

	if (!sp)
		return NULL;
	if (!frame_get(mmu, &id)) {
		sp_put(mmu, sp);
		return NULL;
	}
	sp->id = id;
	nxsim__frame(mmu, id)->sp = sp;
	nxsim__frame(mmu, id)->spt = sp->spt;
	__atomic_fetch_add(&mmu->nr_sps, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mmu->nr_cached, 1, __ATOMIC_RELAXED);
	sp->mmu = mmu;
	sp->direct = true;
	sp->tdp_mmu_page = true;
	return sp;
}

struct nxsim__mmu_page *nxsim__tdp_mmu_alloc_sp(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__mmu_page *sp;

	pthread_mutex_lock(&mmu->pages_alloc_lock);
	sp = alloc_sp_locked(mmu);
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	return sp;
}

int nxsim__tdp_mmu_topup_sps(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_memory_cache *mc,
			     unsigned int want, unsigned int *reserved)
{
	struct nxsim__mmu_page *sp = NULL;

	pthread_mutex_lock(&mmu->pages_alloc_lock);
	*reserved = mmu->nr_reserve;
	while (mc->nobjs < want && (sp = alloc_sp_locked(mmu)))
		mc->objs[mc->nobjs++] = sp;
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	return mc->nobjs < want ? -ENOMEM : 0;
}

void nxsim__sp_clear(struct nxsim__mmu_page *sp)
{
	uint64_t *spt = sp->spt; /* not reloaded per entry: vectorised */
	unsigned int i;

	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		spt[i] = SHADOW_NONPRESENT_VALUE;
}

/*
 * tdp_mmu_free_sp(), the page leaving the count @from (nr_cached or
 * nr_rcu_pending) with nr_sps; called with pages_alloc_lock held: the
 * checker reads the counts together under it.
 */
static void tdp_mmu_free_sp(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, uint64_t *from)
{
	frame_put(mmu, sp->id);
	sp_put(mmu, sp);
	__atomic_fetch_sub(&mmu->nr_sps, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(from, 1, __ATOMIC_RELAXED);
}

void nxsim__tdp_mmu_free_cached_sp(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc)
{
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	tdp_mmu_free_sp(mmu, mc->objs[--mc->nobjs], &mmu->nr_cached);
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
}

/* The batch this thread has open, if any (nxsim__rcu_batch_begin()). */
static __thread struct nxsim__rcu_batch *open_batch
	__attribute__((tls_model("initial-exec")));

/*
 * tdp_mmu_free_sp_rcu_callback(), for a chain of pages of one VM (@head
 * is the first's; one page alone is a chain of one): the grace period is
 * over.  Nothing of the VM is touched after the last count drops, so the
 * VM's teardown waits only while some are pending.
 */
static void tdp_mmu_free_sp_rcu_callback(struct rcu_head *head)
{
	struct nxsim__mmu_page *sp =
		(struct nxsim__mmu_page *)((char *)head -
					   offsetof(struct nxsim__mmu_page,
						    rcu_head));
	struct nxsim__mmu_page *next;
	struct nxsim__vm_mmu *mmu;

	nxsim__rcu_callback_enter();
	mmu = sp->mmu;
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	for (; sp; sp = next) {
		next = sp->rcu_next;
		tdp_mmu_free_sp(mmu, sp, &mmu->nr_rcu_pending);
	}
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
}

/*
 * One call_rcu() for the batch's pages, which join nr_rcu_pending then
 * (one atomic add for the batch); the batch is then empty.
 */
static void rcu_batch_queue(struct nxsim__rcu_batch *b)
{
	if (b->first) {
		__atomic_fetch_add(&b->mmu->nr_rcu_pending, b->nr,
				   __ATOMIC_RELAXED);
		nxsim__call_rcu(&b->first->rcu_head,
				tdp_mmu_free_sp_rcu_callback);
	}
	b->first = b->last = NULL;
	b->nr = 0;
}

void nxsim__mmu_free_sp_after_grace_period(struct nxsim__vm_mmu *mmu,
					   struct nxsim__mmu_page *sp)
{
	struct nxsim__rcu_batch *b = open_batch;

	sp->rcu_next = NULL;
	if (!b || b->mmu != mmu) {
		__atomic_fetch_add(&mmu->nr_rcu_pending, 1, __ATOMIC_RELAXED);
		nxsim__call_rcu(&sp->rcu_head, tdp_mmu_free_sp_rcu_callback);
		return;
	}
	if (b->last)
		b->last->rcu_next = sp;
	else
		b->first = sp;
	b->last = sp;
	if (++b->nr == NXSIM__RCU_BATCH_MAX)
		rcu_batch_queue(b);
}

void nxsim__rcu_batch_begin(struct nxsim__rcu_batch *b,
			    struct nxsim__vm_mmu *mmu)
{
	*b = (struct nxsim__rcu_batch){ .mmu = mmu };
	open_batch = b;
}

void nxsim__rcu_batch_end(struct nxsim__rcu_batch *b)
{
	rcu_batch_queue(b);
	open_batch = NULL;
}

void nxsim__tdp_mmu_trim_reserve(struct nxsim__vm_mmu *mmu, unsigned int keep)
{
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	while (mmu->nr_reserve > keep)
		sp_release(reserve_pop(mmu));
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
}

void nxsim__tdp_mmu_release_unused(struct nxsim__vm_mmu *mmu)
{
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	if (!__atomic_load_n(&mmu->nr_sps, __ATOMIC_RELAXED))
		nxsim__tdp_mmu_release(mmu);
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
}

void nxsim__tdp_mmu_release(struct nxsim__vm_mmu *mmu)
{
	uint32_t c;

	if (mmu->frame_chunk) {
		for (c = 0; c < NXSIM__FRAME_CHUNKS && mmu->frame_chunk[c]; c++)
			nxsim__free(mmu->frame_chunk[c],
				    NXSIM__FRAME_CHUNK *
					    sizeof(struct nxsim__frame));
		nxsim__free(mmu->frame_chunk,
			    NXSIM__FRAME_CHUNKS * sizeof(*mmu->frame_chunk));
		mmu->frame_chunk = NULL;
	}
	mmu->nr_frames = 0;
	mmu->free_frame = NXSIM__NO_FRAME;
}
