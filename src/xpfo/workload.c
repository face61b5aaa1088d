// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seeded synthetic workloads, and the one call that runs a workload with
 * XPFO and without it and compares (docs/xpfo.md).
 *
 * Every CPU runs its own stream: its own generator (seeded from the run's
 * seed and the CPU id), its own slice of the frames (a LIFO free list, as
 * the per-CPU page lists hand out hot pages first), its own KFRAMES (512)
 * kernel frames, 2 MiB of slab whose physmap TLB reach XPFO's splits
 * shrink, and DOMAINS user domains (processes) with up to DOMAIN_PAGES
 * pages each.  Streams never share state, so the events each CPU runs are
 * the same with and without XPFO; only their costs, and so the
 * interleaving in time, differ.  Steps run in timeline order: always the
 * CPU whose timeline is earliest (ties: lowest id), which makes IPIs land
 * on the CPU at the right point of its timeline.
 *
 * Workloads (the mix of steps, percent):
 *   compile: user work 40, page fault (alloc + zero through kmap) 15,
 *	free 8, syscall touching kernel objects 15, kernel object churn 5,
 *	read() into a user page through kmap 7, context switch 5, and 5 of
 *	syscalls that also probe, through the physmap, a page of a random
 *	process or the next free frame of a random CPU (the attacker of
 *	[S17]; which frame it finds depends on the other CPUs' progress,
 *	so on timing);
 *   io: user work 20, read()/write() through kmap 45, syscall 15, page
 *	fault 8, free 5, context switch 5, probe 2;
 *   fork: user work 35, fork (8 pages copied, both through kmap) 15,
 *	exit (all pages of a process freed) 5, syscall 20, page fault 10,
 *	context switch 10, probe 5.
 *
 * With a batching policy (P4c) on v8/v9, user frames come from per-CPU
 * batches unmapped by nxsim_xpfo_refill().
 */
#include <errno.h>
#include <string.h>

#include <nxsim/rng.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "core/names.h"
#include "xpfo/xpfo.h"

#define KFRAMES 512
#define DOMAINS 4
#define DOMAIN_PAGES 64
#define FORK_PAGES 8

enum step {
	S_USER,
	S_FAULT,
	S_FREE,
	S_SYSCALL,
	S_KCHURN,
	S_READ,
	S_SWITCH,
	S_PROBE,
	S_FORK,
	S_EXIT,
	NR_STEPS
};

struct workload {
	const char *name;
	uint8_t mix[NR_STEPS]; /* percent */
};

static const struct workload workloads[] = {
	{ "compile",
	  { [S_USER] = 40,
	    [S_FAULT] = 15,
	    [S_FREE] = 8,
	    [S_SYSCALL] = 15,
	    [S_KCHURN] = 5,
	    [S_READ] = 7,
	    [S_SWITCH] = 5,
	    [S_PROBE] = 5 } },
	{ "io",
	  { [S_USER] = 20,
	    [S_READ] = 45,
	    [S_SYSCALL] = 15,
	    [S_FAULT] = 8,
	    [S_FREE] = 5,
	    [S_SWITCH] = 5,
	    [S_PROBE] = 2 } },
	{ "fork",
	  { [S_USER] = 35,
	    [S_FORK] = 15,
	    [S_EXIT] = 5,
	    [S_SYSCALL] = 20,
	    [S_FAULT] = 10,
	    [S_SWITCH] = 10,
	    [S_PROBE] = 5 } },
};

/*
 * Each struct with what every step reads first, in its first cache line
 * (each CPU's struct wl_cpu starts one).  The frames a CPU picks from at
 * random are kept in 32 bits (every frame number is below
 * NXSIM_XPFO_MAX_FRAMES, 2^32): on a machine of many CPUs each pick is a
 * host cache miss, and half the bytes are half the lines.
 */
struct wl_domain {
	unsigned int n;
	uint32_t page[DOMAIN_PAGES];
};

struct wl_cpu {
	struct nxsim_rng rng;
	uint64_t *free; /* LIFO of free frames */
	uint64_t nfree;
	uint64_t left; /* steps to go */
	unsigned int cur;
	unsigned int nbatch;
	uint64_t batch[64]; /* refilled, unmapped frames (P4c) */
	uint32_t kframe[KFRAMES];
	struct wl_domain dom[DOMAINS];
} ____cacheline_aligned;

