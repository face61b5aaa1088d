// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up lab (src/bringup/paths.c): the cost table and its
 * overrides, cgroup_mutex and cgroup_threadgroup_rwsem queueing with two
 * and three creators step by step on the virtual clock, the rcu_sync
 * grace period that later writers share, favordynmods, which kernel path
 * each policy charges where (KVM_CREATE_VM or the first KVM_RUN, with the
 * call_once retry), determinism, and allocation failures.
 */
#include <string.h>

#include <nxsim/bringup.h>
#include <nxsim/stats.h>

#include "common/test_util.h"
#include "bringup/bringup.h"
#include "bringup/bringup_internal.h"

#define US 1000ull
#define MS 1000000ull

/* --- the cost table ------------------------------------------------- */

static void test_costs_default_table(void **state)
{
	struct nxsim_bringup_costs c;
	const char *name, *source;
	unsigned int i;
	double v;

	(void)state;
	nxsim_bringup_costs_default(&c);
	for (i = 0; !nxsim_bringup_cost_info(i, &name, &v, &source); i++) {
		assert_non_null(strstr(source, "calibrated")	   ?:
					strstr(source, "measured") ?:
					strstr(source, "assumption"));
		assert_true(v >= 0);
	}
	assert_int_equal(i, sizeof(c) / sizeof(double));
	assert_rc(nxsim_bringup_cost_info(i, NULL, NULL, NULL), -ENOENT);
	assert_true(c.create_vm_us == 500 && c.gp_jiffies == 11);
}

/*
 * nxsim_bringup_costs_set() is one pair of nxsim_bringup_costs_parse():
 * the same names, ranges and reasons, and @c unchanged on error.
 */
static void test_costs_set(void **state)
{
	static const struct {
		const char *name;
		double v;
		int rc;
		const char *why;
	} cases[] = {
		{ "kvm_run_us", 12.5, 0, NULL },
		{ "gp_sigma", 3, 0, NULL },
		{ "gp_sigma", 3.5, -ERANGE, "value outside [0, 3]" },
		{ "kvm_run_us", -1, -ERANGE, "value outside [0, 1e7]" },
		{ "kvm_run", 1, -ENOENT, "no such cost entry" },
		{ NULL, 1, -EINVAL, "no table or no name" },
	};
	struct nxsim_bringup_costs c, def;
	const char *why;

	(void)state;
	nxsim_bringup_costs_default(&def);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		c = def;
		why = NULL;
		assert_rc(nxsim_bringup_costs_set(&c, cases[i].name, cases[i].v,
						  &why),
			  cases[i].rc);
		if (cases[i].rc) {
			assert_string_equal(why, cases[i].why);
			assert_memory_equal(&c, &def, sizeof(c));
		}
	}
	c = def;
	assert_rc(nxsim_bringup_costs_set(&c, "kvm_run_us", 12.5, NULL), 0);
	assert_true(c.kvm_run_us == 12.5);
	c.kvm_run_us = def.kvm_run_us;
	assert_memory_equal(&c, &def, sizeof(c));
	assert_rc(nxsim_bringup_costs_set(NULL, "gp_sigma", 1, NULL), -EINVAL);
}

static void test_costs_parse_override(void **state)
{
	struct nxsim_bringup_costs c, def;
	const char *why = "untouched";
	size_t at = 99;

	(void)state;
	nxsim_bringup_costs_default(&c);
	def = c;
	assert_rc(nxsim_bringup_costs_parse(&c,
					    " gp_jiffies=3, wakeup_us=0.5\t"
					    "bg_vm_load=1e-3",
					    &why, &at),
		  0);
	/* success leaves the detail alone */
	assert_string_equal(why, "untouched");
	assert_int_equal(at, 99);
	assert_true(c.gp_jiffies == 3 && c.wakeup_us == 0.5 &&
		    c.bg_vm_load == 0.001);
	assert_true(c.create_vm_us == def.create_vm_us);
	assert_rc(nxsim_bringup_costs_parse(&c, "", NULL, NULL), 0);
	assert_true(c.gp_jiffies == 3);
	/* each range's ends are in it (just past them: the error cases) */
	assert_rc(nxsim_bringup_costs_parse(&c,
					    "kvm_run_us=1e7,gp_sigma=3,"
					    "bg_vm_load=1,wakeup_us=0",
					    NULL, NULL),
		  0);
	assert_true(c.kvm_run_us == 1e7 && c.gp_sigma == 3 &&
		    c.bg_vm_load == 1 && c.wakeup_us == 0);
	assert_rc(nxsim_bringup_costs_parse(&c, "kvm_run_us=10000000.5", NULL,
					    NULL),
		  -ERANGE);
	assert_true(c.kvm_run_us == 1e7);
}

/*
 * Every bad input is rejected with its errno, a static text saying what
 * is wrong and the offset of the pair, and leaves the table as it was,
 * even after good pairs before it.
 */
