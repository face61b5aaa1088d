// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for hosts (loading kvm.ko: include/nxsim/host.h) and their
 * module parameters (/sys/module/kvm/parameters: include/nxsim/param.h).
 * The param verbs act on the current host.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "numarg.h"

static const struct {
	const char *name;
	size_t off;
} cpu_flags[] = {
#define CPU_FLAG(f)                               \
	{                                         \
#f, offsetof(struct nxsim_cpu, f) \
	}
	CPU_FLAG(itlb_multihit), CPU_FLAG(mitigations_off),
	CPU_FLAG(preempt_rt),	 CPU_FLAG(amd),
	CPU_FLAG(no_tdp),	 CPU_FLAG(no_tdp_mmu),
	CPU_FLAG(tdp_mmu),	 CPU_FLAG(no_gbpages),
	CPU_FLAG(la57),
#undef CPU_FLAG
};

static const struct {
	const char *name;
	uint64_t bug;
} bug_names[] = {
	{ "raw_period_wake", NXSIM_BUG_RAW_PERIOD_WAKE },
	{ "wake_null_worker", NXSIM_BUG_WAKE_NULL_WORKER },
	{ "worker_once_fail", NXSIM_BUG_WORKER_ONCE_FAIL },
	{ "wake_killed_worker", NXSIM_BUG_WAKE_KILLED_WORKER },
	{ "never_create_race", NXSIM_BUG_NEVER_CREATE_RACE },
	{ "track_any_level", NXSIM_BUG_TRACK_ANY_LEVEL },
	{ "untagged_nx", NXSIM_BUG_UNTAGGED_NX },
	{ "adjust_any_nonleaf", NXSIM_BUG_ADJUST_ANY_NONLEAF },
	{ "recover_dirty", NXSIM_BUG_RECOVER_DIRTY },
	{ "untrack_wrong_type", NXSIM_BUG_UNTRACK_WRONG_TYPE },
	{ "recover_no_commit", NXSIM_BUG_RECOVER_NO_COMMIT },
	{ "tdp_flag_after_link", NXSIM_BUG_TDP_FLAG_AFTER_LINK },
	{ "smm_slot_lookup", NXSIM_BUG_SMM_SLOT_LOOKUP },
	{ "setter_lock_order", NXSIM_BUG_SETTER_LOCK_ORDER },
	{ "nonpaging_untracked", NXSIM_BUG_NONPAGING_UNTRACKED },
};

/* "a,b,c" of cpu= or bugs=; "none" is the empty list. */
static int parse_list(char *list, struct nxsim_host_config *cfg, bool cpu,
		      struct nxsim__drv_reply *r)
{
	char *save, *w;
	size_t i;

	if (!strcmp(list, "none"))
		return 0;
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (i = 0; cpu && i < NXSIM__DRV_NELEM(cpu_flags); i++) {
			if (!strcmp(w, cpu_flags[i].name)) {
				*(bool *)((char *)&cfg->cpu +
					  cpu_flags[i].off) = true;
				found = true;
			}
		}
		for (i = 0; !cpu && i < NXSIM__DRV_NELEM(bug_names); i++) {
			if (!strcmp(w, bug_names[i].name)) {
				cfg->bugs |= bug_names[i].bug;
				found = true;
			}
		}
		if (!found)
			return nxsim__drv_fail(r, -EINVAL, "unknown %s \"%s\"",
					       cpu ? "cpu flag" : "bug", w);
	}
	return 0;
}

static int host_option(struct nxsim__drv *d, struct nxsim__drv_tok *t,
		       struct nxsim_host_config *cfg,
		       struct nxsim__drv_reply *r)
{
	const char *v;
	uint64_t n;
	int rc;

