// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vCPU TLB on the MMU's mappings (docs/guest-tlb.md): walk reference
 * counts per guest/host level pair, the entry size per level pair, rights
 * cached in an entry, every remote-flush source reaching exactly the
 * vCPUs and ranges the kernel's calls name, and allocation failures.
 */
#include <nxsim/nxsim.h>

#include "integration/nx_test.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define MIN_LEVEL(a, b) ((a) < (b) ? (a) : (b))
#define BASE GIB
#define PERIOD_NS 100000000ull

static const char *const profiles_all[] = { "6.1", "6.6", "6.13" };

/* A host of @profile, mitigation on, ratio 1, a VM with vCPU TLBs. */
static struct nx_env tlb_env(const char *profile, unsigned int nr_vcpus,
			     bool range_flush, struct nxsim_vcpu **vcpus)
{
	struct nxsim_vcpu_tlb_config cfg;
	struct nx_env e;
	unsigned int i;

	e.host = test_host(profile, true, NULL, 0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);
	assert_rc(nxsim_vm_create(e.host, &e.vm), 0);
	nxsim_vcpu_tlb_config_default(&cfg);
	cfg.range_flush = range_flush;
	cfg.tlb.flush_ceiling = 4096; /* ranges stay ranges in these tests */
	assert_rc(nxsim_vm_set_vcpu_tlb(e.vm, &cfg), 0);
	for (i = 0; i < nr_vcpus; i++)
		assert_rc(nxsim_vcpu_create(e.vm, i, &vcpus[i]), 0);
	e.vcpu = vcpus[0];
	assert_rc(nxsim_vcpu_run(e.vcpu), 0);
	return e;
}

static struct nxsim_vcpu_stats vstats(struct nxsim_vcpu *v)
{
	struct nxsim_vcpu_stats st;

	assert_rc(nxsim_vcpu_stats(v, &st), 0);
	return st;
}

static struct nxsim_access_info gacc(struct nxsim_vcpu *v,
				     enum nxsim_access_kind kind, uint64_t gpa,
				     int glevel)
{
	struct nxsim_access_info info;

	assert_rc(nxsim_vcpu_access_guest(v, kind, gpa, glevel, &info), 0);
	return info;
}

