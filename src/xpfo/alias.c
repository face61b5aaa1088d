// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which CPUs may cache a physmap translation: a reverse index from each
 * mapping of the direct map (a 4K, 2M or 1G page of it) to the CPUs whose
 * page walk filled it, so that the oracle of an unmap and a shootdown to
 * every CPU visit those CPUs instead of all of them.  The simulator's own
 * bookkeeping: nothing in the kernel keeps it, and it changes no modelled
 * figure (a CPU left out would have found nothing to flush or watch).
 *
 * The index is a superset of the CPUs holding each mapping.  A CPU joins a
 * mapping when its walk fills it (nxsim__xpfo_kernel_access(), the only
 * fill of a physmap translation: nobody else fills the machine's TLB, and
 * an L1 refill from the L2 stays on the CPU), and leaves it only where it
 * provably holds no entry of it: a probe found none, or every CPU INVLPG'd
 * it.  An eviction is not reported; when the pools are full, a sweep
 * probes every listed CPU and drops those holding nothing any more.
 *
 * The pools are made with the machine, a node per entry the CPUs' L1Ds
 * and L2s hold (no physmap translation enters an L1I), so that no event
 * allocates.  If a sweep leaves them more than three quarters full, the
 * index is given up (@off) and its callers visit every CPU again: the same
 * results, at the old speed.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "xpfo/xpfo.h"

#define NIL 0 /* entry 0 of each pool is never used */

/* A mapping's key: its first frame and its size code (0 4K, 1 2M, 2 1G). */
static uint64_t unit_key(uint64_t pfn, unsigned int sz)
{
	return (pfn << 2 | sz) + 1; /* never 0, a free unit's */
}

/*
 * The bucket of @key: its frame's low bits, offset by a hash of the rest
 * and the size code, so that the mappings of neighbouring frames (a CPU's
 * slice of them, its kernel frames) share cache lines of the bucket array
 * instead of each taking a line of its own.
 */
static uint32_t bucket_of(const struct nxsim__alias *a, uint64_t key)
{
	uint64_t pfn = (key - 1) >> 2,
		 rest = (pfn >> a->bucket_bits) << 2 | ((key - 1) & 3);

	return (uint32_t)(pfn + ((rest * 0x9e3779b97f4a7c15ull) >> 32)) &
	       (a->nr_buckets - 1);
}

/*
 * The key of the one mapping that can translate frame @pfn: the one that
 * maps it now.  Splits are permanent and each flushes every CPU's TLB
 * (physmap.c), so no CPU holds a larger mapping of a split region, and
 * none a smaller one of a region never split.
 */
static uint64_t key_of(const struct nxsim_xpfo *m, uint64_t pfn)
{
	unsigned int d = nxsim__physmap_shift(m, pfn) - NXSIM_TLB_SHIFT_4K;

	return unit_key(pfn >> d << d, d / 9);
}

/* Where the unit of @key is linked from (its bucket or a predecessor). */
static uint32_t *find(struct nxsim__alias *a, uint64_t key)
{
	uint32_t *p = &a->bucket[bucket_of(a, key)];

	while (*p != NIL && a->unit[*p].key != key)
		p = &a->unit[*p].next;
	return p;
}

/* Whether @cpu's TLB holds a translation of @va (as INVLPG would find). */
static bool holds(const struct nxsim_xpfo *m, unsigned int cpu, uint64_t va)
{
	struct nxsim__tlb_cpu *c = &m->tlb->cpu[cpu];
	unsigned int l, w;
	size_t base;

	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
		if (nxsim__tlb_probe(&c->lv[l], va, c->pcid, &base, &w))
			return true;
	return false;
}

/* Give back node @n, a holder no more. */
static void node_put(struct nxsim__alias *a, uint32_t n)
{
	a->node[n].next = a->free_node;
	a->free_node = n;
	a->live--;
}

/*
 * Whether @cpu stays a holder of the mapping at @va: @drop (the CPUs to
 * drop, a bitmap) leaves it out, or (@drop NULL) its TLB holds a
 * translation of @va.
 */
static bool keeps(const struct nxsim_xpfo *m, const uint64_t *drop,
		  unsigned int cpu, uint64_t va)
{
	return drop ? !(drop[cpu / 64] >> (cpu % 64) & 1) : holds(m, cpu, va);
}

/* Unlink unit *@p and give back its nodes. */
static void unit_delete(struct nxsim__alias *a, uint32_t *p)
{
	uint32_t u = *p, n = a->unit[u].cpus;

	while (n != NIL) {
		uint32_t next = a->node[n].next;

		node_put(a, n);
		n = next;
	}
	a->live--; /* the first holder */
	*p = a->unit[u].next;
	a->unit[u].key = 0;
	a->unit[u].next = a->free_unit;
	a->free_unit = u;
}

