// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test helpers; see test_util.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/test_util.h"

struct nxsim_host *test_host(const char *profile, bool itlb_multihit,
			     const char *cmdline, uint64_t bugs)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = itlb_multihit,
		.profile = profile,
		.cmdline = cmdline,
		.bugs = bugs,
	};
	struct nxsim_host *host = NULL;

	assert_rc(nxsim_host_create(&cfg, &host), 0);
	return host;
}

const char *test_param(struct nxsim_host *host, const char *name)
{
	static char buf[64];

	if (nxsim_param_get(host, name, buf, sizeof(buf)) < 0)
		fail_msg("cannot read %s", name);
	return buf;
}

uint64_t test_seed(void)
{
	const char *env = getenv("NXSIM_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 20191112;

	printf("# seed %llu (set NXSIM_TEST_SEED to repeat)\n",
	       (unsigned long long)seed);
	return seed;
}

int test_vm_nx_enabled(struct nxsim_vm *vm)
{
	bool enabled;
	int rc = nxsim_vm_nx_huge_pages_enabled(vm, &enabled);

	return rc ? rc : enabled;
}

uint64_t test_live_allocs(void)
{
	struct nxsim_alloc_stats st;

	nxsim_alloc_stats(&st);
	return st.live;
}

unsigned int test_alloc_failures(int (*op)(void *ctx), void (*undo)(void *ctx),
				 void (*same)(void *ctx), void *ctx)
{
	unsigned int n;

	for (n = 1;; n++) {
		uint64_t live = test_live_allocs();
		int rc;

		nxsim_alloc_fail_nth(n);
		rc = op(ctx);
		if (rc == 0) {
			bool covered = nxsim_alloc_fail_pending();

			nxsim_alloc_fail_nth(0);
			if (undo)
				undo(ctx);
			if (!covered)
				fail_msg("allocation %u failed but the "
					 "operation succeeded",
					 n);
			return n - 1;
		}
		nxsim_alloc_fail_nth(0);
		if (rc != -ENOMEM)
			fail_msg("allocation %u failed: got %s, not -ENOMEM", n,
				 nxsim_strerror(rc));
		if (test_live_allocs() != live)
			fail_msg(
				"allocation %u failed: %lld allocations leaked",
				n, (long long)(test_live_allocs() - live));
		if (same)
			same(ctx);
	}
}