static void test_costs_parse_errors(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *why;
		size_t at;
	} cases[] = {
		{ "gp_jiffies=2,nope=1", -ENOENT, "no such cost entry", 13 },
		{ "create_vm_us", -EINVAL, "expected name=value", 0 },
		{ " wakeup_us=abc", -EINVAL, "value is not a number", 1 },
		{ "wakeup_us=", -EINVAL, "value is not a number", 0 },
		{ "wakeup_us=1x", -EINVAL, "value is not a number", 0 },
		{ "wakeup_us=nan", -EINVAL, "value is not a number", 0 },
		{ "kvm_run_us=-1", -ERANGE, "value outside [0, 1e7]", 0 },
		{ "gp_jiffies=1 bg_vm_load=1.5", -ERANGE,
		  "value outside [0, 1]", 13 },
		{ "gp_sigma=4", -ERANGE, "value outside [0, 3]", 0 },
	};
	struct nxsim_bringup_costs c, def;
	const char *why;
	size_t at;

	(void)state;
	nxsim_bringup_costs_default(&def);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		c = def;
		why = NULL;
		at = 99;
		assert_rc(nxsim_bringup_costs_parse(&c, cases[i].text, &why,
						    &at),
			  cases[i].rc);
		assert_string_equal(why, cases[i].why);
		assert_int_equal(at, cases[i].at);
		assert_memory_equal(&c, &def, sizeof(c));
		/* NULL detail pointers are allowed */
		assert_rc(nxsim_bringup_costs_parse(&c, cases[i].text, NULL,
						    NULL),
			  cases[i].rc);
	}
	assert_rc(nxsim_bringup_costs_parse(NULL, "a=1", &why, &at), -EINVAL);
	assert_string_equal(why, "no table or no text");
	assert_int_equal(at, 0);
	assert_rc(nxsim_bringup_costs_parse(&c, NULL, NULL, NULL), -EINVAL);
}

/* The cost table and its descriptor set name the same fields in order. */
static void test_costs_descriptors(void **state)
{
	const struct nxsim_stat_desc *d;
	struct nxsim_bringup_costs c;
	const char *name;
	unsigned int i;
	double v;

	(void)state;
	nxsim_bringup_costs_default(&c);
	for (i = 0; !nxsim_bringup_cost_info(i, &name, &v, NULL); i++) {
		d = nxsim_stats_desc(NXSIM_STATS_BRINGUP_COSTS, i);
		assert_non_null(d);
		assert_string_equal(d->name, name);
		assert_true(nxsim_stat_double(d, &c) == v);
	}
	assert_null(nxsim_stats_desc(NXSIM_STATS_BRINGUP_COSTS, i));
}

/* --- queueing, step by step ------------------------------------------ */

#define MAX_EV 512

struct trace_log {
	unsigned int n;
	struct nxsim__bringup_trace ev[MAX_EV];
};

static void log_step(void *arg, const struct nxsim__bringup_trace *t)
{
	struct trace_log *log = arg;

	if (log->n < MAX_EV)
		log->ev[log->n++] = *t;
}

/* When creator @c first entered @step of @op (or NXSIM_NEVER). */
static uint64_t when(const struct trace_log *log, unsigned int c,
		     enum nxsim__bringup_op op, enum nxsim__bringup_step step)
{
	for (unsigned int i = 0; i < log->n; i++)
		if (log->ev[i].creator == c && log->ev[i].op == op &&
		    log->ev[i].step == step)
			return log->ev[i].ns;
	return NXSIM_NEVER;
}

/*
 * Costs where only the cgroup attach (10 us) and a grace period take time:
 * HZ=1000 gives jiffies_till_first_fqs = 3, plus gp_jiffies = 2, so a
 * grace period started at t lasts until the first tick at or after t + 5 ms.
 */
static struct nxsim_bringup_costs attach_only_costs(void)
{
	struct nxsim_bringup_costs c;

	memset(&c, 0, sizeof(c));
	c.cgroup_attach_us = 10;
	c.gp_jiffies = 2;
	return c;
}

static struct nxsim_bringup_config lab(enum nxsim_bringup_policy p,
				       unsigned int creators,
				       const struct nxsim_bringup_costs *c)
{
	return (struct nxsim_bringup_config){ .policy = p,
					      .cpus = 4,
					      .hz = 1000,
					      .creators = creators,
					      .vms = creators,
					      .seed = 1,
					      .costs = c };
}

/*
 * Creators 0..n-1 start together.  Creator 0 takes cgroup_mutex, finds the
 * rcu_sync idle and waits a grace period (0 to 5 ms) with the mutex held;
 * the others queue on the mutex.  Each later writer finds the rcu_sync
 * entered (GP_EXIT, then GP_REPLAY) and waits no grace period: they
 * follow at 10 us steps.
 */
