// SPDX-License-Identifier: GPL-2.0-only
/*
 * The primitives a flush policy is built from (<nxsim/xpfo.h>,
 * docs/plugins.md): the checked public face of machine.c's flush helpers
 * (flush_tlb_kernel_range(), __flush_tlb_all(), INVLPG, v8/v9's
 * pending_xpfo_flush cpumask), a per-frame owed-flush bit, and the machine
 * state a policy reads.  They answer only while a hook of the machine's
 * policy runs (under the machine's lock), so that a policy from outside
 * the library cannot race the machine or reach it from elsewhere.
 */
#include <errno.h>

#include "core/compiler.h"
#include "xpfo/xpfo.h"

/* 0 if a hook of @m's policy runs and @cpu is a CPU of @m. */
static int check_cpu(const struct nxsim_xpfo *m, unsigned int cpu)
{
	if (!m)
		return -EINVAL;
	if (!m->in_policy)
		return -EPERM;
	return cpu < m->nr_cpus ? 0 : -EINVAL;
}

int nxsim_xpfo_policy_flush_local(struct nxsim_xpfo *m, unsigned int cpu,
				  uint64_t va, uint64_t pages)
{
	int rc = check_cpu(m, cpu);

	if (!rc)
		nxsim__xpfo_flush_local(m, cpu, va, pages);
	return rc;
}

bool nxsim_xpfo_policy_ranged(const struct nxsim_xpfo *m, uint64_t pages)
{
	return m && pages && nxsim__tlb_ranged(m->tlb, pages);
}

int nxsim_xpfo_policy_shootdown(struct nxsim_xpfo *m, unsigned int cpu,
				const uint64_t *mask, uint64_t va,
				uint64_t pages)
{
	int rc = check_cpu(m, cpu);

	if (!rc)
		nxsim__xpfo_flush_cpus(m, cpu, mask, va, pages);
	return rc;
}

int nxsim_xpfo_policy_defer(struct nxsim_xpfo *m, unsigned int cpu,
			    const uint64_t *mask)
{
	int rc = check_cpu(m, cpu);

	if (!rc)
		nxsim__xpfo_defer_others(m, cpu, mask);
	return rc;
}

int nxsim_xpfo_policy_run_pending(struct nxsim_xpfo *m, unsigned int cpu)
{
	int rc = check_cpu(m, cpu);

	return rc ? rc : nxsim__xpfo_run_pending(m, cpu);
}

int nxsim_xpfo_policy_charge(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t cycles)
{
	int rc = check_cpu(m, cpu);

	if (!rc)
		nxsim__xpfo_charge_flush(m, cpu, cycles);
	return rc;
}

int nxsim_xpfo_policy_owe(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr)
{
	int rc = check_cpu(m, 0);
	uint64_t i;

	if (rc)
		return rc;
	if (pfn >= m->nr_frames)
		return -EINVAL;
	for (i = 0; i < nr && pfn + i < m->nr_frames; i++)
		m->frame[pfn + i].flags |= FRAME_NEED_FLUSH;
	return 0;
}

int nxsim_xpfo_policy_take_owed(struct nxsim_xpfo *m, uint64_t pfn)
{
	int rc = check_cpu(m, 0);
	struct nxsim__frame *f;

	if (rc)
		return rc;
	if (pfn >= m->nr_frames)
		return -EINVAL;
	f = &m->frame[pfn];
	if (!(f->flags & FRAME_NEED_FLUSH))
		return 0;
	f->flags &= ~FRAME_NEED_FLUSH;
	return 1;
}

int nxsim_xpfo_policy_user_cpus(const struct nxsim_xpfo *m, uint64_t *mask)
{
	int rc = check_cpu(m, 0);
	unsigned int i;

	if (rc || !mask)
		return rc ? rc : -EINVAL;
	for (i = 0; i < DIV_ROUND_UP(m->nr_cpus, 64); i++)
		mask[i] = 0;
	for (i = 0; i < m->nr_cpus; i++)
		if (m->cpu[i].user_mode)
			mask[i / 64] |= 1ull << (i % 64);
	return 0;
}

int nxsim_xpfo_policy_cpu_domain(const struct nxsim_xpfo *m, unsigned int cpu)
{
	int rc = check_cpu(m, cpu);

	return rc ? rc : m->cpu[cpu].domain;
}

int nxsim_xpfo_policy_frame_domain(const struct nxsim_xpfo *m, uint64_t pfn)
{
	int rc = check_cpu(m, 0);

	if (rc)
		return rc;
	return pfn < m->nr_frames ? m->frame[pfn].domain : -EINVAL;
}

int nxsim_xpfo_policy_machine(const struct nxsim_xpfo *m, unsigned int *nr_cpus,
			      uint64_t *nr_frames,
			      const struct nxsim_xpfo_costs **costs)
{
	if (!m)
		return -EINVAL;
	if (nr_cpus)
		*nr_cpus = m->nr_cpus;
	if (nr_frames)
		*nr_frames = m->nr_frames;
	if (costs)
		*costs = &m->cost;
	return 0;
}

uint64_t *nxsim_xpfo_policy_cpumask(struct nxsim_xpfo *m)
{
	return m && m->in_policy ? m->mask : NULL;
}

void *nxsim_xpfo_policy_data(const struct nxsim_xpfo *m)
{
	return m ? m->policy_data : NULL;
}
