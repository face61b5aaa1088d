// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text-trace line parsers, table-driven: ftrace and perf script lines
 * of kmem page events in both pfn eras, every header variant, every class
 * of bad input; lackey records; GFP flags and XPFO's user test; the
 * number parser under them (src/trace/text.c) at the widths where 64 bits
 * end, and against a digit-by-digit oracle on random strings.
 *
 * Good lines come from the committed captures (tests/fixtures) or, where
 * labelled "hand-written", from the formats of docs/traces.md and
 * include/trace/events/kmem.h.
 */
#include <string.h>

#include <nxsim/rng.h>

#include "common/test_util.h"
#include "trace/text.h"

#define HDR "            bash-8601    [000] .....  1211.423192: "
#define PAGE "page=0000000073deadfd "

struct line_case {
	const char *line;
	size_t len; /* 0: strlen(line) */
	int rc;
	uint8_t op;
	uint64_t addr;
	uint32_t pid;
	uint32_t cpu;
	uint64_t ts_ns;
	uint8_t order;
	int8_t mt;
	bool user;
	const char *why; /* NULL: any reason */
};

static const struct line_case kmem_cases[] = {
	/* captured, 6.18, hex era */
	{ HDR "mm_page_alloc: " PAGE "pfn=0x13e43c order=0 migratetype=0 "
	      "gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 0x13e43c, 8601, 0,
	  1211423192000ull, 0, 0, false },
	{ "             cc1-8606    [001] .....  1211.431822: mm_page_alloc: " PAGE
	  "pfn=0x1a31a4 order=2 migratetype=1 "
	  "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 0x1a31a4, 8606, 1,
	  1211431822000ull, 2, 1, true },
	{ HDR "mm_page_free: " PAGE "pfn=0x12fbe1 order=0", 0,
	  NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0x12fbe1, 8601, 0,
	  1211423192000ull, 0, -1, false },
	{ HDR "mm_page_free_batched: " PAGE "pfn=0x1 order=0", 0,
	  NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 1, 8601, 0,
	  1211423192000ull, 0, -1, false },
	/* GFP_NOFS has no __GFP_FS, so a kernel page (docs/traces.md) */
	{ "             cc1-30286   [001] .....  1076.474064: mm_page_alloc: "
	  "page=000000007fe6b4bc pfn=0x1a31a4 order=2 migratetype=1 "
	  "gfp_flags=GFP_NOFS|__GFP_HIGHMEM|__GFP_MOVABLE|__GFP_NOWARN|"
	  "__GFP_NORETRY|__GFP_COMP|__GFP_HARDWALL",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 0x1a31a4, 30286, 1,
	  1076474064000ull, 2, 1, false },
	/* hand-written, decimal era (pfn=%lu), 4-column flags */
	{ "            bash-1234  [002] d..1  4235.123456: mm_page_alloc: "
	  "page=ffffea0004b2a180 pfn=1231430 order=0 migratetype=1 "
	  "gfp_flags=GFP_HIGHUSER_MOVABLE",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 1231430, 1234, 2,
	  4235123456000ull, 0, 1, true },
	/* the last nanosecond a u64 holds */
	{ "  bash-1 [000] .... 18446744073.709551615: mm_page_free: "
	  "pfn=0x1 order=0",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 1, 1, 0, UINT64_MAX, 0,
	  -1, false },
	/* hand-written: old mm_page_free_batched printed no order */
	{ "  kswapd0-50 [003] .... 7.250000: mm_page_free_batched: "
	  "page=ffffea0004b2a180 pfn=4096 cold=0",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 4096, 50, 3,
	  7250000000ull, 0, -1, false },
	/* captured perf script lines: pid/tid and pid-only columns */
	{ "            perf  8645/8645  [001]  1213.700120:        "
	  "kmem:mm_page_alloc: page=0x17a436 pfn=0x17a436 order=0 "
	  "migratetype=0 gfp_flags=GFP_HIGHUSER|__GFP_ACCOUNT",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 0x17a436, 8645, 1,
	  1213700120000ull, 0, 0, true },
	{ "       perf-exec 30525/30526 [000]  1148.754262: kmem:mm_page_free: "
	  "page=0x12b33b pfn=0x12b33b order=1",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0x12b33b, 30526, 0,
	  1148754262000ull, 1, -1, false },
	{ "       perf-exec 30525 [000]  1148.754262: kmem:mm_page_free: "
	  "page=0x12b33b pfn=0x12b33b order=1",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0x12b33b, 30525, 0,
	  1148754262000ull, 1, -1, false },
	/* hand-written header variants: record-tgid, comm with a space, no
	 * irq-info column, one and nine fractional digits */
	{ "            bash-8601    (   8600) [000] .....  1.000002: "
	  "mm_page_free: " PAGE "pfn=0x2 order=3",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 2, 8601, 0,
	  1000002000ull, 3, -1, false },
	{ "   Web Content-4242    [001] d..1.  5.000001: mm_page_free: " PAGE
	  "pfn=0x10 order=0",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0x10, 4242, 1,
	  5000001000ull, 0, -1, false },
	{ "          <idle>-0       [001] 1.5: mm_page_free: " PAGE
	  "pfn=0x10 order=10",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0x10, 0, 1,
	  1500000000ull, 10, -1, false },
	{ "x-1 [8191] .... 2.123456789: mm_page_free: " PAGE
	  "pfn=0xffffffffff order=0",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_FREE, 0xffffffffffull, 1, 8191,
	  2123456789ull, 0, -1, false },
	/* the XPFO rule: THP allocations lack __GFP_KSWAPD_RECLAIM */
	{ HDR "mm_page_alloc: " PAGE "pfn=0x200 order=9 migratetype=1 "
	      "gfp_flags=GFP_TRANSHUGE|__GFP_THISNODE",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 0x200, 8601, 0,
	  1211423192000ull, 9, 1, false },
	/* new flag names and unnamed bits add nothing; "none" is 0 */
	{ HDR "mm_page_alloc: " PAGE "pfn=0x3 order=0 migratetype=2 "
	      "gfp_flags=GFP_HIGHUSER|__GFP_FROM_THE_FUTURE|0x40000000",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 3, 8601, 0,
	  1211423192000ull, 0, 2, true },
	{ HDR "mm_page_alloc: " PAGE "pfn=0x3 order=0 migratetype=2 "
	      "gfp_flags=none",
	  0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_ALLOC, 3, 8601, 0,
	  1211423192000ull, 0, 2, false },
	/* failed allocations, other events, headers, losses */
	{ HDR "mm_page_alloc: page=(null) pfn=0x0 order=9 migratetype=1 "
	      "gfp_flags=GFP_TRANSHUGE",
	  .len = 0, .rc = NXSIM_TRACE_LINE_FAILED },
	{ HDR "mm_page_alloc: page=0000000000000000 pfn=18446744073709551615 "
	      "order=0 migratetype=1 gfp_flags=GFP_KERNEL",
	  .len = 0, .rc = NXSIM_TRACE_LINE_FAILED },
	{ "  cc1 8606/8606 [001] 1.000000: kmem:mm_page_alloc: page=0x0 "
	  "pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_KERNEL",
	  .len = 0, .rc = NXSIM_TRACE_LINE_FAILED },
	{ HDR "mm_page_alloc_zone_locked: " PAGE "pfn=0x1 order=0 "
	      "migratetype=1 percpu_refill=1",
	  .len = 0, .rc = NXSIM_TRACE_LINE_OTHER },
	{ "  cc1 8606/8606 [001] 1.000000: kmem:kmalloc: call_site=x", .len = 0,
	  .rc = NXSIM_TRACE_LINE_OTHER },
	{ "# tracer: nop", .len = 0, .rc = NXSIM_TRACE_LINE_NONE },
	{ "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION", .len = 0,
	  .rc = NXSIM_TRACE_LINE_NONE },
	{ "", .len = 0, .rc = NXSIM_TRACE_LINE_NONE },
	{ "      ", .len = 0, .rc = NXSIM_TRACE_LINE_NONE },
	{ "CPU:1 [LOST 42 EVENTS]", 0, NXSIM_TRACE_LINE_LOST, .addr = 42 },

	/* malformed: -EINVAL */
	{ "bash-1 000 ..... 1.0: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash [000] ..... 1.0: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-x1 [000] ..... 1.0: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1076: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0123456789: mm_page_free: pfn=0x1 order=0",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0:", .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0xZZ order=0", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1 order=-1", .len = 0,
	  .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1 pfn=0x2 order=0",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1 order=0 junk",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: page=(null) pfn=0x0 order=0",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=0",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=0 gfp_flags=GFP_KERNEL||__GFP_ZERO",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=0 gfp_flags=gfp_kernel",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=0 gfp_flags=",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=x gfp_flags=GFP_KERNEL",
	  .len = 0, .rc = -EINVAL },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1\0 order=0", .len = 43,
	  .rc = -EINVAL },
	{ "\xff\xfe\x01\x02 garbage \x80\x81", .len = 0, .rc = -EINVAL },
	{ "CPU:1 [LOST many EVENTS]", .len = 0, .rc = -EINVAL },
	/* out of range: -ERANGE */
	{ "bash-4194305 [000] ..... 1.0: mm_page_free: pfn=0x1 order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [8192] ..... 1.0: mm_page_free: pfn=0x1 order=0", .len = 0,
	  .rc = -ERANGE },
	{ "bash-1 [000] ..... 18446744073.709551616: mm_page_free: pfn=0x1 "
	  "order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [000] ..... 18446744073.9: mm_page_free: pfn=0x1 order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [000] ..... 99999999999999999999.0: mm_page_free: pfn=0x1 "
	  "order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x10000000000 order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [000] ..... 1.0: mm_page_free: "
	  "pfn=99999999999999999999999 order=0",
	  .len = 0, .rc = -ERANGE },
	{ "bash-1 [000] ..... 1.0: mm_page_free: pfn=0x1 order=11", .len = 0,
	  .rc = -ERANGE },
	{ "bash-1 [000] ..... 1.0: mm_page_alloc: pfn=0x1 order=0 "
	  "migratetype=128 gfp_flags=GFP_KERNEL",
	  .len = 0, .rc = -ERANGE },
};

