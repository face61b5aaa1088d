/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the cmocka tests: cmocka's includes in the order it
 * needs, errno-aware assertions, host set-up, a seed, and the allocation
 * failure walk that every operation's -ENOMEM paths go through.
 */
#ifndef NXSIM_TEST_UTIL_H
#define NXSIM_TEST_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cmocka.h>

#include <nxsim/nxsim.h>

#include "core/compiler.h"

/* Compare return codes and print both by name when they differ. */
#define assert_rc(expr, expected)                                              \
	do {                                                                   \
		long __rc = (long)(expr);                                      \
		long __ex = (long)(expected);                                  \
		if (__rc != __ex)                                              \
			fail_msg("%s returned %ld (%s), expected %ld (%s)",    \
				 #expr, __rc, nxsim_strerror((int)__rc), __ex, \
				 nxsim_strerror((int)__ex));                   \
	} while (0)

/* A host on a private virtual clock; fails the test if creation fails. */
struct nxsim_host *test_host(const char *profile, bool itlb_multihit,
			     const char *cmdline, uint64_t bugs);

/* The value of a parameter as sysfs shows it, in a static buffer. */
const char *test_param(struct nxsim_host *host, const char *name);

/* NXSIM_TEST_SEED or a fixed default, printed so a run can be repeated. */
uint64_t test_seed(void);

/*
 * nxsim_vm_nx_huge_pages_enabled() as one value: 1 or 0, or the negative
 * errno of the call.
 */
int test_vm_nx_enabled(struct nxsim_vm *vm);

/* Live allocations of the simulator right now. */
uint64_t test_live_allocs(void);

/**
 * test_alloc_failures() - fail each allocation of an operation in turn
 * @op: the operation; returns 0 or a negative errno
 * @undo: undoes a successful @op (may be NULL)
 * @same: checks that a failed @op changed nothing (may be NULL)
 * @ctx: passed to all three
 *
 * For n = 1, 2, ...: arm the n-th allocation to fail, run @op.  Each run
 * must either return -ENOMEM with the live allocation count unchanged and
 * @same holding, or succeed with the failure still armed (the operation
 * made fewer than n allocations), which ends the walk.
 *
 * Return: how many allocation sites were failed.
 */
unsigned int test_alloc_failures(int (*op)(void *ctx), void (*undo)(void *ctx),
				 void (*same)(void *ctx), void *ctx);

#endif /* NXSIM_TEST_UTIL_H */
