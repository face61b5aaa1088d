// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLB against a straightforward reference written here: arrays of
 * {valid, VPN, size, PCID, global, frame, age} searched way by way, LRU by
 * age, every fill looking for a copy to refresh before it takes an empty
 * or the least recent way.  Seeded random streams (4K, 2M and 1G pages,
 * global kernel pages, four PCIDs, lookups from the dTLB and iTLB, walks
 * after misses, at once or after other steps, fills out of the blue,
 * INVLPG, CR3 writes with and without NOFLUSH, global and kernel range
 * flushes) drive both; every return code,
 * every entry a hit reports and every counter must agree after each step,
 * and the dump (each entry's set, way and recency) every few steps.  The
 * model's packed tags, vector compares, LRU search, the miss path that
 * remembers what the lookup proved and where the walk's fill goes, and
 * the memos without a PCID must change nothing: each stream runs
 * on the baseline instance and, where the CPU has AVX2, on the AVX2 one.
 * Also: the vector tag compares and LRU searches against their scalar
 * definitions on random sets.
 */
#include <stdlib.h>
#include <string.h>

#include "common/test_util.h"
#include "tlb/tlb.h"

#define UVA_4K 0x400000ull
#define UVA_2M 0x40000000ull
#define UVA_1G 0x8000000000ull
#define KVA_4K 0xffff888000000000ull

struct ref_way {
	bool valid;
	unsigned int sz;
	uint64_t vpn;
	uint16_t pcid; /* 0 for a global entry */
	bool global;
	uint64_t pfn;
	uint64_t age;
};

struct ref_level {
	unsigned int sets, ways;
	struct ref_way *w;
	uint64_t tick;
};

struct ref {
	struct ref_level lv[NXSIM_TLB_NR_LEVELS];
	uint16_t pcid;
	struct nxsim_tlb_stats st;
};

static unsigned int shift_of(unsigned int sz)
{
	return NXSIM_TLB_SHIFT_4K + 9 * sz;
}

static struct ref_way *ref_set(struct ref_level *l, unsigned int sz,
			       uint64_t va)
{
	return &l->w[((va >> shift_of(sz)) & (l->sets - 1)) * l->ways];
}

/* The first way of @l translating @va under @pcid, 4K first; or NULL. */
static struct ref_way *ref_probe(struct ref_level *l, uint64_t va,
				 uint16_t pcid)
{
	for (unsigned int sz = 0; sz < 3; sz++) {
		struct ref_way *s = ref_set(l, sz, va);

		for (unsigned int w = 0; w < l->ways; w++)
			if (s[w].valid && s[w].sz == sz &&
			    s[w].vpn == va >> shift_of(sz) &&
			    (s[w].global || s[w].pcid == pcid))
				return &s[w];
	}
	return NULL;
}

static void ref_insert(struct ref *r, struct ref_level *l,
		       const struct ref_way *e)
{
	struct ref_way *s = &l->w[(e->vpn & (l->sets - 1)) * l->ways], *v;
	unsigned int w;

	for (w = 0; w < l->ways; w++) /* a copy: refresh it */
		if (s[w].valid && s[w].sz == e->sz && s[w].vpn == e->vpn &&
		    s[w].global == e->global && s[w].pcid == e->pcid)
			goto write;
	for (w = 0; w < l->ways; w++)
		if (!s[w].valid)
			goto write;
	for (w = 0, v = s; w < l->ways; w++)
		if (s[w].age < v->age)
			v = &s[w];
	w = (unsigned int)(v - s);
	r->st.evictions++;
write:
	s[w] = *e;
	s[w].valid = true;
	s[w].age = ++l->tick;
	r->st.fills++;
}

static int ref_lookup(struct ref *r, enum nxsim_tlb_access acc, uint64_t va,
		      struct nxsim_tlb_entry *out)
{
	enum nxsim_tlb_level l1 = acc == NXSIM_TLB_EXEC ? NXSIM_TLB_L1I :
							  NXSIM_TLB_L1D;
	enum nxsim_tlb_level lv = l1;
	struct ref_way *h = ref_probe(&r->lv[l1], va, r->pcid);

	if (!h) {
		lv = NXSIM_TLB_L2;
		h = ref_probe(&r->lv[lv], va, r->pcid);
		if (!h) {
			r->st.misses++;
			return -ENOENT;
		}
	}
	r->st.hits[lv]++;
	h->age = ++r->lv[lv].tick;
	*out = (struct nxsim_tlb_entry){
		.va = h->vpn << shift_of(h->sz),
		.pfn = h->pfn,
		.page_shift = (uint8_t)shift_of(h->sz),
		.pcid = h->pcid,
		.global = h->global,
		.level = lv,
	};
	if (lv == NXSIM_TLB_L2)
		ref_insert(r, &r->lv[l1], h);
	return 0;
}

static void ref_fill(struct ref *r, enum nxsim_tlb_access acc,
		     const struct nxsim_tlb_entry *e)
{
	unsigned int sz = (e->page_shift - NXSIM_TLB_SHIFT_4K) / 9;
	struct ref_way x = {
		.sz = sz,
		.vpn = e->va >> e->page_shift,
		.pcid = e->global ? 0 : e->pcid,
		.global = e->global,
		.pfn = e->pfn,
	};

	r->st.walks++;
	ref_insert(r, &r->lv[NXSIM_TLB_L2], &x);
	ref_insert(
		r,
		&r->lv[acc == NXSIM_TLB_EXEC ? NXSIM_TLB_L1I : NXSIM_TLB_L1D],
		&x);
}

/* Drop what @drop selects; @va/@pcid as it needs them. */
static void ref_drop_if(struct ref *r,
			bool (*drop)(const struct ref_way *w, uint64_t va,
				     uint16_t pcid),
			uint64_t va)
{
	for (unsigned int l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		struct ref_level *lv = &r->lv[l];

		for (unsigned int i = 0; i < lv->sets * lv->ways; i++)
			if (lv->w[i].valid && drop(&lv->w[i], va, r->pcid))
				lv->w[i].valid = false;
	}
}

static bool drop_invlpg(const struct ref_way *w, uint64_t va, uint16_t pcid)
{
	return w->vpn == va >> shift_of(w->sz) &&
	       (w->global || w->pcid == pcid);
}

static bool drop_cr3(const struct ref_way *w, uint64_t va, uint16_t pcid)
{
	return !w->global && w->pcid == pcid;
}

static bool drop_all(const struct ref_way *w, uint64_t va, uint16_t pcid)
{
	return true;
}

static void ref_invlpg(struct ref *r, uint64_t va)
{
	r->st.invlpg++;
	ref_drop_if(r, drop_invlpg, va);
}

struct dump_ctx {
	struct ref *r;
	unsigned int level, next; /* the next valid reference way to meet */
	int64_t seen;
};

/* The reference's next valid way at or after the cursor, in dump order. */
static struct ref_way *ref_next(struct dump_ctx *d, unsigned int *lvp,
				unsigned int *ip)
{
	for (; d->level < NXSIM_TLB_NR_LEVELS; d->level++, d->next = 0) {
		struct ref_level *l = &d->r->lv[d->level];

		for (; d->next < l->sets * l->ways; d->next++)
			if (l->w[d->next].valid) {
				*lvp = d->level;
				*ip = d->next++;
				return &l->w[*ip];
			}
	}
	return NULL;
}

static int check_slot(void *ctx, const struct nxsim_tlb_slot *s)
{
	struct dump_ctx *d = ctx;
	unsigned int lv = 0, i = 0, rec = 0;
	struct ref_way *w = ref_next(d, &lv, &i);
	struct ref_level *l;

	assert_non_null(w);
	l = &d->r->lv[lv];
	for (unsigned int k = 0; k < l->ways; k++) {
		const struct ref_way *o = &l->w[i / l->ways * l->ways + k];

		rec += o->valid && o->age > w->age;
	}
	assert_int_equal(s->e.level, lv);
	assert_int_equal(s->set, i / l->ways);
	assert_int_equal(s->way, i % l->ways);
	assert_int_equal(s->e.va, w->vpn << shift_of(w->sz));
	assert_int_equal(s->e.pfn, w->pfn);
	assert_int_equal(s->e.page_shift, shift_of(w->sz));
	assert_int_equal(s->e.pcid, w->pcid);
	assert_int_equal(s->e.global, w->global);
	assert_int_equal(s->recency, rec);
	d->seen++;
	return 0;
}

/*
 * Every set holding an entry is occupied (struct nxsim__tlb_array's
 * @occ), and an empty array occupies none: a probe that skips the sets
 * that are not misses nothing.
 */
static void check_occupied(const struct nxsim_tlb *tlb)
{
	for (unsigned int l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		const struct nxsim__tlb_array *a = &tlb->cpu[0].lv[l];

		for (size_t set = 0; set <= a->set_mask; set++)
			for (unsigned int w = 0; w < a->ways; w++)
				if (a->tag[set * a->row + w])
					assert_true(
						nxsim__tlb_occupied(a, set));
		for (size_t k = 0; !a->used && k < TLB_OCC_BITS / 64; k++)
			assert_int_equal(a->occ[k], 0);
	}
}

static void check_dump(struct nxsim_tlb *tlb, struct ref *r)
{
	struct dump_ctx d = { .r = r };
	unsigned int lv, i;

	check_occupied(tlb);
	assert_rc(nxsim_tlb_dump(tlb, 0, check_slot, &d), d.seen);
	assert_null(ref_next(&d, &lv, &i));
}

static void check_stats(struct nxsim_tlb *tlb, struct ref *r)
{
	struct nxsim_tlb_stats st;

	assert_rc(nxsim_tlb_stats(tlb, 0, &st), 0);
	assert_memory_equal(&st, &r->st, sizeof(st));
}

/* A random address of the pools: its page size, PCID-free or global. */
static uint64_t pick_va(struct nxsim_rng *rng, uint8_t *shift, bool *global)
{
	unsigned int k = (unsigned int)nxsim_rng_below(rng, 10);

	*global = false;
	if (k < 5) {
		*shift = NXSIM_TLB_SHIFT_4K;
		return UVA_4K + (nxsim_rng_below(rng, 160) << 12) +
		       nxsim_rng_below(rng, 4096);
	}
	if (k < 7) {
		/* Inside a 2M page: mapped 2M, or now and then 4K. */
		*shift = nxsim_rng_below(rng, 4) ? NXSIM_TLB_SHIFT_2M :
						   NXSIM_TLB_SHIFT_4K;
		return UVA_2M + (nxsim_rng_below(rng, 40) << 21) +
		       (nxsim_rng_below(rng, 4) << 12) +
		       nxsim_rng_below(rng, 4096);
	}
	if (k < 8) {
		*shift = NXSIM_TLB_SHIFT_1G;
		return UVA_1G + (nxsim_rng_below(rng, 8) << 30) +
		       nxsim_rng_below(rng, 1u << 30);
	}
	*shift = NXSIM_TLB_SHIFT_4K;
	*global = true;
	return KVA_4K + (nxsim_rng_below(rng, 64) << 12) +
	       nxsim_rng_below(rng, 4096);
}

static void check_entry(const struct nxsim_tlb_entry *a,
			const struct nxsim_tlb_entry *b)
{
	assert_int_equal(a->va, b->va);
	assert_int_equal(a->pfn, b->pfn);
	assert_int_equal(a->page_shift, b->page_shift);
	assert_int_equal(a->pcid, b->pcid);
	assert_int_equal(a->global, b->global);
	assert_int_equal(a->level, b->level);
}

static void run_stream(const struct nxsim_tlb_geometry geo[3], bool avx2,
		       uint64_t seed, unsigned int steps)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;
	struct nxsim_rng rng;
	struct ref r = { 0 };
	unsigned int l, i;
	enum nxsim_tlb_access prev_acc = NXSIM_TLB_READ;
	uint64_t prev_va = 0;
	uint8_t prev_shift = 0;
	bool prev_global = false;
	struct nxsim_tlb_entry pend = { 0 };
	enum nxsim_tlb_access pend_acc = NXSIM_TLB_READ;
	bool pending = false;

	nxsim_tlb_config_default(&cfg, 1);
	memcpy(cfg.level, geo, sizeof(cfg.level));
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	tlb->avx2 = avx2;
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		r.lv[l].sets = geo[l].sets;
		r.lv[l].ways = geo[l].ways;
		r.lv[l].w = calloc((size_t)geo[l].sets * geo[l].ways,
				   sizeof(*r.lv[l].w));
		assert_non_null(r.lv[l].w);
	}
	nxsim_rng_seed(&rng, seed);
	for (i = 0; i < steps; i++) {
		unsigned int op = (unsigned int)nxsim_rng_below(&rng, 1000);
		enum nxsim_tlb_access acc =
			(enum nxsim_tlb_access)nxsim_rng_below(&rng, 3);
		struct nxsim_tlb_entry a = { 0 }, b = { 0 };
		uint8_t shift;
		bool global;
		uint64_t va = pick_va(&rng, &shift, &global);

		/*
		 * One step in three on the last page again, often through
		 * the same L1: what the L1's memo of its last hit answers.
		 */
		if (i && !nxsim_rng_below(&rng, 3)) {
			va = (prev_va & ~0xfffull) | (va & 0xfff);
			shift = prev_shift;
			global = prev_global;
			if (nxsim_rng_below(&rng, 4))
				acc = prev_acc;
		}
		prev_va = va;
		prev_shift = shift;
		prev_global = global;
		prev_acc = acc;

		/*
		 * A walk an earlier miss put off: other steps came between
		 * the miss and its fill, which must see what they changed.
		 */
		if (pending && !nxsim_rng_below(&rng, 3)) {
			assert_rc(nxsim_tlb_fill(tlb, 0, pend_acc, &pend), 0);
			ref_fill(&r, pend_acc, &pend);
			pending = false;
		}

		if (op < 850) {
			/* A lookup; on a miss, usually the walk's fill. */
			int rc = nxsim_tlb_lookup(tlb, 0, acc, va, &a);

			assert_rc(rc, ref_lookup(&r, acc, va, &b));
			if (!rc)
				check_entry(&a, &b);
			else if (nxsim_rng_below(&rng, 8))
				goto walk;
			else
				goto blue; /* same page, maybe another PCID */
		} else if (op < 900) {
			/* A fill out of the blue, for any of the PCIDs. */
blue:
			a = (struct nxsim_tlb_entry){
				.va = va,
				.pfn = (va >> shift) * 7 + i,
				.page_shift = shift,
				.pcid = (uint16_t)nxsim_rng_below(&rng, 4),
				.global = global,
			};
			goto fill;
walk:
			a = (struct nxsim_tlb_entry){
				.va = va,
				.pfn = (va >> shift) * 7 + i,
				.page_shift = shift,
				.pcid = r.pcid,
				.global = global,
			};
			/* Now and then into the other L1 than the miss's. */
			if (!nxsim_rng_below(&rng, 4))
				acc = (enum nxsim_tlb_access)nxsim_rng_below(
					&rng, 3);
			if (!pending && !nxsim_rng_below(&rng, 3)) {
				pend = a;
				pend_acc = acc;
				pending = true;
				goto next;
			}
fill:
			assert_rc(nxsim_tlb_fill(tlb, 0, acc, &a), 0);
			ref_fill(&r, acc, &a);
			if (!nxsim_rng_below(&rng, 8)) {
				/* Again: the miss's proof is spent. */
				assert_rc(nxsim_tlb_fill(tlb, 0, acc, &a), 0);
				ref_fill(&r, acc, &a);
			}
		} else if (op < 950) {
			assert_rc(nxsim_tlb_invlpg(tlb, 0, va), 0);
			ref_invlpg(&r, va);
		} else if (op < 985) {
			bool noflush = nxsim_rng_below(&rng, 2);

			r.pcid = (uint16_t)nxsim_rng_below(&rng, 4);
			assert_rc(nxsim_tlb_write_cr3(tlb, 0, r.pcid, noflush),
				  0);
			if (noflush) {
				r.st.cr3_noflush++;
			} else {
				r.st.cr3_flush++;
				ref_drop_if(&r, drop_cr3, 0);
			}
		} else if (op < 995) {
			/* flush_tlb_kernel_range(): page by page or all. */
			uint64_t pages = nxsim_rng_below(&rng, 40) + 1;

			va &= ~0xfffull;
			assert_rc(nxsim_tlb_flush_kernel_range(
					  tlb, 0, va, va + (pages << 12)),
				  0);
			if (pages <= NXSIM_TLB_FLUSH_CEILING) {
				r.st.range_flushes++;
				for (uint64_t p = 0; p < pages; p++)
					ref_invlpg(&r, va + (p << 12));
			} else {
				r.st.full_flushes++;
				r.st.global_flush++;
				ref_drop_if(&r, drop_all, 0);
			}
		} else {
			assert_rc(nxsim_tlb_flush_global(tlb, 0), 0);
			r.st.global_flush++;
			ref_drop_if(&r, drop_all, 0);
		}
next:
		check_stats(tlb, &r);
		if (!(i % 61) || i + 1 == steps)
			check_dump(tlb, &r);
	}
	/* The streams must have reached every path. */
	assert_true(r.st.evictions > 0);
	assert_true(r.st.hits[NXSIM_TLB_L1D] && r.st.hits[NXSIM_TLB_L1I] &&
		    r.st.hits[NXSIM_TLB_L2] && r.st.misses);
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
		free(r.lv[l].w);
	nxsim_tlb_destroy(tlb);
}

