// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim_trace_replay_xpfo() and nxsim_trace_frames(): each kind of page
 * event onto a small machine (user and kernel allocations of 2^order
 * frames, frees, the CPU and domain each lands on, context switches when a
 * CPU's task changes), the reconciliations (frees of free frames,
 * allocations of allocated frames, frames past the machine, lackey
 * records), a bad line stopping the replay, the same trace through text
 * and binary, and a replay that allocates nothing; and a lackey log
 * replayed onto a TLB (nxsim_trace_replay_tlb()).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test_util.h"

#define HDR "           task-%u    [%03u] .....  100.%06u: "
#define USER_GFP "GFP_HIGHUSER_MOVABLE|__GFP_COMP"
#define KERNEL_GFP "GFP_KERNEL|__GFP_ZERO"

/* One line of ftrace text: alloc (user or kernel) or free. */
static size_t line(char *buf, size_t size, const char *what, unsigned int pid,
		   unsigned int cpu, uint64_t pfn, unsigned int order)
{
	static unsigned int ts;
	int n;

	if (!strcmp(what, "free"))
		n = snprintf(buf, size,
			     HDR "mm_page_free: page=0000000000000001 "
				 "pfn=0x%llx order=%u\n",
			     pid, cpu, ts++, (unsigned long long)pfn, order);
	else
		n = snprintf(buf, size,
			     HDR "mm_page_alloc: page=0000000000000001 "
				 "pfn=0x%llx order=%u migratetype=0 "
				 "gfp_flags=%s\n",
			     pid, cpu, ts++, (unsigned long long)pfn, order,
			     !strcmp(what, "user") ? USER_GFP : KERNEL_GFP);
	return n;
}

struct ev {
	const char *what; /* "user", "kernel", "free"; NULL ends */
	unsigned int pid, cpu;
	uint64_t pfn;
	unsigned int order;
};

struct frame_want {
	uint64_t pfn;
	enum nxsim_xpfo_owner owner;
	uint16_t domain;
};

static const struct replay_case {
	const char *name;
	struct ev ev[6];
	struct nxsim_trace_replay rep;
	uint64_t alloc_kernel, alloc_user, frees;
	uint64_t switches_cpu1;
	struct frame_want frames[3];
} cases[] = {
	{ .name = "kernel order 1: two frames, pid 0 needs no switch",
	  .ev = { { "kernel", 0, 0, 8, 1 } },
	  .rep = { .events = 1, .frames = 2 },
	  .alloc_kernel = 2,
	  .alloc_user = 0,
	  .frees = 0,
	  .switches_cpu1 = 0,
	  .frames = { { 8, NXSIM_XPFO_KERNEL, 0 },
		      { 9, NXSIM_XPFO_KERNEL, 0 } } },
	{ .name = "user page of pid 100 on CPU 1: domain 101, one switch",
	  .ev = { { "user", 100, 1, 20, 0 } },
	  .rep = { .events = 1, .frames = 1, .switches = 1 },
	  .alloc_kernel = 0,
	  .alloc_user = 1,
	  .frees = 0,
	  .switches_cpu1 = 1,
	  .frames = { { 20, NXSIM_XPFO_USER, 101 } } },
	{ .name = "pid 65535 wraps to domain 1; CPU 3 of 2 is CPU 1",
	  .ev = { { "user", 65535, 3, 20, 0 }, { "user", 65535, 3, 21, 0 } },
	  .rep = { .events = 2, .frames = 2, .switches = 1 },
	  .alloc_kernel = 0,
	  .alloc_user = 2,
	  .frees = 0,
	  .switches_cpu1 = 1,
	  .frames = { { 20, NXSIM_XPFO_USER, 1 },
		      { 21, NXSIM_XPFO_USER, 1 } } },
	{ .name = "a task change on a CPU switches, the same task does not",
	  .ev = { { "user", 7, 0, 1, 0 },
		  { "user", 7, 0, 2, 0 },
		  { "user", 8, 0, 3, 0 },
		  { "kernel", 0, 0, 4, 0 } },
	  .rep = { .events = 4, .frames = 4, .switches = 3 },
	  .alloc_kernel = 1,
	  .alloc_user = 3,
	  .frees = 0,
	  .switches_cpu1 = 0,
	  .frames = { { 1, NXSIM_XPFO_USER, 8 },
		      { 3, NXSIM_XPFO_USER, 9 },
		      { 4, NXSIM_XPFO_KERNEL, 0 } } },
	{ .name = "alloc then free; a free of a free frame is skipped",
	  .ev = { { "kernel", 0, 0, 5, 0 },
		  { "free", 0, 0, 5, 0 },
		  { "free", 0, 0, 6, 0 } },
	  .rep = { .events = 3, .frames = 2, .unmatched_frees = 1 },
	  .alloc_kernel = 1,
	  .alloc_user = 0,
	  .frees = 1,
	  .switches_cpu1 = 0,
	  .frames = { { 5, NXSIM_XPFO_FREE, 0 }, { 6, NXSIM_XPFO_FREE, 0 } } },
	{ .name = "a lost free: the frame is freed before its new allocation",
	  .ev = { { "kernel", 0, 0, 5, 0 }, { "user", 3, 0, 5, 0 } },
	  .rep = { .events = 2, .frames = 2, .switches = 1, .double_allocs = 1 },
	  .alloc_kernel = 1,
	  .alloc_user = 1,
	  .frees = 1,
	  .switches_cpu1 = 0,
	  .frames = { { 5, NXSIM_XPFO_USER, 4 } } },
	{ .name = "frames past the machine are skipped, the rest replayed",
	  .ev = { { "kernel", 0, 0, 62, 2 } },
	  .rep = { .events = 1, .frames = 2, .out_of_range = 2 },
	  .alloc_kernel = 2,
	  .alloc_user = 0,
	  .frees = 0,
	  .switches_cpu1 = 0,
	  .frames = { { 62, NXSIM_XPFO_KERNEL, 0 },
		      { 63, NXSIM_XPFO_KERNEL, 0 } } },
};

