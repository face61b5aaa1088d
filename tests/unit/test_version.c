// SPDX-License-Identifier: GPL-2.0-only
/*
 * The version: nxsim_version() at run time is the headers' NXSIM_VERSION_*,
 * and <nxsim/nxsim.h> alone gives the errno names its answers use (this
 * file includes nothing else of libc's that would bring <errno.h>).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include <nxsim/nxsim.h>

static void test_version(void **state)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", NXSIM_VERSION_MAJOR,
		 NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
	assert_string_equal(nxsim_version(), want);
}

static void test_errno_names(void **state)
{
	assert_string_equal(nxsim_errname(-EINVAL), "-EINVAL");
	assert_int_equal(nxsim_errno_parse("-ERANGE"), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_errno_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
