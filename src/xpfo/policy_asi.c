// SPDX-License-Identifier: GPL-2.0-only
/*
 * P6, ASI-like (Shahid 2022 RFC [S50][S55b]): flushes of restricted
 * mappings go by IPI only to CPUs currently in the kernel (in the
 * restricted address space); a CPU in user mode is marked and flushes on
 * its next entry (asi_enter's generation check).  Every user/kernel
 * transition costs asi_transition cycles.
 *
 * Left out: separate PCIDs per restricted space, non-global kernel entries
 * and the mitigation hooks (their cost is asi_transition's to carry).
 */
#include "xpfo/xpfo.h"

static void asi_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		      uint64_t pages)
{
	unsigned int i;

	for (i = 0; i < (m->nr_cpus + 63) / 64; i++)
		m->mask[i] = 0;
	for (i = 0; i < m->nr_cpus; i++) {
		if (i == cpu)
			continue;
		if (!m->cpu[i].user_mode) {
			m->mask[i / 64] |= 1ull << (i % 64);
		} else if (!m->cpu[i].pending) {
			m->cpu[i].pending = true;
			m->cpu[i].pending_set++;
		}
	}
	nxsim__xpfo_flush_cpus(m, cpu, m->mask, va, pages);
}

static void asi_enter(struct nxsim_xpfo *m, unsigned int cpu)
{
	nxsim__xpfo_charge_flush(m, cpu, m->cost.asi_transition);
	nxsim__xpfo_run_pending(m, cpu);
}

static void asi_exit(struct nxsim_xpfo *m, unsigned int cpu)
{
	nxsim__xpfo_charge_flush(m, cpu, m->cost.asi_transition);
}

const struct nxsim__xpfo_policy nxsim__xpfo_policy_asi = {
	.name = "asi",
	.flush = asi_flush,
	.kernel_enter = asi_enter,
	.kernel_exit = asi_exit,
};