static void test_walk_refs(void **state)
{
	static const struct {
		int g, h, root;
		bool pwc;
		int refs;
	} cases[] = {
		{ 1, 1, 4, false, 24 },	     { 1, 2, 4, false, 19 },
		{ 1, 3, 4, false, 14 },	     { 2, 1, 4, false, 19 },
		{ 2, 2, 4, false, 15 },	     { 2, 3, 4, false, 11 },
		{ 3, 1, 4, false, 14 },	     { 3, 2, 4, false, 11 },
		{ 3, 3, 4, false, 8 },	     { 1, 1, 5, false, 29 },
		{ 3, 3, 5, false, 11 },	     { 1, 1, 4, true, 3 },
		{ 3, 3, 5, true, 3 },	     { 0, 1, 4, false, -EINVAL },
		{ 1, 4, 4, false, -EINVAL }, { 1, 1, 3, false, -EINVAL },
		{ 1, 1, 6, false, -EINVAL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(nxsim_guest_walk_refs(cases[i].g, cases[i].h,
						       cases[i].root,
						       cases[i].pwc),
				 cases[i].refs);
}

static void test_costs_sourced(void **state)
{
	static const char *const rows[] = { "access",	  "stlb_hit",
					    "walk_ref",	  "fault",
					    "split",	  "zap",
					    "flush_send", "flush_recv" };
	struct nxsim_guest_costs c;
	size_t i;

	(void)state;
	nxsim_guest_costs_default(&c);
	assert_int_equal(c.walk_ref, 5);
	assert_int_equal(c.stlb_hit, 10);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		assert_non_null(nxsim_guest_cost_source(rows[i]));
	assert_null(nxsim_guest_cost_source("bogus"));
	assert_null(nxsim_guest_cost_source(NULL));
}

/*
 * The guest table answers the calls of the other two: _info(idx) lists
 * the rows in field order with the source _source() gives, _set(name)
 * writes that field only, and refuses an unknown name, changing nothing.
 */
static void test_guest_cost_info_set(void **state)
{
	struct nxsim_guest_costs def, c;
	const char *name, *source, *why;
	unsigned int i;
	uint32_t cycles;

	(void)state;
	nxsim_guest_costs_default(&def);
	for (i = 0; !nxsim_guest_cost_info(i, &name, &cycles, &source); i++) {
		assert_int_equal(cycles, ((uint32_t *)&def)[i]);
		assert_ptr_equal(source, nxsim_guest_cost_source(name));
		c = def;
		assert_rc(nxsim_guest_costs_set(&c, name, 777, &why), 0);
		assert_int_equal(((uint32_t *)&c)[i], 777);
		((uint32_t *)&c)[i] = cycles;
		assert_memory_equal(&c, &def, sizeof(c));
	}
	assert_int_equal(i, sizeof(def) / sizeof(uint32_t));
	assert_rc(nxsim_guest_cost_info(i, NULL, NULL, NULL), -ENOENT);
	c = def;
	assert_rc(nxsim_guest_costs_set(&c, "bogus", 1, &why), -ENOENT);
	assert_string_equal(why, "no such cost entry");
	assert_rc(nxsim_guest_costs_set(&c, NULL, 1, &why), -EINVAL);
	assert_rc(nxsim_guest_costs_set(NULL, "fault", 1, NULL), -EINVAL);
	assert_memory_equal(&c, &def, sizeof(c));
}

/*
 * Entry size per (guest level, host level) pair on data reads (the SPTE
 * is as huge as the host allows): min of the two; a second access in the
 * same entry hits, one a 4 KiB page further walks iff the entry is 4K.
 */
static void test_entry_size(void **state)
{
	int g, h;

	(void)state;
	for (h = 1; h <= 3; h++) {
		for (g = 1; g <= 3; g++) {
			struct nxsim_vcpu *v[1];
			struct nx_env e = tlb_env("6.6", 1, false, v);
			struct nxsim_vcpu_stats st;
			struct nxsim_access_info info;
			int want = MIN_LEVEL(g, h);

			printf("# guest %d host %d\n", g, h);
			nx_slot(e.vm, 1, BASE, GIB, HVA_BASE, h, 0);
			info = gacc(v[0], NXSIM_ACCESS_READ, BASE, g);
			assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
			assert_int_equal(info.level, h);
			st = vstats(v[0]);
			assert_int_equal(st.fills_4k, want == 1);
			assert_int_equal(st.fills_2m, want == 2);
			assert_int_equal(st.fills_1g, want == 3);
			assert_int_equal(st.walks, 1);
			assert_int_equal(st.walk_refs,
					 nxsim_guest_walk_refs(g, h, 4, false));
			assert_int_equal(st.walk_cycles, st.walk_refs * 5);
			info = gacc(v[0], NXSIM_ACCESS_READ, BASE + 4096, g);
			/* a walk; a fault only where the host is 4K */
			assert_int_equal(info.outcome,
					 h == 1 ? NXSIM_ACCESS_FAULT :
						  NXSIM_ACCESS_HIT);
			st = vstats(v[0]);
			assert_int_equal(st.walks, want == 1 ? 2 : 1);
			/* exec under the mitigation: always a 4K entry */
			info = gacc(v[0], NXSIM_ACCESS_EXEC, BASE + 8192, g);
			assert_int_equal(info.level, 1);
			st = vstats(v[0]);
			assert_int_equal(st.fills_4k, (want == 1) * 2 + 1);
			assert_int_equal(st.exec, 1);
			assert_int_equal(st.l1i_misses, 1);
			nx_env_destroy(&e);
		}
	}
}

/*
 * Rights: a read fills a dTLB entry that allows writes while the SPTE
 * does; dirty logging write-protects the huge SPTE (and flushes), so a
 * read refills an entry without write, and the write through it walks
 * and faults at 4K.  A fetch through the huge non-executable entry then
 * walks too and fills the iTLB at 4K.
 */
static void test_rights(void **state)
{
	struct nxsim_vcpu *v[1];
	struct nx_env e = tlb_env("6.6", 1, false, v);
	struct nxsim_access_info info;
	struct nxsim_vcpu_stats st;

	(void)state;
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, 2, 0);
	info = gacc(v[0], NXSIM_ACCESS_READ, BASE, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	info = gacc(v[0], NXSIM_ACCESS_WRITE, BASE, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(info.level, 2);
	st = vstats(v[0]);
	assert_int_equal(st.walks, 1);
	/* the huge SPTE stays huge, write-protected */
	assert_rc(nxsim_param_set(e.host, "eager_page_split", "0"), 0);
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, 2, NXSIM_MEM_LOG_DIRTY_PAGES);
	info = gacc(v[0], NXSIM_ACCESS_READ, BASE + 4096, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(info.level, 2);
	info = gacc(v[0], NXSIM_ACCESS_WRITE, BASE + 4096, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, 1);
	st = vstats(v[0]);
	assert_int_equal(st.walks, 3);
	assert_int_equal(st.perm_misses, 1);
	assert_int_equal(st.faults, 2);
	assert_int_equal(st.fills_2m, 2);
	assert_int_equal(st.fills_4k, 1);
	/*
	 * The fetch misses the iTLB, hits the huge entry without exec and
	 * walks; the write fault split the 2M SPTE in place, and the 4K
	 * children are executable, so the walk finds no fault to take.
	 */
	info = gacc(v[0], NXSIM_ACCESS_EXEC, BASE + 8192, 2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(info.level, 1);
	st = vstats(v[0]);
	assert_int_equal(st.walks, 4);
	assert_int_equal(st.perm_misses, 2);
	assert_int_equal(st.fills_4k, 2);
	nx_env_destroy(&e);
}

/* Expect each vCPU's request and flush counters. */
static void expect_flushes(struct nxsim_vcpu **v, unsigned int n,
			   uint64_t requests, uint64_t full, uint64_t range,
			   uint64_t roots)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct nxsim_vcpu_stats st;

		/* the requests are handled at the next access */
		assert_rc(nxsim_vcpu_access_guest(v[i], NXSIM_ACCESS_READ,
						  0x1000, 1, NULL),
			  0);
		st = vstats(v[i]);
		assert_int_equal(st.flush_requests, requests);
		assert_int_equal(st.tlb_flush, full);
		assert_int_equal(st.tlb_flush_range, range);
		assert_int_equal(st.root_reloads, roots);
	}
}

/* Whether @gpa is cached on @v: an access that does not walk. */
static bool cached(struct nxsim_vcpu *v, uint64_t gpa)
{
	uint64_t walks = vstats(v).walks;

	gacc(v, NXSIM_ACCESS_READ, gpa, 1);
	return vstats(v).walks == walks;
}

/* The exec fault into a huge page: 6.1 zaps and flushes, 6.6 splits. */
static void test_flush_exec_fault(void **state)
{
	unsigned int p, r;

	(void)state;
	for (p = 0; p < 2; p++) {
		for (r = 0; r < 2; r++) {
			struct nxsim_vcpu *v[3];
			struct nx_env e = tlb_env(p ? "6.6" : "6.1", 3, r, v);
			struct nxsim_access_info info;

			printf("# %s range_flush %u\n", p ? "6.6" : "6.1", r);
			nx_slot(e.vm, 1, BASE, 2 * MIB2, HVA_BASE, 2, 0);
			nx_slot(e.vm, 0, 0, MIB2, HVA_BASE + GIB, 1, 0);
			gacc(v[1], NXSIM_ACCESS_READ, BASE, 1);
			gacc(v[1], NXSIM_ACCESS_READ, BASE + MIB2, 1);
			info = gacc(v[0], NXSIM_ACCESS_EXEC, BASE + 4096, 1);
			assert_int_equal(info.zapped_huge, p ? 0 : 1);
			assert_int_equal(info.splits, p ? 1 : 0);
			if (p) {
				/* no flush: vCPU 1 keeps both huge entries */
				expect_flushes(v, 3, 0, 0, 0, 0);
				assert_true(cached(v[1], BASE));
			} else {
				expect_flushes(v, 3, 1, !r, r, 0);
				/* the range was the zapped huge page only */
				assert_true(cached(v[1], BASE + MIB2) == r);
				assert_false(cached(v[1], BASE + 8192));
			}
			nx_env_destroy(&e);
		}
	}
}

/* A recovery pass that zapped: one full flush on every vCPU. */
static void test_flush_recovery(void **state)
{
	struct nxsim_vcpu *v[2];
	struct nx_env e = tlb_env("6.6", 2, true, v);
	struct nxsim_mmu_counters c;

	(void)state;
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, 2, 0);
	nx_slot(e.vm, 0, 0, MIB2, HVA_BASE + GIB, 1, 0);
	gacc(v[0], NXSIM_ACCESS_EXEC, BASE, 1);
	expect_flushes(v, 2, 0, 0, 0, 0);
	nxsim_clock_advance(nxsim_host_clock(e.host), PERIOD_NS);
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
	assert_int_equal(c.recovery_zapped, 1);
	assert_int_equal(c.tlb_flushes, 1);
	expect_flushes(v, 2, 1, 1, 0, 0);
	/* a pass with nothing to zap flushes nothing */
	nxsim_clock_advance(nxsim_host_clock(e.host), PERIOD_NS);
	expect_flushes(v, 2, 1, 1, 0, 0);
	nx_env_destroy(&e);
}

/* nx_huge_pages flips and memslot deletion: a root reload everywhere. */
static void test_flush_zap_all_fast(void **state)
{
	struct nxsim_vcpu *v[2];
	struct nx_env e = tlb_env("6.6", 2, false, v);
	struct nxsim_memory_region del = { .slot = 1 };

	(void)state;
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, 2, 0);
	nx_slot(e.vm, 0, 0, MIB2, HVA_BASE + GIB, 1, 0);
	gacc(v[1], NXSIM_ACCESS_READ, BASE, 1);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	expect_flushes(v, 2, 1, 0, 0, 1);
	assert_false(cached(v[1], BASE));
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	expect_flushes(v, 2, 1, 0, 0, 1); /* no change: no zap */
	assert_rc(nxsim_vm_set_memory_region(e.vm, &del), 0);
	expect_flushes(v, 2, 2, 0, 0, 2);
	nx_env_destroy(&e);
}

