/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Traces from real machines, as input for replay and benchmarks:
 *
 *  - page ownership events (kmem:mm_page_alloc, mm_page_free,
 *    mm_page_free_batched) from the text of /sys/kernel/tracing/trace or
 *    of `perf script`, in both the decimal (pfn=%lu) and the hex
 *    (pfn=0x%lx) era; GFP flags decide whether a page is a user page,
 *    with XPFO's rule: all of GFP_HIGHUSER's bits present;
 *  - memory accesses from valgrind lackey --trace-mem=yes logs;
 *  - a compact little-endian binary form that either converts to once
 *    (layout in docs/traces.md).
 *
 * One event struct for all of them, delivered by an iterator, so a replay
 * is a loop over nxsim_trace_next(); nxsim_trace_replay_xpfo() is that loop
 * for page ownership events onto an XPFO machine.  The line parsers are pure
 * functions over a buffer (no allocation, no global state) so they can be
 * fuzzed.
 *
 * Thread safety: the parsers and name functions are safe from any thread.
 * A struct nxsim_trace has no lock: use each from one thread at a time
 * (different traces may be read concurrently).  A replay takes the
 * machine's or the TLB's own rules (<nxsim/xpfo.h>, <nxsim/tlb.h>).
 */
#ifndef NXSIM_TRACE_H
#define NXSIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nxsim_trace_format {
	NXSIM_TRACE_AUTO,   /* detect from the contents */
	NXSIM_TRACE_FTRACE, /* /sys/kernel/tracing/trace text */
	NXSIM_TRACE_PERF,   /* perf script text */
	NXSIM_TRACE_LACKEY, /* valgrind --tool=lackey --trace-mem=yes */
	NXSIM_TRACE_BINARY, /* nxsim's own, see docs/traces.md */
};

enum nxsim_trace_op {
	NXSIM_TRACE_ALLOC = 1, /* mm_page_alloc: 2^order frames at pfn */
	NXSIM_TRACE_FREE,      /* mm_page_free, mm_page_free_batched */
	NXSIM_TRACE_IFETCH,    /* lackey "I ": instruction fetch */
	NXSIM_TRACE_LOAD,      /* lackey " L" */
	NXSIM_TRACE_STORE,     /* lackey " S" */
	NXSIM_TRACE_MODIFY,    /* lackey " M": load and store */
};

/*
 * GFP flags by name, numbered by libnxsim: the kernel's own bit numbers
 * move between releases, its names do not.  Composite names in a trace
 * (GFP_KERNEL, GFP_HIGHUSER_MOVABLE, ...) set all their bits.
 */
enum nxsim_gfp {
	NXSIM_GFP_DMA = 1u << 0,
	NXSIM_GFP_HIGHMEM = 1u << 1,
	NXSIM_GFP_DMA32 = 1u << 2,
	NXSIM_GFP_MOVABLE = 1u << 3,
	NXSIM_GFP_RECLAIMABLE = 1u << 4,
	NXSIM_GFP_HIGH = 1u << 5,
	NXSIM_GFP_IO = 1u << 6,
	NXSIM_GFP_FS = 1u << 7,
	NXSIM_GFP_ZERO = 1u << 8,
	NXSIM_GFP_ATOMIC = 1u << 9,
	NXSIM_GFP_DIRECT_RECLAIM = 1u << 10,
	NXSIM_GFP_KSWAPD_RECLAIM = 1u << 11,
	NXSIM_GFP_WRITE = 1u << 12,
	NXSIM_GFP_NOWARN = 1u << 13,
	NXSIM_GFP_RETRY_MAYFAIL = 1u << 14,
	NXSIM_GFP_NOFAIL = 1u << 15,
	NXSIM_GFP_NORETRY = 1u << 16,
	NXSIM_GFP_MEMALLOC = 1u << 17,
	NXSIM_GFP_COMP = 1u << 18,
	NXSIM_GFP_NOMEMALLOC = 1u << 19,
	NXSIM_GFP_HARDWALL = 1u << 20,
	NXSIM_GFP_THISNODE = 1u << 21,
	NXSIM_GFP_ACCOUNT = 1u << 22,
	NXSIM_GFP_ZEROTAGS = 1u << 23,
	NXSIM_GFP_SKIP_ZERO = 1u << 24,
	NXSIM_GFP_SKIP_KASAN = 1u << 25,
	NXSIM_GFP_NOLOCKDEP = 1u << 26,
	NXSIM_GFP_NO_OBJ_EXT = 1u << 27,
};

