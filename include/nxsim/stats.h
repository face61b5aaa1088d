/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters as data.  Every statistics struct of the public API has a table
 * of descriptors, one per field, in the struct's order: the field's name
 * (as the driver and the benchmarks print it), its type, its offset and
 * what it counts.  A program prints, exports or compares any of them with
 * one loop and no knowledge of the fields:
 *
 *	const struct nxsim_stat_desc *d;
 *	char val[32];
 *
 *	for (unsigned int i = 0; (d = nxsim_stats_desc(NXSIM_STATS_TLB, i));
 *	     i++) {
 *		nxsim_stat_format(d, &st, val, sizeof(val));
 *		printf("%s=%s\n", d->name, val);
 *	}
 *
 * An enum field (a worker's state) is described too: its value reads as
 * a number and formats as its name.
 *
 * Left out: nested structs (struct nxsim_xpfo_result and struct
 * nxsim_bringup_result hold three each) are their own sets; histogram
 * arrays (struct nxsim_bringup_stats) and pointers (struct
 * nxsim_bringup_result's per-VM arrays) have no descriptor.
 *
 * Thread safety: the tables are constant; every call is safe from any
 * thread.  Reading a struct while another thread fills it is the caller's
 * race.
 */
#ifndef NXSIM_STATS_H
#define NXSIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics structs that have descriptors. */
enum nxsim_stats_set {
	NXSIM_STATS_ALLOC,	      /* struct nxsim_alloc_stats */
	NXSIM_STATS_HOST,	      /* struct nxsim_host_counters */
	NXSIM_STATS_VM,		      /* struct nxsim_vm_counters */
	NXSIM_STATS_MMU,	      /* struct nxsim_mmu_counters */
	NXSIM_STATS_TLB,	      /* struct nxsim_tlb_stats */
	NXSIM_STATS_XPFO,	      /* struct nxsim_xpfo_stats */
	NXSIM_STATS_XPFO_ORACLE,      /* struct nxsim_xpfo_oracle */
	NXSIM_STATS_XPFO_CPU,	      /* struct nxsim_xpfo_cpu_info */
	NXSIM_STATS_XPFO_EXPOSURE,    /* struct nxsim_xpfo_frame_exposure */
	NXSIM_STATS_XPFO_RESULT,      /* struct nxsim_xpfo_result */
	NXSIM_STATS_XPFO_RATES,	      /* struct nxsim_xpfo_rates */
	NXSIM_STATS_TRACE,	      /* struct nxsim_trace_stats */
	NXSIM_STATS_TRACE_REPLAY,     /* struct nxsim_trace_replay */
	NXSIM_STATS_TRACE_TLB_REPLAY, /* struct nxsim_trace_tlb_replay */
	NXSIM_STATS_VM_STATS,	      /* struct nxsim_vm_stats */
	NXSIM_STATS_WORKER,	      /* struct nxsim_worker_info */
	NXSIM_STATS_ACCESS,	      /* struct nxsim_access_info */
	NXSIM_STATS_XPFO_FRAME,	      /* struct nxsim_xpfo_frame_info */
	NXSIM_STATS_BRINGUP_COSTS,    /* struct nxsim_bringup_costs */
	NXSIM_STATS_BRINGUP_LATENCY,  /* struct nxsim_bringup_stats */
	NXSIM_STATS_BRINGUP_RESULT,   /* struct nxsim_bringup_result */
	NXSIM_STATS_VCPU,	      /* struct nxsim_vcpu_stats */
	NXSIM_STATS_WORKLOAD_RESULT,  /* struct nxsim_workload_result */
	NXSIM_STATS_XPFO_COSTS,	      /* struct nxsim_xpfo_costs */
	NXSIM_STATS_NR_SETS,
};

enum nxsim_stat_type {
	NXSIM_STAT_U64,
	NXSIM_STAT_U32,
	NXSIM_STAT_U16,
	NXSIM_STAT_U8,
	NXSIM_STAT_INT, /* int: reads as its two's complement in a uint64_t */
	NXSIM_STAT_BOOL,
	NXSIM_STAT_DOUBLE,
	NXSIM_STAT_ENUM, /* an enum (int-sized), formatted by @value_name */
	NXSIM_STAT_TIME, /* uint64_t clock time in ns; NXSIM_NEVER: "never" */
};

/**
 * struct nxsim_stat_desc - one field of a statistics struct
 * @name: its name, unique in its set ("hits_l1d" for hits[NXSIM_TLB_L1D])
 * @type: its C type
 * @offset: offsetof() the field in the struct
 * @meaning: what it counts, one line
 * @value_name: for NXSIM_STAT_ENUM, the name of each value from 0 (NULL
 *	past the last); NULL for every other type
 */
struct nxsim_stat_desc {
	const char *name;
	enum nxsim_stat_type type;
	size_t offset;
	const char *meaning;
	const char *(*value_name)(unsigned int value);
};

/**
 * nxsim_stats_set_name() - the struct a set describes, e.g.
 *			    "nxsim_tlb_stats"; NULL for an unknown @set.
 */
NXSIM_API const char *nxsim_stats_set_name(enum nxsim_stats_set set);

/**
 * nxsim_stats_desc() - iterate over the fields of a set
 * @set: the set
 * @i: index from 0, in the struct's field order
 *
 * Return: the @i-th descriptor, or NULL past the last (or for an unknown
 * @set).
 */
NXSIM_API const struct nxsim_stat_desc *
nxsim_stats_desc(enum nxsim_stats_set set, unsigned int i);

/**
 * nxsim_stats_find() - the descriptor of field @name of @set
 *
 * Return: the descriptor, or NULL when @set has no such field.
 */
NXSIM_API const struct nxsim_stat_desc *
nxsim_stats_find(enum nxsim_stats_set set, const char *name);

/**
 * nxsim_stat_u64() - the value of an integer, bool, enum or time field
 * @d: the descriptor
 * @st: the struct @d describes a field of
 *
 * Return: the value; a double field is truncated (NAN and values out of
 * range give 0).
 */
NXSIM_API uint64_t nxsim_stat_u64(const struct nxsim_stat_desc *d,
				  const void *st);

/**
 * nxsim_stat_double() - the value of any field as a double
 */
NXSIM_API double nxsim_stat_double(const struct nxsim_stat_desc *d,
				   const void *st);

/**
 * nxsim_stat_format() - the value of a field as text, like snprintf()
 * @d: the descriptor
 * @st: the struct
 * @buf: receives the text: decimal for integers, 0 or 1 for a bool,
 *	"%.6g" for a double, the value's name for an enum (decimal for a
 *	value without one), "never" for a time of NXSIM_NEVER
 * @size: size of @buf
 *
 * Return: the length of the whole text (excluding the NUL).
 */
NXSIM_API int nxsim_stat_format(const struct nxsim_stat_desc *d, const void *st,
				char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_STATS_H */
