// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm.nx_huge_pages and the recovery parameters, input by input.
 *
 * The nx_huge_pages test crosses every parsing trap of docs/params.md (and
 * more) with every state of its state table (OFF, ON, NEVER), with and
 * without VMs, on an affected and an unaffected CPU, in three kernel eras
 * (5.4: no t/f and no "never"; 6.1: t/f and "never"; 6.16: also e/d).
 * Each input's class per era is written out below; the state machine is
 * the state table written out.  For each case it checks the return code,
 * the getter text, the itlb_multihit mirror, and per VM the zaps and the
 * wake-ups.
 */
#include <stdio.h>
#include <string.h>

#include "common/test_util.h"

enum cls { O, F, A, V, X }; /* off, force, auto, never, -EINVAL */
enum st { OFF, ON, NEVER };

struct input {
	const char *s;
	enum cls c54, c61, c616;
};

static const struct input inputs[] = {
	{ "off", O, O, O },	  { "off\n", O, O, O },
	{ "force", F, F, F },	  { "force\n", F, F, F },
	{ "auto", A, A, A },	  { "auto\n", A, A, A },
	{ "never", O, V, V },	  { "never\n", O, V, V },
	{ "OFF", O, O, O },	  { "Off", O, O, O },
	{ "on", F, F, F },	  { "On", F, F, F },
	{ "Y", F, F, F },	  { "y", F, F, F },
	{ "1", F, F, F },	  { "yes", F, F, F },
	{ "true", X, F, F },	  { "T", X, F, F },
	{ "N", O, O, O },	  { "n", O, O, O },
	{ "0", O, O, O },	  { "no", O, O, O },
	{ "false", X, O, O },	  { "Force", X, O, O },
	{ "forced", X, O, O },	  { "force\n\n", X, O, O },
	{ "force ", X, O, O },	  { "neverx", O, O, O },
	{ "never ", O, O, O },	  { "Never", O, O, O },
	{ "never\n\n", O, O, O }, { "never\r\n", O, O, O },
	{ "Auto", X, X, X },	  { "auto ", X, X, X },
	{ "auto\n\n", X, X, X },  { "enable", X, X, F },
	{ "disable", X, X, O },	  { "enabled\n", X, X, F },
	{ "", X, X, X },	  { "\n", X, X, X },
	{ "Y\n", F, F, F },	  { "N\n", O, O, O },
	{ " off", X, X, X },	  { "0x1", O, O, O },
	{ "2", X, X, X },	  { "-1", X, X, X },
	{ "o", X, X, X },	  { "oN", F, F, F },
	{ "oFF\n", O, O, O },	  { "t\n", X, F, F },
	{ "f", X, O, O },	  { "e", X, X, F },
	{ "d", X, X, O },	  { "xyz", X, X, X },
};

/* The state table: from state, input class (A resolved), VMs exist. */
struct transition {
	enum st from;
	enum cls c;
	int vms; /* -1: either */
	enum st to;
	int rc;
	bool zap; /* zap-all-fast and wake on every VM */
};

static const struct transition transitions[] = {
	{ OFF, O, -1, OFF, 0, false },
	{ OFF, F, -1, ON, 0, true },
	{ OFF, V, 0, NEVER, 0, false },
	{ OFF, V, 1, OFF, -EBUSY, false },
	{ OFF, X, -1, OFF, -EINVAL, false },
	{ ON, F, -1, ON, 0, false },
	{ ON, O, -1, OFF, 0, true },
	{ ON, V, 0, NEVER, 0, false },
	{ ON, V, 1, ON, -EBUSY, false },
	{ ON, X, -1, ON, -EINVAL, false },
	{ NEVER, O, -1, NEVER, -EPERM, false },
	{ NEVER, F, -1, NEVER, -EPERM, false },
	{ NEVER, V, -1, NEVER, -EPERM, false },
	{ NEVER, X, -1, NEVER, -EPERM, false },
};

static const struct transition *lookup_transition(enum st from, enum cls c,
						  bool vms)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(transitions); i++) {
		const struct transition *t = &transitions[i];

		if (t->from == from && t->c == c &&
		    (t->vms == -1 || t->vms == vms))
			return t;
	}
	fail_msg("no row in the state table for %d/%d/%d", from, c, vms);
	return NULL;
}