static void run_queue(unsigned int n)
{
	struct nxsim_bringup_costs c = attach_only_costs();
	struct nxsim_bringup_config cfg = lab(NXSIM_BRINGUP_KTHREAD, n, &c);
	struct nxsim_bringup_result res = { 0 };
	uint64_t create[3];
	static struct trace_log log;

	log.n = 0;
	res.create_ns = create;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t start = i ? 5 * MS + i * 10 * US : 0;

		assert_int_equal(when(&log, i, NXSIM__OP_CREATE,
				      NXSIM__ST_MUTEX_LOCK),
				 0);
		assert_int_equal(when(&log, i, NXSIM__OP_CREATE,
				      NXSIM__ST_RSS_ENTER),
				 start);
		assert_int_equal(when(&log, i, NXSIM__OP_CREATE,
				      NXSIM__ST_WRITE_LOCK),
				 i ? start : 5 * MS);
		assert_int_equal(when(&log, i, NXSIM__OP_CREATE,
				      NXSIM__ST_MUTEX_UNLOCK),
				 5 * MS + (i + 1) * 10 * US);
		assert_int_equal(create[i], 5 * MS + (i + 1) * 10 * US);
	}
	assert_int_equal(res.attach_waits, n - 1);
	/* creator 0's and rcu_sync_exit()'s; the later writers came in
	 * GP_EXIT, so the exit's replays after the burst (not counted) */
	assert_int_equal(res.grace_periods, 2);
	assert_int_equal(res.worker.n, n);
	assert_int_equal(res.worker.max, 5 * MS + n * 10 * US);
	assert_int_equal(res.create.p50, 5 * MS + (n + 1) / 2 * 10 * US);
}

static void test_queue_two_creators(void **state)
{
	(void)state;
	run_queue(2);
}

static void test_queue_three_creators(void **state)
{
	(void)state;
	run_queue(3);
}

/* favordynmods keeps the rcu_sync entered: the writers only queue. */
static void test_favordynmods(void **state)
{
	struct nxsim_bringup_costs c = attach_only_costs();
	struct nxsim_bringup_config cfg = lab(NXSIM_BRINGUP_KTHREAD, 3, &c);
	struct nxsim_bringup_result res = { 0 };
	uint64_t create[3];

	(void)state;
	cfg.favordynmods = true;
	res.create_ns = create;
	assert_rc(nxsim_bringup_run(&cfg, &res), 0);
	assert_int_equal(create[0], 10 * US);
	assert_int_equal(create[1], 20 * US);
	assert_int_equal(create[2], 30 * US);
	assert_int_equal(res.grace_periods, 0);
	assert_int_equal(res.attach_waits, 2);
}

/*
 * One creator, two VMs, back to back: the first attach pays the grace
 * period (ending at 5 ms), the second comes 10 us after it, while the
 * rcu_sync is still in GP_EXIT, and pays none.
 *
 * With a hold of 20 ms the rcu_sync is idle again when the destroy at
 * 25.01 ms detaches the worker (the exit's grace period ended at 11 ms),
 * so the detach pays one (to 31 ms) and its rcu_sync_exit() queues the
 * callback that makes it idle again at 37 ms.  With the TDP MMU,
 * kvm_mmu_uninit_tdp_mmu()'s rcu_barrier() at 31.01 ms waits for that
 * callback (and a grace period of its own, to the same tick): the next
 * create finds the rcu_sync idle and pays a grace period of its own.
 * Ten grace periods: each attach's and detach's, each exit's, and each
 * destroy's barrier.  With the legacy MMU (kvm.tdp_mmu=0) the destroy
 * ends at 31.01 ms and the create right after it finds the rcu_sync in
 * GP_EXIT: its own close shields it, and it pays none (seven: the
 * create wrote during GP_EXIT, so rcu_sync_exit() replays one).
 */
static void test_rcu_sync_shared_then_idle(void **state)
{
	struct nxsim_bringup_costs c = attach_only_costs();
	struct nxsim_bringup_config cfg = lab(NXSIM_BRINGUP_KTHREAD, 1, &c);
	struct nxsim_bringup_result res = { 0 };
	static struct trace_log log;
	uint64_t create[2];

	(void)state;
	cfg.vms = 2;
	res.create_ns = create;
	assert_rc(nxsim_bringup_run(&cfg, &res), 0);
	assert_int_equal(create[0], 5 * MS + 10 * US);
	assert_int_equal(create[1], 10 * US);
	assert_int_equal(res.makespan_ns, 5 * MS + 20 * US);

	cfg.hold_ns = 20 * MS;
	log.n = 0;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	assert_int_equal(when(&log, 0, NXSIM__OP_DESTROY, NXSIM__ST_RSS_ENTER),
			 25 * MS + 10 * US);
	assert_int_equal(when(&log, 0, NXSIM__OP_DESTROY,
			      NXSIM__ST_RCU_BARRIER),
			 31 * MS + 10 * US);
	assert_int_equal(when(&log, 0, NXSIM__OP_DESTROY, NXSIM__ST_OP_DONE),
			 37 * MS);
	assert_int_equal(create[0], 5 * MS + 10 * US);
	assert_int_equal(create[1], 5 * MS + 10 * US);
	assert_int_equal(res.grace_periods, 10);

	cfg.no_tdp_mmu = true;
	log.n = 0;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	assert_int_equal(when(&log, 0, NXSIM__OP_DESTROY,
			      NXSIM__ST_RCU_BARRIER),
			 NXSIM_NEVER);
	assert_int_equal(when(&log, 0, NXSIM__OP_DESTROY, NXSIM__ST_OP_DONE),
			 31 * MS + 10 * US);
	assert_int_equal(create[0], 5 * MS + 10 * US);
	assert_int_equal(create[1], 10 * US);
	assert_int_equal(res.grace_periods, 7);
}

