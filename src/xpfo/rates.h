/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-1000-ownership-changes rates of an nxsim_xpfo_result, as
 * bench_xpfo_flush reports them and the driver's "xpfo result" answers
 * them (docs/bench.md): shootdowns (range and full), local flush
 * instructions (INVLPG, CR3, global), IPIs sent, IPI targets, broadcasts
 * (INVLPGB) and policy flushes.  An ownership change is an alloc or a free.
 *
 * Used by the benchmark suite and the nxsim driver, not by the library.
 *
 * Left out: the formats; each caller prints the rates its own way.
 */
#ifndef NXSIM_XPFO_RATES_H
#define NXSIM_XPFO_RATES_H

#include <math.h>

#include <nxsim/xpfo.h>

enum {
	XPFO_RATE_SHOOTDOWNS,
	XPFO_RATE_LOCAL_FLUSHES,
	XPFO_RATE_IPIS,
	XPFO_RATE_IPI_TARGETS,
	XPFO_RATE_BROADCASTS,
	XPFO_RATE_POLICY_FLUSHES,
	NR_XPFO_RATES
};

/* alloc and free: the transitions that change a frame's owner. */
static inline uint64_t
nxsim__xpfo_ownership_changes(const struct nxsim_xpfo_result *r)
{
	return r->xpfo.alloc_kernel + r->xpfo.alloc_user + r->xpfo.frees;
}

/* The key of rate @i, "<what>_per_1k". */
static inline const char *nxsim__xpfo_rate_name(unsigned int i)
{
	static const char *const names[NR_XPFO_RATES] = {
		[XPFO_RATE_SHOOTDOWNS] = "shootdowns_per_1k",
		[XPFO_RATE_LOCAL_FLUSHES] = "local_flushes_per_1k",
		[XPFO_RATE_IPIS] = "ipis_per_1k",
		[XPFO_RATE_IPI_TARGETS] = "ipi_targets_per_1k",
		[XPFO_RATE_BROADCASTS] = "broadcasts_per_1k",
		[XPFO_RATE_POLICY_FLUSHES] = "policy_flushes_per_1k",
	};

	return names[i];
}

/* Every rate of @r per 1000 ownership changes; NAN without changes. */
static inline void nxsim__xpfo_rates(const struct nxsim_xpfo_result *r,
				     double rate[NR_XPFO_RATES])
{
	const uint64_t n[NR_XPFO_RATES] = {
		[XPFO_RATE_SHOOTDOWNS] =
			r->tlb.range_flushes + r->tlb.full_flushes,
		[XPFO_RATE_LOCAL_FLUSHES] =
			r->tlb.invlpg + r->tlb.cr3_flush + r->tlb.global_flush,
		[XPFO_RATE_IPIS] = r->tlb.ipis_sent,
		[XPFO_RATE_IPI_TARGETS] = r->tlb.ipi_targets,
		[XPFO_RATE_BROADCASTS] = r->tlb.broadcasts,
		[XPFO_RATE_POLICY_FLUSHES] = r->xpfo.policy_flushes,
	};
	uint64_t ch = nxsim__xpfo_ownership_changes(r);
	unsigned int i;

	for (i = 0; i < NR_XPFO_RATES; i++)
		rate[i] = ch ? 1000.0 * (double)n[i] / (double)ch : NAN;
}

#endif /* NXSIM_XPFO_RATES_H */
