// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLB model: INVLPG removes global entries; CR3 writes keep globals;
 * NOFLUSH keeps the PCID's entries; 33 pages flush page by page and 34
 * flush everything on every CPU; a 2M entry covers its 512 pages; IPIs
 * are counted on both sides, broadcast sends none; LRU, PLRU and random
 * replacement; bad input; allocation failures.
 */
#include <string.h>

#include "common/test_util.h"
#include "core/compiler.h"

#define KVA 0xffff888000000000ull
#define PG (1ull << 12)

static struct nxsim_tlb *mk(unsigned int cpus, const char *repl,
			    unsigned int l1_sets, unsigned int l1_ways,
			    unsigned int l2_sets, unsigned int l2_ways)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;

	nxsim_tlb_config_default(&cfg, cpus);
	cfg.replacement = repl;
	if (l1_sets) {
		cfg.level[NXSIM_TLB_L1D] =
			(struct nxsim_tlb_geometry){ l1_sets, l1_ways };
		cfg.level[NXSIM_TLB_L2] =
			(struct nxsim_tlb_geometry){ l2_sets, l2_ways };
	}
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	return tlb;
}

static void fill(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va,
		 uint8_t shift, uint16_t pcid, bool global)
{
	struct nxsim_tlb_entry e = {
		.va = va,
		.pfn = va >> 12,
		.page_shift = shift,
		.pcid = pcid,
		.global = global,
	};

	assert_rc(nxsim_tlb_fill(tlb, cpu, NXSIM_TLB_READ, &e), 0);
}

static int look(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va)
{
	return nxsim_tlb_lookup(tlb, cpu, NXSIM_TLB_READ, va, NULL);
}

static struct nxsim_tlb_stats stats(struct nxsim_tlb *tlb, int cpu)
{
	struct nxsim_tlb_stats st;

	assert_rc(nxsim_tlb_stats(tlb, cpu, &st), 0);
	return st;
}

static void test_tlb_invlpg_removes_global(void **state)
{
	struct nxsim_tlb *tlb = mk(1, NULL, 0, 0, 0, 0);
	struct nxsim_tlb_entry e;

	fill(tlb, 0, KVA, 12, 0, true);
	fill(tlb, 0, KVA + PG, 12, 0, true);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, KVA + 7, &e), 0);
	assert_int_equal(e.va, KVA); /* canonical kernel address */
	assert_int_equal(e.pfn, KVA >> 12);
	assert_int_equal(e.page_shift, 12);
	assert_int_equal(e.level, NXSIM_TLB_L1D);
	assert_rc(nxsim_tlb_invlpg(tlb, 0, KVA + 5), 0);
	assert_rc(look(tlb, 0, KVA), -ENOENT);
	assert_rc(look(tlb, 0, KVA + PG), 0);
	assert_int_equal(stats(tlb, 0).invlpg, 1);
	assert_int_equal(stats(tlb, 0).hits[NXSIM_TLB_L1D], 2);
	assert_int_equal(stats(tlb, 0).misses, 1);
	assert_int_equal(stats(tlb, 0).walks, 2);
	assert_rc(nxsim_tlb_destroy(tlb), 0);
	assert_rc(nxsim_tlb_destroy(NULL), -EINVAL);
}

static void test_tlb_cr3_keeps_global(void **state)
{
	struct nxsim_tlb *tlb = mk(1, NULL, 0, 0, 0, 0);
	uint64_t uva = 0x400000;

	fill(tlb, 0, KVA, 12, 0, true);
	fill(tlb, 0, uva, 12, 0, false);
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 0, false), 0);
	assert_rc(look(tlb, 0, KVA), 0);
	assert_rc(look(tlb, 0, uva), -ENOENT);
	assert_int_equal(stats(tlb, 0).cr3_flush, 1);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_cr3_noflush_keeps_pcid(void **state)
{
	struct nxsim_tlb *tlb = mk(1, NULL, 0, 0, 0, 0);
	uint64_t uva = 0x400000;

	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, true), 0);
	fill(tlb, 0, uva, 12, 1, false);
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 2, true), 0);
	assert_rc(look(tlb, 0, uva), -ENOENT); /* another PCID's entry */
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, true), 0);
	assert_rc(look(tlb, 0, uva), 0); /* NOFLUSH kept it */
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 2, false), 0);
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, true), 0);
	assert_rc(look(tlb, 0, uva), 0); /* flushing PCID 2 kept 1's */
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, false), 0);
	assert_rc(look(tlb, 0, uva), -ENOENT);
	assert_int_equal(stats(tlb, 0).cr3_noflush, 4);
	assert_int_equal(stats(tlb, 0).cr3_flush, 2);
	nxsim_tlb_destroy(tlb);
}