	if ((v = nxsim__drv_opt(t, "cpu")))
		return parse_list((char *)v, cfg, true, r);
	if ((v = nxsim__drv_opt(t, "bugs")))
		return parse_list((char *)v, cfg, false, r);
	if ((v = nxsim__drv_opt(t, "profile"))) {
		unsigned int i;
		const char *name;

		for (i = 0; (name = nxsim_profile_name(i)); i++)
			if (!strcmp(name, v))
				break;
		if (!name)
			return nxsim__drv_fail(r, -EINVAL,
					       "unknown profile \"%s\" "
					       "(see \"profiles\")",
					       v);
		cfg->profile = v;
		return 0;
	}
	if ((v = nxsim__drv_opt(t, "cmdline"))) {
		cfg->cmdline = v;
		return 0;
	}
	if ((v = nxsim__drv_opt(t, "nx_recovery"))) {
		unsigned int i;
		const char *name;

		for (i = 0; (name = nxsim_nx_recovery_name(i)); i++)
			if (!strcmp(name, v))
				break;
		if (!name)
			return nxsim__drv_fail(
				r, -ENOENT,
				"unknown NX recovery rule \"%s\" "
				"(see \"plugin load\")",
				v);
		cfg->nx_recovery = v;
		return 0;
	}
	if ((v = nxsim__drv_opt(t, "clock"))) {
		if (!strcmp(v, "virtual"))
			cfg->time = NXSIM_CLOCK_VIRTUAL;
		else if (!strcmp(v, "real"))
			cfg->time = NXSIM_CLOCK_REAL;
		else if (!(cfg->clock =
				   nxsim__drv_find(d, v, NXSIM__DRV_CLOCK, r)))
			return nxsim__drv_fail(r, -EINVAL,
					       "clock is virtual, real or the "
					       "name of a clock");
		return 0;
	}
	v = nxsim__drv_opt(t, "phys_bits");
	if (!v)
		v = nxsim__drv_opt(t, "hz");
	if (!v)
		return nxsim__drv_fail(r, -EINVAL, "unknown host option \"%s\"",
				       t->s);
	rc = nxsim__drv_opt_u64(v, UINT32_MAX, &n, r);
	if (rc)
		return rc;
	if (t->s[0] == 'h')
		cfg->cpu.hz = n;
	else
		cfg->cpu.phys_bits = n;
	return 0;
}

static int host_create(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host_config cfg = { .time = NXSIM_CLOCK_VIRTUAL };
	struct nxsim_host *host;
	int i, rc;

	rc = nxsim__drv_name_free(d, &argv[0], r);
	for (i = 1; !rc && i < argc; i++)
		rc = host_option(d, &argv[i], &cfg, r);
	if (!rc)
		rc = nxsim_host_create(&cfg, &host);
	if (rc)
		return rc;
	rc = nxsim__drv_add_object(d, argv[0].s, NXSIM__DRV_HOST, host);
	if (rc) {
		nxsim_host_destroy(host);
		return rc;
	}
	nxsim__drv_use_host(d, host);
	nxsim__drv_add(r, " profile=%s", nxsim_host_profile(host));
	return 0;
}

static int host_destroy(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, argv[0].s, r);
	int rc;

	if (!host)
		return -ENOENT;
	rc = nxsim_host_destroy(host);
	if (!rc)
		nxsim__drv_forget_host(d, host);
	return rc;
}

static int host_use(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, argv[0].s, r);

	if (!host)
		return -ENOENT;
	nxsim__drv_use_host(d, host);
	return 0;
}

static int host_counters(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_host *host =
		nxsim__drv_host(d, argc ? argv[0].s : NULL, r);
	struct nxsim_host_counters c;
	int rc;

	if (!host)
		return -ENOENT;
	rc = nxsim_host_counters(host, &c);
	if (rc)
		return rc;
	nxsim__drv_add_stats(r, NXSIM_STATS_HOST, &c, NULL);
	return 0;
}

static int host_cpufreq(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host =
		nxsim__drv_host(d, argc ? argv[0].s : NULL, r);
	int64_t n;

	if (!host)
		return -ENOENT;
	n = nxsim_host_cpufreq_notify(host);
	if (n < 0)
		return (int)n;
	nxsim__drv_add(r, " vcpus=%" PRId64, n);
	return 0;
}

static int host_vuln(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host =
		nxsim__drv_host(d, argc ? argv[0].s : NULL, r);
	char buf[256];
	int n;

	if (!host)
		return -ENOENT;
	n = nxsim_host_vulnerability(host, buf, sizeof(buf));
	if (n < 0)
		return n;
	nxsim__drv_quote(r, NULL, buf, n);
	return 0;
}

static int profiles(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	const char *name;
	unsigned int i;

	for (i = 0; (name = nxsim_profile_name(i)); i++)
		nxsim__drv_add(r, " %s", name);
	return 0;
}

