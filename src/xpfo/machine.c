// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XPFO machine: creation, the cycle accounting of each CPU's timeline,
 * the flush helpers policies are built from (the shapes of
 * flush_tlb_kernel_range(), __flush_tlb_all() and v8/v9's
 * pending_xpfo_flush cpumask), and the locked public entry points.
 *
 * Time: each CPU has a timeline in cycles; an event adds its cost to the
 * timeline of the CPU it runs on, and an IPI adds the handler's cost to
 * each target's timeline.  "Now" is the machine's clock if it was given
 * one, else the largest timeline.  An IPI to every CPU is charged to all
 * at once, into a share of cycles every CPU has (struct nxsim__xpfo_cpu),
 * and a max tree of the CPUs' own shares keeps the largest timeline, so
 * that neither costs the simulator a visit of every CPU.
 *
 * Left out: real parallelism between CPUs (calls are serialised by the
 * machine lock; the per-frame xpfo_lock bit is taken around every map and
 * unmap as mm/xpfo.c does, and is never contended under it).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <nxsim/xpfo.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "core/detail.h"
#include "xpfo/xpfo.h"

static const char *const default_policy[] = {
	[NXSIM_XPFO_V6] = "eager",
	[NXSIM_XPFO_V7] = "none",
	[NXSIM_XPFO_V8] = "deferred",
	[NXSIM_XPFO_V9] = "batched",
};

/*
 * @cpu's share of cycles grew: raise its leaf of the max tree, and each
 * node above while it stays the largest there.  The two lowest levels
 * are raised with a conditional move, no branch: whether a charge leads
 * its pair or its four there depends on the order of the events, and on
 * a stream of events on CPUs in no set order (xpfo_events.no_xpfo) the
 * loop's exit mispredicted about once a charge.  Higher, a charge rarely
 * leads, and the loop stops at its first node.
 */
static void top_raise(struct nxsim_xpfo *m, unsigned int cpu)
{
	int64_t v = nxsim__xpfo_cycles_key(m, cpu), *top = m->top;
	unsigned int i = m->leaves + cpu, k;

	top[i] = v;
	for (k = 0, i /= 2; k < 2 && i; k++, i /= 2)
		top[i] = MAX(top[i], v);
	for (; i && top[i] < v; i /= 2)
		top[i] = v;
}

/* @cpu's share shrank: recompute each node above its leaf. */
static void top_lower(struct nxsim_xpfo *m, unsigned int cpu)
{
	unsigned int i = m->leaves + cpu;

	m->top[i] = nxsim__xpfo_cycles_key(m, cpu);
	for (i /= 2; i; i /= 2)
		m->top[i] = MAX(m->top[2 * i], m->top[2 * i + 1]);
}

void nxsim__xpfo_charge(struct nxsim_xpfo *m, unsigned int cpu, uint64_t cycles)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	c->cycles += cycles;
	c->kcycles += cycles;
	top_raise(m, cpu);
}

void nxsim__xpfo_charge_flush(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t cycles)
{
	m->cpu[cpu].flush_cycles += cycles;
	nxsim__xpfo_charge(m, cpu, cycles);
}

/*
 * nxsim__xpfo_charge_flush() of @cycles to every CPU but @cpu, at once:
 * into the machine's share, and out of @cpu's (modulo 2^64; every figure
 * is a sum of the two).
 */
void nxsim__xpfo_charge_others(struct nxsim_xpfo *m, unsigned int cpu,
			       uint64_t cycles)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	if (m->nr_cpus == 1)
		return;
	m->all_cycles += cycles;
	c->cycles -= cycles;
	c->kcycles -= cycles;
	c->flush_cycles -= cycles;
	top_lower(m, cpu);
}

void nxsim__xpfo_user_work(struct nxsim_xpfo *m, unsigned int cpu,
			   uint64_t cycles)
{
	m->cpu[cpu].cycles += cycles;
	top_raise(m, cpu);
}