/*
 * cpuset_rwsem as a percpu rw-semaphore (5.4 to 6.3): two CPUs,
 * KVM_CREATE_VM 6 ms, three creators, so creator 2 runs 6-12 ms behind
 * creators 0 and 1.  Creator 0's attach waits the threadgroup rcu_sync's
 * grace period (6 to 11 ms) holding cgroup_mutex (creator 1 queues on
 * it), sets sem->block, and cpuset_can_attach()'s
 * percpu_down_write(&cpuset_rwsem) waits that rcu_sync's own (11 to 16
 * ms); cpuset_attach()'s finds it in GP_EXIT.  Creator 2's fork
 * (kthreadd's copy_process(), a reader) comes at 12 ms and waits for
 * percpu_up_write() at 16.01 ms, then for cgroup_mutex behind creator 1.
 * Without the switch the fork passes at 12 ms: 11.01, 11.02, 12.01 ms.
 */
static void test_cpuset_rwsem(void **state)
{
	struct nxsim_bringup_costs c = attach_only_costs();
	struct nxsim_bringup_config cfg = lab(NXSIM_BRINGUP_KTHREAD, 3, &c);
	struct nxsim_bringup_result res = { 0 };
	static struct trace_log log;
	uint64_t create[3];

	(void)state;
	c.create_vm_us = 6000;
	cfg.cpus = 2;
	res.create_ns = create;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	assert_int_equal(create[0], 11 * MS + 10 * US);
	assert_int_equal(create[1], 11 * MS + 20 * US);
	assert_int_equal(create[2], 12 * MS + 10 * US);
	assert_int_equal(when(&log, 2, NXSIM__OP_CREATE, NXSIM__ST_READ_UNLOCK),
			 12 * MS);
	assert_int_equal(when(&log, 0, NXSIM__OP_CREATE, NXSIM__ST_CPUSET_LOCK),
			 NXSIM_NEVER);
	assert_int_equal(res.grace_periods, 2);

	log.n = 0;
	cfg.cpuset_rwsem = true;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	assert_int_equal(when(&log, 0, NXSIM__OP_CREATE, NXSIM__ST_WRITE_LOCK),
			 11 * MS);
	assert_int_equal(when(&log, 0, NXSIM__OP_CREATE, NXSIM__ST_CPUSET_LOCK),
			 11 * MS);
	assert_int_equal(when(&log, 0, NXSIM__OP_CREATE,
			      NXSIM__ST_CPUSET_UNLOCK),
			 16 * MS);
	assert_int_equal(when(&log, 2, NXSIM__OP_CREATE, NXSIM__ST_READ_LOCK),
			 12 * MS);
	assert_int_equal(when(&log, 2, NXSIM__OP_CREATE, NXSIM__ST_READ_UNLOCK),
			 16 * MS + 10 * US);
	assert_int_equal(create[0], 16 * MS + 10 * US);
	assert_int_equal(create[1], 16 * MS + 20 * US);
	assert_int_equal(create[2], 16 * MS + 30 * US);
	assert_int_equal(res.worker.max, 10 * MS + 20 * US);
	/* both rcu_syncs' entries and exits */
	assert_int_equal(res.grace_periods, 4);
}

/* A CPU step queues when all CPUs are busy. */
static void test_cpu_queue(void **state)
{
	struct nxsim_bringup_costs c;
	struct nxsim_bringup_config cfg;
	struct nxsim_bringup_result res = { 0 };
	uint64_t create[3];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.create_vm_us = 100;
	cfg = lab(NXSIM_BRINGUP_NEVER, 3, &c);
	cfg.cpus = 2;
	res.create_ns = create;
	assert_rc(nxsim_bringup_run(&cfg, &res), 0);
	assert_int_equal(create[0], 100 * US);
	assert_int_equal(create[1], 100 * US);
	assert_int_equal(create[2], 200 * US);
}

/*
 * Three VMs destroyed at once (1 ms after their first KVM_RUN, every other
 * cost 0): the first destroy's synchronize_srcu() finds mmu_notifier's
 * srcu idle and is expedited (no time: it is in destroy_vm_us); the second
 * finds it busy and waits a normal grace period, ended at the second tick
 * after it; the third needs the grace period after that one, two ticks
 * after it ends.  Then each calls rcu_barrier() (the TDP MMU's), which
 * waits a grace period of RCU (jiffies_till_first_fqs + gp_jiffies, to a
 * tick) one call at a time: the second starts when the first ends, the
 * third too unless it was called before the second started, when it
 * shares the second (gp_jiffies = 4).  A later destroy, once the srcu has
 * been idle for exp_holdoff, is expedited again.
 */
