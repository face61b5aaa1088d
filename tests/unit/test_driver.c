// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nxsim driver's protocol, in process: word splitting and C-string
 * quoting (both ways), one answer a line, error lines that name the line,
 * expect and its patterns, stopping at the first failed expectation or
 * going on (-k), --help listing every verb and objects cleaned up at exit.
 * The verbs' argument handling and allocation failures:
 * test_driver_verbs.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nxsim/rng.h>

#include "driver_run.h"

struct lex_case {
	const char *line;
	int rc;
	const char *words[4];
	size_t lens[4]; /* 0: strlen(words[i]) */
};

static const struct lex_case lex_cases[] = {
	{ "", 0, .words = { NULL } },
	{ "   # only a comment", 0, .words = { NULL } },
	{ "param get nx_huge_pages", 3,
	  .words = { "param", "get", "nx_huge_pages" } },
	{ "\tparam  set\tx  # comment \"", 3,
	  .words = { "param", "set", "x" } },
	{ "x \"never\\n\"", 2, .words = { "x", "never\n" } },
	{ "x \"a b\" c#d", 3, .words = { "x", "a b", "c#d" } },
	{ "cmdline=\"kvm.nx_huge_pages=never x=1\"", 1,
	  .words = { "cmdline=kvm.nx_huge_pages=never x=1" } },
	{ "\"\\x41\\x4a2\\101\\7\\t\\r\\\\\\\"\\'\\e\"", 1,
	  .words = { "AJ2A\a\t\r\\\"'\x1b" } },
	{ "\"a\\0b\" \"\"", 2, .words = { "a\0b", "" }, .lens = { 3, 0 } },
	{ "\"unterminated", .rc = -EINVAL },
	{ "x \"bad \\q escape\"", .rc = -EINVAL },
	{ "x \"\\x\"", .rc = -EINVAL },
	{ "x \"\\777\"", .rc = -EINVAL },
	{ "x \"ends in backslash\\", .rc = -EINVAL },
	{ "control\x01byte", .rc = -EINVAL },
	{ "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g "
	  "h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n",
	  .rc = -E2BIG },
};

static void test_lex(void **state)
{
	struct nxsim__drv_tok toks[NXSIM__DRV_MAX_TOKS];
	size_t i;
	int j;

	for (i = 0; i < ARRAY_SIZE(lex_cases); i++) {
		const struct lex_case *c = &lex_cases[i];
		char buf[2 * 256 + 1];
		const char *why = NULL;
		int n = nxsim__drv_lex(c->line, strlen(c->line), toks, buf,
				       &why);

		if (n != c->rc)
			fail_msg("\"%s\": %d, want %d", c->line, n, c->rc);
		if (n < 0) {
			assert_non_null(why);
			continue;
		}
		for (j = 0; j < n; j++) {
			size_t len = c->lens[j] ? c->lens[j] :
						  strlen(c->words[j]);

			assert_int_equal(toks[j].len, len);
			assert_memory_equal(toks[j].s, c->words[j], len);
			assert_int_equal(toks[j].s[len], '\0');
		}
	}
}

/* Every byte string quotes to one word that reads back the same. */
static void test_quote_round_trip(void **state)
{
	struct nxsim__drv_tok toks[NXSIM__DRV_MAX_TOKS];
	static const char *const samples[] = { "Y\n", "never\n", "force ",
					       "#x",  "a\"b\\c", "plain",
					       "" };
	char bytes[256], buf[2 * NXSIM__DRV_REPLY + 1];
	const char *why;
	size_t i;

	for (i = 0; i < 256; i++)
		bytes[i] = (char)i;
	for (i = 0; i <= ARRAY_SIZE(samples); i++) {
		struct nxsim__drv_reply r = { .len = 0 };
		const char *s = i < 7 ? samples[i] : bytes;
		size_t len = i < 7 ? strlen(s) : sizeof(bytes);

		nxsim__drv_quote(&r, NULL, s, len);
		assert_int_equal(nxsim__drv_lex(r.buf, r.len, toks, buf, &why),
				 1);
		assert_int_equal(toks[0].len, len);
		assert_memory_equal(toks[0].s, s, len);
	}
	{
		struct nxsim__drv_reply r = { .len = 0 };

		nxsim__drv_quote(&r, NULL, "Y\n", 2);
		nxsim__drv_quote(&r, "key", "a b", 3);
		nxsim__drv_quote(&r, "k2", "bare", 4);
		assert_string_equal(r.buf, " \"Y\\n\" key=\"a b\" k2=bare");
	}
}

