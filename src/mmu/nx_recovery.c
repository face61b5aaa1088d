// SPDX-License-Identifier: GPL-2.0-only
/*
 * Possible NX huge pages (arch/x86/kvm/mmu/mmu.c):
 * track_/untrack_possible_nx_huge_page(), unaccount_nx_huge_page() and the
 * recovery pass kvm_recover_nx_huge_pages() in its three shapes:
 *   - up to 6.1: one list, every SP zapped (dirty-logged ones too);
 *   - 6.2 to 6.17: one list, SPs of dirty-logged slots only unaccounted
 *     (eb298605705a);
 *   - 6.18: one list per MMU type, each SP unaccounted first, then zapped
 *     unless its slot is dirty-logged.
 * to_zap is ceil(n / ratio) of the list's (or, before 6.18, the stat's)
 * count, taken oldest first; TDP MMU pages are zapped at once, shadow MMU
 * pages prepared on an invalid list and committed at the end
 * (kvm_mmu_remote_flush_or_zap()): one TLB flush when anything was
 * zapped.  Recovery of the TDP MMU's list takes mmu_lock for read from
 * 6.18, the shadow MMU's list the write lock.  The pass breaks mmu_lock
 * (cond_resched_rwlock_*()) where a test set the scheduling hook: under
 * the read lock after every SP (the hook stands for a waiting writer,
 * rwlock_needbreak()), under the write lock where the test also set
 * need_resched (vm_mmu->resched_pending).  The recovery worker that calls
 * the pass is src/kvm/worker.c's.
 *
 * Left out: lock breaks where no test set the hook (the kernel's come
 * when another task waits for the lock or needs the CPU).
 */
#include <errno.h>
#include <inttypes.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"

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
	/* read without the lock by nxsim__mmu_recover_nx_huge_pages() */
	__atomic_store_n(&l->len, l->len + 1, __ATOMIC_RELAXED);
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
	__atomic_store_n(&l->len, l->len - 1, __ATOMIC_RELAXED);
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
	sp_set_nx_disallowed(sp, false);
	nxsim__untrack_possible_nx_huge_page(mmu, sp, type);
}

/* The slot of @sp in address space @as_id is dirty-logged. */
static bool sp_slot_dirty_logging(struct nxsim__vm_mmu *mmu,
				  const struct nxsim__mmu_page *sp, int as_id)
{
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, as_id, sp->gfn);

	return slot && nxsim__slot_dirty_logging(slot);
}

/*
 * kvm_mmu_sp_dirty_logging_enabled(): the slot is looked up in the SP's
 * own address space, kvm_memslots_for_spte_role(kvm, sp->role)
 * (817fa998362d, 6.4).  With NXSIM_BUG_SMM_SLOT_LOOKUP, as in 6.2 and
 * 6.3, gfn_to_memslot() looks in address space 0 for every SP, and an SP
 * of an SMM-only gfn finds none: the kernel's WARN_ON_ONCE(!slot), which
 * the checker reports.
 */
static bool kvm_mmu_sp_dirty_logging_enabled(struct nxsim__vm_mmu *mmu,
					     struct nxsim__mmu_page *sp)
{
	int as_id = nxsim__mmu_has_bug(mmu, NXSIM_BUG_SMM_SLOT_LOOKUP) ?
			    0 :
			    kvm_mmu_page_as_id(sp);
	struct nxsim__memslot *slot;

	if (!mmu->nr_memslots_dirty_logging)
		return false;
	slot = nxsim__gfn_to_memslot(mmu, as_id, sp->gfn);
	if (!slot)
		nxsim__mmu_event(mmu,
				 "WARN_ON_ONCE(!slot): recovery found no "
				 "memslot for SP gfn 0x%" PRIx64 " level %d%s",
				 sp->gfn, sp->level,
				 kvm_mmu_page_as_id(sp) ? " (SMM)" : "");
	return slot && nxsim__slot_dirty_logging(slot);
}