static void test_srcu_destroys(void **state)
{
	static const struct {
		unsigned int hz;
		double gp_jiffies;
		uint64_t barrier[3], done[3];
	} cases[] = {
		{ 1000,
		  0,
		  { 1 * MS, 3 * MS, 5 * MS },
		  { 4 * MS, 7 * MS, 10 * MS } },
		{ 250,
		  0,
		  { 1 * MS, 8 * MS, 16 * MS },
		  { 8 * MS, 12 * MS, 20 * MS } },
		{ 1000,
		  4,
		  { 1 * MS, 3 * MS, 5 * MS },
		  { 8 * MS, 15 * MS, 15 * MS } },
	};
	struct nxsim_bringup_costs c;
	struct nxsim_bringup_config cfg;
	struct nxsim_bringup_result res;
	static struct trace_log log;

	(void)state;
	memset(&c, 0, sizeof(c));
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		c.gp_jiffies = cases[k].gp_jiffies;
		cfg = lab(NXSIM_BRINGUP_NEVER, 3, &c);
		cfg.hz = cases[k].hz;
		cfg.hold_ns = 1 * MS;
		log.n = 0;
		res = (struct nxsim_bringup_result){ 0 };
		assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log),
			  0);
		for (unsigned int i = 0; i < 3; i++) {
			assert_int_equal(when(&log, i, NXSIM__OP_DESTROY,
					      NXSIM__ST_SRCU_SYNC),
					 1 * MS);
			assert_int_equal(when(&log, i, NXSIM__OP_DESTROY,
					      NXSIM__ST_RCU_BARRIER),
					 cases[k].barrier[i]);
			assert_int_equal(when(&log, i, NXSIM__OP_DESTROY,
					      NXSIM__ST_OP_DONE),
					 cases[k].done[i]);
		}
		/* one per barrier that did not share another's */
		assert_int_equal(res.grace_periods, k == 2 ? 2 : 3);
	}

	/* one creator, two VMs: the second destroy comes 1 ms after the
	 * next create, at 5 ms, long after exp_holdoff: expedited too */
	c.gp_jiffies = 0;
	cfg = lab(NXSIM_BRINGUP_NEVER, 1, &c);
	cfg.vms = 2;
	cfg.hold_ns = 1 * MS;
	log.n = 0;
	assert_rc(nxsim__bringup_run_traced(&cfg, &res, log_step, &log), 0);
	assert_int_equal(log.ev[log.n - 4].step, NXSIM__ST_SRCU_SYNC);
	assert_int_equal(log.ev[log.n - 4].ns, 5 * MS);
	assert_int_equal(log.ev[log.n - 2].step, NXSIM__ST_RCU_BARRIER);
	assert_int_equal(log.ev[log.n - 2].ns, 5 * MS);
	assert_int_equal(log.ev[log.n - 1].op, NXSIM__OP_DESTROY);
	assert_int_equal(log.ev[log.n - 1].step, NXSIM__ST_OP_DONE);
	assert_int_equal(log.ev[log.n - 1].ns, 8 * MS);
}

/*
 * rcu_barrier() on its own (HZ=1000, grace periods of 3 + 2 jiffies):
 * with no callback in flight it waits a grace period from its call; a
 * second call while it runs starts when it ends; a third, made before
 * that one started, shares it.  Then a callback in flight on either
 * rcu_sync (a writer's synchronize_rcu() in GP_ENTER, the call_rcu() of
 * GP_EXIT or GP_REPLAY) that ends later holds the barrier until it ends;
 * in GP_IDLE or GP_PASSED there is none.
 */
static void test_rcu_barrier_callbacks(void **state)
{
	static const enum nxsim__gp_state states[] = { GP_IDLE, GP_ENTER,
						       GP_PASSED, GP_EXIT,
						       GP_REPLAY };
	struct nxsim_bringup_result res = { 0 };
	static struct nxsim__bringup lab;
	struct nxsim__rcu_sync *rss;

	(void)state;
	memset(&lab, 0, sizeof(lab));
	lab.res = &res;
	lab.jiffy_ns = MS;
	lab.first_fqs = 3;
	lab.c.gp_jiffies = 2;
	assert_int_equal(nxsim__bringup_rcu_barrier(&lab, 1 * MS), 6 * MS);
	assert_int_equal(nxsim__bringup_rcu_barrier(&lab, 2 * MS), 11 * MS);
	assert_int_equal(nxsim__bringup_rcu_barrier(&lab, 3 * MS), 11 * MS);
	assert_int_equal(res.grace_periods, 2);

	for (unsigned int which = 0; which < 2; which++) {
		rss = which ? &lab.cpuset_rss : &lab.rss;
		for (size_t k = 0; k < ARRAY_SIZE(states); k++) {
			bool pending = states[k] != GP_IDLE &&
				       states[k] != GP_PASSED;

			lab.barrier_start = lab.barrier_end = 0;
			rss->gp_state = states[k];
			rss->gp_end = 30 * MS;
			assert_int_equal(nxsim__bringup_rcu_barrier(&lab,
								    20 * MS),
					 pending ? 30 * MS : 25 * MS);
			rss->gp_state = GP_IDLE;
		}
	}
}

/* --- each policy's path ------------------------------------------------ */

/* The steps of creator 0's @op, in order, up to @max. */
static unsigned int steps_of(const struct trace_log *log,
			     enum nxsim__bringup_op op,
			     enum nxsim__bringup_step *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < log->n && n < max; i++)
		if (log->ev[i].op == op && log->ev[i].vm == 0)
			out[n++] = log->ev[i].step;
	return n;
}

