// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every public function called with NULL arguments (docs/api.md: a NULL
 * where an object or a result belongs is -EINVAL, never a crash).  The
 * calls are generated from the headers (tests/api/null-calls.cmake), so a
 * function added to a header is called here without an edit:
 *
 *   pass 0: NULL for every pointer, 0 for every number; an int-returning
 *           function with a pointer argument answers a negative errno,
 *           unless the table below says why NULL is valid for it;
 *   pass 1: when the first argument is an object (a fresh host, VM,
 *           vCPU, clock, TLB, XPFO machine or trace for each call), that
 *           object and NULL after it: no crash, no leak (ASan, UBSan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test_util.h"

struct fixture {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
	struct nxsim_clock *clock;
	struct nxsim_tlb *tlb;
	struct nxsim_xpfo *xpfo;
	struct nxsim_trace *trace;
};

enum ret_kind { RET_INT, RET_PTR, RET_VOID, RET_OTHER };
enum obj {
	OBJ_NONE,
	OBJ_HOST,
	OBJ_VM,
	OBJ_VCPU,
	OBJ_CLOCK,
	OBJ_TLB,
	OBJ_XPFO,
	OBJ_TRACE
};

struct api_call {
	const char *name;
	long long (*call)(struct fixture *fx, int pass);
	enum ret_kind ret;
	int pointers;
	enum obj first;
};

#include "null_calls.inc"

/* int-returning functions for which all-NULL is a valid call, and why. */
static const char *const null_ok[][2] = {
	{ "nxsim_bringup_cost_info", "every result pointer may be NULL" },
	{ "nxsim_xpfo_cost_info", "every result pointer may be NULL" },
	{ "nxsim_guest_cost_info", "every result pointer may be NULL" },
	{ "nxsim_errno_parse", "NULL names no errno: 0" },
};

static bool null_allowed(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(null_ok); i++)
		if (!strcmp(null_ok[i][0], name))
			return true;
	return false;
}

static void fixture_make(struct fixture *fx)
{
	struct nxsim_xpfo_config xc = { .nr_cpus = 1, .nr_frames = 16 };
	struct nxsim_tlb_config tc;
	const char *why;

	memset(fx, 0, sizeof(*fx));
	assert_rc(nxsim_host_create(NULL, &fx->host), 0);
	assert_rc(nxsim_vm_create(fx->host, &fx->vm), 0);
	assert_rc(nxsim_vcpu_create(fx->vm, 0, &fx->vcpu), 0);
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &fx->clock), 0);
	nxsim_tlb_config_default(&tc, 1);
	assert_rc(nxsim_tlb_create(&tc, &fx->tlb), 0);
	assert_rc(nxsim_xpfo_create(&xc, &fx->xpfo), 0);
	assert_rc(nxsim_trace_open_buf("", 0, NXSIM_TRACE_LACKEY, &fx->trace,
				       &why),
		  0);
}

static void fixture_free(struct fixture *fx)
{
	nxsim_trace_close(fx->trace);
	assert_rc(nxsim_xpfo_destroy(fx->xpfo), 0);
	nxsim_tlb_destroy(fx->tlb);
	assert_rc(nxsim_vm_destroy(fx->vm), 0);
	nxsim_vm_release(fx->vm);
	assert_rc(nxsim_host_destroy(fx->host), 0);
	assert_rc(nxsim_clock_destroy(fx->clock), 0);
}

/*
 * One call, in a child: 0; 3, an int answer that is not an errno; 2, a
 * leak; else how it died (a sanitizer's report exits 1).
 */
static int run_call(const struct api_call *c)
{
	struct fixture fx;
	uint64_t live;
	long long rc;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid) {
		assert_int_equal(waitpid(pid, &status, 0), pid);
		return WIFEXITED(status) ? WEXITSTATUS(status) :
					   128 + WTERMSIG(status);
	}
	live = test_live_allocs();
	fixture_make(&fx);
	rc = c->call(&fx, 0);
	if (c->ret == RET_INT && c->pointers && !null_allowed(c->name) &&
	    rc >= 0)
		exit(3);
	if (c->first != OBJ_NONE)
		c->call(&fx, 1);
	fixture_free(&fx);
	exit(test_live_allocs() == live ? 0 : 2);
}

static void test_null_args(void **state)
{
	char failed[4096] = "";
	size_t i, len = 0;
	int nr_failed = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(api_calls); i++) {
		int rc = run_call(&api_calls[i]);

		if (!rc)
			continue;
		nr_failed++;
		len += snprintf(failed + len, sizeof(failed) - len, " %s(%s)",
				api_calls[i].name,
				rc == 3	  ? "not an errno" :
				rc == 2	  ? "leak" :
				rc >= 128 ? "killed" :
					    "sanitizer");
		if (len >= sizeof(failed))
			len = sizeof(failed) - 1;
	}
	if (nr_failed)
		fail_msg("%d calls fail with NULL arguments:%s", nr_failed,
			 failed);
	/* the generator read the headers: every family is there */
	assert_true(ARRAY_SIZE(api_calls) > 150);
}

/*
 * The calls that crashed on NULL: -EINVAL each, with a valid object
 * beside the NULL; the trace parsers' @why may be NULL (docs/api.md).
 */
static void test_null_named(void **state)
{
	static const char kmem[] = "cc1-1 [000] .... 1.000000: mm_page_free: "
				   "page=0x0 pfn=0x1 order=0";
	struct nxsim_trace_event ev;
	struct nxsim_xpfo_costs c;
	struct nxsim_stat_desc d = { .name = "x" };
	struct fixture fx;
	const char *why;
	char buf[64];
	uint64_t v = 0;

	(void)state;
	fixture_make(&fx);
	assert_rc(nxsim_trace_parse_kmem(kmem, strlen(kmem), NULL, &why),
		  -EINVAL);
	assert_true(nxsim_trace_parse_kmem(kmem, strlen(kmem), &ev, NULL) >= 0);
	assert_rc(nxsim_trace_parse_lackey(" L 1000,4", 9, NULL, &why),
		  -EINVAL);
	assert_true(nxsim_trace_parse_lackey(" L 1000,4", 9, &ev, NULL) >= 0);
	assert_true(nxsim_trace_parse_lackey("bogus", 5, &ev, NULL) < 0);
	assert_rc(nxsim_trace_open(NULL, NXSIM_TRACE_AUTO, &fx.trace, &why),
		  -EINVAL);
	assert_rc(nxsim_trace_next(fx.trace, NULL), -EINVAL);
	assert_rc(nxsim_trace_write_binary(NULL, "/dev/null"), -EINVAL);
	assert_rc(nxsim_trace_write_binary(fx.trace, NULL), -EINVAL);
	assert_rc(nxsim_host_vulnerability(NULL, buf, sizeof(buf)), -EINVAL);
	nxsim_xpfo_costs_default(&c);
	assert_rc(nxsim_xpfo_costs_set(NULL, "walk", 1, NULL), -EINVAL);
	assert_rc(nxsim_xpfo_costs_set(&c, NULL, 1, NULL), -EINVAL);
	assert_rc(nxsim_stat_format(NULL, &v, buf, sizeof(buf)), -EINVAL);
	assert_rc(nxsim_stat_format(&d, NULL, buf, sizeof(buf)), -EINVAL);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_null_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