/* Fill pages 0..39 of KVA and one far page on both CPUs. */
static void fill_range(struct nxsim_tlb *tlb)
{
	unsigned int cpu, i;

	for (cpu = 0; cpu < 2; cpu++) {
		for (i = 0; i < 40; i++)
			fill(tlb, cpu, KVA + i * PG, 12, 0, true);
		fill(tlb, cpu, KVA + (1ull << 30), 12, 0, true);
	}
}

static void test_tlb_range_33_pages(void **state)
{
	struct nxsim_tlb *tlb = mk(2, NULL, 0, 0, 0, 0);
	unsigned int cpu, i;

	fill_range(tlb);
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 0, KVA, KVA + 33 * PG), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		for (i = 0; i < 40; i++)
			assert_rc(look(tlb, cpu, KVA + i * PG),
				  i < 33 ? -ENOENT : 0);
		assert_rc(look(tlb, cpu, KVA + (1ull << 30)), 0);
		assert_int_equal(stats(tlb, cpu).invlpg, 33);
		assert_int_equal(stats(tlb, cpu).global_flush, 0);
	}
	assert_int_equal(stats(tlb, 0).range_flushes, 1);
	assert_int_equal(stats(tlb, 0).full_flushes, 0);
	assert_int_equal(stats(tlb, 0).ipis_sent, 1);
	assert_int_equal(stats(tlb, 0).ipi_targets, 1);
	assert_int_equal(stats(tlb, 0).ipis_received, 0);
	assert_int_equal(stats(tlb, 1).ipis_received, 1);
	assert_int_equal(stats(tlb, 1).ipis_sent, 0);
	/* The last page of the address space: one INVLPG per CPU. */
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 0, UINT64_MAX - PG + 1,
					       UINT64_MAX),
		  0);
	assert_int_equal(stats(tlb, 1).invlpg, 34);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_range_34_pages_flushes_all(void **state)
{
	struct nxsim_tlb *tlb = mk(2, NULL, 0, 0, 0, 0);
	unsigned int cpu;

	fill_range(tlb);
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 1, KVA, KVA + 34 * PG), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		assert_rc(look(tlb, cpu, KVA + 39 * PG), -ENOENT);
		assert_rc(look(tlb, cpu, KVA + (1ull << 30)), -ENOENT);
		assert_int_equal(stats(tlb, cpu).invlpg, 0);
		assert_int_equal(stats(tlb, cpu).global_flush, 1);
	}
	assert_int_equal(stats(tlb, 1).full_flushes, 1);
	assert_int_equal(stats(tlb, 1).ipis_sent, 1);
	assert_int_equal(stats(tlb, 0).ipis_received, 1);
	/* flush_tlb_all() is the same full flush. */
	assert_rc(nxsim_tlb_flush_all(tlb, 0), 0);
	assert_int_equal(stats(tlb, 0).full_flushes, 1);
	assert_int_equal(stats(tlb, -1).global_flush, 4);
	assert_int_equal(stats(tlb, -1).ipis_received, 2);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_2m_entry_covers_512_pages(void **state)
{
	struct nxsim_tlb *tlb = mk(1, NULL, 0, 0, 0, 0);
	struct nxsim_tlb_entry e;
	uint64_t base = KVA + (2ull << 20);

	fill(tlb, 0, base, 21, 0, true);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, base + 511 * PG, &e),
		  0);
	assert_int_equal(e.va, base);
	assert_int_equal(e.page_shift, 21);
	assert_int_equal(e.pfn, base >> 12);
	assert_true(e.global);
	assert_rc(look(tlb, 0, base), 0);
	assert_rc(look(tlb, 0, base + 512 * PG), -ENOENT);
	assert_rc(look(tlb, 0, base - PG), -ENOENT);
	/* One INVLPG anywhere inside removes the large entry. */
	assert_rc(nxsim_tlb_invlpg(tlb, 0, base + 100 * PG), 0);
	assert_rc(look(tlb, 0, base), -ENOENT);
	/* A 1G entry likewise. */
	fill(tlb, 0, KVA, 30, 0, true);
	assert_rc(look(tlb, 0, KVA + (1ull << 30) - PG), 0);
	assert_rc(look(tlb, 0, KVA + (1ull << 30)), -ENOENT);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_itlb_and_l2(void **state)
{
	struct nxsim_tlb *tlb = mk(1, NULL, 0, 0, 0, 0);
	struct nxsim_tlb_entry e = { .va = KVA,
				     .page_shift = 12,
				     .global = true };

	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_EXEC, &e), 0);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_EXEC, KVA, &e), 0);
	assert_int_equal(e.level, NXSIM_TLB_L1I);
	/* Data access: not in the dTLB, found in the shared L2... */
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_WRITE, KVA, &e), 0);
	assert_int_equal(e.level, NXSIM_TLB_L2);
	/* ...which refilled the dTLB. */
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, KVA, &e), 0);
	assert_int_equal(e.level, NXSIM_TLB_L1D);
	assert_int_equal(stats(tlb, 0).hits[NXSIM_TLB_L1I], 1);
	assert_int_equal(stats(tlb, 0).hits[NXSIM_TLB_L2], 1);
	assert_int_equal(stats(tlb, 0).hits[NXSIM_TLB_L1D], 1);
	assert_int_equal(stats(tlb, 0).fills, 3);
	nxsim_tlb_destroy(tlb);
}