/* GFP_HIGHUSER: the bits XPFO requires, all of them, for a user page. */
#define NXSIM_GFP_HIGHUSER                                                    \
	(NXSIM_GFP_DIRECT_RECLAIM | NXSIM_GFP_KSWAPD_RECLAIM | NXSIM_GFP_IO | \
	 NXSIM_GFP_FS | NXSIM_GFP_HARDWALL | NXSIM_GFP_HIGHMEM)

/* Limits a trace must stay within (x86-64 kernels). */
#define NXSIM_TRACE_MAX_PFN ((1ull << 40) - 1)	/* 52 physical bits */
#define NXSIM_TRACE_MAX_ORDER 10		/* MAX_ORDER - 1 */
#define NXSIM_TRACE_MAX_CPU 8191		/* NR_CPUS 8192 */
#define NXSIM_TRACE_MAX_PID 4194304		/* PID_MAX_LIMIT */
#define NXSIM_TRACE_MAX_ADDR ((1ull << 52) - 1) /* lackey address */
#define NXSIM_TRACE_MAX_SIZE 1024		/* lackey access bytes */

/**
 * struct nxsim_trace_event - one event of any trace
 * @ts_ns: timestamp in ns (page events; 0 for lackey)
 * @addr: the pfn (page events) or the virtual address (accesses)
 * @cpu: CPU the event ran on (page events)
 * @pid: task (thread) id (page events)
 * @gfp: NXSIM_GFP_* bits of an allocation
 * @size: bytes accessed (accesses)
 * @op: enum nxsim_trace_op
 * @order: the block is 2^order frames (page events)
 * @migratetype: of an allocation; -1 where the trace has none
 * @user: an allocation of a user page (nxsim_trace_gfp_user(@gfp))
 */
struct nxsim_trace_event {
	uint64_t ts_ns;
	uint64_t addr;
	uint32_t cpu;
	uint32_t pid;
	uint32_t gfp;
	uint16_t size;
	uint8_t op;
	uint8_t order;
	int8_t migratetype;
	bool user;
};

/* What a line of a text trace was. */
enum nxsim_trace_line {
	NXSIM_TRACE_LINE_NONE,	 /* blank, comment, header, tool banner */
	NXSIM_TRACE_LINE_EVENT,	 /* an event, in *ev */
	NXSIM_TRACE_LINE_OTHER,	 /* another tracepoint's event: skipped */
	NXSIM_TRACE_LINE_FAILED, /* an mm_page_alloc that got no page */
	NXSIM_TRACE_LINE_LOST,	 /* "CPU:n [LOST m EVENTS]": m in ev->addr */
};

/**
 * nxsim_trace_parse_kmem() - parse one line of ftrace or perf script text
 * @line: the line, without its newline; need not be NUL-terminated
 * @len: its length
 * @ev: receives the event (and the loss count of a LOST line)
 * @why: receives a static description of what is wrong, on error
 *
 * Understands both headers: ftrace's "comm-pid [cpu] flags secs.frac:"
 * (flags and a "(tgid)" column optional) and perf's "comm pid[/tid] [cpu]
 * secs.frac:", and the event name with or without "kmem:".
 *
 * Return: an enum nxsim_trace_line, or -EINVAL (malformed) or -ERANGE (a
 * number outside its NXSIM_TRACE_MAX_* limit).
 */
NXSIM_API int nxsim_trace_parse_kmem(const char *line, size_t len,
				     struct nxsim_trace_event *ev,
				     const char **why);

/**
 * nxsim_trace_parse_lackey() - parse one line of a lackey log
 * @line: the line, without its newline; need not be NUL-terminated
 * @len: its length
 * @ev: receives the access
 * @why: receives a static description of what is wrong, on error
 *
 * Return: an enum nxsim_trace_line ("==pid==" lines are NONE, "SB" lines
 * OTHER), -EINVAL or -ERANGE.
 */
NXSIM_API int nxsim_trace_parse_lackey(const char *line, size_t len,
				       struct nxsim_trace_event *ev,
				       const char **why);

/**
 * nxsim_trace_parse_gfp() - parse a gfp_flags= value as show_gfp_flags()
 *			     prints it
 * @s: "GFP_KERNEL|__GFP_ZERO", "none", with "0x..." leftovers
 * @len: its length
 * @gfp: receives the NXSIM_GFP_* bits
 *
 * Names of flags newer than this table and hex leftovers (bits without a
 * name, numbered differently by each kernel) add no bits.
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_trace_parse_gfp(const char *s, size_t len, uint32_t *gfp);

/**
 * nxsim_trace_gfp_user() - XPFO's test: (gfp & GFP_HIGHUSER) == GFP_HIGHUSER
 */
