// SPDX-License-Identifier: GPL-2.0-only
/*
 * The benchmark registry: one entry per bench/bench_<name>.c, in the order
 * they run.  Adding a benchmark is adding its file and one line here.
 */
#include "harness.h"

extern const struct bench bench_vm_live;
extern const struct bench bench_vm_burst;
extern const struct bench bench_vm_bringup;
extern const struct bench bench_worker_wake;
extern const struct bench bench_vm_memory;
extern const struct bench bench_xpfo_flush;
extern const struct bench bench_tlb_lookup;
extern const struct bench bench_xpfo_events;
extern const struct bench bench_nx_fault;
extern const struct bench bench_nx_split;
extern const struct bench bench_nx_recovery;
extern const struct bench bench_nx_hugefrac;
extern const struct bench bench_legacy_fault;
extern const struct bench bench_nx_guest;
extern const struct bench bench_nx_scaling;
extern const struct bench bench_shadow_fault;

const struct bench *const bench_registry[] = {
	/* first: its first burst measures RSS on the process's fresh memory */
	&bench_vm_live,
	&bench_vm_burst,     /* B3 */
	&bench_vm_bringup,   /* B3 in modelled kernel time */
	&bench_worker_wake,  /* B7 */
	&bench_vm_memory,    /* B8 */
	&bench_xpfo_flush,   /* B5 */
	&bench_tlb_lookup,   /* B1 */
	&bench_xpfo_events,  /* B5 speed, frame bytes */
	&bench_nx_fault,     /* B4a */
	&bench_nx_split,     /* B4a/b */
	&bench_nx_recovery,  /* B4c */
	&bench_nx_hugefrac,  /* huge-page fraction */
	&bench_legacy_fault, /* legacy direct map vs TDP MMU */
	&bench_nx_guest,     /* B6: guest replay on vCPU TLBs */
	&bench_nx_scaling,   /* faults/s, 1 and 2 threads, read vs write lock */
	&bench_shadow_fault, /* shadow paging: fault cost, table bytes */
	NULL,
};
