// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/testing/selftests/kvm/x86/nx_huge_pages_test.c on the legacy
 * direct MMU (TDP hardware, TDP MMU off: kvm.tdp_mmu=0, 5.10 by
 * default, and 5.4, which has no TDP MMU), step by step on the virtual
 * clock: pages_4k, pages_2m, nx_lpage_splits, the remote TLB flushes and
 * the checker after every step.  The twin on the TDP MMU is
 * test_nx_huge_pages_selftest.c.
 *
 * direct_map() handles the exec fault over a huge SPTE by zapping it in
 * link_shadow_page() (one flush) and mapping the 4K page, then
 * direct_pte_prefetch() maps the free entries of the aligned block of
 * PTE_PREFETCH_NUM (8) around it: the selftest's accesses are at the
 * start of each huge page, so pages_4k grows by 8, where the TDP MMU's
 * in-place split gives 512 and 6.1's TDP zap 1.  Recovery (ratio 1)
 * prepares both tracked pages and commits them with one flush.
 *
 * 5.4 and 5.10 have no recovery period parameter (the worker runs every
 * 60 s) and no KVM_CAP_VM_DISABLE_NX_HUGE_PAGES: only the mitigation-on
 * run.  5.4 (no TDP MMU at all) gives the same steps as 5.10: the
 * mitigation (b8e8c8303ff2) and its recovery thread (1aa9b9572b10) came
 * with __direct_map()'s disallowed_hugepage_adjust() and prefetch as
 * they are on the legacy MMU later.
 */
#include "nx_test.h"

#define HPAGE_SLOT 10
#define HPAGE_GPA (4ull << 30)
#define HPAGE_SLOT_NPAGES (3 * 512)
#define HPAGE_SIZE (2ull << 20)

enum step_kind { READ, EXEC, SLEEP };

struct step {
	enum step_kind kind;
	int hp; /* 1, 2 or 3 */
};

static const struct step steps[] = {
	{ READ, 1 }, { READ, 2 },  { EXEC, 1 }, { EXEC, 3 },
	{ READ, 1 }, { SLEEP, 0 }, { READ, 3 },
};

struct expect {
	uint64_t pages_2m, splits, pages_4k, flushes;
};

#define NR_EXPECT (1 + ARRAY_SIZE(steps))

/* Mitigation on: zap the huge SPTE, map 4K, prefetch 7 more. */
static const struct expect legacy[NR_EXPECT] = {
	{ 0, 0, 0, 0 },	 { 1, 0, 0, 0 },  { 2, 0, 0, 0 }, { 1, 1, 8, 1 },
	{ 1, 2, 16, 1 }, { 1, 2, 16, 1 }, { 1, 0, 0, 2 }, { 2, 0, 0, 2 },
};

/* The per-VM opt-out: nothing is ever split, nothing flushed. */
static const struct expect opted_out[NR_EXPECT] = {
	{ 0, 0, 0, 0 }, { 1, 0, 0, 0 }, { 2, 0, 0, 0 }, { 2, 0, 0, 0 },
	{ 3, 0, 0, 0 }, { 3, 0, 0, 0 }, { 3, 0, 0, 0 }, { 3, 0, 0, 0 },
};

struct scase {
	const char *profile;
	bool no_tdp_mmu;
	bool disable_nx;
	uint64_t sleep_ms;
	const struct expect *e;
};

static const struct scase cases[] = {
	{ "5.4", false, false, 60000, legacy },
	{ "5.10", false, false, 60000, legacy },
	{ "5.10", true, false, 60000, legacy },
	{ "6.1", true, false, 500, legacy },
	{ "6.1", true, true, 500, opted_out },
	{ "6.18", true, false, 500, legacy },
};

static void check_step(struct nxsim_vm *vm, const struct scase *c, int i)
{
	struct nxsim_mmu_counters n;

	printf("# %s no_tdp_mmu=%d disable_nx=%d step %d\n", c->profile,
	       c->no_tdp_mmu, c->disable_nx, i);
	nx_expect(vm, c->e[i].pages_4k, c->e[i].pages_2m, 0, c->e[i].splits);
	assert_rc(nxsim_vm_mmu_counters(vm, &n), 0);
	assert_int_equal(n.tlb_flushes, c->e[i].flushes);
}

static void run_case(const struct scase *c)
{
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .no_tdp_mmu = c->no_tdp_mmu },
		.profile = c->profile,
	};
	struct nxsim_memory_region mr = {
		.slot = HPAGE_SLOT,
		.guest_phys_addr = HPAGE_GPA,
		.memory_size = HPAGE_SLOT_NPAGES * 4096ull,
		.userspace_addr = HVA_BASE,
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	struct nxsim_access_info info;
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;
	unsigned int i;

	assert_rc(nxsim_host_create(&cfg, &host), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "1"), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	if (c->sleep_ms < 60000)
		assert_rc(nxsim_param_set(host,
					  "nx_huge_pages_recovery_period_ms",
					  "100"),
			  0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	if (c->disable_nx)
		assert_rc(nxsim_vm_enable_cap(
				  vm, NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES, 0,
				  NULL, true),
			  0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vm_set_memory_region(vm, &mr), 0);
	check_step(vm, c, 0);

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct step *s = &steps[i];
		uint64_t gpa = HPAGE_GPA + (s->hp - 1) * HPAGE_SIZE;

		if (s->kind == SLEEP) {
			nxsim_clock_advance(nxsim_host_clock(host),
					    c->sleep_ms * 1000000ull);
			check_step(vm, c, i + 1);
			continue;
		}
		assert_rc(nxsim_vcpu_run(vcpu), 0);
		info = nx_access(vcpu,
				 s->kind == EXEC ? NXSIM_ACCESS_EXEC :
						   NXSIM_ACCESS_READ,
				 gpa);
		/* The exec fault over hp1's huge SPTE zaps it. */
		assert_int_equal(info.zapped_huge,
				 c->e == legacy && i == 2 ? 1 : 0);
		assert_int_equal(info.splits, 0);
		check_step(vm, c, i + 1);
	}
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

static void test_legacy_selftest(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_selftest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