NXSIM_API bool nxsim_trace_gfp_user(uint32_t gfp);

/** nxsim_trace_format_name() - "ftrace", "perf", "lackey", "binary", "auto". */
NXSIM_API const char *nxsim_trace_format_name(enum nxsim_trace_format fmt);

/**
 * nxsim_trace_detect() - which format a buffer holds
 *
 * Return: the format of the first line that tells, or NXSIM_TRACE_AUTO
 * when none does.
 */
NXSIM_API enum nxsim_trace_format nxsim_trace_detect(const void *buf,
						     size_t len);

/**
 * struct nxsim_trace_stats - what a trace held, counted as it is read
 * @lines: text lines (records for a binary trace) read
 * @events: events delivered
 * @allocs: allocation events
 * @frees: free events
 * @user: allocations of user pages
 * @pages: frames allocated (sum of 2^order)
 * @ifetch: instruction fetches
 * @loads: loads
 * @stores: stores
 * @modifies: modifies
 * @other: lines of other tracepoints, skipped
 * @failed: allocations that got no page, skipped
 * @lost: events ftrace says it lost
 */
struct nxsim_trace_stats {
	uint64_t lines;
	uint64_t events;
	uint64_t allocs;
	uint64_t frees;
	uint64_t user;
	uint64_t pages;
	uint64_t ifetch;
	uint64_t loads;
	uint64_t stores;
	uint64_t modifies;
	uint64_t other;
	uint64_t failed;
	uint64_t lost;
};

struct nxsim_trace;

/**
 * nxsim_trace_open() - open a trace file (mapped, not copied)
 * @path: the file
 * @fmt: its format, or NXSIM_TRACE_AUTO
 * @tp: receives the trace
 * @why: receives a static description when opening fails (may be NULL)
 *
 * Return: 0; -ENOMEM; the negative errno of open/mmap; -EINVAL for a
 * format that cannot be detected or a bad binary header.
 */
NXSIM_API int nxsim_trace_open(const char *path, enum nxsim_trace_format fmt,
			       struct nxsim_trace **tp, const char **why);

/**
 * nxsim_trace_open_buf() - iterate over a trace held in memory
 * @buf: the bytes; they must outlive the trace
 * @len: how many
 * @fmt: their format, or NXSIM_TRACE_AUTO
 * @tp: receives the trace
 * @why: receives a static description when the header is bad (may be NULL)
 *
 * Return: 0, -ENOMEM, or -EINVAL (undetectable format, bad binary header:
 * wrong magic or version, truncated records).
 */
NXSIM_API int nxsim_trace_open_buf(const void *buf, size_t len,
				   enum nxsim_trace_format fmt,
				   struct nxsim_trace **tp, const char **why);

/** nxsim_trace_format() - the trace's format (never AUTO). */
NXSIM_API enum nxsim_trace_format
nxsim_trace_format(const struct nxsim_trace *t);

/**
 * nxsim_trace_next() - the next event
 * @t: the trace
 * @ev: receives it
 *
 * Skips blank, header and other-event lines, counting them.
 *
 * Return: 1 with an event, 0 at the end, or -EINVAL/-ERANGE with
 * nxsim_trace_error() naming the line; the iterator then stays at that
 * error.  A text trace whose last line has no newline is truncated:
 * -EINVAL.
 */
NXSIM_API int nxsim_trace_next(struct nxsim_trace *t,
			       struct nxsim_trace_event *ev);

/** nxsim_trace_error() - "line 12: pfn out of range: ..."; "" if none. */
NXSIM_API const char *nxsim_trace_error(const struct nxsim_trace *t);

/**
 * nxsim_trace_stats() - the counts of what was read so far
 *
 * Return: 0; -EINVAL for a NULL argument.
 */
NXSIM_API int nxsim_trace_stats(const struct nxsim_trace *t,
				struct nxsim_trace_stats *st);

/**
 * nxsim_trace_rewind() - start again from the first event
 *
 * Return: 0; -EINVAL for NULL.
 */
NXSIM_API int nxsim_trace_rewind(struct nxsim_trace *t);

/**
 * nxsim_trace_close() - release the trace (and unmap its file)
 *
 * Return: 0, or -EINVAL for NULL.
 */
NXSIM_API int nxsim_trace_close(struct nxsim_trace *t);

/**
 * nxsim_trace_write_binary() - convert the rest of a trace to binary
 * @t: a text trace
 * @path: the output file, created or truncated
 *
 * Return: the number of records written; -EINVAL/-ERANGE for a bad line
 * (nxsim_trace_error() names it; the output file is removed); -EINVAL for
 * a trace that is already binary; the negative errno of a failed write.
 */
