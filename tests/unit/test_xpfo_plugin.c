// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flush policies from outside the library (nxsim_xpfo_policy_register()):
 * the checks of a registration, a policy written on the public primitives
 * alone giving exactly what the built-in of the same rule gives, the
 * primitives' own checks, the init/fini hooks, and registration from many
 * threads at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/test_util.h"

#define OPS_INIT                                      \
	.size = sizeof(struct nxsim_xpfo_policy_ops), \
	.version = NXSIM_XPFO_POLICY_OPS_VERSION

static unsigned int nr_policies(void)
{
	unsigned int n = 0;

	while (nxsim_xpfo_policy_name(n))
		n++;
	return n;
}

/* P1's rule, written as a user would: every CPU, the 33-page rule. */
static void copy_eager_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim_xpfo_policy_shootdown(m, cpu, NULL, va, pages);
}

/* P4a's: local now (33-page rule), every other CPU at switch_mm. */
static void copy_deferred_flush(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t va, uint64_t pages)
{
	nxsim_xpfo_policy_flush_local(
		m, cpu, va, nxsim_xpfo_policy_ranged(m, pages) ? pages : 0);
	nxsim_xpfo_policy_defer(m, cpu, NULL);
}

static void copy_run_pending(struct nxsim_xpfo *m, unsigned int cpu)
{
	nxsim_xpfo_policy_run_pending(m, cpu);
}

static void test_register_bad_input(void **state)
{
	static const char long_name[] = "a-name-of-thirty-two-characters!";
	struct nxsim_xpfo_policy_ops good = {
		OPS_INIT,
		.name = "never-registered",
		.flush = copy_eager_flush,
	};
	const struct {
		const char *what;
		size_t size;
		uint32_t version;
		const char *name;
		bool no_flush;
		int rc;
		const char *why;
	} rows[] = {
		{ "short", 8, 1, "x", false, -EINVAL, "size" },
		{ "size 0", 0, 1, "x", false, -EINVAL, "size" },
		{ "version 0", sizeof(good), 0, "x", false, -EOPNOTSUPP,
		  "version" },
		{ "version 2", sizeof(good), 2, "x", false, -EOPNOTSUPP,
		  "version" },
		{ "NULL name", sizeof(good), 1, NULL, false, -EINVAL, "empty" },
		{ "empty name", sizeof(good), 1, "", false, -EINVAL, "empty" },
		{ "long name", sizeof(good), 1, long_name, false, -EINVAL,
		  "longer" },
		{ "space", sizeof(good), 1, "a b", false, -EINVAL,
		  "character" },
		{ "equals", sizeof(good), 1, "a=b", false, -EINVAL,
		  "character" },
		{ "comma", sizeof(good), 1, "a,b", false, -EINVAL,
		  "character" },
		{ "no flush", sizeof(good), 1, "x", true, -EINVAL, "flush" },
		{ "built-in", sizeof(good), 1, "eager", false, -EEXIST,
		  "taken" },
	};
	unsigned int before = nr_policies();
	const char *why = NULL;

	assert_int_equal(strlen(long_name), NXSIM_XPFO_POLICY_NAME_MAX + 1);
	assert_rc(nxsim_xpfo_policy_register(NULL, &why), -EINVAL);
	assert_non_null(strstr(why, "NULL"));
	assert_rc(nxsim_xpfo_policy_register(NULL, NULL), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nxsim_xpfo_policy_ops ops = good;

		ops.size = (uint32_t)rows[i].size;
		ops.version = rows[i].version;
		ops.name = rows[i].name;
		if (rows[i].no_flush)
			ops.flush = NULL;
		why = NULL;
		assert_rc(nxsim_xpfo_policy_register(&ops, &why), rows[i].rc);
		if (!why || !strstr(why, rows[i].why))
			fail_msg("%s: reason \"%s\" lacks \"%s\"", rows[i].what,
				 why ? why : "(none)", rows[i].why);
	}
	assert_int_equal(nr_policies(), before);
	assert_null(nxsim_xpfo_policy_name(before));
}

