// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for XPFO machines (include/nxsim/xpfo.h) and their TLBs
 * (tlb.h): machine creation with its CPUs, version, flush policy and TLB
 * geometry; the ownership events of mm/xpfo.c (xpfo_alloc_pages(),
 * xpfo_free_pages(), xpfo_kmap(), xpfo_kunmap(), the batched refill);
 * kernel accesses through the physmap and user accesses; context switches
 * (switch_mm_irqs_off()) and kernel entries; and the counters, oracle and
 * cost model, with the figures the benchmarks report (bench_xpfo_flush).
 *
 * Left out: a dump of a CPU's TLB entries, which the public TLB API does
 * not offer (nxsim_tlb_stats() only).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "numarg.h"

static const char *const versions[] = {
	[NXSIM_XPFO_V6] = "6",
	[NXSIM_XPFO_V7] = "7",
	[NXSIM_XPFO_V8] = "8",
	[NXSIM_XPFO_V9] = "9",
};

static const char *const access_names[] = {
	[NXSIM_XPFO_ACCESS_HIT] = "hit",
	[NXSIM_XPFO_ACCESS_WALK] = "walk",
	[NXSIM_XPFO_ACCESS_STALE] = "stale",
	[NXSIM_XPFO_ACCESS_FAULT] = "fault",
};

static const char *const tlb_levels[] = {
	[NXSIM_TLB_L1D] = "l1d",
	[NXSIM_TLB_L1I] = "l1i",
	[NXSIM_TLB_L2] = "l2",
};

int nxsim__drv_xpfo_version(const char *s, enum nxsim_xpfo_version *v,
			    struct nxsim__drv_reply *r)
{
	size_t i;

	for (i = 0; i < NXSIM__DRV_NELEM(versions); i++) {
		if (!strcmp(s, versions[i])) {
			*v = i;
			return 0;
		}
	}
	return nxsim__drv_fail(r, -EINVAL,
			       "an XPFO version is 6 to 9, not "
			       "\"%s\"",
			       s);
}

/* "SETSxWAYS" of l1d=, l1i=, l2= */
static int geometry(const char *s, struct nxsim_tlb_geometry *g,
		    struct nxsim__drv_reply *r)
{
	struct nxsim__drv_tok t;
	const char *x = strchr(s, 'x');
	uint64_t sets = 0, ways = 0;
	int rc;

	if (!x)
		return nxsim__drv_fail(
			r, -EINVAL, "a TLB level is SETSxWAYS, not \"%s\"", s);
	t.s = strndup(s, x - s);
	if (!t.s)
		return -ENOMEM;
	t.len = x - s;
	rc = nxsim__drv_u64(&t, UINT32_MAX, &sets, r);
	free(t.s);
	t.s = (char *)x + 1;
	t.len = strlen(t.s);
	if (!rc)
		rc = nxsim__drv_u64(&t, UINT32_MAX, &ways, r);
	g->sets = sets;
	g->ways = ways;
	return rc;
}

/* An option's number: @key=N, at most @max. */
static int opt_u64(const struct nxsim__drv_tok *t, const char *key,
		   uint64_t max, uint64_t *v, struct nxsim__drv_reply *r,
		   bool *matched)
{
	const char *s = nxsim__drv_opt(t, key);

	*matched = s != NULL;
	return s ? nxsim__drv_opt_u64(s, max, v, r) : 0;
}

int nxsim__drv_tlb_option(const struct nxsim__drv_tok *t,
			  struct nxsim_tlb_config *tlb, bool *matched,
			  struct nxsim__drv_reply *r)
{
	const char *v;
	uint64_t n;
	size_t l;
	int rc;

