// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim_tlb_dump(): the exact entries (level, set, way, page, frame, page
 * size, PCID, global bit, use order) after a known sequence of fills,
 * hits, evictions and an INVLPG; dumping changes no counter and no
 * replacement decision; a callback can stop the walk; a fill after a miss
 * duplicates nothing; bad input.
 */
#include <string.h>

#include "common/test_util.h"
#include "core/compiler.h"

#define KVA 0xffff888000000000ull
#define UVA 0x400000ull
#define PG (1ull << 12)

struct dump {
	struct nxsim_tlb_slot s[64];
	int n;
	int stop_at; /* stop with -EINTR at this slot (0: never) */
};

static int collect(void *ctx, const struct nxsim_tlb_slot *s)
{
	struct dump *d = ctx;

	if (d->stop_at && d->n + 1 == d->stop_at)
		return -EINTR;
	assert_true(d->n < (int)ARRAY_SIZE(d->s));
	d->s[d->n++] = *s;
	return 0;
}

static void dump(struct nxsim_tlb *tlb, unsigned int cpu, struct dump *d)
{
	int n;

	memset(d, 0, sizeof(*d));
	n = nxsim_tlb_dump(tlb, cpu, collect, d);
	assert_int_equal(n, d->n);
}

/* L1D and L2 of 2 sets x 2 ways, LRU; the iTLB the default. */
static struct nxsim_tlb *mk(void)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;

	nxsim_tlb_config_default(&cfg, 2);
	cfg.level[NXSIM_TLB_L1D] = (struct nxsim_tlb_geometry){ 2, 2 };
	cfg.level[NXSIM_TLB_L2] = (struct nxsim_tlb_geometry){ 2, 2 };
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	return tlb;
}

static void fill(struct nxsim_tlb *tlb, uint64_t va, uint8_t shift,
		 uint16_t pcid, bool global)
{
	struct nxsim_tlb_entry e = {
		.va = va,
		.pfn = (va >> 12) & 0xfffff,
		.page_shift = shift,
		.pcid = pcid,
		.global = global,
	};

	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), 0);
}

/*
 * On CPU 0 under PCID 3: kernel pages 0, 1 (global), a user 2M page; a hit
 * on page 0; kernel page 2, which evicts the user page from the L1D (page
 * 0 was used since) but page 0 from the L2 (the L1 hit did not touch it);
 * then INVLPG of page 1.
 */
static void sequence(struct nxsim_tlb *tlb)
{
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 3, true), 0);
	fill(tlb, KVA, 12, 0, true);
	fill(tlb, KVA + PG, 12, 0, true);
	fill(tlb, UVA, 21, 3, false);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, KVA, NULL), 0);
	fill(tlb, KVA + 2 * PG, 12, 0, true);
	assert_rc(nxsim_tlb_invlpg(tlb, 0, KVA + PG), 0);
}

static void slot_is(const struct nxsim_tlb_slot *s, enum nxsim_tlb_level lv,
		    uint32_t set, uint32_t way, uint64_t va, uint8_t shift,
		    uint16_t pcid, bool global, uint32_t recency)
{
	assert_int_equal(s->e.level, lv);
	assert_int_equal(s->set, set);
	assert_int_equal(s->way, way);
	assert_int_equal(s->e.va, va);
	assert_int_equal(s->e.pfn, (va >> 12) & 0xfffff);
	assert_int_equal(s->e.page_shift, shift);
	assert_int_equal(s->e.pcid, pcid);
	assert_int_equal(s->e.global, global);
	assert_int_equal(s->recency, recency);
}

static void test_tlb_dump_exact(void **state)
{
	struct nxsim_tlb *tlb = mk();
	struct dump d;

	sequence(tlb);
	dump(tlb, 0, &d);
	assert_int_equal(d.n, 4);
	slot_is(&d.s[0], NXSIM_TLB_L1D, 0, 0, KVA, 12, 0, true, 1);
	slot_is(&d.s[1], NXSIM_TLB_L1D, 0, 1, KVA + 2 * PG, 12, 0, true, 0);
	slot_is(&d.s[2], NXSIM_TLB_L2, 0, 0, KVA + 2 * PG, 12, 0, true, 0);
	slot_is(&d.s[3], NXSIM_TLB_L2, 0, 1, UVA, 21, 3, false, 1);
	assert_int_equal(nxsim_tlb_pcid(tlb, 0), 3);
	dump(tlb, 1, &d); /* the other CPU is empty */
	assert_int_equal(d.n, 0);
	assert_int_equal(nxsim_tlb_pcid(tlb, 1), 0);

	/* An L2 hit refills the L1D over its least recent way (page 0). */
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, UVA + PG, NULL), 0);
	dump(tlb, 0, &d);
	assert_int_equal(d.n, 4);
	slot_is(&d.s[0], NXSIM_TLB_L1D, 0, 0, UVA, 21, 3, false, 0);
	slot_is(&d.s[1], NXSIM_TLB_L1D, 0, 1, KVA + 2 * PG, 12, 0, true, 1);
	slot_is(&d.s[3], NXSIM_TLB_L2, 0, 1, UVA, 21, 3, false, 0);
	nxsim_tlb_destroy(tlb);
}

