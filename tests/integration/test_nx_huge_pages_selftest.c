// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/testing/selftests/kvm/x86/nx_huge_pages_test.c (and its wrapper
 * script), step by step on the virtual clock.
 * Each step runs the vCPU, makes the guest's access, and checks
 * pages_2m, nx_lpage_splits and pages_4k, and the invariant checker.
 * Run for the newest profile (in-place split: +512 4K pages) and for 6.1
 * (the huge SPTE is zapped: +1), with the mitigation on and with the
 * per-VM opt-out, with and without CAP_SYS_BOOT.
 */
#include "nx_test.h"

#define HPAGE_SLOT 10
#define HPAGE_GPA (4ull << 30)
#define HPAGE_SLOT_NPAGES (3 * 512)
#define HPAGE_SIZE (2ull << 20)
#define PERIOD_MS 100

enum step_kind { READ, EXEC, SLEEP };

struct step {
	enum step_kind kind;
	int hp; /* 1, 2 or 3 */
};

/* The guest's sequence; the expected stats are per case. */
static const struct step steps[] = {
	{ READ, 1 }, { READ, 2 },  { EXEC, 1 }, { EXEC, 3 },
	{ READ, 1 }, { SLEEP, 0 }, { READ, 3 },
};

struct expect {
	uint64_t pages_2m, splits, pages_4k;
};

/* [0] before the first run, then one per step */
#define NR_EXPECT (1 + ARRAY_SIZE(steps))

/* Mitigation on, newest profile: the exec fault splits in place. */
static const struct expect split_in_place[NR_EXPECT] = {
	{ 0, 0, 0 },   { 1, 0, 0 },   { 2, 0, 0 }, { 1, 1, 512 },
	{ 1, 2, 513 }, { 1, 2, 513 }, { 1, 0, 0 }, { 2, 0, 0 },
};

/* Mitigation on, 6.1: the exec fault zaps the huge SPTE. */
static const struct expect zap[NR_EXPECT] = {
	{ 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 1, 1, 1 },
	{ 1, 2, 2 }, { 1, 2, 2 }, { 1, 0, 0 }, { 2, 0, 0 },
};

/* The per-VM opt-out, on any profile: nothing is ever split. */
static const struct expect opted_out[NR_EXPECT] = {
	{ 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 2, 0, 0 },
	{ 3, 0, 0 }, { 3, 0, 0 }, { 3, 0, 0 }, { 3, 0, 0 },
};

struct scase {
	const char *profile;
	bool disable_nx;
	bool reboot;
	const struct expect *e; /* NULL: the opt-out fails, no step runs */
};

static const struct scase cases[] = {
	{ "6.18", false, true, split_in_place },
	{ "6.18", true, true, opted_out },
	{ "6.18", true, false, NULL },
	{ "6.1", false, true, zap },
	{ "6.1", true, true, opted_out },
	{ "6.1", true, false, NULL },
};

static void check_step(struct nxsim_vm *vm, const struct scase *c, int i)
{
	printf("# %s disable_nx=%d step %d\n", c->profile, c->disable_nx, i);
	nx_expect(vm, c->e[i].pages_4k, c->e[i].pages_2m, 0, c->e[i].splits);
}

static void run_case(const struct scase *c)
{
	struct nxsim_host *host = test_host(c->profile, true, NULL, 0);
	struct nxsim_clock *clock = nxsim_host_clock(host);
	struct nxsim_memory_region mr = {
		.slot = HPAGE_SLOT,
		.guest_phys_addr = HPAGE_GPA,
		.memory_size = HPAGE_SLOT_NPAGES * 4096ull,
		.userspace_addr = HVA_BASE, /* hugetlb, 2M aligned */
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;
	unsigned int i;

	/* nx_huge_pages_test.sh */
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "1"), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);

	assert_rc(nxsim_vm_create(host, &vm), 0);
	if (c->disable_nx) {
		int rc = nxsim_vm_enable_cap(vm,
					     NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES,
					     0, NULL, c->reboot);

		if (!c->reboot) {
			assert_rc(rc, -EPERM);
			assert_rc(test_vm_nx_enabled(vm), 1);
			goto out;
		}
		assert_rc(rc, 0);
	}
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vm_set_memory_region(vm, &mr), 0);
	check_step(vm, c, 0);

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct step *s = &steps[i];
		uint64_t gpa = HPAGE_GPA + (s->hp - 1) * HPAGE_SIZE;

		if (s->kind == SLEEP) {
			nxsim_clock_advance(clock, 5 * PERIOD_MS * 1000000ull);
		} else {
			assert_rc(nxsim_vcpu_run(vcpu), 0);
			assert_rc(nxsim_vcpu_access(vcpu,
						    s->kind == EXEC ?
							    NXSIM_ACCESS_EXEC :
							    NXSIM_ACCESS_READ,
						    gpa, NULL),
				  0);
		}
		check_step(vm, c, i + 1);
	}
out:
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

static void test_selftest(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selftest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
