// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mark Rutland's two-CPU scenario from the XPFO v5 review [S26], run under
 * every flush policy with v6 transitions, on a virtual clock (ns):
 *
 *   t      CPU 0                         CPU 1
 *   0      alloc_user(f, domain 1)
 *          kmap(f)                       read f via physmap: walk, the
 *                                        alias is now in CPU 1's TLB
 *   1000   kunmap(f): PTE cleared,
 *          flush as the policy says
 *   2000                                 read f        -> read1
 *   3000                                 switch to domain 2
 *                                        read f        -> read2
 *   4000                                 read g, h: both TLB ways taken,
 *                                        f's entry evicted
 *                                        read f        -> read3
 *
 * The physmap is all 4K (256 frames), so no large-page split (whose
 * flush_tlb_all would flush CPU 1 anyway) interferes.  TLBs are 1 set x
 * 2 ways at every level.
 *
 * Expect: local-only (v1-v5) gives a stale-alias hit at read1 and read2
 * (the entry is global, the switch keeps it) and a fault only after the
 * eviction, with one exposure window 1000..4000; eager all-CPU flushing
 * gives faults only; deferred gives the hit at read1 only, the switch
 * flushing (window 1000..3000); no flushing hits until the eviction.
 * The other policies follow their rule as in the table.
 */
#include <string.h>

#include "common/test_util.h"
#include "core/compiler.h"

#define S NXSIM_XPFO_ACCESS_STALE
#define F NXSIM_XPFO_ACCESS_FAULT

static const struct {
	const char *policy;
	enum nxsim_xpfo_access read[3];
	uint64_t stale, faults, exposures, exposure_ns;
	uint64_t ipis_to_cpu1; /* alloc flush, kunmap flush */
} rows[] = {
	{ "local", { S, S, F }, 2, 1, 1, 3000, 0 },
	{ "eager", { F, F, F }, 0, 3, 0, 0, 2 },
	{ "eager-full", { F, F, F }, 0, 3, 0, 0, 2 },
	{ "deferred", { S, F, F }, 1, 2, 1, 2000, 0 },
	{ "batched", { S, F, F }, 1, 2, 1, 2000, 0 },
	/* CPU 1 never enters from user mode: nothing consumes the bit. */
	{ "deferred-entry", { S, S, F }, 2, 1, 1, 3000, 0 },
	/* The flush waits for f's next owner, who never comes. */
	{ "lazy-realloc", { S, S, F }, 2, 1, 1, 3000, 0 },
	{ "none", { S, S, F }, 2, 1, 1, 3000, 0 },
	/* CPU 1 is in the kernel (restricted space): it gets the IPI. */
	{ "asi", { F, F, F }, 0, 3, 0, 0, 2 },
	{ "broadcast", { F, F, F }, 0, 3, 0, 0, 0 },
};

static enum nxsim_xpfo_access rd(struct nxsim_xpfo *m, uint64_t pfn)
{
	enum nxsim_xpfo_access what;

	assert_rc(nxsim_xpfo_kernel_access(m, 1, pfn, false, &what), 0);
	return what;
}

static void test_xpfo_v5_review_scenario(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct nxsim_xpfo_config cfg = {
			.nr_cpus = 2,
			.nr_frames = 256,
			.version = NXSIM_XPFO_V6,
			.policy = rows[i].policy,
		};
		struct nxsim_clock *clock;
		struct nxsim_xpfo *m;
		struct nxsim_xpfo_result r;
		struct nxsim_tlb_stats st;
		struct nxsim_xpfo_cpu_info ci;
		struct nxsim_xpfo_frame_exposure fx;
		enum nxsim_xpfo_access got[3];
		unsigned int l;

		print_message("# policy %s\n", rows[i].policy);
		assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &clock), 0);
		nxsim_tlb_config_default(&cfg.tlb, 2);
		for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
			cfg.tlb.level[l] = (struct nxsim_tlb_geometry){ 1, 2 };
		cfg.clock = clock;
		assert_rc(nxsim_xpfo_create(&cfg, &m), 0);

		assert_rc(nxsim_xpfo_alloc_user(m, 0, 10, 1, 0), 0);
		assert_rc(nxsim_xpfo_kmap(m, 0, 10), 0);
		assert_int_equal(rd(m, 10), NXSIM_XPFO_ACCESS_WALK);
		nxsim_clock_advance(clock, 1000);
		assert_rc(nxsim_xpfo_kunmap(m, 0, 10), 0);
		nxsim_clock_advance(clock, 1000);
		got[0] = rd(m, 10);
		nxsim_clock_advance(clock, 1000);
		assert_rc(nxsim_xpfo_context_switch(m, 1, 2), 0);
		got[1] = rd(m, 10);
		nxsim_clock_advance(clock, 1000);
		assert_int_equal(rd(m, 20), NXSIM_XPFO_ACCESS_WALK);
		assert_int_equal(rd(m, 21), NXSIM_XPFO_ACCESS_WALK);
		got[2] = rd(m, 10);

		for (l = 0; l < 3; l++)
			assert_int_equal(got[l], rows[i].read[l]);
		assert_rc(nxsim_xpfo_result(m, &r), 0);
		assert_int_equal(r.oracle.stale_reads, rows[i].stale);
		assert_int_equal(r.oracle.stale_writes, 0);
		assert_int_equal(r.oracle.stale_cross_domain, rows[i].stale);
		assert_int_equal(r.oracle.faults, rows[i].faults);
		assert_int_equal(r.oracle.exposures, rows[i].exposures);
		assert_int_equal(r.oracle.exposures_open, 0);
		assert_int_equal(r.oracle.exposure_sum_ns, rows[i].exposure_ns);
		assert_int_equal(r.oracle.exposure_max_ns, rows[i].exposure_ns);
		assert_int_equal(r.oracle.kmap_windows, 1);
		assert_int_equal(r.oracle.kmap_sum_ns, 1000);
		/* The windows were CPU 1's. */
		assert_rc(nxsim_xpfo_cpu(m, 1, &ci), 0);
		assert_int_equal(ci.exposures, rows[i].exposures);
		assert_int_equal(ci.exposure_sum_ns, rows[i].exposure_ns);
		assert_int_equal(ci.exposure_max_ns, rows[i].exposure_ns);
		assert_rc(nxsim_xpfo_cpu(m, 0, &ci), 0);
		assert_int_equal(ci.exposures, 0);
		/* ... and frame f's. */
		assert_rc(nxsim_xpfo_frame_exposure(m, 10, &fx), 0);
		assert_int_equal(fx.windows, rows[i].exposures);
		assert_int_equal(fx.sum_ns, rows[i].exposure_ns);
		assert_int_equal(fx.max_ns, rows[i].exposure_ns);
		assert_int_equal(fx.mean_ns, rows[i].exposure_ns);
		assert_int_equal(fx.open, 0);
		assert_int_equal(nxsim_xpfo_worst_frames(m, &fx, 1),
				 rows[i].exposures);
		assert_rc(nxsim_tlb_stats(nxsim_xpfo_tlb(m), 1, &st), 0);
		assert_int_equal(st.ipis_received, rows[i].ipis_to_cpu1);
		nxsim_xpfo_destroy(m);
		assert_rc(nxsim_clock_destroy(clock), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xpfo_v5_review_scenario),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