static size_t build(char *buf, size_t size, const struct ev *ev)
{
	size_t len = 0;

	for (; ev->what; ev++)
		len += line(buf + len, size - len, ev->what, ev->pid, ev->cpu,
			    ev->pfn, ev->order);
	return len;
}

static struct nxsim_xpfo *machine(unsigned int cpus, uint64_t frames)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = cpus,
					 .nr_frames = frames,
					 .version = NXSIM_XPFO_V6,
					 .policy = "eager" };
	struct nxsim_xpfo *m;

	assert_rc(nxsim_xpfo_create(&cfg, &m), 0);
	return m;
}

static void test_cases(void **state)
{
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct replay_case *c = &cases[i];
		struct nxsim_xpfo *m = machine(2, 64);
		struct nxsim_trace_replay rep;
		struct nxsim_xpfo_frame_info fi;
		struct nxsim_xpfo_cpu_info ci;
		struct nxsim_xpfo_result res;
		struct nxsim_trace *t;
		char buf[2048];
		size_t len = build(buf, sizeof(buf), c->ev);

		print_message("# %s\n", c->name);
		assert_rc(nxsim_trace_open_buf(buf, len, NXSIM_TRACE_FTRACE, &t,
					       NULL),
			  0);
		assert_rc(nxsim_trace_replay_xpfo(t, m, &rep), 0);
		assert_memory_equal(&rep, &c->rep, sizeof(rep));
		assert_rc(nxsim_xpfo_result(m, &res), 0);
		assert_int_equal(res.xpfo.alloc_kernel, c->alloc_kernel);
		assert_int_equal(res.xpfo.alloc_user, c->alloc_user);
		assert_int_equal(res.xpfo.frees, c->frees);
		assert_int_equal(res.xpfo.context_switches, c->rep.switches);
		assert_rc(nxsim_xpfo_cpu(m, 1, &ci), 0);
		assert_int_equal(ci.context_switches, c->switches_cpu1);
		for (k = 0; k < 3 && c->frames[k].pfn; k++) {
			assert_rc(nxsim_xpfo_frame(m, c->frames[k].pfn, &fi),
				  0);
			assert_int_equal(fi.owner, c->frames[k].owner);
			if (fi.owner == NXSIM_XPFO_USER)
				assert_int_equal(fi.domain,
						 c->frames[k].domain);
		}
		nxsim_trace_close(t);
		nxsim_xpfo_destroy(m);
	}
}