/*
 * Dirty logging: on flushes the slot (ranged); off zaps collapsible
 * tables with a ranged flush each before 6.13, and rebuilds them in place
 * with one slot flush from 6.13.
 */
static void test_flush_dirty_log(void **state)
{
	unsigned int p;

	(void)state;
	for (p = 0; p < ARRAY_SIZE(profiles_all); p++) {
		struct nxsim_vcpu *v[2];
		struct nx_env e = tlb_env(profiles_all[p], 2, true, v);
		uint64_t after_on;

		printf("# %s\n", profiles_all[p]);
		nx_slot(e.vm, 1, BASE, 2 * MIB2, HVA_BASE, 2, 0);
		nx_slot(e.vm, 2, BASE + GIB, MIB2, HVA_BASE + GIB, 2, 0);
		nx_slot(e.vm, 0, 0, MIB2, HVA_BASE + 2 * GIB, 1, 0);
		gacc(v[1], NXSIM_ACCESS_READ, BASE + GIB, 1);
		nx_slot(e.vm, 1, BASE, 2 * MIB2, HVA_BASE, 2,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		expect_flushes(v, 2, 1, 0, 1, 0);
		/* the other slot's entry survived the ranged flush */
		assert_true(cached(v[1], BASE + GIB));
		/* two 4K leaves, in two 2M regions */
		gacc(v[0], NXSIM_ACCESS_WRITE, BASE, 1);
		gacc(v[0], NXSIM_ACCESS_WRITE, BASE + MIB2, 1);
		after_on = 1;
		nx_slot(e.vm, 1, BASE, 2 * MIB2, HVA_BASE, 2, 0);
		if (p < 2)
			expect_flushes(v, 2, after_on + 2, 0, 2, 0);
		else
			expect_flushes(v, 2, after_on + 1, 0, 2, 0);
		nx_env_destroy(&e);
	}
}

/*
 * Host mapping changes: the MMU notifier flushes everything when it
 * zapped something, nothing otherwise; the refault that replaces the
 * table left behind with a huge SPTE flushes the table's span.
 */
static void test_flush_host_change(void **state)
{
	struct nxsim_vcpu *v[2];
	struct nx_env e = tlb_env("6.6", 2, true, v);

	(void)state;
	nx_slot(e.vm, 1, BASE, 2 * MIB2, HVA_BASE, 1, 0);
	nx_slot(e.vm, 0, 0, MIB2, HVA_BASE + GIB, 1, 0);
	/* nothing mapped in the second 2M: nothing zapped, no flush */
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, MIB2, MIB2, 2), 0);
	expect_flushes(v, 2, 0, 0, 0, 0);
	gacc(v[1], NXSIM_ACCESS_READ, BASE, 1);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, 2), 0);
	expect_flushes(v, 2, 1, 1, 0, 0);
	/* the 4K table is still linked: the 2M fault replaces it */
	gacc(v[0], NXSIM_ACCESS_READ, BASE, 2);
	expect_flushes(v, 2, 2, 1, 1, 0);
	nx_env_destroy(&e);
}