struct wl_run {
	struct nxsim_xpfo *m;
	const struct workload *w;
	struct wl_cpu *cpu;
	unsigned int nr_cpus;
	uint64_t per_cpu;   /* frames per CPU */
	unsigned int batch; /* refill batch, 0: none */
};

#define CALL(r, x)                   \
	({                           \
		int __rc = (x);      \
		if (__rc)            \
			return __rc; \
		(r)->m->events++;    \
	})

static uint16_t domain_id(unsigned int cpu, unsigned int d)
{
	return (uint16_t)(cpu * DOMAINS + d + 1);
}

static int get_user_frame(struct wl_run *r, unsigned int cpu, uint64_t *pfn)
{
	struct wl_cpu *c = &r->cpu[cpu];

	if (!r->batch) {
		if (!c->nfree)
			return -ENOSPC;
		*pfn = c->free[--c->nfree];
		return 0;
	}
	if (!c->nbatch) {
		unsigned int n = (unsigned int)MIN(r->batch, c->nfree);

		if (!n)
			return -ENOSPC;
		c->nfree -= n;
		memcpy(c->batch, c->free + c->nfree, n * sizeof(uint64_t));
		c->nbatch = n;
		CALL(r, nxsim__xpfo_refill(r->m, cpu, c->batch, n));
	}
	*pfn = c->batch[--c->nbatch];
	return 0;
}

static int free_page(struct wl_run *r, unsigned int cpu, struct wl_domain *d,
		     unsigned int i)
{
	struct wl_cpu *c = &r->cpu[cpu];
	uint64_t pfn = d->page[i];

	CALL(r, nxsim__xpfo_free_pages(r->m, cpu, pfn));
	d->page[i] = d->page[--d->n];
	c->free[c->nfree++] = pfn;
	return 0;
}

/* A user page for domain @d, zeroed (or copied into) through kmap. */
static int fault_in(struct wl_run *r, unsigned int cpu, struct wl_domain *d,
		    uint16_t id, const uint64_t *copy_from)
{
	struct wl_cpu *c = &r->cpu[cpu];
	uint64_t pfn;
	int rc;

	if (d->n == DOMAIN_PAGES) {
		rc = free_page(r, cpu, d,
			       (unsigned int)nxsim_rng_below(&c->rng, d->n));
		if (rc)
			return rc;
	}
	rc = get_user_frame(r, cpu, &pfn);
	if (rc)
		return rc;
	nxsim__xpfo_prefetch_access(r->m, cpu, pfn);
	if (copy_from)
		nxsim__xpfo_prefetch_access(r->m, cpu, *copy_from);
	CALL(r, nxsim__xpfo_alloc_pages_user(r->m, cpu, pfn, id,
					     NXSIM_XPFO_WILL_MAP));
	d->page[d->n++] = (uint32_t)pfn;
	if (copy_from)
		CALL(r, nxsim__xpfo_kmap(r->m, cpu, *copy_from));
	CALL(r, nxsim__xpfo_kmap(r->m, cpu, pfn));
	if (copy_from)
		CALL(r, nxsim__xpfo_kernel_access(r->m, cpu, *copy_from, false,
						  NULL));
	CALL(r, nxsim__xpfo_kernel_access(r->m, cpu, pfn, true, NULL));
	nxsim__xpfo_charge(r->m, cpu, r->m->cost.page_zero);
	CALL(r, nxsim__xpfo_kunmap(r->m, cpu, pfn));
	if (copy_from)
		CALL(r, nxsim__xpfo_kunmap(r->m, cpu, *copy_from));
	return 0;
}