static const struct line_case lackey_cases[] = {
	/* captured (tests/fixtures/lackey-true.txt) */
	{ "I  0401ab70,3", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_IFETCH,
	  0x401ab70, .order = 3 },
	{ " L 1fff0000c0,1", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_LOAD,
	  0x1fff0000c0, .order = 1 },
	/* valgrind lackey's record format (docs/traces.md) */
	{ " S 1fff000430,16", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_STORE,
	  0x1fff000430, .order = 16 },
	{ " M 04033e06,1", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_MODIFY,
	  0x4033e06, .order = 1 },
	{ " S 0fffffffffffff,512", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_STORE,
	  0xfffffffffffffull, .order = 0 },
	{ "==8679== Command: /bin/true", .len = 0,
	  .rc = NXSIM_TRACE_LINE_NONE },
	{ "--8679-- warning: something", .len = 0,
	  .rc = NXSIM_TRACE_LINE_NONE },
	{ "", .len = 0, .rc = NXSIM_TRACE_LINE_NONE },
	{ "SB 04001000", .len = 0, .rc = NXSIM_TRACE_LINE_OTHER },
	{ "I 0401ab70,3", .len = 0, .rc = -EINVAL },
	{ " X 0401ab70,3", .len = 0, .rc = -EINVAL },
	{ " L 0401ab70", .len = 0, .rc = -EINVAL },
	{ " L zz,8", .len = 0, .rc = -EINVAL },
	{ " L ,8", .len = 0, .rc = -EINVAL },
	{ " L 1,", .len = 0, .rc = -EINVAL },
	{ " L 1,8 x", .len = 0, .rc = -EINVAL },
	{ " L 1,8\0", .len = 7, .rc = -EINVAL },
	{ "\xff\xfe\x01 garbage", .len = 0, .rc = -EINVAL },
	{ " L 10000000000000,8", .len = 0, .rc = -ERANGE },
	{ "I  ffffffffffffffffff,3", .len = 0, .rc = -ERANGE },
	/* leading zeros count for nothing, however many */
	{ " L 0000fffffffffffff,8", 0, NXSIM_TRACE_LINE_EVENT, NXSIM_TRACE_LOAD,
	  0xfffffffffffffull, .order = 8 },
	{ "I  000000000000000000000401ab70,3", 0, NXSIM_TRACE_LINE_EVENT,
	  NXSIM_TRACE_IFETCH, 0x401ab70, .order = 3 },
	{ " S 00000000000000000000,1", 0, NXSIM_TRACE_LINE_EVENT,
	  NXSIM_TRACE_STORE, 0, .order = 1 },
	/* 16 digits fit 64 bits, 17 do not: above the limit either way */
	{ " L ffffffffffffffff,8", .len = 0, .rc = -ERANGE,
	  .why = "address out of range" },
	{ " L 0ffffffffffffffff,8", .len = 0, .rc = -ERANGE,
	  .why = "address out of range" },
	{ " L 1ffffffffffffffff,8", .len = 0, .rc = -ERANGE,
	  .why = "address out of range" },
	/* a bad digit after an overflow is still a malformed address */
	{ " L 1ffffffffffffffffg,8", .len = 0, .rc = -EINVAL,
	  .why = "malformed address" },
	{ " L 00000000000000000000g,8", .len = 0, .rc = -EINVAL,
	  .why = "malformed address" },
	{ " L 0x401ab70,8", .len = 0, .rc = -EINVAL,
	  .why = "malformed address" },
	{ " L 401ab70,00000000000000000000008", 0, NXSIM_TRACE_LINE_EVENT,
	  NXSIM_TRACE_LOAD, 0x401ab70, .order = 8 },
	{ " L 401ab70,99999999999999999999", .len = 0, .rc = -ERANGE,
	  .why = "size out of range" },
	{ " L 401ab70,1a", .len = 0, .rc = -EINVAL, .why = "malformed size" },
	{ " L 1,0", .len = 0, .rc = -ERANGE },
	{ " L 1,1025", .len = 0, .rc = -ERANGE },
};

