// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for the clock (include/nxsim/clock.h) of the current host,
 * the allocator's counters and failure injection (alloc.h), errno names
 * (error.h) and trace files (trace.h), and their replay onto an XPFO
 * machine (nxsim_trace_replay_xpfo()) or a TLB (nxsim_trace_replay_tlb()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numarg.h"

/* The clock named, or the current host's. */
static struct nxsim_clock *get_clock(struct nxsim__drv *d, int argc,
				     struct nxsim__drv_tok *argv,
				     struct nxsim__drv_reply *r)
{
	struct nxsim_host *host;

	if (argc)
		return nxsim__drv_find(d, argv[0].s, NXSIM__DRV_CLOCK, r);
	host = nxsim__drv_host(d, NULL, r);
	return host ? nxsim_host_clock(host) : NULL;
}

static int clock_create(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	enum nxsim_clock_mode mode = NXSIM_CLOCK_VIRTUAL;
	struct nxsim_clock *clock;
	int rc;

	if (argc > 1 && !strcmp(argv[1].s, "real"))
		mode = NXSIM_CLOCK_REAL;
	else if (argc > 1 && strcmp(argv[1].s, "virtual"))
		return nxsim__drv_fail(r, -EINVAL,
				       "a clock is virtual or real");
	rc = nxsim__drv_name_free(d, &argv[0], r);
	if (!rc)
		rc = nxsim_clock_create(mode, &clock);
	if (rc)
		return rc;
	rc = nxsim__drv_add_object(d, argv[0].s, NXSIM__DRV_CLOCK, clock);
	if (rc)
		nxsim_clock_destroy(clock);
	return rc;
}

static int clock_destroy(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_clock *clock =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_CLOCK, r);
	int rc;

	if (!clock)
		return -ENOENT;
	rc = nxsim_clock_destroy(clock);
	if (!rc)
		nxsim__drv_forget(d, argv[0].s);
	return rc;
}

static int clock_advance(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_clock *clock = get_clock(d, argc - 1, argv + 1, r);
	uint64_t ns;
	int64_t n;
	int rc;

	if (!clock)
		return -ENOENT;
	rc = nxsim__drv_duration(&argv[0], &ns, r);
	if (rc)
		return rc;
	n = nxsim_clock_advance(clock, ns);
	if (n < 0)
		return n;
	nxsim__drv_add(r, " events=%" PRId64 " now=%" PRIu64, n,
		       nxsim_clock_now(clock));
	return 0;
}

static int clock_now(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_clock *clock = get_clock(d, argc, argv, r);

	if (!clock)
		return -ENOENT;
	nxsim__drv_add(r, " %" PRIu64, nxsim_clock_now(clock));
	return 0;
}

static int clock_next(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_clock *clock = get_clock(d, argc, argv, r);
	uint64_t next;

	if (!clock)
		return -ENOENT;
	next = nxsim_clock_next_event(clock);
	if (next == NXSIM_NEVER)
		nxsim__drv_add(r, " never");
	else
		nxsim__drv_add(r, " %" PRIu64, next);
	return 0;
}

static int clock_mode(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_clock *clock = get_clock(d, argc, argv, r);

	if (!clock)
		return -ENOENT;
	nxsim__drv_add(r, " %s",
		       nxsim_clock_mode(clock) == NXSIM_CLOCK_REAL ? "real" :
								     "virtual");
	return 0;
}

static int alloc_stats(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_alloc_stats st;

	nxsim_alloc_stats(&st);
	nxsim__drv_add_stats(r, NXSIM_STATS_ALLOC, &st, NULL);
	nxsim__drv_add(r, " pending=%d backend=%s", nxsim_alloc_fail_pending(),
		       nxsim_alloc_backend());
	return 0;
}

static int alloc_fail_nth(struct nxsim__drv *d, int argc,
			  struct nxsim__drv_tok *argv,
			  struct nxsim__drv_reply *r)
{
	uint64_t nth;
	int rc = nxsim__drv_u64(&argv[0], UINT32_MAX, &nth, r);

	if (!rc)
		nxsim_alloc_fail_nth(nth);
	return rc;
}

