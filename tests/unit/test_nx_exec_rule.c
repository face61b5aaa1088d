// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exec-fault decisions of an NX rule (struct nxsim_nx_recovery_ops's
 * exec_huge and exec_split, version 2): a rule that never lets an exec
 * fault map huge and one that always zaps, each beside the kernel's rule
 * on the same steps with exact stats; the views the hooks get; answers
 * out of range (-EINVAL from the fault, a checker report, nothing
 * changed); a rule that maps huge on exec with the mitigation on (a
 * non-executable huge SPTE, the fetch spurious again); and a version 1 rule, whose exec
 * decisions stay the kernel's.
 */
#include <string.h>

#include "mmu_unit.h"

#define GPA GIB

static struct nxsim_nx_exec_fault seen;
static int seen_kernel, calls;

/* never-huge's exec_huge and always-zap's exec_split: always 0 */
static int record_no(const struct nxsim_nx_exec_fault *f, int kernel)
{
	seen = *f;
	seen_kernel = kernel;
	calls++;
	return 0;
}

static int always_huge(const struct nxsim_nx_exec_fault *f, int kernel)
{
	return 1;
}

static int two(const struct nxsim_nx_exec_fault *f, int kernel)
{
	return 2;
}

static int minus_one(const struct nxsim_nx_exec_fault *f, int kernel)
{
	return -1;
}

#define RULE(n, field, fn)                                           \
	{                                                            \
		.size = sizeof(struct nxsim_nx_recovery_ops),        \
		.version = NXSIM_NX_RECOVERY_OPS_VERSION, .name = n, \
		.field = fn,                                         \
	}

static const struct nxsim_nx_recovery_ops rules[] = {
	RULE("never-huge", exec_huge, record_no),
	RULE("always-huge", exec_huge, always_huge),
	RULE("always-zap", exec_split, record_no),
	RULE("huge-two", exec_huge, two),
	RULE("split-minus-one", exec_split, minus_one),
};

static int setup(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (nxsim_nx_recovery_register(&rules[i], NULL))
			return -1;
	return 0;
}

/* A host of @profile running @rule, one 2M-backed 2M slot at 1 GiB. */
static struct nx_env exec_env(const char *profile, const char *rule,
			      const char *nx_huge_pages)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = profile,
		.nx_recovery = rule,
	};
	struct nx_env e = nx_env_config(&cfg);

	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", nx_huge_pages), 0);
	nx_slot(e.vm, 0, GPA, MIB2, HVA_BASE, 2, 0);
	return e;
}

/*
 * One exec fault, the mitigation off: the kernel maps 2M; never-huge maps
 * 4K and accounts the new table as a possible NX huge page, as
 * kvm_tdp_mmu_map() does for any fault with huge_page_disallowed.  With
 * the mitigation on both map 4K.
 */
static void test_never_huge(void **state)
{
	const struct {
		const char *rule, *nx;
		uint64_t p4k, p2m, splits;
		int kernel;
	} rows[] = {
		{ "kernel", "off", 0, 1, 0, 1 },
		{ "never-huge", "off", 1, 0, 1, 1 },
		{ "kernel", "on", 1, 0, 1, 0 },
		{ "never-huge", "on", 1, 0, 1, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nx_env e = exec_env("6.1", rows[i].rule, rows[i].nx);
		struct nxsim_access_info info;

		calls = 0;
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GPA + 0x1000);
		assert_int_equal(info.level, rows[i].p2m ? 2 : 1);
		nx_expect(e.vm, rows[i].p4k, rows[i].p2m, 0, rows[i].splits);
		if (strcmp(rows[i].rule, "kernel")) {
			assert_int_equal(calls, 1);
			assert_int_equal(seen_kernel, rows[i].kernel);
			assert_int_equal(seen.gfn, (GPA + 0x1000) >> 12);
			assert_int_equal(seen.huge_level, 0);
			assert_int_equal(seen.req_level, 2);
			assert_int_equal(seen.nx_huge_pages, !rows[i].kernel);
			assert_true(seen.tdp_mmu);
		}
		nx_env_destroy(&e);
	}
}

/*
 * A read maps 2M, then an exec fault meets it: 6.6 (from 6.2) splits it in place
 * (512 4K leaves), 6.1 and always-zap zap it and map one 4K leaf.
 */
