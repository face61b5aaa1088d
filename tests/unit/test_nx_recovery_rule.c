// SPDX-License-Identifier: GPL-2.0-only
/*
 * NX recovery rules from outside the library (nxsim_nx_recovery_register(),
 * nxsim_host_config.nx_recovery): the checks of a registration, a rule
 * that takes the newest SPs instead of the oldest (the exact list left),
 * the candidates' read-only views, and rules that go wrong: an index not
 * on the list, an index twice, more pages than exist (-EINVAL from the
 * pass, a checker report, the list whole) and a rule's own error; and the
 * example plug-in lru-accessed.
 */
#include <inttypes.h>
#include <string.h>

#include "mmu_unit.h"

#define NR_SPS 6
#define SP_GPA(n) (GIB + (n)*MIB2)

#define OPS_INIT                                      \
	.size = sizeof(struct nxsim_nx_recovery_ops), \
	.version = NXSIM_NX_RECOVERY_OPS_VERSION

/* What the last pick saw, and what the next one answers. */
static struct nxsim_nx_candidate seen[NR_SPS];
static size_t seen_nr;
static uint64_t seen_kernel_nr;
static int64_t (*answer)(size_t nr, uint64_t kernel_nr, size_t *pick);

static int64_t record_pick(const struct nxsim_nx_candidate *cand, size_t nr,
			   uint64_t kernel_nr, size_t *pick)
{
	seen_nr = nr;
	seen_kernel_nr = kernel_nr;
	memcpy(seen, cand, MIN(nr, (size_t)NR_SPS) * sizeof(*cand));
	return answer(nr, kernel_nr, pick);
}

static int64_t newest_first(size_t nr, uint64_t kernel_nr, size_t *pick)
{
	size_t k;

	for (k = 0; k < kernel_nr && k < nr; k++)
		pick[k] = nr - 1 - k;
	return (int64_t)k;
}

static int64_t out_of_range(size_t nr, uint64_t kernel_nr, size_t *pick)
{
	pick[0] = 0;
	pick[1] = nr;
	return 2;
}

static int64_t twice(size_t nr, uint64_t kernel_nr, size_t *pick)
{
	pick[0] = 1;
	pick[1] = 1;
	return 2;
}

static int64_t too_many(size_t nr, uint64_t kernel_nr, size_t *pick)
{
	return (int64_t)nr + 1;
}

static int64_t fails(size_t nr, uint64_t kernel_nr, size_t *pick)
{
	return -EIO;
}

static const struct nxsim_nx_recovery_ops rule = {
	OPS_INIT,
	.name = "test-rule",
	.pick = record_pick,
};

static void test_register_bad_input(void **state)
{
	const struct {
		uint32_t size, version;
		const char *name;
		bool no_pick;
		int rc;
		const char *why;
	} rows[] = {
		{ 4, 1, "x", false, -EINVAL, "size" },
		{ sizeof(rule), 7, "x", false, -EOPNOTSUPP, "version" },
		{ sizeof(rule), 1, "", false, -EINVAL, "empty" },
		{ sizeof(rule), 1, NULL, false, -EINVAL, "empty" },
		{ sizeof(rule), 1, "a b", false, -EINVAL, "character" },
		{ sizeof(rule), 1, "x", true, -EINVAL, "no pick, period_ms" },
		{ sizeof(rule), 1, "kernel", false, -EEXIST, "taken" },
	};
	const char *why = NULL;

	assert_rc(nxsim_nx_recovery_register(NULL, &why), -EINVAL);
	assert_non_null(strstr(why, "NULL"));
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nxsim_nx_recovery_ops ops = rule;

		ops.size = rows[i].size;
		ops.version = rows[i].version;
		ops.name = rows[i].name;
		if (rows[i].no_pick)
			ops.pick = NULL;
		why = NULL;
		assert_rc(nxsim_nx_recovery_register(&ops, &why), rows[i].rc);
		if (!why || !strstr(why, rows[i].why))
			fail_msg("row %zu: reason \"%s\" lacks \"%s\"", i,
				 why ? why : "(none)", rows[i].why);
	}
	assert_string_equal(nxsim_nx_recovery_name(0), "kernel");
	assert_null(nxsim_nx_recovery_name(1));

	assert_rc(nxsim_nx_recovery_register(&rule, &why), 0);
	assert_string_equal(nxsim_nx_recovery_name(1), "test-rule");
	assert_rc(nxsim_nx_recovery_register(&rule, &why), -EEXIST);
	assert_null(nxsim_nx_recovery_name(2));
}

