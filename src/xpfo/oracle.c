// SPDX-License-Identifier: GPL-2.0-only
/*
 * The security oracle (docs/xpfo.md): stale-alias hits are counted where the
 * access happens (cpu.c); here are the windows.
 *
 * Exposure: when a frame's physmap PTE is cleared and the policy has done
 * its flush, every CPU still caching the alias is "exposed"; its TLB
 * entries are watched, and the window closes when the last level of that
 * CPU drops the entry (eviction, INVLPG, flush) or when the frame is
 * mapped again (the alias is legitimate once more).  While the frame stays
 * unmapped no CPU can fill a new entry for it (the walk faults), so every
 * stale entry is one that was watched at the unmap.
 *
 * Reuse hazard: a frame handed to a different owner while a CPU still
 * holds a stale translation of it [S65][S62].
 * Kmap windows: the time a user frame is kmapped, alias open to all CPUs.
 * Per-frame window statistics: frame_exposure.c.
 *
 * Left out: exposure an attacker can schedule, and ASI's speculative
 * exposure (docs/xpfo.md).
 */
#include "core/compiler.h"
#include "xpfo/xpfo.h"

static void window(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
		   uint64_t start)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];
	uint64_t now = nxsim__xpfo_now_ns(m);
	uint64_t len = now > start ? now - start : 0;

	c->exposures++;
	c->exposure_sum += len;
	c->exposure_max = MAX(c->exposure_max, len);
	m->orc.exposures++;
	m->orc.exposure_sum_ns += len;
	m->orc.exposure_max_ns = MAX(m->orc.exposure_max_ns, len);
	m->orc.exposures_open--;
	nxsim__frame_exp_close(m, pfn, len);
}

/**
 * nxsim__oracle_unmapped() - frame @pfn is unmapped and flushed as the
 * policy does; open a window on every CPU still holding its alias.
 *
 * Only the CPUs the reverse index lists (alias.c) can hold it; those
 * found without it leave the index.
 */
void nxsim__oracle_unmapped(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame *f = &m->frame[pfn];
	unsigned int i;

	if (f->holders)
		return; /* already watched since its unmap */
	nxsim__alias_gather(m, pfn, 1);
	for (i = nxsim__alias_next(m, 0); i < m->nr_cpus;
	     i = nxsim__alias_next(m, i + 1)) {
		if (nxsim__tlb_watch(m->tlb, i, nxsim__physmap_va(pfn), true)) {
			f->holders++;
			m->orc.exposures_open++;
			m->alias.seen[i / 64] &= ~(1ull << (i % 64));
		}
	}
	nxsim__alias_forget(m, pfn, true);
	if (f->holders) {
		f->stamp = nxsim__xpfo_now_ns(m);
		nxsim__frame_exp_open(m, pfn);
	}
}

/** nxsim__oracle_remapped() - the alias is valid again: close windows. */
void nxsim__oracle_remapped(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame *f = &m->frame[pfn];
	unsigned int i;

	if (!f->holders)
		return;
	nxsim__alias_gather(m, pfn, 1);
	for (i = nxsim__alias_next(m, 0); i < m->nr_cpus && f->holders;
	     i = nxsim__alias_next(m, i + 1)) {
		if (nxsim__tlb_watch(m->tlb, i, nxsim__physmap_va(pfn),
				     false)) {
			f->holders--;
			window(m, i, pfn, f->stamp);
		}
	}
	nxsim__alias_forget(m, pfn, false);
}

/* TLB callback: a watched alias left every level of @cpu. */
void nxsim__oracle_drop(void *ctx, unsigned int cpu, uint64_t va, uint64_t pfn)
{
	struct nxsim_xpfo *m = ctx;
	struct nxsim__frame *f = &m->frame[pfn];

	if (WARN_ON(!f->holders))
		return;
	f->holders--;
	window(m, cpu, pfn, f->stamp);
}

void nxsim__oracle_reuse(struct nxsim_xpfo *m, uint64_t pfn, uint8_t new_owner,
			 uint16_t new_domain)
{
	const struct nxsim__frame *f = &m->frame[pfn];

	if (f->holders &&
	    (new_owner != NXSIM_XPFO_USER || new_domain != f->domain))
		m->orc.reuse_hazards++;
}

void nxsim__oracle_kmap_open(struct nxsim_xpfo *m, uint64_t pfn)
{
	m->frame[pfn].stamp = nxsim__xpfo_now_ns(m);
}

void nxsim__oracle_kmap_close(struct nxsim_xpfo *m, uint64_t pfn)
{
	uint64_t now = nxsim__xpfo_now_ns(m), start = m->frame[pfn].stamp;
	uint64_t len = now > start ? now - start : 0;

	m->orc.kmap_windows++;
	m->orc.kmap_sum_ns += len;
	m->orc.kmap_max_ns = MAX(m->orc.kmap_max_ns, len);
}

void nxsim__oracle_fill(const struct nxsim_xpfo *m,
			struct nxsim_xpfo_oracle *out)
{
	*out = m->orc;
	out->exposure_mean_ns =
		out->exposures ? out->exposure_sum_ns / out->exposures : 0;
	out->kmap_mean_ns =
		out->kmap_windows ? out->kmap_sum_ns / out->kmap_windows : 0;
}