static void check_case(const struct line_case *c, bool lackey)
{
	size_t len = c->len ? c->len : strlen(c->line);
	struct nxsim_trace_event ev;
	const char *why = NULL;
	int rc;

	rc = lackey ? nxsim_trace_parse_lackey(c->line, len, &ev, &why) :
		      nxsim_trace_parse_kmem(c->line, len, &ev, &why);
	if (rc != c->rc)
		fail_msg("\"%s\": got %d (%s), want %d", c->line, rc,
			 rc < 0 ? why : "", c->rc);
	if (rc < 0) {
		assert_non_null(why);
		assert_true(strlen(why) > 0);
		if (c->why && strcmp(why, c->why))
			fail_msg("\"%s\": \"%s\", want \"%s\"", c->line, why,
				 c->why);
		return;
	}
	if (rc == NXSIM_TRACE_LINE_LOST)
		assert_int_equal(ev.addr, c->addr);
	if (rc != NXSIM_TRACE_LINE_EVENT)
		return;
	assert_int_equal(ev.op, c->op);
	assert_int_equal(ev.addr, c->addr);
	if (lackey) {
		/* .order holds the size in this table; 0 means 512 */
		assert_int_equal(ev.size, c->order ? c->order : 512);
		assert_int_equal(ev.ts_ns, 0);
		assert_int_equal(ev.cpu, 0);
		return;
	}
	assert_int_equal(ev.pid, c->pid);
	assert_int_equal(ev.cpu, c->cpu);
	assert_int_equal(ev.ts_ns, c->ts_ns);
	assert_int_equal(ev.order, c->order);
	assert_int_equal(ev.migratetype, c->mt);
	assert_int_equal(ev.user, c->user);
	if (c->op == NXSIM_TRACE_FREE)
		assert_int_equal(ev.gfp, 0);
}

