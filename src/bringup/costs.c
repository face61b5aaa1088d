// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up cost table: what each step of bringing a VM up costs in
 * kernel time, each default with where it comes from.  "measured" rows come
 * from docs/bringup.md's reference-machine figures, "calibrated" rows were
 * chosen so the lab reproduces a published figure (named in the row), and
 * "assumption" rows are modelling choices.  docs/bringup.md has the table
 * with its sources in full.
 *
 * Left out: per-CPU-model variation; one table stands for one host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/bringup.h>

#include "core/compiler.h"
#include "core/cost_table.h"

/* ROW_ stringizes the range after ROW expanded US_MAX. */
#define ROW_(f, d, lo, hi, s)                                               \
	{                                                                   \
		.name = #f, .off = offsetof(struct nxsim_bringup_costs, f), \
		.def = d, .min = lo, .max = hi,                             \
		.range = "value outside [" #lo ", " #hi "]", .source = s,   \
	}
#define ROW(f, d, lo, hi, s) ROW_(f, d, lo, hi, s)
#define US_MAX 1e7 /* ten seconds */

static const struct nxsim__cost_row cost_rows[] = {
	ROW(create_vm_us, 500, 0, US_MAX,
	    "calibrated: KVM_CREATE_VM under nx_huge_pages=never took "
	    "0.495-0.518 ms (Capitulino, kvmtool, strace -T); the reference "
	    "machine's 6.18 host measured 209-218 us at p50"),
	ROW(create_vcpu_us, 64, 0, US_MAX,
	    "measured: KVM_CREATE_VCPU p50 63-64 us on the reference machine"),
	ROW(kvm_run_us, 9, 0, US_MAX,
	    "measured: the second KVM_RUN (HLT round trip) p50 8.4-10.9 us "
	    "on the reference machine"),
	ROW(destroy_vm_us, 270, 0, US_MAX,
	    "measured: close(vm, vcpu) p50 265-291 us on the reference "
	    "machine"),
	ROW(kthread_create_us, 3, 0, US_MAX,
	    "assumption: kthread_create_on_node()'s request, list_add and "
	    "wake-up of kthreadd"),
	ROW(kthread_fork_us, 25, 0, US_MAX,
	    "calibrated: kvm_vm_create_worker_thread() without a grace "
	    "period is 32-131 us (zhuangel570 funclatency, p50 about 65 us); "
	    "a user pthread_create() takes 33-37 us on the reference machine"),
	ROW(kthread_exit_us, 20, 0, US_MAX,
	    "assumption: do_exit() of a kernel thread"),
	ROW(wakeup_us, 5, 0, US_MAX,
	    "calibrated with kthread_fork_us; a condvar wake takes 1.1 us "
	    "(1 parked) to 13.7-18.3 us (200-1000 parked) at p50 on the "
	    "reference machine"),
	ROW(wakeup_busy_us, 150, 0, US_MAX,
	    "calibrated: the 131-524 us share (6.6%) of the zhuangel570 "
	    "kthread histogram"),
	ROW(cgroup_attach_us, 15, 0, US_MAX,
	    "assumption: cgroup_attach_task_all() over the hierarchies with "
	    "its locks held"),
	ROW(vhost_create_us, 100, 0, US_MAX,
	    "calibrated: the first KVM_RUN, which spawns the vhost task, "
	    "takes 0.11-0.44 ms at p50 on the reference machine against "
	    "8-11 us for the second"),
	ROW(vhost_exit_us, 20, 0, US_MAX,
	    "assumption: vhost_task_stop() until the task exited"),
	ROW(gp_jiffies, 11, 0, 1e6,
	    "calibrated: grace periods of 4-34 ms, mostly 8-17 ms "
	    "(zhuangel570, HZ=1000 assumed) and 23.6-109.1 ms for one VM "
	    "(Capitulino, HZ=250 assumed)"),
	ROW(gp_sigma, 0.5, 0, 3,
	    "calibrated: the spread of the same two sets of figures"),
	ROW(gp_load_gain, 1, 0, 100,
	    "assumption: on a fully busy host CPUs report quiescent states "
	    "at ticks, doubling the wait"),
	ROW(bg_vm_load, 0.002, 0, 1,
	    "calibrated with wakeup_busy_us: 900 idle VMs on 96 CPUs give "
	    "the histogram's 131-524 us share"),
};

_Static_assert(ARRAY_SIZE(cost_rows) ==
		       sizeof(struct nxsim_bringup_costs) / sizeof(double),
	       "every cost has a row");

static const struct nxsim__cost_table bringup_costs = {
	.rows = cost_rows,
	.nr = ARRAY_SIZE(cost_rows),
	.kind = NXSIM__COST_DOUBLE,
};

void nxsim_bringup_costs_default(struct nxsim_bringup_costs *c)
{
	nxsim__cost_default(&bringup_costs, c);
}

int nxsim_bringup_cost_info(unsigned int idx, const char **name, double *value,
			    const char **source)
{
	const struct nxsim__cost_row *row =
		nxsim__cost_info(&bringup_costs, idx, name, source);

	if (!row)
		return -ENOENT;
	if (value)
		*value = row->def;
	return 0;
}

int nxsim_bringup_costs_set(struct nxsim_bringup_costs *c, const char *name,
			    double value, const char **why)
{
	return nxsim__cost_set(&bringup_costs, c, name, value, why);
}

/*
 * One "name=value" of @len bytes at @pair into @c; on error *@why says
 * what is wrong with it.
 */
static int parse_pair(struct nxsim_bringup_costs *c, const char *pair,
		      size_t len, const char **why)
{
	const char *eq = memchr(pair, '=', len);
	const struct nxsim__cost_row *row;
	char num[64], *end = NULL;
	size_t nlen;
	double v = NAN;

	if (!eq) {
		*why = "expected name=value";
		return -EINVAL;
	}
	row = nxsim__cost_find(&bringup_costs, pair, (size_t)(eq - pair));
	if (!row) {
		*why = "no such cost entry";
		return -ENOENT;
	}
	nlen = len - (size_t)(eq + 1 - pair);
	if (nlen && nlen < sizeof(num)) {
		memcpy(num, eq + 1, nlen);
		num[nlen] = '\0';
		v = strtod(num, &end);
	}
	if (!nlen || nlen >= sizeof(num) || *end || isnan(v)) {
		*why = "value is not a number";
		return -EINVAL;
	}
	return nxsim__cost_set_row(&bringup_costs, c, row, v, why);
}

int nxsim_bringup_costs_parse(struct nxsim_bringup_costs *c, const char *text,
			      const char **why, size_t *at)
{
	const char *start = text, *dummy;
	struct nxsim_bringup_costs tmp;
	size_t len;
	int rc;

	if (!why)
		why = &dummy;
	if (!c || !text) {
		if (at)
			*at = 0;
		*why = "no table or no text";
		return -EINVAL;
	}
	tmp = *c;
	for (text += strspn(text, NXSIM_BRINGUP_COSTS_SEPS); *text;
	     text += strspn(text, NXSIM_BRINGUP_COSTS_SEPS)) {
		len = strcspn(text, NXSIM_BRINGUP_COSTS_SEPS);
		rc = parse_pair(&tmp, text, len, why);
		if (rc) {
			if (at)
				*at = (size_t)(text - start);
			return rc;
		}
		text += len;
	}
	*c = tmp;
	return 0;
}
