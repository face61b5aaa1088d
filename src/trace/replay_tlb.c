// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay of a lackey memory-access log onto one CPU of a simulated TLB:
 * each instruction fetch looks up the iTLB side, each load or store the
 * dTLB side (a modify is a load then a store), page by page when an access
 * crosses a 4 KiB boundary; a miss is a page walk that fills a 4 KiB
 * translation under the CPU's current PCID, as a user-space access on x86
 * would after its page walk.
 *
 * Left out: page tables, so no huge pages and no walk cost; every page a
 * log touches is taken as mapped (a lackey log holds only accesses that
 * succeeded).  The frame filled is the virtual page number: a replay
 * counts hits and misses, not physical addresses.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/tlb.h>
#include <nxsim/trace.h>

struct replay {
	struct nxsim_tlb *tlb;
	unsigned int cpu;
	uint16_t pcid;
	struct nxsim_trace_tlb_replay *rep;
};

/* One page of one access: a hit, or a miss and its fill. */
static int touch(struct replay *p, enum nxsim_tlb_access acc, uint64_t va)
{
	struct nxsim_tlb_entry e;
	int rc;

	p->rep->lookups++;
	rc = nxsim_tlb_lookup(p->tlb, p->cpu, acc, va, NULL);
	if (rc != -ENOENT)
		return rc;
	p->rep->misses++;
	memset(&e, 0, sizeof(e));
	e.va = va;
	e.pfn = va >> NXSIM_TLB_SHIFT_4K;
	e.page_shift = NXSIM_TLB_SHIFT_4K;
	e.pcid = p->pcid;
	return nxsim_tlb_fill(p->tlb, p->cpu, acc, &e);
}

/* Every page [@va, @va + @size) touches. */
static int access_pages(struct replay *p, enum nxsim_tlb_access acc,
			uint64_t va, uint16_t size)
{
	uint64_t page = va >> NXSIM_TLB_SHIFT_4K;
	uint64_t last = (va + (size ? size : 1) - 1) >> NXSIM_TLB_SHIFT_4K;
	int rc = 0;

	if (last != page)
		p->rep->crossings++;
	for (; !rc && page <= last; page++)
		rc = touch(p, acc, page << NXSIM_TLB_SHIFT_4K);
	return rc;
}

int nxsim_trace_replay_tlb(struct nxsim_trace *t, struct nxsim_tlb *tlb,
			   unsigned int cpu, uint16_t pcid,
			   struct nxsim_trace_tlb_replay *rep)
{
	struct replay p = { tlb, cpu, pcid, rep };
	struct nxsim_trace_event ev;
	int rc;

	if (!t || !tlb || !rep || pcid >= NXSIM_TLB_NR_PCIDS)
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	/* the log's address space: CR3 with its PCID, keeping its entries */
	rc = nxsim_tlb_write_cr3(tlb, cpu, pcid, true);
	while (!rc && (rc = nxsim_trace_next(t, &ev)) == 1) {
		rc = 0;
		switch (ev.op) {
		case NXSIM_TRACE_IFETCH:
			rc = access_pages(&p, NXSIM_TLB_EXEC, ev.addr, ev.size);
			break;
		case NXSIM_TRACE_LOAD:
			rc = access_pages(&p, NXSIM_TLB_READ, ev.addr, ev.size);
			break;
		case NXSIM_TRACE_STORE:
			rc = access_pages(&p, NXSIM_TLB_WRITE, ev.addr,
					  ev.size);
			break;
		case NXSIM_TRACE_MODIFY:
			rc = access_pages(&p, NXSIM_TLB_READ, ev.addr, ev.size);
			if (!rc)
				rc = access_pages(&p, NXSIM_TLB_WRITE, ev.addr,
						  ev.size);
			break;
		default:
			rep->page_events++;
			continue;
		}
		rep->accesses++;
	}
	return rc;
}