static const char *const state_text[] = { "N\n", "Y\n", "never\n" };
static const char *const state_cmdline[] = { "kvm.nx_huge_pages=off",
					     "kvm.nx_huge_pages=force",
					     "kvm.nx_huge_pages=never" };

#define NR_VMS 2

struct vm_snap {
	struct nxsim_vm_counters c;
	struct nxsim_worker_info w;
};

static void snap(struct nxsim_vm **vms, struct vm_snap *s)
{
	int i;

	for (i = 0; i < NR_VMS; i++) {
		assert_rc(nxsim_vm_counters(vms[i], &s[i].c), 0);
		assert_rc(nxsim_vm_worker_info(vms[i], &s[i].w), 0);
	}
}

static unsigned int run_case(const char *profile, const struct input *in,
			     enum cls c, enum st from, bool with_vms,
			     bool affected)
{
	struct nxsim_host *host;
	struct nxsim_vm *vms[NR_VMS];
	struct nxsim_vcpu *vcpu;
	struct vm_snap before[NR_VMS], after[NR_VMS];
	const struct transition *t;
	char vuln[64];
	int i, rc;

	host = test_host(profile, affected, state_cmdline[from], 0);
	for (i = 0; with_vms && i < NR_VMS; i++) {
		assert_rc(nxsim_vm_create(host, &vms[i]), 0);
		/* 6.14 on: the worker comes with the first KVM_RUN. */
		assert_rc(nxsim_vcpu_create(vms[i], 0, &vcpu), 0);
		assert_rc(nxsim_vcpu_run(vcpu), 0);
	}
	if (with_vms)
		snap(vms, before);

	if (c == A)
		c = affected ? F : O;
	t = lookup_transition(from, c, with_vms);
	rc = nxsim_param_set(host, "nx_huge_pages", in->s);
	if (rc != t->rc)
		fail_msg("%s: \"%s\" from %s (vms %d, affected %d): rc %s, "
			 "want %s",
			 profile, in->s, state_text[from], with_vms, affected,
			 nxsim_strerror(rc), nxsim_strerror(t->rc));
	if (strcmp(test_param(host, "nx_huge_pages"), state_text[t->to]))
		fail_msg("%s: \"%s\" from %s: reads %s, want %s", profile,
			 in->s, state_text[from],
			 test_param(host, "nx_huge_pages"), state_text[t->to]);
	assert_rc(nxsim_host_vulnerability(host, vuln, sizeof(vuln)) > 0, 1);
	if (affected)
		assert_string_equal(
			vuln, t->to == ON ?
				      "KVM: Mitigation: Split huge pages\n" :
				      "KVM: Vulnerable\n");
	else
		assert_string_equal(vuln, "Not affected\n");

	if (with_vms) {
		snap(vms, after);
		for (i = 0; i < NR_VMS; i++) {
			bool has_worker = before[i].w.state ==
					  NXSIM_WORKER_RUNNING;

			assert_int_equal(after[i].c.zap_all -
						 before[i].c.zap_all,
					 t->zap);
			assert_int_equal(after[i].c.wake_calls -
						 before[i].c.wake_calls,
					 t->zap);
			/* VMs made after "never" have no worker to wake. */
			assert_int_equal(has_worker, from != NEVER);
			assert_int_equal(after[i].w.wakes - before[i].w.wakes,
					 t->zap && has_worker);
		}
		for (i = 0; i < NR_VMS; i++)
			assert_rc(nxsim_vm_destroy(vms[i]), 0);
	}
	assert_rc(nxsim_host_destroy(host), 0);
	return 1;
}

static void test_params_nx_huge_pages_table(void **state)
{
	static const char *const profiles[] = { "5.4", "6.1", "6.16" };
	unsigned int cases = 0;
	size_t p, i;
	int from, vms, affected;

	for (p = 0; p < ARRAY_SIZE(profiles); p++) {
		for (i = 0; i < ARRAY_SIZE(inputs); i++) {
			enum cls c = p == 0 ? inputs[i].c54 :
				     p == 1 ? inputs[i].c61 :
					      inputs[i].c616;

			for (from = OFF; from <= NEVER; from++) {
				/* 5.4 has no "never" state to start from. */
				if (p == 0 && from == NEVER)
					continue;
				for (vms = 0; vms < 2; vms++)
					for (affected = 0; affected < 2;
					     affected++)
						cases += run_case(profiles[p],
								  &inputs[i], c,
								  from, vms,
								  affected);
			}
		}
	}
	printf("# nx_huge_pages cases: %u\n", cases);
	assert_int_equal(cases, ARRAY_SIZE(inputs) * (2 + 3 + 3) * 4);
}