/* The largest timeline. */
static uint64_t now_cycles(const struct nxsim_xpfo *m)
{
	return (uint64_t)m->top[1] + m->all_cycles;
}

uint64_t nxsim__xpfo_now_ns(const struct nxsim_xpfo *m)
{
	if (m->clock)
		return nxsim_clock_now(m->clock);
	return now_cycles(m) * 1000 / m->cpu_mhz;
}

static uint64_t flush_cost(const struct nxsim_xpfo *m, uint64_t pages)
{
	if (pages && nxsim__tlb_ranged(m->tlb, pages))
		return pages * m->cost.invlpg;
	return m->cost.global_flush;
}

void nxsim__xpfo_flush_local(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim__tlb_flush_one_cpu(m->tlb, cpu, va, pages, !pages);
	if (!pages)
		m->filled[cpu / 64] &= ~(1ull << (cpu % 64)); /* empty now */
	nxsim__xpfo_charge_flush(
		m, cpu, pages ? pages * m->cost.invlpg : m->cost.global_flush);
}

static bool in_mask(const uint64_t *mask, unsigned int cpu)
{
	return !mask || (mask[cpu / 64] >> (cpu % 64) & 1);
}

/*
 * The frames [*@pfn, *@pfn + *@nr) whose physmap pages a kernel range
 * flush of [@start, @end) INVLPGs, if they are all frames of @m.
 */
static bool physmap_frames(const struct nxsim_xpfo *m, uint64_t start,
			   uint64_t end, uint64_t *pfn, uint64_t *nr)
{
	uint64_t base = NXSIM_XPFO_PAGE_OFFSET;

	if (start < base || end <= start ||
	    (end - base - 1) >> NXSIM_TLB_SHIFT_4K >= m->nr_frames)
		return false;
	*pfn = (start - base) >> NXSIM_TLB_SHIFT_4K;
	*nr = ((end - base - 1) >> NXSIM_TLB_SHIFT_4K) - *pfn + 1;
	return true;
}

/*
 * flush_tlb_kernel_range().  A flush to every CPU runs only where it can
 * find something: a range inside the physmap on the CPUs the reverse index
 * says may hold it (alias.c), a full flush on the CPUs filled since the
 * last one (@filled); the others' INVLPGs or full flushes, IPIs and cycles
 * are counted all the same (nxsim__flush_tlb_kernel_range_held(),
 * nxsim__xpfo_charge_others()).
 */
void nxsim__xpfo_flush_cpus(struct nxsim_xpfo *m, unsigned int cpu,
			    const uint64_t *mask, uint64_t va, uint64_t pages)
{
	uint64_t per_cpu = flush_cost(m, pages), start = va, end, pfn, nr;
	bool full = !pages || !nxsim__tlb_ranged(m->tlb, pages);
	unsigned int i, targets;

	if (!full) {
		end = va + (pages << NXSIM_TLB_SHIFT_4K);
	} else {
		start = 0;
		end = UINT64_MAX;
	}
	if (!mask && full) {
		targets = nxsim__flush_tlb_kernel_range_held(
			m->tlb, cpu, m->filled, start, end);
		memset(m->filled, 0,
		       DIV_ROUND_UP(m->nr_cpus, 64) * sizeof(*m->filled));
	} else if (!mask && physmap_frames(m, start, end, &pfn, &nr) &&
		   nxsim__tlb_ranged(m->tlb, nr)) {
		nxsim__alias_gather(m, pfn, nr);
		targets = nxsim__flush_tlb_kernel_range_held(
			m->tlb, cpu, m->alias.seen, start, end);
		nxsim__alias_forget(m, pfn, false);
		nxsim__alias_flushed(m, pfn, nr);
	} else {
		targets = nxsim__flush_tlb_kernel_range(m->tlb, cpu, mask,
							start, end);
	}
	if (m->tlb->broadcast) {
		nxsim__xpfo_charge_flush(
			m, cpu, per_cpu + m->cost.invlpgb + m->cost.tlbsync);
		return;
	}
	if (!mask)
		nxsim__xpfo_charge_others(m, cpu, m->cost.ipi_recv + per_cpu);
	else
		for (i = 0; i < m->nr_cpus; i++)
			if (i != cpu && in_mask(mask, i))
				nxsim__xpfo_charge_flush(
					m, i, m->cost.ipi_recv + per_cpu);
	nxsim__xpfo_charge_flush(
		m, cpu,
		per_cpu + (targets ? m->cost.ipi_first +
					     (uint64_t)(targets - 1) *
						     m->cost.ipi_extra :
				     0));
}