	if ((rc = opt_u64(t, "seed", UINT64_MAX, &tlb->seed, r, matched)) ||
	    *matched)
		return rc;
	if ((rc = opt_u64(t, "ceiling", UINT32_MAX, &n, r, matched)) ||
	    *matched) {
		tlb->flush_ceiling = n;
		return rc;
	}
	if ((rc = opt_u64(t, "broadcast", 1, &n, r, matched)) || *matched) {
		tlb->broadcast = n;
		return rc;
	}
	*matched = true;
	if ((v = nxsim__drv_opt(t, "repl"))) {
		tlb->replacement = v;
		return 0;
	}
	for (l = 0; l < NXSIM__DRV_NELEM(tlb_levels); l++)
		if ((v = nxsim__drv_opt(t, tlb_levels[l])))
			return geometry(v, &tlb->level[l], r);
	*matched = false;
	return 0;
}

/* One option of xpfo create. */
static int machine_option(struct nxsim__drv *d, struct nxsim__drv_tok *t,
			  struct nxsim_xpfo_config *cfg,
			  struct nxsim__drv_reply *r)
{
	const char *v;
	bool m;
	uint64_t n;
	int rc;

	if ((rc = opt_u64(t, "cpus", NXSIM_TLB_MAX_CPUS, &n, r, &m)) || m) {
		cfg->nr_cpus = n;
		cfg->tlb.nr_cpus = n;
		return rc;
	}
	if ((rc = opt_u64(t, "frames", NXSIM_XPFO_MAX_FRAMES, &cfg->nr_frames,
			  r, &m)) ||
	    m)
		return rc;
	if ((rc = opt_u64(t, "disabled", 1, &n, r, &m)) || m) {
		cfg->disabled = n;
		return rc;
	}
	if ((rc = opt_u64(t, "mhz", UINT32_MAX, &n, r, &m)) || m) {
		cfg->cpu_mhz = n;
		return rc;
	}
	if ((rc = nxsim__drv_tlb_option(t, &cfg->tlb, &m, r)) || m)
		return rc;
	if ((v = nxsim__drv_opt(t, "version")))
		return nxsim__drv_xpfo_version(v, &cfg->version, r);
	if ((v = nxsim__drv_opt(t, "policy"))) {
		cfg->policy = v;
		return 0;
	}
	if ((v = nxsim__drv_opt(t, "clock"))) {
		cfg->clock = nxsim__drv_find(d, v, NXSIM__DRV_CLOCK, r);
		return cfg->clock ? 0 : -ENOENT;
	}
	return nxsim__drv_fail(r, -EINVAL, "unknown xpfo option \"%s\"", t->s);
}

static int xpfo_create(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = 1, .nr_frames = 1024 };
	struct nxsim_xpfo *m;
	int i, rc;

	nxsim_tlb_config_default(&cfg.tlb, 1);
	rc = nxsim__drv_name_free(d, &argv[0], r);
	for (i = 1; !rc && i < argc; i++)
		rc = machine_option(d, &argv[i], &cfg, r);
	if (rc)
		return rc;
	rc = nxsim_xpfo_create(&cfg, &m);
	if (rc == -ENOENT)
		return nxsim__drv_fail(r, rc,
				       "unknown policy or replacement "
				       "(xpfo policies)");
	if (rc)
		return rc;
	rc = nxsim__drv_add_object(d, argv[0].s, NXSIM__DRV_XPFO, m);
	if (rc)
		nxsim_xpfo_destroy(m);
	return rc;
}

static int xpfo_destroy(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo *m =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_XPFO, r);

	if (!m)
		return -ENOENT;
	nxsim_xpfo_destroy(m);
	nxsim__drv_forget(d, argv[0].s);
	return 0;
}

/* Every name @name_of() gives, from index 0 to its first NULL. */
static int add_names(struct nxsim__drv_reply *r,
		     const char *(*name_of)(unsigned int))
{
	const char *name;
	unsigned int i;

	for (i = 0; (name = name_of(i)); i++)
		nxsim__drv_add(r, " %s", name);
	return 0;
}

static int xpfo_policies(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	return add_names(r, nxsim_xpfo_policy_name);
}