#define CPU NXSIM__ST_CPU
#define WAKE NXSIM__ST_WAKE
#define DONE NXSIM__ST_OP_DONE

static void expect_steps(const struct trace_log *log, enum nxsim__bringup_op op,
			 const enum nxsim__bringup_step *want, unsigned int n)
{
	enum nxsim__bringup_step got[64];

	assert_int_equal(steps_of(log, op, got, 64), n);
	assert_memory_equal(got, want, n * sizeof(*want));
}

/* The steps of KVM_CREATE_VM, the first KVM_RUN and the destroy. */
#define EXPECT_PATHS(log, create, run, destroy)                         \
	do {                                                            \
		expect_steps(log, NXSIM__OP_CREATE, create,             \
			     ARRAY_SIZE(create));                       \
		expect_steps(log, NXSIM__OP_RUN, run, ARRAY_SIZE(run)); \
		expect_steps(log, NXSIM__OP_DESTROY, destroy,           \
			     ARRAY_SIZE(destroy));                      \
	} while (0)

static void run_policy(enum nxsim_bringup_policy p, unsigned int fail_nth,
		       uint64_t hold, struct trace_log *log,
		       struct nxsim_bringup_result *res)
{
	struct nxsim_bringup_config cfg = lab(p, 1, NULL);

	cfg.worker_fail_nth = fail_nth;
	cfg.hold_ns = hold;
	log->n = 0;
	*res = (struct nxsim_bringup_result){ 0 };
	assert_rc(nxsim__bringup_run_traced(&cfg, res, log_step, log), 0);
}

/* 6.1: the kthread and its cgroup attach are in KVM_CREATE_VM. */
static void test_path_kthread(void **state)
{
	static const enum nxsim__bringup_step create[] = {
		CPU,
		NXSIM__ST_WORKER_BEGIN,
		CPU,
		WAKE,
		NXSIM__ST_READ_LOCK,
		CPU,
		NXSIM__ST_READ_UNLOCK,
		WAKE,
		WAKE,
		NXSIM__ST_MUTEX_LOCK,
		NXSIM__ST_RSS_ENTER,
		NXSIM__ST_WRITE_LOCK,
		CPU,
		NXSIM__ST_WRITE_UNLOCK,
		NXSIM__ST_MUTEX_UNLOCK,
		WAKE,
		NXSIM__ST_WORKER_END,
		DONE,
	};
	static const enum nxsim__bringup_step run[] = { CPU, DONE };
	static const enum nxsim__bringup_step destroy[] = {
		WAKE,
		NXSIM__ST_MUTEX_LOCK,
		NXSIM__ST_RSS_ENTER,
		NXSIM__ST_WRITE_LOCK,
		CPU,
		NXSIM__ST_WRITE_UNLOCK,
		NXSIM__ST_MUTEX_UNLOCK,
		CPU,
		WAKE,
		NXSIM__ST_SRCU_SYNC,
		CPU,
		NXSIM__ST_RCU_BARRIER,
		DONE,
	};
	static struct trace_log log;
	struct nxsim_bringup_result res;
	struct nxsim_bringup_costs c;

	(void)state;
	nxsim_bringup_costs_default(&c);
	run_policy(NXSIM_BRINGUP_KTHREAD, 1, MS, &log, &res);
	EXPECT_PATHS(&log, create, run, destroy);
	assert_int_equal(res.worker.n, 1);
	assert_int_equal(res.worker_failures, 0); /* fail_nth is vhost's */
	assert_true(res.create.p50 > 1 * MS);	  /* a grace period */
	assert_int_equal(res.first_run.p50, c.kvm_run_us * US);
}

/* 6.14: KVM_CREATE_VM makes no worker; the first KVM_RUN forks it, and a
 * failed fork is retried by the restarted KVM_RUN. */
static void test_path_vhost(void **state)
{
	static const enum nxsim__bringup_step create[] = { CPU, DONE };
	static const enum nxsim__bringup_step run[] = {
		CPU, NXSIM__ST_READ_LOCK, CPU, NXSIM__ST_READ_UNLOCK, DONE
	};
	static const enum nxsim__bringup_step retry[] = {
		CPU, NXSIM__ST_READ_LOCK, CPU, NXSIM__ST_READ_UNLOCK,
		CPU, NXSIM__ST_READ_LOCK, CPU, NXSIM__ST_READ_UNLOCK,
		DONE
	};
	static const enum nxsim__bringup_step destroy[] = {
		WAKE, CPU,
		WAKE, NXSIM__ST_SRCU_SYNC,
		CPU,  NXSIM__ST_RCU_BARRIER,
		DONE
	};
	static struct trace_log log;
	struct nxsim_bringup_result res;
	struct nxsim_bringup_costs c;

	(void)state;
	nxsim_bringup_costs_default(&c);
	run_policy(NXSIM_BRINGUP_VHOST, 0, MS, &log, &res);
	EXPECT_PATHS(&log, create, run, destroy);
	assert_int_equal(res.create.p50, c.create_vm_us * US);
	assert_int_equal(res.first_run.p50,
			 (c.kvm_run_us + c.vhost_create_us) * US);
	assert_int_equal(res.worker.n, 0);
	/* no cgroup writer: only the destroy's rcu_barrier() */
	assert_int_equal(res.grace_periods, 1);

	run_policy(NXSIM_BRINGUP_VHOST, 1, 0, &log, &res);
	expect_steps(&log, NXSIM__OP_RUN, retry, ARRAY_SIZE(retry));
	assert_int_equal(res.worker_failures, 1);
	assert_int_equal(res.first_run.p50,
			 2 * (c.kvm_run_us + c.vhost_create_us) * US);
}