/*
 * What one pass over one list carries from page to page.  @zapped counts
 * the SPs zapped since the pass last added them to counters.recovery_zapped
 * (recovery_count()), which it does before every lock break and at its
 * end: the readers of the counters take mmu_lock for write, so they see
 * the count of every SP zapped, as with one atomic add per SP.
 */
struct recovery {
	struct nxsim__vm_mmu *mmu;
	enum nxsim__mmu_type type;
	bool shared;
	bool skip_dirty;
	bool no_commit;
	bool flush;
	bool broke; /* the lock was broken */
	uint64_t zapped;
	struct nxsim__rcu_batch batch;
};

static void recovery_count(struct recovery *r)
{
	if (!r->zapped)
		return;
	__atomic_fetch_add(&r->mmu->counters.recovery_zapped, r->zapped,
			   __ATOMIC_RELAXED);
	r->zapped = 0;
}

/*
 * Zap one SP taken off the list: a TDP MMU page at once
 * (kvm_tdp_mmu_zap_sp()), a shadow MMU page onto vm_mmu->invalid_list
 * (kvm_mmu_prepare_zap_page()).  Return: true if a TDP zap needs a flush.
 */
static bool recovery_zap(struct recovery *r, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = r->mmu;

	if (sp->tdp_mmu_page) {
		if (!nxsim__kvm_tdp_mmu_zap_sp(mmu, sp, r->shared))
			return false;
		r->zapped++;
		return true;
	}
	nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &mmu->invalid_list);
	WARN_ON(sp->nx_tracked);
	r->zapped++;
	return false;
}

/*
 * The lock-break point of the loop (need_resched() ||
 * rwlock_needbreak()): finish what was zapped so far, drop mmu_lock and
 * the RCU read side while the scheduling hook runs (the task that
 * waited), take them again.  Before e89505698c9f the same commit was also
 * the one of the last SP (!--to_zap); see kvm_recover_nx_huge_pages().
 */
static void recovery_resched(struct recovery *r)
{
	struct nxsim__vm_mmu *mmu = r->mmu;

	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &mmu->invalid_list, r->flush);
	mmu->resched_pending = false;
	recovery_count(r);
	nxsim__rcu_batch_end(&r->batch);
	nxsim__rcu_read_unlock();
	nxsim__rw_unlock(&mmu->mmu_lock);
	nxsim__sched_point(mmu, NXSIM__SCHED_RESCHED, 0, 0);
	nxsim__mmu_lock(mmu, r->shared);
	nxsim__rcu_read_lock();
	nxsim__rcu_batch_begin(&r->batch, mmu);
}

/*
 * tdp_mmu_pages_lock around the list, as 6.18 takes it: only under the
 * read lock, where faults track pages beside the pass.  The write lock
 * (6.1-6.6, and the shadow MMU's list) excludes every other user.
 */
static void nx_list_lock(struct nxsim__vm_mmu *mmu, bool shared)
{
	if (shared)
		nxsim__mutex_lock(&mmu->tdp_mmu_pages_lock,
				  NXSIM__LOCK_TDP_MMU_PAGES);
}

static void nx_list_unlock(struct nxsim__vm_mmu *mmu, bool shared)
{
	if (shared)
		nxsim__mutex_unlock(&mmu->tdp_mmu_pages_lock,
				    NXSIM__LOCK_TDP_MMU_PAGES);
}

/*
 * The SP @sp, taken off the list by the caller: unaccounted (dirty-logged,
 * with the skip) or zapped; then the commit of the old loop's last SP
 * (@last) or a lock break.
 */