static int xpfo_workloads(struct nxsim__drv *d, int argc,
			  struct nxsim__drv_tok *argv,
			  struct nxsim__drv_reply *r)
{
	return add_names(r, nxsim_xpfo_workload_name);
}

static int xpfo_costs(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	const char *name, *source;
	uint32_t cycles;
	unsigned int i;

	for (i = 0; !nxsim_xpfo_cost_info(i, &name, &cycles, &source); i++)
		nxsim__drv_add(r, " %s=%u", name, cycles);
	return 0;
}

/* The machine of argv[0] and, if @cpu, the CPU of argv[1]. */
static int machine_cpu(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		       struct nxsim_xpfo **mp, unsigned int *cpu,
		       struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_cpu_info ci;
	uint64_t v;
	int rc;

	*mp = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_XPFO, r);
	if (!*mp)
		return -ENOENT;
	if (!cpu)
		return 0;
	rc = nxsim__drv_u64(&argv[1], UINT32_MAX, &v, r);
	if (!rc && nxsim_xpfo_cpu(*mp, v, &ci))
		rc = nxsim__drv_fail(r, -EINVAL, "%s has no CPU %" PRIu64,
				     argv[0].s, v);
	*cpu = v;
	return rc;
}

static int pfn_arg(struct nxsim__drv *d, struct nxsim_xpfo *m, const char *name,
		   const struct nxsim__drv_tok *t, uint64_t *pfn,
		   struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_frame_info fi;
	int rc = nxsim__drv_u64(t, UINT64_MAX, pfn, r);

	if (!rc && nxsim_xpfo_frame(m, *pfn, &fi))
		rc = nxsim__drv_fail(r, -EINVAL, "%s has no frame %s", name,
				     t->s);
	return rc;
}

static int domain_arg(const struct nxsim__drv_tok *t, uint16_t *dom,
		      struct nxsim__drv_reply *r)
{
	uint64_t v;
	int rc = nxsim__drv_u64(t, UINT16_MAX, &v, r);

	*dom = v;
	return rc;
}

/* MACHINE CPU PFN: the common head of the frame events */
static int head(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		struct nxsim_xpfo **mp, unsigned int *cpu, uint64_t *pfn,
		struct nxsim__drv_reply *r)
{
	int rc = machine_cpu(d, argv, mp, cpu, r);

	return rc ? rc : pfn_arg(d, *mp, argv[0].s, &argv[2], pfn, r);
}

static int xpfo_alloc(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	unsigned int cpu, flags = 0;
	struct nxsim_xpfo *m;
	uint16_t dom;
	uint64_t pfn;
	int rc;

	rc = head(d, argv, &m, &cpu, &pfn, r);
	if (rc)
		return rc;
	if (!strcmp(argv[3].s, "kernel")) {
		if (argc > 4)
			return nxsim__drv_fail(r, -EINVAL,
					       "a kernel page has no domain");
		return nxsim_xpfo_alloc_kernel(m, cpu, pfn);
	}
	if (strcmp(argv[3].s, "user") || argc < 5)
		return nxsim__drv_fail(r, -EINVAL,
				       "alloc ... kernel, or user DOMAIN "
				       "[will_map]");
	rc = domain_arg(&argv[4], &dom, r);
	if (rc)
		return rc;
	if (argc > 5 && strcmp(argv[5].s, "will_map"))
		return nxsim__drv_fail(r, -EINVAL, "unknown flag \"%s\"",
				       argv[5].s);
	if (argc > 5)
		flags = NXSIM_XPFO_WILL_MAP;
	return nxsim_xpfo_alloc_user(m, cpu, pfn, dom, flags);
}

/* free, kmap and kunmap: MACHINE CPU PFN */
static int frame_event(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		       struct nxsim__drv_reply *r,
		       int (*fn)(struct nxsim_xpfo *, unsigned int, uint64_t))
{
	struct nxsim_xpfo *m;
	unsigned int cpu;
	uint64_t pfn;
	int rc = head(d, argv, &m, &cpu, &pfn, r);

	return rc ? rc : fn(m, cpu, pfn);
}

