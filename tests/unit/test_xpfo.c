// SPDX-License-Identifier: GPL-2.0-only
/*
 * XPFO ownership transitions for each version variant, with the flush
 * each one does (docs/xpfo.md); physmap splits; batched refill; the policy
 * table; the reuse-hazard and kmap-window oracle; bad input with no state
 * change; allocation failures; determinism of workload runs.
 *
 * Machines here have 1024 frames: two 2M physmap mappings (no 1G), so the
 * first unmap splits one, and an allocation-time flush of a frame still
 * under a 2M mapping is 512 pages: a full flush everywhere.
 */
#include <string.h>

#include "common/test_util.h"
#include "core/compiler.h"

static struct nxsim_xpfo *mk(enum nxsim_xpfo_version v, const char *policy,
			     uint64_t frames)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = frames,
		.version = v,
		.policy = policy,
	};
	struct nxsim_xpfo *m = NULL;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	return m;
}

static struct nxsim_tlb_stats tlbst(struct nxsim_xpfo *m, int cpu)
{
	struct nxsim_tlb_stats st;

	assert_rc(nxsim_tlb_stats(nxsim_xpfo_tlb(m), cpu, &st), 0);
	return st;
}

static struct nxsim_xpfo_result res(struct nxsim_xpfo *m)
{
	struct nxsim_xpfo_result r;

	assert_rc(nxsim_xpfo_result(m, &r), 0);
	return r;
}

/* @m's result is still @before, to the byte. */
static void unchanged(struct nxsim_xpfo *m,
		      const struct nxsim_xpfo_result *before)
{
	struct nxsim_xpfo_result after = res(m);

	assert_memory_equal(before, &after, sizeof(after));
}

static void expect_frame(struct nxsim_xpfo *m, uint64_t pfn,
			 enum nxsim_xpfo_owner owner, bool user, bool unmapped,
			 unsigned int kmaps, unsigned int shift)
{
	struct nxsim_xpfo_frame_info fi;

	assert_rc(nxsim_xpfo_frame(m, pfn, &fi), 0);
	assert_int_equal(fi.owner, owner);
	assert_int_equal(fi.user, user);
	assert_int_equal(fi.unmapped, unmapped);
	assert_int_equal(fi.kmap_count, kmaps);
	assert_int_equal(fi.physmap_shift, shift);
}

/* Flushes seen so far: [full on CPU 0, ranged on CPU 0, IPIs received 1]. */
static void expect_flushes(struct nxsim_xpfo *m, uint64_t full, uint64_t ranged,
			   uint64_t recv1)
{
	assert_int_equal(tlbst(m, 0).full_flushes, full);
	assert_int_equal(tlbst(m, 0).range_flushes, ranged);
	assert_int_equal(tlbst(m, 1).ipis_received, recv1);
}