static int errno_verb(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	const char *text, *colon;
	char neg[32];
	int err;

	/* "1" means EPERM too, as errno(1) reads it */
	snprintf(neg, sizeof(neg), "-%s", argv[0].s);
	err = nxsim_errno_parse(
		argv[0].s[0] >= '1' && argv[0].s[0] <= '9' ? neg : argv[0].s);

	if (!err)
		return nxsim__drv_fail(r, -ENOENT, "no errno \"%s\"",
				       argv[0].s);
	text = nxsim_strerror(err);
	colon = strstr(text, ": ");
	nxsim__drv_add(r, " %s %d", nxsim_errname(err), err);
	text = colon ? colon + 2 : text;
	nxsim__drv_quote(r, NULL, text, strlen(text));
	return 0;
}

static int trace_format(const char *name, enum nxsim_trace_format *fmt,
			struct nxsim__drv_reply *r)
{
	int f;

	for (f = NXSIM_TRACE_AUTO; f <= NXSIM_TRACE_BINARY; f++) {
		if (!strcmp(name, nxsim_trace_format_name(f))) {
			*fmt = f;
			return 0;
		}
	}
	return nxsim__drv_fail(r, -EINVAL, "unknown trace format \"%s\"", name);
}

static int trace_open(const char *path, const char *fmt_name,
		      struct nxsim_trace **t, struct nxsim__drv_reply *r)
{
	enum nxsim_trace_format fmt = NXSIM_TRACE_AUTO;
	const char *why = "";
	int rc;

	if (fmt_name && (rc = trace_format(fmt_name, &fmt, r)))
		return rc;
	rc = nxsim_trace_open(path, fmt, t, &why);
	if (rc)
		nxsim__drv_fail(r, rc, "%s: %s", path, why);
	return rc;
}

static int trace_stat(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_trace_event ev;
	struct nxsim_trace_stats st;
	struct nxsim_trace *t;
	int rc;

	rc = trace_open(argv[0].s, argc > 1 ? argv[1].s : NULL, &t, r);
	if (rc)
		return rc;
	while ((rc = nxsim_trace_next(t, &ev)) == 1)
		;
	if (rc) {
		nxsim__drv_fail(r, rc, "%s: %s", argv[0].s,
				nxsim_trace_error(t));
		nxsim_trace_close(t);
		return rc;
	}
	nxsim_trace_stats(t, &st);
	nxsim__drv_add(r, " format=%s",
		       nxsim_trace_format_name(nxsim_trace_format(t)));
	nxsim__drv_add_stats(r, NXSIM_STATS_TRACE, &st, NULL);
	nxsim_trace_close(t);
	return 0;
}

static void add_records(struct nxsim__drv_reply *r, int64_t n,
			const struct nxsim_trace *t,
			const struct nxsim_trace_stats *st)
{
	static const char *const skipped[] = { "other", "failed", "lost",
					       NULL };

	nxsim__drv_add(r, " records=%" PRId64 " format=%s", n,
		       nxsim_trace_format_name(nxsim_trace_format(t)));
	nxsim__drv_add_stats(r, NXSIM_STATS_TRACE, st, skipped);
}

static int trace_convert(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	const char *in = argv[0].s, *out = argv[1].s;
	struct nxsim_trace_stats st;
	struct nxsim_trace *t;
	int64_t n;
	int rc;

	rc = trace_open(in, NULL, &t, r);
	if (rc)
		return rc;
	n = nxsim_trace_write_binary(t, out);
	nxsim_trace_stats(t, &st);
	if (n < 0)
		nxsim__drv_fail(r, n, "%s: %s", in, nxsim_trace_error(t));
	else /* and what the binary file does not hold: skipped lines */
		add_records(r, n, t, &st);
	nxsim_trace_close(t);
	return n < 0 ? (int)n : 0;
}

/* An argument no option took: the FORMAT if it comes first, else an error. */
static int replay_format(struct nxsim__drv_tok *argv, int i, const char **fmt,
			 struct nxsim__drv_reply *r)
{
	if (i == 1 && !strchr(argv[i].s, '=')) {
		*fmt = argv[i].s;
		return 0;
	}
	return nxsim__drv_fail(r, -EINVAL, "unknown replay option \"%s\"",
			       argv[i].s);
}

/* One machine's replay; the result is the machine's counters. */
static int replay_once(struct nxsim_trace *t, struct nxsim_xpfo_config *cfg,
		       struct nxsim_trace_replay *rep,
		       struct nxsim_xpfo_result *res, const char *path,
		       struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo *m;
	int rc = nxsim_xpfo_create(cfg, &m);

	if (rc == -ENOENT)
		return nxsim__drv_fail(r, rc, "unknown policy (xpfo policies)");
	if (rc)
		return rc;
	rc = nxsim_trace_replay_xpfo(t, m, rep);
	if (rc == -EINVAL || rc == -ERANGE)
		nxsim__drv_fail(r, rc, "%s: %s", path, nxsim_trace_error(t));
	if (!rc)
		rc = nxsim_xpfo_result(m, res);
	nxsim_xpfo_destroy(m);
	return rc;
}