static int xpfo_free(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return frame_event(d, argv, r, nxsim_xpfo_free);
}

static int xpfo_kmap(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return frame_event(d, argv, r, nxsim_xpfo_kmap);
}

static int xpfo_kunmap(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return frame_event(d, argv, r, nxsim_xpfo_kunmap);
}

static int xpfo_refill(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	uint64_t pfns[NXSIM__DRV_MAX_TOKS];
	struct nxsim_xpfo *m;
	unsigned int cpu;
	int i, rc = machine_cpu(d, argv, &m, &cpu, r);

	for (i = 2; !rc && i < argc; i++)
		rc = pfn_arg(d, m, argv[0].s, &argv[i], &pfns[i - 2], r);
	return rc ? rc : nxsim_xpfo_refill(m, cpu, pfns, argc - 2);
}

static int read_or_write(const struct nxsim__drv_tok *t, bool *write,
			 struct nxsim__drv_reply *r)
{
	*write = !strcmp(t->s, "write");
	if (!*write && strcmp(t->s, "read"))
		return nxsim__drv_fail(r, -EINVAL,
				       "an access is read or write, not \"%s\"",
				       t->s);
	return 0;
}

/* MACHINE CPU PFN read|write: the head of kaccess and uaccess */
static int access_head(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		       struct nxsim_xpfo **mp, unsigned int *cpu, uint64_t *pfn,
		       bool *write, struct nxsim__drv_reply *r)
{
	int rc = head(d, argv, mp, cpu, pfn, r);

	return rc ? rc : read_or_write(&argv[3], write, r);
}

static int xpfo_kaccess(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	enum nxsim_xpfo_access what;
	struct nxsim_xpfo *m;
	unsigned int cpu;
	uint64_t pfn;
	bool write;
	int rc = access_head(d, argv, &m, &cpu, &pfn, &write, r);

	if (!rc)
		rc = nxsim_xpfo_kernel_access(m, cpu, pfn, write, &what);
	if (!rc)
		nxsim__drv_add(r, " %s", access_names[what]);
	return rc;
}

static int xpfo_uaccess(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo *m;
	unsigned int cpu;
	uint64_t pfn;
	bool write;
	int rc = access_head(d, argv, &m, &cpu, &pfn, &write, r);

	return rc ? rc : nxsim_xpfo_user_access(m, cpu, pfn, write);
}

static int xpfo_switch(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo *m;
	unsigned int cpu;
	uint16_t dom;
	int rc = machine_cpu(d, argv, &m, &cpu, r);

	if (!rc)
		rc = domain_arg(&argv[2], &dom, r);
	return rc ? rc : nxsim_xpfo_context_switch(m, cpu, dom);
}

/* enter and exit: MACHINE CPU */
static int cpu_event(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		     struct nxsim__drv_reply *r,
		     int (*fn)(struct nxsim_xpfo *, unsigned int))
{
	struct nxsim_xpfo *m;
	unsigned int cpu;
	int rc = machine_cpu(d, argv, &m, &cpu, r);

	return rc ? rc : fn(m, cpu);
}

static int xpfo_enter(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return cpu_event(d, argv, r, nxsim_xpfo_kernel_enter);
}

static int xpfo_exit(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return cpu_event(d, argv, r, nxsim_xpfo_kernel_exit);
}

/* MACHINE PFN: the head of frame and frame-exposure */
static int machine_pfn(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		       struct nxsim_xpfo **mp, uint64_t *pfn,
		       struct nxsim__drv_reply *r)
{
	int rc = machine_cpu(d, argv, mp, NULL, r);

	return rc ? rc : pfn_arg(d, *mp, argv[0].s, &argv[1], pfn, r);
}

