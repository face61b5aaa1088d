// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest workload runner (include/nxsim/workload.h): a host of the
 * configured profile and mitigation, one VM with vCPU TLBs and one slot,
 * and the generators' accesses replayed through the public vCPU API,
 * vCPU after vCPU in chunks.  After each round the virtual clock moves by
 * the round's modelled cycles (divided among the vCPUs, which run in
 * parallel), so the recovery worker's passes fall where the guest's time
 * puts them; the huge-page fraction is sampled on the way.
 *
 * The cycles are the cost table's (struct nxsim_guest_costs) over the
 * counters: per access, per L1 miss (a second-level probe), the walks,
 * per fault, per split and per zap, per remote flush on the requesting
 * side and per flush each vCPU does.
 *
 * With guest page tables, the memory is mapped at NXSIM_WORKLOAD_GVA_BASE
 * by tables placed after it in the same slot (src/workload/tables.c),
 * every vCPU loads them, and the generators' addresses are replayed as
 * gvas the vCPU's TLB misses translate through them
 * (NXSIM_GUEST_LEVEL_WALK); with TDP off, through shadow paging.
 *
 * Left out: a guest OS and wall-clock overlap.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nxsim/nxsim.h>
#include <nxsim/workload.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "workload/workload.h"

#define HVA_BASE 0x100000000000ull /* 1 GiB aligned, below TASK_SIZE */
#define DEFAULT_CHUNK 4096

void nxsim_workload_config_default(struct nxsim_workload_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->profile = "6.6";
	cfg->nx_huge_pages = "force";
	cfg->recovery_ratio = 60;
	cfg->guest_level = NXSIM_PG_LEVEL_4K;
	cfg->host_level = NXSIM_PG_LEVEL_2M;
	cfg->nr_vcpus = 1;
	nxsim_vcpu_tlb_config_default(&cfg->tlb);
}

static bool bad_level(int level)
{
	return level < NXSIM_PG_LEVEL_4K || level > NXSIM_PG_LEVEL_1G;
}

static int set_param(struct nxsim_host *host, const char *name, unsigned int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	return nxsim_param_set(host, name, buf);
}

