// SPDX-License-Identifier: GPL-2.0-only
/*
 * What runs on a CPU: kernel accesses through the physmap (a TLB lookup,
 * on a miss a page walk of the physmap, which faults for an unmapped
 * frame), user accesses to a domain's own frames, context switches
 * (switch_mm_irqs_off() with choose_new_asid()'s TLB_NR_DYN_ASIDS cache
 * and a CR3 write with or without NOFLUSH), and user/kernel transitions.
 *
 * Left out: PTI (kernel mappings are global, so CR3 writes never drop
 * physmap entries [C11]), lazy-TLB mode for kernel threads (domain 0 keeps
 * the previous CR3), the user page tables themselves (a user page is
 * always present for its owner).
 */
#include <errno.h>

#include "core/compiler.h"
#include "xpfo/xpfo.h"

/* User VAs: domain frames are mapped at a fixed offset, non-global. */
#define USER_BASE 0x0000100000000000ull

int nxsim__xpfo_kernel_access(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t pfn, bool write,
			      enum nxsim_xpfo_access *what)
{
	enum nxsim_tlb_access acc = write ? NXSIM_TLB_WRITE : NXSIM_TLB_READ;
	struct nxsim_tlb_entry e;
	struct nxsim__frame *f;
	enum nxsim_xpfo_access res;
	uint64_t va;

	if (pfn >= m->nr_frames)
		return -EINVAL;
	f = &m->frame[pfn];
	va = nxsim__physmap_va(pfn);
	m->st.kernel_accesses++;
	nxsim__xpfo_charge(m, cpu, m->cost.kernel_access);
	if (!nxsim__tlb_lookup(m->tlb, cpu, acc, va, &e)) {
		if (e.level == NXSIM_TLB_L2)
			nxsim__xpfo_charge(m, cpu, m->cost.stlb_hit);
		res = NXSIM_XPFO_ACCESS_HIT;
		if (f->flags & FRAME_UNMAPPED) {
			res = NXSIM_XPFO_ACCESS_STALE;
			if (write)
				m->orc.stale_writes++;
			else
				m->orc.stale_reads++;
			if (f->owner != NXSIM_XPFO_USER ||
			    f->domain != m->cpu[cpu].domain)
				m->orc.stale_cross_domain++;
		}
	} else {
		nxsim__xpfo_charge(m, cpu, m->cost.walk);
		if (f->flags & FRAME_UNMAPPED) {
			m->orc.faults++;
			res = NXSIM_XPFO_ACCESS_FAULT;
		} else {
			unsigned int shift = nxsim__physmap_shift(m, pfn);
			uint64_t mask = (1ull << shift) - 1;

			e = (struct nxsim_tlb_entry){
				.va = va & ~mask,
				.pfn = pfn & ~(mask >> NXSIM_TLB_SHIFT_4K),
				.page_shift = (uint8_t)shift,
				.global = true,
			};
			nxsim__tlb_fill(m->tlb, cpu, acc, &e);
			nxsim__xpfo_filled(m, cpu, &e);
			if (!m->disabled)
				nxsim__alias_add(m, cpu, e.pfn, shift);
			res = NXSIM_XPFO_ACCESS_WALK;
		}
	}
	if (what)
		*what = res;
	return 0;
}

int nxsim__xpfo_user_access(struct nxsim_xpfo *m, unsigned int cpu,
			    uint64_t pfn, bool write)
{
	enum nxsim_tlb_access acc = write ? NXSIM_TLB_WRITE : NXSIM_TLB_READ;
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];
	struct nxsim_tlb_entry e;
	uint64_t va = USER_BASE + (pfn << NXSIM_TLB_SHIFT_4K);
	uint64_t cost = m->cost.user_access;

	if (pfn >= m->nr_frames)
		return -EINVAL;
	/* The TLB's lines load while the frame's record does. */
	nxsim__tlb_prefetch_lookup(m->tlb, cpu, acc, va);
	if (!c->domain || m->frame[pfn].owner != NXSIM_XPFO_USER ||
	    m->frame[pfn].domain != c->domain)
		return -EPERM;
	m->st.user_accesses++;
	if (nxsim__tlb_lookup(m->tlb, cpu, acc, va, &e)) {
		e = (struct nxsim_tlb_entry){
			.va = va,
			.pfn = pfn,
			.page_shift = NXSIM_TLB_SHIFT_4K,
			.pcid = m->tlb->cpu[cpu].pcid,
		};
		nxsim__tlb_fill(m->tlb, cpu, acc, &e);
		nxsim__xpfo_filled(m, cpu, &e);
		cost += m->cost.walk;
	} else if (e.level == NXSIM_TLB_L2) {
		cost += m->cost.stlb_hit;
	}
	nxsim__xpfo_user_work(m, cpu, cost);
	return 0;
}

/* choose_new_asid(): reuse the domain's ASID or take the next slot. */
static void load_mm(struct nxsim_xpfo *m, unsigned int cpu, uint16_t domain)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];
	unsigned int i;

	for (i = 0; i < NR_DYN_ASIDS; i++) {
		if (c->asid_domain[i] == domain) {
			nxsim__tlb_write_cr3(m->tlb, cpu, (uint16_t)(i + 1),
					     true);
			return;
		}
	}
	i = c->next_asid;
	c->next_asid = (c->next_asid + 1) % NR_DYN_ASIDS;
	c->asid_domain[i] = domain;
	nxsim__tlb_write_cr3(m->tlb, cpu, (uint16_t)(i + 1), false);
	nxsim__xpfo_charge(m, cpu, m->cost.cr3_flush);
}

int nxsim__xpfo_context_switch(struct nxsim_xpfo *m, unsigned int cpu,
			       uint16_t domain)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	if (c->user_mode)
		return -EINVAL;
	nxsim__xpfo_charge(m, cpu, m->cost.context_switch);
	c->context_switches++;
	m->st.context_switches++;
	if (!domain) {
		/* A kernel thread: enter_lazy_tlb(), no switch_mm. */
		c->domain = domain;
		return 0;
	}
	/*
	 * switch_mm_irqs_off() runs for every user task, the same mm
	 * included; XPFO v8/v9 consume the pending flush there before its
	 * same-mm test, so a thread of the same process flushes too.
	 */
	if (!m->disabled)
		nxsim__xpfo_policy_call(m, context_switch, cpu);
	if (domain != c->domain)
		load_mm(m, cpu, domain);
	c->domain = domain;
	return 0;
}

int nxsim__xpfo_kernel_enter(struct nxsim_xpfo *m, unsigned int cpu)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	if (!c->user_mode)
		return -EINVAL;
	c->user_mode = false;
	c->kernel_entries++;
	m->st.kernel_entries++;
	nxsim__xpfo_charge(m, cpu, m->cost.kernel_entry);
	if (!m->disabled)
		nxsim__xpfo_policy_call(m, kernel_enter, cpu);
	return 0;
}

int nxsim__xpfo_kernel_exit(struct nxsim_xpfo *m, unsigned int cpu)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	if (c->user_mode || !c->domain)
		return -EINVAL;
	c->user_mode = true;
	if (!m->disabled)
		nxsim__xpfo_policy_call(m, kernel_exit, cpu);
	return 0;
}
