/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest workloads on vCPU TLBs: what nx_huge_pages=off, force or never
 * costs a guest (docs/guest-tlb.md).  A workload makes its own host (the
 * profile, the mitigation, the recovery parameters, a virtual clock), one
 * VM with vCPU TLBs and one memory slot, and replays guest accesses
 * through nxsim_vcpu_access_batch(): a valgrind lackey trace (I = fetch,
 * L/S/M = data), a seeded synthetic guest (code and data footprints, an
 * exec/data mix, and a JIT-like phase that writes pages and then executes
 * them), or the execute_perf_test shape of c4b33d28ea51 (each vCPU writes
 * then executes its own region once).  Several vCPUs take turns in
 * chunks, in one thread, so a run is deterministic; the virtual clock
 * moves with the modelled cycles, so the recovery worker runs its passes
 * as the guest runs.
 *
 * Guest page tables: by default the guest maps gpa = gva with pages of
 * one level (the fast mode).  With @guest_tables the run builds 4-level
 * 64-bit guest page tables in guest memory (nxsim_workload_map_guest())
 * that map its memory at gvas from NXSIM_WORKLOAD_GVA_BASE, loads them in
 * every vCPU's CR3, and replays gvas: the guest's walk gives each access
 * its level, and with @no_tdp the host has no EPT/NPT, so the same run
 * goes through shadow paging.
 *
 * Left out: the guest OS (its tables never change during a run), and
 * wall-clock overlap between vCPUs (cycles are summed: CPU time).
 *
 * Thread safety: a run uses only its own objects; runs may go in parallel.
 */
#ifndef NXSIM_WORKLOAD_H
#define NXSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/trace.h>
#include <nxsim/vcpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct nxsim_workload_config - the host, VM and guest of a run
 * @profile: kernel profile ("6.1", "6.6", "6.13", ...); NULL: newest
 * @nx_huge_pages: "off", "force" or "never" (written after load)
 * @recovery_ratio: nx_huge_pages_recovery_ratio; 0 disables recovery
 * @recovery_period_ms: nx_huge_pages_recovery_period_ms; 0: the default
 * @guest_level: the guest's page size, NXSIM_PG_LEVEL_*
 * @host_level: the host's backing (4K; 2M THP; 1G hugetlbfs)
 * @guest_tables: the guest maps its memory at gvas through its own page
 *	tables, with pages of @guest_level; false: gpa = gva (faster)
 * @no_tdp: the host has no EPT/NPT (cpu.no_tdp): shadow paging; needs
 *	@guest_tables
 * @nr_vcpus: vCPUs, 1 to 1024
 * @chunk: accesses a vCPU runs before the next takes its turn; 0: 4096
 * @ghz: modelled core clock, for the virtual clock; 0: 3
 * @tlb: the vCPU TLB (nxsim_vcpu_tlb_config_default() if all zero)
 * @sample_every: accesses between huge-page-fraction samples; 0: none
 * @sample: called with the access count and the fraction of the mapped
 *	bytes that huge SPTEs map (may be NULL)
 * @sample_ctx: passed to @sample
 *
 * Every run also answers -EOPNOTSUPP for @no_tdp without @guest_tables,
 * and, with @guest_tables, -ERANGE for memory that does not fit between
 * NXSIM_WORKLOAD_GVA_BASE and the end of the lower canonical half (1 TiB).
 */
struct nxsim_workload_config {
	const char *profile;
	const char *nx_huge_pages;
	unsigned int recovery_ratio;
	unsigned int recovery_period_ms;
	int guest_level;
	int host_level;
	bool guest_tables;
	bool no_tdp;
	unsigned int nr_vcpus;
	unsigned int chunk;
	unsigned int ghz;
	struct nxsim_vcpu_tlb_config tlb;
	uint64_t sample_every;
	void (*sample)(void *ctx, uint64_t accesses, double huge_fraction);
	void *sample_ctx;
};