static void recover_sp(struct recovery *r, struct nxsim__mmu_page *sp,
		       bool last)
{
	struct nxsim__vm_mmu *mmu = r->mmu;
	const struct nxsim__mmu_profile *prof = mmu->prof;

	/* no lookup before eb298605705a (or with it undone) */
	if (r->skip_dirty && kvm_mmu_sp_dirty_logging_enabled(mmu, sp)) {
		if (!prof->per_type_lists)
			unaccount_nx_huge_page(mmu, sp, r->type);
		__atomic_store_n(&sp->unaccounted, true, __ATOMIC_RELAXED);
		MMU_COUNT(mmu, recovery_unaccounted);
	} else {
		/*
		 * invariant 9 judges by the SP's own space; no slot logs if
		 * none does
		 */
		if (prof->recovery_skip_dirty &&
		    READ_ONCE(mmu->nr_memslots_dirty_logging) &&
		    sp_slot_dirty_logging(mmu, sp, kvm_mmu_page_as_id(sp)))
			nxsim__mmu_event(mmu,
					 "invariant 9: recovery zapped SP gfn "
					 "0x%" PRIx64
					 " level %d in a dirty-logged slot",
					 sp->gfn, sp->level);
		r->flush |= recovery_zap(r, sp);
	}
	if (r->no_commit && last) {
		nxsim__kvm_mmu_remote_flush_or_zap(mmu, &mmu->invalid_list,
						   r->flush);
		r->flush = false;
	} else if (mmu->sched && (r->shared || mmu->resched_pending)) {
		recovery_resched(r);
		r->flush = false;
		r->broke = true;
	}
}

/*
 * Take @sp off the list for recovery, under nx_list_lock() (held): the
 * per-type lists of 6.18 unaccount it first.
 */
static void take_sp(struct recovery *r, struct nxsim__mmu_page *sp)
{
	WARN_ON(!sp_nx_disallowed(sp) || !sp->direct);
	if (r->mmu->prof->per_type_lists)
		unaccount_nx_huge_page(r->mmu, sp, r->type);
}

/* The read-only view of @sp a recovery rule picks from. */
static void candidate(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		      uint64_t age, struct nxsim_nx_candidate *c)
{
	uint64_t accessed = nxsim__spte_masks(mmu->fmt)->accessed;
	unsigned int i;

	*c = (struct nxsim_nx_candidate){
		.gfn = sp->gfn,
		.level = sp->level,
		.age = age,
		.dirty_logged =
			sp_slot_dirty_logging(mmu, sp, kvm_mmu_page_as_id(sp)),
		.tdp_mmu = sp->tdp_mmu_page,
	};
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t spte = __atomic_load_n(&sp->spt[i], __ATOMIC_RELAXED);

		if (!is_shadow_present_pte(spte))
			continue;
		c->present++;
		c->accessed += accessed && (spte & accessed);
	}
}

/* Whether @pick[0 .. @n - 1] are distinct indexes below @nr. */
static bool pick_valid(const size_t *pick, int64_t n, size_t nr, bool *seen)
{
	int64_t k;

	if (n > (int64_t)nr)
		return false;
	for (k = 0; k < n; k++) {
		if (pick[k] >= nr || seen[pick[k]])
			return false;
		seen[pick[k]] = true;
	}
	return true;
}

/*
 * A recovery rule's pass over list @l: the candidates as they stand, the
 * rule's pick, then each picked SP still on the list taken and recovered
 * as the kernel's loop would.  A lock break ends the pass (the list may
 * have changed under it; the next pass picks again).  Return: 0, the
 * rule's own errno, -EINVAL for a pick not on the candidate list (reported
 * to the checker; nothing taken), -ENOMEM.
 */