/* A 6.1 host running @name, six NX splits, ratio 2. */
static struct nx_env rule_env_named(const char *name)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = "6.1",
		.nx_recovery = name,
	};
	struct nx_env e = nx_env_config(&cfg);
	int i;

	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "2"),
		  0);
	nx_slot(e.vm, 0, GIB, NR_SPS * MIB2, HVA_BASE, 2, 0);
	for (i = 0; i < NR_SPS; i++)
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, SP_GPA(i) + 0x1000);
	/* A second access on SP 4: two present leaves there. */
	nx_access(e.vcpu, NXSIM_ACCESS_READ, SP_GPA(4) + 0x3000);
	return e;
}

static struct nx_env rule_env(void)
{
	return rule_env_named("test-rule");
}

/* The gfns left on the TDP list, oldest first, as SP_GPA indices. */
static void check_list(struct nxsim__vm_mmu *mmu, const int *left, int n)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, NXSIM__TDP_MMU);
	struct nxsim__mmu_page *sp;
	int i = 0;

	TAILQ_FOREACH(sp, &l->pages, possible_nx_huge_page_link) {
		assert_true(i < n);
		assert_int_equal(sp->gfn, SP_GPA(left[i]) >> 12);
		i++;
	}
	assert_int_equal(i, n);
	assert_int_equal(mmu->nx_lpage_splits, n);
}

static void test_unknown_rule(void **state)
{
	struct nxsim_host_config cfg = { .nx_recovery = "no-such-rule" };
	struct nxsim_host *host;

	assert_rc(nxsim_host_create(&cfg, &host), -ENOENT);
}

static void test_newest_first(void **state)
{
	struct nx_env e = rule_env();
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);

	answer = newest_first;
	assert_rc(nxsim__mmu_recover_nx_huge_pages(mmu), 0);
	assert_int_equal(seen_nr, NR_SPS);
	assert_int_equal(seen_kernel_nr, 3);
	for (int i = 0; i < NR_SPS; i++) {
		assert_int_equal(seen[i].gfn, SP_GPA(i) >> 12);
		assert_int_equal(seen[i].level, 1);
		assert_int_equal(seen[i].age, i);
		assert_true(seen[i].tdp_mmu);
		assert_false(seen[i].dirty_logged);
		assert_int_equal(seen[i].present, i == 4 ? 2 : 1);
	}
	check_list(mmu, (const int[]){ 0, 1, 2 }, 3);
	assert_int_equal(mmu->counters.recovery_zapped, 3);
	nx_check_ok(e.vm);
	nx_env_destroy(&e);
}

static void report(void *ctx, const char *text)
{
	if (strstr(text, "recovery rule test-rule picked"))
		(*(int *)ctx)++;
}

static void test_bad_picks(void **state)
{
	int64_t (*const bad[])(size_t, uint64_t, size_t *) = {
		out_of_range,
		twice,
		too_many,
	};

	for (size_t b = 0; b < ARRAY_SIZE(bad); b++) {
		struct nx_env e = rule_env();
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		int reports = 0;

		answer = bad[b];
		assert_rc(nxsim__mmu_recover_nx_huge_pages(mmu), -EINVAL);
		check_list(mmu, (const int[]){ 0, 1, 2, 3, 4, 5 }, NR_SPS);
		assert_int_equal(mmu->counters.recovery_zapped, 0);
		assert_rc(nxsim_vm_check(e.vm, report, &reports), 1);
		assert_int_equal(reports, 1);
		nx_env_destroy(&e);
	}
}