static int xpfo_frame(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_frame_info fi;
	struct nxsim_xpfo *m;
	uint64_t pfn;
	int rc = machine_pfn(d, argv, &m, &pfn, r);

	if (rc)
		return rc;
	nxsim_xpfo_frame(m, pfn, &fi);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_FRAME, &fi, NULL);
	return 0;
}

static int xpfo_cpu(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_cpu_info ci;
	struct nxsim_xpfo *m;
	unsigned int cpu;
	int rc = machine_cpu(d, argv, &m, &cpu, r);

	if (rc)
		return rc;
	nxsim_xpfo_cpu(m, cpu, &ci);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_CPU, &ci, NULL);
	return 0;
}

/* MACHINE: its nxsim_xpfo_result() in *@res */
static int machine_result(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
			  struct nxsim_xpfo_result *res,
			  struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo *m;
	int rc = machine_cpu(d, argv, &m, NULL, r);

	if (!rc)
		nxsim_xpfo_result(m, res);
	return rc;
}

static int xpfo_stats(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_result res;
	int rc = machine_result(d, argv, &res, r);

	if (rc)
		return rc;
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO, &res.xpfo, NULL);
	return 0;
}

static int xpfo_oracle(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_result res;
	int rc = machine_result(d, argv, &res, r);

	if (!rc)
		nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_ORACLE, &res.oracle,
				     NULL);
	return rc;
}

static int xpfo_frame_exposure(struct nxsim__drv *d, int argc,
			       struct nxsim__drv_tok *argv,
			       struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_frame_exposure x;
	struct nxsim_xpfo *m;
	uint64_t pfn;
	int rc = machine_pfn(d, argv, &m, &pfn, r);

	if (rc)
		return rc;
	nxsim_xpfo_frame_exposure(m, pfn, &x);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_EXPOSURE, &x, NULL);
	return 0;
}

/* At most this many frames in one answer line. */
#define WORST_MAX 64

static int xpfo_worst_frames(struct nxsim__drv *d, int argc,
			     struct nxsim__drv_tok *argv,
			     struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_frame_exposure x[WORST_MAX];
	struct nxsim_xpfo *m;
	uint64_t n = 5;
	int rc = machine_cpu(d, argv, &m, NULL, r), i;

	if (!rc && argc > 1)
		rc = nxsim__drv_u64(&argv[1], WORST_MAX, &n, r);
	if (rc)
		return rc;
	rc = nxsim_xpfo_worst_frames(m, x, (unsigned int)n);
	if (rc < 0)
		return rc;
	nxsim__drv_add(r, " frames=%d", rc);
	for (i = 0; i < rc && i < (int)n; i++)
		nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_EXPOSURE, &x[i], NULL);
	return 0;
}

static int xpfo_tlb(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	unsigned int cpu;
	struct nxsim_tlb_stats st;
	struct nxsim_xpfo *m;
	int rc = machine_cpu(d, argv, &m, argc > 1 ? &cpu : NULL, r);

	if (rc)
		return rc;
	nxsim_tlb_stats(nxsim_xpfo_tlb(m), argc > 1 ? (int)cpu : -1, &st);
	nxsim__drv_add_stats(r, NXSIM_STATS_TLB, &st, NULL);
	return 0;
}

struct tlb_dump_ctx {
	FILE *f;
};