void nxsim__xpfo_defer_others(struct nxsim_xpfo *m, unsigned int cpu,
			      const uint64_t *mask)
{
	unsigned int i;

	for (i = 0; i < m->nr_cpus; i++) {
		if (i == cpu || m->cpu[i].pending || !in_mask(mask, i))
			continue;
		m->cpu[i].pending = true;
		m->cpu[i].pending_set++;
	}
}

bool nxsim__xpfo_run_pending(struct nxsim_xpfo *m, unsigned int cpu)
{
	struct nxsim__xpfo_cpu *c = &m->cpu[cpu];

	if (!c->pending)
		return false;
	c->pending = false;
	c->pending_done++;
	nxsim__xpfo_flush_local(m, cpu, 0, 0);
	return true;
}

/* Creation. */

/* Bytes of the physmap's split bitmaps: one bit per 1G and per 2M region. */
static size_t split_1g_bytes(uint64_t nr_frames)
{
	return bitstr_size(DIV_ROUND_UP(nr_frames, 1ull << 18));
}

static size_t split_2m_bytes(uint64_t nr_frames)
{
	return bitstr_size(DIV_ROUND_UP(nr_frames, 1ull << 9));
}

static void free_machine(struct nxsim_xpfo *m)
{
	nxsim_tlb_destroy(m->tlb);
	nxsim__alias_free(m);
	nxsim__free(m->top, 2 * m->leaves * sizeof(*m->top));
	nxsim__frame_exp_free(m);
	nxsim__free(m->frame, m->nr_frames * sizeof(*m->frame));
	nxsim__free(m->split_1g, split_1g_bytes(m->nr_frames));
	nxsim__free(m->split_2m, split_2m_bytes(m->nr_frames));
	nxsim__free_aligned(m->cpu, m->nr_cpus * sizeof(*m->cpu),
			    SMP_CACHE_BYTES);
	nxsim__free(m->mask, DIV_ROUND_UP(m->nr_cpus, 64) * sizeof(uint64_t));
	nxsim__free(m->filled, DIV_ROUND_UP(m->nr_cpus, 64) * sizeof(uint64_t));
	nxsim__free(m, sizeof(*m));
}

int nxsim_xpfo_create(const struct nxsim_xpfo_config *cfg,
		      struct nxsim_xpfo **mp)
{
	const struct nxsim_xpfo_policy_ops *policy;
	struct nxsim_tlb_config tcfg;
	struct nxsim_xpfo *m;
	unsigned int i;
	int rc;