static void test_answers(void **state)
{
	uint64_t live = test_live_allocs();
	struct run r =
		run_script("# comment\n"
			   "\n"
			   "host create h0 cpu=itlb_multihit profile=6.6\n"
			   "param get nx_huge_pages   # trailing comment\n"
			   "bogus verb\n"
			   "host bogus\n"
			   "param set \"unterminated\n"
			   "vcpu create c0 v1 99999999999999999999\n"
			   "vm create v1\n"
			   "vcpu create c0 v1 99999999999999999999\n"
			   "vcpu create c0 v1 0x10x\n"
			   "vm create v1\n"
			   "vm worker nope\n"
			   "param get\n"
			   "host create h1 cpu=bogus\n"
			   "host create h1 clock=sundial\n"
			   "host create h1 profile=9.9\n"
			   "errno ENOPE\n"
			   "errno 1\n"
			   "param write nx_huge_pages \"never\\n\"\n"
			   "trace stat /nonexistent\n"
			   "vcpu create c0 v1 0\n"
			   "clock advance 1ms\n"
			   "clock advance 1fortnight\n"
			   "host destroy h0\n"
			   "vm create v2\n",
			   0);

	assert_int_equal(r.rc, 0);
	assert_string_equal(
		r.out,
		"OK profile=6.6\n"
		"OK \"Y\\n\"\n"
		"ERR -EINVAL line 5: unknown verb \"bogus verb\" (nxsim --help)\n"
		"ERR -EINVAL line 6: unknown verb \"host bogus\" (nxsim --help)\n"
		"ERR -EINVAL line 7: unterminated string\n"
		"ERR -ENOENT line 8: no vm named \"v1\"\n"
		"OK\n"
		"ERR -ERANGE line 10: number out of range: "
		"99999999999999999999 (max 4294967295)\n"
		"ERR -EINVAL line 11: not a number: \"0x10x\"\n"
		"ERR -EEXIST line 12: \"v1\" already names a vm\n"
		"ERR -ENOENT line 13: no vm named \"nope\"\n"
		"ERR -EINVAL line 14: usage: param get PARAM\n"
		"ERR -EINVAL line 15: unknown cpu flag \"bogus\"\n"
		"ERR -EINVAL line 16: clock is virtual, real or the name of a "
		"clock\n"
		"ERR -EINVAL line 17: unknown profile \"9.9\" (see "
		"\"profiles\")\n"
		"ERR -ENOENT line 18: no errno \"ENOPE\"\n"
		"OK -EPERM -1 \"Operation not permitted\"\n"
		"ERR -EBUSY Device or resource busy\n"
		"ERR -ENOENT line 21: /nonexistent: No such file or directory\n"
		"OK\n"
		"OK events=0 now=1000000\n"
		"ERR -EINVAL line 24: not a number: \"1fortnight\"\n"
		"ERR -EBUSY Device or resource busy\n"
		"OK\n");
	assert_string_equal(r.err, "");
	free_run(&r);
	/* the driver destroyed the VMs and the host it was left with */
	assert_int_equal(test_live_allocs(), live);
}

/*
 * Numbers: decimal with leading zeros (010 is ten, 09 nine), 0x hex, 0o
 * octal; a prefix without its digits, or with a sign, is not a number.
 */
static void test_numbers(void **state)
{
	struct run r = run_script("clock create t\n"
				  "clock advance 010s t\n"
				  "clock advance 09 t\n"
				  "clock advance 0o10 t\n"
				  "clock advance 0x10 t\n"
				  "clock advance 0o8 t\n"
				  "clock advance 0x t\n"
				  "clock advance 0x-1 t\n"
				  "clock advance 0o t\n",
				  0);

	(void)state;
	assert_string_equal(r.out,
			    "OK\n"
			    "OK events=0 now=10000000000\n"
			    "OK events=0 now=10000000009\n"
			    "OK events=0 now=10000000017\n"
			    "OK events=0 now=10000000033\n"
			    "ERR -EINVAL line 6: not a number: \"0o8\"\n"
			    "ERR -EINVAL line 7: not a number: \"0x\"\n"
			    "ERR -EINVAL line 8: not a number: \"0x-1\"\n"
			    "ERR -EINVAL line 9: not a number: \"0o\"\n");
	free_run(&r);
}