/* 1 set x 4 ways in the L1D, 1 x 8 in the L2; fill A B C D, touch A. */
static struct nxsim_tlb *four_ways(const char *repl)
{
	struct nxsim_tlb *tlb = mk(1, repl, 1, 4, 1, 8);
	unsigned int i;

	for (i = 0; i < 4; i++)
		fill(tlb, 0, KVA + i * PG, 12, 0, true);
	assert_rc(look(tlb, 0, KVA), 0);
	fill(tlb, 0, KVA + 4 * PG, 12, 0, true); /* E evicts one */
	assert_int_equal(stats(tlb, 0).evictions, 1);
	return tlb;
}

static enum nxsim_tlb_level level_of(struct nxsim_tlb *tlb, uint64_t va)
{
	struct nxsim_tlb_entry e;

	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e), 0);
	return e.level;
}

static void test_tlb_lru_evicts_least_recent(void **state)
{
	struct nxsim_tlb *tlb = four_ways("lru");

	/* B was used least recently; it survives in the L2. */
	assert_int_equal(level_of(tlb, KVA + 2 * PG), NXSIM_TLB_L1D);
	assert_int_equal(level_of(tlb, KVA + 1 * PG), NXSIM_TLB_L2);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_plru_tree(void **state)
{
	struct nxsim_tlb *tlb = four_ways("plru");

	/* Uses 0,1,2,3,0: the tree points right, then left: way 2 (C). */
	assert_int_equal(level_of(tlb, KVA + 1 * PG), NXSIM_TLB_L1D);
	assert_int_equal(level_of(tlb, KVA + 2 * PG), NXSIM_TLB_L2);
	nxsim_tlb_destroy(tlb);
}

static void random_run(uint64_t seed, struct nxsim_tlb_stats *st,
		       uint64_t *fill_evictions, bool hit[64])
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;
	unsigned int i;

	nxsim_tlb_config_default(&cfg, 1);
	cfg.replacement = "random";
	cfg.seed = seed;
	cfg.level[NXSIM_TLB_L1D] = (struct nxsim_tlb_geometry){ 2, 4 };
	cfg.level[NXSIM_TLB_L2] = (struct nxsim_tlb_geometry){ 2, 4 };
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	for (i = 0; i < 64; i++)
		fill(tlb, 0, KVA + i * PG, 12, 0, true);
	*fill_evictions = stats(tlb, 0).evictions;
	for (i = 0; i < 64; i++)
		hit[i] = look(tlb, 0, KVA + i * PG) == 0;
	*st = stats(tlb, 0);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_random_is_seeded(void **state)
{
	struct nxsim_tlb_stats a, b;
	uint64_t ea, eb;
	bool ha[64], hb[64];

	random_run(7, &a, &ea, ha);
	random_run(7, &b, &eb, hb);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_equal(ha, hb, sizeof(ha));
	/* 8 ways in each level for 64 pages: 56 evictions in each. */
	assert_int_equal(ea, 56 * 2);
	assert_int_equal(eb, ea);
}

static void test_tlb_broadcast_sends_no_ipi(void **state)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;

	nxsim_tlb_config_default(&cfg, 3);
	cfg.broadcast = true;
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	fill(tlb, 2, KVA, 12, 0, true);
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 0, KVA, KVA + PG), 0);
	assert_rc(look(tlb, 2, KVA), -ENOENT);
	assert_int_equal(stats(tlb, 0).broadcasts, 1);
	assert_int_equal(stats(tlb, -1).ipis_sent, 0);
	assert_int_equal(stats(tlb, -1).ipis_received, 0);
	assert_int_equal(stats(tlb, -1).invlpg, 3);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_bad_input(void **state)
{
	static const struct {
		unsigned int cpus, level, sets, ways;
		const char *repl;
		int rc;
	} bad[] = {
		{ 0, 0, 16, 4, NULL, -EINVAL },
		{ NXSIM_TLB_MAX_CPUS + 1, 0, 16, 4, NULL, -EINVAL },
		{ 1, NXSIM_TLB_L1D, 0, 4, NULL, -EINVAL },
		{ 1, NXSIM_TLB_L1I, 16, 0, NULL, -EINVAL },
		{ 1, NXSIM_TLB_L2, 12, 4, NULL, -EINVAL },
		{ 1, NXSIM_TLB_L2, 16, NXSIM_TLB_MAX_WAYS + 1, NULL, -EINVAL },
		{ 1, NXSIM_TLB_L2, 128, 12, "plru", -EINVAL },
		{ 1, 0, 16, 4, "fifo", -ENOENT },
	};
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb = NULL;
	struct nxsim_tlb_stats before;
	struct nxsim_tlb_entry e = { .va = KVA, .page_shift = 13 };
	uint64_t live = test_live_allocs();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		nxsim_tlb_config_default(&cfg, bad[i].cpus);
		cfg.level[bad[i].level] =
			(struct nxsim_tlb_geometry){ bad[i].sets, bad[i].ways };
		cfg.replacement = bad[i].repl;
		assert_rc(nxsim_tlb_create(&cfg, &tlb), bad[i].rc);
		assert_null(tlb);
		assert_int_equal(test_live_allocs(), live);
	}
	tlb = mk(2, NULL, 0, 0, 0, 0);
	fill(tlb, 1, KVA, 12, 0, true);
	before = stats(tlb, -1);
	assert_rc(look(tlb, 2, KVA), -EINVAL);
	assert_rc(nxsim_tlb_lookup(tlb, 0, 3, KVA, NULL), -EINVAL);
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), -EINVAL);
	e.page_shift = 12;
	e.pcid = NXSIM_TLB_NR_PCIDS;
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), -EINVAL);
	assert_rc(nxsim_tlb_fill(tlb, 2, NXSIM_TLB_READ, &e), -EINVAL);
	assert_rc(nxsim_tlb_invlpg(tlb, 2, KVA), -EINVAL);
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, NXSIM_TLB_NR_PCIDS, true),
		  -EINVAL);
	assert_rc(nxsim_tlb_write_cr3(tlb, 5, 1, true), -EINVAL);
	assert_rc(nxsim_tlb_flush_global(tlb, 2), -EINVAL);
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 0, KVA + PG, KVA), -EINVAL);
	assert_rc(nxsim_tlb_flush_kernel_range(tlb, 2, KVA, KVA + PG), -EINVAL);
	assert_rc(nxsim_tlb_flush_all(tlb, 2), -EINVAL);
	assert_rc(nxsim_tlb_stats(tlb, 2, &before), -EINVAL);
	assert_rc(nxsim_tlb_stats(tlb, -2, &before), -EINVAL);
	before = stats(tlb, -1);
	{
		struct nxsim_tlb_stats after = stats(tlb, -1);

		assert_memory_equal(&before, &after, sizeof(before));
	}
	assert_rc(look(tlb, 1, KVA), 0); /* the entry survived */
	nxsim_tlb_destroy(tlb);
}