/* Bad arguments, and the config only before the first vCPU. */
static void test_bad_args(void **state)
{
	struct nxsim_vcpu_tlb_config cfg;
	struct nxsim_host *host = test_host("6.6", true, NULL, 0);
	struct nxsim_vcpu_stats st;
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;

	(void)state;
	nxsim_vcpu_tlb_config_default(&cfg);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, NULL), -EINVAL);
	cfg.tlb.level[NXSIM_TLB_L2].sets = 3;
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, &cfg), -EINVAL);
	nxsim_vcpu_tlb_config_default(&cfg);
	cfg.tlb.replacement = "bogus";
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, &cfg), -ENOENT);
	cfg.tlb.replacement = "random";
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, &cfg), 0);
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, &cfg), -EBUSY);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vcpu_access_guest(vcpu, NXSIM_ACCESS_READ, 0, 0, NULL),
		  -EINVAL);
	assert_rc(nxsim_vcpu_access_guest(vcpu, NXSIM_ACCESS_READ, 0, 4, NULL),
		  -EINVAL);
	assert_rc(nxsim_vcpu_access_guest(vcpu, 3, 0, 1, NULL), -EINVAL);
	assert_rc(nxsim_vcpu_access_batch(NULL, NULL, 0), -EINVAL);
	assert_rc(nxsim_vcpu_access_batch(vcpu, NULL, 1), -EINVAL);
	assert_rc(nxsim_vcpu_access_batch(vcpu, NULL, 0), 0);
	assert_rc(nxsim_vcpu_access_batch(vcpu,
					  &(struct nxsim_guest_access){
						  .gpa = 0, .guest_level = 9 },
					  1),
		  -EINVAL);
	assert_rc(nxsim_vcpu_stats(vcpu, NULL), -EINVAL);
	assert_rc(nxsim_vcpu_stats(vcpu, &st), 0);
	assert_int_equal(st.accesses, 0);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vcpu_stats(vcpu, &st), -ENODEV);
	assert_rc(nxsim_vm_set_vcpu_tlb(vm, &cfg), -EBUSY);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* Every allocation of the new paths fails once: state intact, no leak. */
