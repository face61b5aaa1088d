// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: sequences of public calls.  The input decodes, a few
 * bytes a call, into calls across two hosts, four VMs with a vCPU each,
 * memslots, accesses, host mapping sizes, clock advances, parameter
 * writes, the per-VM opt-out, an XPFO machine and its frames, a bare TLB,
 * and one-shot allocation failures; hosts with TDP off (shadow paging);
 * guest page tables built in a VM's memory (nxsim_workload_map_guest()),
 * loaded in a vCPU and walked by gva accesses and guest PTE writes; and
 * a second thread that runs a vCPU's accesses while the first changes
 * the same VM's memslots, mappings or parameters.  After every call the
 * MMU checker runs on every VM and must find nothing (no bug switch is
 * on), and no host may count an oops.  The whole sequence runs twice from
 * scratch and every return code and counter must repeat (determinism),
 * unless it used the second thread; at the end everything is torn down
 * and the allocator must hold what it held before.
 *
 * Left out: real clocks (worker threads) and the bug switches.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/nxsim.h>

#include "core/compiler.h"

/* What the fuzz build must keep: pool poisoning under clang, fatal WARNs */
#ifndef NXSIM_ASAN
#error "ASan not seen: the MMU's page-pool poisoning would be compiled away"
#endif
#ifndef NXSIM_WARN_FATAL
#error "a WARN must fail a fuzz run (NXSIM_WARN_FATAL)"
#endif

#define HOSTS 2
#define VMS 4
#define GIB (1ull << 30)
#define MIB2 (2ull << 20)
#define HVA_BASE 0x7f0000000000ull

struct input {
	const uint8_t *p;
	size_t left;
};

struct state {
	struct nxsim_host *host[HOSTS];
	struct nxsim_vm *vm[VMS];
	struct nxsim_vcpu *vcpu[VMS];
	int vm_host[VMS];
	bool vm_dead[VMS];
	struct nxsim_xpfo *m;
	struct nxsim_tlb *tlb;
	uint64_t hash;
	bool threaded; /* a second thread ran: the results may differ */
};

/* The guest's tables: gvas from GVA map gpas from 4 GiB, tables after. */
#define GVA 0x7f0000000000ull
#define TABLES (4 * GIB + 8 * MIB2)

static uint8_t get8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static uint64_t get64(struct input *in)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | get8(in);
	return v;
}

/* Folds a result into the run's fingerprint (FNV-1a over 64 bits). */
static void fold(struct state *s, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		s->hash = (s->hash ^ (v & 0xff)) * 0x100000001b3ull;
}

static const char *const cmdlines[] = {
	NULL,
	"kvm.nx_huge_pages=never",
	"kvm.nx_huge_pages=off kvm.nx_huge_pages_recovery_ratio=0",
	"mitigations=off",
	"kvm.nx_huge_pages_recovery_period_ms=10",
};
static const unsigned int phys_bits[] = { 0, 32, 36, 46, 52, 53 };
static const char *const values[] = {
	"Y", "N",      "never", "force", "auto",       "off",
	"0", "1",      "60",	"100",	 "4294967295", "4294967296",
	"",  "junk\n", "0x10",	"010",
};
static const uint64_t durations[] = {
	0,	    1000000,	    100000000,
	1000000000, 60000000000ull, NXSIM_CLOCK_MAX,
	UINT64_MAX,
};
static const uint64_t sizes[] = { 0, 4096, MIB2, 4 * MIB2, GIB, 3 };

static void forget_vm(struct state *s, unsigned int v)
{
	s->vm[v] = NULL;
	s->vcpu[v] = NULL;
	s->vm_dead[v] = false;
}

/* Creates host @h, or destroys it (with the destroyed VMs it holds). */
static int host_op(struct state *s, struct input *in)
{
	unsigned int h = get8(in) % HOSTS, nprof = 0, v;
	struct nxsim_host_config cfg = { 0 };
	uint8_t b = get8(in);
	int rc;

	if (s->host[h]) {
		rc = nxsim_host_destroy(s->host[h]);
		if (rc)
			return rc;
		s->host[h] = NULL;
		for (v = 0; v < VMS; v++)
			if (s->vm[v] && s->vm_host[v] == (int)h)
				forget_vm(s, v);
		return 1;
	}
	while (nxsim_profile_name(nprof))
		nprof++;
	cfg.profile = nxsim_profile_name(b % nprof);
	cfg.cpu.itlb_multihit = b & 0x80;
	cfg.cpu.la57 = b & 0x40;
	cfg.cpu.no_tdp = b & 0x20;
	b = get8(in);
	cfg.cpu.phys_bits = phys_bits[b % 6];
	cfg.cmdline = cmdlines[(b >> 3) % 5];
	return nxsim_host_create(&cfg, &s->host[h]);
}

