// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nxsim driver's verbs, in process: the argument handling of the MMU
 * and XPFO verbs, a replay on many CPUs, and allocation failure walks
 * through verbs (vm create, xpfo create, a faulting access, memslot add,
 * replay).  The protocol itself: test_driver.c.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver_run.h"

static void test_mmu_verbs(void **state)
{
	uint64_t live = test_live_allocs();
	struct run r =
		run_script("host create h0 cpu=itlb_multihit\n"
			   "vm create v1\n"
			   "vcpu create c0 v1 0\n"
			   "memslot add v1 1 0x100000 0x200000 level=2m\n"
			   "memslot add nope 1 0 0x1000\n"
			   "memslot add v1 x 0 0x1000\n"
			   "memslot add v1 1 0 0\n"
			   "memslot add v1 2 0 0x1000 level=4m\n"
			   "memslot add v1 2 0 0x1000 hva=-1\n"
			   "memslot add v1 2 0 0x1000 readonly=yes\n"
			   "memslot add v1 2 0 0x1000 color=red\n"
			   "memslot add v1 2 0 0x1000 hva=0x1001\n"
			   "memslot add v1 2 0x100000 0x1000\n"
			   "memslot add v1 1 0x800000 0x1000\n"
			   "memslot add v1 131072 0x800000 0x1000\n"
			   "memslot delete v1 2\n"
			   "memslot delete v1 4294967296\n"
			   "memslot move v1 2 0\n"
			   "memslot move v1 1 zero\n"
			   "memslot dirty-log v1 1 sideways\n"
			   "memslot host-level v1 1 0 0x1000 2k\n"
			   "memslot host-level v1 9 0 0x1000 4k\n"
			   "memslot host-level v1 1 0x1000 0x1000 1g\n"
			   "access c0 read\n"
			   "access c9 read 0\n"
			   "access c0 fetch 0\n"
			   "access c0 read 0x1p\n"
			   "access c0 read 0xffffffffffffffff\n"
			   "stat v1 pages_8m\n"
			   "stat v9\n"
			   "mmu counters v9\n"
			   "check v9\n"
			   "dump vm v9\n"
			   "dump vm v1 /nonexistent/x\n"
			   "dump vm v1\n"
			   "vm destroy v1\n"
			   "host destroy h0\n"
			   "host create h0\n"
			   "vm create v1\n"
			   "memslot move v1 1 0\n",
			   0);

	assert_int_equal(r.rc, 0);
	assert_string_equal(
		r.out,
		"OK profile=6.18\n"
		"OK\n"
		"OK\n"
		"OK\n"
		"ERR -ENOENT line 5: no vm named \"nope\"\n"
		"ERR -EINVAL line 6: not a number: \"x\"\n"
		"ERR -EINVAL line 7: size 0 deletes: use memslot delete\n"
		"ERR -EINVAL line 8: a level is 4k, 2m or 1g, not \"4m\"\n"
		"ERR -EINVAL line 9: not a number: \"-1\"\n"
		"ERR -EINVAL line 10: not a number: \"yes\"\n"
		"ERR -EINVAL line 11: unknown memslot option \"color=red\"\n"
		"ERR -EINVAL Invalid argument: userspace_addr 0x1001 is not a multiple of 4096\n"
		"ERR -EEXIST File exists\n"
		"ERR -EEXIST line 14: slot 1 exists: memslot move, dirty-log or "
		"set change it\n"
		"ERR -EINVAL Invalid argument: address space 2 (slot >> 16) is not 0 or 1 (SMM)\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -ERANGE line 17: number out of range: 4294967296 (max 4294967295)\n"
		"ERR -ENOENT line 18: v1 has no slot 2 from this script\n"
		"ERR -EINVAL line 19: not a number: \"zero\"\n"
		"ERR -EINVAL line 20: dirty-log is on or off\n"
		"ERR -EINVAL line 21: a level is 4k, 2m or 1g, not \"2k\"\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL line 24: usage: access VCPU read|write|exec GPA\n"
		"ERR -ENOENT line 25: no vcpu named \"c9\"\n"
		"ERR -EINVAL line 26: an access is read, write or exec, not \"fetch\"\n"
		"ERR -EINVAL line 27: not a number: \"0x1p\"\n"
		"ERR -ERANGE Numerical result out of range: gpa 0xffffffffffffffff is above the host's 46 physical address bits\n"
		"ERR -ENOENT line 29: no VM stat \"pages_8m\"\n"
		"ERR -ENOENT line 30: no vm named \"v9\"\n"
		"ERR -ENOENT line 31: no vm named \"v9\"\n"
		"ERR -ENOENT line 32: no vm named \"v9\"\n"
		"ERR -ENOENT line 33: no vm named \"v9\"\n"
		"ERR -ENOENT line 34: /nonexistent/x: No such file or directory\n"
		"OK lines=2\n"
		"OK\n"
		"OK\n"
		"OK profile=6.18\n"
		"OK\n"
		"ERR -ENOENT line 40: v1 has no slot 1 from this script\n");
	/* the dump went to the error stream */
	assert_non_null(strstr(r.err, "slot 1 gfn 0x100-0x2ff"));
	free_run(&r);
	assert_int_equal(test_live_allocs(), live);
}