/* Spec 2.1: the effective period, ratio by period_ms. */
static void test_params_recovery_period(void **state)
{
	static const struct {
		const char *profile, *cmdline;
		int enabled;
		unsigned int period;
	} cases[] = {
		{ "6.18", "kvm.nx_huge_pages=force", 1, 60000 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=1",
		  1, 3600000 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=7",
		  1, 514285 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=3600",
		  1, 1000 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=10000",
		  1, 1000 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=1 "
		  "kvm.nx_huge_pages_recovery_period_ms=100",
		  1, 100 },
		{ "6.18",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=0 "
		  "kvm.nx_huge_pages_recovery_period_ms=100",
		  0, 0 },
		{ "6.18", "kvm.nx_huge_pages=off", 0, 0 },
		{ "6.1",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=4294967295",
		  1, 1000 },
		/* Before 5.16 the period is fixed at 60 s. */
		{ "5.4", "kvm.nx_huge_pages=force", 1, 60000 },
		{ "5.4",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=1",
		  1, 60000 },
		{ "5.10",
		  "kvm.nx_huge_pages=force "
		  "kvm.nx_huge_pages_recovery_ratio=0",
		  0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host *host =
			test_host(cases[i].profile, false, cases[i].cmdline, 0);
		unsigned int period = 0;
		bool enabled;

		assert_rc(nxsim_param_recovery_period(host, &enabled, &period),
			  0);
		assert_int_equal(enabled, cases[i].enabled);
		assert_int_equal(period, cases[i].period);
		assert_rc(nxsim_param_recovery_period(host, NULL, &period),
			  -EINVAL);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/*
 * Spec 1.7: a ratio or period write wakes every worker iff recovery is
 * enabled afterwards and was not before, or the effective period got
 * shorter.
 */
struct wake_case {
	const char *profile;
	const char *cmdline; /* state before */
	const char *param;
	const char *val;
	int rc;
	const char *reads; /* the parameter afterwards */
	bool wake;
	uint64_t bugs;
};

#define NX_ON "kvm.nx_huge_pages=force "
#define RATIO(x) "kvm.nx_huge_pages_recovery_ratio=" #x " "
#define PERIOD(x) "kvm.nx_huge_pages_recovery_period_ms=" #x " "
#define P_RATIO "nx_huge_pages_recovery_ratio"
#define P_PERIOD "nx_huge_pages_recovery_period_ms"

static const struct wake_case wake_cases[] = {
	/* 60 s -> 100 ms: shorter */
	{ "6.12", NX_ON, P_PERIOD, "100", 0, "100\n", true },
	{ "6.12", NX_ON, P_PERIOD, "0", 0, "0\n", false },
	{ "6.12", NX_ON, P_PERIOD, "60000", 0, "60000\n", false },
	{ "6.12", NX_ON, P_PERIOD, "59999", 0, "59999\n", true },
	{ "6.12", NX_ON PERIOD(100), P_PERIOD, "200", 0, "200\n", false },
	{ "6.12", NX_ON PERIOD(200), P_PERIOD, "100", 0, "100\n", true },
	/* only the ratio, period_ms set: the period is unchanged */
	{ "6.12", NX_ON PERIOD(100), P_RATIO, "1", 0, "1\n", false },
	/* ratio 60 -> 120: 60 s -> 30 s */
	{ "6.12", NX_ON, P_RATIO, "120", 0, "120\n", true },
	{ "6.12", NX_ON, P_RATIO, "30", 0, "30\n", false },
	{ "6.12", NX_ON, P_RATIO, "60", 0, "60\n", false },
	/* enabling recovery */
	{ "6.12", NX_ON RATIO(0), P_RATIO, "60", 0, "60\n", true },
	{ "6.12", NX_ON RATIO(0), P_PERIOD, "100", 0, "100\n", false },
	/* disabling it wakes nobody: the worker notices at its next wake */
	{ "6.12", NX_ON, P_RATIO, "0", 0, "0\n", false },
	/* 3600 and 7200 both give the 1 s floor */
	{ "6.12", NX_ON RATIO(3600), P_RATIO, "7200", 0, "7200\n", false },
	{ "6.12", NX_ON RATIO(1800), P_RATIO, "7200", 0, "7200\n", true },
	/* nx_huge_pages off: recovery is disabled whatever the ratio */
	{ "6.12", "kvm.nx_huge_pages=off " RATIO(0), P_RATIO, "60", 0, "60\n",
	  false },
	/* kstrtouint(s, 0) */
	{ "6.12", NX_ON, P_RATIO, "0x3c", 0, "60\n", false },
	{ "6.12", NX_ON, P_RATIO, "074", 0, "60\n", false },
	/* 60 -> 5: 60 s -> 720 s, longer */
	{ "6.12", NX_ON, P_RATIO, "+5\n", 0, "5\n", false },
	{ "6.12", NX_ON, P_RATIO, "+0x78\n", 0, "120\n", true },
	{ "6.12", NX_ON, P_RATIO, "-1", -EINVAL, "60\n", false },
	{ "6.12", NX_ON, P_RATIO, "", -EINVAL, "60\n", false },
	{ "6.12", NX_ON, P_RATIO, "5 ", -EINVAL, "60\n", false },
	{ "6.12", NX_ON, P_RATIO, "4294967296", -ERANGE, "60\n", false },
	{ "6.12", NX_ON, P_PERIOD, "4294967295", 0, "4294967295\n", false },
	/* after "never" every write is refused, garbage included */
	{ "6.12", "kvm.nx_huge_pages=never", P_RATIO, "1", -EPERM, "60\n",
	  false },
	{ "6.12", "kvm.nx_huge_pages=never", P_PERIOD, "garbage", -EPERM, "0\n",
	  false },
	/* 5.4: fixed 60 s period, only enabling wakes */
	{ "5.4", NX_ON RATIO(0), P_RATIO, "1", 0, "1\n", true },
	{ "5.4", NX_ON, P_RATIO, "3600", 0, "3600\n", false },
	/* raw_period_wake (before f47491d7f30b): raw 0 > 100, no wake */
	{ "6.12", NX_ON, P_PERIOD, "100", 0, "100\n", false,
	  NXSIM_BUG_RAW_PERIOD_WAKE },
	{ "6.12", NX_ON PERIOD(200), P_PERIOD, "100", 0, "100\n", true,
	  NXSIM_BUG_RAW_PERIOD_WAKE },
	{ "6.12", NX_ON RATIO(0), P_RATIO, "60", 0, "60\n", true,
	  NXSIM_BUG_RAW_PERIOD_WAKE },
};

static void test_params_recovery_wake_rules(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wake_cases); i++) {
		const struct wake_case *c = &wake_cases[i];
		struct nxsim_host *host;
		struct nxsim_vm *vm;
		struct nxsim_vm_counters before, after;
		struct nxsim_worker_info wb, wa;
		bool has_worker;

		host = test_host(c->profile, false, c->cmdline, c->bugs);
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vm_counters(vm, &before), 0);
		assert_rc(nxsim_vm_worker_info(vm, &wb), 0);
		has_worker = wb.state == NXSIM_WORKER_RUNNING;
		if (nxsim_param_set(host, c->param, c->val) != c->rc)
			fail_msg("case %zu: %s=\"%s\": want %s", i, c->param,
				 c->val, nxsim_strerror(c->rc));
		if (strcmp(test_param(host, c->param), c->reads))
			fail_msg("case %zu: %s reads %s", i, c->param,
				 test_param(host, c->param));
		assert_rc(nxsim_vm_counters(vm, &after), 0);
		assert_rc(nxsim_vm_worker_info(vm, &wa), 0);
		if (after.wake_calls - before.wake_calls != c->wake)
			fail_msg("case %zu: %s=\"%s\": wake %d", i, c->param,
				 c->val, c->wake);
		assert_int_equal(wa.wakes - wb.wakes, c->wake && has_worker);
		assert_int_equal(after.zap_all, before.zap_all);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/* Loading kvm.ko with command-line parameters, as modprobe does. */
static void test_params_cmdline(void **state)
{
	static const struct {
		const char *profile;
		bool affected, mitigations_off, preempt_rt;
		const char *cmdline;
		int rc;
		const char *nx, *ratio;
	} cases[] = {
		{ "6.18", true, false, false, NULL, 0, "Y\n", "60\n" },
		{ "6.18", false, false, false, NULL, 0, "N\n", "60\n" },
		{ "6.18", true, true, false, NULL, 0, "N\n", "60\n" },
		{ "6.18", true, false, true, NULL, 0, "Y\n", "0\n" },
		{ "6.18", true, false, false, "mitigations=off", 0, "N\n",
		  "60\n" },
		/* early parameters are taken before any module argument */
		{ "6.18", true, false, false,
		  "kvm.nx_huge_pages=auto mitigations=off", 0, "N\n", "60\n" },
		{ "6.18", true, true, false, "mitigations=auto", 0, "Y\n",
		  "60\n" },
		{ "6.18", true, false, false, "mitigations=auto,nosmt", 0,
		  "Y\n", "60\n" },
		{ "6.18", false, false, false, "kvm.nx_huge_pages=force", 0,
		  "Y\n", "60\n" },
		{ "6.18", true, false, false, "kvm.nx_huge_pages=never", 0,
		  "never\n", "60\n" },
		/* the later value wins */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=force kvm.nx_huge_pages=off", 0, "N\n",
		  "60\n" },
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages_recovery_ratio=0 kvm.nx_huge_pages=never",
		  0, "never\n", "0\n" },
		/* a write after "never" fails with -EPERM, failing the load */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=never kvm.nx_huge_pages_recovery_ratio=0",
		  -EPERM, NULL, NULL },
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=never kvm.nx_huge_pages=never", -EPERM,
		  NULL, NULL },
		/* no value: parse_one() refuses before the setter */
		{ "6.18", false, false, false, "kvm.nx_huge_pages", -EINVAL,
		  NULL, NULL },
		{ "6.18", false, false, false, "kvm.nx_huge_pages=bogus",
		  -EINVAL, NULL, NULL },
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages_recovery_ratio=99999999999", -ERANGE, NULL,
		  NULL },
		/* parsing goes on past an error; the last error wins */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=bogus kvm.nx_huge_pages_recovery_ratio=x1",
		  -EINVAL, NULL, NULL },
		{ "6.18", false, false, false, "kvm.nx-huge-pages=force", 0,
		  "Y\n", "60\n" },
		{ "6.18", false, false, false, "kvm.nx_huge_pages=\"force\"", 0,
		  "Y\n", "60\n" },
		{ "6.18", false, false, false, "\"kvm.nx_huge_pages=force\"", 0,
		  "Y\n", "60\n" },
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages_recovery_ratio=0x10", 0, "N\n", "16\n" },
		/* unknown kvm.* names and other modules are ignored */
		{ "6.18", false, false, false,
		  "kvm.tdp_mmu=0 kvm_intel.ept=0 kvm.nx_huge_pages=force quiet",
		  0, "Y\n", "60\n" },
		/* "--" ends the arguments */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=off -- kvm.nx_huge_pages=force", 0, "N\n",
		  "60\n" },
		{ "6.18", false, false, false,
		  "  kvm.nx_huge_pages=force\t kvm.nx_huge_pages_recovery_ratio=7 ",
		  0, "Y\n", "7\n" },
		/* the kernel's isspace() includes NBSP (0xa0, Latin-1) */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=force\xa0kvm.nx_huge_pages_recovery_ratio=9",
		  0, "Y\n", "9\n" },
		/* a quote keeps spaces inside one argument */
		{ "6.18", false, false, false,
		  "kvm.nx_huge_pages=\"force \" kvm.nx_huge_pages_recovery_ratio=9",
		  0, "N\n", "9\n" },
		/* 5.4: "never" is kstrtobool 'n'; period_ms does not exist */
		{ "5.4", true, false, false, "kvm.nx_huge_pages=never", 0,
		  "N\n", "60\n" },
		{ "5.4", true, false, false,
		  "kvm.nx_huge_pages_recovery_period_ms=5", 0, "Y\n", "60\n" },
		{ "5.4", false, false, false, "kvm.nx_huge_pages=true", -EINVAL,
		  NULL, NULL },
		{ "6.1", false, false, false, "kvm.nx_huge_pages=true", 0,
		  "Y\n", "60\n" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu.itlb_multihit = cases[i].affected,
			.cpu.mitigations_off = cases[i].mitigations_off,
			.cpu.preempt_rt = cases[i].preempt_rt,
			.profile = cases[i].profile,
			.cmdline = cases[i].cmdline,
		};
		struct nxsim_host *host = NULL;
		uint64_t live = test_live_allocs();
		int rc = nxsim_host_create(&cfg, &host);

		if (rc != cases[i].rc)
			fail_msg("cmdline \"%s\": %s, want %s",
				 cases[i].cmdline ? cases[i].cmdline : "",
				 nxsim_strerror(rc),
				 nxsim_strerror(cases[i].rc));
		if (rc) {
			assert_int_equal(test_live_allocs(), live);
			continue;
		}
		assert_string_equal(test_param(host, "nx_huge_pages"),
				    cases[i].nx);
		assert_string_equal(test_param(host,
					       "nx_huge_pages_recovery_ratio"),
				    cases[i].ratio);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/* The kernfs write path around the setter, and the getter's buffer. */
