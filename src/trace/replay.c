// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay of a trace's page ownership events onto an XPFO machine: every
 * mm_page_alloc is xpfo_alloc_pages() of its 2^order frames (a user page
 * when the GFP flags hold all of GFP_HIGHUSER, as XPFO decides), every
 * mm_page_free / mm_page_free_batched is xpfo_free_pages(), each on the
 * trace's CPU; a CPU whose task changed switches to that task's mm first
 * (switch_mm_irqs_off(), which runs a pending deferred flush).
 *
 * A capture starts and ends in the middle of things, so the replay
 * reconciles rather than fails: a free of a frame it never saw allocated
 * is skipped, an allocation of a frame it holds (a lost free) frees it
 * first, a frame beyond the machine is skipped; each is counted.
 *
 * Left out: what a trace does not hold.  No kmap/kunmap (kmem events do
 * not show them), no kernel entries or user accesses, and no TLB lookups
 * by the workload itself (lackey records are counted and skipped here).
 * And blocks: the XPFO API takes one frame a call, so a user block of
 * 2^order frames is 2^order allocations, each flushing its own page,
 * where xpfo_alloc_pages() flushes the block's range once.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/trace.h>
#include <nxsim/xpfo.h>

#include "xpfo/xpfo.h"

/* A task's mm: pid 0 (idle, swapper) is a kernel thread, domain 0. */
static uint16_t pid_domain(uint32_t pid)
{
	return pid ? (uint16_t)(pid % UINT16_MAX + 1) : 0;
}

static int replay_frame(struct nxsim_xpfo *m,
			const struct nxsim_trace_event *ev, unsigned int cpu,
			uint64_t pfn, struct nxsim_trace_replay *rep)
{
	struct nxsim_xpfo_frame_info fi;
	int rc;

	if (nxsim_xpfo_frame(m, pfn, &fi)) {
		rep->out_of_range++;
		return 0;
	}
	if (ev->op == NXSIM_TRACE_FREE) {
		if (fi.owner == NXSIM_XPFO_FREE) {
			rep->unmatched_frees++;
			return 0;
		}
		rep->frames++;
		return nxsim_xpfo_free(m, cpu, pfn);
	}
	if (fi.owner != NXSIM_XPFO_FREE) {
		rep->double_allocs++;
		rc = nxsim_xpfo_free(m, cpu, pfn);
		if (rc)
			return rc;
	}
	rep->frames++;
	if (ev->user)
		return nxsim_xpfo_alloc_user(m, cpu, pfn, pid_domain(ev->pid),
					     0);
	return nxsim_xpfo_alloc_kernel(m, cpu, pfn);
}

int nxsim_trace_replay_xpfo(struct nxsim_trace *t, struct nxsim_xpfo *m,
			    struct nxsim_trace_replay *rep)
{
	struct nxsim_xpfo_cpu_info ci;
	struct nxsim_trace_event ev;
	unsigned int cpu;
	uint64_t i;
	int rc;

	if (!t || !m || !rep)
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	while ((rc = nxsim_trace_next(t, &ev)) == 1) {
		if (ev.op != NXSIM_TRACE_ALLOC && ev.op != NXSIM_TRACE_FREE) {
			rep->accesses++;
			continue;
		}
		rep->events++;
		cpu = ev.cpu % m->nr_cpus;
		rc = nxsim_xpfo_cpu(m, cpu, &ci);
		if (!rc && ci.domain != pid_domain(ev.pid)) {
			rc = nxsim_xpfo_context_switch(m, cpu,
						       pid_domain(ev.pid));
			rep->switches++;
		}
		for (i = 0; !rc && i < 1ull << ev.order; i++)
			rc = replay_frame(m, &ev, cpu, ev.addr + i, rep);
		if (rc)
			return rc;
	}
	return rc;
}

int64_t nxsim_trace_frames(struct nxsim_trace *t, unsigned int *cpus)
{
	struct nxsim_trace_event ev;
	uint64_t end = 0;
	unsigned int top = 0;
	int rc;

	if (!t)
		return -EINVAL;
	while ((rc = nxsim_trace_next(t, &ev)) == 1) {
		if (ev.op != NXSIM_TRACE_ALLOC && ev.op != NXSIM_TRACE_FREE)
			continue;
		if (ev.addr + (1ull << ev.order) > end)
			end = ev.addr + (1ull << ev.order);
		if (ev.cpu + 1 > top)
			top = ev.cpu + 1;
	}
	if (rc)
		return rc;
	nxsim_trace_rewind(t);
	if (cpus)
		*cpus = top;
	return end;
}
