// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replacement policies from outside the library (nxsim_tlb_repl_register()):
 * the checks of a registration, a registered copy of plru and of random
 * giving the built-in's counters on the same stream of lookups and fills,
 * and a victim hook that answers a way outside the set (taken as way 0,
 * never a write outside the set).
 */
#include <string.h>

#include "common/test_util.h"

extern const struct nxsim_tlb_repl_ops nxsim__tlb_repl_plru;
extern const struct nxsim_tlb_repl_ops nxsim__tlb_repl_random;

static void test_register_bad_input(void **state)
{
	const struct {
		uint32_t size, version;
		const char *name;
		int rc;
		const char *why;
	} rows[] = {
		{ 4, 1, "x", -EINVAL, "size" },
		{ sizeof(struct nxsim_tlb_repl_ops), 2, "x", -EOPNOTSUPP,
		  "version" },
		{ sizeof(struct nxsim_tlb_repl_ops), 1, "", -EINVAL, "empty" },
		{ sizeof(struct nxsim_tlb_repl_ops), 1, "a=b", -EINVAL,
		  "character" },
		{ sizeof(struct nxsim_tlb_repl_ops), 1, "lru", -EEXIST,
		  "taken" },
	};
	const char *why = NULL;

	assert_rc(nxsim_tlb_repl_register(NULL, &why), -EINVAL);
	assert_non_null(strstr(why, "NULL"));
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nxsim_tlb_repl_ops ops = {
			.size = rows[i].size,
			.version = rows[i].version,
			.name = rows[i].name,
		};

		why = NULL;
		assert_rc(nxsim_tlb_repl_register(&ops, &why), rows[i].rc);
		if (!why || !strstr(why, rows[i].why))
			fail_msg("row %zu: reason \"%s\" lacks \"%s\"", i,
				 why ? why : "(none)", rows[i].why);
	}
	assert_string_equal(nxsim_tlb_repl_name(0), "lru");
	assert_string_equal(nxsim_tlb_repl_name(2), "plru");
	assert_null(nxsim_tlb_repl_name(3));
}

/* A seeded stream of lookups, a fill on each miss; the summed counters. */
static struct nxsim_tlb_stats run(const char *repl)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb_stats st;
	struct nxsim_tlb *tlb;
	struct nxsim_rng rng;

	nxsim_tlb_config_default(&cfg, 1);
	cfg.level[NXSIM_TLB_L2].ways = 8; /* plru's power of two */
	cfg.replacement = repl;
	cfg.seed = 7;
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	nxsim_rng_seed(&rng, 3);
	for (int i = 0; i < 20000; i++) {
		uint64_t va = nxsim_rng_below(&rng, 4096) << 12;
		struct nxsim_tlb_entry e;

		if (!nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e))
			continue;
		e = (struct nxsim_tlb_entry){
			.va = va,
			.pfn = va >> 12,
			.page_shift = NXSIM_TLB_SHIFT_4K,
		};
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), 0);
	}
	assert_rc(nxsim_tlb_stats(tlb, -1, &st), 0);
	assert_rc(nxsim_tlb_destroy(tlb), 0);
	return st;
}

static void test_registered_as_builtin(void **state)
{
	struct nxsim_tlb_repl_ops plru = nxsim__tlb_repl_plru;
	struct nxsim_tlb_repl_ops rnd = nxsim__tlb_repl_random;
	struct nxsim_tlb_stats a, b;

	plru.name = "copy-plru";
	rnd.name = "copy-random";
	assert_rc(nxsim_tlb_repl_register(&plru, NULL), 0);
	assert_rc(nxsim_tlb_repl_register(&rnd, NULL), 0);
	assert_string_equal(nxsim_tlb_repl_name(3), "copy-plru");
	a = run("plru");
	b = run("copy-plru");
	assert_true(a.evictions > 0);
	assert_memory_equal(&a, &b, sizeof(a));
	a = run("random");
	b = run("copy-random");
	assert_memory_equal(&a, &b, sizeof(a));
	/* plru's power-of-two rule holds for its copy: L2 is 12 ways. */
	{
		struct nxsim_tlb_config cfg;
		struct nxsim_tlb *tlb;

		nxsim_tlb_config_default(&cfg, 1);
		cfg.replacement = "copy-plru";
		assert_rc(nxsim_tlb_create(&cfg, &tlb), -EINVAL);
	}
}

static unsigned int calls;

static unsigned int wild_victim(const uint64_t *age, uint32_t *state,
				unsigned int ways, struct nxsim_rng *rng)
{
	calls++;
	return ways + 99;
}

static void test_victim_outside_set(void **state)
{
	static const struct nxsim_tlb_repl_ops wild = {
		.size = sizeof(struct nxsim_tlb_repl_ops),
		.version = NXSIM_TLB_REPL_OPS_VERSION,
		.name = "wild",
		.victim = wild_victim,
	};
	struct nxsim_tlb_stats st;

	assert_rc(nxsim_tlb_repl_register(&wild, NULL), 0);
	st = run("wild");
	assert_true(calls > 0);
	assert_true(st.evictions > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_bad_input),
		cmocka_unit_test(test_registered_as_builtin),
		cmocka_unit_test(test_victim_outside_set),
	};

	return cmocka_run_group_tests_name("tlb_repl_plugin", tests, NULL,
					   NULL);
}
