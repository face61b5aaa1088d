// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each flush policy's rule on a 2-CPU machine with a 4K physmap (256
 * frames, no splits): which CPUs flush when, by IPI or broadcast, and
 * what is left pending for later (context switch, kernel entry, reuse).
 */
#include "common/test_util.h"

static struct nxsim_xpfo *mk(const char *policy)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 256,
		.version = NXSIM_XPFO_V8,
		.policy = policy,
	};
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	return m;
}

static struct nxsim_tlb_stats st(struct nxsim_xpfo *m, int cpu)
{
	struct nxsim_tlb_stats s;

	assert_rc(nxsim_tlb_stats(nxsim_xpfo_tlb(m), cpu, &s), 0);
	return s;
}

static struct nxsim_xpfo_cpu_info ci(struct nxsim_xpfo *m, unsigned int cpu)
{
	struct nxsim_xpfo_cpu_info c;

	assert_rc(nxsim_xpfo_cpu(m, cpu, &c), 0);
	return c;
}

/* CPU 1 runs domain 2 in user mode; CPU 0 kmaps/kunmaps user frame 7. */
static void setup(struct nxsim_xpfo *m)
{
	assert_rc(nxsim_xpfo_context_switch(m, 1, 2), 0);
	assert_rc(nxsim_xpfo_kernel_exit(m, 1), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 7, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
}

static void test_policy_eager_full(void **state)
{
	struct nxsim_xpfo *m = mk("eager-full");

	setup(m);
	/* Both flushes (alloc, kunmap) are IPI + full flush everywhere. */
	assert_int_equal(st(m, 0).full_flushes, 2);
	assert_int_equal(st(m, 0).range_flushes, 0);
	assert_int_equal(st(m, 1).global_flush, 2);
	assert_int_equal(st(m, 1).ipis_received, 2);
	assert_int_equal(st(m, -1).invlpg, 0);
	nxsim_xpfo_destroy(m);
}

static void test_policy_local(void **state)
{
	struct nxsim_xpfo *m = mk("local");

	setup(m);
	assert_int_equal(st(m, 0).invlpg, 2);
	assert_int_equal(st(m, 1).invlpg, 0);
	assert_int_equal(st(m, -1).ipis_sent, 0);
	assert_false(ci(m, 1).pending_flush);
	nxsim_xpfo_destroy(m);
}

static void test_policy_deferred_entry(void **state)
{
	struct nxsim_xpfo *m = mk("deferred-entry");

	setup(m);
	assert_int_equal(st(m, 0).invlpg, 2);
	assert_true(ci(m, 1).pending_flush);
	/* A context switch does not consume it... */
	assert_rc(nxsim_xpfo_kernel_enter(m, 1), 0);
	/* ...the entry did. */
	assert_false(ci(m, 1).pending_flush);
	assert_int_equal(ci(m, 1).pending_done, 1);
	assert_int_equal(st(m, 1).global_flush, 1);
	assert_rc(nxsim_xpfo_context_switch(m, 1, 3), 0);
	assert_int_equal(st(m, 1).global_flush, 1);
	nxsim_xpfo_destroy(m);
}

static void test_policy_deferred_switch_only(void **state)
{
	struct nxsim_xpfo *m = mk("deferred");

	setup(m);
	assert_rc(nxsim_xpfo_kernel_enter(m, 1), 0);
	assert_true(ci(m, 1).pending_flush);
	assert_rc(nxsim_xpfo_context_switch(m, 1, 3), 0);
	assert_false(ci(m, 1).pending_flush);
	assert_int_equal(st(m, 1).global_flush, 1);
	nxsim_xpfo_destroy(m);
}

static enum nxsim_xpfo_access kread(struct nxsim_xpfo *m, unsigned int cpu,
				    uint64_t pfn)
{
	enum nxsim_xpfo_access what;

	assert_rc(nxsim_xpfo_kernel_access(m, cpu, pfn, false, &what), 0);
	return what;
}

/*
 * switch_mm_irqs_off() runs for a thread of the same mm too, and XPFO v8
 * consumes the pending flush there: CPU 1's alias of frame 10 is gone
 * after a switch from domain 1 to domain 1.
 */
static void test_policy_deferred_same_mm(void **state)
{
	struct nxsim_xpfo *m = mk("deferred");

	assert_rc(nxsim_xpfo_context_switch(m, 1, 1), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 10), 0);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_WALK);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 10), 0);
	assert_true(ci(m, 1).pending_flush);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_STALE);
	assert_rc(nxsim_xpfo_context_switch(m, 1, 1), 0);
	assert_false(ci(m, 1).pending_flush);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_FAULT);
	/* a kernel thread (lazy TLB) does not switch mm: nothing runs */
	assert_rc(nxsim_xpfo_kmap(m, 0, 10), 0);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_WALK);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 10), 0);
	assert_rc(nxsim_xpfo_context_switch(m, 1, 0), 0);
	assert_true(ci(m, 1).pending_flush);
	nxsim_xpfo_destroy(m);
}

