// SPDX-License-Identifier: GPL-2.0-only
/*
 * P7, hardware broadcast: P1's flush_tlb_kernel_range() done with
 * INVLPGB + TLBSYNC instead of IPIs, as kernel flushes do on AMD since
 * 2025 [S47][S48]; large-page splits broadcast too.  The machine's TLB is
 * created with broadcast set (nxsim_xpfo_create()), which is what makes
 * P1's flush broadcast.
 */
#include "xpfo/xpfo.h"

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_broadcast = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "broadcast",
	.flush = nxsim__xpfo_eager_flush,
	.broadcast = true,
};