/* A name registered once is usable, listed last, and taken after that. */
static void test_register_lists_and_refuses_duplicate(void **state)
{
	char name[] = "copy-eager";
	struct nxsim_xpfo_policy_ops ops = {
		OPS_INIT,
		.name = name,
		.flush = copy_eager_flush,
	};
	unsigned int before = nr_policies();
	const char *why = NULL;

	assert_rc(nxsim_xpfo_policy_register(&ops, &why), 0);
	assert_int_equal(nr_policies(), before + 1);
	assert_string_equal(nxsim_xpfo_policy_name(before), "copy-eager");
	assert_rc(nxsim_xpfo_policy_register(&ops, &why), -EEXIST);
	assert_non_null(strstr(why, "taken"));
	assert_int_equal(nr_policies(), before + 1);
	/* The library keeps its own copy of the name. */
	name[0] = 'X';
	assert_string_equal(nxsim_xpfo_policy_name(before), "copy-eager");
}

/*
 * Run a workload under @builtin and under @copy; both results must be the
 * same to the last counter, oracle included.
 */
static void same_as_builtin(const char *builtin, const char *copy,
			    enum nxsim_xpfo_version version,
			    const char *workload)
{
	struct nxsim_xpfo_run run = {
		.workload = workload,
		.version = version,
		.nr_cpus = 4,
		.events = 3000,
		.seed = 11,
	};
	struct nxsim_xpfo_result a, b;

	run.policy = builtin;
	assert_rc(nxsim_xpfo_run_workload(&run, &a), 0);
	run.policy = copy;
	assert_rc(nxsim_xpfo_run_workload(&run, &b), 0);
	assert_true(a.xpfo.policy_flushes > 0);
	assert_int_equal(a.kernel_cycles, b.kernel_cycles);
	assert_int_equal(a.flush_cycles, b.flush_cycles);
	assert_int_equal(a.oracle.exposures, b.oracle.exposures);
	assert_int_equal(a.oracle.exposure_sum_ns, b.oracle.exposure_sum_ns);
	assert_int_equal(a.tlb.ipis_sent, b.tlb.ipis_sent);
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_registered_runs_as_builtin(void **state)
{
	static const struct nxsim_xpfo_policy_ops deferred = {
		OPS_INIT,
		.name = "copy-deferred",
		.flush = copy_deferred_flush,
		.context_switch = copy_run_pending,
	};
	static const struct nxsim_xpfo_policy_ops batched = {
		OPS_INIT,
		.name = "copy-batched",
		.flush = copy_deferred_flush,
		.context_switch = copy_run_pending,
		.refill_batch = 32,
	};
	static const struct nxsim_xpfo_policy_ops broadcast = {
		OPS_INIT,
		.name = "copy-broadcast",
		.flush = copy_eager_flush,
		.broadcast = true,
	};

	/* copy-eager was registered by the test before. */
	assert_rc(nxsim_xpfo_policy_register(&deferred, NULL), 0);
	assert_rc(nxsim_xpfo_policy_register(&batched, NULL), 0);
	assert_rc(nxsim_xpfo_policy_register(&broadcast, NULL), 0);
	for (unsigned int w = 0; nxsim_xpfo_workload_name(w); w++) {
		const char *wl = nxsim_xpfo_workload_name(w);

		same_as_builtin("eager", "copy-eager", NXSIM_XPFO_V6, wl);
		same_as_builtin("deferred", "copy-deferred", NXSIM_XPFO_V8, wl);
		same_as_builtin("batched", "copy-batched", NXSIM_XPFO_V9, wl);
		same_as_builtin("broadcast", "copy-broadcast", NXSIM_XPFO_V6,
				wl);
	}
}

/* What the probe policy saw: the primitives' answers inside a hook. */
static struct {
	int bad_cpu, bad_pfn, user_cpus, domain, frame_domain;
	uint64_t pages, calls;
} probe;

static void probe_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
			uint64_t pages)
{
	uint64_t *mask = nxsim_xpfo_policy_cpumask(m);
	unsigned int nr_cpus;

	nxsim_xpfo_policy_machine(m, &nr_cpus, NULL, NULL);
	probe.bad_cpu = nxsim_xpfo_policy_shootdown(m, nr_cpus, NULL, va, 1);
	probe.bad_pfn = nxsim_xpfo_policy_owe(m, UINT64_MAX, 1);
	probe.user_cpus = nxsim_xpfo_policy_user_cpus(m, mask) ?: (int)mask[0];
	probe.domain = nxsim_xpfo_policy_cpu_domain(m, 1);
	probe.frame_domain = nxsim_xpfo_policy_frame_domain(m, 7);
	/* No ceiling: every page of the range by INVLPG. */
	nxsim_xpfo_policy_flush_local(m, cpu, va, pages);
	probe.pages += pages;
	probe.calls++;
}