static void test_params_sysfs_io(void **state)
{
	struct nxsim_host *host = test_host("6.18", false, NULL, 0);
	static char big[5000];
	char buf[8];

	/* an empty write calls no setter, even after "never" */
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "", 0), 0);
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "force\n", 6), 6);
	assert_string_equal(test_param(host, "nx_huge_pages"), "Y\n");
	/* the setter sees the bytes up to the first NUL */
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "off\0force", 9), 9);
	assert_string_equal(test_param(host, "nx_huge_pages"), "N\n");
	/* more than a page is cut to a page, which kstrtobool accepts */
	memset(big, '1', sizeof(big));
	assert_rc(nxsim_param_write(host, "nx_huge_pages", big, sizeof(big)),
		  4096);
	assert_string_equal(test_param(host, "nx_huge_pages"), "Y\n");
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "maybe", 5),
		  -EINVAL);
	assert_rc(nxsim_param_write(host, "nx_huge_page", "off", 3), -ENOENT);
	assert_rc(nxsim_param_write(host, "nx_huge_pages", NULL, 3), -EINVAL);
	/* the setter itself never gets more than a page */
	big[4096] = '\0';
	assert_rc(nxsim_param_set(host, "nx_huge_pages", big), 0);
	big[4096] = '1';
	big[4097] = '\0';
	assert_rc(nxsim_param_set(host, "nx_huge_pages", big), -E2BIG);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "never"), 0);
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "", 0), 0);
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "off", 3), -EPERM);

	assert_rc(nxsim_param_get(host, "nx_huge_pages", buf, 6), -ENOSPC);
	assert_rc(nxsim_param_get(host, "nx_huge_pages", buf, 7), 6);
	assert_string_equal(buf, "never\n");
	assert_rc(nxsim_param_get(host, "nx_huge_pages", NULL, 7), -EINVAL);
	assert_rc(nxsim_param_get(host, "bogus", buf, 7), -ENOENT);
	assert_rc(nxsim_param_get(host, "nx-huge-pages", buf, 7), -ENOENT);
	assert_rc(nxsim_param_set(NULL, "nx_huge_pages", "off"), -EINVAL);
	assert_rc(nxsim_param_set(host, NULL, "off"), -EINVAL);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", NULL), -EINVAL);
	assert_rc(nxsim_param_set(host, "kvm.nx_huge_pages", "off"), -ENOENT);
	assert_rc(nxsim_host_destroy(host), 0);
}