/* The replay counts and TLB counters the replay answers show. */
static const char *const replay_shown[] = { "switches", "unmatched_frees",
					    "double_allocs", NULL };
static const char *const tlb_replay_shown[] = { "accesses", "lookups", "misses",
						"crossings", NULL };
static const char *const tlb_shown[] = { "hits_l1d", "hits_l1i", "hits_l2",
					 "evictions", NULL };

static int trace_replay(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_xpfo_config cfg = { 0 };
	struct nxsim_xpfo_result res, base;
	struct nxsim_trace_replay rep;
	const char *fmt = NULL, *v;
	struct nxsim_trace *t;
	unsigned int cpus;
	uint64_t num;
	int64_t frames;
	int i, rc = 0;

	for (i = 1; !rc && i < argc; i++) {
		if ((v = nxsim__drv_opt(&argv[i], "policy")))
			cfg.policy = v;
		else if ((v = nxsim__drv_opt(&argv[i], "version")))
			rc = nxsim__drv_xpfo_version(v, &cfg.version, r);
		else if ((v = nxsim__drv_opt(&argv[i], "cpus"))) {
			rc = nxsim__drv_opt_u64(v, NXSIM_TLB_MAX_CPUS, &num, r);
			cfg.nr_cpus = num;
		} else
			rc = replay_format(argv, i, &fmt, r);
	}
	if (!rc)
		rc = trace_open(argv[0].s, fmt, &t, r);
	if (rc)
		return rc;
	frames = nxsim_trace_frames(t, &cpus);
	if (frames < 0)
		rc = nxsim__drv_fail(r, frames, "%s: %s", argv[0].s,
				     nxsim_trace_error(t));
	else if (!frames)
		rc = nxsim__drv_fail(r, -EINVAL, "%s has no page events",
				     argv[0].s);
	/* the trace's own CPUs unless cpus= */
	if (!cfg.nr_cpus)
		cfg.nr_cpus = cpus;
	if (!rc && cfg.nr_cpus > NXSIM_TLB_MAX_CPUS)
		rc = nxsim__drv_fail(
			r, -ERANGE,
			"%s has %u CPUs, more than %u: give cpus=", argv[0].s,
			cfg.nr_cpus, NXSIM_TLB_MAX_CPUS);
	cfg.nr_frames = frames;
	if (!rc)
		rc = replay_once(t, &cfg, &rep, &res, argv[0].s, r);
	if (!rc) { /* the same events without XPFO: the overhead baseline */
		nxsim_trace_rewind(t);
		cfg.disabled = true;
		rc = replay_once(t, &cfg, &rep, &base, argv[0].s, r);
	}
	nxsim_trace_close(t);
	if (rc)
		return rc;
	res.base_kernel_cycles = base.kernel_cycles;
	res.base_user_cycles = base.user_cycles;
	res.base_makespan_cycles = base.makespan_cycles;
	res.system_ratio =
		(double)res.kernel_cycles / (double)base.kernel_cycles;
	res.wall_ratio =
		(double)res.makespan_cycles / (double)base.makespan_cycles;
	/* (the baseline's replay counts are the same) */
	nxsim__drv_add(r, " cpus=%u frames=%" PRId64 " replayed=%" PRIu64,
		       cfg.nr_cpus, frames, rep.events);
	nxsim__drv_add_stats(r, NXSIM_STATS_TRACE_REPLAY, &rep, replay_shown);
	nxsim__drv_add_result(r, &res);
	return 0;
}

static int trace_replay_tlb(struct nxsim__drv *d, int argc,
			    struct nxsim__drv_tok *argv,
			    struct nxsim__drv_reply *r)
{
	struct nxsim_trace_tlb_replay rep;
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb_stats st;
	const char *fmt = NULL;
	struct nxsim_trace *t;
	struct nxsim_tlb *tlb;
	bool matched;
	int i, rc = 0;