/*
 * xpfo verbs: options, CPUs, frames and domains out of range, unknown
 * names, the API's own refusals, and a clock a machine holds.
 */
static void test_xpfo_verbs(void **state)
{
	uint64_t live = test_live_allocs();
	struct run r = run_script(
		"clock create t\n"
		"xpfo create m cpus=2 frames=64 clock=t\n"
		"xpfo create m\n"
		"xpfo create x1 cpus=0\n"
		"xpfo create x2 cpus=1025\n"
		"xpfo create x3 frames=0\n"
		"xpfo create x4 version=10\n"
		"xpfo create x5 policy=sometimes\n"
		"xpfo create x6 repl=fifo\n"
		"xpfo create x7 l2=3x4\n"
		"xpfo create x8 l1d=16\n"
		"xpfo create x9 l1i=16xz\n"
		"xpfo create x10 clock=nope\n"
		"xpfo create x11 cpus=2 l2=16x4 seed=1 ceiling=8 broadcast=1 "
		"mhz=2000 repl=plru version=9 disabled=0\n"
		"xpfo create x12 warp=9\n"
		"xpfo create x13 clock=h\n"
		"xpfo alloc m 2 1 kernel\n"
		"xpfo alloc m 0 64 kernel\n"
		"xpfo alloc m x 1 kernel\n"
		"xpfo alloc m 0 1 root\n"
		"xpfo alloc m 0 1 user\n"
		"xpfo alloc m 0 1 user 65536\n"
		"xpfo alloc m 0 1 user 3 now\n"
		"xpfo alloc m 0 1 kernel 3\n"
		"xpfo alloc nope 0 1 kernel\n"
		"xpfo alloc m 0 1 user 3\n"
		"xpfo alloc m 0 1 user 3\n"
		"xpfo kaccess m 0 1 peek\n"
		"xpfo uaccess m 1 1 read\n"
		"xpfo switch m 1 3\n"
		"xpfo uaccess m 1 1 write\n"
		"xpfo switch m 1 65536\n"
		"xpfo enter m 1\n"
		"xpfo enter m 1\n"
		"xpfo exit m 1\n"
		"xpfo exit m 1\n"
		"xpfo refill m 0 2 3\n"
		"xpfo refill m 0 2 99\n"
		"xpfo kunmap m 0 1\n"
		"xpfo free m 0 1\n"
		"xpfo free m 0 1\n"
		"xpfo frame m 64\n"
		"xpfo cpu m 2\n"
		"xpfo tlb m 2\n"
		"xpfo tlb m\n"
		"xpfo workload compile cpus=0\n"
		"xpfo workload compile events=0\n"
		"xpfo workload compile version=5\n"
		"xpfo workload compile speed=2\n"
		"xpfo workload nope\n"
		"xpfo workload compile policy=nope\n"
		"clock destroy t\n"
		"xpfo destroy m\n"
		"clock destroy t\n"
		"xpfo destroy m\n"
		"xpfo create z\n"
		"xpfo kmap z 99999999999 0\n"
		"xpfo kmap z 0 99999999999999999999\n",
		0);

	assert_int_equal(r.rc, 0);
	assert_string_equal(
		r.out,
		"OK\n"
		"OK\n"
		"ERR -EEXIST line 3: \"m\" already names a machine\n"
		"ERR -EINVAL Invalid argument: nr_cpus 0: a machine has 1 to 1024 CPUs\n"
		"ERR -ERANGE line 5: number out of range: 1025 (max 1024)\n"
		"ERR -EINVAL Invalid argument: nr_frames 0: a machine has 1 to 4294967296 frames\n"
		"ERR -EINVAL line 7: an XPFO version is 6 to 9, not \"10\"\n"
		"ERR -ENOENT line 8: unknown policy or replacement (xpfo policies)\n"
		"ERR -ENOENT line 9: unknown policy or replacement (xpfo policies)\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL line 11: a TLB level is SETSxWAYS, not \"16\"\n"
		"ERR -EINVAL line 12: not a number: \"z\"\n"
		"ERR -ENOENT line 13: no clock named \"nope\"\n"
		"OK\n"
		"ERR -EINVAL line 15: unknown xpfo option \"warp=9\"\n"
		"ERR -ENOENT line 16: no clock named \"h\"\n"
		"ERR -EINVAL line 17: m has no CPU 2\n"
		"ERR -EINVAL line 18: m has no frame 64\n"
		"ERR -EINVAL line 19: not a number: \"x\"\n"
		"ERR -EINVAL line 20: alloc ... kernel, or user DOMAIN [will_map]\n"
		"ERR -EINVAL line 21: alloc ... kernel, or user DOMAIN [will_map]\n"
		"ERR -ERANGE line 22: number out of range: 65536 (max 65535)\n"
		"ERR -EINVAL line 23: unknown flag \"now\"\n"
		"ERR -EINVAL line 24: a kernel page has no domain\n"
		"ERR -ENOENT line 25: no machine named \"nope\"\n"
		"OK\n"
		"ERR -EBUSY Device or resource busy\n"
		"ERR -EINVAL line 28: an access is read or write, not \"peek\"\n"
		"ERR -EPERM Operation not permitted\n"
		"OK\n"
		"OK\n"
		"ERR -ERANGE line 32: number out of range: 65536 (max 65535)\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL Invalid argument\n"
		"OK\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EOPNOTSUPP Operation not supported\n"
		"ERR -EINVAL line 38: m has no frame 99\n"
		"ERR -EINVAL Invalid argument\n"
		"OK\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL line 42: m has no frame 64\n"
		"ERR -EINVAL line 43: m has no CPU 2\n"
		"ERR -EINVAL line 44: m has no CPU 2\n"
		"OK hits_l1d=0 hits_l1i=0 hits_l2=0 misses=1 walks=1 fills=2 "
		"evictions=0 invlpg=2 cr3_flush=1 cr3_noflush=0 global_flush=0 "
		"range_flushes=1 full_flushes=0 ipis_sent=1 ipi_targets=1 "
		"ipis_received=1 broadcasts=0\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL Invalid argument\n"
		"ERR -EINVAL line 48: an XPFO version is 6 to 9, not \"5\"\n"
		"ERR -EINVAL line 49: unknown workload option \"speed=2\"\n"
		"ERR -ENOENT line 50: unknown workload or policy (xpfo workloads, xpfo policies)\n"
		"ERR -ENOENT line 51: unknown workload or policy (xpfo workloads, xpfo policies)\n"
		"ERR -EBUSY Device or resource busy\n"
		"OK\n"
		"OK\n"
		"ERR -ENOENT line 55: no machine named \"m\"\n"
		"OK\n"
		"ERR -ERANGE line 57: number out of range: 99999999999 (max "
		"4294967295)\n"
		"ERR -ERANGE line 58: number out of range: 99999999999999999999 "
		"(max 18446744073709551615)\n");
	assert_string_equal(r.err, "");
	free_run(&r);
	assert_int_equal(test_live_allocs(), live);
}