static int recover_by_rule(struct recovery *r, struct nxsim__possible_nx *l,
			   uint64_t kernel_nr, uint64_t *done)
{
	struct nxsim__vm_mmu *mmu = r->mmu;
	struct nxsim_nx_candidate *cand = NULL;
	struct nxsim__mmu_page **sps = NULL, *sp;
	size_t nr = 0, *pick = NULL, i;
	bool *seen = NULL;
	int64_t n = 0, k;
	int rc = 0;

	nx_list_lock(mmu, r->shared);
	nr = l->len;
	if (nr) {
		cand = nxsim__calloc(nr, sizeof(*cand));
		sps = nxsim__calloc(nr, sizeof(*sps));
		pick = nxsim__calloc(nr, sizeof(*pick));
		seen = nxsim__calloc(nr, sizeof(*seen));
	}
	if (nr && (!cand || !sps || !pick || !seen)) {
		rc = -ENOMEM;
	} else {
		i = 0;
		TAILQ_FOREACH(sp, &l->pages, possible_nx_huge_page_link) {
			sps[i] = sp;
			candidate(mmu, sp, i, &cand[i]);
			i++;
		}
	}
	nx_list_unlock(mmu, r->shared);
	if (!rc)
		n = mmu->nx_recovery->pick(cand, nr, kernel_nr, pick);
	if (!rc && n < 0)
		rc = n < -4095 ? -EINVAL : (int)n;
	if (!rc && !pick_valid(pick, n, nr, seen)) {
		nxsim__mmu_event(mmu,
				 "recovery rule %s picked a page not among "
				 "the %zu candidates (or more than exist)",
				 mmu->nx_recovery->name, nr);
		rc = -EINVAL;
	}
	for (k = 0; !rc && k < n && !r->broke; k++) {
		sp = sps[pick[k]];
		nx_list_lock(mmu, r->shared);
		/* A zap before it may have taken it (a parent's, a fault's). */
		if (!sp->nx_tracked) {
			nx_list_unlock(mmu, r->shared);
			continue;
		}
		take_sp(r, sp);
		nx_list_unlock(mmu, r->shared);
		(*done)++;
		recover_sp(r, sp, k == n - 1);
	}
	nxsim__free(cand, nr * sizeof(*cand));
	nxsim__free(sps, nr * sizeof(*sps));
	nxsim__free(pick, nr * sizeof(*pick));
	nxsim__free(seen, nr * sizeof(*seen));
	return rc;
}

/*
 * kvm_recover_nx_huge_pages(kvm, type); called in rcu_read_lock() with
 * mmu_lock held for read (@shared: the TDP MMU's list from 6.18, zaps by
 * atomic update) or write.  Under the read lock the list and its counts
 * are read under tdp_mmu_pages_lock, which faults take to track.  The
 * pages the pass zaps share one call_rcu() per lock hold (struct
 * nxsim__rcu_batch), where the kernel queues one per page.
 * Shadow pages wait on vm_mmu->invalid_list (the kernel's on-stack
 * invalid_list) until the commit after the loop; with
 * NXSIM_BUG_RECOVER_NO_COMMIT the loop has its shape before e89505698c9f:
 * the commit comes with the SP that brings to_zap to 0 or at a lock
 * break, and none follows the loop, so a list found empty first leaves
 * the pages prepared since the last commit on the list, unflushed.  A
 * host's recovery rule picks the SPs instead of the FIFO head
 * (recover_by_rule()).  Return: 0 or the rule's errno.
 */