static void test_kmem_lines(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kmem_cases); i++)
		check_case(&kmem_cases[i], false);
}

static void test_lackey_lines(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lackey_cases); i++)
		check_case(&lackey_cases[i], true);
}

/*
 * Every prefix of a good line is an error or a line kind, never a crash.
 * Cut inside gfp_flags= the rest can still read as flags (a name this
 * table does not know adds no bits), which is why a file whose last line
 * lacks its newline is rejected as truncated (test_trace_file.c).
 */
static void test_prefixes(void **state)
{
	const char *good = kmem_cases[1].line;
	size_t gfp = strstr(good, "gfp_flags=") - good + 10;
	struct nxsim_trace_event ev;
	const char *why;
	size_t n;

	for (n = 0; n < strlen(good); n++) {
		int rc = nxsim_trace_parse_kmem(good, n, &ev, &why);

		if (n > gfp)
			continue;
		/* "pfn=0x1a31a4" cut to "pfn=0" reads as a failed alloc */
		assert_true(rc == -EINVAL || rc == -ERANGE ||
			    rc == NXSIM_TRACE_LINE_NONE ||
			    rc == NXSIM_TRACE_LINE_OTHER ||
			    rc == NXSIM_TRACE_LINE_FAILED);
	}
	for (n = 0; n < 13; n++) {
		int rc =
			nxsim_trace_parse_lackey("I  0401ab70,3", n, &ev, &why);

		assert_true(n == 0 ? rc == NXSIM_TRACE_LINE_NONE :
				     rc == -EINVAL);
	}
}