/**
 * struct nxsim_workload_synth - a seeded synthetic guest, per vCPU
 * @seed: the RNG seed (each vCPU derives its own)
 * @accesses: accesses per vCPU
 * @code_bytes: code footprint, shared by the vCPUs
 * @data_bytes: data footprint, shared
 * @exec_permille: fetches per 1000 accesses
 * @jump_permille: fetches that jump to a random code page, per 1000
 * @far_permille: data accesses to a random data page, per 1000
 * @write_permille: data accesses that write, per 1000
 * @jit_pages: pages each vCPU writes and then executes (the JIT phase),
 *	spread over its run; 0: none
 */
struct nxsim_workload_synth {
	uint64_t seed;
	uint64_t accesses;
	uint64_t code_bytes;
	uint64_t data_bytes;
	unsigned int exec_permille;
	unsigned int jump_permille;
	unsigned int far_permille;
	unsigned int write_permille;
	uint64_t jit_pages;
};

/**
 * struct nxsim_workload_result - what a run cost
 * @accesses: guest accesses, all vCPUs
 * @exec: of them, fetches
 * @l1d_mpka: L1 dTLB misses per 1000 accesses
 * @l1i_mpka: L1 iTLB misses per 1000 accesses
 * @l2_mpka: second-level misses (walks) per 1000 accesses
 * @walks: two-dimensional walks
 * @walk_cycles: their cycles
 * @faults: TDP page faults
 * @splits: huge SPTEs split in place on faults
 * @huge_zaps: huge SPTEs zapped on faults
 * @recovery_zapped: SPs zapped by recovery passes
 * @remote_flushes: kvm_flush_remote_tlbs() calls (the VM's)
 * @vcpu_flushes: flushes and root reloads the vCPUs did, summed
 * @huge_fraction: at the end, the share of mapped bytes in huge SPTEs
 * @cycles: modelled CPU cycles, all vCPUs (struct nxsim_guest_costs)
 * @phase_cycles: cycles of the measured phase (the execute shape's
 *	execution; the whole run otherwise)
 */
struct nxsim_workload_result {
	uint64_t accesses;
	uint64_t exec;
	double l1d_mpka;
	double l1i_mpka;
	double l2_mpka;
	uint64_t walks;
	uint64_t walk_cycles;
	uint64_t faults;
	uint64_t splits;
	uint64_t huge_zaps;
	uint64_t recovery_zapped;
	uint64_t remote_flushes;
	uint64_t vcpu_flushes;
	double huge_fraction;
	uint64_t cycles;
	uint64_t phase_cycles;
};

/*
 * Where @guest_tables maps guest physical address 0 (canonical, 1 GiB
 * aligned).
 */
#define NXSIM_WORKLOAD_GVA_BASE 0x7f0000000000ull
/*
 * The guest memory of a run, all vCPUs (execute: @bytes times the vCPUs;
 * synth: its code, data and JIT layout; trace: its 1 GiB regions): a run
 * costs about 3.4 MiB and 0.24 s a GiB, so 64 GiB is about 220 MiB and
 * 15 s.  Past it a run answers -E2BIG.
 */
#define NXSIM_WORKLOAD_MAX_BYTES (64ull << 30)

/** nxsim_workload_config_default() - 6.6, force, ratio 60, 4K on 2M, 1 vCPU */
NXSIM_API void nxsim_workload_config_default(struct nxsim_workload_config *cfg);