/* A bad line stops the replay there; what came before stays replayed. */
static void test_bad_line(void **state)
{
	struct nxsim_xpfo *m = machine(1, 64);
	struct nxsim_trace_replay rep;
	struct nxsim_xpfo_frame_info fi;
	struct nxsim_trace *t;
	char buf[1024];
	size_t len = line(buf, sizeof(buf), "kernel", 0, 0, 3, 0);

	len += snprintf(buf + len, sizeof(buf) - len,
			HDR "mm_page_alloc: page=1 pfn=0xzz order=0\n", 1, 0,
			0);
	len += line(buf + len, sizeof(buf) - len, "kernel", 0, 0, 4, 0);
	assert_rc(nxsim_trace_open_buf(buf, len, NXSIM_TRACE_FTRACE, &t, NULL),
		  0);
	assert_rc(nxsim_trace_replay_xpfo(t, m, &rep), -EINVAL);
	assert_non_null(strstr(nxsim_trace_error(t), "line 2"));
	assert_int_equal(rep.events, 1);
	assert_rc(nxsim_xpfo_frame(m, 3, &fi), 0);
	assert_int_equal(fi.owner, NXSIM_XPFO_KERNEL);
	assert_rc(nxsim_xpfo_frame(m, 4, &fi), 0);
	assert_int_equal(fi.owner, NXSIM_XPFO_FREE);
	assert_rc(nxsim_trace_replay_xpfo(NULL, m, &rep), -EINVAL);
	assert_rc(nxsim_trace_replay_xpfo(t, NULL, &rep), -EINVAL);
	assert_rc(nxsim_trace_replay_xpfo(t, m, NULL), -EINVAL);
	assert_int_equal(nxsim_trace_frames(t, NULL), -EINVAL);
	assert_int_equal(nxsim_trace_frames(NULL, NULL), -EINVAL);
	nxsim_trace_close(t);
	nxsim_xpfo_destroy(m);
}

/* Lackey records are no page events: counted, nothing replayed. */
static void test_lackey(void **state)
{
	static const char lk[] = "I  04000000,3\n L 04000010,8\n"
				 " S 04000020,8\n M 04000030,4\n";
	struct nxsim_xpfo *m = machine(1, 64);
	struct nxsim_trace_replay rep;
	struct nxsim_xpfo_result res;
	struct nxsim_trace *t;
	unsigned int cpus = 7;

	assert_rc(nxsim_trace_open_buf(lk, strlen(lk), NXSIM_TRACE_LACKEY, &t,
				       NULL),
		  0);
	assert_int_equal(nxsim_trace_frames(t, &cpus), 0);
	assert_int_equal(cpus, 0);
	assert_rc(nxsim_trace_replay_xpfo(t, m, &rep), 0);
	assert_int_equal(rep.accesses, 4);
	assert_int_equal(rep.events, 0);
	assert_rc(nxsim_xpfo_result(m, &res), 0);
	assert_int_equal(res.events, 0);
	nxsim_trace_close(t);
	nxsim_xpfo_destroy(m);
}

/*
 * nxsim_trace_frames() sizes the machine and rewinds; text and its binary
 * conversion replay to the same result; the replay allocates nothing.
 */
static void test_frames_binary(void **state)
{
	static const struct ev evs[] = {
		{ "user", 5, 2, 0x40, 3 },
		{ "kernel", 0, 1, 0x10, 0 },
		{ "free", 5, 0, 0x42, 0 },
		{ NULL },
	};
	struct nxsim_xpfo_result res[2];
	struct nxsim_trace_replay rep[2];
	struct nxsim_trace *t;
	char buf[1024], path[64];
	size_t len = build(buf, sizeof(buf), evs);
	unsigned int cpus, i;
	int64_t frames;

	snprintf(path, sizeof(path), "/tmp/nxsim-replay-%d.bin", getpid());
	for (i = 0; i < 2; i++) {
		struct nxsim_xpfo *m;
		uint64_t live;

		if (i == 0) {
			assert_rc(nxsim_trace_open_buf(
					  buf, len, NXSIM_TRACE_AUTO, &t, NULL),
				  0);
		} else {
			assert_int_equal(nxsim_trace_write_binary(t, path), 3);
			nxsim_trace_close(t);
			assert_rc(nxsim_trace_open(path, NXSIM_TRACE_AUTO, &t,
						   NULL),
				  0);
			assert_int_equal(nxsim_trace_format(t),
					 NXSIM_TRACE_BINARY);
		}
		frames = nxsim_trace_frames(t, &cpus);
		assert_int_equal(frames, 0x48);
		assert_int_equal(cpus, 3);
		m = machine(cpus, frames);
		nxsim_alloc_fail_nth(1);
		live = test_live_allocs();
		assert_rc(nxsim_trace_replay_xpfo(t, m, &rep[i]), 0);
		assert_true(nxsim_alloc_fail_pending()); /* nothing allocated */
		nxsim_alloc_fail_nth(0);
		assert_int_equal(test_live_allocs(), live);
		assert_rc(nxsim_xpfo_result(m, &res[i]), 0);
		nxsim_xpfo_destroy(m);
		nxsim_trace_rewind(t);
	}
	nxsim_trace_close(t);
	unlink(path);
	assert_int_equal(rep[0].events, 3);
	assert_int_equal(rep[0].frames, 10);
	assert_int_equal(res[0].xpfo.alloc_user, 8);
	assert_memory_equal(&rep[0], &rep[1], sizeof(rep[0]));
	assert_memory_equal(&res[0], &res[1], sizeof(res[0]));
}