static void test_policy_asi(void **state)
{
	struct nxsim_xpfo *m = mk("asi");
	struct nxsim_xpfo_costs c;
	uint64_t before;

	nxsim_xpfo_costs_default(&c);
	setup(m);
	/* CPU 1 is in user mode: no IPI, flush at its next entry. */
	assert_int_equal(st(m, 1).ipis_received, 0);
	assert_true(ci(m, 1).pending_flush);
	before = ci(m, 1).kernel_cycles;
	assert_rc(nxsim_xpfo_kernel_enter(m, 1), 0);
	assert_false(ci(m, 1).pending_flush);
	assert_int_equal(st(m, 1).global_flush, 1);
	assert_int_equal(ci(m, 1).kernel_cycles - before,
			 c.kernel_entry + c.asi_transition + c.global_flush);
	/* In the kernel now: the next flush reaches it by IPI. */
	assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
	assert_int_equal(st(m, 1).ipis_received, 1);
	assert_int_equal(st(m, 1).invlpg, 1);
	assert_false(ci(m, 1).pending_flush);
	nxsim_xpfo_destroy(m);
}

static void test_policy_lazy_realloc(void **state)
{
	struct nxsim_xpfo *m = mk("lazy-realloc");

	setup(m);
	assert_int_equal(st(m, -1).invlpg, 0);
	assert_int_equal(st(m, -1).ipis_sent, 0);
	assert_rc(nxsim_xpfo_free(m, 0, 7), 0);
	assert_int_equal(st(m, -1).invlpg, 0);
	/* The next owner gets it only after a P1 flush of the frame. */
	assert_rc(nxsim_xpfo_alloc_kernel(m, 1, 7), 0);
	assert_int_equal(st(m, 1).ipis_sent, 1);
	assert_int_equal(st(m, -1).invlpg, 2);
	/* Owed once: freeing and reallocating again does not flush. */
	assert_rc(nxsim_xpfo_free(m, 1, 7), 0);
	assert_rc(nxsim_xpfo_alloc_kernel(m, 1, 7), 0);
	assert_int_equal(st(m, -1).ipis_sent, 1);
	nxsim_xpfo_destroy(m);
}

/*
 * v9 keeps a freed user frame unmapped; P4d flushes the stale alias CPU 1
 * still holds before the frame's next owner gets it, so no reuse hazard
 * happens (the oracle looks after the policy's flush).
 */
static void test_policy_lazy_realloc_no_hazard(void **state)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 256,
		.version = NXSIM_XPFO_V9,
		.policy = "lazy-realloc",
	};
	struct nxsim_xpfo_result r;
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 1, NXSIM_XPFO_WILL_MAP), 0);
	assert_rc(nxsim_xpfo_kmap(m, 0, 10), 0);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_WALK);
	assert_rc(nxsim_xpfo_kunmap(m, 0, 10), 0);
	assert_rc(nxsim_xpfo_free(m, 0, 10), 0);
	assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 2, 0), 0);
	assert_rc(nxsim_xpfo_result(m, &r), 0);
	assert_int_equal(r.oracle.reuse_hazards, 0);
	assert_int_equal(st(m, 0).ipis_sent, 1);
	assert_int_equal(kread(m, 1, 10), NXSIM_XPFO_ACCESS_FAULT);
	nxsim_xpfo_destroy(m);
}