/* Dumping moves no counter and changes no later eviction. */
static void test_tlb_dump_no_side_effect(void **state)
{
	struct nxsim_tlb *a = mk(), *b = mk();
	struct nxsim_tlb_stats before, after;
	struct dump da, db;
	uint64_t i;

	sequence(a);
	sequence(b);
	assert_rc(nxsim_tlb_stats(a, -1, &before), 0);
	dump(a, 0, &da);
	dump(a, 0, &db);
	assert_memory_equal(&da, &db, sizeof(da));
	assert_rc(nxsim_tlb_stats(a, -1, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	/* The same misses and hits on both: the same victims. */
	for (i = 3; i < 9; i++) {
		fill(a, KVA + i * PG, 12, 0, true);
		fill(b, KVA + i * PG, 12, 0, true);
		if (i % 2)
			dump(a, 0, &da);
		nxsim_tlb_lookup(a, 0, NXSIM_TLB_READ, KVA + (i - 2) * PG,
				 NULL);
		nxsim_tlb_lookup(b, 0, NXSIM_TLB_READ, KVA + (i - 2) * PG,
				 NULL);
	}
	dump(a, 0, &da);
	dump(b, 0, &db);
	assert_int_equal(da.n, 8);
	assert_memory_equal(&da, &db, sizeof(da));
	assert_rc(nxsim_tlb_stats(a, -1, &before), 0);
	assert_rc(nxsim_tlb_stats(b, -1, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	nxsim_tlb_destroy(a);
	nxsim_tlb_destroy(b);
}

/* Entries of @lv translating @va with @pcid in dump @d. */
static int copies(const struct dump *d, enum nxsim_tlb_level lv, uint64_t va,
		  uint16_t pcid)
{
	int i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->s[i].e.level == lv && d->s[i].e.va == va &&
		     d->s[i].e.pcid == pcid;
	return n;
}

/*
 * A walk's fill right after a miss skips the search for a copy to
 * refresh, but only where the miss proved there is none: not in the other
 * L1, not under another PCID.
 */
static void test_tlb_fill_after_miss_no_duplicate(void **state)
{
	struct nxsim_tlb *tlb = mk();
	struct nxsim_tlb_entry e = { .va = UVA, .pfn = 1, .page_shift = 12 };
	struct dump d;

	/* In the iTLB only (its L2 copy evicted by two reads of set 0). */
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_EXEC, &e), 0);
	fill(tlb, UVA + 2 * PG, 12, 0, false);
	fill(tlb, UVA + 4 * PG, 12, 0, false);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, UVA, NULL), -ENOENT);
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_EXEC, &e), 0);
	dump(tlb, 0, &d);
	assert_int_equal(copies(&d, NXSIM_TLB_L1I, UVA, 0), 1);
	assert_int_equal(copies(&d, NXSIM_TLB_L2, UVA, 0), 1);

	/* PCID 2's entry, looked up under PCID 1, filled again. */
	e.pcid = 2;
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), 0);
	assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, true), 0);
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, UVA, NULL), -ENOENT);
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), 0);
	dump(tlb, 0, &d);
	assert_int_equal(copies(&d, NXSIM_TLB_L1D, UVA, 2), 1);
	assert_int_equal(copies(&d, NXSIM_TLB_L2, UVA, 2), 1);

	/* The proven case: one copy per level. */
	e.pcid = 1;
	assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, UVA, NULL), -ENOENT);
	assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e), 0);
	dump(tlb, 0, &d);
	assert_int_equal(copies(&d, NXSIM_TLB_L1D, UVA, 1), 1);
	assert_int_equal(copies(&d, NXSIM_TLB_L2, UVA, 1), 1);
	nxsim_tlb_destroy(tlb);
}

static void test_tlb_dump_stop_and_bad_input(void **state)
{
	struct nxsim_tlb *tlb = mk();
	struct dump d = { .stop_at = 3 };

	sequence(tlb);
	assert_rc(nxsim_tlb_dump(tlb, 0, collect, &d), -EINTR);
	assert_int_equal(d.n, 2);
	assert_rc(nxsim_tlb_dump(tlb, 2, collect, &d), -EINVAL);
	assert_rc(nxsim_tlb_dump(tlb, 0, NULL, &d), -EINVAL);
	assert_rc(nxsim_tlb_dump(NULL, 0, collect, &d), -EINVAL);
	assert_rc(nxsim_tlb_pcid(tlb, 2), -EINVAL);
	assert_rc(nxsim_tlb_pcid(NULL, 0), -EINVAL);
	assert_string_equal(nxsim_tlb_level_name(NXSIM_TLB_L1D), "l1d");
	assert_string_equal(nxsim_tlb_level_name(NXSIM_TLB_L1I), "l1i");
	assert_string_equal(nxsim_tlb_level_name(NXSIM_TLB_L2), "l2");
	assert_null(nxsim_tlb_level_name(NXSIM_TLB_NR_LEVELS));
	nxsim_tlb_destroy(tlb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_dump_exact),
		cmocka_unit_test(test_tlb_dump_no_side_effect),
		cmocka_unit_test(test_tlb_fill_after_miss_no_duplicate),
		cmocka_unit_test(test_tlb_dump_stop_and_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