static void test_xpfo_v6_eager(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V6, NULL, 1024);

	/* Kernel allocation: nothing to flush. */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_KERNEL, false, false, 0, 21);
	expect_flushes(m, 0, 0, 0);
	/* kmap/kunmap of a kernel frame: XPFO leaves it alone. */
	assert_rc(nxsim_xpfo_kmap(m, 0, 5), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 5), 0);
	expect_flushes(m, 0, 0, 0);
	assert_rc(nxsim_xpfo_free(m, 0, 5), 0);
	/* User allocation of an ex-kernel frame: all-CPU flush of its 2M. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 5, 1, 0), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, false, 0, 21);
	expect_flushes(m, 1, 0, 1);
	assert_int_equal(tlbst(m, 1).global_flush, 1);
	/* kmap of a mapped frame: count only, no flush. */
	assert_rc(nxsim_xpfo_kmap(m, 0, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, false, 1, 21);
	expect_flushes(m, 1, 0, 1);
	/* Last kunmap: split (flush_tlb_all), unmap, INVLPG everywhere. */
	assert_rc(nxsim_xpfo_kunmap(m, 0, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, true, 0, 12);
	expect_flushes(m, 2, 1, 3);
	assert_int_equal(tlbst(m, 1).invlpg, 1);
	assert_int_equal(res(m).xpfo.splits_2m, 1);
	/* kmap maps it back without a flush; kunmap unmaps, flushes. */
	assert_rc(nxsim_xpfo_kmap(m, 1, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, false, 1, 12);
	expect_flushes(m, 2, 1, 3);
	assert_rc(nxsim_xpfo_kmap(m, 0, 5), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 1, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, false, 1, 12);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_USER, true, true, 0, 12);
	expect_flushes(m, 2, 2, 4);
	/* Free maps it back, no flush. */
	assert_rc(nxsim_xpfo_free(m, 1, 5), 0);
	expect_frame(m, 5, NXSIM_XPFO_FREE, false, false, 0, 12);
	expect_flushes(m, 2, 2, 4);
	/* A user allocation again flushes, now one 4K page. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 5, 2, 0), 0);
	expect_flushes(m, 2, 3, 5);
	assert_int_equal(res(m).xpfo.pte_clear, 2);
	assert_int_equal(res(m).xpfo.pte_set, 2);
	assert_int_equal(res(m).xpfo.policy_flushes, 4);
	assert_int_equal(res(m).oracle.kmap_windows, 2);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_v7_no_flush(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V7, NULL, 1024);

	assert_rc(nxsim_xpfo_alloc_user(m, 0, 7, 1, 0), 0);
	expect_frame(m, 7, NXSIM_XPFO_USER, true, false, 0, 21);
	expect_flushes(m, 0, 0, 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
	expect_frame(m, 7, NXSIM_XPFO_USER, true, true, 0, 12);
	/* Only the split's own flush_tlb_all. */
	expect_flushes(m, 1, 0, 1);
	assert_int_equal(tlbst(m, -1).invlpg, 0);
	assert_int_equal(res(m).xpfo.policy_flushes, 2);
	assert_rc(nxsim_xpfo_free(m, 0, 7), 0);
	expect_frame(m, 7, NXSIM_XPFO_FREE, false, false, 0, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_v7_xpfotlbflush_is_v6(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V7, "eager", 1024);

	assert_rc(nxsim_xpfo_alloc_user(m, 0, 7, 1, 0), 0);
	expect_flushes(m, 1, 0, 1);
	assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
	expect_flushes(m, 2, 1, 3);
	nxsim_xpfo_destroy(m);
}

static void expect_pending(struct nxsim_xpfo *m, unsigned int cpu, bool pending,
			   uint64_t set, uint64_t done)
{
	struct nxsim_xpfo_cpu_info ci;

	assert_rc(nxsim_xpfo_cpu(m, cpu, &ci), 0);
	assert_int_equal(ci.pending_flush, pending);
	assert_int_equal(ci.pending_set, set);
	assert_int_equal(ci.pending_done, done);
}

static void test_xpfo_v8_deferred(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V8, NULL, 1024);

	/* Allocation flush: local full flush now (2M range), CPU 1 pends. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 9, 1, 0), 0);
	expect_flushes(m, 0, 0, 0);
	assert_int_equal(tlbst(m, 0).global_flush, 1);
	assert_int_equal(tlbst(m, 1).global_flush, 0);
	expect_pending(m, 1, true, 1, 0);
	expect_pending(m, 0, false, 0, 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 9), 0);
	/* kunmap: split (immediate flush_tlb_all), local INVLPG. */
	assert_rc(nxsim_xpfo_kunmap(m, 0, 9), 0);
	expect_frame(m, 9, NXSIM_XPFO_USER, true, true, 0, 12);
	expect_flushes(m, 1, 0, 1);
	assert_int_equal(tlbst(m, 0).invlpg, 1);
	assert_int_equal(tlbst(m, 1).invlpg, 0);
	expect_pending(m, 1, true, 1, 0);
	/* CPU 1's next switch_mm does the full flush. */
	assert_rc(nxsim_xpfo_context_switch(m, 1, 3), 0);
	expect_pending(m, 1, false, 1, 1);
	assert_int_equal(tlbst(m, 1).global_flush, 2);
	/* Same mm again: no switch_mm, nothing pending anyway. */
	assert_rc(nxsim_xpfo_context_switch(m, 1, 3), 0);
	expect_pending(m, 1, false, 1, 1);
	/* Free remaps as in v6/v7. */
	assert_rc(nxsim_xpfo_free(m, 0, 9), 0);
	expect_frame(m, 9, NXSIM_XPFO_FREE, false, false, 0, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_v9_unmap_at_alloc_and_leave_on_free(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V9, "deferred", 1024);

	/* First user allocation unmaps even when the kernel will write. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 11, 1, NXSIM_XPFO_WILL_MAP), 0);
	expect_frame(m, 11, NXSIM_XPFO_USER, true, true, 0, 12);
	assert_int_equal(res(m).xpfo.splits_2m, 1);
	assert_int_equal(tlbst(m, 0).invlpg, 1);
	expect_pending(m, 1, true, 1, 0);
	/* Free leaves it unmapped and user-tagged. */
	assert_rc(nxsim_xpfo_free(m, 0, 11), 0);
	expect_frame(m, 11, NXSIM_XPFO_FREE, true, true, 0, 12);
	assert_int_equal(res(m).xpfo.pte_set, 0);
	/* Back to user space: already unmapped, nothing to do. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 11, 1, 0), 0);
	expect_frame(m, 11, NXSIM_XPFO_USER, true, true, 0, 12);
	assert_int_equal(res(m).xpfo.policy_flushes, 1);
	assert_rc(nxsim_xpfo_free(m, 0, 11), 0);
	/* To the kernel: remapped, no flush. */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 11), 0);
	expect_frame(m, 11, NXSIM_XPFO_KERNEL, false, false, 0, 12);
	assert_int_equal(res(m).xpfo.pte_set, 1);
	assert_rc(nxsim_xpfo_free(m, 0, 11), 0);
	/* Ex-kernel frame, kernel will write it: unmapped (first use). */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 11, 2, NXSIM_XPFO_WILL_MAP), 0);
	expect_frame(m, 11, NXSIM_XPFO_USER, true, true, 0, 12);
	assert_rc(nxsim_xpfo_free(m, 0, 11), 0);
	/* A user frame mapped by kmap, freed... */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 12, 2, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 12), 0);
	expect_frame(m, 12, NXSIM_XPFO_USER, true, false, 1, 12);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 12), 0);
	assert_rc(nxsim_xpfo_free(m, 0, 12), 0);
	/* ...is user-tagged: with will_map it stays as it is (unmapped). */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 12, 2, NXSIM_XPFO_WILL_MAP), 0);
	expect_frame(m, 12, NXSIM_XPFO_USER, true, true, 0, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_v9_will_map_keeps_mapped(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V9, "deferred", 1024);

	/* Refill tags it user+unmapped; kmap maps it; free (v9) keeps map. */
	assert_rc(nxsim_xpfo_refill(m, 0, (uint64_t[]){ 20 }, 1), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 20, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 20), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 20), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 20), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 20), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 20), 0);
	expect_frame(m, 20, NXSIM_XPFO_USER, true, false, 1, 12);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 20), 0);
	/* kernel alloc of another frame, freed: user bit clear, mapped */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 21), 0);
	assert_rc(nxsim_xpfo_free(m, 0, 21), 0);
	expect_frame(m, 21, NXSIM_XPFO_FREE, false, false, 0, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_refill_batch(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V8, "batched", 1024);
	const uint64_t batch[] = { 600, 601, 602 };
	unsigned int i;

	assert_rc(nxsim_xpfo_refill(m, 0, batch, 3), 0);
	for (i = 0; i < 3; i++)
		expect_frame(m, batch[i], NXSIM_XPFO_FREE, true, true, 0, 12);
	/* One split of the second 2M, one local full flush for the batch. */
	assert_int_equal(res(m).xpfo.splits_2m, 1);
	assert_int_equal(res(m).xpfo.policy_flushes, 1);
	assert_int_equal(res(m).xpfo.pte_clear, 3);
	assert_int_equal(tlbst(m, 0).global_flush, 2);
	expect_pending(m, 1, true, 1, 0);
	/* Allocating a refilled frame to user space: no flush. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 601, 1, 0), 0);
	expect_frame(m, 601, NXSIM_XPFO_USER, true, true, 0, 12);
	assert_int_equal(res(m).xpfo.policy_flushes, 1);
	/* Refill before v8 does not exist. */
	nxsim_xpfo_destroy(m);
	m = mk(NXSIM_XPFO_V7, NULL, 1024);
	assert_rc(nxsim_xpfo_refill(m, 0, batch, 3), -EOPNOTSUPP);
	expect_frame(m, 600, NXSIM_XPFO_FREE, false, false, 0, 21);
	nxsim_xpfo_destroy(m);
}

