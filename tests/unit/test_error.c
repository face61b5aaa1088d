// SPDX-License-Identifier: GPL-2.0-only
/*
 * Error names and texts: nxsim_errname(), nxsim_strerror() and
 * nxsim_errno_parse() agree, including the kernel-only -ERESTARTNOINTR.
 */
#include "common/test_util.h"

static void test_error_names(void **state)
{
	assert_string_equal(nxsim_errname(-EPERM), "-EPERM");
	assert_string_equal(nxsim_errname(EBUSY), "-EBUSY");
	assert_string_equal(nxsim_errname(-NXSIM_ERESTARTNOINTR),
			    "-ERESTARTNOINTR");
	assert_null(nxsim_errname(-4242));
	assert_string_equal(nxsim_strerror(-EPERM),
			    "-EPERM: Operation not permitted");
	assert_string_equal(
		nxsim_strerror(-NXSIM_ERESTARTNOINTR),
		"-ERESTARTNOINTR: Interrupted system call, restart");
	assert_string_equal(nxsim_strerror(0), "0: Success");
	assert_string_equal(nxsim_strerror(-4242), "unknown error");
}

static void test_error_parse(void **state)
{
	assert_rc(nxsim_errno_parse("-EPERM"), -EPERM);
	assert_rc(nxsim_errno_parse("EBUSY"), -EBUSY);
	assert_rc(nxsim_errno_parse("-ERESTARTNOINTR"), -NXSIM_ERESTARTNOINTR);
	assert_rc(nxsim_errno_parse("-22"), -EINVAL);
	assert_rc(nxsim_errno_parse("-4242"), 0);
	assert_rc(nxsim_errno_parse("EPERMX"), 0);
	assert_rc(nxsim_errno_parse(""), 0);
	assert_rc(nxsim_errno_parse(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_names),
		cmocka_unit_test(test_error_parse),
	};

	return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
