// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace files: format detection and counts over the committed captures
 * (expected counts come from grep over the same files, see docs/traces.md),
 * the text -> binary -> events round trip, every class of bad binary and
 * of truncated text, and the allocation failure walks of open and convert.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nxsim/rng.h>

#include "common/test_util.h"

static char fixture_dir[512];

static const char *fixture(const char *name)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	return path;
}

static const char *tmp_path(void)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/nxsim-trace-%d.bin", getpid());
	return path;
}

/* Expected counts: see the grep commands in docs/traces.md. */
static const struct fixture_case {
	const char *name;
	enum nxsim_trace_format fmt;
	struct nxsim_trace_stats st;
} fixtures[] = {
	{ "ftrace-gcc.txt",
	  NXSIM_TRACE_FTRACE,
	  { .lines = 4160,
	    .events = 4148,
	    .allocs = 1446,
	    .frees = 2702,
	    .user = 1339,
	    .pages = 1446 } },
	{ "perf-gcc.txt",
	  NXSIM_TRACE_PERF,
	  { .lines = 4163,
	    .events = 4163,
	    .allocs = 1412,
	    .frees = 2751,
	    .user = 1317,
	    .pages = 1474 } },
	{ "lackey-true.txt",
	  NXSIM_TRACE_LACKEY,
	  { .lines = 40000,
	    .events = 39994,
	    .ifetch = 33307,
	    .loads = 5741,
	    .stores = 908,
	    .modifies = 38 } },
	/* every kmem event enabled: 2249 lines of seven other events */
	{ "ftrace-allkmem-gcc.txt",
	  NXSIM_TRACE_FTRACE,
	  { .lines = 3000,
	    .events = 739,
	    .allocs = 637,
	    .frees = 102,
	    .user = 576,
	    .pages = 637,
	    .other = 2249 } },
	/* options/record-tgid: the "(tgid)" column */
	{ "ftrace-tgid-ls.txt",
	  NXSIM_TRACE_FTRACE,
	  { .lines = 182, .events = 170, .frees = 170 } },
	{ "ftrace-decimal-handwritten.txt",
	  NXSIM_TRACE_FTRACE,
	  { .lines = 9,
	    .events = 5,
	    .allocs = 3,
	    .frees = 2,
	    .user = 2,
	    .pages = 4,
	    .other = 1,
	    .failed = 1 } },
};

static void assert_stats(const struct nxsim_trace_stats *a,
			 const struct nxsim_trace_stats *b)
{
	assert_int_equal(a->lines, b->lines);
	assert_int_equal(a->events, b->events);
	assert_int_equal(a->allocs, b->allocs);
	assert_int_equal(a->frees, b->frees);
	assert_int_equal(a->user, b->user);
	assert_int_equal(a->pages, b->pages);
	assert_int_equal(a->ifetch, b->ifetch);
	assert_int_equal(a->loads, b->loads);
	assert_int_equal(a->stores, b->stores);
	assert_int_equal(a->modifies, b->modifies);
	assert_int_equal(a->other, b->other);
	assert_int_equal(a->failed, b->failed);
	assert_int_equal(a->lost, b->lost);
}

static void drain(struct nxsim_trace *t)
{
	struct nxsim_trace_event ev;
	int rc;

	while ((rc = nxsim_trace_next(t, &ev)) == 1)
		;
	if (rc)
		fail_msg("%s", nxsim_trace_error(t));
}

static void test_fixtures(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		const struct fixture_case *c = &fixtures[i];
		struct nxsim_trace_stats st;
		struct nxsim_trace *t;
		const char *err = "";

		assert_rc(nxsim_trace_open(fixture(c->name), NXSIM_TRACE_AUTO,
					   &t, &err),
			  0);
		assert_int_equal(nxsim_trace_format(t), c->fmt);
		drain(t);
		nxsim_trace_stats(t, &st);
		assert_stats(&st, &c->st);
		/* a rewound trace reads the same again */
		nxsim_trace_rewind(t);
		drain(t);
		nxsim_trace_stats(t, &st);
		assert_stats(&st, &c->st);
		assert_rc(nxsim_trace_close(t), 0);
	}
	assert_rc(nxsim_trace_close(NULL), -EINVAL);
}

static bool same_event(const struct nxsim_trace_event *a,
		       const struct nxsim_trace_event *b)
{
	return a->ts_ns == b->ts_ns && a->addr == b->addr && a->cpu == b->cpu &&
	       a->pid == b->pid && a->gfp == b->gfp && a->size == b->size &&
	       a->op == b->op && a->order == b->order &&
	       a->migratetype == b->migratetype && a->user == b->user;
}

