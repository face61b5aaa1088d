/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the MMU integration tests (test_nx_*.c): a host with one
 * VM and one vCPU, slots, accesses that must succeed, stats, and the
 * invariant checker run after every step.
 */
#ifndef NXSIM_TEST_NX_TEST_H
#define NXSIM_TEST_NX_TEST_H

#include <stdio.h>
#include <string.h>

#include "common/nx_env.h"
#include "common/test_util.h"

#define GIB (1ull << 30)
#define MIB2 (2ull << 20)
#define HVA_BASE 0x7f0000000000ull /* 1 GiB aligned */

static inline void nx_print_violation(void *ctx, const char *text)
{
	(void)ctx;
	printf("# violation: %s\n", text);
}

/* The invariant checker finds nothing (each violation is printed). */
static inline void nx_check_ok(struct nxsim_vm *vm)
{
	assert_rc(nxsim_vm_check(vm, nx_print_violation, NULL), 0);
}

/* A host made from @cfg, one VM + vCPU. */
static inline struct nx_env nx_env_config(const struct nxsim_host_config *cfg)
{
	struct nx_env_spec spec = { .host = cfg };
	struct nx_env e;

	assert_rc(nx_env_open(&e, &spec), 0);
	return e;
}

/* A host of @profile with the mitigation on, ratio 1, one VM + vCPU. */
static inline struct nx_env nx_env(const char *profile, uint64_t bugs)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = profile,
		.bugs = bugs,
	};
	struct nx_env_spec spec = { .host = &cfg, .ratio = "1" };
	struct nx_env e;

	assert_rc(nx_env_open(&e, &spec), 0);
	return e;
}

static inline void nx_env_destroy(struct nx_env *e)
{
	nx_check_ok(e->vm);
	assert_rc(nx_env_close(e), 0);
}

static inline void nx_slot(struct nxsim_vm *vm, uint32_t id, uint64_t gpa,
			   uint64_t size, uint64_t hva, int host_level,
			   uint32_t flags)
{
	struct nxsim_memory_region mr = {
		.slot = id,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = hva,
		.host_level = host_level,
	};

	assert_rc(nxsim_vm_set_memory_region(vm, &mr), 0);
}

static inline struct nxsim_access_info
nx_access(struct nxsim_vcpu *vcpu, enum nxsim_access_kind kind, uint64_t gpa)
{
	struct nxsim_access_info info;

	assert_rc(nxsim_vcpu_access(vcpu, kind, gpa, &info), 0);
	return info;
}

static inline uint64_t nx_stat(struct nxsim_vm *vm, const char *name)
{
	uint64_t v = 0;

	assert_rc(nxsim_vm_stat_get(vm, name, &v), 0);
	return v;
}

/*
 * pages_4k, pages_2m, pages_1g, nx_lpage_splits, by name and in one
 * snapshot, then the checker.
 */
static inline void nx_expect(struct nxsim_vm *vm, uint64_t p4k, uint64_t p2m,
			     uint64_t p1g, uint64_t splits)
{
	struct nxsim_vm_stats st;

	assert_int_equal(nx_stat(vm, "pages_4k"), p4k);
	assert_int_equal(nx_stat(vm, "pages_2m"), p2m);
	assert_int_equal(nx_stat(vm, "pages_1g"), p1g);
	assert_int_equal(nx_stat(vm, "nx_lpage_splits"), splits);
	assert_rc(nxsim_vm_stats(vm, &st), 0);
	assert_int_equal(st.pages_4k, p4k);
	assert_int_equal(st.pages_2m, p2m);
	assert_int_equal(st.pages_1g, p1g);
	assert_int_equal(st.nx_lpage_splits, splits);
	nx_check_ok(vm);
}

struct nx_found {
	const char *what;
	int hits;
};

static inline void nx_find_text(void *ctx, const char *text)
{
	struct nx_found *f = ctx;

	printf("# violation: %s\n", text);
	if (strstr(text, f->what))
		f->hits++;
}

/* Run the checker: how many violations mention @what. */
static inline int nx_caught(struct nxsim_vm *vm, const char *what)
{
	struct nx_found f = { .what = what };

	assert_true(nxsim_vm_check(vm, nx_find_text, &f) >= f.hits);
	return f.hits;
}

#endif /* NXSIM_TEST_NX_TEST_H */