/* 16 bytes a frame; one split bit per 1G and per 2M region. */
static void test_xpfo_memory(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V8, "deferred", (1ull << 20) + 1);
	struct nxsim_xpfo_memory mem;
	uint64_t live = test_live_allocs();

	assert_rc(nxsim_xpfo_memory(m, &mem), 0);
	assert_int_equal(mem.frame_table, ((1ull << 20) + 1) * 16);
	/* 5 regions of 1G: 1 byte; 2049 regions of 2M: 257 bytes */
	assert_int_equal(mem.physmap, 1 + 257);
	assert_rc(nxsim_xpfo_memory(m, NULL), -EINVAL);
	assert_rc(nxsim_xpfo_memory(NULL, &mem), -EINVAL);
	assert_int_equal(test_live_allocs(), live);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_1g_split(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V6, "none", 1ull << 18);

	expect_frame(m, 1000, NXSIM_XPFO_FREE, false, false, 0, 30);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 1000, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 1000), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 1000), 0);
	/* 1G -> 2M (flush), then the 2M holding it -> 4K (flush). */
	assert_int_equal(res(m).xpfo.splits_1g, 1);
	assert_int_equal(res(m).xpfo.splits_2m, 1);
	assert_int_equal(tlbst(m, 0).full_flushes, 2);
	assert_int_equal(tlbst(m, 1).ipis_received, 2);
	expect_frame(m, 1000, NXSIM_XPFO_USER, true, true, 0, 12);
	expect_frame(m, 0, NXSIM_XPFO_FREE, false, false, 0, 21);
	expect_frame(m, 1024, NXSIM_XPFO_FREE, false, false, 0, 21);
	expect_frame(m, 600, NXSIM_XPFO_FREE, false, false, 0, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_disabled_baseline(void **state)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 1024,
		.disabled = true,
	};
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 3, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 3), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 3), 0);
	expect_frame(m, 3, NXSIM_XPFO_USER, false, false, 0, 21);
	assert_int_equal(tlbst(m, -1).global_flush, 0);
	assert_int_equal(res(m).flush_cycles, 0);
	assert_int_equal(res(m).kernel_cycles, 600); /* page_alloc */
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_policy_table(void **state)
{
	static const char *const names[] = {
		"eager",	"eager-full",	  "local",
		"deferred",	"deferred-entry", "batched",
		"lazy-realloc", "none",		  "asi",
		"broadcast",
	};
	struct nxsim_xpfo *m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		assert_string_equal(nxsim_xpfo_policy_name(i), names[i]);
		m = mk(NXSIM_XPFO_V8, names[i], 64);
		nxsim_xpfo_destroy(m);
	}
	assert_null(nxsim_xpfo_policy_name(i));
	assert_string_equal(nxsim_xpfo_workload_name(0), "compile");
	assert_string_equal(nxsim_xpfo_workload_name(1), "io");
	assert_string_equal(nxsim_xpfo_workload_name(2), "fork");
	assert_null(nxsim_xpfo_workload_name(3));
}

