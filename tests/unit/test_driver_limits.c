// SPDX-License-Identifier: GPL-2.0-only
/*
 * docs/limits.md, row by row: every size, count and time a user can pass
 * is tried at its limit, one past it and at its type's maximum, through
 * the API and through the driver, and a refused value leaves no
 * allocation behind.  Then the handles of destroyed VMs: memory stays
 * flat over create/destroy/release cycles, through the API and the driver.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../integration/nx_test.h"
#include "common/test_util.h"
#include "driver.h"

/* One knob: its API call with value @v, 0 or a negative errno. */
typedef int (*try_fn)(uint64_t v);

static int try_phys_bits(uint64_t v)
{
	struct nxsim_host_config cfg = { .cpu.phys_bits = (unsigned int)v };
	struct nxsim_host *host;
	int rc = nxsim_host_create(&cfg, &host);

	return rc ? rc : nxsim_host_destroy(host);
}

static int try_clock(uint64_t v)
{
	struct nxsim_clock *c;
	int64_t rc;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &c), 0);
	rc = nxsim_clock_advance(c, v);
	assert_rc(nxsim_clock_destroy(c), 0);
	return rc < 0 ? (int)rc : 0;
}

static int with_vm(int (*fn)(struct nxsim_vm *vm, uint64_t v), uint64_t v)
{
	struct nx_env e = nx_env(NULL, 0);
	int rc = fn(e.vm, v);

	nx_env_destroy(&e);
	return rc;
}

static int vcpu_id(struct nxsim_vm *vm, uint64_t v)
{
	struct nxsim_vcpu *vcpu;

	return nxsim_vcpu_create(vm, (unsigned int)v, &vcpu);
}

static int try_vcpu_id(uint64_t v)
{
	return with_vm(vcpu_id, v);
}

static int slot_id(struct nxsim_vm *vm, uint64_t v)
{
	struct nxsim_memory_region mr = { .slot = (uint32_t)v,
					  .memory_size = MIB2,
					  .userspace_addr = HVA_BASE };

	return nxsim_vm_set_memory_region(vm, &mr);
}

static int try_slot_id(uint64_t v)
{
	return with_vm(slot_id, v);
}

static int slot_pages(struct nxsim_vm *vm, uint64_t v)
{
	struct nxsim_memory_region mr = { .slot = 1,
					  .memory_size = v << 12,
					  .userspace_addr = 4096 };

	return (v << 12) >> 12 != v ? -EINVAL :
				      nxsim_vm_set_memory_region(vm, &mr);
}

static int try_slot_pages(uint64_t v)
{
	return with_vm(slot_pages, v);
}

static int try_param_len(uint64_t v)
{
	struct nxsim_host *host = test_host("6.1", true, NULL, 0);
	char *val = malloc(v + 1);
	int rc;

	assert_non_null(val);
	memset(val, '1', v);
	memcpy(val, "Y\n", v < 2 ? v : 2);
	memset(val + 2, ' ', v > 2 ? v - 2 : 0);
	val[v] = '\0';
	rc = nxsim_param_set(host, "nx_huge_pages_recovery_ratio", val);
	free(val);
	assert_rc(nxsim_host_destroy(host), 0);
	return rc == -EINVAL ? 0 : rc; /* long enough to read: not -E2BIG */
}

static int tlb(unsigned int cpus, struct nxsim_tlb_geometry l1d,
	       struct nxsim_tlb_geometry l1i, struct nxsim_tlb_geometry l2)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *t;
	int rc;

	nxsim_tlb_config_default(&cfg, cpus);
	cfg.level[NXSIM_TLB_L1D] = l1d;
	cfg.level[NXSIM_TLB_L1I] = l1i;
	cfg.level[NXSIM_TLB_L2] = l2;
	rc = nxsim_tlb_create(&cfg, &t);
	if (!rc)
		nxsim_tlb_destroy(t);
	return rc;
}

static int try_tlb_sets(uint64_t v)
{
	return tlb(1, (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ (uint32_t)v, 1 });
}

static int try_tlb_ways(uint64_t v)
{
	return tlb(1, (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ 1, (uint32_t)v });
}

/*
 * Entries in all: 2^21 + (2^21 - 2^16) + @v ways of 2^16 sets; @v = 1 is
 * NXSIM_TLB_MAX_ENTRIES exactly, 2 the next count sets can make.
 */