static int create_op(void *ctx)
{
	struct nxsim_tlb_config cfg;

	nxsim_tlb_config_default(&cfg, 3);
	return nxsim_tlb_create(&cfg, ctx);
}

static void create_undo(void *ctx)
{
	nxsim_tlb_destroy(*(struct nxsim_tlb **)ctx);
}

static void test_tlb_alloc_failures(void **state)
{
	struct nxsim_tlb *tlb = NULL;

	/*
	 * tlb, cpu array, then 2 blocks (tags, ages and frames; the policy's
	 * state) x 3 levels x 3 CPUs
	 */
	assert_int_equal(test_alloc_failures(create_op, create_undo, NULL,
					     &tlb),
			 2 + 2 * 3 * 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_invlpg_removes_global),
		cmocka_unit_test(test_tlb_cr3_keeps_global),
		cmocka_unit_test(test_tlb_cr3_noflush_keeps_pcid),
		cmocka_unit_test(test_tlb_range_33_pages),
		cmocka_unit_test(test_tlb_range_34_pages_flushes_all),
		cmocka_unit_test(test_tlb_2m_entry_covers_512_pages),
		cmocka_unit_test(test_tlb_itlb_and_l2),
		cmocka_unit_test(test_tlb_lru_evicts_least_recent),
		cmocka_unit_test(test_tlb_plru_tree),
		cmocka_unit_test(test_tlb_random_is_seeded),
		cmocka_unit_test(test_tlb_broadcast_sends_no_ipi),
		cmocka_unit_test(test_tlb_bad_input),
		cmocka_unit_test(test_tlb_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