static const struct gfp_case {
	const char *text;
	int rc;
	uint32_t gfp;
	bool user;
} gfp_cases[] = {
	{ "none", 0, 0, false },
	{ "GFP_HIGHUSER", 0, NXSIM_GFP_HIGHUSER, true },
	{ "GFP_USER|__GFP_HIGHMEM", 0, NXSIM_GFP_HIGHUSER, true },
	{ "GFP_KERNEL|__GFP_HARDWALL|__GFP_HIGHMEM", 0, NXSIM_GFP_HIGHUSER,
	  true },
	{ "GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP", 0,
	  NXSIM_GFP_HIGHUSER | NXSIM_GFP_MOVABLE | NXSIM_GFP_ZERO |
		  NXSIM_GFP_COMP,
	  true },
	{ "GFP_KERNEL", 0,
	  NXSIM_GFP_DIRECT_RECLAIM | NXSIM_GFP_KSWAPD_RECLAIM | NXSIM_GFP_IO |
		  NXSIM_GFP_FS,
	  false },
	/* v1 of XPFO tested "any bit in common": GFP_KERNEL would match */
	{ "GFP_USER", 0,
	  NXSIM_GFP_DIRECT_RECLAIM | NXSIM_GFP_KSWAPD_RECLAIM | NXSIM_GFP_IO |
		  NXSIM_GFP_FS | NXSIM_GFP_HARDWALL,
	  false },
	{ "GFP_TRANSHUGE_LIGHT", 0,
	  NXSIM_GFP_IO | NXSIM_GFP_FS | NXSIM_GFP_HARDWALL | NXSIM_GFP_HIGHMEM |
		  NXSIM_GFP_MOVABLE | NXSIM_GFP_COMP | NXSIM_GFP_NOMEMALLOC |
		  NXSIM_GFP_NOWARN,
	  false },
	{ "GFP_NOWAIT|__GFP_SKIP_KASAN_POISON|0x8000000", 0,
	  NXSIM_GFP_KSWAPD_RECLAIM | NXSIM_GFP_SKIP_KASAN, false },
	{ "", .rc = -EINVAL },
	{ "|", .rc = -EINVAL },
	{ "GFP_KERNEL|", .rc = -EINVAL },
	{ "GFP_kernel", .rc = -EINVAL },
	{ "0xZ", .rc = -EINVAL },
	{ "GFP", .rc = -EINVAL },
	{ "none|GFP_KERNEL", .rc = -EINVAL },
};