static int vm_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS, h;
	int rc;

	if (!s->vm[v]) {
		h = get8(in) % HOSTS;
		if (!s->host[h])
			return -ENODEV;
		rc = nxsim_vm_create(s->host[h], &s->vm[v]);
		if (rc)
			s->vm[v] = NULL;
		s->vm_host[v] = h;
		return rc;
	}
	if (!s->vm_dead[v]) {
		rc = nxsim_vm_destroy(s->vm[v]);
		s->vm_dead[v] = !rc;
		return rc;
	}
	rc = nxsim_vm_release(s->vm[v]);
	if (!rc)
		forget_vm(s, v);
	return rc;
}

static int vcpu_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS;
	uint8_t b = get8(in);

	if (!s->vm[v])
		return -ENOENT;
	if (!s->vcpu[v]) {
		int rc = nxsim_vcpu_create(s->vm[v], b, &s->vcpu[v]);

		if (rc)
			s->vcpu[v] = NULL;
		return rc;
	}
	if (b & 1)
		return nxsim_vcpu_run(s->vcpu[v]);
	return nxsim_vcpu_access(s->vcpu[v], (b >> 1) % 3,
				 4 * GIB + (uint64_t)get8(in) * 256 * 1024,
				 NULL);
}

static int memslot_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS;
	uint8_t b = get8(in), c = get8(in);
	struct nxsim_memory_region mr = {
		.slot = b % 4,
		.flags = (c >> 6) & 3,
		.guest_phys_addr = 4 * GIB + (uint64_t)(b >> 2 & 7) * MIB2,
		.memory_size = sizes[c % 6],
		.userspace_addr = HVA_BASE + (uint64_t)(b >> 5) * GIB,
		.host_level = (c >> 3) & 3,
	};

	if (!s->vm[v])
		return -ENOENT;
	if (c & 0x20)
		return nxsim_vm_set_host_level(s->vm[v], mr.slot,
					       (b >> 5) * MIB2, sizes[c % 6],
					       mr.host_level);
	return nxsim_vm_set_memory_region(s->vm[v], &mr);
}

/*
 * Advances host @h's clock.  With a VM on the host, a step is cut below
 * 2^40 ns (18 minutes): a worker runs a pass a period, and an advance to
 * the end of time would run some 10^8 of them.
 */
static int clock_op(struct state *s, struct input *in)
{
	unsigned int h = get8(in) % HOSTS, v;
	uint8_t b = get8(in);
	uint64_t ns = b < 7   ? durations[b] :
		      b < 128 ? b * 1000000ull :
				get64(in);

	if (!s->host[h])
		return -ENODEV;
	for (v = 0; v < VMS; v++)
		if (s->vm[v] && !s->vm_dead[v] && s->vm_host[v] == (int)h)
			ns &= (1ull << 40) - 1;
	return (int)nxsim_clock_advance(nxsim_host_clock(s->host[h]), ns);
}

static int param_op(struct state *s, struct input *in)
{
	unsigned int h = get8(in) % HOSTS, i = get8(in);
	const char *name;

	if (!s->host[h])
		return -ENODEV;
	name = nxsim_param_name(s->host[h], i % 8);
	if (!name)
		return -ENOENT;
	return nxsim_param_set(s->host[h], name, values[(i >> 3) % 16]);
}

static int cap_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS;
	uint8_t b = get8(in);

	if (!s->vm[v])
		return -ENOENT;
	return nxsim_vm_enable_cap(s->vm[v], NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES,
				   0, NULL, b & 1);
}

static int xpfo_op(struct state *s, struct input *in)
{
	uint8_t op = get8(in), cpu = get8(in) % 5, pfn = get8(in) % 70;
	struct nxsim_xpfo_config cfg = { 0 };

	if (!s->m || op == 0xff) {
		if (s->m) {
			nxsim_xpfo_destroy(s->m);
			s->m = NULL;
			return 0;
		}
		cfg.nr_cpus = 1 + cpu % 4;
		cfg.nr_frames = 64;
		cfg.version = (enum nxsim_xpfo_version)(pfn % 4);
		cfg.policy = nxsim_xpfo_policy_name(op % 16);
		return nxsim_xpfo_create(&cfg, &s->m);
	}
	switch (op % 10) {
	case 0:
		return nxsim_xpfo_alloc_kernel(s->m, cpu, pfn);
	case 1:
		return nxsim_xpfo_alloc_user(s->m, cpu, pfn, 1 + (op >> 4),
					     op & 0x10 ? NXSIM_XPFO_WILL_MAP :
							 0);
	case 2:
		return nxsim_xpfo_free(s->m, cpu, pfn);
	case 3:
		return nxsim_xpfo_kmap(s->m, cpu, pfn);
	case 4:
		return nxsim_xpfo_kunmap(s->m, cpu, pfn);
	case 5:
		return nxsim_xpfo_kernel_access(s->m, cpu, pfn, op & 0x10,
						NULL);
	case 6:
		return nxsim_xpfo_user_access(s->m, cpu, pfn, op & 0x10);
	case 7:
		return nxsim_xpfo_context_switch(s->m, cpu, op >> 4);
	case 8:
		return nxsim_xpfo_kernel_enter(s->m, cpu);
	default:
		return nxsim_xpfo_kernel_exit(s->m, cpu);
	}
}