void nxsim__run_destroy(struct nxsim__run *r)
{
	if (r->vm)
		nxsim_vm_destroy(r->vm);
	if (r->host)
		nxsim_host_destroy(r->host);
	nxsim__free(r->vcpu, r->cfg.nr_vcpus * sizeof(*r->vcpu));
	nxsim__free(r->buf, r->chunk * sizeof(*r->buf));
	memset(r, 0, sizeof(*r));
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/*
 * The guest's page tables for memory [0, @map) at NXSIM_WORKLOAD_GVA_BASE,
 * at @table_gpa, loaded in every vCPU: 64-bit paging, CR0.WP, EFER.NXE.
 */
static int run_load_tables(struct nxsim__run *r, uint64_t map,
			   uint64_t table_gpa)
{
	struct nxsim_guest_paging p = {
		.cr0_pg = true,
		.cr0_wp = true,
		.cr4_pae = true,
		.efer_lma = true,
		.efer_nxe = true,
		.cr3 = table_gpa,
	};
	uint64_t bytes;
	unsigned int i;
	int rc;

	rc = nxsim_workload_map_guest(r->vm, NXSIM_WORKLOAD_GVA_BASE, 0, map,
				      r->cfg.guest_level, table_gpa, &bytes);
	for (i = 0; !rc && i < r->cfg.nr_vcpus; i++)
		rc = nxsim_guest_set_paging(r->vcpu[i], &p);
	return rc;
}

int nxsim__run_create(struct nxsim__run *r,
		      const struct nxsim_workload_config *cfg,
		      uint64_t mem_bytes)
{
	struct nxsim_host_config hc = { .cpu.itlb_multihit = true };
	uint64_t align = 1ull << (12 + 9 * (cfg ? cfg->host_level - 1 : 0));
	struct nxsim_memory_region mr = { .slot = 0 };
	uint64_t map = 0, tables = 0, table_gpa = 0;
	unsigned int i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!cfg || !cfg->nx_huge_pages || bad_level(cfg->guest_level) ||
	    bad_level(cfg->host_level) || !cfg->nr_vcpus ||
	    cfg->nr_vcpus > 1024 || !mem_bytes)
		return -EINVAL;
	if (cfg->no_tdp && !cfg->guest_tables)
		return -EOPNOTSUPP; /* shadow paging translates gvas */
	if (cfg->guest_tables) {
		/* the tables after the memory, in the same slot */
		map = align_up(mem_bytes,
			       1ull << (12 + 9 * (cfg->guest_level - 1)));
		rc = nxsim_workload_map_guest(NULL, NXSIM_WORKLOAD_GVA_BASE, 0,
					      map, cfg->guest_level, 0,
					      &tables);
		if (rc)
			return rc;
		table_gpa = align_up(map, align);
		mem_bytes = table_gpa + tables;
	}
	if (mem_bytes > NXSIM_WORKLOAD_MAX_BYTES)
		return -E2BIG;
	r->cfg = *cfg;
	if (!r->cfg.tlb.tlb.level[NXSIM_TLB_L2].sets)
		nxsim_vcpu_tlb_config_default(&r->cfg.tlb);
	r->chunk = cfg->chunk ? cfg->chunk : DEFAULT_CHUNK;
	r->ghz = cfg->ghz ? cfg->ghz : 3;
	r->vcpu = nxsim__zalloc(cfg->nr_vcpus * sizeof(*r->vcpu));
	r->buf = nxsim__alloc(r->chunk * sizeof(*r->buf));
	if (!r->vcpu || !r->buf) {
		rc = -ENOMEM;
		goto fail;
	}
	hc.profile = cfg->profile;
	hc.cpu.no_tdp = cfg->no_tdp;
	rc = nxsim_host_create(&hc, &r->host);
	if (rc)
		goto fail;
	/* the recovery parameters first: "never" refuses later writes */
	rc = set_param(r->host, "nx_huge_pages_recovery_ratio",
		       cfg->recovery_ratio);
	if (!rc && cfg->recovery_period_ms)
		rc = set_param(r->host, "nx_huge_pages_recovery_period_ms",
			       cfg->recovery_period_ms);
	if (!rc)
		rc = nxsim_param_set(r->host, "nx_huge_pages",
				     cfg->nx_huge_pages);
	if (!rc)
		rc = nxsim_vm_create(r->host, &r->vm);
	if (!rc)
		rc = nxsim_vm_set_vcpu_tlb(r->vm, &r->cfg.tlb);
	for (i = 0; !rc && i < cfg->nr_vcpus; i++) {
		rc = nxsim_vcpu_create(r->vm, i, &r->vcpu[i]);
		if (!rc)
			rc = nxsim_vcpu_run(r->vcpu[i]);
	}
	mr.memory_size = (mem_bytes + align - 1) & ~(align - 1);
	mr.userspace_addr = HVA_BASE;
	mr.host_level = cfg->host_level;
	if (!rc)
		rc = nxsim_vm_set_memory_region(r->vm, &mr);
	if (!rc && cfg->guest_tables)
		rc = run_load_tables(r, map, table_gpa);
	if (rc)
		goto fail;
	r->mem_bytes = mr.memory_size;
	r->next_sample = cfg->sample_every;
	return 0;
fail:
	nxsim__run_destroy(r);
	return rc;
}