static void test_xpfo_cost_table(void **state)
{
	struct nxsim_xpfo_costs c;
	const char *name, *src;
	uint32_t cyc;
	unsigned int i;

	nxsim_xpfo_costs_default(&c);
	for (i = 0; !nxsim_xpfo_cost_info(i, &name, &cyc, &src); i++) {
		assert_int_equal(((uint32_t *)&c)[i], cyc);
		assert_true(strlen(src) > 0);
	}
	assert_int_equal(i, sizeof(c) / sizeof(uint32_t));
	assert_int_equal(c.invlpg, 250);
	assert_int_equal(c.ipi_first, 2400);
	assert_rc(nxsim_xpfo_cost_info(i, &name, &cyc, &src), -ENOENT);
}

/* nxsim_xpfo_costs_set() writes the named field, and only it. */
static void test_xpfo_costs_set(void **state)
{
	static const struct {
		const char *name;
		int rc;
		size_t off; /* the field written when rc is 0 */
	} cases[] = {
		{ "invlpg", 0, offsetof(struct nxsim_xpfo_costs, invlpg) },
		{ "stlb_hit", 0, offsetof(struct nxsim_xpfo_costs, stlb_hit) },
		{ "kernel_entry", 0,
		  offsetof(struct nxsim_xpfo_costs, kernel_entry) },
		{ "ipi_recv", 0, offsetof(struct nxsim_xpfo_costs, ipi_recv) },
		{ "INVLPG", -ENOENT, 0 },
		{ "invlpg ", -ENOENT, 0 },
		{ "", -ENOENT, 0 },
	};
	struct nxsim_xpfo_costs def, c;
	size_t i;

	nxsim_xpfo_costs_default(&def);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = def;
		assert_rc(nxsim_xpfo_costs_set(&c, cases[i].name, 12345, NULL),
			  cases[i].rc);
		if (cases[i].rc) {
			assert_memory_equal(&c, &def, sizeof(c));
			continue;
		}
		assert_int_equal(*(uint32_t *)((char *)&c + cases[i].off),
				 12345);
		*(uint32_t *)((char *)&c + cases[i].off) =
			*(uint32_t *)((char *)&def + cases[i].off);
		assert_memory_equal(&c, &def, sizeof(c));
	}
}

