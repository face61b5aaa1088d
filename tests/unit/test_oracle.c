// SPDX-License-Identifier: GPL-2.0-only
/*
 * The security oracle (src/xpfo/oracle.c) called directly, on a machine
 * whose time is a virtual clock, so every window has an exact length:
 * exposure windows opened at an unmap on the CPUs holding the alias and
 * closed by a TLB drop or a remap, with the machine-wide, per-CPU and
 * per-frame figures; reuse hazards by new owner; kmap windows; the means
 * computed on read.
 *
 * The events that call the oracle (alloc, free, kmap, flush policies)
 * are tested in test_xpfo.c; here the oracle is driven by hand.
 */
#include <stdlib.h>

#include "common/test_util.h"
#include "tlb/tlb.h"
#include "xpfo/xpfo.h"

#define PFN 40

struct fix {
	struct nxsim_clock *clock;
	struct nxsim_xpfo *m;
};

/* Three CPUs, 1024 frames, a flush policy that flushes nothing. */
static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct nxsim_xpfo_frame_info fi;
	struct nxsim_xpfo_config cfg = {
		.nr_cpus = 3,
		.nr_frames = 1024,
		.version = NXSIM_XPFO_V9,
		.policy = "none",
	};

	assert_non_null(f);
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &f->clock), 0);
	cfg.clock = f->clock;
	assert_rc(nxsim_xpfo_create(&cfg, &f->m), 0);
	/*
	 * A user frame in the first 2M splits its physmap mapping: the
	 * aliases of the frames below are 4K entries, as after any unmap.
	 */
	assert_rc(nxsim_xpfo_alloc_user(f->m, 0, 1, 1, 0), 0);
	assert_rc(nxsim_xpfo_frame(f->m, PFN, &fi), 0);
	assert_int_equal(fi.physmap_shift, 12);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	nxsim_xpfo_destroy(f->m);
	assert_rc(nxsim_clock_destroy(f->clock), 0);
	free(f);
	return 0;
}

static struct nxsim_xpfo_oracle orc(struct nxsim_xpfo *m)
{
	struct nxsim_xpfo_oracle o;

	nxsim__oracle_fill(m, &o);
	return o;
}

static void at(struct fix *f, uint64_t ns)
{
	nxsim_clock_advance(f->clock, ns - nxsim_clock_now(f->clock));
	assert_int_equal(nxsim_clock_now(f->clock), ns);
}

/* @cpu caches the physmap alias of @pfn. */
static void cache(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	enum nxsim_xpfo_access what;

	assert_rc(nxsim_xpfo_kernel_access(m, cpu, pfn, false, &what), 0);
	assert_int_equal(what, NXSIM_XPFO_ACCESS_WALK);
}

static void expect_cpu(struct nxsim_xpfo *m, unsigned int cpu, uint64_t n,
		       uint64_t max, uint64_t sum)
{
	struct nxsim_xpfo_cpu_info ci;

	assert_rc(nxsim_xpfo_cpu(m, cpu, &ci), 0);
	assert_int_equal(ci.exposures, n);
	assert_int_equal(ci.exposure_max_ns, max);
	assert_int_equal(ci.exposure_sum_ns, sum);
}

static void expect_frame(struct nxsim_xpfo *m, uint64_t pfn, uint64_t windows,
			 uint64_t open, uint64_t mean, uint64_t max,
			 uint64_t sum)
{
	struct nxsim_xpfo_frame_exposure x;

	assert_rc(nxsim_xpfo_frame_exposure(m, pfn, &x), 0);
	assert_int_equal(x.pfn, pfn);
	assert_int_equal(x.windows, windows);
	assert_int_equal(x.open, open);
	assert_int_equal(x.mean_ns, mean);
	assert_int_equal(x.max_ns, max);
	assert_int_equal(x.sum_ns, sum);
}

/* An unmap with no CPU holding the alias opens nothing, records nothing. */
static void test_unmapped_uncached(void **state)
{
	struct fix *f = *state;
	struct nxsim_xpfo_oracle o, zero = { 0 };

	at(f, 100);
	nxsim__oracle_unmapped(f->m, PFN);
	o = orc(f->m);
	assert_memory_equal(&o, &zero, sizeof(o));
	assert_int_equal(f->m->frame[PFN].holders, 0);
	expect_frame(f->m, PFN, 0, 0, 0, 0, 0);
}

/*
 * CPUs 0 and 2 hold the alias at the unmap (t=100): two windows open,
 * stamped 100; a second unmap call adds none.  CPU 2 drops its entry at
 * 350 (window 250), the remap at 1000 closes CPU 0's (window 900).
 */