	if (!cfg || !mp)
		return -EINVAL;
	if (!cfg->nr_cpus || cfg->nr_cpus > NXSIM_TLB_MAX_CPUS)
		return nxsim__fail(-EINVAL,
				   "nr_cpus %u: a machine has 1 to %d CPUs",
				   cfg->nr_cpus, NXSIM_TLB_MAX_CPUS);
	if (!cfg->nr_frames || cfg->nr_frames > NXSIM_XPFO_MAX_FRAMES)
		return nxsim__fail(-EINVAL,
				   "nr_frames %" PRIu64
				   ": a machine has 1 to %" PRIu64 " frames",
				   cfg->nr_frames,
				   (uint64_t)NXSIM_XPFO_MAX_FRAMES);
	if ((unsigned int)cfg->version > NXSIM_XPFO_V9)
		return nxsim__fail(-EINVAL,
				   "version %d is not NXSIM_XPFO_V6 (0) to "
				   "NXSIM_XPFO_V9 (3)",
				   (int)cfg->version);
	if (cfg->tlb.nr_cpus && cfg->tlb.nr_cpus != cfg->nr_cpus)
		return nxsim__fail(-EINVAL,
				   "the TLB has %u CPUs, the machine %u",
				   cfg->tlb.nr_cpus, cfg->nr_cpus);
	policy = nxsim__xpfo_policy_find(
		cfg->policy ? cfg->policy : default_policy[cfg->version]);
	if (!policy)
		return -ENOENT;
	if (cfg->tlb.nr_cpus)
		tcfg = cfg->tlb;
	else
		nxsim_tlb_config_default(&tcfg, cfg->nr_cpus);
	/* P7 is a machine with INVLPGB: every kernel flush broadcasts. */
	tcfg.broadcast |= policy->broadcast;
	if (cfg->clock && nxsim_clock_mode(cfg->clock) != NXSIM_CLOCK_VIRTUAL)
		return -EINVAL;

	m = nxsim__zalloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->nr_cpus = cfg->nr_cpus;
	m->nr_frames = cfg->nr_frames;
	m->version = cfg->version;
	m->disabled = cfg->disabled;
	m->policy = policy;
	if (cfg->costs)
		m->cost = *cfg->costs;
	else
		nxsim_xpfo_costs_default(&m->cost);
	m->cpu_mhz = cfg->cpu_mhz ? cfg->cpu_mhz : 3000;
	rc = nxsim_tlb_create(&tcfg, &m->tlb);
	if (rc) {
		nxsim__free(m, sizeof(*m));
		return rc;
	}
	m->tlb->drop = nxsim__oracle_drop;
	m->tlb->drop_ctx = m;
	m->tlb->fill_log = true; /* every fill is the machine's (cpu.c) */
	m->frame = nxsim__calloc(m->nr_frames, sizeof(*m->frame));
	m->split_1g = nxsim__zalloc(split_1g_bytes(m->nr_frames));
	m->split_2m = nxsim__zalloc(split_2m_bytes(m->nr_frames));
	m->cpu = nxsim__zalloc_aligned(m->nr_cpus * sizeof(*m->cpu),
				       SMP_CACHE_BYTES);
	m->mask = nxsim__calloc(DIV_ROUND_UP(m->nr_cpus, 64), sizeof(uint64_t));
	m->filled =
		nxsim__calloc(DIV_ROUND_UP(m->nr_cpus, 64), sizeof(uint64_t));
	m->leaves = roundup_pow_of_two(m->nr_cpus);
	m->top = nxsim__calloc(2 * m->leaves, sizeof(*m->top));
	if (!m->frame || !m->split_1g || !m->split_2m || !m->cpu || !m->mask ||
	    !m->filled || !m->top || nxsim__alias_init(m)) {
		free_machine(m);
		return -ENOMEM;
	}
	/* Leaves past the last CPU never win; every share starts at 0. */
	for (i = m->nr_cpus; i < m->leaves; i++)
		m->top[m->leaves + i] = INT64_MIN;
	for (i = m->leaves - 1; i; i--)
		m->top[i] = MAX(m->top[2 * i], m->top[2 * i + 1]);
	rc = policy->init ? policy->init(m, &m->policy_data) : 0;
	if (rc) {
		free_machine(m);
		return rc < 0 ? rc : -EINVAL;
	}
	if (cfg->clock) {
		m->clock = cfg->clock;
		nxsim__clock_get(m->clock);
	}
	pthread_mutex_init(&m->lock, NULL);
	*mp = m;
	return 0;
}

int nxsim_xpfo_memory(struct nxsim_xpfo *m, struct nxsim_xpfo_memory *mem)
{
	if (!m || !mem)
		return -EINVAL;
	mem->frame_table = m->nr_frames * sizeof(*m->frame);
	mem->physmap =
		split_1g_bytes(m->nr_frames) + split_2m_bytes(m->nr_frames);
	return 0;
}

