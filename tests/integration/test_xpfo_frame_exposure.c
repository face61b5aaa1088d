// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-frame exposure windows (docs/xpfo.md: per frame and CPU, count,
 * mean, max, integral), step by step on three CPUs
 * with the local-only policy (v6 transitions), a virtual clock (ns) and
 * 1 set x 2 ways at every TLB level:
 *
 *   t      CPU 0              CPU 1               CPU 2
 *   0      alloc f, g (user), read f, g: walks    read f: walk
 *          kmap f, g
 *   1000   kunmap f: windows (f,1) (f,2) open
 *   1500   kunmap g: window (g,1) opens
 *   2000                                          read h, i: f evicted,
 *                                                 (f,2) closes: 1000
 *   4000                      read h, i: f, g
 *                             evicted: (f,1)
 *                             3000, (g,1) 2500
 *
 * f: 2 windows, sum 4000, max 3000, mean 2000; g: 1 window of 2500; the
 * per-CPU and machine-wide figures agree.  Then: frames never exposed read
 * zero, the worst-frames list is sorted and truncated, bad input changes
 * nothing, and an allocation failure for a frame's record is a counted
 * drop that leaves every other figure exact.
 */
#include "common/test_util.h"

enum { F = 10, G = 11, H = 20, I = 21 };

struct run {
	struct nxsim_clock *clock;
	struct nxsim_xpfo *m;
};

static void rd(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
	       enum nxsim_xpfo_access want)
{
	enum nxsim_xpfo_access what;

	assert_rc(nxsim_xpfo_kernel_access(m, cpu, pfn, false, &what), 0);
	assert_int_equal(what, want);
}

static void at(struct run *r, uint64_t ns)
{
	nxsim_clock_advance(r->clock, ns - nxsim_clock_now(r->clock));
}

static void setup(struct run *r)
{
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 3,
		.nr_frames = 256,
		.version = NXSIM_XPFO_V6,
		.policy = "local",
	};
	unsigned int l;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &r->clock), 0);
	nxsim_tlb_config_default(&cfg.tlb, 3);
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
		cfg.tlb.level[l] = (struct nxsim_tlb_geometry){ 1, 2 };
	cfg.clock = r->clock;
	assert_rc(nxsim_xpfo_create(&cfg, &r->m), 0);
	assert_rc(nxsim_xpfo_alloc_user(r->m, 0, F, 1, 0), 0);
	assert_rc(nxsim_xpfo_alloc_user(r->m, 0, G, 1, 0), 0);
	assert_rc(nxsim_xpfo_kmap(r->m, 0, F), 0);
	assert_rc(nxsim_xpfo_kmap(r->m, 0, G), 0);
	rd(r->m, 1, F, NXSIM_XPFO_ACCESS_WALK);
	rd(r->m, 1, G, NXSIM_XPFO_ACCESS_WALK);
	rd(r->m, 2, F, NXSIM_XPFO_ACCESS_WALK);
}

static void teardown(struct run *r)
{
	nxsim_xpfo_destroy(r->m);
	assert_rc(nxsim_clock_destroy(r->clock), 0);
}

static struct nxsim_xpfo_frame_exposure fx(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim_xpfo_frame_exposure x;

	assert_rc(nxsim_xpfo_frame_exposure(m, pfn, &x), 0);
	assert_int_equal(x.pfn, pfn);
	return x;
}

static void is(const struct nxsim_xpfo_frame_exposure *x, uint64_t pfn,
	       uint64_t windows, uint64_t open, uint64_t mean, uint64_t max,
	       uint64_t sum)
{
	assert_int_equal(x->pfn, pfn);
	assert_int_equal(x->windows, windows);
	assert_int_equal(x->open, open);
	assert_int_equal(x->mean_ns, mean);
	assert_int_equal(x->max_ns, max);
	assert_int_equal(x->sum_ns, sum);
}