static void test_gfp(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gfp_cases); i++) {
		const struct gfp_case *c = &gfp_cases[i];
		uint32_t gfp = 0xdead;
		int rc = nxsim_trace_parse_gfp(c->text, strlen(c->text), &gfp);

		if (rc != c->rc)
			fail_msg("\"%s\": got %d", c->text, rc);
		if (rc) {
			assert_int_equal(gfp, 0xdead);
			continue;
		}
		assert_int_equal(gfp, c->gfp);
		assert_int_equal(nxsim_trace_gfp_user(gfp), c->user);
	}
}

/* Whatever a parser answers, an event it delivers is within the limits. */
static void check_event_limits(int rc, const struct nxsim_trace_event *ev)
{
	assert_true(
		rc == -EINVAL || rc == -ERANGE ||
		(rc >= NXSIM_TRACE_LINE_NONE && rc <= NXSIM_TRACE_LINE_LOST));
	if (rc != NXSIM_TRACE_LINE_EVENT)
		return;
	if (ev->op == NXSIM_TRACE_ALLOC || ev->op == NXSIM_TRACE_FREE) {
		assert_true(ev->addr <= NXSIM_TRACE_MAX_PFN);
		assert_true(ev->order <= NXSIM_TRACE_MAX_ORDER);
		assert_true(ev->cpu <= NXSIM_TRACE_MAX_CPU);
		assert_true(ev->pid <= NXSIM_TRACE_MAX_PID);
		assert_int_equal(ev->user, nxsim_trace_gfp_user(ev->gfp));
	} else {
		assert_true(ev->op >= NXSIM_TRACE_IFETCH &&
			    ev->op <= NXSIM_TRACE_MODIFY);
		assert_true(ev->addr <= NXSIM_TRACE_MAX_ADDR);
		assert_true(ev->size >= 1 && ev->size <= NXSIM_TRACE_MAX_SIZE);
	}
}

/*
 * One to four seeded mutations of @line (@len bytes; room for @cap):
 * bytes flipped, replaced by digits, blanks, separators, dropped or
 * duplicated.  An empty line first gets one byte.
 */
static void mutate(struct nxsim_rng *rng, char *line, size_t *len, size_t cap)
{
	static const char alphabet[] = "0123456789abcdefx .:=|[]()-/_#\0\n\xff";
	size_t n, k;

	if (!*len)
		line[(*len)++] =
			alphabet[nxsim_rng_below(rng, sizeof(alphabet) - 1)];
	for (n = nxsim_rng_below(rng, 4) + 1; n-- && *len;) {
		size_t at = nxsim_rng_below(rng, *len);

		switch (nxsim_rng_below(rng, 4)) {
		case 0:
			line[at] ^= 1u << nxsim_rng_below(rng, 8);
			break;
		case 1:
			line[at] = alphabet[nxsim_rng_below(
				rng, sizeof(alphabet) - 1)];
			break;
		case 2:
			memmove(line + at, line + at + 1, *len - at - 1);
			(*len)--;
			break;
		case 3:
			if (*len + 8 >= cap)
				break;
			k = nxsim_rng_below(rng, 8) + 1;
			memmove(line + at + k, line + at, *len - at);
			*len += k;
			break;
		}
	}
}