/* Reuse hazard (v9 + no flush): stale entry, frame to another domain. */
static void test_xpfo_reuse_hazard(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V9, "none", 256);
	enum nxsim_xpfo_access what;

	assert_rc(nxsim_xpfo_kernel_access(m, 1, 30, false, &what), 0);
	assert_int_equal(what, NXSIM_XPFO_ACCESS_WALK);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 30, 1, 0), 0);
	assert_int_equal(res(m).oracle.exposures_open, 1);
	assert_rc(nxsim_xpfo_free(m, 0, 30), 0);
	/* Same owner again: not a hazard. */
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 30, 1, 0), 0);
	assert_int_equal(res(m).oracle.reuse_hazards, 0);
	assert_rc(nxsim_xpfo_free(m, 0, 30), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 30, 2, 0), 0);
	assert_int_equal(res(m).oracle.reuse_hazards, 1);
	assert_rc(nxsim_xpfo_free(m, 0, 30), 0);
	/* To the kernel: a hazard too; the remap closes the window. */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 30), 0);
	assert_int_equal(res(m).oracle.reuse_hazards, 2);
	assert_int_equal(res(m).oracle.exposures_open, 0);
	assert_int_equal(res(m).oracle.exposures, 1);
	nxsim_xpfo_destroy(m);
}

/* Bad input: the error, and nothing changed. */
static void test_xpfo_bad_input(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V6, NULL, 64);
	struct nxsim_xpfo_result before;
	struct nxsim_xpfo_frame_info fb, fa;
	struct nxsim_xpfo_cpu_info ci;
	unsigned int pfn;

	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 1), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 2, 1, 0), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 3, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 3), 0);
	before = res(m);
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 64), -EINVAL);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 64, 1, 0), -EINVAL);
	assert_rc(nxsim_xpfo_free(m, 0, 64), -EINVAL);
	assert_rc(nxsim_xpfo_kmap(m, 0, 64), -EINVAL);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 64), -EINVAL);
	assert_rc(nxsim_xpfo_kernel_access(m, 0, 64, false, NULL), -EINVAL);
	assert_rc(nxsim_xpfo_user_access(m, 0, 64, false), -EINVAL);
	assert_rc(nxsim_xpfo_frame(m, 64, &fb), -EINVAL);
	/* kunmap without kmap, of a user and of a kernel frame */
	assert_rc(nxsim_xpfo_kunmap(m, 0, 2), -EINVAL);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 1), -EINVAL);
	assert_rc(nxsim_xpfo_kmap(m, 0, 10), -EINVAL); /* free frame */
	/* free of a free frame; free while kmapped */
	assert_rc(nxsim_xpfo_free(m, 0, 10), -EINVAL);
	assert_rc(nxsim_xpfo_free(m, 0, 3), -EBUSY);
	/* allocation of an owned frame; domain 0; unknown flags */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 2), -EBUSY);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 1, 1, 0), -EBUSY);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 0, 0), -EINVAL);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 1, 2), -EINVAL);
	/* user access to a kernel frame, another domain's, a free one */
	assert_rc(nxsim_xpfo_context_switch(m, 0, 1), 0);
	before = res(m);
	assert_rc(nxsim_xpfo_user_access(m, 0, 1, false), -EPERM);
	assert_rc(nxsim_xpfo_user_access(m, 0, 10, true), -EPERM);
	assert_rc(nxsim_xpfo_user_access(m, 1, 2, false), -EPERM);
	/* CPU ids out of range */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 2, 10), -EINVAL);
	assert_rc(nxsim_xpfo_alloc_user(m, 2, 10, 1, 0), -EINVAL);
	assert_rc(nxsim_xpfo_free(m, 2, 2), -EINVAL);
	assert_rc(nxsim_xpfo_kmap(m, 2, 2), -EINVAL);
	assert_rc(nxsim_xpfo_kunmap(m, 2, 3), -EINVAL);
	assert_rc(nxsim_xpfo_kernel_access(m, 2, 2, false, NULL), -EINVAL);
	assert_rc(nxsim_xpfo_user_access(m, 2, 2, false), -EINVAL);
	assert_rc(nxsim_xpfo_context_switch(m, 2, 1), -EINVAL);
	assert_rc(nxsim_xpfo_kernel_enter(m, 2), -EINVAL);
	assert_rc(nxsim_xpfo_kernel_exit(m, 2), -EINVAL);
	assert_rc(nxsim_xpfo_refill(m, 2, (uint64_t[]){ 10 }, 1), -EINVAL);
	assert_rc(nxsim_xpfo_cpu(m, 2, &ci), -EINVAL);
	/* mode errors: entering the kernel from the kernel, exiting twice */
	assert_rc(nxsim_xpfo_kernel_enter(m, 0), -EINVAL);
	assert_rc(nxsim_xpfo_kernel_exit(m, 1), -EINVAL); /* no domain */
	/* refill: before v8; (v8 cases below) */
	assert_rc(nxsim_xpfo_refill(m, 0, (uint64_t[]){ 10 }, 1), -EOPNOTSUPP);
	unchanged(m, &before);
	for (pfn = 0; pfn < 64; pfn++) {
		assert_rc(nxsim_xpfo_frame(m, pfn, &fb), 0);
		if (pfn == 3)
			assert_int_equal(fb.kmap_count, 1);
	}
	assert_rc(nxsim_xpfo_destroy(m), 0);
	assert_rc(nxsim_xpfo_destroy(NULL), -EINVAL);

	m = mk(NXSIM_XPFO_V8, NULL, 64);
	assert_rc(nxsim_xpfo_alloc_kernel(m, 0, 1), 0);
	before = res(m);
	assert_rc(nxsim_xpfo_frame(m, 10, &fb), 0);
	assert_rc(nxsim_xpfo_refill(m, 0, (uint64_t[]){ 10, 1 }, 2), -EINVAL);
	assert_rc(nxsim_xpfo_refill(m, 0, (uint64_t[]){ 10, 64 }, 2), -EINVAL);
	assert_rc(nxsim_xpfo_refill(m, 0, (uint64_t[]){ 10 }, 0), -EINVAL);
	assert_rc(nxsim_xpfo_refill(m, 0, NULL, 1), -EINVAL);
	assert_rc(nxsim_xpfo_frame(m, 10, &fa), 0);
	assert_memory_equal(&fb, &fa, sizeof(fb));
	unchanged(m, &before);
	nxsim_xpfo_destroy(m);
}

