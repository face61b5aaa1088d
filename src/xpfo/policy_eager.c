// SPDX-License-Identifier: GPL-2.0-only
/*
 * P1, immediate, all CPUs, per page: XPFO v6/v7 with xpfotlbflush [S5][S10]
 * call flush_tlb_kernel_range() on every unmap: IPI every CPU, INVLPG each
 * page, or a full flush everywhere above the 33-page ceiling [C4].
 */
#include "xpfo/xpfo.h"

void nxsim__xpfo_eager_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim_xpfo_policy_shootdown(m, cpu, NULL, va, pages);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_eager = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "eager",
	.flush = nxsim__xpfo_eager_flush,
};