/*
 * 70 frames with one closed exposure window each (about 10^12 ns): the 64
 * worst do not fit an answer, which is -E2BIG, never an answer cut
 * mid-number; the 20 worst (122 words) fit, and expect checks an answer
 * of more than 63 words.
 */
static void test_long_answers(void **state)
{
	size_t len, n;
	char *script;
	struct run r;
	FILE *f = open_memstream(&script, &len);
	const char *last;
	int i;

	(void)state;
	assert_non_null(f);
	fputs("clock create t\nxpfo create m cpus=2 frames=256 version=6 "
	      "policy=local clock=t l1d=1x2 l1i=1x2 l2=1x2\n",
	      f);
	for (i = 0; i < 70; i++)
		fprintf(f,
			"xpfo alloc m 0 %d user 1\nxpfo kmap m 0 %d\n"
			"xpfo kaccess m 1 %d read\nxpfo kunmap m 0 %d\n"
			"clock advance %d t\nxpfo kaccess m 1 200 read\n"
			"xpfo kaccess m 1 201 read\n",
			i, i, i, i, 1000000000 + i);
	fputs("xpfo worst-frames m 64\nxpfo worst-frames m 20\n"
	      "expect OK frames=70 pfn=69 ...\n",
	      f);
	assert_int_equal(fclose(f), 0);
	r = run_script(script, 0);
	free(script);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	n = strlen(r.out);
	assert_true(n > 2);
	r.out[n - 1] = '\0';
	last = strrchr(r.out, '\n');
	assert_non_null(last);
	assert_int_equal(strncmp(last + 1, "OK frames=70 pfn=69 ", 20), 0);
	/* every entry whole: pfn=50..69, all numbers of 10 digits */
	assert_int_equal(strlen(last + 1),
			 strlen("OK frames=70") +
				 20 * strlen(" pfn=69 windows=1 open=0 "
					     "mean_ns=1000000069 "
					     "max_ns=1000000069 "
					     "sum_ns=1000000069"));
	*(char *)last = '\0';
	last = strrchr(r.out, '\n');
	assert_string_equal(last + 1,
			    "ERR -E2BIG line 493: answer longer than 4095 "
			    "bytes: ask for less");
	free_run(&r);
}

static void test_expect(void **state)
{
	struct run r =
		run_script("host create h0 cpu=itlb_multihit\n"
			   "expect OK\n"
			   "expect OK profile=6.18\n"
			   "expect OK *\n"
			   "expect OK ...\n"
			   "param get nx_huge_pages\n"
			   "expect OK \"Y\\x0a\"\n"
			   "vm create v1\n"
			   "vm worker v1\n"
			   "expect OK state=none ...\n"
			   "expect OK * * * * deadline_ns=never *\n"
			   "param set nx_huge_pages never\n"
			   "expect ERR\n"
			   "expect ERR -EBUSY\n"
			   "expect ERR -EBUSY Device or\n"
			   "errno EBUSY\n"
			   "expect OK -EBUSY -16 \"Device or resource busy\"\n"
			   "host counters\n"
			   "expect OK param_sets=1 ...\n"
			   "expect OK param_sets=2 ...\n"
			   "host counters\n",
			   0);

	assert_int_equal(r.rc, 1);
	/* stopped at line 20: the last command never ran */
	assert_non_null(strstr(r.out, "OK param_sets=1 vms_created=1 "
				      "vms_destroyed=0 oopses=0\n"));
	assert_null(strstr(strstr(r.out, "param_sets=1") + 1, "param_sets"));
	assert_string_equal(
		r.err, "t.nxs:20: expectation failed\n"
		       "  want: OK param_sets=2 ...\n"
		       "  got:  OK param_sets=1 vms_created=1 vms_destroyed=0 "
		       "oopses=0\n");
	free_run(&r);
}

/* An ERR message that does not split as words is compared blank-split. */
static void test_expect_unbalanced_message(void **state)
{
	struct run r = run_script("vm worker \"a\\\"b\"\n"
				  "expect ERR -ENOENT line 1: no vm named\n"
				  "expect ERR -ENOENT line 1: no vm named "
				  "\"a\"b\"\n",
				  0);

	assert_string_equal(r.out,
			    "ERR -ENOENT line 1: no vm named \"a\"b\"\n");
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.err, "t.nxs:3: bad expect line"));
	free_run(&r);
}

