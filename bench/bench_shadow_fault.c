// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shadow paging (docs/shadow-paging.md): the cost of a shadow page fault
 * and the memory of a shadowed guest table.
 *
 *   4k.faults_per_s  a host with TDP off (no_tdp), profile 6.6: a 64-bit
 *                    guest whose page tables map every 4 KiB page of a
 *                    slot backed by 4 KiB host pages; a read of each page
 *                    is one shadow fault: the guest walk (4 levels, A bits
 *                    set) and FNAME(fetch) down to a 4K leaf, with the
 *                    indirect shadow pages of the guest tables made on the
 *                    way.  Reference, interleaved: the same reads on a
 *                    host with TDP (the TDP MMU, same profile): one TDP
 *                    fault to a 4K leaf each.  Target: the shadow fault
 *                    within 3x the TDP fault (value / reference >= 1/3).
 *   pae.faults_per_s, 32bit.faults_per_s
 *                    the same stream from a PAE guest (8-byte tables
 *                    under one PDPTE, shadowed from pae_root) and a 32-bit
 *                    guest (4-byte tables, each shadowed by two quadrant
 *                    pages; data below 4 GiB), gva 1 GiB up; each
 *                    interleaved with its own TDP reference as above.
 *                    No target.
 *   bytes_per_table  bytes the simulator holds per shadow page once the
 *                    stream is mapped (the page, its header,
 *                    shadowed_translation, rmaps), beside the bytes per
 *                    page-table page of the TDP side.  No target.
 *
 * Every timed access must be a fault (the MMU's fault counter is checked).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <nxsim/alloc.h>
#include <nxsim/guest.h>

#include "harness.h"
#include "nx_env.h"

#define TABLE_SLOT 1
#define PML4 0x1000ull
#define PDPT 0x2000ull
#define PD 0x3000ull
#define PT0 0x4000ull
#define TABLE_BYTES (2ull << 20)
#define PWU (NXSIM_GPTE_P | NXSIM_GPTE_W | NXSIM_GPTE_U)
#define GVA_LOW (1ull << 30) /* PAE and 32-bit guests' stream */
#define DATA32 (1ull << 30)  /* the 32-bit guest's data gpa */

/* @level: the guest's paging (4, 3 PAE, 2 32-bit), 0 for a TDP side */
struct side {
	bool shadow;
	unsigned int n;
	double bytes_per_table;
	int level;
};

/* The gpa of the slot the stream reads, and the first gva. */
static uint64_t data_gpa(const struct side *s)
{
	return s->level == 2 ? DATA32 : NX_GPA_BASE;
}

static uint64_t stream_gva(const struct side *s)
{
	return s->level == 2 || s->level == 3 ? GVA_LOW : data_gpa(s);
}

/*
 * The PAE or 32-bit guest's tables (CR3 at PML4): gva GVA_LOW + i pages
 * to the data page i, 4K PTEs written by the VMM; then paging on.
 */
static int guest_tables_low(const struct nx_env *e, const struct side *s)
{
	struct nxsim_guest_paging p = { .cr0_pg = true,
					.cr0_wp = true,
					.cr4_pae = s->level == 3,
					.efer_nxe = s->level == 3,
					.cr3 = PML4 };
	unsigned int sz = s->level == 3 ? 8 : 4, per_pt = 4096 / sz, i;
	uint64_t v, pd = s->level == 3 ? PD : PML4;
	uint64_t pde0 = s->level == 3 ? 0 : GVA_LOW >> 22;
	int rc = 0;

	if (s->level == 3) {
		v = PD | NXSIM_GPTE_P; /* PDPTE 1: no W/U (reserved) */
		rc = nxsim_guest_write(e->vm, PML4 + 8, &v, 8);
	}
	for (i = 0; !rc && i < (s->n + per_pt - 1) / per_pt; i++) {
		v = (PT0 + i * 4096) | PWU;
		rc = nxsim_guest_write(e->vm, pd + sz * (pde0 + i), &v, sz);
	}
	for (i = 0; !rc && i < s->n; i++) {
		v = (data_gpa(s) + i * 4096ull) | PWU;
		rc = nxsim_guest_write(e->vm, PT0 + sz * i, &v, sz);
	}
	return rc ? rc : nxsim_guest_set_paging(e->vcpu, &p);
}

/*
 * The guest's tables, identity-mapping the n pages at NX_GPA_BASE with 4K
 * PTEs, written by the VMM; then paging on.  Not timed.
 */
static int guest_tables(const struct nx_env *e, unsigned int n)
{
	struct nxsim_guest_paging p = { .cr0_pg = true,
					.cr0_wp = true,
					.cr4_pae = true,
					.efer_lma = true,
					.efer_nxe = true,
					.cr3 = PML4 };
	uint64_t v, i;
	int rc;

	v = PDPT | PWU;
	rc = nxsim_guest_write(e->vm, PML4, &v, 8);
	v = PD | PWU;
	if (!rc)
		rc = nxsim_guest_write(e->vm, PDPT + 8 * (NX_GPA_BASE >> 30),
				       &v, 8);
	for (i = 0; !rc && i < n / 512; i++) {
		v = (PT0 + i * 4096) | PWU;
		rc = nxsim_guest_write(e->vm, PD + 8 * i, &v, 8);
	}
	for (i = 0; !rc && i < n; i++) {
		v = (NX_GPA_BASE + i * 4096) | PWU;
		rc = nxsim_guest_write(e->vm, PT0 + 8 * i, &v, 8);
	}
	return rc ? rc : nxsim_guest_set_paging(e->vcpu, &p);
}

static int make_env(struct nx_env *e, const struct side *s)
{
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true,
					 .cpu.no_tdp = s->shadow,
					 .profile = "6.6" };
	struct nxsim_memory_region tables = { .slot = TABLE_SLOT,
					      .memory_size = TABLE_BYTES,
					      .userspace_addr = NX_HVA_BASE +
								(64ull << 30) };
	struct nxsim_memory_region mr = { .slot = 0,
					  .guest_phys_addr = data_gpa(s),
					  .memory_size = s->n * 4096ull,
					  .userspace_addr = NX_HVA_BASE,
					  .host_level = NXSIM_PG_LEVEL_4K };
	struct nx_env_spec spec = { .host = &cfg, .slot = &mr, .run = true };
	int rc = nx_env_open(e, &spec);

	/* the guest's tables, gpa 0 up */
	if (!rc && s->shadow)
		rc = nxsim_vm_set_memory_region(e->vm, &tables);
	if (!rc && s->shadow && s->level == 4)
		rc = guest_tables(e, s->n);
	else if (!rc && s->shadow)
		rc = guest_tables_low(e, s);
	return rc;
}