/* choose_new_asid(): 6 ASIDs per CPU, reused with NOFLUSH, else flushed. */
static void test_xpfo_asid_cache(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V8, NULL, 64);
	struct nxsim_tlb_stats s;
	uint16_t d;

	assert_rc(nxsim_xpfo_alloc_user(m, 0, 8, 1, 0), 0);
	assert_rc(nxsim_xpfo_context_switch(m, 0, 1), 0);
	assert_rc(nxsim_xpfo_kernel_exit(m, 0), 0);
	assert_rc(nxsim_xpfo_user_access(m, 0, 8, true), 0); /* walk */
	assert_rc(nxsim_xpfo_kernel_enter(m, 0), 0);
	for (d = 2; d <= 6; d++)
		assert_rc(nxsim_xpfo_context_switch(m, 0, d), 0);
	s = tlbst(m, 0);
	assert_int_equal(s.cr3_flush, 6);
	assert_int_equal(s.cr3_noflush, 0);
	/* Domain 1's ASID is still cached: NOFLUSH, its entry survived. */
	assert_rc(nxsim_xpfo_context_switch(m, 0, 1), 0);
	assert_int_equal(tlbst(m, 0).cr3_noflush, 1);
	assert_rc(nxsim_xpfo_kernel_exit(m, 0), 0);
	assert_rc(nxsim_xpfo_user_access(m, 0, 8, false), 0);
	assert_int_equal(tlbst(m, 0).hits[NXSIM_TLB_L1D], 1);
	assert_int_equal(tlbst(m, 0).walks, 1);
	assert_rc(nxsim_xpfo_kernel_enter(m, 0), 0);
	/* A seventh domain takes domain 1's slot; coming back flushes. */
	assert_rc(nxsim_xpfo_context_switch(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_context_switch(m, 0, 1), 0);
	assert_int_equal(tlbst(m, 0).cr3_flush, 8);
	assert_rc(nxsim_xpfo_kernel_exit(m, 0), 0);
	assert_rc(nxsim_xpfo_user_access(m, 0, 8, false), 0);
	assert_int_equal(tlbst(m, 0).walks, 2);
	assert_int_equal(res(m).xpfo.context_switches, 9);
	assert_int_equal(res(m).xpfo.user_accesses, 3);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_kmap_overflow(void **state)
{
	struct nxsim_xpfo *m = mk(NXSIM_XPFO_V6, NULL, 64);
	struct nxsim_xpfo_result before;
	unsigned int i;

	assert_rc(nxsim_xpfo_alloc_user(m, 0, 4, 1, 0), 0);
	for (i = 0; i < UINT16_MAX; i++)
		assert_rc(nxsim_xpfo_kmap(m, 0, 4), 0);
	before = res(m);
	assert_rc(nxsim_xpfo_kmap(m, 0, 4), -EOVERFLOW);
	unchanged(m, &before);
	expect_frame(m, 4, NXSIM_XPFO_USER, true, false, UINT16_MAX, 12);
	nxsim_xpfo_destroy(m);
}

static void test_xpfo_bad_config(void **state)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = 2, .nr_frames = 64 };
	struct nxsim_xpfo *m = NULL;
	uint64_t live = test_live_allocs();

	cfg.policy = "flush-sometimes";
	assert_rc(nxsim_xpfo_create(&cfg, &m), -ENOENT);
	cfg.policy = NULL;
	/* the counts and the version say what is wrong (nxsim_error_detail) */
	cfg.nr_cpus = 0;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	assert_string_equal(nxsim_error_detail(),
			    "nr_cpus 0: a machine has 1 to 1024 CPUs");
	cfg.nr_cpus = NXSIM_TLB_MAX_CPUS + 1;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	assert_string_equal(nxsim_error_detail(),
			    "nr_cpus 1025: a machine has 1 to 1024 CPUs");
	cfg.nr_cpus = 2;
	cfg.nr_frames = 0;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	assert_string_equal(
		nxsim_error_detail(),
		"nr_frames 0: a machine has 1 to 4294967296 frames");
	cfg.nr_frames = NXSIM_XPFO_MAX_FRAMES + 1;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	cfg.nr_frames = 64;
	cfg.version = NXSIM_XPFO_V9 + 1;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	assert_string_equal(
		nxsim_error_detail(),
		"version 4 is not NXSIM_XPFO_V6 (0) to NXSIM_XPFO_V9 (3)");
	cfg.version = NXSIM_XPFO_V6;
	nxsim_tlb_config_default(&cfg.tlb, 2);
	cfg.tlb.level[NXSIM_TLB_L2].sets = 0;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	cfg.tlb.level[NXSIM_TLB_L2].sets = 128;
	cfg.tlb.level[NXSIM_TLB_L1D].ways = 0;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	cfg.tlb.level[NXSIM_TLB_L1D].ways = 4;
	cfg.tlb.nr_cpus = 3;
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	cfg.tlb.nr_cpus = 2;
	cfg.tlb.replacement = "mru";
	assert_rc(nxsim_xpfo_create(&cfg, &m), -ENOENT);
	assert_null(m);
	assert_int_equal(test_live_allocs(), live);
	cfg.tlb.replacement = NULL;
	/* Exposure times need a virtual clock. */
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_REAL, &cfg.clock), 0);
	live = test_live_allocs();
	assert_rc(nxsim_xpfo_create(&cfg, &m), -EINVAL);
	assert_null(m);
	assert_int_equal(test_live_allocs(), live);
	assert_rc(nxsim_clock_destroy(cfg.clock), 0);
}