static void test_params_names(void **state)
{
	struct nxsim_host *h54 = test_host("5.4", false, NULL, 0);
	struct nxsim_host *h61 = test_host("6.1", false, NULL, 0);
	char buf[16];

	assert_string_equal(nxsim_param_name(h61, 0), "nx_huge_pages");
	assert_string_equal(nxsim_param_name(h61, 1),
			    "nx_huge_pages_recovery_ratio");
	assert_string_equal(nxsim_param_name(h61, 2),
			    "nx_huge_pages_recovery_period_ms");
	assert_string_equal(nxsim_param_name(h61, 3), "eager_page_split");
	assert_string_equal(nxsim_param_name(h61, 4), "tdp_mmu");
	assert_string_equal(nxsim_param_name(h61, 5), "ept");
	assert_null(nxsim_param_name(h61, 6));
	assert_string_equal(nxsim_param_name(h54, 2), "ept");
	assert_null(nxsim_param_name(h54, 3));
	assert_rc(nxsim_param_get(h54, P_PERIOD, buf, sizeof(buf)), -ENOENT);
	assert_rc(nxsim_param_set(h54, P_PERIOD, "5"), -ENOENT);
	assert_rc(nxsim_host_destroy(h54), 0);
	assert_rc(nxsim_host_destroy(h61), 0);
}