NXSIM_API int64_t nxsim_trace_write_binary(struct nxsim_trace *t,
					   const char *path);

/* ---- replay (src/trace/replay.c) -------------------------------------- */

struct nxsim_xpfo;

/**
 * struct nxsim_trace_replay - what a replay did, beside the machine's own
 *			       counters (nxsim_xpfo_result())
 * @events: page events replayed (allocations and frees)
 * @frames: frame allocations and frees executed (2^order per event)
 * @switches: context switches: a CPU's task changed between its events
 * @unmatched_frees: frees of frames not allocated (the capture began after
 *	their allocation): skipped
 * @double_allocs: allocations of frames still allocated (a free the
 *	capture lost): the frame was freed first
 * @out_of_range: frames beyond the machine: skipped
 * @accesses: memory-access records (lackey): skipped
 */
struct nxsim_trace_replay {
	uint64_t events;
	uint64_t frames;
	uint64_t switches;
	uint64_t unmatched_frees;
	uint64_t double_allocs;
	uint64_t out_of_range;
	uint64_t accesses;
};

/**
 * nxsim_trace_replay_xpfo() - replay the rest of a trace's page ownership
 *			       events onto an XPFO machine
 * @t: the trace, from its current position
 * @m: the machine
 * @rep: receives the counts
 *
 * Each allocation is nxsim_xpfo_alloc_user() (for nxsim_trace_gfp_user()
 * pages, domain pid % 65535 + 1) or nxsim_xpfo_alloc_kernel() of each of
 * its frames, each free nxsim_xpfo_free(), on CPU (trace CPU % the
 * machine's CPUs).  Before an event whose task differs from the CPU's
 * current domain, the CPU context-switches to it (pid 0: domain 0).
 * Frees of free frames, allocations of allocated frames and frames past
 * the machine are reconciled and counted in @rep (above).
 *
 * Return: 0 at the end of the trace; the trace's -EINVAL/-ERANGE
 * (nxsim_trace_error() names the line); the machine's -ENOMEM; -EINVAL
 * for a NULL argument.  The events before an error stay replayed.
 */
NXSIM_API int nxsim_trace_replay_xpfo(struct nxsim_trace *t,
				      struct nxsim_xpfo *m,
				      struct nxsim_trace_replay *rep);

/**
 * nxsim_trace_frames() - the machine size a replay of @t needs
 * @t: the trace; read to its end, then rewound
 * @cpus: receives the highest page-event CPU + 1 (may be NULL)
 *
 * Return: one past the highest frame any page event touches (0 for a trace
 * without page events), or the trace's -EINVAL/-ERANGE.
 */
NXSIM_API int64_t nxsim_trace_frames(struct nxsim_trace *t, unsigned int *cpus);

/**
 * struct nxsim_trace_tlb_replay - what a replay onto a TLB did (the hits
 *				   by level are the TLB's nxsim_tlb_stats())
 * @accesses: access records replayed
 * @lookups: TLB lookups: one per page an access touches, two for a modify
 * @misses: lookups that missed every level, each followed by a 4K fill
 * @crossings: accesses that crossed a page boundary
 * @page_events: page ownership records: skipped
 */
struct nxsim_trace_tlb_replay {
	uint64_t accesses;
	uint64_t lookups;
	uint64_t misses;
	uint64_t crossings;
	uint64_t page_events;
};

struct nxsim_tlb;

/**
 * nxsim_trace_replay_tlb() - replay the rest of a lackey log onto one CPU
 *			      of a TLB
 * @t: the trace, from its current position
 * @tlb: the TLB (include/nxsim/tlb.h)
 * @cpu: the CPU
 * @pcid: the log's address space; loaded with CR3 NOFLUSH first
 * @rep: receives the counts
 *
 * An instruction fetch looks up NXSIM_TLB_EXEC, a load NXSIM_TLB_READ, a
 * store NXSIM_TLB_WRITE, a modify a read then a write, once for each 4 KiB
 * page the access touches; a miss fills a 4 KiB, non-global translation
 * of that page under @pcid (every page of a log is taken as mapped).
 *
 * Return: 0 at the end of the trace; the trace's -EINVAL/-ERANGE; -EINVAL
 * for a NULL argument, a bad @cpu or @pcid.
 */
NXSIM_API int nxsim_trace_replay_tlb(struct nxsim_trace *t,
				     struct nxsim_tlb *tlb, unsigned int cpu,
				     uint16_t pcid,
				     struct nxsim_trace_tlb_replay *rep);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_TRACE_H */