/* Geometries: the default, odd way counts (padded sets), 1 and 32 ways. */
static const struct nxsim_tlb_geometry geometries[][3] = {
	{ { 16, 4 }, { 16, 8 }, { 128, 12 } },
	{ { 4, 3 }, { 2, 5 }, { 8, 13 } },
	{ { 8, 1 }, { 1, 32 }, { 4, 16 } },
	{ { 2, 6 }, { 4, 2 }, { 16, 7 } },
};

static bool cpu_avx2(void)
{
#if TLB_HAVE_AVX2
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}

static void test_tlb_diff_streams(void **state)
{
	uint64_t seed = test_seed();

	for (size_t g = 0; g < ARRAY_SIZE(geometries); g++)
		for (int avx2 = 0; avx2 <= (int)cpu_avx2(); avx2++)
			run_stream(geometries[g], avx2, seed + g, 6000);
}

static int count_slot(void *ctx, const struct nxsim_tlb_slot *s)
{
	(*(unsigned int *)ctx) += s->e.level == NXSIM_TLB_L1I;
	return 0;
}

/*
 * A miss through the dTLB proves nothing about the iTLB: the walk's fill
 * into the iTLB must refresh the copy the iTLB kept after the L2 lost it.
 */
static void test_tlb_diff_other_l1(void **state)
{
	const struct nxsim_tlb_geometry geo[3] = { { 1, 4 },
						   { 1, 4 },
						   { 1, 1 } };
	struct nxsim_tlb_entry a = { .va = UVA_4K, .pfn = 1, .page_shift = 12 };
	struct nxsim_tlb_entry b = { .va = UVA_4K + (1 << 12),
				     .pfn = 2,
				     .page_shift = 12 };
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb_stats st;
	struct nxsim_tlb *tlb;
	unsigned int l1i = 0;

	nxsim_tlb_config_default(&cfg, 1);
	memcpy(cfg.level, geo, sizeof(cfg.level));
	for (int avx2 = 0; avx2 <= (int)cpu_avx2(); avx2++) {
		assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
		tlb->avx2 = avx2;
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_EXEC, &a), 0);
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &b), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, a.va, NULL),
			  -ENOENT);
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_EXEC, &a), 0);
		l1i = 0;
		/* L1D: b; L1I: a, refreshed, not duplicated; L2: a. */
		assert_rc(nxsim_tlb_dump(tlb, 0, count_slot, &l1i), 3);
		assert_int_equal(l1i, 1);
		assert_rc(nxsim_tlb_stats(tlb, 0, &st), 0);
		assert_int_equal(st.fills, 6);
		assert_int_equal(st.evictions, 2);
		nxsim_tlb_destroy(tlb);
	}
}