static void test_rule_error(void **state)
{
	struct nx_env e = rule_env();
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);

	answer = fails;
	assert_rc(nxsim__mmu_recover_nx_huge_pages(mmu), -EIO);
	check_list(mmu, (const int[]){ 0, 1, 2, 3, 4, 5 }, NR_SPS);
	nx_env_destroy(&e);
}

/*
 * lru-accessed takes the three least accessed: SPs 0 and 1 have four
 * accessed leaves, SP 4 two, the others one; the kernel would take 0-2.
 */
static void test_example_lru(void **state)
{
	struct nx_env e;
	struct nxsim__vm_mmu *mmu;

	assert_rc(nxsim_plugin_load(PLUGIN_NX, NULL), 0);
	e = rule_env_named("lru-accessed");
	mmu = unit_mmu(&e);
	for (int i = 0; i < 2; i++)
		for (int p = 2; p < 5; p++)
			nx_access(e.vcpu, NXSIM_ACCESS_READ,
				  SP_GPA(i) + p * 0x1000ull);
	assert_rc(nxsim__mmu_recover_nx_huge_pages(mmu), 0);
	check_list(mmu, (const int[]){ 0, 1, 4 }, 3);
	assert_int_equal(mmu->counters.recovery_zapped, 3);
	nx_check_ok(e.vm);
	nx_env_destroy(&e);
}

static unsigned int tenth(unsigned int kernel_ms)
{
	return kernel_ms / 10;
}

static unsigned int zero(unsigned int kernel_ms)
{
	return 0;
}

/*
 * A rule with a period hook alone: the kernel's pick, at a tenth of the
 * kernel's period (1000 ms here); one that answers 0 gets 1 ms.
 */
static void test_period(void **state)
{
	static const struct nxsim_nx_recovery_ops fast = {
		OPS_INIT,
		.name = "tenth-period",
		.period_ms = tenth,
	};
	static const struct nxsim_nx_recovery_ops busy = {
		OPS_INIT,
		.name = "zero-period",
		.period_ms = zero,
	};
	const struct {
		const char *name;
		uint64_t advance_ms, passes;
	} rows[] = {
		{ "kernel", 150, 0 },
		{ "tenth-period", 150, 1 },
		/* 1 ms is one jiffy at HZ 250: a pass each 4 ms */
		{ "zero-period", 10, 2 },
	};

	assert_rc(nxsim_nx_recovery_register(&fast, NULL), 0);
	assert_rc(nxsim_nx_recovery_register(&busy, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nx_env e = rule_env_named(rows[i].name);
		struct nxsim_worker_info w;

		assert_rc(nxsim_param_set(e.host,
					  "nx_huge_pages_recovery_period_ms",
					  "1000"),
			  0);
		assert_rc(nxsim_vcpu_run(e.vcpu), 0);
		nxsim_clock_advance(nxsim_host_clock(e.host),
				    rows[i].advance_ms * 1000000ull);
		assert_rc(nxsim_vm_worker_info(e.vm, &w), 0);
		if (w.passes != rows[i].passes)
			fail_msg("%s: %" PRIu64 " passes, want %" PRIu64,
				 rows[i].name, w.passes, rows[i].passes);
		nx_env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_bad_input),
		cmocka_unit_test(test_unknown_rule),
		cmocka_unit_test(test_newest_first),
		cmocka_unit_test(test_bad_picks),
		cmocka_unit_test(test_rule_error),
		cmocka_unit_test(test_example_lru),
		cmocka_unit_test(test_period),
	};

	return cmocka_run_group_tests_name("nx_recovery_rule", tests, NULL,
					   NULL);
}