static int param_get(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, NULL, r);
	char buf[256];
	ssize_t n;

	if (!host)
		return -ENOENT;
	n = nxsim_param_get(host, argv[0].s, buf, sizeof(buf));
	if (n < 0)
		return n;
	nxsim__drv_quote(r, NULL, buf, n);
	return 0;
}

static int param_set(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, NULL, r);

	if (!host)
		return -ENOENT;
	return nxsim_param_set(host, argv[0].s, argv[1].s);
}

static int param_write(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, NULL, r);
	ssize_t n;

	if (!host)
		return -ENOENT;
	n = nxsim_param_write(host, argv[0].s, argv[1].s, argv[1].len);
	if (n < 0)
		return n;
	nxsim__drv_add(r, " %zd", n);
	return 0;
}

static int param_list(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, NULL, r);
	const char *name;
	unsigned int i;

	if (!host)
		return -ENOENT;
	for (i = 0; (name = nxsim_param_name(host, i)); i++)
		nxsim__drv_add(r, " %s", name);
	return 0;
}

static int param_period(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host = nxsim__drv_host(d, NULL, r);
	unsigned int ms;
	bool enabled;

	if (!host)
		return -ENOENT;
	nxsim_param_recovery_period(host, &enabled, &ms);
	if (enabled)
		nxsim__drv_add(r, " enabled=1 period_ms=%u", ms);
	else
		nxsim__drv_add(r, " enabled=0");
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_host_verbs[] = {
	{ "host", "create", 1, -1,
	  "NAME [profile=P] [cpu=F,F..] [cmdline=S] [clock=virtual|real|CLOCK] "
	  "[bugs=B,B..] [phys_bits=N] [hz=N] [nx_recovery=R]",
	  "load kvm.ko (nxsim_host_create) and make NAME the current host; "
	  "cpu flags: itlb_multihit mitigations_off preempt_rt amd no_tdp "
	  "no_tdp_mmu tdp_mmu no_gbpages la57; bugs: raw_period_wake "
	  "wake_null_worker worker_once_fail wake_killed_worker "
	  "never_create_race track_any_level untagged_nx adjust_any_nonleaf "
	  "recover_dirty untrack_wrong_type recover_no_commit "
	  "tdp_flag_after_link smm_slot_lookup setter_lock_order "
	  "nonpaging_untracked; "
	  "clock=CLOCK shares a clock made by \"clock create\"; answers "
	  "profile=P",
	  host_create },
	{ "host", "destroy", 1, 1, "NAME",
	  "unload kvm.ko (-EBUSY while VMs exist)", host_destroy },
	{ "host", "use", 1, 1, "NAME", "make NAME the current host", host_use },
	{ "host", "counters", 0, 1, "[NAME]",
	  "answers param_sets= vms_created= vms_destroyed= oopses=",
	  host_counters },
	{ "host", "cpufreq", 0, 1, "[NAME]",
	  "a CPU frequency change (__kvmclock_cpufreq_notifier()): answers "
	  "vcpus= asked for a clock update",
	  host_cpufreq },
	{ "host", "vuln", 0, 1, "[NAME]",
	  "answers /sys/devices/system/cpu/vulnerabilities/itlb_multihit",
	  host_vuln },
	{ "profiles", NULL, 0, 0, "",
	  "answers the kernel profiles, oldest first", profiles },
	{ "param", "get", 1, 1, "PARAM",
	  "read /sys/module/kvm/parameters/PARAM: answers its text",
	  param_get },
	{ "param", "set", 2, 2, "PARAM VALUE",
	  "call PARAM's setter with VALUE (echo -n; add \\n yourself)",
	  param_set },
	{ "param", "write", 2, 2, "PARAM BYTES",
	  "write(2) BYTES (escapes allowed, NULs too) to PARAM's file: "
	  "answers the bytes consumed",
	  param_write },
	{ "param", "list", 0, 0, "", "answers the host's parameter names",
	  param_list },
	{ "param", "period", 0, 0, "",
	  "calc_nx_huge_pages_recovery_period(): answers enabled=1 "
	  "period_ms=N or enabled=0",
	  param_period },
	{ NULL },
};