/* value = faults per second over the timed stream. */
static int side_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct side *s = arg;
	struct nxsim_mmu_counters c0, c1;
	struct nxsim_alloc_stats a0, a1;
	struct nx_env e;
	uint64_t t0, t1;
	int64_t pages;
	int rc;

	(void)lat;
	rc = make_env(&e, s);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c0);
	nxsim_alloc_stats(&a0);
	t0 = bench_now_ns();
	for (unsigned int i = 0; i < s->n && !rc; i++)
		rc = nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_READ,
				       stream_gva(s) + i * 4096ull, NULL);
	t1 = bench_now_ns();
	nxsim_alloc_stats(&a1);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c1);
	pages = rc ? 0 : nxsim_vm_nr_mmu_pages(e.vm);
	if (!rc && (c1.faults - c0.faults != s->n || pages <= 0))
		rc = -EPROTO;
	if (!rc) {
		*value = (double)s->n * 1e9 / (double)(t1 - t0);
		s->bytes_per_table =
			(double)(a1.live_bytes - a0.live_bytes) / (double)pages;
	}
	nx_env_close(&e);
	return rc;
}

static int shadow_fault_run(struct bench_ctx *ctx)
{
	unsigned int n = ctx->mode == BENCH_TINY ? 1024 :
			 ctx->mode == BENCH_FULL ? 131072 :
						   32768;
	struct side shadow = { true, n, 0, 4 }, tdp = { false, n, 0, 0 };
	struct side pae = { true, n, 0, 3 }, g32 = { true, n, 0, 2 };
	struct side tdp32 = { false, n, 0, 2 };
	struct bench_side sides[2] = {
		{ "shadow faults (TDP off, 64-bit guest, 4K)", side_rep,
		  &shadow },
		{ "TDP faults (TDP MMU, 4K)", side_rep, &tdp },
	};
	struct bench_side sides_pae[2] = {
		{ "shadow faults (TDP off, PAE guest, 4K)", side_rep, &pae },
		{ "TDP faults (TDP MMU, 4K)", side_rep, &tdp },
	};
	struct bench_side sides_32[2] = {
		{ "shadow faults (TDP off, 32-bit guest, 4K)", side_rep, &g32 },
		{ "TDP faults (TDP MMU, 4K, data below 4 GiB)", side_rep,
		  &tdp32 },
	};
	struct bench_pair p = { 0 };
	char params[160];
	int rc;

	snprintf(params, sizeof(params),
		 "{\"profile\":\"6.6\",\"faults\":%u,\"host_level\":1}", n);
	rc = bench_interleave(ctx, "4k", bench_reps(ctx), sides, &p);
	if (!rc)
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "4k.faults_per_s",
				.unit = "fault/s",
				.ref_name = "the same reads through the TDP "
					    "MMU (fault/s)",
				.target = { BENCH_TARGET_RATIO_MIN, 1.0 / 3 },
				.params = params });
	bench_pair_free(&p);
	p = (struct bench_pair){ 0 };
	if (!rc)
		rc = bench_interleave(ctx, "pae", bench_reps(ctx), sides_pae,
				      &p);
	if (!rc)
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "pae.faults_per_s",
				.unit = "fault/s",
				.ref_name = "the same reads through the TDP "
					    "MMU (fault/s)",
				.params = params });
	bench_pair_free(&p);
	p = (struct bench_pair){ 0 };
	if (!rc)
		rc = bench_interleave(ctx, "32bit", bench_reps(ctx), sides_32,
				      &p);
	if (!rc)
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "32bit.faults_per_s",
				.unit = "fault/s",
				.ref_name = "the same reads through the TDP "
					    "MMU (fault/s)",
				.params = params });
	bench_pair_free(&p);
	if (!rc)
		rc = bench_report(
			ctx,
			&(struct bench_figure){
				.figure = "bytes_per_table",
				.unit = "B",
				.value = shadow.bytes_per_table,
				.ref_name = "bytes per TDP page-table page, "
					    "same stream",
				.ref = tdp.bytes_per_table,
				.params = params,
				.reps = 1 });
	return rc;
}

const struct bench bench_shadow_fault = {
	.name = "shadow_fault",
	.title = "shadow faults/s (guest walk + fetch) vs TDP faults/s; "
		 "bytes per shadowed guest table",
	.run = shadow_fault_run,
};