static void test_primitives_checked(void **state)
{
	static const struct nxsim_xpfo_policy_ops ops = {
		OPS_INIT,
		.name = "probe",
		.flush = probe_flush,
	};
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 1024,
		.version = NXSIM_XPFO_V6,
		.policy = "probe",
	};
	struct nxsim_xpfo_result res;
	struct nxsim_tlb_stats st;
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_policy_register(&ops, NULL), 0);
	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	/* Outside a hook, nothing: the machine's lock is not held. */
	assert_rc(nxsim_xpfo_policy_shootdown(m, 0, NULL, 0, 0), -EPERM);
	assert_rc(nxsim_xpfo_policy_flush_local(m, 0, 0, 0), -EPERM);
	assert_rc(nxsim_xpfo_policy_defer(m, 0, NULL), -EPERM);
	assert_rc(nxsim_xpfo_policy_run_pending(m, 0), -EPERM);
	assert_rc(nxsim_xpfo_policy_charge(m, 0, 1), -EPERM);
	assert_rc(nxsim_xpfo_policy_take_owed(m, 0), -EPERM);
	assert_rc(nxsim_xpfo_policy_cpu_domain(m, 0), -EPERM);
	assert_rc(nxsim_xpfo_policy_shootdown(NULL, 0, NULL, 0, 0), -EINVAL);
	assert_false(nxsim_xpfo_policy_ranged(NULL, 1));
	assert_true(nxsim_xpfo_policy_ranged(m, 33));
	assert_false(nxsim_xpfo_policy_ranged(m, 34));
	assert_false(nxsim_xpfo_policy_ranged(m, 0));
	assert_null(nxsim_xpfo_policy_data(m));
	assert_null(nxsim_xpfo_policy_cpumask(m));

	assert_rc(nxsim_xpfo_context_switch(m, 1, 3), 0);
	assert_rc(nxsim_xpfo_kernel_exit(m, 1), 0);
	/* An ex-kernel frame in a 2M mapping: its 512 pages flushed. */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_free(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 7, 5, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
	assert_true(probe.calls >= 2);
	assert_int_equal(probe.bad_cpu, -EINVAL);
	assert_int_equal(probe.bad_pfn, -EINVAL);
	assert_int_equal(probe.user_cpus, 2);
	assert_int_equal(probe.domain, 3);
	assert_int_equal(probe.frame_domain, 5);
	assert_true(probe.pages > 33);
	assert_rc(nxsim_tlb_stats(nxsim_xpfo_tlb(m), 0, &st), 0);
	assert_int_equal(st.invlpg, probe.pages);
	/* The only IPIs are the 2M split's own flush_tlb_all(). */
	assert_rc(nxsim_xpfo_result(m, &res), 0);
	assert_int_equal(res.xpfo.splits_2m, 1);
	assert_int_equal(st.ipis_sent, 1);
	assert_rc(nxsim_xpfo_destroy(m), 0);
}

/* The init hook's data, its failure, and the fini that releases it. */
static int init_rc;
static unsigned int nr_fini;
static int token;

static int data_init(struct nxsim_xpfo *m, void **data)
{
	unsigned int nr_cpus = 0;

	nxsim_xpfo_policy_machine(m, &nr_cpus, NULL, NULL);
	assert_int_equal(nr_cpus, 3);
	if (!init_rc)
		*data = &token;
	return init_rc;
}

