// SPDX-License-Identifier: GPL-2.0-only
/*
 * P4c, batched at refill plus deferred: XPFO v8/v9 patch 13 [S15][S38]:
 * movable pages are unmapped in bulk when the per-CPU freelist is refilled
 * (nxsim_xpfo_refill()), one flush per batch, local now and deferred to
 * the next context switch elsewhere.  The batch size is pcp->batch's order
 * of magnitude (assumption: 32).
 */
#include "xpfo/xpfo.h"

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_batched = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "batched",
	.flush = nxsim__xpfo_deferred_flush,
	.context_switch = nxsim__xpfo_pending_flush,
	.refill_batch = 32,
};
