// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver's guest-workload verb (include/nxsim/workload.h,
 * docs/guest-tlb.md): one run of a synthetic guest, a lackey trace or
 * the execute_perf_test shape on vCPU TLBs, answered as the result's
 * stats set.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/workload.h>
#include <nxsim/stats.h>
#include <nxsim/trace.h>

#include "driver.h"
#include "numarg.h"

#define MIB ((uint64_t)1 << 20)

enum {
	O_VCPUS,
	O_ACCESSES,
	O_CODE,
	O_DATA,
	O_EXEC,
	O_JIT,
	O_SEED,
	O_RATIO,
	O_PERIOD,
	O_BYTES,
	NR_OPTS
};

static const struct {
	const char *key;
	uint64_t max, def;
} num_opts[NR_OPTS] = {
	[O_VCPUS] = { "vcpus", 1024, 1 },
	[O_ACCESSES] = { "accesses", UINT32_MAX, 100000 },
	[O_CODE] = { "code_mib", 1 << 20, 8 },
	[O_DATA] = { "data_mib", 1 << 20, 32 },
	[O_EXEC] = { "exec_permille", 1000, 600 },
	[O_JIT] = { "jit", 1 << 20, 64 },
	[O_SEED] = { "seed", UINT64_MAX, 1 },
	[O_RATIO] = { "ratio", UINT32_MAX, 60 },
	[O_PERIOD] = { "period_ms", UINT32_MAX, 0 },
	[O_BYTES] = { "bytes_mib", 1 << 20, 8 },
};

static int level_of(const char *s, int *level)
{
	static const char *const names[] = { "4k", "2m", "1g" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*level = i + 1;
			return 0;
		}
	return -EINVAL;
}

/*
 * flat: gpa = gva (the fast mode); tables: the guest's page tables, with
 * TDP; shadow: the guest's page tables on a host without TDP.
 */
static int paging_of(const char *s, struct nxsim_workload_config *cfg)
{
	if (!strcmp(s, "flat") || !strcmp(s, "tables") ||
	    !strcmp(s, "shadow")) {
		cfg->guest_tables = strcmp(s, "flat") != 0;
		cfg->no_tdp = !strcmp(s, "shadow");
		return 0;
	}
	return -EINVAL;
}

static int guest_run(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	const char *wl = "synth", *trace = NULL, *s;
	struct nxsim_workload_result res = { 0 };
	struct nxsim_workload_config cfg;
	struct nxsim_workload_synth sy = { 0 };
	struct nxsim_trace *t;
	uint64_t v[NR_OPTS];
	size_t k;
	int i, rc = 0;

	(void)d;
	for (k = 0; k < NR_OPTS; k++)
		v[k] = num_opts[k].def;
	nxsim_workload_config_default(&cfg);
	for (i = 0; !rc && i < argc; i++) {
		if ((s = nxsim__drv_opt(&argv[i], "workload"))) {
			wl = s;
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "trace"))) {
			trace = s;
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "profile"))) {
			cfg.profile = s;
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "policy"))) {
			cfg.nx_huge_pages = s;
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "guest"))) {
			if (level_of(s, &cfg.guest_level))
				rc = nxsim__drv_fail(r, -EINVAL,
						     "guest is 4k, 2m or 1g");
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "paging"))) {
			if (paging_of(s, &cfg))
				rc = nxsim__drv_fail(
					r, -EINVAL,
					"paging is flat, tables or shadow");
			continue;
		}
		if ((s = nxsim__drv_opt(&argv[i], "host"))) {
			if (level_of(s, &cfg.host_level))
				rc = nxsim__drv_fail(r, -EINVAL,
						     "host is 4k, 2m or 1g");
			continue;
		}
		for (k = 0; k < NR_OPTS; k++)
			if ((s = nxsim__drv_opt(&argv[i], num_opts[k].key)))
				break;
		if (k == NR_OPTS)
			return nxsim__drv_fail(r, -EINVAL,
					       "unknown guest option \"%s\"",
					       argv[i].s);
		rc = nxsim__drv_opt_u64(s, num_opts[k].max, &v[k], r);
	}
	if (rc)
		return rc;
	cfg.nr_vcpus = (unsigned int)v[O_VCPUS];
	cfg.recovery_ratio = (unsigned int)v[O_RATIO];
	cfg.recovery_period_ms = (unsigned int)v[O_PERIOD];
	if (!strcmp(wl, "synth")) {
		sy.seed = v[O_SEED];
		sy.accesses = v[O_ACCESSES];
		sy.code_bytes = v[O_CODE] * MIB;
		sy.data_bytes = v[O_DATA] * MIB;
		sy.exec_permille = (unsigned int)v[O_EXEC];
		sy.jump_permille = 20;
		sy.far_permille = 50;
		sy.write_permille = 300;
		sy.jit_pages = v[O_JIT];
		rc = nxsim_workload_run_synth(&cfg, &sy, &res);
	} else if (!strcmp(wl, "execute")) {
		rc = nxsim_workload_run_execute(&cfg, v[O_BYTES] * MIB, &res);
	} else if (!strcmp(wl, "lackey")) {
		if (!trace)
			return nxsim__drv_fail(r, -EINVAL,
					       "workload=lackey needs trace=");
		rc = nxsim_trace_open(trace, NXSIM_TRACE_AUTO, &t, NULL);
		if (rc)
			return nxsim__drv_fail(r, rc, "%s: cannot open", trace);
		rc = nxsim_workload_run_trace(&cfg, t, &res);
		if (rc && *nxsim_trace_error(t)) {
			rc = nxsim__drv_fail(r, rc, "%s: %s", trace,
					     nxsim_trace_error(t));
			nxsim_trace_close(t);
			return rc;
		}
		nxsim_trace_close(t);
	} else {
		return nxsim__drv_fail(r, -EINVAL,
				       "workload is synth, lackey or execute");
	}
	if (rc == -E2BIG)
		return nxsim__drv_fail(r, rc,
				       "more than %llu GiB of guest memory in "
				       "all (bytes_mib x vcpus, or code, data "
				       "and jit)",
				       NXSIM_WORKLOAD_MAX_BYTES >> 30);
	if (rc)
		return nxsim__drv_fail(r, rc,
				       "bad run (profile, policy off, force or "
				       "never, vcpus 1 to 1024, guest tables "
				       "below 1 TiB)");
	nxsim__drv_add_stats(r, NXSIM_STATS_WORKLOAD_RESULT, &res, NULL);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_workload_verbs[] = {
	{ "guest", "run", 0, 19,
	  "[workload=synth|lackey|execute] [trace=PATH] [profile=P] "
	  "[policy=off|force|never] [guest=4k|2m|1g] [host=4k|2m|1g] "
	  "[paging=flat|tables|shadow] "
	  "[vcpus=N] [accesses=N] [code_mib=N] [data_mib=N] "
	  "[exec_permille=N] [jit=N] [seed=N] [ratio=N] [period_ms=N] "
	  "[bytes_mib=N]",
	  "a guest workload on vCPU TLBs (docs/guest-tlb.md): answers "
	  "accesses, exec, l1d_mpka, l1i_mpka, l2_mpka, walks, walk_cycles, "
	  "faults, splits, huge_zaps, recovery_zapped, remote_flushes, "
	  "vcpu_flushes, huge_fraction, cycles, phase_cycles",
	  guest_run },
	{ NULL },
};