static void test_xpfo_frame_exposure_steps(void **state)
{
	struct nxsim_xpfo_frame_exposure x, w[3];
	struct nxsim_xpfo_result res;
	struct nxsim_xpfo_cpu_info ci;
	struct run r;

	setup(&r);
	at(&r, 1000);
	assert_rc(nxsim_xpfo_kunmap(r.m, 0, F), 0);
	x = fx(r.m, F);
	is(&x, F, 0, 2, 0, 0, 0);
	at(&r, 1500);
	assert_rc(nxsim_xpfo_kunmap(r.m, 0, G), 0);
	x = fx(r.m, G);
	is(&x, G, 0, 1, 0, 0, 0);
	assert_int_equal(nxsim_xpfo_worst_frames(r.m, w, 3), 0);

	at(&r, 2000);
	rd(r.m, 2, H, NXSIM_XPFO_ACCESS_WALK);
	rd(r.m, 2, I, NXSIM_XPFO_ACCESS_WALK);
	x = fx(r.m, F);
	is(&x, F, 1, 1, 1000, 1000, 1000);

	at(&r, 4000);
	rd(r.m, 1, H, NXSIM_XPFO_ACCESS_WALK);
	rd(r.m, 1, I, NXSIM_XPFO_ACCESS_WALK);
	x = fx(r.m, F);
	is(&x, F, 2, 0, 2000, 3000, 4000);
	x = fx(r.m, G);
	is(&x, G, 1, 0, 2500, 2500, 2500);
	x = fx(r.m, H); /* never exposed */
	is(&x, H, 0, 0, 0, 0, 0);

	/* Worst first; a short array gets the top, the count is all. */
	assert_int_equal(nxsim_xpfo_worst_frames(r.m, w, 3), 2);
	is(&w[0], F, 2, 0, 2000, 3000, 4000);
	is(&w[1], G, 1, 0, 2500, 2500, 2500);
	assert_int_equal(nxsim_xpfo_worst_frames(r.m, w, 1), 2);
	assert_int_equal(w[0].pfn, F);
	assert_int_equal(nxsim_xpfo_worst_frames(r.m, NULL, 0), 2);

	/* The same windows, per CPU and in total. */
	assert_rc(nxsim_xpfo_cpu(r.m, 1, &ci), 0);
	assert_int_equal(ci.exposures, 2);
	assert_int_equal(ci.exposure_sum_ns, 5500);
	assert_int_equal(ci.exposure_max_ns, 3000);
	assert_rc(nxsim_xpfo_cpu(r.m, 2, &ci), 0);
	assert_int_equal(ci.exposures, 1);
	assert_int_equal(ci.exposure_sum_ns, 1000);
	assert_rc(nxsim_xpfo_result(r.m, &res), 0);
	assert_int_equal(res.oracle.exposures, 3);
	assert_int_equal(res.oracle.exposure_sum_ns, 6500);
	assert_int_equal(res.oracle.exposed_frames, 2);
	assert_int_equal(res.oracle.frame_windows_dropped, 0);

	/* Bad input. */
	assert_rc(nxsim_xpfo_frame_exposure(r.m, 256, &x), -EINVAL);
	assert_rc(nxsim_xpfo_frame_exposure(r.m, F, NULL), -EINVAL);
	assert_rc(nxsim_xpfo_frame_exposure(NULL, F, &x), -EINVAL);
	assert_rc(nxsim_xpfo_worst_frames(r.m, NULL, 1), -EINVAL);
	assert_rc(nxsim_xpfo_worst_frames(NULL, w, 1), -EINVAL);
	x = fx(r.m, F);
	is(&x, F, 2, 0, 2000, 3000, 4000);
	teardown(&r);
}

/*
 * The record of f cannot be allocated at its unmap: f's windows are
 * dropped from the per-frame figures (counted), the rest stays exact, and
 * g, unmapped later, gets its record.
 */
static void test_xpfo_frame_exposure_alloc_failure(void **state)
{
	struct nxsim_xpfo_frame_exposure x;
	struct nxsim_xpfo_result res;
	uint64_t live;
	struct run r;

	setup(&r);
	live = test_live_allocs();
	at(&r, 1000);
	nxsim_alloc_fail_nth(1);
	assert_rc(nxsim_xpfo_kunmap(r.m, 0, F), 0);
	nxsim_alloc_fail_nth(0);
	assert_int_equal(test_live_allocs(), live);
	at(&r, 1500);
	assert_rc(nxsim_xpfo_kunmap(r.m, 0, G), 0);
	assert_int_equal(test_live_allocs(), live + 1);
	at(&r, 2000);
	rd(r.m, 2, H, NXSIM_XPFO_ACCESS_WALK);
	rd(r.m, 2, I, NXSIM_XPFO_ACCESS_WALK);
	at(&r, 4000);
	rd(r.m, 1, H, NXSIM_XPFO_ACCESS_WALK);
	rd(r.m, 1, I, NXSIM_XPFO_ACCESS_WALK);
	x = fx(r.m, F);
	is(&x, F, 0, 0, 0, 0, 0);
	x = fx(r.m, G);
	is(&x, G, 1, 0, 2500, 2500, 2500);
	assert_rc(nxsim_xpfo_result(r.m, &res), 0);
	assert_int_equal(res.oracle.exposures, 3);
	assert_int_equal(res.oracle.exposure_sum_ns, 6500);
	assert_int_equal(res.oracle.exposed_frames, 1);
	assert_int_equal(res.oracle.frame_windows_dropped, 2);
	teardown(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xpfo_frame_exposure_steps),
		cmocka_unit_test(test_xpfo_frame_exposure_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