static int create_op(void *ctx)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = 2, .nr_frames = 4096 };

	return nxsim_xpfo_create(&cfg, ctx);
}

static void create_undo(void *ctx)
{
	nxsim_xpfo_destroy(*(struct nxsim_xpfo **)ctx);
}

static int run_op(void *ctx)
{
	struct nxsim_xpfo_run run = {
		.workload = "fork",
		.policy = "batched",
		.version = NXSIM_XPFO_V9,
		.nr_cpus = 2,
		.events = 50,
		.seed = 3,
	};

	return nxsim_xpfo_run_workload(&run, ctx);
}

static void test_xpfo_alloc_failures(void **state)
{
	struct nxsim_xpfo *m = NULL;
	struct nxsim_xpfo_result r;

	/*
	 * machine, TLB (2 + 2 x 3 x 2), frames, 2 bitmaps, CPUs, mask,
	 * filled CPUs, timeline tree, reverse index (CPU bitmap, buckets,
	 * 2 pools)
	 */
	assert_int_equal(test_alloc_failures(create_op, create_undo, NULL, &m),
			 1 + 14 + 11);
	/*
	 * two machines (the one without XPFO has no index buckets or pools),
	 * each with its run state, CPU tree and per-CPU free lists
	 */
	assert_int_equal(test_alloc_failures(run_op, NULL, NULL, &r),
			 (26 + 1 + 1 + 2) + (26 - 3 + 1 + 1 + 2));
}

static void test_xpfo_run_bad_input(void **state)
{
	struct nxsim_xpfo_run run = {
		.workload = "compile",
		.nr_cpus = 2,
		.events = 10,
	};
	struct nxsim_xpfo_result r;

	run.workload = "idle";
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -ENOENT);
	run.workload = "compile";
	run.policy = "sometimes";
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -ENOENT);
	run.policy = NULL;
	run.events = 0;
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -EINVAL);
	run.events = 10;
	run.nr_cpus = 0;
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -EINVAL);
	run.nr_cpus = 2;
	run.version = NXSIM_XPFO_V9 + 1;
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -EINVAL);
	run.workload = NULL;
	assert_rc(nxsim_xpfo_run_workload(&run, &r), -EINVAL);
}