static void test_round_trip(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		const struct fixture_case *c = &fixtures[i];
		struct nxsim_trace_event a, b;
		struct nxsim_trace_stats st;
		struct nxsim_trace *text, *bin;
		int ra, rb;

		assert_rc(nxsim_trace_open(fixture(c->name), NXSIM_TRACE_AUTO,
					   &text, NULL),
			  0);
		assert_rc(nxsim_trace_write_binary(text, tmp_path()),
			  c->st.events);
		nxsim_trace_rewind(text);
		assert_rc(nxsim_trace_open(tmp_path(), NXSIM_TRACE_AUTO, &bin,
					   NULL),
			  0);
		assert_int_equal(nxsim_trace_format(bin), NXSIM_TRACE_BINARY);
		assert_rc(nxsim_trace_write_binary(bin, "/dev/null"), -EINVAL);
		do {
			ra = nxsim_trace_next(text, &a);
			rb = nxsim_trace_next(bin, &b);
			assert_int_equal(ra, rb);
			if (ra == 1 && !same_event(&a, &b))
				fail_msg("%s: event %llu differs", c->name,
					 (unsigned long long)a.addr);
		} while (ra == 1);
		assert_int_equal(ra, 0);
		nxsim_trace_stats(bin, &st);
		assert_int_equal(st.events, c->st.events);
		assert_int_equal(st.lines, c->st.events);
		assert_int_equal(st.allocs, c->st.allocs);
		assert_int_equal(st.user, c->st.user);
		assert_int_equal(st.loads, c->st.loads);
		nxsim_trace_close(bin);
		nxsim_trace_close(text);
		unlink(tmp_path());
	}
}

/* A binary trace of two page events, built by converting text. */
static size_t two_events(uint8_t *buf, size_t size)
{
	static const char text[] =
		"a-1 [000] .... 1.000000: mm_page_alloc: pfn=0x10 order=1 "
		"migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		"a-1 [000] .... 1.000001: mm_page_free: pfn=0x10 order=1\n";
	struct nxsim_trace *t;
	size_t n;
	FILE *f;

	assert_rc(nxsim_trace_open_buf(text, sizeof(text) - 1, NXSIM_TRACE_AUTO,
				       &t, NULL),
		  0);
	assert_rc(nxsim_trace_write_binary(t, tmp_path()), 2);
	nxsim_trace_close(t);
	f = fopen(tmp_path(), "rb");
	n = fread(buf, 1, size, f);
	fclose(f);
	unlink(tmp_path());
	assert_int_equal(n, 32 + 2 * 32);
	return n;
}

static const struct garbage_case {
	size_t off; /* byte to overwrite, or truncate to this length */
	int val;    /* -1: truncate */
	int open_rc;
	int next_rc; /* of the second record, when open succeeds */
	const char *msg;
} garbage_cases[] = {
	{ 0, 'X', -EINVAL, 0, "bad magic" },
	{ 20, -1, -EINVAL, 0, "truncated header" },
	{ 8, 2, -EINVAL, 0, "unsupported version" },
	{ 10, 3, -EINVAL, 0, "unknown record kind" },
	{ 12, 8, -EINVAL, 0, "record size" },
	{ 24, NXSIM_TRACE_LACKEY, -EINVAL, 0, "source" },
	{ 28, 1, -EINVAL, 0, "reserved" },
	{ 95, -1, -EINVAL, 0, "truncated: fewer records" },
	{ 16, 1, -EINVAL, 0, "trailing bytes" },
	{ 32 + 32 + 28, 7, 0, -EINVAL, "record 2: garbage record" },
	{ 32 + 32 + 31, 1, 0, -EINVAL, "record 2: garbage record" },
	{ 32 + 32 + 24, 1, 0, -EINVAL, "record 2: garbage record" },
	{ 32 + 32 + 29, 11, 0, -ERANGE, "record 2: record field out of range" },
	{ 32 + 32 + 13, 1, 0, -ERANGE, "record 2: record field out of range" },
};

static void test_binary_garbage(void **state)
{
	uint8_t good[128], buf[128];
	size_t len = two_events(good, sizeof(good)), i;

	for (i = 0; i < ARRAY_SIZE(garbage_cases); i++) {
		const struct garbage_case *c = &garbage_cases[i];
		struct nxsim_trace_event ev;
		struct nxsim_trace *t;
		size_t n = len;
		const char *err = "";
		int rc;

		memcpy(buf, good, len);
		if (c->val < 0)
			n = c->off;
		else
			buf[c->off] = c->val;
		rc = nxsim_trace_open_buf(buf, n, NXSIM_TRACE_BINARY, &t, &err);
		assert_rc(rc, c->open_rc);
		if (rc) {
			if (!strstr(err, c->msg))
				fail_msg("case %zu: \"%s\"", i, err);
			continue;
		}
		assert_rc(nxsim_trace_next(t, &ev), 1);
		assert_rc(nxsim_trace_next(t, &ev), c->next_rc);
		assert_rc(nxsim_trace_next(t, &ev), c->next_rc); /* sticks */
		if (strncmp(nxsim_trace_error(t), c->msg, strlen(c->msg)))
			fail_msg("case %zu: \"%s\"", i, nxsim_trace_error(t));
		nxsim_trace_close(t);
	}
}