static int tlb_op(struct state *s, struct input *in)
{
	uint8_t op = get8(in), cpu = get8(in) % 3;
	uint64_t va = 0xffff888000000000ull + (get8(in) << 12);
	struct nxsim_tlb_entry e = { .va = va,
				     .pfn = va >> 12 & 0xfffff,
				     .page_shift = 12,
				     .global = op & 0x10 };
	struct nxsim_tlb_config cfg;

	if (!s->tlb || op == 0xff) {
		if (s->tlb) {
			nxsim_tlb_destroy(s->tlb);
			s->tlb = NULL;
			return 0;
		}
		nxsim_tlb_config_default(&cfg, 2);
		cfg.replacement = op & 1 ? "plru" : "lru";
		return nxsim_tlb_create(&cfg, &s->tlb);
	}
	switch (op % 6) {
	case 0:
		return nxsim_tlb_fill(s->tlb, cpu, (op >> 5) % 3, &e);
	case 1:
		return nxsim_tlb_lookup(s->tlb, cpu, (op >> 5) % 3, va, NULL);
	case 2:
		return nxsim_tlb_invlpg(s->tlb, cpu, va);
	case 3:
		return nxsim_tlb_write_cr3(s->tlb, cpu, op >> 4, op & 8);
	case 4:
		return nxsim_tlb_flush_kernel_range(s->tlb, cpu, va,
						    va + (op << 12));
	default:
		return nxsim_tlb_flush_all(s->tlb, cpu);
	}
}

/*
 * Guest page tables in VM @v: build them over the memslots (16 MiB from
 * 4 GiB, pages of 4K, 2M or 1G), load them in its vCPU, then walk a gva,
 * or store a guest PTE through the vCPU (write-protected tables on
 * shadow paging), or INVLPG.
 */
static int guest_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS;
	uint8_t b = get8(in), c = get8(in);
	struct nxsim_guest_paging p = {
		.cr0_pg = true,
		.cr0_wp = true,
		.cr4_pae = true,
		.efer_lma = true,
		.efer_nxe = true,
		.cr3 = TABLES,
	};
	uint64_t gva = GVA + (uint64_t)c * 64 * 1024, bytes;
	int level = 1 + b % 2, rc;

	if (!s->vcpu[v])
		return -ENOENT;
	switch (b >> 5) {
	case 0:
		rc = nxsim_workload_map_guest(s->vm[v], GVA, 4 * GIB, 8 * MIB2,
					      level, TABLES, &bytes);
		return rc ? rc : nxsim_guest_set_paging(s->vcpu[v], &p);
	case 1:
		return nxsim_guest_write_pte(
			s->vcpu[v], TABLES + 4096 * (c % 8) + 8 * (b & 7),
			get64(in), 8);
	case 2:
		return nxsim_guest_invlpg(s->vcpu[v], gva);
	default:
		return nxsim_vcpu_access_guest(s->vcpu[v], b % 3, gva,
					       NXSIM_GUEST_LEVEL_WALK, NULL);
	}
}

struct racer {
	struct nxsim_vcpu *vcpu;
	uint8_t seed;
};

/* The second thread: 64 accesses of the vCPU, gpa or gva. */
static void *race_accesses(void *arg)
{
	struct racer *r = arg;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		uint64_t off =
			(uint64_t)((r->seed + i * 37) & 0xff) * 64 * 1024;

		if (r->seed & 1)
			nxsim_vcpu_access_guest(r->vcpu, i % 3, GVA + off,
						NXSIM_GUEST_LEVEL_WALK, NULL);
		else
			nxsim_vcpu_access(r->vcpu, i % 3, 4 * GIB + off, NULL);
	}
	return NULL;
}

/*
 * VM @v's vCPU runs accesses on a second thread while this one changes
 * the VM (a host mapping size, a memslot's flags, the per-VM opt-out) or
 * its host's nx_huge_pages: the locks must hold.  The checker runs after
 * the join.
 */
