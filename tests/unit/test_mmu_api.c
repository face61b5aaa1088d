// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMU's public API on bad input: access kinds out of range, a gpa
 * beyond MAXPHYADDR, unknown stat names, NULL arguments, profiles and
 * hosts without the TDP MMU, and every call on a destroyed VM (-EBADF),
 * each leaving the state unchanged.  Also the dump's text and its buffer
 * form, and the size of an idle VM's MMU state.
 */
#include <string.h>

#include "../integration/nx_test.h"

static void test_bad_access(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info = { .level = 77 };

	(void)state;
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, 2, 0);
	assert_rc(nxsim_vcpu_access(e.vcpu, 3, 0, &info), -EINVAL);
	assert_rc(nxsim_vcpu_access(e.vcpu, -1, 0, &info), -EINVAL);
	assert_rc(nxsim_vcpu_access(NULL, NXSIM_ACCESS_READ, 0, &info),
		  -EINVAL);
	/* MAXPHYADDR 46 by default */
	assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_READ, 1ull << 46,
				    &info),
		  -ERANGE);
	assert_int_equal(info.level, 77);
	nx_expect(e.vm, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 0);
	/* the last byte below it is fine (MMIO: no slot) */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, (1ull << 46) - 1);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	nx_env_destroy(&e);
}

static void test_bad_stats(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_vm_stats st = { .pages_4k = 42 };
	uint64_t v = 42;
	unsigned int i;

	(void)state;
	assert_rc(nxsim_vm_stat_get(e.vm, "pages_512g", &v), -ENOENT);
	assert_rc(nxsim_vm_stat_get(e.vm, "Pages_4k", &v), -ENOENT);
	assert_rc(nxsim_vm_stat_get(e.vm, "", &v), -ENOENT);
	assert_rc(nxsim_vm_stat_get(e.vm, NULL, &v), -EINVAL);
	assert_rc(nxsim_vm_stat_get(e.vm, "pages_4k", NULL), -EINVAL);
	assert_rc(nxsim_vm_stat_get(NULL, "pages_4k", &v), -EINVAL);
	assert_int_equal(v, 42);
	for (i = 0; nxsim_vm_stat_name(i); i++)
		assert_rc(nxsim_vm_stat_get(e.vm, nxsim_vm_stat_name(i), &v),
			  0);
	assert_int_equal(i, 4);
	assert_rc(nxsim_vm_stats(e.vm, NULL), -EINVAL);
	assert_rc(nxsim_vm_stats(NULL, &st), -EINVAL);
	assert_int_equal(st.pages_4k, 42);
	assert_rc(nxsim_vm_mmu_counters(e.vm, NULL), -EINVAL);
	assert_rc(nxsim_vm_dump(e.vm, NULL, NULL), -EINVAL);
	assert_rc(nxsim_vm_dump_buf(e.vm, NULL, 5), -EINVAL);
	nx_env_destroy(&e);
}

/*
 * Without the TDP MMU (5.4 and 5.10 by default, kvm.tdp_mmu=0 anywhere)
 * the shadow MMU's direct map handles the access; without EPT/NPT a vCPU
 * with paging off (its state at reset) goes through the nonpaging MMU,
 * which maps at most 2M.
 */
static void test_no_tdp_mmu(void **state)
{
	static const struct {
		const char *profile;
		struct nxsim_cpu cpu;
	} cases[] = {
		{ "5.4", { .itlb_multihit = true } },
		{ "5.4", { .itlb_multihit = true, .tdp_mmu = true } },
		{ "5.10", { .itlb_multihit = true } },
		{ "5.10", { .itlb_multihit = true, .tdp_mmu = true } },
		{ NULL, { .itlb_multihit = true, .no_tdp_mmu = true } },
		{ NULL, { .itlb_multihit = true, .no_tdp = true } },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu = cases[i].cpu,
			.profile = cases[i].profile,
		};
		struct nx_env e;

		assert_rc(nxsim_host_create(&cfg, &e.host), 0);
		assert_rc(nxsim_vm_create(e.host, &e.vm), 0);
		assert_rc(nxsim_vcpu_create(e.vm, 0, &e.vcpu), 0);
		nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, 2, 0);
		assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_READ, 0, NULL),
			  0);
		nx_expect(e.vm, 0, 1, 0, 0);
		nx_env_destroy(&e);
	}
}