static int kvm_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu,
				     enum nxsim__mmu_type type, bool shared)
{
	const struct nxsim__mmu_profile *prof = mmu->prof;
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, type);
	bool rule = mmu->nx_recovery && mmu->nx_recovery->pick;
	struct recovery r = {
		.mmu = mmu,
		.type = type,
		.shared = shared,
		.skip_dirty = prof->recovery_skip_dirty &&
			      !nxsim__mmu_has_bug(mmu, NXSIM_BUG_RECOVER_DIRTY),
		.no_commit =
			nxsim__mmu_has_bug(mmu, NXSIM_BUG_RECOVER_NO_COMMIT),
	};
	unsigned int ratio = READ_ONCE(mmu->params->recovery_ratio);
	uint64_t nr, to_zap, done = 0, len;
	struct nxsim__mmu_page *sp;
	int rc = 0;

	nx_list_lock(mmu, shared);
	nr = prof->per_type_lists ? l->nr_pages : mmu->nx_lpage_splits;
	len = l->len; /* the true length, for invariant 9 */
	nx_list_unlock(mmu, shared);
	to_zap = ratio ? DIV_ROUND_UP(nr, ratio) : 0;
	MMU_COUNT(mmu, recovery_passes);
	nxsim__rcu_batch_begin(&r.batch, mmu);
	if (rule)
		rc = recover_by_rule(&r, l, to_zap, &done);
	for (; !rule && to_zap; to_zap--) {
		nx_list_lock(mmu, shared);
		sp = TAILQ_FIRST(&l->pages);
		if (!sp) {
			nx_list_unlock(mmu, shared);
			break;
		}
		/*
		 * The next page's header, while this one is zapped: its
		 * first line is all the pass touches of it (prefetchw();
		 * harmless if another thread frees it meanwhile)
		 */
		if (to_zap > 1)
			__builtin_prefetch(
				TAILQ_NEXT(sp, possible_nx_huge_page_link), 1);
		take_sp(&r, sp);
		nx_list_unlock(mmu, shared);
		done++;
		recover_sp(&r, sp, to_zap == 1);
	}
	if (ratio && done > DIV_ROUND_UP(len, ratio))
		nxsim__mmu_event(mmu,
				 "invariant 9: recovery took %" PRIu64
				 " SPs, more than ceil(%" PRIu64 " / %u)",
				 done, len, ratio);
	if (!r.no_commit)
		nxsim__kvm_mmu_remote_flush_or_zap(mmu, &mmu->invalid_list,
						   r.flush);
	recovery_count(&r);
	nxsim__rcu_batch_end(&r.batch);
	return rc;
}

/*
 * Nothing to recover: no possible NX huge page on the lists the passes
 * walk, and no recovery rule (whose pick() sees even an empty list).  A
 * pass would then only count itself: the lists are empty, so to_zap finds
 * nothing, the invalid list is empty (every pass commits it, or, with
 * NXSIM_BUG_RECOVER_NO_COMMIT, no pass that takes nothing does) and there
 * is nothing to flush.  Read without mmu_lock: a page being tracked now is
 * one the pass could as well have run just before.
 */
static bool nothing_to_recover(struct nxsim__vm_mmu *mmu)
{
	if (mmu->nx_recovery && mmu->nx_recovery->pick)
		return false;
	if (__atomic_load_n(&mmu->nx[NXSIM__SHADOW_MMU].len, __ATOMIC_RELAXED))
		return false;
	return !mmu->prof->per_type_lists ||
	       !__atomic_load_n(&mmu->nx[NXSIM__TDP_MMU].len, __ATOMIC_RELAXED);
}

int nxsim__mmu_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu)
{
	bool shared = mmu->prof->recovery_read_lock;
	int rc = 0, rc2;

	if (nothing_to_recover(mmu)) {
		/* the passes kvm_recover_nx_huge_pages() would have made */
		if (mmu->prof->per_type_lists)
			MMU_COUNT(mmu, recovery_passes);
		MMU_COUNT(mmu, recovery_passes);
		return 0;
	}

	/* The shadow MMU's list always takes the write lock. */
	if (mmu->prof->per_type_lists) {
		nxsim__write_lock(&mmu->mmu_lock);
		nxsim__rcu_read_lock();
		rc = kvm_recover_nx_huge_pages(mmu, NXSIM__SHADOW_MMU, false);
		nxsim__rcu_read_unlock();
		nxsim__rw_unlock(&mmu->mmu_lock);
	}
	nxsim__mmu_lock(mmu, shared);
	nxsim__rcu_read_lock();
	rc2 = kvm_recover_nx_huge_pages(mmu, NXSIM__TDP_MMU, shared);
	nxsim__rcu_read_unlock();
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc ? rc : rc2;
}