static const struct number_case {
	const char *text;
	unsigned int base;
	uint64_t max;
	int rc;
	uint64_t v;
} number_cases[] = {
	{ "0", 16, UINT64_MAX, 0, 0 },
	{ "F", 16, UINT64_MAX, 0, 15 },
	{ "fffffffffffffff", 16, UINT64_MAX, 0, 0xfffffffffffffffull },
	/* 16 digits: the widest that fits */
	{ "ffffffffffffffff", 16, UINT64_MAX, 0, UINT64_MAX },
	{ "8000000000000000", 16, UINT64_MAX, 0, 1ull << 63 },
	/* 17 digits, one a leading zero; many leading zeros */
	{ "0ffffffffffffffff", 16, UINT64_MAX, 0, UINT64_MAX },
	{ "000000000000000000000000000001", 16, UINT64_MAX, 0, 1 },
	{ "00000000000000000000", 16, UINT64_MAX, 0, 0 },
	/* 17 significant digits */
	{ "10000000000000000", 16, UINT64_MAX, -ERANGE },
	{ "0010000000000000000", 16, UINT64_MAX, -ERANGE },
	{ "fffffffffffffffffffffffff", 16, UINT64_MAX, -ERANGE },
	/* every digit is read: a bad one wins over an overflow */
	{ "10000000000000000x", 16, UINT64_MAX, -EINVAL },
	{ "0000000000000000000-", 16, UINT64_MAX, -EINVAL },
	{ "", 16, UINT64_MAX, -EINVAL },
	{ "0x10", 16, UINT64_MAX, -EINVAL },
	{ " 1", 16, UINT64_MAX, -EINVAL },
	/* the limit */
	{ "f", 16, 15, 0, 15 },
	{ "10", 16, 15, -ERANGE },
	{ "000f", 16, 15, 0, 15 },
	{ "fffffffffffff", 16, (1ull << 52) - 1, 0, (1ull << 52) - 1 },
	{ "10000000000000", 16, (1ull << 52) - 1, -ERANGE },
	/* base 0: "0x" is base 16 */
	{ "0x0ffffffffffffffff", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "0X10000000000000000", 0, UINT64_MAX, -ERANGE },
	{ "0x", 0, UINT64_MAX, -EINVAL },
	{ "0x1g", 0, UINT64_MAX, -EINVAL },
	{ "0xf", 0, 15, 0, 15 },
	/* base 10 */
	{ "18446744073709551615", 10, UINT64_MAX, 0, UINT64_MAX },
	{ "000000000000018446744073709551615", 10, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 10, UINT64_MAX, -ERANGE },
	{ "99999999999999999999a", 10, UINT64_MAX, -EINVAL },
	{ "1f", 10, UINT64_MAX, -EINVAL },
	{ "1024", 0, 1024, 0, 1024 },
	{ "1025", 10, 1024, -ERANGE },
};

static void test_numbers(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(number_cases); i++) {
		const struct number_case *c = &number_cases[i];
		uint64_t v = 0xdead;
		int rc = nxsim__trace_number(c->text, strlen(c->text), c->base,
					     c->max, &v);

		if (rc != c->rc)
			fail_msg("\"%s\" base %u: got %d, want %d", c->text,
				 c->base, rc, c->rc);
		assert_int_equal(v, rc ? 0xdead : c->v);
	}
}

/*
 * nxsim__trace_number() as its contract states it, digit by digit with a
 * checked multiply in every base: the oracle for the random strings.
 */
static int number_oracle(const char *s, size_t len, unsigned int base,
			 uint64_t max, uint64_t *v)
{
	uint64_t val = 0;
	bool range = false;
	size_t i;

	if (base == 0) {
		base = 10;
		if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
			len -= 2;
		}
	}
	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (__builtin_mul_overflow(val, base, &val) ||
		    __builtin_add_overflow(val, d, &val))
			range = true;
	}
	if (range || val > max)
		return -ERANGE;
	*v = val;
	return 0;
}

/*
 * Random strings around the widths that matter (leading zeros, 15 to 21
 * significant digits, a stray byte now and then) in bases 16, 10 and 0
 * under several limits: the same answer and value as the oracle.
 */
