// SPDX-License-Identifier: GPL-2.0-only
/*
 * The small public helpers the driver and the benchmarks use
 * (include/nxsim/rng.h, include/nxsim/hex.h): a seed gives one stream,
 * the same every run, and nxsim_rng_below() stays below its bound;
 * nxsim_hex_to_bin() reads every hex digit and rejects every other byte,
 * as hex_to_bin() does.
 */
#include "common/test_util.h"

static void test_rng_streams(void **state)
{
	/* splitmix64(0) seeds xoshiro256**: its first outputs, pinned */
	static const uint64_t first[] = { 0x99ec5f36cb75f2b4ull,
					  0xbf6e1f784956452aull };
	struct nxsim_rng a, b;
	uint64_t x;

	nxsim_rng_seed(&a, 0);
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		assert_int_equal(nxsim_rng_next(&a), first[i]);
	nxsim_rng_seed(&a, 42);
	nxsim_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(nxsim_rng_next(&a), nxsim_rng_next(&b));
	nxsim_rng_seed(&b, 43);
	assert_int_not_equal(nxsim_rng_next(&a), nxsim_rng_next(&b));
	for (int i = 0; i < 1000; i++) {
		x = nxsim_rng_below(&a, 7);
		assert_true(x < 7);
	}
	assert_int_equal(nxsim_rng_below(&a, 1), 0);
}

static void test_hex_to_bin(void **state)
{
	for (int c = 0; c < 256; c++) {
		int want = c >= '0' && c <= '9' ? c - '0' :
			   c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			   c >= 'A' && c <= 'F' ? c - 'A' + 10 :
						  -1;

		assert_int_equal(nxsim_hex_to_bin((unsigned char)c), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_streams),
		cmocka_unit_test(test_hex_to_bin),
	};

	return cmocka_run_group_tests_name("rng_hex", tests, NULL, NULL);
}