/* CPU 0's dTLB hits and misses so far; no STLB hit. */
static void check_memo_counts(struct nxsim_tlb *tlb, uint64_t hits,
			      uint64_t misses)
{
	struct nxsim_tlb_stats st;

	assert_rc(nxsim_tlb_stats(tlb, 0, &st), 0);
	assert_int_equal(st.hits[NXSIM_TLB_L1D], hits);
	assert_int_equal(st.hits[NXSIM_TLB_L2], 0);
	assert_int_equal(st.misses, misses);
}

/*
 * The L1's memo of its last hit answers a repeated lookup only while it
 * stands for what the probe would find: not under another PCID, not
 * after a fill refreshed the entry, not after INVLPG dropped it, not for
 * an address the entry does not translate; and a
 * lookup it answers counts, reports and ages as a probed hit does.
 */
static void test_tlb_diff_memo(void **state)
{
	const struct nxsim_tlb_geometry geo[3] = { { 1, 4 },
						   { 1, 4 },
						   { 1, 4 } };
	struct nxsim_tlb_entry a = { .va = UVA_4K, .pfn = 1, .page_shift = 12 };
	struct nxsim_tlb_entry b = { .va = UVA_4K + (1 << 12),
				     .pfn = 3,
				     .page_shift = 12 };
	struct nxsim_tlb_entry big = { .va = UVA_2M,
				       .pfn = 5,
				       .page_shift = 21 };
	struct nxsim_tlb_entry e;
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;
	uint64_t va = UVA_4K + 0x123, alias = UVA_2M | 1ull << 60;

	nxsim_tlb_config_default(&cfg, 1);
	memcpy(cfg.level, geo, sizeof(cfg.level));
	for (int avx2 = 0; avx2 <= (int)cpu_avx2(); avx2++) {
		assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
		tlb->avx2 = avx2;
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &a), 0);
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &b), 0);
		/* Probed, then twice from the memo: same entry each time. */
		for (int k = 0; k < 3; k++) {
			assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_WRITE, va,
						   &e),
				  0);
			assert_int_equal(e.va, UVA_4K);
			assert_int_equal(e.pfn, 1);
			assert_int_equal(e.level, NXSIM_TLB_L1D);
		}
		/* The memo's hits aged A: B is the L1D's LRU way. */
		assert_true(tlb->cpu[0].lv[NXSIM_TLB_L1D].age[0] >
			    tlb->cpu[0].lv[NXSIM_TLB_L1D].age[1]);
		/* Another PCID: the memo's key no longer matches. */
		assert_rc(nxsim_tlb_write_cr3(tlb, 0, 1, true), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e),
			  -ENOENT);
		assert_rc(nxsim_tlb_write_cr3(tlb, 0, 0, true), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e), 0);
		/* A fill refreshes A's frame: the memo must not keep 1. */
		a.pfn = 2;
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &a), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e), 0);
		assert_int_equal(e.pfn, 2);
		/* INVLPG: gone from every level, memo or not. */
		assert_rc(nxsim_tlb_invlpg(tlb, 0, va), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e),
			  -ENOENT);
		check_memo_counts(tlb, 5, 2);
		/*
		 * A 2M entry's tag keeps VA bits 21-63: an address that
		 * differs from it only above bit 58 (not canonical) misses
		 * it, memo or not (a memo keyed by the 4K tag, bits 12-58,
		 * once answered it).
		 */
		assert_rc(nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &big), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, UVA_2M, &e),
			  0);
		assert_int_equal(e.pfn, 5);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, alias, &e),
			  -ENOENT);
		assert_rc(nxsim_tlb_write_cr3(tlb, 0, 0, true), 0);
		assert_rc(nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, alias, &e),
			  -ENOENT);
		check_memo_counts(tlb, 6, 4);
		a.pfn = 1;
		nxsim_tlb_destroy(tlb);
	}
}