/*
 * Fails each simulator allocation of @op in turn after @setup: each
 * failure answers -ENOMEM and leaks nothing, until @op succeeds.
 */
static void alloc_failure_walk(const char *setup, const char *op)
{
	char *out = NULL, script[700];
	size_t len;
	FILE *f = open_memstream(&out, &len), *in;
	struct nxsim__drv *d = nxsim__drv_create(f, stderr, 0);
	unsigned int n;

	snprintf(script, sizeof(script), "%s", setup);
	for (n = 1;; n++) {
		uint64_t live;
		const char *last;

		in = fmemopen(script, strlen(script), "r");
		nxsim__drv_run(d, in, "walk");
		fclose(in);
		live = test_live_allocs();
		snprintf(script, sizeof(script), "alloc fail-nth %u\n%s\n", n,
			 op);
		in = fmemopen(script, strlen(script), "r");
		nxsim__drv_run(d, in, "walk");
		fclose(in);
		fflush(f);
		last = out + len - 1;
		while (last > out && last[-1] != '\n')
			last--;
		if (!strncmp(last, "OK", 2))
			break;
		if (strncmp(last, "ERR -ENOMEM ", 12))
			fail_msg("allocation %u failed: %s", n, last);
		assert_int_equal(test_live_allocs(), live);
		script[0] = '\0';
	}
	assert_false(nxsim_alloc_fail_pending() && n == 1);
	nxsim_alloc_fail_nth(0);
	assert_true(n > 1);
	nxsim__drv_destroy(d);
	fclose(f);
	free(out);
}