static int kernel_step(struct wl_run *r, unsigned int cpu, enum step s)
{
	struct wl_cpu *c = &r->cpu[cpu];
	struct wl_domain *d = &c->dom[c->cur];
	uint64_t pfn;
	unsigned int i;
	int rc;

	switch (s) {
	case S_FAULT:
		return fault_in(r, cpu, d, domain_id(cpu, c->cur), NULL);
	case S_FREE:
		if (!d->n)
			return 0;
		return free_page(r, cpu, d,
				 (unsigned int)nxsim_rng_below(&c->rng, d->n));
	case S_PROBE:
	case S_SYSCALL: {
		/*
		 * A probe: the attacker of [S17] (ret2dir spraying [S0]) reads,
		 * through the physmap, either a page of some process on any
		 * CPU or the next free frame some CPU will hand out (so its
		 * alias is cached before the frame becomes a user page).  Raw
		 * draws, a fixed number, so the stream does not depend on the
		 * other CPUs' state.  Then the syscall.  The frames first,
		 * then the accesses (which draw nothing from the CPU's
		 * generator, nor change any CPU's frames): each access's
		 * lookup is hinted before the first runs.
		 */
		uint64_t kf[4];
		unsigned int n = 0;

		if (s == S_PROBE) {
			unsigned int oc =
				(unsigned int)(nxsim_rng_next(&c->rng) %
					       r->nr_cpus);
			const struct wl_cpu *o = &r->cpu[oc];
			const struct wl_domain *od =
				&o->dom[nxsim_rng_next(&c->rng) % DOMAINS];
			uint64_t x = nxsim_rng_next(&c->rng);

			if (x & 1) {
				if (o->nfree)
					kf[n++] = o->free[o->nfree - 1];
			} else if (od->n) {
				kf[n++] = od->page[(x >> 1) % od->n];
			}
		}
		for (i = n; i < n + 3; i++)
			kf[i] = c->kframe[nxsim_rng_below(&c->rng, KFRAMES)];
		for (i = 0; i < n + 3; i++)
			nxsim__xpfo_prefetch_access(r->m, cpu, kf[i]);
		/* the probe reads; the syscall's last access writes */
		for (i = 0; i < n + 3; i++)
			CALL(r, nxsim__xpfo_kernel_access(r->m, cpu, kf[i],
							  i == n + 2, NULL));
		return 0;
	}
	case S_KCHURN:
		i = (unsigned int)nxsim_rng_below(&c->rng, KFRAMES);
		if (!c->nfree)
			return -ENOSPC;
		pfn = c->free[--c->nfree];
		nxsim__xpfo_prefetch_access(r->m, cpu, pfn);
		nxsim__xpfo_prefetch_access(r->m, cpu, c->kframe[i]);
		CALL(r, nxsim__xpfo_alloc_pages_kernel(r->m, cpu, pfn));
		CALL(r, nxsim__xpfo_free_pages(r->m, cpu, c->kframe[i]));
		c->free[c->nfree++] = c->kframe[i];
		c->kframe[i] = (uint32_t)pfn;
		CALL(r, nxsim__xpfo_kernel_access(r->m, cpu, pfn, true, NULL));
		return 0;
	case S_READ:
		if (!d->n)
			return 0;
		pfn = d->page[nxsim_rng_below(&c->rng, d->n)];
		nxsim__xpfo_prefetch_access(r->m, cpu, pfn);
		CALL(r, nxsim__xpfo_kmap(r->m, cpu, pfn));
		CALL(r, nxsim__xpfo_kernel_access(r->m, cpu, pfn, true, NULL));
		CALL(r, nxsim__xpfo_kunmap(r->m, cpu, pfn));
		return 0;
	case S_SWITCH:
		c->cur = (c->cur + 1 +
			  (unsigned int)nxsim_rng_below(&c->rng, DOMAINS - 1)) %
			 DOMAINS;
		CALL(r, nxsim__xpfo_context_switch(r->m, cpu,
						   domain_id(cpu, c->cur)));
		return 0;
	case S_FORK: {
		unsigned int child = (c->cur + 1) % DOMAINS;

		for (i = 0; i < FORK_PAGES && d->n; i++) {
			uint64_t src = d->page[nxsim_rng_below(&c->rng, d->n)];

			rc = fault_in(r, cpu, &c->dom[child],
				      domain_id(cpu, child), &src);
			if (rc)
				return rc;
		}
		return 0;
	}
	case S_EXIT:
		while (d->n) {
			rc = free_page(r, cpu, d, d->n - 1);
			if (rc)
				return rc;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

static enum step pick(const struct workload *w, struct nxsim_rng *rng)
{
	unsigned int x = (unsigned int)nxsim_rng_below(rng, 100), s;

	for (s = 0; s < NR_STEPS - 1; s++) {
		if (x < w->mix[s])
			return (enum step)s;
		x -= w->mix[s];
	}
	return (enum step)s;
}

static int step(struct wl_run *r, unsigned int cpu)
{
	struct wl_cpu *c = &r->cpu[cpu];
	enum step s = pick(r->w, &c->rng);
	struct wl_domain *d = &c->dom[c->cur];
	int rc;

	c->left--;
	if (s == S_USER) {
		if (d->n) {
			/*
			 * Two draws, write bit first, in statements of their
			 * own: as arguments of one call, their order would be
			 * the compiler's.
			 */
			bool write = nxsim_rng_below(&c->rng, 2);
			uint64_t i = nxsim_rng_below(&c->rng, d->n);

			CALL(r, nxsim__xpfo_user_access(r->m, cpu, d->page[i],
							write));
		}
		nxsim__xpfo_user_work(r->m, cpu, r->m->cost.user_work);
		return 0;
	}
	CALL(r, nxsim__xpfo_kernel_enter(r->m, cpu));
	rc = kernel_step(r, cpu, s);
	if (rc)
		return rc;
	CALL(r, nxsim__xpfo_kernel_exit(r->m, cpu));
	return 0;
}

static int setup_cpu(struct wl_run *r, unsigned int cpu, uint64_t seed,
		     uint64_t steps)
{
	struct wl_cpu *c = &r->cpu[cpu];
	uint64_t i, base = cpu * r->per_cpu;

	nxsim_rng_seed(&c->rng, seed ^ (0x9e3779b97f4a7c15ull * (cpu + 1)));
	c->free = nxsim__calloc(r->per_cpu, sizeof(uint64_t));
	if (!c->free)
		return -ENOMEM;
	for (i = 0; i < r->per_cpu; i++)
		c->free[i] = base + r->per_cpu - 1 - i;
	c->nfree = r->per_cpu;
	c->left = steps;
	for (i = 0; i < KFRAMES; i++) {
		c->kframe[i] = (uint32_t)c->free[--c->nfree];
		CALL(r,
		     nxsim__xpfo_alloc_pages_kernel(r->m, cpu, c->kframe[i]));
	}
	CALL(r, nxsim__xpfo_context_switch(r->m, cpu, domain_id(cpu, 0)));
	CALL(r, nxsim__xpfo_kernel_exit(r->m, cpu));
	return 0;
}

/*
 * The CPUs with steps to go, earliest timeline first (ties: lowest id): a
 * winner tree over their nxsim__xpfo_cycles_key() as last seen, @leaves
 * (a power of two) leaves from entry @leaves on, each inner entry the
 * earlier of its two children, entry 1 the earliest of all.  A CPU with no
 * steps left, and a leaf with no CPU, is NEXT_NONE, after every CPU.  A
 * CPU's key only grows while another runs (an IPI's cycles), so a leaf's
 * key is never above the CPU's own; the top is the earliest CPU once its
 * key is its own again.  A change of one leaf replays its path to the
 * top, one compare per level, branch-free (the keys' order makes a branch
 * on it hard to predict).
 */
struct wl_next {
	int64_t key;
	unsigned int cpu;
};

#define NEXT_NONE ((struct wl_next){ INT64_MAX, UINT32_MAX })

/* Whether @a runs before the CPU @cpu whose key is @key. */
static bool next_before(const struct wl_next *a, int64_t key, unsigned int cpu)
{
	return (a->key < key) | ((a->key == key) & (a->cpu < cpu));
}

/*
 * The earlier of @a and @b (@b if neither is), with masks, not ?: (which
 * GCC 12 compiles to a branch).
 */
static struct wl_next next_earlier(struct wl_next a, struct wl_next b)
{
	uint64_t take = -(uint64_t)next_before(&a, b.key, b.cpu);

	return (struct wl_next){
		(int64_t)(((uint64_t)a.key & take) | ((uint64_t)b.key & ~take)),
		(a.cpu & (uint32_t)take) | (b.cpu & ~(uint32_t)take),
	};
}

/*
 * Leaf @cpu of the tree @t of @leaves leaves is @e now: replay its path.
 * The winner so far is carried in registers, so that each level loads
 * only the sibling, a load that does not wait for the level below.
 */
static void next_set(struct wl_next *t, unsigned int leaves, unsigned int cpu,
		     struct wl_next e)
{
	unsigned int i = leaves + cpu;

	t[i] = e;
	for (; i > 1; i /= 2) {
		e = next_earlier(t[i ^ 1], e);
		t[i / 2] = e;
	}
}

/* Run every CPU's steps, earliest timeline first. */
static int run_steps(struct wl_run *r, struct wl_next *t, unsigned int leaves)
{
	unsigned int i;
	int rc;

	for (i = 0; i < leaves; i++)
		t[leaves + i] =
			i < r->nr_cpus ?
				(struct wl_next){
					nxsim__xpfo_cycles_key(r->m, i), i
				} :
				NEXT_NONE;
	for (i = leaves; --i;)
		t[i] = next_earlier(t[2 * i + 1], t[2 * i]);
	while (t[1].cpu != UINT32_MAX) {
		unsigned int cpu = t[1].cpu;
		int64_t key = nxsim__xpfo_cycles_key(r->m, cpu);

		if (key == t[1].key) {
			if (!r->cpu[cpu].left) {
				next_set(t, leaves, cpu, NEXT_NONE);
				continue;
			}
			rc = step(r, cpu);
			if (rc)
				return rc;
			key = nxsim__xpfo_cycles_key(r->m, cpu);
		}
		next_set(t, leaves, cpu, (struct wl_next){ key, cpu });
	}
	return 0;
}

static int run_once(const struct nxsim_xpfo_run *run, const struct workload *w,
		    bool disabled, struct nxsim_xpfo_result *res)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = run->nr_cpus,
		.version = run->version,
		.policy = run->policy,
		.disabled = disabled,
		.costs = run->costs,
	};
	struct wl_run r = { .w = w, .nr_cpus = run->nr_cpus };
	struct wl_next *next = NULL;
	unsigned int i, leaves;
	int rc;

	/* 1 GiB at least, 16 MiB per CPU. */
	cfg.nr_frames = MAX(1ull << 18, (uint64_t)run->nr_cpus << 12);
	r.per_cpu = cfg.nr_frames / run->nr_cpus;
	if (run->tlb)
		cfg.tlb = *run->tlb;
	rc = nxsim_xpfo_create(&cfg, &r.m);
	if (rc)
		return rc;
	if (r.m->version >= NXSIM_XPFO_V8)
		r.batch = MIN(r.m->policy->refill_batch, 64u);
	leaves = roundup_pow_of_two(run->nr_cpus);
	r.cpu = nxsim__zalloc_aligned(run->nr_cpus * sizeof(*r.cpu),
				      SMP_CACHE_BYTES);
	next = nxsim__calloc(2 * leaves, sizeof(*next));
	if (!r.cpu || !next) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < run->nr_cpus; i++) {
		rc = setup_cpu(&r, i, run->seed, run->events);
		if (rc)
			goto out;
	}
	rc = run_steps(&r, next, leaves);
	if (!rc)
		nxsim__xpfo_result(r.m, res);
out:
	if (r.cpu)
		for (i = 0; i < run->nr_cpus; i++)
			nxsim__free(r.cpu[i].free,
				    r.per_cpu * sizeof(uint64_t));
	nxsim__free_aligned(r.cpu, run->nr_cpus * sizeof(*r.cpu),
			    SMP_CACHE_BYTES);
	nxsim__free(next, 2 * leaves * sizeof(*next));
	nxsim_xpfo_destroy(r.m);
	return rc;
}