/* Words of the script echoed in a message keep the answer on one line. */
static void test_control_bytes_escaped(void **state)
{
	struct run r = run_script("vm worker \"a\\nb\\x7f\"\n", 0);

	assert_string_equal(
		r.out, "ERR -ENOENT line 1: no vm named \"a\\x0ab\\x7f\"\n");
	free_run(&r);
}

static const struct {
	const char *script;
	const char *err;
} bad_expects[] = {
	{ "expect OK\n", "t.nxs:1: expect without a previous answer\n" },
	{ "errno 1\nexpect\n", "t.nxs:2: expect needs OK or ERR\n" },
	{ "errno 1\nexpect FINE\n", "t.nxs:2: expect needs OK or ERR\n" },
	{ "errno 1\nexpect ERR\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: ERR\n  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
	{ "errno 1\nexpect OK -EPERM -1\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: OK -EPERM -1\n"
	  "  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
	{ "errno 1\nexpect OK -EPERM -1 \"Operation\" extra\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: OK -EPERM -1 \"Operation\" extra\n"
	  "  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
	{ "bogus\nexpect ERR -EPERM\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: ERR -EPERM\n"
	  "  got:  ERR -EINVAL line 1: unknown verb \"bogus\" (nxsim --help)\n" },
	{ "errno 1\nexpect OK \"unterminated\n",
	  "t.nxs:2: bad expect line: unterminated string\n" },
	/* quoted and bare parts join: these spell "expect" too */
	{ "errno 1\nexp\"\"ect ERR\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: ERR\n"
	  "  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
	{ "errno 1\n\"expect\" OK  \"-EPERM\"  -2\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: OK  \"-EPERM\"  -2\n"
	  "  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
	{ "errno 1\nex\"pect\" OK \"unterminated\n",
	  "t.nxs:2: bad expect line: unterminated string\n" },
	{ "errno 1\ne\"x\\x70\"ect\n", "t.nxs:2: expect needs OK or ERR\n" },
};

static void test_bad_expects(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_expects); i++) {
		struct run r = run_script(bad_expects[i].script, 0);

		assert_int_equal(r.rc, 1);
		assert_string_equal(r.err, bad_expects[i].err);
		free_run(&r);
	}
}

/* DOS line ends are line ends. */
static void test_crlf(void **state)
{
	struct run r = run_script("errno 1\r\nexpect OK -EPERM -1 *\r\n", 0);

	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out,
			    "OK -EPERM -1 \"Operation not permitted\"\n");
	free_run(&r);
}

static void test_keep_going(void **state)
{
	struct run r = run_script("errno 1\n"
				  "expect ERR\n"
				  "errno 2\n"
				  "expect OK -ENOENT -2 *\n"
				  "expect OK -ENOENT -3 *\n"
				  "errno 3\n",
				  NXSIM__DRV_KEEP_GOING | NXSIM__DRV_TRACE);

	assert_int_equal(r.rc, 1);
	assert_string_equal(r.out,
			    "OK -EPERM -1 \"Operation not permitted\"\n"
			    "OK -ENOENT -2 \"No such file or directory\"\n"
			    "OK -ESRCH -3 \"No such process\"\n");
	assert_string_equal(
		r.err, "+ errno 1\n"
		       "+ expect ERR\n"
		       "t.nxs:2: expectation failed\n"
		       "  want: ERR\n"
		       "  got:  OK -EPERM -1 \"Operation not permitted\"\n"
		       "+ errno 2\n"
		       "+ expect OK -ENOENT -2 *\n"
		       "+ expect OK -ENOENT -3 *\n"
		       "t.nxs:5: expectation failed\n"
		       "  want: OK -ENOENT -3 *\n"
		       "  got:  OK -ENOENT -2 \"No such file or directory\"\n"
		       "+ errno 3\n");
	free_run(&r);
}

/*
 * Strict mode: a command another command (or the end of the script)
 * follows with no expect between them fails at its own line, named; any
 * expect checks it, a failed one as well; comments and blank lines do not
 * count.  Without the flag the same scripts pass.
 */
static const struct {
	const char *script;
	int rc;		 /* strict */
	const char *out; /* strict */
	const char *err; /* strict */
} strict_cases[] = {
	{ "errno 1\nexpect OK -EPERM -1 *\n# note\n\nerrno 2\nexpect OK\n", 0,
	  "OK -EPERM -1 \"Operation not permitted\"\n"
	  "OK -ENOENT -2 \"No such file or directory\"\n",
	  "" },
	{ "errno 1\n  # note\nerrno 2\nexpect OK\n", 1,
	  "OK -EPERM -1 \"Operation not permitted\"\n",
	  "t.nxs:1: unchecked command: errno 1\n" },
	{ "errno 1\nexpect OK\n\t errno   2\n\n", 1,
	  "OK -EPERM -1 \"Operation not permitted\"\n"
	  "OK -ENOENT -2 \"No such file or directory\"\n",
	  "t.nxs:3: unchecked command: errno   2\n" },
	{ "bogus \"x\nerrno 1\nexpect OK\n", 1,
	  "ERR -EINVAL line 1: unterminated string\n",
	  "t.nxs:1: unchecked command: bogus \"x\n" },
	{ "errno 1\nexpect ERR\nerrno 2\n", 1,
	  "OK -EPERM -1 \"Operation not permitted\"\n",
	  "t.nxs:2: expectation failed\n"
	  "  want: ERR\n"
	  "  got:  OK -EPERM -1 \"Operation not permitted\"\n" },
};

static void test_strict(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strict_cases); i++) {
		struct run r =
			run_script(strict_cases[i].script, NXSIM__DRV_STRICT);

		assert_int_equal(r.rc, strict_cases[i].rc);
		assert_string_equal(r.out, strict_cases[i].out);
		assert_string_equal(r.err, strict_cases[i].err);
		free_run(&r);
		r = run_script(strict_cases[i].script, 0);
		assert_int_equal(r.rc, i == ARRAY_SIZE(strict_cases) - 1);
		free_run(&r);
	}
}