static void test_alloc_failure_walk(void **state)
{
	unsigned long nth;
	bool done = false;

	(void)state;
	for (nth = 1; !done; nth++) {
		struct nxsim_host *host = test_host("6.6", true, NULL, 0);
		struct nxsim_vcpu_tlb_config cfg;
		struct nxsim_vcpu *vcpu = NULL;
		struct nxsim_vm *vm;
		int rc;

		nxsim_vcpu_tlb_config_default(&cfg);
		assert_rc(nxsim_vm_create(host, &vm), 0);
		nxsim_alloc_fail_nth(nth);
		rc = nxsim_vm_set_vcpu_tlb(vm, &cfg);
		if (!rc)
			rc = nxsim_vcpu_create(vm, 0, &vcpu);
		/* every allocation of the paths has failed once */
		done = !rc && nxsim_alloc_fail_pending();
		nxsim_alloc_fail_nth(0);
		if (rc) {
			assert_int_equal(rc, -ENOMEM);
			assert_null(vcpu);
		}
		/* whatever failed, the calls work now */
		rc = nxsim_vm_set_vcpu_tlb(vm, &cfg);
		assert_true(rc == 0 || rc == -EBUSY);
		if (!vcpu)
			assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
		assert_rc(nxsim_vcpu_access(vcpu, NXSIM_ACCESS_READ, 0, NULL),
			  0);
		assert_int_equal(vstats(vcpu).accesses, 1);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}
	assert_true(nth > 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_refs),
		cmocka_unit_test(test_costs_sourced),
		cmocka_unit_test(test_guest_cost_info_set),
		cmocka_unit_test(test_entry_size),
		cmocka_unit_test(test_rights),
		cmocka_unit_test(test_flush_exec_fault),
		cmocka_unit_test(test_flush_recovery),
		cmocka_unit_test(test_flush_zap_all_fast),
		cmocka_unit_test(test_flush_dirty_log),
		cmocka_unit_test(test_flush_host_change),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_alloc_failure_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
