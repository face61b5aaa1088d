// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's parameter parsers, input by input: sysfs_streq(),
 * kstrtobool() in each era (before t/f, with t/f, with e/d) and
 * kstrtouint(s, 0) with its radix detection, sign, newline and overflow
 * rules (lib/kstrtox.c, lib/string_helpers.c).
 */
#include "common/test_util.h"
#include "kvm/profile.h"
#include "params/cmdline.h"
#include "params/kstrtox.h"

static void test_kstrtox_sysfs_streq(void **state)
{
	static const struct {
		const char *a, *b;
		bool eq;
	} cases[] = {
		{ "off", "off", true },	      { "off\n", "off", true },
		{ "off", "off\n", true },     { "off\n", "off\n", true },
		{ "off\n\n", "off", false },  { " off", "off", false },
		{ "off ", "off", false },     { "Off", "off", false },
		{ "OFF", "off", false },      { "of", "off", false },
		{ "offx", "off", false },     { "", "", true },
		{ "\n", "", true },	      { "", "off", false },
		{ "never\n", "never", true }, { "never\r\n", "never", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (nxsim__sysfs_streq(cases[i].a, cases[i].b) != cases[i].eq)
			fail_msg("sysfs_streq(\"%s\", \"%s\") != %d",
				 cases[i].a, cases[i].b, cases[i].eq);
}

/* -1: -EINVAL; 0: false; 1: true */
struct bool_case {
	const char *s;
	int v54;  /* 5.4: y/n/1/0/on/off */
	int v61;  /* 5.19 on: + t/f */
	int v616; /* 6.16 on: + e/d */
};

static const struct bool_case bool_cases[] = {
	{ "y", 1, 1, 1 },	  { "Y", 1, 1, 1 },	 { "yes", 1, 1, 1 },
	{ "1", 1, 1, 1 },	  { "1\n", 1, 1, 1 },	 { "10", 1, 1, 1 },
	{ "n", 0, 0, 0 },	  { "N", 0, 0, 0 },	 { "no", 0, 0, 0 },
	{ "0", 0, 0, 0 },	  { "N\n", 0, 0, 0 },	 { "Y\n", 1, 1, 1 },
	{ "on", 1, 1, 1 },	  { "ON", 1, 1, 1 },	 { "oN", 1, 1, 1 },
	{ "off", 0, 0, 0 },	  { "OFF", 0, 0, 0 },	 { "Off", 0, 0, 0 },
	{ "o", -1, -1, -1 },	  { "ox", -1, -1, -1 },	 { "o\n", -1, -1, -1 },
	{ "t", -1, 1, 1 },	  { "true", -1, 1, 1 },	 { "T", -1, 1, 1 },
	{ "f", -1, 0, 0 },	  { "false", -1, 0, 0 }, { "F", -1, 0, 0 },
	{ "force", -1, 0, 0 },	  { "Force", -1, 0, 0 }, { "never", 0, 0, 0 },
	{ "Never", 0, 0, 0 },	  { "neverx", 0, 0, 0 }, { "e", -1, -1, 1 },
	{ "enable", -1, -1, 1 },  { "E", -1, -1, 1 },	 { "d", -1, -1, 0 },
	{ "disable", -1, -1, 0 }, { "D", -1, -1, 0 },	 { "", -1, -1, -1 },
	{ "\n", -1, -1, -1 },	  { " y", -1, -1, -1 },	 { "auto", -1, -1, -1 },
	{ "2", -1, -1, -1 },	  { "-1", -1, -1, -1 },	 { "+1", -1, -1, -1 },
};

static void check_bool_era(const char *profile, size_t col)
{
	const struct nxsim__profile *prof = nxsim__profile_find(profile);
	size_t i;

	assert_non_null(prof);
	for (i = 0; i < ARRAY_SIZE(bool_cases); i++) {
		const struct bool_case *c = &bool_cases[i];
		int want = col == 0 ? c->v54 : col == 1 ? c->v61 : c->v616;
		bool res = !want;
		int rc = nxsim__kstrtobool(&prof->kstrtox, c->s, &res);
		int got = rc < 0 ? -1 : res;

		if (rc < 0 && rc != -EINVAL)
			fail_msg("kstrtobool(\"%s\") returned %d", c->s, rc);
		if (got != want)
			fail_msg("profile %s: kstrtobool(\"%s\") = %d, want %d",
				 profile, c->s, got, want);
	}
}

static void test_kstrtox_kstrtobool_eras(void **state)
{
	check_bool_era("5.4", 0);
	check_bool_era("5.10", 0);
	check_bool_era("6.1", 1);
	check_bool_era("6.14", 1);
	check_bool_era("6.16", 2);
	check_bool_era("6.18", 2);
}

static void test_kstrtox_kstrtobool_null(void **state)
{
	bool res = true;

	assert_rc(nxsim__kstrtobool(&nxsim__profile_find(NULL)->kstrtox, NULL,
				    &res),
		  -EINVAL);
	assert_true(res);
}

static void test_kstrtox_kstrtouint(void **state)
{
	static const struct {
		const char *s;
		int rc;
		unsigned int v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "60", 0, 60 },
		{ "60\n", 0, 60 },
		{ "+60", 0, 60 },
		{ "0x10", 0, 16 },
		{ "0X1f", 0, 31 },
		{ "0x", -EINVAL, 0 }, /* no hex digit: octal "0", then 'x' */
		{ "0xg", -EINVAL, 0 },
		{ "010", 0, 8 },      /* octal */
		{ "08", -EINVAL, 0 }, /* 8 is no octal digit */
		{ "00", 0, 0 },
		{ "4294967295", 0, 4294967295u },
		{ "4294967296", -ERANGE, 0 },
		{ "0xffffffff", 0, 4294967295u },
		{ "0x100000000", -ERANGE, 0 },
		{ "18446744073709551615", -ERANGE, 0 }, /* fits u64, not u32 */
		{ "18446744073709551616", -ERANGE, 0 }, /* overflows u64 */
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "+", -EINVAL, 0 },
		{ "++1", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-0", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1\n\n", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "12abc", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "0x7fffffff\n", 0, 0x7fffffffu },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int v = 12345;
		int rc = nxsim__kstrtouint(cases[i].s, 0, &v);

		if (rc != cases[i].rc)
			fail_msg("kstrtouint(\"%s\") = %d, want %d", cases[i].s,
				 rc, cases[i].rc);
		if (v != (rc ? 12345u : cases[i].v))
			fail_msg("kstrtouint(\"%s\") stored %u", cases[i].s, v);
	}
}

static void test_kstrtox_parameq(void **state)
{
	assert_true(nxsim__parameq("nx_huge_pages", "nx_huge_pages"));
	assert_true(nxsim__parameq("nx-huge-pages", "nx_huge_pages"));
	assert_true(nxsim__parameq("nx_huge-pages", "nx-huge_pages"));
	assert_false(nxsim__parameq("nx_huge_page", "nx_huge_pages"));
	assert_false(nxsim__parameq("nx_huge_pagesx", "nx_huge_pages"));
	assert_false(nxsim__parameq("NX_huge_pages", "nx_huge_pages"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kstrtox_sysfs_streq),
		cmocka_unit_test(test_kstrtox_kstrtobool_eras),
		cmocka_unit_test(test_kstrtox_kstrtobool_null),
		cmocka_unit_test(test_kstrtox_kstrtouint),
		cmocka_unit_test(test_kstrtox_parameq),
	};

	return cmocka_run_group_tests_name("kstrtox", tests, NULL, NULL);
}
