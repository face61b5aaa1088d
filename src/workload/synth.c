// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seeded synthetic guests (nxsim_workload_run_synth()) and the
 * execute_perf_test shape of c4b33d28ea51 (nxsim_workload_run_execute()).
 *
 * A synthetic vCPU fetches sequentially through the shared code (4 bytes
 * a fetch), jumping to a random code page now and then, and touches data
 * near its last data address (8 bytes on), or at a random data address
 * now and then.  Its JIT-like phase, spread evenly over its run, writes a
 * fresh page of its own JIT area 16 times and then executes 64 fetches
 * from it: the case the mitigation hits hardest, a huge page mapped for
 * data and then executed.  Memory: code from gpa 0, then data, then the
 * JIT areas, each starting on a 1 GiB boundary.
 *
 * Left out: any resemblance to a particular program beyond these knobs.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/workload.h>
#include <nxsim/rng.h>

#include "core/alloc.h"
#include "workload/workload.h"

#define GIB (1ull << 30)
#define JIT_WRITES 16
#define JIT_FETCHES 64

static uint64_t gib_up(uint64_t x)
{
	return (x + GIB - 1) & ~(GIB - 1);
}

struct synth_vcpu {
	struct nxsim_rng rng;
	uint64_t done;
	uint64_t pc;
	uint64_t data;
	uint64_t jit_next_at;
	uint64_t jit_made;
	uint64_t jit_page;
	unsigned int jit_writes;
	unsigned int jit_fetches;
};

struct synth {
	const struct nxsim_workload_synth *s;
	int level;
	uint64_t data_base;
	uint64_t jit_base;
	struct synth_vcpu *v;
};

static void synth_one(struct synth *g, unsigned int i, struct synth_vcpu *v,
		      struct nxsim_guest_access *a)
{
	const struct nxsim_workload_synth *s = g->s;
	uint64_t r;

	a->guest_level = (uint8_t)g->level;
	if (!v->jit_writes && !v->jit_fetches && s->jit_pages &&
	    v->jit_made < s->jit_pages && v->done >= v->jit_next_at) {
		v->jit_page = g->jit_base +
			      ((uint64_t)i * s->jit_pages + v->jit_made) * 4096;
		v->jit_made++;
		v->jit_next_at += s->accesses / s->jit_pages;
		v->jit_writes = JIT_WRITES;
		v->jit_fetches = JIT_FETCHES;
	}
	if (v->jit_writes) {
		a->kind = NXSIM_ACCESS_WRITE;
		a->gpa = v->jit_page + (JIT_WRITES - v->jit_writes--) * 64;
		return;
	}
	if (v->jit_fetches) {
		a->kind = NXSIM_ACCESS_EXEC;
		a->gpa = v->jit_page + (JIT_FETCHES - v->jit_fetches--) * 16;
		return;
	}
	r = nxsim_rng_below(&v->rng, 1000);
	if (r < s->exec_permille) {
		if (nxsim_rng_below(&v->rng, 1000) < s->jump_permille)
			v->pc = nxsim_rng_below(&v->rng, s->code_bytes) & ~3ull;
		else
			v->pc = (v->pc + 4) % s->code_bytes;
		a->kind = NXSIM_ACCESS_EXEC;
		a->gpa = v->pc;
		return;
	}
	if (nxsim_rng_below(&v->rng, 1000) < s->far_permille)
		v->data = nxsim_rng_below(&v->rng, s->data_bytes) & ~7ull;
	else
		v->data = (v->data + 8) % s->data_bytes;
	a->kind = nxsim_rng_below(&v->rng, 1000) < s->write_permille ?
			  NXSIM_ACCESS_WRITE :
			  NXSIM_ACCESS_READ;
	a->gpa = g->data_base + v->data;
}

static size_t synth_gen(void *ctx, unsigned int i,
			struct nxsim_guest_access *buf, size_t max)
{
	struct synth *g = ctx;
	struct synth_vcpu *v = &g->v[i];
	size_t n = 0;

	for (; n < max && v->done < g->s->accesses; n++, v->done++)
		synth_one(g, i, v, &buf[n]);
	return n;
}