/* Strict and -k: every unchecked command is named, and the run goes on. */
static void test_strict_keep_going(void **state)
{
	struct run r = run_script("errno 1\nerrno 2\nexpect OK\nerrno 3\n",
				  NXSIM__DRV_STRICT | NXSIM__DRV_KEEP_GOING);

	assert_int_equal(r.rc, 1);
	assert_string_equal(r.out,
			    "OK -EPERM -1 \"Operation not permitted\"\n"
			    "OK -ENOENT -2 \"No such file or directory\"\n"
			    "OK -ESRCH -3 \"No such process\"\n");
	assert_string_equal(r.err, "t.nxs:1: unchecked command: errno 1\n"
				   "t.nxs:4: unchecked command: errno 3\n");
	free_run(&r);
}

/*
 * Fail-on-err: an ERR that no expect checks fails the script, at the next
 * command (which then does not run) or at the end; an expected ERR and
 * an unchecked OK do not.
 */
static const struct {
	const char *script;
	unsigned int flags;
	int rc;
	const char *out;
	const char *err;
} fail_on_err_cases[] = {
	{ "param get x\nexpect ERR -ENOENT\nerrno 1\n", 0, 0,
	  "ERR -ENOENT line 1: no current host: \"host create\" or \"host use\" "
	  "one\n"
	  "OK -EPERM -1 \"Operation not permitted\"\n",
	  "" },
	{ "param get x\nerrno 1\n", 0, 1,
	  "ERR -ENOENT line 1: no current host: \"host create\" or \"host use\" "
	  "one\n",
	  "t.nxs:1: unexpected ERR: param get x\n" },
	{ "errno 1\nparam get x\n", 0, 1,
	  "OK -EPERM -1 \"Operation not permitted\"\n"
	  "ERR -ENOENT line 2: no current host: \"host create\" or \"host use\" "
	  "one\n",
	  "t.nxs:2: unexpected ERR: param get x\n" },
	{ "param get x\nerrno 1\nparam get y\n", NXSIM__DRV_KEEP_GOING, 1,
	  "ERR -ENOENT line 1: no current host: \"host create\" or \"host use\" "
	  "one\n"
	  "OK -EPERM -1 \"Operation not permitted\"\n"
	  "ERR -ENOENT line 3: no current host: \"host create\" or \"host use\" "
	  "one\n",
	  "t.nxs:1: unexpected ERR: param get x\n"
	  "t.nxs:3: unexpected ERR: param get y\n" },
};