int nxsim_xpfo_destroy(struct nxsim_xpfo *m)
{
	if (!m)
		return -EINVAL;
	if (m->clock)
		nxsim__clock_put(m->clock);
	pthread_mutex_destroy(&m->lock);
	if (m->policy->fini)
		m->policy->fini(m, m->policy_data);
	free_machine(m);
	return 0;
}

struct nxsim_tlb *nxsim_xpfo_tlb(const struct nxsim_xpfo *m)
{
	return m ? m->tlb : NULL;
}

int64_t nxsim_xpfo_tlb_dump(struct nxsim_xpfo *m, unsigned int cpu,
			    nxsim_tlb_dump_fn fn, void *ctx)
{
	int rc;

	if (!m || cpu >= m->nr_cpus || !fn)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	rc = nxsim__tlb_dump(m->tlb, cpu, fn, ctx);
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* Results. */

void nxsim__xpfo_result(struct nxsim_xpfo *m, struct nxsim_xpfo_result *res)
{
	unsigned int i;

	memset(res, 0, sizeof(*res));
	res->xpfo = m->st;
	nxsim__oracle_fill(m, &res->oracle);
	res->events = m->events;
	nxsim__tlb_stats_sum(m->tlb, &res->tlb);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct nxsim__xpfo_cpu *c = &m->cpu[i];

		res->kernel_cycles += c->kcycles + m->all_cycles;
		res->user_cycles += c->cycles - c->kcycles;
		res->flush_cycles += c->flush_cycles + m->all_cycles;
	}
	res->makespan_cycles = now_cycles(m);
}