static int tlb_dump_line(void *ctx, const struct nxsim_tlb_slot *s)
{
	static const char *const sizes[] = {
		[12] = "4k", [21] = "2m", [30] = "1g"
	};
	struct tlb_dump_ctx *dc = ctx;

	if (fprintf(dc->f,
		    "%s set=%u way=%u va=0x%" PRIx64 " pfn=%" PRIu64
		    " size=%s pcid=%u global=%d recency=%u\n",
		    nxsim_tlb_level_name(s->e.level), s->set, s->way, s->e.va,
		    s->e.pfn, sizes[s->e.page_shift], s->e.pcid, s->e.global,
		    s->recency) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* As "dump vm": the lines go to FILE or stderr, the answer counts them. */
static int xpfo_tlb_dump(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct tlb_dump_ctx dc = { .f = nxsim__drv_errf(d) };
	struct nxsim_xpfo *m;
	unsigned int cpu;
	int n, rc = machine_cpu(d, argv, &m, &cpu, r);

	if (rc)
		return rc;
	if (argc > 2 && !(dc.f = fopen(argv[2].s, "w"))) {
		rc = -errno;
		return nxsim__drv_fail(r, rc, "%s: %s", argv[2].s,
				       strerror(-rc));
	}
	n = nxsim_xpfo_tlb_dump(m, cpu, tlb_dump_line, &dc);
	if (argc > 2) {
		if (fclose(dc.f) && n >= 0)
			n = -errno;
	} else if (fflush(dc.f) && n >= 0) {
		n = -errno;
	}
	if (n < 0)
		return nxsim__drv_fail(r, n, "%s: %s",
				       argc > 2 ? argv[2].s : "stderr",
				       strerror(-n));
	nxsim__drv_add(r, " entries=%d pcid=%d", n,
		       nxsim_tlb_pcid(nxsim_xpfo_tlb(m), cpu));
	return 0;
}

void nxsim__drv_add_result(struct nxsim__drv_reply *r,
			   const struct nxsim_xpfo_result *res)
{
	static const char *const events[] = { "events", NULL };
	static const char *const cycles[] = { "kernel_cycles", "user_cycles",
					      "makespan_cycles", "flush_cycles",
					      NULL };
	static const char *const ratios[] = { "system_ratio", "wall_ratio",
					      NULL };
	static const char *const oracle[] = {
		"stale_reads", "stale_writes", "stale_cross_domain",
		"faults",      "exposures",    "reuse_hazards",
		NULL
	};
	struct nxsim_xpfo_rates rates;

	nxsim_xpfo_rates(res, &rates);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_RESULT, res, events);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_RATES, &rates, NULL);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_RESULT, res, cycles);
	if (res->base_kernel_cycles)
		nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_RESULT, res, ratios);
	nxsim__drv_add_stats(r, NXSIM_STATS_XPFO_ORACLE, &res->oracle, oracle);
}

static int xpfo_result(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_result res;
	int rc = machine_result(d, argv, &res, r);

	if (!rc)
		nxsim__drv_add_result(r, &res);
	return rc;
}

/*
 * cost.NAME=N sets a cost to N cycles, cost.NAME=P% to P percent of its
 * default (rounded to the nearest cycle).
 */
static int cost_option(const struct nxsim__drv_tok *t,
		       struct nxsim_xpfo_costs *c, struct nxsim__drv_reply *r)
{
	const char *eq = strchr(t->s, '='), *name;
	char key[64], num[32];
	uint32_t def = 0;
	unsigned int i;
	size_t len;
	uint64_t n;
	int rc;

	len = eq ? (size_t)(eq - t->s) - 5 : 0;
	if (!eq || len >= sizeof(key) || strlen(eq + 1) >= sizeof(num))
		return nxsim__drv_fail(r, -EINVAL, "bad cost option \"%s\"",
				       t->s);
	memcpy(key, t->s + 5, len);
	key[len] = '\0';
	for (i = 0; !nxsim_xpfo_cost_info(i, &name, &def, NULL); i++)
		if (!strcmp(name, key))
			break;
	if (nxsim_xpfo_cost_info(i, NULL, NULL, NULL))
		return nxsim__drv_fail(r, -EINVAL,
				       "unknown cost \"%s\" (xpfo costs)", key);
	len = strlen(eq + 1);
	memcpy(num, eq + 1, len + 1);
	if (len && num[len - 1] == '%')
		num[len - 1] = '\0';
	rc = nxsim__drv_opt_u64(num, UINT32_MAX, &n, r);
	if (!rc && eq[len] == '%') {
		n = (def * n + 50) / 100;
		if (n > UINT32_MAX)
			return nxsim__drv_fail(
				r, -ERANGE, "cost out of range: \"%s\"", t->s);
	}
	return rc ? rc : nxsim_xpfo_costs_set(c, key, (uint32_t)n, NULL);
}