static int thread_op(struct state *s, struct input *in)
{
	unsigned int v = get8(in) % VMS, i;
	struct racer r = { .seed = get8(in) };
	uint8_t b = get8(in);
	struct nxsim_memory_region mr = {
		.slot = 0,
		.guest_phys_addr = 4 * GIB,
		.memory_size = 4 * MIB2,
		.userspace_addr = HVA_BASE,
		.host_level = 2,
	};
	pthread_t t;
	int rc = 0;

	if (!s->vcpu[v] || s->vm_dead[v])
		return -ENOENT;
	r.vcpu = s->vcpu[v];
	if (pthread_create(&t, NULL, race_accesses, &r))
		return -EAGAIN;
	s->threaded = true;
	for (i = 0; i < 8; i++) {
		switch ((b + i) % 4) {
		case 0:
			nxsim_vm_set_host_level(s->vm[v], 0, (i % 2) * MIB2,
						MIB2, 1 + i % 2);
			break;
		case 1:
			mr.flags = i & 1; /* dirty logging on and off */
			nxsim_vm_set_memory_region(s->vm[v], &mr);
			break;
		case 2:
			nxsim_vm_enable_cap(s->vm[v],
					    NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES,
					    0, NULL, i & 1);
			break;
		default:
			nxsim_param_set(s->host[s->vm_host[v]], "nx_huge_pages",
					i & 1 ? "off" : "force");
			break;
		}
	}
	pthread_join(t, NULL);
	return rc;
}

/* Every checker, after every call. */
static void check_all(struct state *s)
{
	struct nxsim_host_counters hc;
	struct nxsim_xpfo_result res;
	struct nxsim_tlb_stats ts;
	unsigned int i;

	for (i = 0; i < VMS; i++) {
		if (!s->vm[i])
			continue;
		if (nxsim_vm_check(s->vm[i], NULL, NULL) !=
		    (s->vm_dead[i] ? -EBADF : 0))
			abort();
		fold(s, (uint64_t)nxsim_vm_nr_mmu_pages(s->vm[i]));
	}
	for (i = 0; i < HOSTS; i++) {
		if (!s->host[i])
			continue;
		nxsim_host_counters(s->host[i], &hc);
		if (hc.oopses)
			abort();
		fold(s, nxsim_clock_now(nxsim_host_clock(s->host[i])));
	}
	if (s->m && !nxsim_xpfo_result(s->m, &res))
		fold(s, res.kernel_cycles ^ res.oracle.stale_reads);
	if (s->tlb && !nxsim_tlb_stats(s->tlb, -1, &ts))
		fold(s, ts.fills ^ ts.evictions);
}

static void teardown(struct state *s)
{
	unsigned int i;

	for (i = 0; i < VMS; i++) {
		if (s->vm[i] && !s->vm_dead[i] && nxsim_vm_destroy(s->vm[i]))
			abort();
		if (s->vm[i] && nxsim_vm_release(s->vm[i]))
			abort();
	}
	for (i = 0; i < HOSTS; i++)
		if (s->host[i] && nxsim_host_destroy(s->host[i]))
			abort();
	nxsim_xpfo_destroy(s->m);
	nxsim_tlb_destroy(s->tlb);
}

static uint64_t run(const uint8_t *data, size_t size, bool *threaded)
{
	struct input in = { data, size };
	struct state s = { .hash = 0xcbf29ce484222325ull };
	int rc;

	while (in.left) {
		uint8_t op = get8(&in);

		switch (op % 12) {
		case 0:
			rc = host_op(&s, &in);
			break;
		case 1:
			rc = vm_op(&s, &in);
			break;
		case 2:
			rc = vcpu_op(&s, &in);
			break;
		case 3:
			rc = memslot_op(&s, &in);
			break;
		case 4:
			rc = clock_op(&s, &in);
			break;
		case 5:
			rc = param_op(&s, &in);
			break;
		case 6:
			rc = cap_op(&s, &in);
			break;
		case 7:
			rc = xpfo_op(&s, &in);
			break;
		case 8:
			rc = tlb_op(&s, &in);
			break;
		case 10:
			rc = guest_op(&s, &in);
			break;
		case 11:
			rc = thread_op(&s, &in);
			break;
		default:
			/* the next call's allocations: one fails */
			nxsim_alloc_fail_nth(1 + op / 12 % 8);
			rc = 0;
			break;
		}
		if (op % 12 != 9)
			nxsim_alloc_fail_nth(0);
		fold(&s, (uint64_t)rc);
		check_all(&s);
	}
	nxsim_alloc_fail_nth(0);
	teardown(&s);
	*threaded = s.threaded;
	return s.hash;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nxsim_alloc_stats before, after;
	bool threaded;
	uint64_t first;

	nxsim_alloc_stats(&before);
	first = run(data, size, &threaded);
	nxsim_alloc_stats(&after);
	if (after.live != before.live)
		abort();
	if (run(data, size, &threaded) != first && !threaded)
		abort();
	return 0;
}