/* never: no worker anywhere. */
static void test_path_never(void **state)
{
	static const enum nxsim__bringup_step create[] = { CPU, DONE };
	static const enum nxsim__bringup_step run[] = { CPU, DONE };
	static const enum nxsim__bringup_step destroy[] = {
		NXSIM__ST_SRCU_SYNC, CPU, NXSIM__ST_RCU_BARRIER, DONE
	};
	static struct trace_log log;
	struct nxsim_bringup_result res;
	struct nxsim_bringup_costs c;

	(void)state;
	nxsim_bringup_costs_default(&c);
	run_policy(NXSIM_BRINGUP_NEVER, 1, MS, &log, &res);
	EXPECT_PATHS(&log, create, run, destroy);
	assert_int_equal(res.create.p50, c.create_vm_us * US);
	assert_int_equal(res.first_run.p50, c.kvm_run_us * US);
	assert_int_equal(res.worker_failures, 0);
}

/* --- determinism, configuration, allocation failures ------------------ */

static struct nxsim_bringup_config loaded_lab(uint64_t seed)
{
	return (struct nxsim_bringup_config){ .policy = NXSIM_BRINGUP_KTHREAD,
					      .cpus = 8,
					      .hz = 1000,
					      .bg_vms = 2000,
					      .creators = 4,
					      .vms = 40,
					      .hold_ns = 30 * MS,
					      .hold_jitter_ns = 20 * MS,
					      .seed = seed };
}

static void test_deterministic(void **state)
{
	struct nxsim_bringup_config cfg = loaded_lab(7);
	struct nxsim_bringup_result a = { 0 }, b = { 0 }, d = { 0 };
	uint64_t ca[40], cb[40], cd[40];

	(void)state;
	a.create_ns = ca;
	b.create_ns = cb;
	d.create_ns = cd;
	assert_rc(nxsim_bringup_run(&cfg, &a), 0);
	assert_rc(nxsim_bringup_run(&cfg, &b), 0);
	assert_memory_equal(ca, cb, sizeof(ca));
	assert_int_equal(a.makespan_ns, b.makespan_ns);
	assert_int_equal(a.grace_periods, b.grace_periods);
	assert_memory_equal(&a.worker, &b.worker, sizeof(a.worker));
	cfg.seed = 8;
	assert_rc(nxsim_bringup_run(&cfg, &d), 0);
	assert_memory_not_equal(ca, cd, sizeof(ca));
}

static void test_bad_config(void **state)
{
	struct nxsim_bringup_config ok = lab(NXSIM_BRINGUP_NEVER, 1, NULL), cfg;
	struct nxsim_bringup_result res;

	(void)state;
	assert_rc(nxsim_bringup_run(NULL, &res), -EINVAL);
	assert_rc(nxsim_bringup_run(&ok, NULL), -EINVAL);
	cfg = ok;
	cfg.cpus = 0;
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	cfg = ok;
	cfg.creators = 0;
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	cfg = ok;
	cfg.vms = 0;
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	cfg = ok;
	cfg.hz = 200;
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	cfg = ok;
	cfg.policy = 3;
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	cfg = ok;
	cfg.profile = "5.15"; /* no "never" before 6.5 and its backports */
	assert_rc(nxsim_bringup_run(&cfg, &res), -EINVAL);
	assert_null(nxsim_bringup_policy_name(3));
	assert_string_equal(nxsim_bringup_policy_name(NXSIM_BRINGUP_VHOST),
			    "vhost");
}

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(nxsim_bringup_bucket(0), 0);
	assert_int_equal(nxsim_bringup_bucket(1999), 0);
	assert_int_equal(nxsim_bringup_bucket(2000), 1);
	assert_int_equal(nxsim_bringup_bucket(64 * US), 6);
	assert_int_equal(nxsim_bringup_bucket(127 * US + 999), 6);
	assert_int_equal(nxsim_bringup_bucket(8192 * US), 13);
	assert_int_equal(nxsim_bringup_bucket(UINT64_MAX),
			 NXSIM_BRINGUP_HIST - 1);
}

/* How many of the @n creates in @create took more than 4 ms. */
static unsigned int slow_creates(const uint64_t *create, unsigned int n)
{
	unsigned int slow = 0;

	for (unsigned int i = 0; i < n; i++)
		slow += create[i] > 4 * MS;
	return slow;
}