static void test_windows(void **state)
{
	struct fix *f = *state;
	struct nxsim_xpfo_oracle o;

	cache(f->m, 0, PFN);
	cache(f->m, 2, PFN);
	at(f, 100);
	nxsim__oracle_unmapped(f->m, PFN);
	nxsim__oracle_unmapped(f->m, PFN);
	o = orc(f->m);
	assert_int_equal(o.exposures_open, 2);
	assert_int_equal(o.exposures, 0);
	assert_int_equal(o.exposed_frames, 1);
	assert_int_equal(f->m->frame[PFN].holders, 2);
	assert_int_equal(f->m->frame[PFN].stamp, 100);

	at(f, 350);
	nxsim__tlb_invlpg(f->m->tlb, 2, nxsim__physmap_va(PFN));
	o = orc(f->m);
	assert_int_equal(o.exposures_open, 1);
	assert_int_equal(o.exposures, 1);
	assert_int_equal(o.exposure_sum_ns, 250);
	assert_int_equal(o.exposure_max_ns, 250);
	assert_int_equal(o.exposure_mean_ns, 250);
	expect_cpu(f->m, 2, 1, 250, 250);
	expect_cpu(f->m, 0, 0, 0, 0);
	expect_frame(f->m, PFN, 1, 1, 250, 250, 250);

	at(f, 1000);
	nxsim__oracle_remapped(f->m, PFN);
	nxsim__oracle_remapped(f->m, PFN);
	o = orc(f->m);
	assert_int_equal(o.exposures_open, 0);
	assert_int_equal(o.exposures, 2);
	assert_int_equal(o.exposure_sum_ns, 1150);
	assert_int_equal(o.exposure_max_ns, 900);
	assert_int_equal(o.exposure_mean_ns, 575);
	assert_int_equal(o.exposed_frames, 1);
	assert_int_equal(o.frame_windows_dropped, 0);
	assert_int_equal(f->m->frame[PFN].holders, 0);
	expect_cpu(f->m, 0, 1, 900, 900);
	expect_cpu(f->m, 1, 0, 0, 0);
	expect_cpu(f->m, 2, 1, 250, 250);
	expect_frame(f->m, PFN, 2, 0, 575, 900, 1150);

	/* The remap unwatched CPU 0's entry: dropping it now closes none. */
	nxsim__tlb_invlpg(f->m->tlb, 0, nxsim__physmap_va(PFN));
	assert_int_equal(orc(f->m).exposures, 2);

	/* A window closed at its own opening time is 0 ns long. */
	cache(f->m, 1, PFN);
	nxsim__oracle_unmapped(f->m, PFN);
	nxsim__oracle_remapped(f->m, PFN);
	o = orc(f->m);
	assert_int_equal(o.exposures, 3);
	assert_int_equal(o.exposure_sum_ns, 1150);
	assert_int_equal(o.exposure_mean_ns, 383);
	expect_cpu(f->m, 1, 1, 0, 0);
	expect_frame(f->m, PFN, 3, 0, 383, 900, 1150);
}

/*
 * A reuse is a hazard while some CPU holds the stale alias, unless the
 * frame goes back to user space in the domain that last owned it.
 */
static void test_reuse(void **state)
{
	static const struct {
		uint8_t owner;
		uint16_t domain;
		uint64_t hazards; /* with a holder */
	} rows[] = {
		{ NXSIM_XPFO_USER, 7, 0 },   { NXSIM_XPFO_USER, 8, 1 },
		{ NXSIM_XPFO_KERNEL, 7, 1 }, { NXSIM_XPFO_KERNEL, 0, 1 },
		{ NXSIM_XPFO_FREE, 7, 1 },
	};
	struct fix *f = *state;
	size_t i;

	f->m->frame[PFN].domain = 7;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		f->m->orc.reuse_hazards = 0;
		nxsim__oracle_reuse(f->m, PFN, rows[i].owner, rows[i].domain);
		assert_int_equal(f->m->orc.reuse_hazards, 0);
		cache(f->m, 1, PFN);
		nxsim__oracle_unmapped(f->m, PFN);
		nxsim__oracle_reuse(f->m, PFN, rows[i].owner, rows[i].domain);
		assert_int_equal(f->m->orc.reuse_hazards, rows[i].hazards);
		nxsim__oracle_remapped(f->m, PFN);
		nxsim__tlb_invlpg(f->m->tlb, 1, nxsim__physmap_va(PFN));
	}
}

/* Kmap windows: open to close on the clock; mean, max and sum. */
static void test_kmap_windows(void **state)
{
	struct fix *f = *state;
	struct nxsim_xpfo_oracle o;

	at(f, 10);
	nxsim__oracle_kmap_open(f->m, PFN);
	at(f, 70);
	nxsim__oracle_kmap_close(f->m, PFN);
	o = orc(f->m);
	assert_int_equal(o.kmap_windows, 1);
	assert_int_equal(o.kmap_sum_ns, 60);
	assert_int_equal(o.kmap_max_ns, 60);
	assert_int_equal(o.kmap_mean_ns, 60);

	nxsim__oracle_kmap_open(f->m, PFN + 1);
	at(f, 95);
	nxsim__oracle_kmap_close(f->m, PFN + 1);
	nxsim__oracle_kmap_open(f->m, PFN);
	nxsim__oracle_kmap_close(f->m, PFN);
	o = orc(f->m);
	assert_int_equal(o.kmap_windows, 3);
	assert_int_equal(o.kmap_sum_ns, 85);
	assert_int_equal(o.kmap_max_ns, 60);
	assert_int_equal(o.kmap_mean_ns, 28);
	/* kmap windows are not exposures */
	assert_int_equal(o.exposures, 0);
	assert_int_equal(o.exposed_frames, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unmapped_uncached, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kmap_windows, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