/*
 * A lackey log onto one CPU: iTLB and dTLB sides sharing the L2, a page
 * crossing looked up page by page, a modify as a load and a store, the
 * log's PCID.
 */
static void test_tlb(void **state)
{
	static const char lk[] = "==1== Lackey\n"
				 "I  04000000,3\n"  /* miss, fill L1I + L2 */
				 "I  04000004,3\n"  /* L1I hit */
				 " L 04000010,8\n"  /* L1D miss, L2 hit */
				 " S 04001ffc,8\n"  /* two pages, two misses */
				 " M 04001000,4\n"; /* L1D hit twice */
	struct nxsim_trace_tlb_replay rep;
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb_entry e;
	struct nxsim_tlb_stats st;
	struct nxsim_trace *t;
	struct nxsim_tlb *tlb;
	char buf[512];
	size_t len;

	nxsim_tlb_config_default(&cfg, 2);
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	assert_rc(nxsim_trace_open_buf(lk, strlen(lk), NXSIM_TRACE_AUTO, &t,
				       NULL),
		  0);
	assert_rc(nxsim_trace_replay_tlb(t, tlb, 1, 5, &rep), 0);
	assert_int_equal(rep.accesses, 5);
	assert_int_equal(rep.lookups, 7);
	assert_int_equal(rep.misses, 3);
	assert_int_equal(rep.crossings, 1);
	assert_int_equal(rep.page_events, 0);
	assert_rc(nxsim_tlb_stats(tlb, 1, &st), 0);
	assert_int_equal(st.hits[NXSIM_TLB_L1I], 1);
	assert_int_equal(st.hits[NXSIM_TLB_L2], 1);
	assert_int_equal(st.hits[NXSIM_TLB_L1D], 2);
	assert_int_equal(st.misses, 3);
	assert_int_equal(st.cr3_noflush, 1);
	/* the translations are the log's PCID's, 4K, frame = page */
	assert_rc(nxsim_tlb_lookup(tlb, 1, NXSIM_TLB_READ, 0x4002000, &e), 0);
	assert_int_equal(e.pcid, 5);
	assert_int_equal(e.page_shift, NXSIM_TLB_SHIFT_4K);
	assert_int_equal(e.pfn, 0x4002);
	assert_false(e.global);
	assert_rc(nxsim_tlb_write_cr3(tlb, 1, 6, true), 0);
	assert_rc(nxsim_tlb_lookup(tlb, 1, NXSIM_TLB_READ, 0x4002000, NULL),
		  -ENOENT);
	assert_rc(nxsim_tlb_stats(tlb, 0, &st), 0);
	assert_int_equal(st.misses + st.fills, 0); /* CPU 0 untouched */

	nxsim_trace_rewind(t);
	assert_rc(nxsim_trace_replay_tlb(t, tlb, 2, 5, &rep), -EINVAL);
	assert_rc(nxsim_trace_replay_tlb(t, tlb, 0, NXSIM_TLB_NR_PCIDS, &rep),
		  -EINVAL);
	assert_rc(nxsim_trace_replay_tlb(NULL, tlb, 0, 1, &rep), -EINVAL);
	assert_rc(nxsim_trace_replay_tlb(t, NULL, 0, 1, &rep), -EINVAL);
	assert_rc(nxsim_trace_replay_tlb(t, tlb, 0, 1, NULL), -EINVAL);
	nxsim_trace_close(t);

	/* page events are counted and skipped */
	len = line(buf, sizeof(buf), "kernel", 0, 0, 8, 1);
	len += line(buf + len, sizeof(buf) - len, "free", 0, 0, 8, 1);
	assert_rc(nxsim_trace_open_buf(buf, len, NXSIM_TRACE_FTRACE, &t, NULL),
		  0);
	assert_rc(nxsim_trace_replay_tlb(t, tlb, 0, 1, &rep), 0);
	assert_int_equal(rep.page_events, 2);
	assert_int_equal(rep.accesses + rep.lookups, 0);
	nxsim_trace_close(t);
	nxsim_tlb_destroy(tlb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_bad_line),
		cmocka_unit_test(test_lackey),
		cmocka_unit_test(test_frames_binary),
		cmocka_unit_test(test_tlb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