static void test_number_oracle(void **state)
{
	static const char digits[] = "0123456789abcdefABCDEF";
	static const char stray[] = "xXg -+,\0\xff";
	static const unsigned int bases[] = { 16, 10, 0 };
	static const uint64_t maxes[] = { UINT64_MAX, (1ull << 52) - 1, 1024,
					  0 };
	struct nxsim_rng rng;
	char s[48];
	unsigned int i;

	nxsim_rng_seed(&rng, test_seed());
	for (i = 0; i < 200000; i++) {
		unsigned int base = bases[nxsim_rng_below(&rng, 3)];
		uint64_t max = maxes[nxsim_rng_below(&rng, 4)];
		size_t zeros = nxsim_rng_below(&rng, 4) ?
				       0 :
				       nxsim_rng_below(&rng, 20);
		size_t sig = nxsim_rng_below(&rng, 23), len = 0, k;
		uint64_t got = 0xdead, want = 0xdead;
		int rc, wrc;

		if (base == 0 && nxsim_rng_below(&rng, 2)) {
			s[len++] = '0';
			s[len++] = nxsim_rng_below(&rng, 2) ? 'x' : 'X';
		}
		for (k = 0; k < zeros; k++)
			s[len++] = '0';
		for (k = 0; k < sig; k++)
			s[len++] = digits[nxsim_rng_below(
				&rng, base == 10 ? 10 : sizeof(digits) - 1)];
		if (len && !nxsim_rng_below(&rng, 8))
			s[nxsim_rng_below(&rng, len)] =
				stray[nxsim_rng_below(&rng, sizeof(stray) - 1)];
		assert_true(len <= sizeof(s));
		rc = nxsim__trace_number(s, len, base, max, &got);
		wrc = number_oracle(s, len, base, max, &want);
		if (rc != wrc || got != want)
			fail_msg("\"%.*s\" base %u max %llu: got %d %llu, "
				 "want %d %llu",
				 (int)len, s, base, (unsigned long long)max, rc,
				 (unsigned long long)got, wrc,
				 (unsigned long long)want);
	}
}

#define MUTATIONS_PER_ROW 4000

/*
 * Every row of both line tables, good and bad, mutated MUTATIONS_PER_ROW
 * times: never a crash (ASan/UBSan watch), never an event outside the
 * limits.  Not a fuzzer: this keeps the invariant in every run.
 */
static void test_mutations(void **state)
{
	static const struct {
		const struct line_case *rows;
		size_t n;
		bool lackey;
	} tables[] = {
		{ kmem_cases, ARRAY_SIZE(kmem_cases), false },
		{ lackey_cases, ARRAY_SIZE(lackey_cases), true },
	};
	struct nxsim_rng rng;
	struct nxsim_trace_event ev;
	const char *why;
	char line[512];
	size_t t, r, len;
	unsigned int i;
	int rc;

	nxsim_rng_seed(&rng, test_seed());
	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		for (r = 0; r < tables[t].n; r++) {
			const struct line_case *c = &tables[t].rows[r];
			size_t clen = c->len ? c->len : strlen(c->line);

			assert_true(clen < sizeof(line));
			for (i = 0; i < MUTATIONS_PER_ROW; i++) {
				memcpy(line, c->line, clen);
				len = clen;
				mutate(&rng, line, &len, sizeof(line));
				rc = tables[t].lackey ?
					     nxsim_trace_parse_lackey(
						     line, len, &ev, &why) :
					     nxsim_trace_parse_kmem(line, len,
								    &ev, &why);
				check_event_limits(rc, &ev);
			}
		}
	}
}

/* Every row of the GFP table mutated: 0, or -EINVAL leaving *gfp alone. */
static void test_gfp_mutations(void **state)
{
	struct nxsim_rng rng;
	char text[128];
	size_t r, len;
	unsigned int i;

	nxsim_rng_seed(&rng, test_seed());
	for (r = 0; r < ARRAY_SIZE(gfp_cases); r++) {
		size_t clen = strlen(gfp_cases[r].text);

		assert_true(clen < sizeof(text));
		for (i = 0; i < MUTATIONS_PER_ROW; i++) {
			uint32_t gfp = 0xdead;
			int rc;

			memcpy(text, gfp_cases[r].text, clen);
			len = clen;
			mutate(&rng, text, &len, sizeof(text));
			rc = nxsim_trace_parse_gfp(text, len, &gfp);
			assert_true(rc == 0 || rc == -EINVAL);
			if (rc)
				assert_int_equal(gfp, 0xdead);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmem_lines),
		cmocka_unit_test(test_lackey_lines),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_gfp),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_oracle),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_gfp_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
