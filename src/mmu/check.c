// SPDX-License-Identifier: GPL-2.0-only
/*
 * The invariant checker (the numbered invariants of docs/mmu.md), over the
 * whole MMU state of a VM, plus the page-table structure the kernel's
 * WARNs assume (parent links, levels, gfns, frames) and what the fault
 * and recovery paths recorded since the last check.
 *
 * Invariants that depend on a fix are checked only on profiles that carry
 * it (a 6.1 host legitimately leaves untracked exec-made tables unflagged),
 * so a bug switch that undoes a fix on a newer profile is caught.
 * Not checked here: invariant 10 (the worker's lifecycle, src/kvm/worker.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

struct checker {
	struct nxsim__vm_mmu *mmu;
	nxsim_text_fn report;
	void *ctx;
	int violations;
	bool nx;	  /* the VM's nx_huge_pages, read once */
	bool hard_off_nx; /* "never" and nx_huge_pages both set */
	uint64_t leaves[3];
	uint64_t sps;
};

static void __attribute__((format(printf, 2, 3)))
violation(struct checker *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	c->violations++;
	if (!c->report)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->report(c->ctx, buf);
}

static void check_sp(struct checker *c, struct nxsim__mmu_page *sp)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	bool nx = c->nx;
	bool tag = mmu->prof->nx_tag_untracked;
	uint64_t gfn = sp->gfn;
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level);
	unsigned int i, leaves = 0;

	c->sps++;
	if (sp->id >= mmu->nr_frames || nxsim__frame(mmu, sp->id)->sp != sp)
		violation(c,
			  "SP gfn 0x%" PRIx64 " level %d: frame %u not its own",
			  gfn, sp->level, sp->id);
	if (sp->nx_tracked &&
	    (!sp->made_hpd || sp->made_req_level < sp->level + 1))
		violation(c,
			  "invariant 3: "
			  "SP gfn 0x%" PRIx64 " level %d tracked, but made "
			  "by a fault with huge_page_disallowed=%d "
			  "req_level=%d",
			  gfn, sp->level, sp->made_hpd, sp->made_req_level);
	if (!sp->nx_tracked && sp->nx_huge_page_disallowed && sp->made_hpd &&
	    sp->made_req_level >= sp->level + 1 && !sp->unaccounted)
		violation(c,
			  "invariant 1: "
			  "SP gfn 0x%" PRIx64 " level %d made where a huge "
			  "page was possible (req_level=%d) is flagged but "
			  "not tracked",
			  gfn, sp->level, sp->made_req_level);
	if (sp->nx_tracked && (!sp->nx_huge_page_disallowed || !sp->direct))
		violation(c,
			  "invariant 2: tracked SP gfn 0x%" PRIx64
			  " level %d not "
			  "flagged or not direct",
			  gfn, sp->level);
	if (tag && sp->made_hpd && !sp->nx_huge_page_disallowed &&
	    !sp->unaccounted)
		violation(c,
			  "428e921611bc: SP gfn 0x%" PRIx64 " level %d made by "
			  "an exec fault is not flagged nx_huge_page_"
			  "disallowed",
			  gfn, sp->level);
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++) {
		uint64_t spte = sp->spt[i];
		struct nxsim__mmu_page *child;

		if (!is_shadow_present_pte(spte))
			continue;
		if (is_last_spte(spte, sp->level)) {
			leaves++;
			if (sp->level > NXSIM_PG_LEVEL_1G)
				violation(c, "leaf at level %d", sp->level);
			else
				c->leaves[sp->level - 1]++;
			if (nx && sp->level > NXSIM_PG_LEVEL_4K &&
			    nxsim__is_executable_pte(mmu->fmt, spte))
				violation(c,
					  "invariant 4: executable huge SPTE "
					  "0x%016" PRIx64
					  " at level %d gfn 0x%" PRIx64,
					  spte, sp->level, gfn + i * span);
			continue;
		}
		if (sp->level == NXSIM_PG_LEVEL_4K ||
		    spte_to_pfn(spte) - NXSIM__SP_PFN_BASE >= mmu->nr_frames ||
		    !nxsim__frame(mmu, (uint32_t)(spte_to_pfn(spte) -
						  NXSIM__SP_PFN_BASE))
			     ->sp) {
			violation(c,
				  "SPTE 0x%016" PRIx64
				  " at level %d points at no "
				  "page table",
				  spte, sp->level);
			continue;
		}
		child = spte_to_child_sp(mmu, spte);
		if (child->ptep != &sp->spt[i] || child->parent != sp ||
		    child->level != sp->level - 1 ||
		    child->gfn != sp->gfn + i * span)
			violation(c,
				  "SP gfn 0x%" PRIx64
				  " level %d: bad parent link, "
				  "level or gfn",
				  child->gfn, child->level);
		check_sp(c, child);
	}
	if (leaves != sp->nr_leaves)
		violation(c,
			  "SP gfn 0x%" PRIx64
			  " level %d: %u leaves, counted %u",
			  gfn, sp->level, leaves, sp->nr_leaves);
}