static void data_fini(struct nxsim_xpfo *m, void *data)
{
	assert_ptr_equal(data, &token);
	nr_fini++;
}

static void test_init_fini(void **state)
{
	static const struct nxsim_xpfo_policy_ops ops = {
		OPS_INIT,
		.name = "with-data",
		.flush = copy_eager_flush,
		.init = data_init,
		.fini = data_fini,
	};
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 3,
		.nr_frames = 64,
		.policy = "with-data",
	};
	uint64_t live = test_live_allocs();
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_policy_register(&ops, NULL), 0);
	init_rc = -ENOMEM;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -ENOMEM);
	assert_int_equal(test_live_allocs(), live);
	assert_int_equal(nr_fini, 0);
	init_rc = 0;
	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	assert_ptr_equal(nxsim_xpfo_policy_data(m), &token);
	assert_rc(nxsim_xpfo_destroy(m), 0);
	assert_int_equal(nr_fini, 1);
}

/* Threads register the same names at once: one of each wins. */
#define NR_THREADS 4
#define NR_NAMES 8

static void *register_names(void *arg)
{
	static struct nxsim_xpfo_policy_ops ops[NR_THREADS][NR_NAMES];
	static char names[NR_THREADS][NR_NAMES][16];
	unsigned int t = (unsigned int)(uintptr_t)arg, won = 0;

	for (unsigned int i = 0; i < NR_NAMES; i++) {
		snprintf(names[t][i], sizeof(names[t][i]), "race-%u", i);
		ops[t][i] = (struct nxsim_xpfo_policy_ops){
			OPS_INIT,
			.name = names[t][i],
			.flush = copy_eager_flush,
		};
		won += !nxsim_xpfo_policy_register(&ops[t][i], NULL);
	}
	return (void *)(uintptr_t)won;
}

static void test_register_threads(void **state)
{
	unsigned int before = nr_policies(), won = 0;
	pthread_t th[NR_THREADS];

	for (uintptr_t t = 0; t < NR_THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, register_names,
						(void *)t),
				 0);
	for (unsigned int t = 0; t < NR_THREADS; t++) {
		void *r;

		assert_int_equal(pthread_join(th[t], &r), 0);
		won += (unsigned int)(uintptr_t)r;
	}
	assert_int_equal(won, NR_NAMES);
	assert_int_equal(nr_policies(), before + NR_NAMES);
}

/* The table is full at NXSIM_XPFO_MAX_POLICIES; it stays whole. */
static void test_register_full(void **state)
{
	static struct nxsim_xpfo_policy_ops ops[NXSIM_XPFO_MAX_POLICIES];
	static char names[NXSIM_XPFO_MAX_POLICIES][16];
	const char *why = NULL;
	unsigned int i = 0;
	int rc;

	do {
		snprintf(names[i], sizeof(names[i]), "fill-%u", i);
		ops[i] = (struct nxsim_xpfo_policy_ops){
			OPS_INIT,
			.name = names[i],
			.flush = copy_eager_flush,
		};
		rc = nxsim_xpfo_policy_register(&ops[i], &why);
	} while (!rc && ++i < NXSIM_XPFO_MAX_POLICIES);
	assert_rc(rc, -ENOSPC);
	assert_non_null(strstr(why, "full"));
	assert_int_equal(nr_policies(), NXSIM_XPFO_MAX_POLICIES);
	assert_string_equal(nxsim_xpfo_policy_name(0), "eager");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_bad_input),
		cmocka_unit_test(test_register_lists_and_refuses_duplicate),
		cmocka_unit_test(test_registered_runs_as_builtin),
		cmocka_unit_test(test_primitives_checked),
		cmocka_unit_test(test_init_fini),
		cmocka_unit_test(test_register_threads),
		cmocka_unit_test(test_register_full),
	};

	return cmocka_run_group_tests_name("xpfo_plugin", tests, NULL, NULL);
}