/* An AMD host of @profile with @cmdline; @no_tdp: cpu.no_tdp. */
static struct nxsim_host *amd_host(const char *profile, const char *cmdline,
				   bool no_tdp)
{
	struct nxsim_host_config cfg = {
		.cpu = { .amd = true, .no_tdp = no_tdp },
		.profile = profile,
		.cmdline = cmdline,
	};
	struct nxsim_host *host = NULL;

	assert_rc(nxsim_host_create(&cfg, &host), 0);
	return host;
}

/*
 * kvm.tdp_mmu: 0644 in 6.1's tdp_mmu.c (module_param_named(tdp_mmu,
 * tdp_mmu_enabled, bool, 0644)), 0444 from 3af15ff47c4d (6.3), where it
 * reads tdp_mmu_enabled as kvm_configure_mmu() set it (N without TDP);
 * opt-in on 5.10, absent on 5.4.  kvm_amd.npt (svm.c) and kvm_intel.ept
 * (vmx.c) are 0444: a write cannot open the file (kernfs_fop_open(),
 * -EACCES); all of them come from the command line.
 */
static void test_params_mmu_choice(void **state)
{
	struct nxsim_host *h;
	char buf[8];

	h = amd_host("6.1", "kvm.tdp_mmu=0 kvm_amd.npt=0", false);
	assert_string_equal(test_param(h, "tdp_mmu"), "N\n");
	assert_string_equal(test_param(h, "npt"), "N\n");
	assert_rc(nxsim_param_get(h, "ept", buf, sizeof(buf)), -ENOENT);
	assert_rc(nxsim_param_set(h, "npt", "1"), -EACCES);
	assert_rc(nxsim_param_write(h, "npt", "1\n", 2), -EACCES);
	assert_rc(nxsim_param_write(h, "npt", "", 0), -EACCES);
	assert_string_equal(test_param(h, "npt"), "N\n");
	assert_rc(nxsim_param_set(h, "tdp_mmu", "1"), 0);
	assert_string_equal(test_param(h, "tdp_mmu"), "Y\n");
	assert_rc(nxsim_host_destroy(h), 0);

	/* 6.1 without TDP still reads the plain bool */
	h = amd_host("6.1", NULL, true);
	assert_string_equal(test_param(h, "tdp_mmu"), "Y\n");
	assert_string_equal(test_param(h, "npt"), "N\n");
	assert_rc(nxsim_host_destroy(h), 0);

	h = amd_host("6.6", NULL, true);
	assert_string_equal(test_param(h, "tdp_mmu"), "N\n");
	assert_rc(nxsim_param_set(h, "tdp_mmu", "1"), -EACCES);
	assert_rc(nxsim_host_destroy(h), 0);
	h = amd_host("6.6", "kvm.tdp_mmu=0", false);
	assert_string_equal(test_param(h, "tdp_mmu"), "N\n");
	assert_rc(nxsim_param_set(h, "tdp_mmu", "1"), -EACCES);
	assert_rc(nxsim_host_destroy(h), 0);

	h = test_host("6.1", true, "kvm_intel.ept=0 kvm_amd.npt=1", 0);
	assert_string_equal(test_param(h, "ept"), "N\n");
	assert_rc(nxsim_param_get(h, "npt", buf, sizeof(buf)), -ENOENT);
	assert_rc(nxsim_host_destroy(h), 0);
	h = test_host("5.10", true, NULL, 0);
	assert_string_equal(test_param(h, "tdp_mmu"), "N\n");
	assert_rc(nxsim_host_destroy(h), 0);
	h = test_host("5.10", true, "kvm.tdp_mmu=1", 0);
	assert_string_equal(test_param(h, "tdp_mmu"), "Y\n");
	assert_rc(nxsim_host_destroy(h), 0);
	h = test_host("5.4", true, "kvm.tdp_mmu=1", 0);
	assert_rc(nxsim_param_get(h, "tdp_mmu", buf, sizeof(buf)), -ENOENT);
	assert_rc(nxsim_host_destroy(h), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_nx_huge_pages_table),
		cmocka_unit_test(test_params_recovery_period),
		cmocka_unit_test(test_params_recovery_wake_rules),
		cmocka_unit_test(test_params_cmdline),
		cmocka_unit_test(test_params_sysfs_io),
		cmocka_unit_test(test_params_names),
		cmocka_unit_test(test_params_mmu_choice),
	};

	return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
