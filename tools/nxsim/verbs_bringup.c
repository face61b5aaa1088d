// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for the bring-up lab (include/nxsim/bringup.h): VM creation
 * and first-run latency in modelled kernel time under each recovery-worker
 * policy, and its cost table.
 */
#include <inttypes.h>
#include <errno.h>
#include <string.h>

#include "numarg.h"

static int bringup_costs(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_bringup_costs c;

	nxsim_bringup_costs_default(&c);
	nxsim__drv_add_stats(r, NXSIM_STATS_BRINGUP_COSTS, &c, NULL);
	return 0;
}

static int parse_policy(const char *s, struct nxsim_bringup_config *cfg,
			struct nxsim__drv_reply *r)
{
	const char *name;

	for (unsigned int p = 0; (name = nxsim_bringup_policy_name(p)); p++) {
		if (!strcmp(s, name)) {
			cfg->policy = p;
			return 0;
		}
	}
	return nxsim__drv_fail(
		r, -EINVAL, "policy is kthread, vhost or never, not \"%s\"", s);
}

/*
 * " what_name=value" for each field of @st (NXSIM_STATS_BRINGUP_LATENCY)
 * and, if @hist, " what_hist=LOW_US:COUNT,..." of its non-empty buckets.
 */
static void add_latency(struct nxsim__drv_reply *r, const char *what,
			const struct nxsim_bringup_stats *st, bool hist)
{
	const struct nxsim_stat_desc *d;
	const char *sep = "=";
	char val[32];

	for (unsigned int i = 0;
	     (d = nxsim_stats_desc(NXSIM_STATS_BRINGUP_LATENCY, i)); i++) {
		nxsim_stat_format(d, st, val, sizeof(val));
		nxsim__drv_add(r, " %s_%s=%s", what, d->name, val);
	}
	if (!hist)
		return;
	nxsim__drv_add(r, " %s_hist", what);
	for (unsigned int b = 0; b < NXSIM_BRINGUP_HIST; b++) {
		if (!st->hist[b])
			continue;
		nxsim__drv_add(r, "%s%" PRIu64 ":%" PRIu64, sep,
			       b ? UINT64_C(1) << b : 0, st->hist[b]);
		sep = ",";
	}
}

/* The key=N options of the run verb. */
enum {
	O_CPUS,
	O_HZ,
	O_PER_CPU,
	O_CREATORS,
	O_VMS,
	O_HOLD,
	O_JITTER,
	O_FDM,
	O_CPUSET,
	O_TDP_MMU,
	O_FAIL,
	O_SEED,
	O_HIST,
	NR_OPTS
};

static const struct num_opt {
	const char *key;
	uint64_t max;
	uint64_t mult; /* to the config's unit */
	uint64_t def;
} num_opts[NR_OPTS] = {
	[O_CPUS] = { "cpus", 65536, 1, 1 },
	[O_HZ] = { "hz", 1000, 1, 0 },
	[O_PER_CPU] = { "per_cpu", 100000, 1, 0 },
	[O_CREATORS] = { "creators", 100000, 1, 1 },
	[O_VMS] = { "vms", NXSIM_BRINGUP_MAX_VMS, 1, 1 },
	[O_HOLD] = { "hold_ms", 1000000, 1000000, 0 },
	[O_JITTER] = { "jitter_ms", 1000000, 1000000, 0 },
	[O_FDM] = { "favordynmods", 1, 1, 0 },
	[O_CPUSET] = { "cpuset_rwsem", 1, 1, 0 },
	[O_TDP_MMU] = { "tdp_mmu", 1, 1, 1 },
	[O_FAIL] = { "fail_nth", UINT32_MAX, 1, 0 },
	[O_SEED] = { "seed", UINT64_MAX, 1, 1 },
	[O_HIST] = { "hist", 1, 1, 0 },
};