static void noop_text(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static void test_destroyed_vm(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_memory_region mr = {
		.slot = 2,
		.guest_phys_addr = GIB,
		.memory_size = MIB2,
		.userspace_addr = HVA_BASE + GIB,
	};
	struct nxsim_mmu_counters c;
	struct nxsim_vm_stats st;
	char buf[64];
	uint64_t v;

	(void)state;
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, 2, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 0);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_READ, 0, NULL),
		  -EBADF);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), -EBADF);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, 1), -EBADF);
	assert_rc(nxsim_vm_stat_get(e.vm, "pages_4k", &v), -EBADF);
	assert_rc(nxsim_vm_stat_get(e.vm, "no_such_stat", &v), -EBADF);
	assert_rc(nxsim_vm_stats(e.vm, &st), -EBADF);
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), -EBADF);
	assert_rc(nxsim_vm_nr_mmu_pages(e.vm), -EBADF);
	assert_rc(nxsim_vm_check(e.vm, NULL, NULL), -EBADF);
	assert_rc(nxsim_vm_dump(e.vm, noop_text, NULL), -EBADF);
	assert_rc(nxsim_vm_dump_buf(e.vm, buf, sizeof(buf)), -EBADF);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

static void test_dump(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	char small[32], *big;
	long len;

	(void)state;
	nx_slot(e.vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + 5 * MIB2 + 3 * 4096);
	len = nxsim_vm_dump_buf(e.vm, small, sizeof(small));
	assert_true(len > (long)sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	big = test_malloc(len + 1);
	assert_int_equal(nxsim_vm_dump_buf(e.vm, big, len + 1), len);
	printf("%s", big);
	assert_non_null(strstr(big, "EPT, 4-level roots, pages_4k 512 "
				    "pages_2m 511 pages_1g 0 "
				    "nx_lpage_splits 2\n"));
	assert_non_null(strstr(big, "  root L4 gfn 0x0-0xfffffffff"));
	assert_non_null(strstr(big, "table L2 gfn 0x40000-0x7ffff frame "
				    "0x1000000005 nx_huge_page_disallowed "
				    "tracked\n"));
	assert_non_null(strstr(big, "[0-4] 5 x 2M leaf gfn 0x40000-0x409ff "
				    "pfn 0x7f0000000 0x86007f0000000bf3 R W "
				    "NX A D PS HW MW\n"));
	assert_non_null(strstr(big, "[0-511] 512 x 4K leaf gfn 0x40a00-"
				    "0x40bff pfn 0x7f0000a00 "
				    "0x86007f0000a00b77 R W X A D HW MW\n"));
	assert_non_null(strstr(big, "[6-511] 506 x 2M leaf"));
	assert_non_null(strstr(big, "\n  slot 1 gfn 0x40000-0x7ffff hva "
				    "0x7f0000000000\n"));
	/* the PD was tracked first (it replaced the possible 1G) */
	assert_non_null(strstr(big, "possible_nx_huge_pages[tdp], nr_pages 2, "
				    "oldest first:\n    L2 gfn 0x40000 frame "
				    "0x1000000005\n    L1 gfn 0x40a00 frame "
				    "0x1000000002\n"));
	test_free(big);
	nx_env_destroy(&e);
}

static void test_idle_vm_memory(void **state)
{
	struct nxsim_host *host = test_host(NULL, true, NULL, 0);
	struct nxsim_alloc_stats before, after;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;

	(void)state;
	nxsim_alloc_stats(&before);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	nxsim_alloc_stats(&after);
	printf("# idle VM: %llu bytes\n",
	       (unsigned long long)(after.live_bytes - before.live_bytes));
	assert_true(after.live_bytes - before.live_bytes <= 64 * 1024);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

struct create_walk {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
};

static int op_create(void *ctx)
{
	struct create_walk *w = ctx;

	return nxsim_vm_create(w->host, &w->vm);
}

static void undo_create(void *ctx)
{
	struct create_walk *w = ctx;

	assert_rc(nxsim_vm_destroy(w->vm), 0);
}

static void test_create_alloc_failures(void **state)
{
	struct create_walk w = { .host = test_host(NULL, true, NULL, 0) };

	(void)state;
	/* the VM, then its MMU state (kvm_mmu_init_vm()) */
	assert_true(test_alloc_failures(op_create, undo_create, NULL, &w) >= 2);
	assert_rc(nxsim_host_destroy(w.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_access),
		cmocka_unit_test(test_bad_stats),
		cmocka_unit_test(test_no_tdp_mmu),
		cmocka_unit_test(test_destroyed_vm),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_idle_vm_memory),
		cmocka_unit_test(test_create_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