/*
 * Drop from unit *@p the CPUs @drop says to (a bitmap; NULL: those whose
 * TLB holds no translation of the unit's first page), and the unit if none
 * is left.
 */
static void unit_prune(struct nxsim_xpfo *m, uint32_t *p, const uint64_t *drop)
{
	struct nxsim__alias *a = &m->alias;
	struct nxsim__alias_unit *un = &a->unit[*p];
	uint64_t va = nxsim__physmap_va((un->key - 1) >> 2);
	uint32_t *q = &un->cpus, n;

	while (*q != NIL) {
		n = *q;

		if (keeps(m, drop, a->node[n].cpu, va)) {
			q = &a->node[n].next;
			continue;
		}
		*q = a->node[n].next;
		node_put(a, n);
	}
	if (keeps(m, drop, un->cpu, va))
		return;
	if (un->cpus == NIL) {
		unit_delete(a, p);
		return;
	}
	/* The next holder becomes the first. */
	n = un->cpus;
	un->cpu = a->node[n].cpu;
	un->cpus = a->node[n].next;
	node_put(a, n);
}

/* Whether one more unit and node can be taken. */
static bool room(const struct nxsim__alias *a)
{
	/* Units and nodes in use are each at most the holders listed. */
	return a->live < a->nr_nodes;
}

/*
 * A unit, and a node, of the pools (room() said there is one): a freed
 * one, else one never used, so that the pools' pages are touched only as
 * the index grows into them.
 */
static uint32_t take_unit(struct nxsim__alias *a)
{
	uint32_t u = a->free_unit;

	if (u == NIL)
		return a->fresh_unit++;
	a->free_unit = a->unit[u].next;
	return u;
}

static uint32_t take_node(struct nxsim__alias *a)
{
	uint32_t n = a->free_node;

	if (n == NIL)
		return a->fresh_node++;
	a->free_node = a->node[n].next;
	return n;
}

/*
 * Room for one more unit and node: in the pools, else by a sweep of the
 * CPUs holding nothing any more, if it leaves a quarter free.
 */
static bool make_room(struct nxsim_xpfo *m)
{
	struct nxsim__alias *a = &m->alias;
	uint32_t b;

	if (room(a))
		return true;
	for (b = 0; b < a->nr_buckets; b++) {
		uint32_t *p = &a->bucket[b];

		while (*p != NIL) {
			uint32_t u = *p;

			unit_prune(m, p, NULL);
			if (*p == u)
				p = &a->unit[u].next;
		}
	}
	return a->live <= a->nr_nodes / 4 * 3;
}

/**
 * nxsim__alias_add() - note that a CPU's walk filled a physmap mapping
 * @m: the machine
 * @cpu: the CPU whose page walk filled it
 * @pfn: the first frame of the mapping
 * @shift: its page shift (4K, 2M or 1G)
 *
 * Adds @cpu to the mapping's holders, once.  When a sweep leaves the
 * pools more than three quarters full, the index is given up and every
 * CPU counts as a holder.
 */
void nxsim__alias_add(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
		      unsigned int shift)
{
	struct nxsim__alias *a = &m->alias;
	uint64_t key = unit_key(pfn, (shift - NXSIM_TLB_SHIFT_4K) / 9);
	uint32_t *p, u, n;

	if (a->off)
		return;
	p = find(a, key);
	if (*p != NIL) {
		if (a->unit[*p].cpu == cpu)
			return;
		for (n = a->unit[*p].cpus; n != NIL; n = a->node[n].next)
			if (a->node[n].cpu == cpu)
				return;
	}
	if (!make_room(m)) {
		a->off = true;
		return;
	}
	a->live++;
	p = find(a, key); /* the sweep may have dropped it */
	if (*p == NIL) {
		u = take_unit(a);
		a->unit[u] = (struct nxsim__alias_unit){
			.key = key,
			.cpu = cpu,
			.next = NIL,
			.cpus = NIL,
		};
		*p = u;
		return;
	}
	u = *p;
	n = take_node(a);
	a->node[n] = (struct nxsim__alias_node){ .next = a->unit[u].cpus,
						 .cpu = cpu };
	a->unit[u].cpus = n;
}