/* Same seed, same result, bit for bit; another seed, another result. */
static void test_xpfo_determinism(void **state)
{
	uint64_t seed = test_seed();
	unsigned int w, p;

	for (w = 0; nxsim_xpfo_workload_name(w); w++) {
		for (p = 0; nxsim_xpfo_policy_name(p); p++) {
			struct nxsim_xpfo_run run = {
				.workload = nxsim_xpfo_workload_name(w),
				.policy = nxsim_xpfo_policy_name(p),
				.version = NXSIM_XPFO_V8,
				.nr_cpus = 3,
				.events = 300,
				.seed = seed,
			};
			struct nxsim_xpfo_result a, b, c;

			assert_rc(nxsim_xpfo_run_workload(&run, &a), 0);
			assert_rc(nxsim_xpfo_run_workload(&run, &b), 0);
			assert_memory_equal(&a, &b, sizeof(a));
			run.seed = seed + 1;
			assert_rc(nxsim_xpfo_run_workload(&run, &c), 0);
			assert_true(memcmp(&a, &c, sizeof(a)) != 0);
			assert_true(a.system_ratio >= 1.0);
			assert_true(a.events > 3 * 300);
		}
	}
}

static struct nxsim_xpfo_result run_compile(const char *policy,
					    unsigned int cpus)
{
	struct nxsim_xpfo_run run = {
		.workload = "compile",
		.policy = policy,
		.version = NXSIM_XPFO_V8,
		.nr_cpus = cpus,
		.events = 400,
		.seed = 42,
	};
	struct nxsim_xpfo_result r;

	assert_rc(nxsim_xpfo_run_workload(&run, &r), 0);
	return r;
}

/*
 * The published shape with the default costs: eager all-CPU flushing
 * costs more than deferred, which costs more than none, and eager grows
 * with the CPU count; eager flushing leaves no stale alias to hit, local
 * and no flushing do.
 */
static void test_xpfo_policy_shape(void **state)
{
	struct nxsim_xpfo_result e2 = run_compile("eager", 2);
	struct nxsim_xpfo_result e8 = run_compile("eager", 8);
	struct nxsim_xpfo_result d8 = run_compile("deferred", 8);
	struct nxsim_xpfo_result n8 = run_compile("none", 8);
	struct nxsim_xpfo_result l8 = run_compile("local", 8);

	assert_true(e8.system_ratio > e2.system_ratio);
	assert_true(e8.system_ratio > d8.system_ratio);
	assert_true(d8.system_ratio > n8.system_ratio);
	assert_true(n8.system_ratio > 1.0);
	assert_true(e8.wall_ratio > d8.wall_ratio);
	assert_true(e8.tlb.ipis_sent > 0);
	assert_int_equal(d8.tlb.ipis_sent,
			 e8.xpfo.splits_2m + e8.xpfo.splits_1g);
	assert_int_equal(e8.oracle.stale_reads + e8.oracle.stale_writes, 0);
	/* The probing CPUs hit aliases the local flush left behind. */
	assert_true(l8.oracle.stale_reads > 0);
	assert_true(l8.oracle.stale_cross_domain > 0);
	assert_true(n8.oracle.stale_reads + n8.oracle.stale_writes > 0);
	assert_true(n8.oracle.exposures > 0);
	/*
	 * The streams do not depend on the policy: same ownership events
	 * (only the probes' targets depend on the other CPUs' timing).
	 */
	assert_int_equal(e8.xpfo.alloc_user, n8.xpfo.alloc_user);
	assert_int_equal(e8.xpfo.kunmaps, d8.xpfo.kunmaps);
	assert_int_equal(e8.xpfo.frees, n8.xpfo.frees);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xpfo_v6_eager),
		cmocka_unit_test(test_xpfo_v7_no_flush),
		cmocka_unit_test(test_xpfo_v7_xpfotlbflush_is_v6),
		cmocka_unit_test(test_xpfo_v8_deferred),
		cmocka_unit_test(test_xpfo_v9_unmap_at_alloc_and_leave_on_free),
		cmocka_unit_test(test_xpfo_v9_will_map_keeps_mapped),
		cmocka_unit_test(test_xpfo_refill_batch),
		cmocka_unit_test(test_xpfo_memory),
		cmocka_unit_test(test_xpfo_1g_split),
		cmocka_unit_test(test_xpfo_disabled_baseline),
		cmocka_unit_test(test_xpfo_policy_table),
		cmocka_unit_test(test_xpfo_cost_table),
		cmocka_unit_test(test_xpfo_costs_set),
		cmocka_unit_test(test_xpfo_reuse_hazard),
		cmocka_unit_test(test_xpfo_bad_input),
		cmocka_unit_test(test_xpfo_asid_cache),
		cmocka_unit_test(test_xpfo_kmap_overflow),
		cmocka_unit_test(test_xpfo_bad_config),
		cmocka_unit_test(test_xpfo_alloc_failures),
		cmocka_unit_test(test_xpfo_run_bad_input),
		cmocka_unit_test(test_xpfo_determinism),
		cmocka_unit_test(test_xpfo_policy_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