int nxsim_workload_run_synth(const struct nxsim_workload_config *cfg,
			     const struct nxsim_workload_synth *s,
			     struct nxsim_workload_result *res)
{
	struct synth g = { .s = s };
	struct nxsim__run r;
	unsigned int i;
	int rc;

	if (!cfg || !s || !res || !s->code_bytes || !s->data_bytes ||
	    s->exec_permille > 1000 || (s->jit_pages && !s->accesses))
		return -EINVAL;
	/* no wrap below: nxsim__run_create() checks the sum */
	if (s->code_bytes > NXSIM_WORKLOAD_MAX_BYTES ||
	    s->data_bytes > NXSIM_WORKLOAD_MAX_BYTES ||
	    (cfg->nr_vcpus &&
	     s->jit_pages > NXSIM_WORKLOAD_MAX_BYTES / 4096 / cfg->nr_vcpus))
		return -E2BIG;
	g.level = cfg->guest_level;
	g.data_base = gib_up(s->code_bytes);
	g.jit_base = gib_up(g.data_base + s->data_bytes);
	rc = nxsim__run_create(&r, cfg,
			       g.jit_base + (uint64_t)cfg->nr_vcpus *
						    s->jit_pages * 4096);
	if (rc)
		return rc;
	g.v = nxsim__zalloc(cfg->nr_vcpus * sizeof(*g.v));
	if (!g.v) {
		nxsim__run_destroy(&r);
		return -ENOMEM;
	}
	for (i = 0; i < cfg->nr_vcpus; i++) {
		nxsim_rng_seed(&g.v[i].rng, s->seed + i);
		g.v[i].pc = nxsim_rng_below(&g.v[i].rng, s->code_bytes) & ~3ull;
	}
	rc = nxsim__run_phase(&r, synth_gen, &g);
	if (!rc)
		rc = nxsim__run_finish(&r, res, 0);
	nxsim__free(g.v, cfg->nr_vcpus * sizeof(*g.v));
	nxsim__run_destroy(&r);
	return rc;
}

struct execute {
	uint64_t pages;
	uint64_t bytes;
	enum nxsim_access_kind kind;
	int level;
	uint64_t *next;
};

static size_t execute_gen(void *ctx, unsigned int i,
			  struct nxsim_guest_access *buf, size_t max)
{
	struct execute *x = ctx;
	size_t n = 0;

	for (; n < max && x->next[i] < x->pages; n++, x->next[i]++) {
		buf[n].gpa = (uint64_t)i * x->bytes + x->next[i] * 4096;
		buf[n].kind = (uint8_t)x->kind;
		buf[n].guest_level = (uint8_t)x->level;
	}
	return n;
}

int nxsim_workload_run_execute(const struct nxsim_workload_config *cfg,
			       uint64_t bytes,
			       struct nxsim_workload_result *res)
{
	struct execute x = { .bytes = bytes, .pages = bytes / 4096 };
	struct nxsim__run r;
	uint64_t start, mem;
	int rc;

	if (!cfg || !res || !bytes || (bytes & 4095))
		return -EINVAL;
	/* a product that wraps is past any limit */
	if (__builtin_mul_overflow(bytes, cfg->nr_vcpus, &mem))
		mem = UINT64_MAX;
	rc = nxsim__run_create(&r, cfg, mem);
	if (rc)
		return rc;
	x.level = cfg->guest_level;
	x.next = nxsim__zalloc(cfg->nr_vcpus * sizeof(*x.next));
	if (!x.next) {
		nxsim__run_destroy(&r);
		return -ENOMEM;
	}
	/* populate: write every page */
	x.kind = NXSIM_ACCESS_WRITE;
	rc = nxsim__run_phase(&r, execute_gen, &x);
	start = r.cycles;
	/* execute: one fetch from every page */
	memset(x.next, 0, cfg->nr_vcpus * sizeof(*x.next));
	x.kind = NXSIM_ACCESS_EXEC;
	if (!rc)
		rc = nxsim__run_phase(&r, execute_gen, &x);
	if (!rc)
		rc = nxsim__run_finish(&r, res, start);
	nxsim__free(x.next, cfg->nr_vcpus * sizeof(*x.next));
	nxsim__run_destroy(&r);
	return rc;
}