static void test_fail_on_err(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(fail_on_err_cases); i++) {
		struct run r = run_script(fail_on_err_cases[i].script,
					  NXSIM__DRV_FAIL_ON_ERR |
						  fail_on_err_cases[i].flags);

		assert_int_equal(r.rc, fail_on_err_cases[i].rc);
		assert_string_equal(r.out, fail_on_err_cases[i].out);
		assert_string_equal(r.err, fail_on_err_cases[i].err);
		free_run(&r);
		/* without it, an ERR is an answer like any other */
		r = run_script(fail_on_err_cases[i].script,
			       fail_on_err_cases[i].flags);
		assert_int_equal(r.rc, 0);
		assert_string_equal(r.err, "");
		free_run(&r);
	}
}

/*
 * TAP: one test point a command once its expects are known, the answers
 * as comments, an expect with nothing before it a point of its own, then
 * the plan and the count; a failed expect without -k ends the points.
 */
static void test_tap(void **state)
{
	struct run r = run_script("expect OK\n"
				  "errno 1\n"
				  "expect OK -EPERM ...\n"
				  "expect OK\n"
				  "errno 2\n"
				  "expect ERR\n"
				  "param get x\n"
				  "errno 3\n"
				  "expect OK * -3 ...\n",
				  NXSIM__DRV_TAP | NXSIM__DRV_KEEP_GOING |
					  NXSIM__DRV_FAIL_ON_ERR);

	assert_int_equal(r.rc, 1);
	assert_string_equal(
		r.out,
		"not ok 1 - t.nxs:1 expect\n"
		"# OK -EPERM -1 \"Operation not permitted\"\n"
		"ok 2 - t.nxs:2 errno\n"
		"# OK -ENOENT -2 \"No such file or directory\"\n"
		"not ok 3 - t.nxs:5 errno\n"
		"# ERR -ENOENT line 7: no current host: \"host create\" or "
		"\"host use\" one\n"
		"not ok 4 - t.nxs:7 param get\n"
		"# OK -ESRCH -3 \"No such process\"\n"
		"ok 5 - t.nxs:8 errno\n"
		"1..5\n"
		"# 2 passed, 3 failed\n");
	free_run(&r);

	r = run_script("errno 1\nexpect ERR\nerrno 2\n", NXSIM__DRV_TAP);
	assert_int_equal(r.rc, 1);
	assert_string_equal(r.out,
			    "# OK -EPERM -1 \"Operation not permitted\"\n"
			    "not ok 1 - t.nxs:1 errno\n"
			    "1..1\n"
			    "# 0 passed, 1 failed\n");
	free_run(&r);

	r = run_script("# only a comment\n", NXSIM__DRV_TAP);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out, "1..0\n# 0 passed, 0 failed\n");
	free_run(&r);
}

/* Destroying a host forgets its VMs and vCPUs; others stay. */
static void test_objects(void **state)
{
	struct run r =
		run_script("host create a\n"
			   "vm create va\n"
			   "vcpu create ca va 0\n"
			   "host create b\n"
			   "vm create vb\n"
			   "vm destroy va\n"
			   "host destroy a\n"
			   "expect OK\n"
			   "vm worker va\n"
			   "expect ERR -ENOENT\n"
			   "vcpu run ca\n"
			   "expect ERR -ENOENT\n"
			   "param get nx_huge_pages\n" /* b is current */
			   "expect OK \"N\\n\"\n"
			   "host use a\n"
			   "expect ERR -ENOENT\n"
			   "host use b\n"
			   "vm worker vb\n"
			   "expect OK state=none ...\n"
			   "vm create va\n"
			   "expect OK\n"
			   "vm create vc a\n"
			   "expect ERR -ENOENT\n"
			   "vcpu create vb vb 0\n"
			   "expect ERR -EEXIST\n"
			   "vm destroy vb\n"
			   "vm destroy va\n"
			   "host destroy b\n"
			   "expect OK\n"
			   "param get nx_huge_pages\n"
			   "expect ERR -ENOENT line 30: no current host:\n",
			   0);

	if (r.rc)
		fail_msg("%s", r.err);
	assert_string_equal(r.err, "");
	free_run(&r);
}

/*
 * A name is printed back bare in answers and messages, so it must be a
 * bare word: NUL, blanks, quotes, backslashes, control and non-ASCII
 * bytes and a leading '#' are refused, as is an empty or overlong name.
 */