static void test_alloc_failure_walk(void **state)
{
	alloc_failure_walk("host create h0 cpu=itlb_multihit\n", "vm create v");
	alloc_failure_walk("xpfo create m cpus=2 frames=4096\n",
			   "xpfo create m2 cpus=4 frames=1024");
	alloc_failure_walk("host create h0 cpu=itlb_multihit\nvm create v\n"
			   "vcpu create c v 0\n"
			   "memslot add v 1 0 0x400000 level=2m\n",
			   "access c exec 0x200000");
	alloc_failure_walk("host create h0 cpu=itlb_multihit\nvm create v\n",
			   "memslot add v 1 0 0x400000 level=2m");
}

/* A trace from more CPUs than a machine can have needs cpus=. */
static void test_replay_many_cpus(void **state)
{
	char path[64], script[256];
	struct run r;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/nxsim-cpus-%d.txt", getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "  cc-9  [2000] .....  1.000001: mm_page_alloc: page=1 "
		   "pfn=0x5 order=0 migratetype=1 "
		   "gfp_flags=GFP_HIGHUSER_MOVABLE\n");
	fclose(f);
	snprintf(script, sizeof(script),
		 "trace replay %s\ntrace replay %s cpus=4 policy=eager\n", path,
		 path);
	r = run_script(script, 0);
	unlink(path);
	assert_int_equal(strncmp(r.out, "ERR -ERANGE line 1: ", 20), 0);
	assert_non_null(strstr(r.out, "has 2001 CPUs, more than 1024: give "
				      "cpus=\nOK cpus=4 frames=6 replayed=1 "
				      "switches=1 unmatched_frees=0 "
				      "double_allocs=0 events=2 "
				      "ownership_changes=1 "));
	free_run(&r);
}

/* trace replay: the trace, both machines and the replay itself. */
static void test_alloc_failure_walk_replay(void **state)
{
	char file[] = __FILE__, op[600];

	/* tests/unit/test_driver_verbs.c -> tests/fixtures */
	snprintf(op, sizeof(op),
		 "trace replay %s/../fixtures/ftrace-decimal-handwritten.txt "
		 "policy=eager",
		 dirname(file));
	alloc_failure_walk("", op);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmu_verbs),
		cmocka_unit_test(test_xpfo_verbs),
		cmocka_unit_test(test_alloc_failure_walk),
		cmocka_unit_test(test_replay_many_cpus),
		cmocka_unit_test(test_alloc_failure_walk_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