static int try_tlb_entries(uint64_t v)
{
	return tlb(1, (struct nxsim_tlb_geometry){ 65536, 32 },
		   (struct nxsim_tlb_geometry){ 65536, 31 },
		   (struct nxsim_tlb_geometry){ 65536, (uint32_t)v });
}

static int try_tlb_cpus(uint64_t v)
{
	return tlb((unsigned int)v, (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ 1, 1 },
		   (struct nxsim_tlb_geometry){ 1, 1 });
}

static int try_xpfo_frames(uint64_t v)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = 1, .nr_frames = v };
	struct nxsim_xpfo *m;
	int rc;

	nxsim_tlb_config_default(&cfg.tlb, 1);
	rc = nxsim_xpfo_create(&cfg, &m);
	if (!rc)
		nxsim_xpfo_destroy(m);
	return rc;
}

static int try_events(uint64_t v)
{
	struct nxsim_xpfo_run run = {
		.workload = "compile", .nr_cpus = 1, .events = v, .seed = 1
	};
	struct nxsim_xpfo_result res;

	return nxsim_xpfo_run_workload(&run, &res);
}

static int try_bringup(unsigned int vms, unsigned int bg_vms)
{
	struct nxsim_bringup_config cfg = {
		.policy = NXSIM_BRINGUP_KTHREAD,
		.cpus = 1,
		.creators = 1,
		.vms = vms,
		.bg_vms = bg_vms,
	};
	struct nxsim_bringup_result res = { 0 };

	return nxsim_bringup_run(&cfg, &res);
}

static int try_bringup_vms(uint64_t v)
{
	return try_bringup((unsigned int)v, 0);
}

static int try_bringup_idle(uint64_t v)
{
	return try_bringup(1, (unsigned int)v);
}

/* An execute run of one vCPU over @v MiB. */
static int try_guest_mib(uint64_t v)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;

	nxsim_workload_config_default(&cfg);
	return nxsim_workload_run_execute(&cfg, v << 20, &res);
}

/* A driver line; %llu is the value shifted left by @shift. */
struct drv {
	const char *setup;
	const char *line;
	unsigned int shift;
};

/*
 * One row of docs/limits.md.  @limit is tried when @at_limit (a limit
 * that takes hours or terabytes to reach is not); @past is the first
 * value refused; @max the type's maximum.  @drv_max is what the driver
 * answers for @max when its number parser refuses it first.
 */
struct limit {
	const char *name;
	try_fn api;
	struct drv drv;
	bool at_limit;
	uint64_t limit, past, max;
	int past_rc, max_rc;
	const char *drv_past, *drv_max;
};

#define NOMAX 0 /* @max equals @past */