/* Random tags: a few values, so keys hit several ways; WATCH at random. */
static void random_set(struct nxsim_rng *rng, uint64_t *t, unsigned int n,
		       uint64_t *key, uint64_t *gkey)
{
	uint64_t vpn = nxsim_rng_below(rng, 4);
	uint16_t pcid = (uint16_t)nxsim_rng_below(rng, 3);

	*key = tlb_tag_key(vpn << 12, 0, pcid);
	*gkey = tlb_tag_key(vpn << 12, 0, 0) | TLB_TAG_GLOBAL;
	for (unsigned int w = 0; w < n; w++) {
		uint64_t x = tlb_tag_key(nxsim_rng_below(rng, 4) << 12, 0,
					 (uint16_t)nxsim_rng_below(rng, 3));

		if (nxsim_rng_below(rng, 3) == 0)
			x = 0;
		else if (nxsim_rng_below(rng, 3) == 0)
			x = tlb_tag_key(nxsim_rng_below(rng, 4) << 12, 0, 0) |
			    TLB_TAG_GLOBAL;
		if (x && nxsim_rng_below(rng, 2))
			x |= TLB_TAG_WATCH;
		t[w] = x;
	}
}

static void test_tlb_vector_forms(void **state)
{
	static const unsigned int widths[] = { 4, 8, 12, 16, 20, 32 };
	uint64_t t[32], age[32], key, gkey;
	struct nxsim_rng rng;
	unsigned int checked = 0;

	nxsim_rng_seed(&rng, test_seed());
	for (unsigned int round = 0; round < 4000; round++) {
		unsigned int n = widths[round % ARRAY_SIZE(widths)];
		uint32_t want;

		random_set(&rng, t, n, &key, &gkey);
		want = nxsim__tlb_match_scalar(t, n, key, gkey);
		assert_int_equal(nxsim__tlb_match(t, n, key, gkey), want);
		assert_int_equal(nxsim__tlb_match_isa(TLB_ISA_BASE, t, n, key,
						      gkey),
				 want);
		/* Ages: ties (small range) and padding (INT64_MAX). */
		for (unsigned int w = 0; w < n; w++)
			age[w] = nxsim_rng_below(&rng, 2) ?
					 nxsim_rng_below(&rng, 6) :
					 nxsim_rng_below(&rng, 1ull << 40);
		age[n - 1] = nxsim_rng_below(&rng, 2) ? INT64_MAX : age[n - 1];
		assert_int_equal(nxsim__tlb_oldest(age, n),
				 nxsim__tlb_oldest_scalar(age, n));
#if TLB_HAVE_AVX2
		if (cpu_avx2()) {
			assert_int_equal(nxsim__tlb_match_avx2(t, n, key, gkey),
					 want);
			assert_int_equal(nxsim__tlb_oldest_avx2(age, n),
					 nxsim__tlb_oldest_scalar(age, n));
		}
#endif
		checked += want != 0;
	}
	assert_true(checked > 1000); /* keys did hit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_vector_forms),
		cmocka_unit_test(test_tlb_diff_streams),
		cmocka_unit_test(test_tlb_diff_other_l1),
		cmocka_unit_test(test_tlb_diff_memo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