static int bringup_run(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_bringup_config cfg = { .policy = NXSIM_BRINGUP_KTHREAD };
	struct nxsim_bringup_result res = { 0 };
	struct nxsim_bringup_costs costs;
	uint64_t v[NR_OPTS];
	const char *s, *why;
	size_t k, at;
	int i, rc = 0;

	for (k = 0; k < NR_OPTS; k++)
		v[k] = num_opts[k].def;
	nxsim_bringup_costs_default(&costs);
	for (i = 0; !rc && i < argc; i++) {
		if ((s = nxsim__drv_opt(&argv[i], "policy"))) {
			rc = parse_policy(s, &cfg, r);
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "costs"))) {
			rc = nxsim_bringup_costs_parse(&costs, s, &why, &at);
			if (rc)
				rc = nxsim__drv_fail(
					r, rc, "costs: '%.*s': %s",
					(int)strcspn(s + at,
						     NXSIM_BRINGUP_COSTS_SEPS),
					s + at, why);
			continue;
		}
		for (k = 0; k < NR_OPTS; k++)
			if ((s = nxsim__drv_opt(&argv[i], num_opts[k].key)))
				break;
		if (k == NR_OPTS)
			return nxsim__drv_fail(r, -EINVAL,
					       "unknown bringup option \"%s\"",
					       argv[i].s);
		rc = nxsim__drv_opt_u64(s, num_opts[k].max, &v[k], r);
		v[k] *= num_opts[k].mult;
	}
	if (rc)
		return rc;
	/* at most 65536 x 100000: no wrap in 64 bits */
	if (v[O_CPUS] * v[O_PER_CPU] > NXSIM_BRINGUP_MAX_VMS)
		return nxsim__drv_fail(r, -ERANGE,
				       "too many idle VMs: cpus x per_cpu is "
				       "at most %u",
				       NXSIM_BRINGUP_MAX_VMS);
	cfg.cpus = v[O_CPUS];
	cfg.hz = v[O_HZ];
	cfg.bg_vms = v[O_CPUS] * v[O_PER_CPU];
	cfg.creators = v[O_CREATORS];
	cfg.vms = v[O_VMS];
	cfg.hold_ns = v[O_HOLD];
	cfg.hold_jitter_ns = v[O_JITTER];
	cfg.favordynmods = v[O_FDM];
	cfg.cpuset_rwsem = v[O_CPUSET];
	cfg.no_tdp_mmu = !v[O_TDP_MMU];
	cfg.worker_fail_nth = v[O_FAIL];
	cfg.seed = v[O_SEED];
	cfg.costs = &costs;
	rc = nxsim_bringup_run(&cfg, &res);
	if (!rc)
		nxsim__drv_costs(d)->bringup = costs;
	if (rc == -EINVAL)
		return nxsim__drv_fail(r, rc,
				       "bad lab (cpus, creators and vms are at "
				       "least 1; hz is 100, 250, 300 or 1000)");
	if (rc) /* -ENOMEM: the API's own text */
		return rc;
	add_latency(r, "create", &res.create, v[O_HIST]);
	if (res.worker.n)
		add_latency(r, "worker", &res.worker, v[O_HIST]);
	add_latency(r, "first_run", &res.first_run, v[O_HIST]);
	nxsim__drv_add_stats(r, NXSIM_STATS_BRINGUP_RESULT, &res, NULL);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_bringup_verbs[] = {
	{ "bringup", "run", 0, 16,
	  "[policy=kthread|vhost|never] [cpus=N] [hz=N] [per_cpu=N] "
	  "[creators=K] [vms=M] [hold_ms=N] [jitter_ms=N] "
	  "[favordynmods=0|1] [cpuset_rwsem=0|1] [tdp_mmu=0|1] [fail_nth=N] "
	  "[seed=N] [hist=0|1] "
	  "[costs=\"NAME=V,...\"]",
	  "nxsim_bringup_run(): M VMs brought up by K creators on N CPUs "
	  "with per_cpu idle VMs per CPU (default 1 of each, kthread, "
	  "HZ=250, seed 1); answers create_, worker_ (kthread) and "
	  "first_run_ n, p50_ns, p95_ns, p99_ns, max_ns, mean_ns (hist=1: "
	  "and their funclatency buckets, LOW_US:COUNT,...), makespan_ns, "
	  "vms_per_s, grace_periods, attach_waits, worker_failures",
	  bringup_run },
	{ "bringup", "costs", 0, 0, "",
	  "answers the default bring-up cost table, NAME=value",
	  bringup_costs },
	{ NULL },
};