/* Seeded byte mutations of a binary trace: errors or events in range. */
static void test_binary_mutations(void **state)
{
	uint8_t good[128], buf[128];
	size_t len = two_events(good, sizeof(good));
	struct nxsim_rng rng;
	unsigned int i, opened = 0;

	nxsim_rng_seed(&rng, test_seed());
	for (i = 0; i < 20000; i++) {
		struct nxsim_trace_event ev;
		struct nxsim_trace *t;
		size_t n = len, k;
		int rc;

		memcpy(buf, good, len);
		for (k = nxsim_rng_below(&rng, 3) + 1; k--;)
			buf[nxsim_rng_below(&rng, len)] = nxsim_rng_next(&rng);
		if (nxsim_rng_below(&rng, 8) == 0)
			n = nxsim_rng_below(&rng, len);
		rc = nxsim_trace_open_buf(buf, n, NXSIM_TRACE_AUTO, &t, NULL);
		if (rc) {
			assert_rc(rc, -EINVAL);
			continue;
		}
		opened++;
		while ((rc = nxsim_trace_next(t, &ev)) == 1) {
			assert_true(ev.op == NXSIM_TRACE_ALLOC ||
				    ev.op == NXSIM_TRACE_FREE);
			assert_true(ev.addr <= NXSIM_TRACE_MAX_PFN);
			assert_true(ev.order <= NXSIM_TRACE_MAX_ORDER);
			assert_int_equal(ev.user, nxsim_trace_gfp_user(ev.gfp));
		}
		assert_true(rc == 0 || rc == -EINVAL || rc == -ERANGE);
		nxsim_trace_close(t);
	}
	/* mutations inside the records leave the header good */
	assert_true(opened > 0);
}

static const struct text_case {
	const char *text;
	enum nxsim_trace_format fmt;
	int open_rc;
	int events; /* delivered before next_rc */
	int next_rc;
	const char *msg;
} text_cases[] = {
	{ "", NXSIM_TRACE_AUTO, -EINVAL, 0, 0, "cannot tell the trace format" },
	{ "\x01\x02\xff\xfe\n\x80\n", NXSIM_TRACE_AUTO, -EINVAL, 0, 0,
	  "cannot tell" },
	{ "", NXSIM_TRACE_LACKEY, 0, 0, 0, "" },
	{ "I  0401ab70,3\n L 1,8", NXSIM_TRACE_AUTO, 0, 1, -EINVAL,
	  "line 2: truncated: no newline at the end: \" L 1,8\"" },
	{ "==1== x\nI  0401ab70,3\n L 1,8\n Q 2,2\n", NXSIM_TRACE_AUTO, 0, 2,
	  -EINVAL, "line 4: not a lackey record: \" Q 2,2\"" },
	{ "I  1,1\n L 10000000000000,8\n", NXSIM_TRACE_AUTO, 0, 1, -ERANGE,
	  "line 2: address out of range" },
	{ "\x01\x02\xff\xfe\n\x80\n", NXSIM_TRACE_FTRACE, 0, 0, -EINVAL,
	  "line 1: no [cpu] column" },
	{ "# tracer: nop\na-1 [000] .... 1.0: mm_page_free: pfn=0x1 order=0\n"
	  "a-1 [000] .... 1.0: mm_page_free: pfn=0x1 order=99\n",
	  NXSIM_TRACE_AUTO, 0, 1, -ERANGE,
	  "line 3: order malformed or out of range" },
	{ "a-1 [000] .... 1.0: mm_page_free: pfn=0x1 order=0\r\n"
	  "CPU:0 [LOST 7 EVENTS]\n",
	  NXSIM_TRACE_AUTO, 0, 1, 0, "" },
};

static void test_text_errors(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(text_cases); i++) {
		const struct text_case *c = &text_cases[i];
		struct nxsim_trace_event ev;
		struct nxsim_trace *t;
		const char *err = "";
		int n = 0, rc;

		rc = nxsim_trace_open_buf(c->text, strlen(c->text), c->fmt, &t,
					  &err);
		if (rc != c->open_rc)
			fail_msg("case %zu: open: %d \"%s\"", i, rc, err);
		if (rc) {
			if (!strstr(err, c->msg))
				fail_msg("case %zu: \"%s\"", i, err);
			continue;
		}
		while ((rc = nxsim_trace_next(t, &ev)) == 1)
			n++;
		assert_int_equal(n, c->events);
		assert_rc(rc, c->next_rc);
		if (strncmp(nxsim_trace_error(t), c->msg, strlen(c->msg)) ||
		    (!c->next_rc && nxsim_trace_error(t)[0]))
			fail_msg("case %zu: \"%s\"", i, nxsim_trace_error(t));
		nxsim_trace_close(t);
	}
}

