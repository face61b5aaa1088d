// SPDX-License-Identifier: GPL-2.0-only
/*
 * The name <-> value helper (src/core/names.h) and the tables that use it:
 * every name a table lists is found at its own index, and a name it does
 * not list, or NULL, is not found.
 */
#include "common/test_util.h"
#include "core/names.h"

static const char *const colours[] = { "red", "green", "red" };

static const char *colour(unsigned int i)
{
	return NXSIM__NAME_AT(colours, i);
}

static void test_name_index(void **state)
{
	assert_int_equal(nxsim__name_index(colour, "red"), 0);
	assert_int_equal(nxsim__name_index(colour, "green"), 1);
	assert_int_equal(nxsim__name_index(colour, "blue"), -1);
	assert_int_equal(nxsim__name_index(colour, "re"), -1);
	assert_int_equal(nxsim__name_index(colour, ""), -1);
	assert_int_equal(nxsim__name_index(colour, NULL), -1);
	assert_null(colour(3));
}

/* Each public table round-trips through the helper. */
static void test_name_tables(void **state)
{
	static const nxsim__name_fn tables[] = {
		nxsim_xpfo_policy_name,
		nxsim_xpfo_workload_name,
		nxsim_profile_name,
		nxsim_vm_stat_name,
	};
	const char *name;

	for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
		unsigned int i;

		for (i = 0; (name = tables[t](i)); i++)
			assert_int_equal(nxsim__name_index(tables[t], name),
					 (int)i);
		assert_true(i > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_index),
		cmocka_unit_test(test_name_tables),
	};

	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