static int xpfo_workload(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_run run = {
		.workload = argv[0].s, .nr_cpus = 1, .events = 1000, .seed = 1
	};
	struct nxsim_xpfo_result res;
	struct nxsim_xpfo_costs costs;
	uint64_t n;
	bool m;
	int i, rc = 0;

	nxsim_xpfo_costs_default(&costs);
	for (i = 1; !rc && i < argc; i++) {
		const char *v;

		if (!strncmp(argv[i].s, "cost.", 5)) {
			rc = cost_option(&argv[i], &costs, r);
			run.costs = &costs;
			continue;
		}
		if ((v = nxsim__drv_opt(&argv[i], "policy"))) {
			run.policy = v;
			continue;
		}
		if ((v = nxsim__drv_opt(&argv[i], "version"))) {
			rc = nxsim__drv_xpfo_version(v, &run.version, r);
			continue;
		}
		rc = opt_u64(&argv[i], "cpus", NXSIM_TLB_MAX_CPUS, &n, r, &m);
		if (m) {
			run.nr_cpus = n;
			continue;
		}
		rc = opt_u64(&argv[i], "events", UINT64_MAX, &run.events, r,
			     &m);
		if (!m)
			rc = opt_u64(&argv[i], "seed", UINT64_MAX, &run.seed, r,
				     &m);
		if (!m)
			rc = nxsim__drv_fail(r, -EINVAL,
					     "unknown workload option \"%s\"",
					     argv[i].s);
	}
	if (rc)
		return rc;
	rc = nxsim_xpfo_run_workload(&run, &res);
	if (!rc)
		nxsim__drv_costs(d)->xpfo = costs;
	if (rc == -ENOENT)
		return nxsim__drv_fail(r, rc,
				       "unknown workload or policy "
				       "(xpfo workloads, xpfo policies)");
	if (!rc)
		nxsim__drv_add_result(r, &res);
	return rc;
}

