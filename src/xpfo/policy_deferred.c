// SPDX-License-Identifier: GPL-2.0-only
/*
 * P4a, deferred to context switch: XPFO v8/v9 (patch 12 [S16]).  The
 * initiator flushes locally now (range or full per the 33-page rule) and
 * marks every other CPU in pending_xpfo_flush; each of them does a full
 * flush at its next switch_mm_irqs_off() [S12][S20].
 */
#include "xpfo/xpfo.h"

void nxsim__xpfo_deferred_flush(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t va, uint64_t pages)
{
	nxsim__xpfo_local_flush(m, cpu, va, pages);
	nxsim_xpfo_policy_defer(m, cpu, NULL);
}

void nxsim__xpfo_pending_flush(struct nxsim_xpfo *m, unsigned int cpu)
{
	nxsim_xpfo_policy_run_pending(m, cpu);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_deferred = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "deferred",
	.flush = nxsim__xpfo_deferred_flush,
	.context_switch = nxsim__xpfo_pending_flush,
};