/* The modelled cycles so far (and the result's counters). */
static int run_collect(struct nxsim__run *r, struct nxsim_workload_result *res)
{
	const struct nxsim_guest_costs *c = &r->cfg.tlb.costs;
	struct nxsim_mmu_counters mc;
	struct nxsim_vcpu_stats st;
	uint64_t l1d = 0, l1i = 0, l1 = 0;
	unsigned int i;
	int rc;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < r->cfg.nr_vcpus; i++) {
		rc = nxsim_vcpu_stats(r->vcpu[i], &st);
		if (rc)
			return rc;
		res->accesses += st.accesses;
		res->exec += st.exec;
		l1d += st.l1d_misses;
		l1i += st.l1i_misses;
		res->walks += st.walks;
		res->walk_cycles += st.walk_cycles;
		res->faults += st.faults;
		res->vcpu_flushes +=
			st.tlb_flush + st.tlb_flush_range + st.root_reloads;
	}
	l1 = l1d + l1i;
	rc = nxsim_vm_mmu_counters(r->vm, &mc);
	if (rc)
		return rc;
	res->splits = mc.splits;
	res->huge_zaps = mc.huge_zaps;
	res->recovery_zapped = mc.recovery_zapped;
	res->remote_flushes = mc.tlb_flushes;
	if (res->accesses) {
		res->l1d_mpka = 1000.0 * (double)l1d / (double)res->accesses;
		res->l1i_mpka = 1000.0 * (double)l1i / (double)res->accesses;
		res->l2_mpka =
			1000.0 * (double)res->walks / (double)res->accesses;
	}
	res->cycles = res->accesses * c->access + l1 * c->stlb_hit +
		      res->walk_cycles + res->faults * c->fault +
		      res->splits * c->split + res->huge_zaps * c->zap +
		      res->remote_flushes * c->flush_send +
		      res->vcpu_flushes * c->flush_recv;
	return 0;
}

/* The share of mapped bytes that huge SPTEs map. */
static double huge_fraction(struct nxsim__run *r)
{
	struct nxsim_vm_stats st;
	double small, huge;

	if (nxsim_vm_stats(r->vm, &st))
		return 0;
	small = (double)st.pages_4k;
	huge = (double)st.pages_2m * 512 + (double)st.pages_1g * 512 * 512;
	return small + huge > 0 ? huge / (small + huge) : 0;
}

/* After a round: move the clock by the round's time, take samples. */
static int run_tick(struct nxsim__run *r)
{
	struct nxsim_workload_result now;
	uint64_t ns;
	int rc = run_collect(r, &now);

	if (rc)
		return rc;
	ns = (now.cycles - r->cycles) / r->ghz / r->cfg.nr_vcpus;
	r->cycles = now.cycles;
	if (ns)
		nxsim_clock_advance(nxsim_host_clock(r->host), ns);
	while (r->cfg.sample && r->cfg.sample_every &&
	       now.accesses >= r->next_sample) {
		r->cfg.sample(r->cfg.sample_ctx, now.accesses,
			      huge_fraction(r));
		r->next_sample += r->cfg.sample_every;
	}
	return 0;
}

/* The layout's addresses as the guest's tables map them. */
static void to_gva(struct nxsim_guest_access *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		a[i].gpa += NXSIM_WORKLOAD_GVA_BASE;
		a[i].guest_level = NXSIM_GUEST_LEVEL_WALK;
	}
}

int nxsim__run_phase(struct nxsim__run *r, nxsim__gen_fn gen, void *ctx)
{
	bool any = true;
	unsigned int i;
	int64_t done;
	size_t n;
	int rc;

	while (any) {
		any = false;
		for (i = 0; i < r->cfg.nr_vcpus; i++) {
			n = gen(ctx, i, r->buf, r->chunk);
			if (!n)
				continue;
			any = true;
			if (r->cfg.guest_tables)
				to_gva(r->buf, n);
			done = nxsim_vcpu_access_batch(r->vcpu[i], r->buf, n);
			if (done < 0)
				return (int)done;
		}
		rc = run_tick(r);
		if (rc)
			return rc;
	}
	return 0;
}

int nxsim__run_finish(struct nxsim__run *r, struct nxsim_workload_result *res,
		      uint64_t phase_start)
{
	int rc = run_collect(r, res);

	if (rc)
		return rc;
	res->huge_fraction = huge_fraction(r);
	res->phase_cycles = res->cycles - phase_start;
	return 0;
}