const struct nxsim__drv_verb nxsim__drv_xpfo_verbs[] = {
	{ "xpfo", "create", 1, -1,
	  "NAME [cpus=N] [frames=N] [version=6|7|8|9] [policy=P] "
	  "[disabled=0|1] [clock=CLOCK] [mhz=N] [l1d=SxW] [l1i=SxW] [l2=SxW] "
	  "[repl=lru|random|plru] [seed=N] [ceiling=N] [broadcast=0|1]",
	  "make an XPFO machine (default 1 CPU, 1024 frames, v6 with its "
	  "default policy, Skylake-like TLB); clock=CLOCK times exposures in "
	  "ns on a clock made by \"clock create\"",
	  xpfo_create },
	{ "xpfo", "destroy", 1, 1, "M", "free the machine", xpfo_destroy },
	{ "xpfo", "policies", 0, 0, "", "answers the flush policies",
	  xpfo_policies },
	{ "xpfo", "workloads", 0, 0, "", "answers the synthetic workloads",
	  xpfo_workloads },
	{ "xpfo", "costs", 0, 0, "",
	  "answers the default cost table, NAME=cycles", xpfo_costs },
	{ "xpfo", "alloc", 4, 6, "M CPU PFN kernel|user [DOMAIN] [will_map]",
	  "xpfo_alloc_pages(): a kernel page, or a user page of DOMAIN "
	  "(1-65535; will_map: the kernel writes it now, v9)",
	  xpfo_alloc },
	{ "xpfo", "free", 3, 3, "M CPU PFN", "xpfo_free_pages()", xpfo_free },
	{ "xpfo", "kmap", 3, 3, "M CPU PFN", "xpfo_kmap()", xpfo_kmap },
	{ "xpfo", "kunmap", 3, 3, "M CPU PFN",
	  "xpfo_kunmap(): the last one unmaps a user frame and flushes by the "
	  "policy",
	  xpfo_kunmap },
	{ "xpfo", "refill", 3, -1, "M CPU PFN [PFN...]",
	  "batched per-CPU freelist refill (v8/v9 patch 13): one flush",
	  xpfo_refill },
	{ "xpfo", "kaccess", 4, 4, "M CPU PFN read|write",
	  "the kernel touches PFN through the physmap: answers "
	  "hit|walk|stale|fault",
	  xpfo_kaccess },
	{ "xpfo", "uaccess", 4, 4, "M CPU PFN read|write",
	  "user space touches its frame (-EPERM unless the CPU's domain owns "
	  "it)",
	  xpfo_uaccess },
	{ "xpfo", "switch", 3, 3, "M CPU DOMAIN",
	  "switch_mm_irqs_off() to DOMAIN (0: a kernel thread); runs a "
	  "pending deferred flush",
	  xpfo_switch },
	{ "xpfo", "enter", 2, 2, "M CPU", "a user-to-kernel entry",
	  xpfo_enter },
	{ "xpfo", "exit", 2, 2, "M CPU", "return to user mode", xpfo_exit },
	{ "xpfo", "frame", 2, 2, "M PFN",
	  "answers owner=free|kernel|user domain= user= unmapped= "
	  "kmap_count= physmap_shift= stale_cpus=",
	  xpfo_frame },
	{ "xpfo", "cpu", 2, 2, "M CPU",
	  "answers domain= user_mode= pending_flush= context_switches= "
	  "kernel_entries= pending_set= pending_done= cycles= kernel_cycles= "
	  "exposures= exposure_max_ns= exposure_sum_ns=",
	  xpfo_cpu },
	{ "xpfo", "stats", 1, 1, "M", "answers the event counters",
	  xpfo_stats },
	{ "xpfo", "oracle", 1, 1, "M",
	  "answers the security oracle: stale accesses, faults, exposure "
	  "windows, reuse hazards, kmap windows",
	  xpfo_oracle },
	{ "xpfo", "frame-exposure", 2, 2, "M PFN",
	  "answers PFN's exposure windows: pfn= windows= open= mean_ns= "
	  "max_ns= sum_ns=",
	  xpfo_frame_exposure },
	{ "xpfo", "worst-frames", 1, 2, "M [N]",
	  "answers frames= (how many had windows) and the N (default 5, at "
	  "most 64) with the largest sum_ns, as xpfo frame-exposure",
	  xpfo_worst_frames },
	{ "xpfo", "tlb", 1, 2, "M [CPU]",
	  "answers the TLB counters of CPU, or summed over all", xpfo_tlb },
	{ "xpfo", "tlb-dump", 2, 3, "M CPU [FILE]",
	  "write CPU's TLB entries, one a line (level set= way= va= pfn= "
	  "size= pcid= global= recency=), to FILE or stderr; answers "
	  "entries= and the current pcid=",
	  xpfo_tlb_dump },
	{ "xpfo", "result", 1, 1, "M",
	  "answers the benchmark figures: events= ownership_changes= "
	  "flushes and IPIs per 1000 changes, cycles, oracle counts",
	  xpfo_result },
	{ "xpfo", "workload", 1, -1,
	  "WORKLOAD [policy=P] [version=6|7|8|9] [cpus=N] [events=N] "
	  "[seed=N] [cost.NAME=N|P%...]",
	  "nxsim_xpfo_run_workload() (default 1 CPU, 1000 events, seed 1): "
	  "with XPFO and without; cost.NAME= sets a cost of the table (xpfo "
	  "costs) in cycles or in percent of its default; answers as xpfo "
	  "result plus system_ratio= wall_ratio=",
	  xpfo_workload },
	{ NULL },
};
