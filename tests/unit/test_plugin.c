// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading plug-ins (nxsim_plugin_load()): the files that do not load, an
 * object without the entry, entries that fail or register badly (nothing
 * registered, the object closed), and the example flush plug-in, whose
 * policy then runs through a workload and the oracle.
 */
#include <stdio.h>
#include <string.h>

#include "common/test_util.h"

static unsigned int nr_policies(void)
{
	unsigned int n = 0;

	while (nxsim_xpfo_policy_name(n))
		n++;
	return n;
}

static const char *variant(unsigned int v)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/plugin_variant%u.so", PLUGIN_DIR, v);
	return path;
}

static void test_load_bad(void **state)
{
	const struct {
		const char *path;
		int rc;
		const char *why;
	} rows[] = {
		{ "", -EINVAL, "no plug-in path" },
		{ "/nonexistent/plugin.so", -ENOENT, "no such plug-in file" },
		/* A file that is not a shared object. */
		{ __FILE__, -EINVAL, "does not load" },
		{ variant(1), -ENOSYS, "no nxsim_plugin_init" },
	};
	unsigned int before = nr_policies();
	const char *why;

	assert_rc(nxsim_plugin_load(NULL, NULL), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		why = NULL;
		assert_rc(nxsim_plugin_load(rows[i].path, &why), rows[i].rc);
		if (!why || !strstr(why, rows[i].why))
			fail_msg("%s: reason \"%s\" lacks \"%s\"", rows[i].path,
				 why ? why : "(none)", rows[i].why);
	}
	assert_int_equal(nr_policies(), before);
}

/* An entry that fails after registering leaves nothing registered. */
static void test_load_all_or_nothing(void **state)
{
	unsigned int before = nr_policies();
	const char *why = NULL;

	assert_rc(nxsim_plugin_load(variant(2), &why), -EIO);
	assert_non_null(strstr(why, "nxsim_plugin_init() failed"));
	assert_rc(nxsim_plugin_load(variant(3), &why), -EEXIST);
	assert_non_null(strstr(why, "given twice"));
	assert_rc(nxsim_plugin_load(variant(4), &why), -EINVAL);
	assert_non_null(strstr(why, "negative errno"));
	assert_int_equal(nr_policies(), before);
	assert_null(nxsim_xpfo_policy_name(before));

	assert_rc(nxsim_plugin_load(variant(5), &why), 0);
	assert_int_equal(nr_policies(), before + 1);
	assert_string_equal(nxsim_xpfo_policy_name(before), "fixture-ok");
	/* A second load of the same object is a no-op. */
	assert_rc(nxsim_plugin_load(variant(5), &why), 0);
	assert_int_equal(nr_policies(), before + 1);
}

static void test_api_table(void **state)
{
	const struct nxsim_plugin_api *api = nxsim_plugin_api();

	assert_int_equal(api->version, NXSIM_PLUGIN_API_VERSION);
	assert_int_equal(api->size, sizeof(*api));
	assert_ptr_equal(api->xpfo_policy_register, nxsim_xpfo_policy_register);
	assert_ptr_equal(api->xpfo_shootdown, nxsim_xpfo_policy_shootdown);
}

/*
 * The example: "owner-cpus" on a 4-CPU compile workload sends fewer IPI
 * targets than "eager" and leaves windows that "eager" closes.
 */
static void test_example_owner_cpus(void **state)
{
	struct nxsim_xpfo_run run = {
		.workload = "compile",
		.version = NXSIM_XPFO_V6,
		.nr_cpus = 4,
		.events = 4000,
		.seed = 5,
	};
	struct nxsim_xpfo_result eager, owner;

	assert_rc(nxsim_plugin_load(PLUGIN_OWNER, NULL), 0);
	run.policy = "eager";
	assert_rc(nxsim_xpfo_run_workload(&run, &eager), 0);
	run.policy = "owner-cpus";
	assert_rc(nxsim_xpfo_run_workload(&run, &owner), 0);
	assert_int_equal(owner.xpfo.policy_flushes, eager.xpfo.policy_flushes);
	assert_true(owner.tlb.ipi_targets < eager.tlb.ipi_targets);
	assert_true(owner.flush_cycles < eager.flush_cycles);
	assert_true(owner.oracle.exposure_sum_ns >=
		    eager.oracle.exposure_sum_ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_bad),
		cmocka_unit_test(test_load_all_or_nothing),
		cmocka_unit_test(test_api_table),
		cmocka_unit_test(test_example_owner_cpus),
	};

	return cmocka_run_group_tests_name("plugin", tests, NULL, NULL);
}