static void test_names(void **state)
{
	static const char *const bad[] = {
		"\"a\\0b\"", "\"a b\"", "\"\"",	      "\"\\x01\"",
		"\"\\xff\"", "\"#x\"",	"\"a\\\"b\"", "\"a\\\\b\"",
	};
	char script[700], name[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct run r;

		snprintf(script, sizeof(script),
			 "host create h\nvm create %s\n"
			 "expect ERR -EINVAL line 2: a name is 1 to 255 "
			 "printable ASCII bytes, without blanks, quotes or "
			 "backslashes, not starting with '#'\n"
			 "vm create a\nexpect OK\n",
			 bad[i]);
		r = run_script(script, 0);
		if (r.rc)
			fail_msg("%s: %s", bad[i], r.err);
		free_run(&r);
	}
	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(script, sizeof(script),
		 "clock create %s\nexpect OK\nclock create %sn\n"
		 "expect ERR -ENAMETOOLONG\n",
		 name, name);
	{
		struct run r = run_script(script, 0);

		if (r.rc)
			fail_msg("%s", r.err);
		free_run(&r);
	}
}

/*
 * Seeded garbage: every line that is not blank, a comment or an expect
 * gets exactly one answer line, whatever it holds.
 */
static void test_one_answer_a_line(void **state)
{
	static const char *const words[] = {
		"host",	    "create", "vm",
		"vcpu",	    "param",  "set",
		"get",	    "write",  "clock",
		"advance",  "h0",     "v1",
		"c0",	    "0",      "99999999999999999999",
		"\"x\\n\"", "\"",     "#",
		"cpu=",	    "bugs=x", "1s",
		"-1",	    "errno",  "nx_huge_pages",
		"trace",    "stat",   "alloc",
		"stats",    "\\",     "=",
	};
	struct nxsim_rng rng;
	char *script = malloc(1 << 20), *p = script;
	unsigned int i, commands = 0, lines = 0;
	struct run r;

	nxsim_rng_seed(&rng, test_seed());
	p += sprintf(p, "host create h0\nvm create v1\n");
	commands = 2;
	for (i = 0; i < 3000; i++) {
		unsigned int n = nxsim_rng_below(&rng, 6) + 1, j;
		char *start = p;

		for (j = 0; j < n; j++)
			p += sprintf(p, "%s%s", j ? " " : "",
				     words[nxsim_rng_below(
					     &rng, sizeof(words) /
							   sizeof(words[0]))]);
		*p++ = '\n';
		/* a line whose first word is "#" is a comment */
		if (strncmp(start, "#", 1))
			commands++;
	}
	*p = '\0';
	r = run_script(script, 0);
	for (p = r.out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, commands);
	assert_int_equal(r.rc, 0);
	free_run(&r);
	free(script);
}

static void test_help_lists_every_verb(void **state)
{
	const struct nxsim__drv_verb *const *tab, *v;
	char *text = NULL, line[128];
	size_t len, n = 0;
	FILE *f = open_memstream(&text, &len);

	nxsim__drv_help(f);
	fclose(f);
	for (tab = nxsim__drv_tables; *tab; tab++) {
		for (v = *tab; v->group; v++, n++) {
			snprintf(line, sizeof(line), "\n  %s%s%s%s%s\n",
				 v->group, v->name ? " " : "",
				 v->name ? v->name : "", v->usage[0] ? " " : "",
				 v->usage);
			if (!strstr(text, line))
				fail_msg("--help lacks \"%s\"", line);
			/* the help's first words follow the usage line */
			snprintf(line + strlen(line),
				 sizeof(line) - strlen(line), "      %.20s",
				 v->help);
			if (!strstr(text, line))
				fail_msg("--help lacks \"%s\"", line);
		}
	}
	assert_true(n >= 29);
	assert_non_null(strstr(text, "expect OK|ERR"));
	free(text);
}

/*
 * "vm create" through the driver with each of its allocations failing in
 * turn: -ENOMEM, no name taken, nothing leaked; then it succeeds.
 */
/*
 * memslot, access, stat, mmu counters, check and dump: bad numbers,
 * unknown names and words, KVM's own refusals, and slot records forgotten
 * with their VM's name.
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lex),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_long_answers),
		cmocka_unit_test(test_expect),
		cmocka_unit_test(test_expect_unbalanced_message),
		cmocka_unit_test(test_control_bytes_escaped),
		cmocka_unit_test(test_bad_expects),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_keep_going),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_strict_keep_going),
		cmocka_unit_test(test_fail_on_err),
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_one_answer_a_line),
		cmocka_unit_test(test_help_lists_every_verb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