const char *nxsim_xpfo_workload_name(unsigned int idx)
{
	return idx < ARRAY_SIZE(workloads) ? workloads[idx].name : NULL;
}

int nxsim_xpfo_run_workload(const struct nxsim_xpfo_run *run,
			    struct nxsim_xpfo_result *res)
{
	const struct workload *w;
	struct nxsim_xpfo_result base;
	int rc;

	if (!run || !res || !run->workload || !run->nr_cpus ||
	    run->nr_cpus > NXSIM_TLB_MAX_CPUS || !run->events ||
	    run->events > NXSIM_XPFO_MAX_EVENTS ||
	    (unsigned int)run->version > NXSIM_XPFO_V9)
		return -EINVAL;
	rc = nxsim__name_index(nxsim_xpfo_workload_name, run->workload);
	if (rc < 0)
		return -ENOENT;
	w = &workloads[rc];
	rc = run_once(run, w, false, res);
	if (rc)
		return rc;
	rc = run_once(run, w, true, &base);
	if (rc)
		return rc;
	res->base_kernel_cycles = base.kernel_cycles;
	res->base_user_cycles = base.user_cycles;
	res->base_makespan_cycles = base.makespan_cycles;
	res->system_ratio = base.kernel_cycles ?
				    (double)res->kernel_cycles /
					    (double)base.kernel_cycles :
				    0;
	res->wall_ratio = base.makespan_cycles ?
				  (double)res->makespan_cycles /
					  (double)base.makespan_cycles :
				  0;
	return 0;
}