static const struct limit limits[] = {
	{ "phys_bits",
	  try_phys_bits,
	  { "", "host create h phys_bits=%llu" },
	  true,
	  NXSIM_PHYS_BITS_MAX,
	  NXSIM_PHYS_BITS_MAX + 1,
	  UINT_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "clock advance",
	  try_clock,
	  { "clock create t\n", "clock advance %llu t" },
	  true,
	  NXSIM_CLOCK_MAX,
	  NXSIM_CLOCK_MAX + 1,
	  UINT64_MAX,
	  -ERANGE,
	  -ERANGE,
	  "ERR -ERANGE",
	  "ERR -ERANGE" },
	{ "vcpu id",
	  try_vcpu_id,
	  { "host create h\nvm create v\n", "vcpu create c v %llu" },
	  true,
	  4095,
	  4096,
	  UINT_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "memslot id",
	  try_slot_id,
	  { "host create h\nvm create v\n", "memslot add v %llu 0 0x200000" },
	  true,
	  NXSIM_USER_MEM_SLOTS - 1,
	  NXSIM_USER_MEM_SLOTS,
	  UINT32_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "memslot pages",
	  try_slot_pages,
	  { "host create h\nvm create v\n", "memslot add v 1 0 %llu hva=4096",
	    12 },
	  true,
	  (1ull << 31) - 1,
	  1ull << 31,
	  UINT64_MAX >> 12,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "parameter value bytes",
	  try_param_len,
	  { NULL, NULL },
	  true,
	  4096,
	  4097,
	  NOMAX,
	  -E2BIG,
	  0,
	  NULL,
	  NULL },
	{ "tlb sets",
	  try_tlb_sets,
	  { "", "xpfo create m l2=%llux1" },
	  true,
	  NXSIM_TLB_MAX_SETS,
	  2 * NXSIM_TLB_MAX_SETS,
	  1ull << 31,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "tlb ways",
	  try_tlb_ways,
	  { "", "xpfo create m l2=1x%llu" },
	  true,
	  NXSIM_TLB_MAX_WAYS,
	  NXSIM_TLB_MAX_WAYS + 1,
	  UINT32_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "tlb entries",
	  try_tlb_entries,
	  { "", "xpfo create m l1d=65536x32 l1i=65536x31 l2=65536x%llu" },
	  true,
	  1,
	  2,
	  32,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
	{ "tlb cpus",
	  try_tlb_cpus,
	  { "", "xpfo create m cpus=%llu l1d=1x1 l1i=1x1 l2=1x1" },
	  true,
	  NXSIM_TLB_MAX_CPUS,
	  NXSIM_TLB_MAX_CPUS + 1,
	  UINT_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -ERANGE",
	  "ERR -ERANGE" },
	{ "xpfo frames",
	  try_xpfo_frames,
	  { "", "xpfo create m frames=%llu" },
	  false,
	  NXSIM_XPFO_MAX_FRAMES,
	  NXSIM_XPFO_MAX_FRAMES + 1,
	  UINT64_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -ERANGE",
	  "ERR -ERANGE" },
	{ "bringup vms",
	  try_bringup_vms,
	  { "", "bringup run vms=%llu" },
	  false,
	  NXSIM_BRINGUP_MAX_VMS,
	  NXSIM_BRINGUP_MAX_VMS + 1,
	  UINT_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -ERANGE line 1: number out of range",
	  "ERR -ERANGE line 1: number out of range" },
	{ "bringup idle vms",
	  try_bringup_idle,
	  { "", "bringup run cpus=1 per_cpu=%llu" },
	  false,
	  NXSIM_BRINGUP_MAX_VMS,
	  NXSIM_BRINGUP_MAX_VMS + 1,
	  UINT_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -ERANGE line 1: too many idle VMs: cpus x per_cpu is at most "
	  "65536",
	  "ERR -ERANGE line 1: number out of range" },
	{ "guest memory MiB",
	  try_guest_mib,
	  { "", "guest run workload=execute bytes_mib=%llu" },
	  false,
	  NXSIM_WORKLOAD_MAX_BYTES >> 20,
	  (NXSIM_WORKLOAD_MAX_BYTES >> 20) + 1,
	  1 << 20,
	  -E2BIG,
	  -E2BIG,
	  "ERR -E2BIG line 1: more than 64 GiB of guest memory in all",
	  "ERR -E2BIG line 1: more than 64 GiB of guest memory in all" },
	{ "workload events",
	  try_events,
	  { "", "xpfo run compile events=%llu" },
	  false,
	  NXSIM_XPFO_MAX_EVENTS,
	  NXSIM_XPFO_MAX_EVENTS + 1,
	  UINT64_MAX,
	  -EINVAL,
	  -EINVAL,
	  "ERR -EINVAL",
	  "ERR -EINVAL" },
};

/* Runs @setup then @line with @v through a fresh driver: the answer. */
static char *drive(const struct drv *drv, uint64_t v)
{
	char script[512], *out = NULL, *nl;
	size_t olen;
	FILE *in, *o;
	struct nxsim__drv *d;
	int n;

	n = snprintf(script, sizeof(script), "%s", drv->setup);
	snprintf(script + n, sizeof(script) - n, drv->line,
		 (unsigned long long)v << drv->shift);
	strcat(script, "\n");
	in = fmemopen(script, strlen(script), "r");
	o = open_memstream(&out, &olen);
	d = nxsim__drv_create(o, stderr, 0);
	assert_non_null(d);
	nxsim__drv_run(d, in, "limits");
	nxsim__drv_destroy(d);
	fclose(in);
	fclose(o);
	/* the last answer */
	out[strlen(out) - 1] = '\0';
	nl = strrchr(out, '\n');
	memmove(out, nl ? nl + 1 : out, strlen(nl ? nl + 1 : out) + 1);
	return out;
}

static void expect_drv(const struct limit *l, uint64_t v, const char *want)
{
	char *got;

	if (!l->drv.line)
		return;
	got = drive(&l->drv, v);
	if (strncmp(got, want, strlen(want)))
		fail_msg("%s = %llu through the driver: \"%s\", want \"%s\"",
			 l->name, (unsigned long long)v, got, want);
	free(got);
}

static void expect_api(const struct limit *l, uint64_t v, int want)
{
	uint64_t live = test_live_allocs();
	int rc = l->api(v);

	if (rc != want)
		fail_msg("%s = %llu: %d, want %d", l->name,
			 (unsigned long long)v, rc, want);
	assert_int_equal(test_live_allocs(), live);
}

static void test_limits(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		const struct limit *l = &limits[i];

		if (l->at_limit) {
			expect_api(l, l->limit, 0);
			expect_drv(l, l->limit, "OK");
		}
		expect_api(l, l->past, l->past_rc);
		expect_drv(l, l->past, l->drv_past);
		if (l->max == NOMAX)
			continue;
		expect_api(l, l->max, l->max_rc);
		expect_drv(l, l->max, l->drv_max);
	}
}