static void test_lost_and_convert_errors(void **state)
{
	static const char text[] =
		"a-1 [000] .... 1.0: mm_page_free: pfn=0x1 order=0\n"
		"CPU:0 [LOST 7 EVENTS]\n"
		"a-1 [000] .... 1.0: mm_page_free: pfn=0x1 order=x\n";
	struct nxsim_trace_event ev;
	struct nxsim_trace_stats st;
	struct nxsim_trace *t;
	FILE *f;

	assert_rc(nxsim_trace_open_buf(text, sizeof(text) - 1, NXSIM_TRACE_AUTO,
				       &t, NULL),
		  0);
	assert_rc(nxsim_trace_write_binary(t, tmp_path()), -EINVAL);
	assert_string_equal(nxsim_trace_error(t),
			    "line 3: order malformed or out of range: "
			    "\"a-1 [000] .... 1.0: mm_page_free: pfn=0x1 "
			    "order=x\"");
	assert_int_equal(access(tmp_path(), F_OK), -1); /* removed */
	assert_rc(nxsim_trace_stats(t, &st), 0);
	assert_int_equal(st.lost, 7);
	assert_int_equal(st.frees, 1);
	assert_rc(nxsim_trace_stats(NULL, &st), -EINVAL);
	assert_rc(nxsim_trace_stats(t, NULL), -EINVAL);
	assert_int_equal(st.lost, 7);
	assert_rc(nxsim_trace_rewind(NULL), -EINVAL);
	assert_rc(nxsim_trace_rewind(t), 0);
	assert_rc(nxsim_trace_write_binary(t, "/nonexistent/dir/x"), -ENOENT);
	nxsim_trace_close(t);
	assert_rc(nxsim_trace_open("/nonexistent/trace", NXSIM_TRACE_AUTO, &t,
				   NULL),
		  -ENOENT);
	assert_rc(nxsim_trace_open("/tmp", NXSIM_TRACE_AUTO, &t, NULL),
		  -EINVAL);
	/* converting a file onto itself is refused, the input kept */
	f = fopen(tmp_path(), "w");
	fputs("I  0401ab70,3\n", f);
	fclose(f);
	assert_rc(nxsim_trace_open(tmp_path(), NXSIM_TRACE_AUTO, &t, NULL), 0);
	assert_rc(nxsim_trace_write_binary(t, tmp_path()), -EINVAL);
	assert_string_equal(nxsim_trace_error(t) +
				    strlen(nxsim_trace_error(t)) - 19,
			    "output is the input");
	assert_rc(nxsim_trace_next(t, &ev), 1);
	assert_int_equal(ev.addr, 0x401ab70);
	nxsim_trace_close(t);
	unlink(tmp_path());
}

struct open_ctx {
	struct nxsim_trace *t;
	const char *path;
};

static int open_op(void *arg)
{
	struct open_ctx *ctx = arg;

	return nxsim_trace_open(ctx->path, NXSIM_TRACE_AUTO, &ctx->t, NULL);
}

static int convert_op(void *arg)
{
	struct open_ctx *ctx = arg;
	struct nxsim_trace *t;
	int64_t n;
	int rc;

	rc = nxsim_trace_open(ctx->path, NXSIM_TRACE_AUTO, &t, NULL);
	if (rc)
		return rc;
	n = nxsim_trace_write_binary(t, tmp_path());
	nxsim_trace_close(t);
	return n < 0 ? (int)n : 0;
}

static void close_undo(void *arg)
{
	struct open_ctx *ctx = arg;

	nxsim_trace_close(ctx->t);
}

static void unlink_undo(void *arg)
{
	unlink(tmp_path());
}

static void test_alloc_failure_walks(void **state)
{
	struct open_ctx ctx = { .path = fixture("ftrace-gcc.txt") };

	assert_int_equal(test_alloc_failures(open_op, close_undo, NULL, &ctx),
			 1);
	assert_int_equal(
		test_alloc_failures(convert_op, unlink_undo, NULL, &ctx), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_binary_mutations),
		cmocka_unit_test(test_text_errors),
		cmocka_unit_test(test_lost_and_convert_errors),
		cmocka_unit_test(test_alloc_failure_walks),
	};
	char file[] = __FILE__;

	/* tests/unit/test_trace_file.c -> tests/fixtures */
	snprintf(fixture_dir, sizeof(fixture_dir), "%s/../fixtures",
		 dirname(file));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