/**
 * nxsim__alias_gather() - mark the CPUs that may hold a translation
 * @m: the machine
 * @pfn: the first frame
 * @nr: the number of frames
 *
 * Marks in @m->alias.seen the CPUs that may hold a translation of frames
 * [@pfn, @pfn + @nr) (every CPU if the index was given up).  The caller
 * walks them with nxsim__alias_next(), then calls nxsim__alias_forget().
 */
void nxsim__alias_gather(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr)
{
	struct nxsim__alias *a = &m->alias;
	uint64_t i;
	uint32_t n;

	if (a->off) {
		for (n = 0; n < m->nr_cpus; n++)
			a->seen[n / 64] |= 1ull << (n % 64);
		return;
	}
	for (i = 0; i < nr; i++) {
		uint32_t *p = find(a, key_of(m, pfn + i));

		if (*p == NIL)
			continue;
		n = a->unit[*p].cpu;
		a->seen[n / 64] |= 1ull << (n % 64);
		for (n = a->unit[*p].cpus; n != NIL; n = a->node[n].next)
			a->seen[a->node[n].cpu / 64] |=
				1ull << (a->node[n].cpu % 64);
	}
}

/**
 * nxsim__alias_forget() - end a gather
 * @m: the machine
 * @pfn: the frame whose mapping the gather was for
 * @drop: the CPUs still marked hold no translation of it
 *
 * With @drop, first drops the CPUs still marked in @m->alias.seen from the
 * holders of frame @pfn's mapping; then clears @m->alias.seen.
 */
void nxsim__alias_forget(struct nxsim_xpfo *m, uint64_t pfn, bool drop)
{
	struct nxsim__alias *a = &m->alias;

	if (drop && !a->off) {
		uint32_t *p = find(a, key_of(m, pfn));

		if (*p != NIL)
			unit_prune(m, p, a->seen);
	}
	memset(a->seen, 0, DIV_ROUND_UP(m->nr_cpus, 64) * sizeof(*a->seen));
}

/**
 * nxsim__alias_flushed() - every CPU INVLPG'd a range of frames
 * @m: the machine
 * @pfn: the first frame
 * @nr: the number of frames
 *
 * No CPU holds a translation of frames [@pfn, @pfn + @nr) any more: their
 * mappings lose all their holders.
 */
void nxsim__alias_flushed(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr)
{
	struct nxsim__alias *a = &m->alias;
	uint64_t i;

	if (a->off)
		return;
	for (i = 0; i < nr; i++) {
		uint32_t *p = find(a, key_of(m, pfn + i));

		if (*p != NIL)
			unit_delete(a, p);
	}
}

/**
 * nxsim__alias_init() - make @m's index, for the TLB @m already has
 *
 * Return: 0 or -ENOMEM (nxsim__alias_free() frees what was made).
 */
int nxsim__alias_init(struct nxsim_xpfo *m)
{
	const struct nxsim_tlb_geometry *g = m->tlb->geo;
	struct nxsim__alias *a = &m->alias;
	uint32_t nr =
		m->nr_cpus * (g[NXSIM_TLB_L1D].sets * g[NXSIM_TLB_L1D].ways +
			      g[NXSIM_TLB_L2].sets * g[NXSIM_TLB_L2].ways);

	a->seen = nxsim__calloc(DIV_ROUND_UP(m->nr_cpus, 64), sizeof(*a->seen));
	/* Without XPFO nothing is unmapped or flushed: no index. */
	a->off = m->disabled;
	if (a->off)
		return a->seen ? 0 : -ENOMEM;
	a->nr_buckets = roundup_pow_of_two(nr);
	a->bucket_bits = (unsigned int)__builtin_ctz(a->nr_buckets);
	a->nr_nodes = nr;
	a->bucket = nxsim__calloc(a->nr_buckets, sizeof(*a->bucket));
	a->unit = nxsim__alloc((nr + 1) * sizeof(*a->unit));
	a->node = nxsim__alloc((nr + 1) * sizeof(*a->node));
	if (!a->seen || !a->bucket || !a->unit || !a->node)
		return -ENOMEM;
	a->fresh_unit = 1;
	a->fresh_node = 1;
	return 0;
}

void nxsim__alias_free(struct nxsim_xpfo *m)
{
	struct nxsim__alias *a = &m->alias;

	nxsim__free(a->seen, DIV_ROUND_UP(m->nr_cpus, 64) * sizeof(*a->seen));
	nxsim__free(a->bucket, a->nr_buckets * sizeof(*a->bucket));
	nxsim__free(a->unit, (a->nr_nodes + 1) * sizeof(*a->unit));
	nxsim__free(a->node, (a->nr_nodes + 1) * sizeof(*a->node));
}