static void test_always_zap(void **state)
{
	const struct {
		const char *profile, *rule;
		uint64_t p4k;
		unsigned int splits, zapped;
		int kernel;
	} rows[] = {
		{ "6.6", "kernel", 512, 1, 0, 1 },
		{ "6.6", "always-zap", 1, 0, 1, 1 },
		{ "6.1", "kernel", 1, 0, 1, 0 },
		{ "6.1", "always-zap", 1, 0, 1, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nx_env e = exec_env(rows[i].profile, rows[i].rule, "on");
		struct nxsim_access_info info;

		calls = 0;
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GPA);
		nx_expect(e.vm, 0, 1, 0, 0);
		assert_int_equal(calls, 0); /* not an exec fault */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GPA + 0x1000);
		assert_int_equal(info.splits, rows[i].splits);
		assert_int_equal(info.zapped_huge, rows[i].zapped);
		nx_expect(e.vm, rows[i].p4k, 0, 0, 1);
		if (strcmp(rows[i].rule, "kernel")) {
			assert_int_equal(calls, 1);
			assert_int_equal(seen_kernel, rows[i].kernel);
			assert_int_equal(seen.huge_level, 2);
		}
		nx_env_destroy(&e);
	}
}

static void count_report(void *ctx, const char *text)
{
	if (strstr(text, "not 0 or 1"))
		(*(int *)ctx)++;
}

/* An answer of 2 or -1: -EINVAL, a checker report, the SPTEs as before. */
static void test_bad_answers(void **state)
{
	const struct {
		const char *rule;
		bool huge_first;
	} rows[] = {
		{ "huge-two", false },
		{ "split-minus-one", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nx_env e = exec_env("6.6", rows[i].rule, "on");
		struct nxsim_access_info info;
		int reports = 0;

		if (rows[i].huge_first)
			nx_access(e.vcpu, NXSIM_ACCESS_READ, GPA);
		assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_EXEC,
					    GPA + 0x1000, &info),
			  -EINVAL);
		assert_int_equal(nx_stat(e.vm, "pages_4k"), 0);
		assert_int_equal(nx_stat(e.vm, "pages_2m"), rows[i].huge_first);
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 0);
		assert_rc(nxsim_vm_check(e.vm, count_report, &reports), 1);
		assert_int_equal(reports, 1);
		assert_rc(nx_env_close(&e), 0);
	}
}

/*
 * always-huge with the mitigation on: make_spte() makes the 2M SPTE
 * non-executable, as the kernel would, so that the fetch faults again
 * and finds the same SPTE (spurious): the rule livelocks the guest, and
 * no invariant breaks.
 */
static void test_always_huge(void **state)
{
	struct nx_env e = exec_env("6.6", "always-huge", "on");
	struct nxsim_access_info info;

	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GPA + 0x1000);
	assert_int_equal(info.level, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 0, 1, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GPA + 0x1000);
	assert_int_equal(info.outcome, NXSIM_ACCESS_SPURIOUS);
	nx_expect(e.vm, 0, 1, 0, 0);
	nx_env_destroy(&e);
}

static unsigned int same(unsigned int kernel_ms)
{
	return kernel_ms;
}

/*
 * A version 1 rule, built before the exec hooks: what lies past its size
 * is not read, its exec decisions are the kernel's (2M, the mitigation
 * off).  An exec hook alone needs version 2.
 */
static void test_version_1(void **state)
{
	struct nxsim_nx_recovery_ops v1 = {
		.size = offsetof(struct nxsim_nx_recovery_ops, exec_huge),
		.version = 1,
		.name = "v1-rule",
		.period_ms = same,
		.exec_huge = record_no,
	};
	struct nxsim_nx_recovery_ops hook_only = v1;
	const char *why = NULL;
	struct nx_env e;

	hook_only.name = "v1-hook-only";
	hook_only.size = sizeof(hook_only);
	hook_only.period_ms = NULL;
	assert_rc(nxsim_nx_recovery_register(&hook_only, &why), -EINVAL);
	assert_non_null(strstr(why, "no pick"));
	hook_only.version = 2;
	hook_only.size = v1.size;
	assert_rc(nxsim_nx_recovery_register(&hook_only, &why), -EINVAL);
	assert_non_null(strstr(why, "version 2"));
	assert_rc(nxsim_nx_recovery_register(&v1, &why), 0);

	calls = 0;
	e = exec_env("6.1", "v1-rule", "off");
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GPA + 0x1000);
	nx_expect(e.vm, 0, 1, 0, 0);
	assert_int_equal(calls, 0);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_huge),
		cmocka_unit_test(test_always_zap),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_always_huge),
		cmocka_unit_test(test_version_1),
	};

	return cmocka_run_group_tests_name("nx_exec_rule", tests, setup, NULL);
}