/**
 * nxsim_workload_map_guest() - build 4-level guest page tables
 * @vm: the VM whose guest memory receives the tables; NULL: only size them
 * @gva: the first guest virtual address mapped
 * @gpa: the guest physical address it maps to
 * @bytes: how much (a multiple of @level's page)
 * @level: the page size of every mapping, NXSIM_PG_LEVEL_*
 * @table_gpa: where the tables go, 4 KiB aligned: the PML4 first (the
 *	CR3 to load), then the PDPTs, the PDs and the PTs @level needs
 * @table_bytes: receives the bytes of tables
 *
 * The VMM writes the tables (nxsim_guest_write()): present, writable,
 * supervisor, executable, A and D clear (the guest's walks set them), PS
 * on the leaves above 4K.  Everything not mapped is not present.
 *
 * Return: 0; -EINVAL for a bad @level, an unaligned or empty range, or a
 * misaligned @table_gpa; -ERANGE for a range past the lower canonical
 * half; -E2BIG for tables over NXSIM_GUEST_MEM_MAX_BYTES; as
 * nxsim_guest_write() (-EFAULT, -ENOMEM: some tables may be written).
 */
NXSIM_API int nxsim_workload_map_guest(struct nxsim_vm *vm, uint64_t gva,
				       uint64_t gpa, uint64_t bytes, int level,
				       uint64_t table_gpa,
				       uint64_t *table_bytes);

/**
 * nxsim_workload_run_trace() - replay a lackey trace as one guest's accesses
 * @cfg: the run (every vCPU replays the whole trace)
 * @t: an open trace of memory accesses (lackey text or binary)
 * @res: receives the result
 * @why: receives a static text when the trace is bad (may be NULL);
 *	nxsim_trace_error() names the line
 *
 * The trace's 1 GiB regions are laid out one after another in guest
 * physical memory, in order of first use, keeping their offsets.
 *
 * Return: 0; -EINVAL for a bad config or a trace with no accesses or a
 * bad line (the trace's error names it); -ERANGE for more than 64
 * regions; -E2BIG past NXSIM_WORKLOAD_MAX_BYTES; -ENOMEM.
 */
NXSIM_API int nxsim_workload_run_trace(const struct nxsim_workload_config *cfg,
				       struct nxsim_trace *t,
				       struct nxsim_workload_result *res);

/**
 * nxsim_workload_decode_trace() - a trace's accesses as guest accesses
 * @t: an open trace of memory accesses
 * @guest_level: the level every access carries
 * @ap: receives the accesses (free with nxsim_workload_accesses_free())
 * @np: receives their number
 * @mem_bytes: receives the guest memory they span (1 GiB per region)
 *
 * The decoding nxsim_workload_run_trace() replays, for callers that drive
 * vCPUs themselves.
 *
 * Return: as nxsim_workload_run_trace().
 */
NXSIM_API int nxsim_workload_decode_trace(struct nxsim_trace *t,
					  int guest_level,
					  struct nxsim_guest_access **ap,
					  size_t *np, uint64_t *mem_bytes);

/**
 * nxsim_workload_accesses_free() - free what nxsim_workload_decode_trace()
 * made
 */
NXSIM_API void nxsim_workload_accesses_free(struct nxsim_guest_access *a,
					    size_t n);

/**
 * nxsim_workload_run_synth() - run a synthetic guest on every vCPU
 *
 * Return: 0; -EINVAL for a bad config; -E2BIG past
 * NXSIM_WORKLOAD_MAX_BYTES; -ENOMEM.
 */
NXSIM_API int nxsim_workload_run_synth(const struct nxsim_workload_config *cfg,
				       const struct nxsim_workload_synth *synth,
				       struct nxsim_workload_result *res);

/**
 * nxsim_workload_run_execute() - execute_perf_test of c4b33d28ea51
 * @cfg: the run
 * @bytes: each vCPU's region (a multiple of the host page)
 * @res: receives the result; @res->phase_cycles is the execution phase
 *
 * Each vCPU writes every 4 KiB page of its region (populate), then fetches
 * once from every page (execute).
 *
 * Return: 0; -EINVAL; -E2BIG past NXSIM_WORKLOAD_MAX_BYTES; -ENOMEM.
 */
NXSIM_API int
nxsim_workload_run_execute(const struct nxsim_workload_config *cfg,
			   uint64_t bytes, struct nxsim_workload_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_WORKLOAD_H */
