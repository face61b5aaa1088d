// SPDX-License-Identifier: GPL-2.0-only
/*
 * A memory-access trace (valgrind lackey text, or the binary format of
 * docs/traces.md) replayed as one guest's accesses
 * (nxsim_workload_run_trace()): an instruction fetch (I) is an exec access,
 * a load (L) a read, a store (S) a write, a modify (M) a read then a
 * write.  The trace is decoded once into guest accesses, so every vCPU
 * replays it without parsing: each 1 GiB region the trace touches is laid
 * out in guest physical memory after the previous one, in order of first
 * use, keeping the offsets (and so the 2 MiB and 1 GiB alignment).
 *
 * Left out: accesses that cross a page boundary are taken at their first
 * byte; page-allocation records of a mixed trace are skipped.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/workload.h>
#include <nxsim/trace.h>

#include "core/alloc.h"
#include "workload/workload.h"

#define REGION_SHIFT 30
#define MAX_REGIONS 64

struct decoded {
	struct nxsim_guest_access *a;
	size_t n;
	size_t cap;
	uint64_t region[MAX_REGIONS];
	unsigned int nr_regions;
	unsigned int last;
};

static int push(struct decoded *d, uint64_t gpa, enum nxsim_access_kind kind,
		int level)
{
	struct nxsim_guest_access *a;
	size_t cap;

	if (d->n == d->cap) {
		cap = d->cap ? d->cap * 2 : 4096;
		a = nxsim__realloc(d->a, d->cap * sizeof(*a), cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		d->a = a;
		d->cap = cap;
	}
	d->a[d->n].gpa = gpa;
	d->a[d->n].kind = (uint8_t)kind;
	d->a[d->n].guest_level = (uint8_t)level;
	d->n++;
	return 0;
}

/* The gpa of trace address @va; -ERANGE past MAX_REGIONS regions. */
static int to_gpa(struct decoded *d, uint64_t va, uint64_t *gpa)
{
	uint64_t reg = va >> REGION_SHIFT;
	unsigned int i;

	if (d->nr_regions && d->region[d->last] == reg)
		goto found;
	for (i = 0; i < d->nr_regions; i++) {
		if (d->region[i] == reg) {
			d->last = i;
			goto found;
		}
	}
	if (d->nr_regions == MAX_REGIONS)
		return -ERANGE;
	d->last = d->nr_regions;
	d->region[d->nr_regions++] = reg;
found:
	*gpa = ((uint64_t)d->last << REGION_SHIFT) |
	       (va & ((1ull << REGION_SHIFT) - 1));
	return 0;
}

static int decode(struct nxsim_trace *t, int level, struct decoded *d)
{
	struct nxsim_trace_event ev;
	uint64_t gpa;
	int rc;

	while ((rc = nxsim_trace_next(t, &ev)) == 1) {
		enum nxsim_access_kind kind;

		switch (ev.op) {
		case NXSIM_TRACE_IFETCH:
			kind = NXSIM_ACCESS_EXEC;
			break;
		case NXSIM_TRACE_LOAD:
		case NXSIM_TRACE_MODIFY:
			kind = NXSIM_ACCESS_READ;
			break;
		case NXSIM_TRACE_STORE:
			kind = NXSIM_ACCESS_WRITE;
			break;
		default:
			continue;
		}
		rc = to_gpa(d, ev.addr, &gpa);
		if (!rc)
			rc = push(d, gpa, kind, level);
		if (!rc && ev.op == NXSIM_TRACE_MODIFY)
			rc = push(d, gpa, NXSIM_ACCESS_WRITE, level);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	return d->n ? 0 : -EINVAL;
}

int nxsim_workload_decode_trace(struct nxsim_trace *t, int guest_level,
				struct nxsim_guest_access **ap, size_t *np,
				uint64_t *mem_bytes)
{
	struct decoded d = { 0 };
	struct nxsim_guest_access *a;
	int rc;

	if (!t || !ap || !np || !mem_bytes || guest_level < NXSIM_PG_LEVEL_4K ||
	    guest_level > NXSIM_PG_LEVEL_1G)
		return -EINVAL;
	rc = decode(t, guest_level, &d);
	if (rc) {
		nxsim__free(d.a, d.cap * sizeof(*d.a));
		return rc;
	}
	/* exactly n, so that the caller frees by the count it got */
	a = nxsim__realloc(d.a, d.cap * sizeof(*d.a), d.n * sizeof(*d.a));
	if (!a) {
		nxsim__free(d.a, d.cap * sizeof(*d.a));
		return -ENOMEM;
	}
	*ap = a;
	*np = d.n;
	*mem_bytes = (uint64_t)d.nr_regions << REGION_SHIFT;
	return 0;
}

void nxsim_workload_accesses_free(struct nxsim_guest_access *a, size_t n)
{
	nxsim__free(a, n * sizeof(*a));
}

struct replay {
	const struct decoded *d;
	size_t *next;
};

static size_t replay_gen(void *ctx, unsigned int i,
			 struct nxsim_guest_access *buf, size_t max)
{
	struct replay *p = ctx;
	size_t n = p->d->n - p->next[i];

	n = n < max ? n : max;
	memcpy(buf, p->d->a + p->next[i], n * sizeof(*buf));
	p->next[i] += n;
	return n;
}

int nxsim_workload_run_trace(const struct nxsim_workload_config *cfg,
			     struct nxsim_trace *t,
			     struct nxsim_workload_result *res)
{
	struct decoded d = { 0 };
	struct replay p = { .d = &d };
	struct nxsim__run r;
	int rc;

	if (!cfg || !t || !res || cfg->guest_level < NXSIM_PG_LEVEL_4K ||
	    cfg->guest_level > NXSIM_PG_LEVEL_1G || !cfg->nr_vcpus ||
	    cfg->nr_vcpus > 1024)
		return -EINVAL;
	rc = decode(t, cfg->guest_level, &d);
	if (rc)
		goto out;
	rc = nxsim__run_create(&r, cfg, (uint64_t)d.nr_regions << REGION_SHIFT);
	if (rc)
		goto out;
	p.next = nxsim__zalloc(cfg->nr_vcpus * sizeof(*p.next));
	if (!p.next) {
		rc = -ENOMEM;
	} else {
		rc = nxsim__run_phase(&r, replay_gen, &p);
		if (!rc)
			rc = nxsim__run_finish(&r, res, 0);
		nxsim__free(p.next, cfg->nr_vcpus * sizeof(*p.next));
	}
	nxsim__run_destroy(&r);
out:
	nxsim__free(d.a, d.cap * sizeof(*d.a));
	return rc;
}