/* P7 combined with P1: a TLB configured for broadcast takes INVLPGB. */
static void test_policy_eager_on_broadcast_tlb(void **state)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 256,
		.version = NXSIM_XPFO_V8,
		.policy = "eager",
	};
	struct nxsim_xpfo *m;

	nxsim_tlb_config_default(&cfg.tlb, 2);
	cfg.tlb.broadcast = true;
	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	setup(m);
	assert_int_equal(st(m, -1).ipis_sent, 0);
	assert_int_equal(st(m, 1).ipis_received, 0);
	assert_int_equal(st(m, 0).broadcasts, 2);
	nxsim_xpfo_destroy(m);
}

static void test_policy_broadcast(void **state)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 2,
		.nr_frames = 1024,
		.version = NXSIM_XPFO_V8,
		.policy = "broadcast",
	};
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	setup(m);
	/* alloc flush (full: 2M), split flush_tlb_all, kunmap flush */
	assert_int_equal(st(m, 0).broadcasts, 3);
	assert_int_equal(st(m, -1).ipis_sent, 0);
	assert_int_equal(st(m, -1).ipis_received, 0);
	assert_int_equal(st(m, 1).global_flush, 2);
	assert_int_equal(st(m, 1).invlpg, 1);
	nxsim_xpfo_destroy(m);
}

/*
 * The cost of one flush_tlb_kernel_range() of one page (docs/xpfo.md) on 3
 * CPUs, by IPI or by INVLPGB: what the initiator pays beyond the kunmap's
 * lock and PTE write, and what each other CPU pays.
 */
static void test_policy_flush_cycles(void **state)
{
	static const struct {
		const char *policy;
		bool broadcast;
	} tc[] = { { "eager", false }, { "broadcast", true } };
	struct nxsim_xpfo_costs c;
	unsigned int i, k;

	nxsim_xpfo_costs_default(&c);
	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		struct nxsim_xpfo_config cfg = {
			.nr_cpus = 3,
			.nr_frames = 256,
			.version = NXSIM_XPFO_V8,
			.policy = tc[i].policy,
		};
		uint64_t before[3], init, other;
		struct nxsim_xpfo *m;

		assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
		assert_rc(nxsim_xpfo_alloc_user(m, 0, 7, 1, 0), 0);
		assert_rc(nxsim_xpfo_kmap(m, 0, 7), 0);
		for (k = 0; k < 3; k++)
			before[k] = ci(m, k).kernel_cycles;
		assert_rc(nxsim_xpfo_kunmap(m, 0, 7), 0);
		/* IPI: the first target, then one more. INVLPGB: one wait. */
		init = tc[i].broadcast ? (uint64_t)c.invlpgb + c.tlbsync :
					 (uint64_t)c.ipi_first + c.ipi_extra;
		other = tc[i].broadcast ? 0 : (uint64_t)c.ipi_recv + c.invlpg;
		assert_int_equal(ci(m, 0).kernel_cycles - before[0],
				 c.xpfo_lock + c.pte_write + c.invlpg + init);
		for (k = 1; k < 3; k++)
			assert_int_equal(ci(m, k).kernel_cycles - before[k],
					 other);
		nxsim_xpfo_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_eager_full),
		cmocka_unit_test(test_policy_local),
		cmocka_unit_test(test_policy_deferred_entry),
		cmocka_unit_test(test_policy_deferred_switch_only),
		cmocka_unit_test(test_policy_deferred_same_mm),
		cmocka_unit_test(test_policy_asi),
		cmocka_unit_test(test_policy_lazy_realloc),
		cmocka_unit_test(test_policy_lazy_realloc_no_hazard),
		cmocka_unit_test(test_policy_eager_on_broadcast_tlb),
		cmocka_unit_test(test_policy_broadcast),
		cmocka_unit_test(test_policy_flush_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