/*
 * dirty-log clear checks NUM against the slot before it makes a bitmap of
 * NUM bits (512 MiB for 2^32 - 1); a slot the script has not made is the
 * API's -ENOENT.
 */
static void test_dirty_log_clear_bound(void **state)
{
	static const struct drv cases[] = {
		{ "host create h\nvm create v\n"
		  "memslot add v 1 0 0x200000 dirty=1\n",
		  "dirty-log clear v 1 0 %llu" },
		{ "host create h\nvm create v\n",
		  "dirty-log clear v 1 0 %llu" },
	};
	struct rusage before, after;
	char *got;

	(void)state;
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	got = drive(&cases[0], UINT32_MAX);
	assert_string_equal(got, "ERR -EINVAL Invalid argument");
	free(got);
	/* no 512 MiB bitmap filled first (ru_maxrss is in KiB) */
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	assert_true(after.ru_maxrss - before.ru_maxrss < 64 * 1024);
	got = drive(&cases[0], 512);
	assert_string_equal(got, "OK");
	free(got);
	got = drive(&cases[1], UINT32_MAX);
	assert_int_equal(strncmp(got, "ERR -ENOENT", 11), 0);
	free(got);
}

/*
 * Destroyed and released VMs leave nothing behind: the live allocation
 * count after many cycles is the count after one.
 */
static void test_vm_cycles_flat(void **state)
{
	struct nxsim_host *host = test_host("6.1", true, NULL, 0);
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;
	uint64_t live = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
		assert_rc(nxsim_vm_release(vm), -EBUSY);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_vm_release(vm), 0);
		if (!i)
			live = test_live_allocs();
	}
	assert_int_equal(test_live_allocs(), live);
	assert_rc(nxsim_vm_release(NULL), -EINVAL);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* The same through the driver, whose destroyed VMs keep their names. */
static void test_driver_vm_cycles_flat(void **state)
{
	char *script = NULL, *out = NULL;
	const char *first, *last;
	size_t slen, olen;
	FILE *s = open_memstream(&script, &slen), *o, *in;
	struct nxsim__drv *d;
	uint64_t live;
	int i;

	fprintf(s, "host create h\nvm create v0\nvcpu create c0 v0 0\n"
		   "vm destroy v0\nalloc stats\n");
	for (i = 1; i < 1000; i++)
		fprintf(s,
			"vm create v%d\nvcpu create c%d v%d 0\n"
			"vm destroy v%d\n",
			i, i, i, i);
	fprintf(s, "alloc stats\nvcpu run c7\nexpect ERR -EBADF\n"
		   "vm nx v7\nexpect ERR -EBADF\nvm destroy v7\n"
		   "expect ERR -EBADF\n");
	fclose(s);
	in = fmemopen(script, slen, "r");
	o = open_memstream(&out, &olen);
	d = nxsim__drv_create(o, stderr, 0);
	live = test_live_allocs();
	assert_int_equal(nxsim__drv_run(d, in, "cycles"), 0);
	nxsim__drv_destroy(d);
	fclose(in);
	fclose(o);
	/* the two "alloc stats" answers: one VM's worth, then 1000 VMs' */
	first = strstr(out, " live=");
	assert_non_null(first);
	last = strstr(first + 1, " live=");
	assert_non_null(last);
	assert_int_equal(strtoull(first + 6, NULL, 10),
			 strtoull(last + 6, NULL, 10));
	assert_int_equal(test_live_allocs(), live);
	free(script);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_dirty_log_clear_bound),
		cmocka_unit_test(test_vm_cycles_flat),
		cmocka_unit_test(test_driver_vm_cycles_flat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