static void check_lists(struct checker *c)
{
	struct nxsim__vm_mmu *mmu = c->mmu;
	bool per_type = mmu->prof->per_type_lists;
	uint64_t total = 0, len;
	struct nxsim__mmu_page *sp;
	int t;

	for (t = 0; t < (per_type ? NXSIM__NR_MMU_TYPES : 1); t++) {
		len = 0;
		TAILQ_FOREACH(sp, &mmu->nx[t].pages,
			      possible_nx_huge_page_link) {
			len++;
			if (!sp->nx_tracked)
				violation(c,
					  "SP gfn 0x%" PRIx64 " on a list, not "
					  "marked tracked",
					  sp->gfn);
			if (per_type &&
			    t != (sp->tdp_mmu_page ? NXSIM__TDP_MMU :
						     NXSIM__SHADOW_MMU))
				violation(c,
					  "invariant 2: "
					  "SP gfn 0x%" PRIx64 " on the list "
					  "of another MMU type",
					  sp->gfn);
		}
		if (mmu->nx[t].len != len)
			violation(c,
				  "list %d: %" PRIu64 " entries, %" PRIu64
				  " counted",
				  t, len, mmu->nx[t].len);
		if (mmu->nx[t].nr_pages != len)
			violation(c,
				  "invariant 1: list %d has %" PRIu64
				  " SPs, nr_pages says %" PRIu64,
				  t, len, mmu->nx[t].nr_pages);
		total += len;
	}
	if (total != mmu->nx_lpage_splits)
		violation(c,
			  "invariant 1: "
			  "nx_lpage_splits is %" PRIu64 ", lists hold %" PRIu64,
			  mmu->nx_lpage_splits, total);
}

int nxsim__mmu_check(struct nxsim__vm_mmu *mmu, nxsim_text_fn report, void *ctx)
{
	struct checker c = { .mmu = mmu, .report = report, .ctx = ctx };
	static const char *const names[] = { "4k", "2m", "1g" };
	struct nxsim__mmu_page *root;
	unsigned int i;

	/*
	 * One consistent snapshot: the caller holds param_lock, which a
	 * parameter write keeps until its zap of every root is done, so the
	 * values read once here match the tables; under mmu_lock no fault or
	 * zap changes them during the walk.
	 */
	nxsim__write_lock(&mmu->mmu_lock);
	/*
	 * pages_alloc_lock too: vCPUs top up their caches and RCU callbacks
	 * free pages without mmu_lock, changing frames and counts.
	 */
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	c.nx = nxsim__is_nx_huge_page_enabled(mmu);
	c.hard_off_nx = READ_ONCE(mmu->params->hard_disabled) &&
			READ_ONCE(mmu->params->nx_huge_pages);
	TAILQ_FOREACH(root, &mmu->roots, link) {
		if (root->invalid || root != mmu->root)
			violation(&c,
				  "invariant 7: "
				  "invalid or stale root %u left",
				  root->id);
		check_sp(&c, root);
	}
	for (i = 0; i < 3; i++)
		if (c.leaves[i] != mmu->pages[i])
			violation(&c,
				  "invariant 6: pages_%s is %" PRIu64
				  ", the tables hold %" PRIu64 " leaves",
				  names[i], mmu->pages[i], c.leaves[i]);
	check_lists(&c);
	if (c.sps + mmu->nr_cached + mmu->nr_rcu_pending != mmu->nr_sps)
		violation(&c,
			  "%" PRIu64 " page-table pages alive, %" PRIu64
			  " reachable, cached or awaiting RCU",
			  mmu->nr_sps,
			  c.sps + mmu->nr_cached + mmu->nr_rcu_pending);
	if (c.hard_off_nx)
		violation(&c, "invariant 8: "
			      "hard-disabled but nx_huge_pages set");
	for (i = 0; i < mmu->nr_events; i++) {
		if (i < NXSIM__MAX_EVENTS)
			violation(&c, "%s", mmu->events[i]);
		else
			violation(&c, "(more events not kept)");
	}
	mmu->nr_events = 0;
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return c.violations;
}