int nxsim_xpfo_result(struct nxsim_xpfo *m, struct nxsim_xpfo_result *res)
{
	if (!m || !res)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	nxsim__xpfo_result(m, res);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* Events per 1000 ownership changes; NAN without changes. */
static double per_1k(uint64_t n, uint64_t changes)
{
	return changes ? 1000.0 * (double)n / (double)changes : NAN;
}

int nxsim_xpfo_rates(const struct nxsim_xpfo_result *res,
		     struct nxsim_xpfo_rates *rates)
{
	const struct nxsim_tlb_stats *t;
	uint64_t ch;

	if (!res || !rates)
		return -EINVAL;
	t = &res->tlb;
	ch = res->xpfo.alloc_kernel + res->xpfo.alloc_user + res->xpfo.frees;
	*rates = (struct nxsim_xpfo_rates){
		.ownership_changes = ch,
		.shootdowns_per_1k =
			per_1k(t->range_flushes + t->full_flushes, ch),
		.local_flushes_per_1k =
			per_1k(t->invlpg + t->cr3_flush + t->global_flush, ch),
		.ipis_per_1k = per_1k(t->ipis_sent, ch),
		.ipi_targets_per_1k = per_1k(t->ipi_targets, ch),
		.broadcasts_per_1k = per_1k(t->broadcasts, ch),
		.policy_flushes_per_1k = per_1k(res->xpfo.policy_flushes, ch),
	};
	return 0;
}

int nxsim_xpfo_frame(struct nxsim_xpfo *m, uint64_t pfn,
		     struct nxsim_xpfo_frame_info *info)
{
	const struct nxsim__frame *f;

	if (!m || !info || pfn >= m->nr_frames)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	f = &m->frame[pfn];
	/* Field by field on zeroes: callers may memcmp two of these. */
	memset(info, 0, sizeof(*info));
	info->owner = f->owner;
	info->domain = f->domain;
	info->user = f->flags & FRAME_USER;
	info->unmapped = f->flags & FRAME_UNMAPPED;
	info->kmap_count = f->kmap_count;
	info->physmap_shift = (uint8_t)nxsim__physmap_shift(m, pfn);
	info->stale_cpus = f->holders;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int nxsim_xpfo_cpu(struct nxsim_xpfo *m, unsigned int cpu,
		   struct nxsim_xpfo_cpu_info *info)
{
	const struct nxsim__xpfo_cpu *c;

	if (!m || !info || cpu >= m->nr_cpus)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	c = &m->cpu[cpu];
	*info = (struct nxsim_xpfo_cpu_info){
		.domain = c->domain,
		.user_mode = c->user_mode,
		.pending_flush = c->pending,
		.context_switches = c->context_switches,
		.kernel_entries = c->kernel_entries,
		.pending_set = c->pending_set,
		.pending_done = c->pending_done,
		.cycles = nxsim__xpfo_cycles(m, cpu),
		.kernel_cycles = c->kcycles + m->all_cycles,
		.exposures = c->exposures,
		.exposure_max_ns = c->exposure_max,
		.exposure_sum_ns = c->exposure_sum,
	};
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* Locked public event calls: check the machine and CPU, then run. */

#define LOCKED(m, cpu, call)                       \
	({                                         \
		int __rc;                          \
		if (!(m) || (cpu) >= (m)->nr_cpus) \
			return -EINVAL;            \
		pthread_mutex_lock(&(m)->lock);    \
		__rc = (call);                     \
		if (!__rc)                         \
			(m)->events++;             \
		pthread_mutex_unlock(&(m)->lock);  \
		__rc;                              \
	})

int nxsim_xpfo_alloc_kernel(struct nxsim_xpfo *m, unsigned int cpu,
			    uint64_t pfn)
{
	return LOCKED(m, cpu, nxsim__xpfo_alloc_pages_kernel(m, cpu, pfn));
}

int nxsim_xpfo_alloc_user(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
			  uint16_t domain, unsigned int flags)
{
	return LOCKED(m, cpu,
		      nxsim__xpfo_alloc_pages_user(m, cpu, pfn, domain, flags));
}

int nxsim_xpfo_free(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	return LOCKED(m, cpu, nxsim__xpfo_free_pages(m, cpu, pfn));
}

int nxsim_xpfo_kmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	return LOCKED(m, cpu, nxsim__xpfo_kmap(m, cpu, pfn));
}

int nxsim_xpfo_kunmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	return LOCKED(m, cpu, nxsim__xpfo_kunmap(m, cpu, pfn));
}

int nxsim_xpfo_refill(struct nxsim_xpfo *m, unsigned int cpu,
		      const uint64_t *pfns, unsigned int n)
{
	return LOCKED(m, cpu, nxsim__xpfo_refill(m, cpu, pfns, n));
}

/*
 * An access with its hint just before it: the frame's record, read only
 * after the TLB's lookup, loads while the lookup's sets do (on a machine
 * of many CPUs both miss the host's caches).
 */
static int kernel_access_hinted(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t pfn, bool write,
				enum nxsim_xpfo_access *what)
{
	nxsim__xpfo_prefetch_access(m, cpu, pfn);
	return nxsim__xpfo_kernel_access(m, cpu, pfn, write, what);
}

int nxsim_xpfo_kernel_access(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t pfn, bool write,
			     enum nxsim_xpfo_access *what)
{
	return LOCKED(m, cpu, kernel_access_hinted(m, cpu, pfn, write, what));
}

int nxsim_xpfo_user_access(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
			   bool write)
{
	return LOCKED(m, cpu, nxsim__xpfo_user_access(m, cpu, pfn, write));
}

int nxsim_xpfo_context_switch(struct nxsim_xpfo *m, unsigned int cpu,
			      uint16_t domain)
{
	return LOCKED(m, cpu, nxsim__xpfo_context_switch(m, cpu, domain));
}

int nxsim_xpfo_kernel_enter(struct nxsim_xpfo *m, unsigned int cpu)
{
	return LOCKED(m, cpu, nxsim__xpfo_kernel_enter(m, cpu));
}

int nxsim_xpfo_kernel_exit(struct nxsim_xpfo *m, unsigned int cpu)
{
	return LOCKED(m, cpu, nxsim__xpfo_kernel_exit(m, cpu));
}