/*
 * The published shapes with the default table (modelled values, never
 * timings): one VM with the kthread at HZ=250 within 2x of Capitulino's
 * 76.7 ms median, never at 0.5 ms; under 900 idle VMs the worker's p50
 * and p99 in the funclatency buckets of the histogram's (64-127 us,
 * 8192-16383 us) or a neighbour.  A grace period in KVM_CREATE_VM for
 * far more than the first round's 20 creates: each close's rcu_barrier()
 * lets the rcu_sync go idle before the next create (docs/bringup.md);
 * with kvm.tdp_mmu=0 there is no barrier, the close shields the create,
 * and only the first round, 20 creators starting together, waits one.
 * favordynmods and the 6.14 vhost task leave no grace period in
 * KVM_CREATE_VM, and the orderings never <= vhost < kthread.
 */
static void test_published_shapes(void **state)
{
	struct nxsim_bringup_config one = {
		.cpus = 8, .hz = 250, .creators = 1, .vms = 1
	};
	struct nxsim_bringup_config hist = {
		.cpus = 96,
		.hz = 1000,
		.bg_vms = 900,
		.creators = 20,
		.vms = 400,
		.hold_ns = 400 * MS,
		.hold_jitter_ns = 50 * MS,
		.seed = 1,
	};
	struct nxsim_bringup_result res = { 0 }, fav = { 0 }, vh = { 0 },
				    nev = { 0 }, shadow = { 0 };
	static uint64_t create[400];
	uint64_t k[11], tmp;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(k); i++) {
		one.seed = i + 1;
		assert_rc(nxsim_bringup_run(&one, &res), 0);
		k[i] = res.create.p50;
		for (unsigned int j = i; j > 0 && k[j - 1] > k[j]; j--) {
			tmp = k[j];
			k[j] = k[j - 1];
			k[j - 1] = tmp;
		}
	}
	assert_in_range(k[5], 76700 * US / 2, 76700 * US * 2);
	one.policy = NXSIM_BRINGUP_NEVER;
	assert_rc(nxsim_bringup_run(&one, &res), 0);
	assert_in_range(res.create.p50, 505 * US / 2, 505 * US * 2);

	res.create_ns = create;
	assert_rc(nxsim_bringup_run(&hist, &res), 0);
	assert_in_range(nxsim_bringup_bucket(res.worker.p50), 5, 7);
	assert_in_range(nxsim_bringup_bucket(res.worker.p99), 12, 14);
	assert_true(slow_creates(create, hist.vms) > 2 * hist.creators);

	hist.no_tdp_mmu = true;
	shadow.create_ns = create;
	assert_rc(nxsim_bringup_run(&hist, &shadow), 0);
	hist.no_tdp_mmu = false;
	assert_int_equal(slow_creates(create, hist.creators), hist.creators);
	assert_int_equal(slow_creates(create, hist.vms), hist.creators);

	res.create_ns = NULL;
	hist.favordynmods = true;
	assert_rc(nxsim_bringup_run(&hist, &fav), 0);
	hist.favordynmods = false;
	hist.policy = NXSIM_BRINGUP_VHOST;
	assert_rc(nxsim_bringup_run(&hist, &vh), 0);
	hist.policy = NXSIM_BRINGUP_NEVER;
	assert_rc(nxsim_bringup_run(&hist, &nev), 0);
	assert_true(fav.create.max < 4 * MS && vh.create.max < 4 * MS);
	assert_int_equal(vh.create.p99, nev.create.p99);
	assert_true(nev.first_run.p50 < vh.first_run.p50);
	assert_true(vh.create.p99 < res.create.p99);
	assert_true(nxsim_bringup_bucket(nev.create.p50) <
		    nxsim_bringup_bucket(res.create.max));
}

static int alloc_op(void *ctx)
{
	struct nxsim_bringup_config *cfg = ctx;
	struct nxsim_bringup_result res = { 0 };

	return nxsim_bringup_run(cfg, &res);
}

static void test_lab_alloc_failures(void **state)
{
	struct nxsim_bringup_config cfg = loaded_lab(3);

	(void)state;
	cfg.bg_vms = 3;
	cfg.vms = 6;
	assert_true(test_alloc_failures(alloc_op, NULL, NULL, &cfg) > 10);
	cfg.policy = NXSIM_BRINGUP_VHOST;
	cfg.worker_fail_nth = 2;
	assert_true(test_alloc_failures(alloc_op, NULL, NULL, &cfg) > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_costs_default_table),
		cmocka_unit_test(test_costs_set),
		cmocka_unit_test(test_costs_parse_override),
		cmocka_unit_test(test_costs_parse_errors),
		cmocka_unit_test(test_costs_descriptors),
		cmocka_unit_test(test_queue_two_creators),
		cmocka_unit_test(test_queue_three_creators),
		cmocka_unit_test(test_favordynmods),
		cmocka_unit_test(test_cpuset_rwsem),
		cmocka_unit_test(test_rcu_sync_shared_then_idle),
		cmocka_unit_test(test_cpu_queue),
		cmocka_unit_test(test_srcu_destroys),
		cmocka_unit_test(test_rcu_barrier_callbacks),
		cmocka_unit_test(test_path_kthread),
		cmocka_unit_test(test_path_vhost),
		cmocka_unit_test(test_path_never),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_published_shapes),
		cmocka_unit_test(test_lab_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