	nxsim_tlb_config_default(&cfg, 1);
	for (i = 1; !rc && i < argc; i++) {
		rc = nxsim__drv_tlb_option(&argv[i], &cfg, &matched, r);
		if (rc || matched)
			continue;
		rc = replay_format(argv, i, &fmt, r);
	}
	if (rc)
		return rc;
	rc = nxsim_tlb_create(&cfg, &tlb);
	if (rc == -ENOENT)
		return nxsim__drv_fail(r, rc, "unknown replacement \"%s\"",
				       cfg.replacement);
	if (rc)
		return rc;
	rc = trace_open(argv[0].s, fmt, &t, r);
	if (rc)
		goto out;
	rc = nxsim_trace_replay_tlb(t, tlb, 0, 1, &rep);
	if (rc == -EINVAL || rc == -ERANGE)
		nxsim__drv_fail(r, rc, "%s: %s", argv[0].s,
				nxsim_trace_error(t));
	if (!rc && !rep.accesses)
		rc = nxsim__drv_fail(r, -EINVAL, "%s has no memory accesses",
				     argv[0].s);
	if (!rc) {
		nxsim_tlb_stats(tlb, 0, &st);
		nxsim__drv_add_stats(r, NXSIM_STATS_TRACE_TLB_REPLAY, &rep,
				     tlb_replay_shown);
		nxsim__drv_add(r, " misses_per_1k=%.6g",
			       1000.0 * (double)rep.misses /
				       (double)rep.lookups);
		nxsim__drv_add_stats(r, NXSIM_STATS_TLB, &st, tlb_shown);
	}
	nxsim_trace_close(t);
out:
	nxsim_tlb_destroy(tlb);
	return rc;
}

const struct nxsim__drv_verb nxsim__drv_misc_verbs[] = {
	{ "clock", "create", 1, 2, "NAME [virtual|real]",
	  "make a clock that hosts can share (host create ... clock=NAME)",
	  clock_create },
	{ "clock", "destroy", 1, 1, "CLOCK",
	  "free a clock (-EBUSY while a host uses it)", clock_destroy },
	{ "clock", "advance", 1, 2, "DURATION [CLOCK]",
	  "let virtual time pass on CLOCK or the current host's clock (60s, "
	  "100ms, 250us, 5ns; bare: ns), running due events: answers "
	  "events=N now=NS",
	  clock_advance },
	{ "clock", "now", 0, 1, "[CLOCK]", "answers the clock's time in ns",
	  clock_now },
	{ "clock", "next", 0, 1, "[CLOCK]",
	  "answers the next armed event's deadline in ns, or never",
	  clock_next },
	{ "clock", "mode", 0, 1, "[CLOCK]", "answers virtual or real",
	  clock_mode },
	{ "alloc", "stats", 0, 0, "",
	  "answers allocs= live= live_bytes= failed= pending=0|1 (an armed "
	  "failure not yet fired) backend=",
	  alloc_stats },
	{ "alloc", "fail-nth", 1, 1, "N",
	  "make the N-th simulator allocation from now fail (0 disarms)",
	  alloc_fail_nth },
	{ "errno", NULL, 1, 1, "NAME|NUMBER",
	  "answers the errno's name, number and text", errno_verb },
	{ "trace", "stat", 1, 2, "FILE [ftrace|perf|lackey|binary]",
	  "read a trace to its end: answers format= and its counts",
	  trace_stat },
	{ "trace", "convert", 2, 2, "IN OUT",
	  "convert a text trace to the binary format: answers records= "
	  "format= and the skipped lines other= failed= lost=",
	  trace_convert },
	{ "trace", "replay", 1, 5,
	  "FILE [FORMAT] [policy=P] [cpus=N] [version=6|7|8|9]",
	  "replay the page ownership events onto an XPFO machine sized to the "
	  "trace (CPUs: the trace's unless cpus=), and again without XPFO: "
	  "answers cpus= frames= replayed= switches= unmatched_frees= "
	  "double_allocs= and the figures of xpfo result with system_ratio= "
	  "wall_ratio=",
	  trace_replay },
	{ "trace", "replay-tlb", 1, 8,
	  "FILE [FORMAT] [l1d=SxW] [l1i=SxW] [l2=SxW] [repl=R] [seed=N]",
	  "replay a lackey log's accesses onto one CPU's TLB (default "
	  "geometry: Skylake-like), 4K pages filled on a miss: answers "
	  "accesses= lookups= misses= crossings= misses_per_1k= hits_l1d= "
	  "hits_l1i= hits_l2= evictions=",
	  trace_replay_tlb },
	{ NULL },
};
