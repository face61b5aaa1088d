// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the trace readers.  The first byte picks the format
 * (auto-detect, ftrace, perf script, lackey or binary); the rest is the
 * trace.  Every event a text trace yields is then encoded as a binary
 * trace and read back, and must come back field for field (text ->
 * binary -> events, the path of "nxsim convert" and a replay).
 *
 * Left out: files (nxsim_trace_open() maps the same bytes this reads).
 */
#include <stdlib.h>
#include <string.h>

#include "trace/binary.h"

#define MAX_EVENTS 4096

static void same(const struct nxsim_trace_event *a,
		 const struct nxsim_trace_event *b, bool accesses)
{
	if (a->op != b->op || a->addr != b->addr)
		abort();
	if (accesses) {
		if (a->size != b->size)
			abort();
		return;
	}
	if (a->ts_ns != b->ts_ns || a->cpu != b->cpu || a->pid != b->pid ||
	    a->gfp != b->gfp || a->order != b->order ||
	    a->migratetype != b->migratetype || a->user != b->user)
		abort();
}

static void round_trip(const struct nxsim_trace_event *ev, size_t n,
		       enum nxsim_trace_format fmt)
{
	bool accesses = fmt == NXSIM_TRACE_LACKEY;
	struct nxsim__trace_header h = {
		.version = NXSIM__TRACE_VERSION,
		.kind = accesses ? NXSIM__TRACE_ACCESSES : NXSIM__TRACE_PAGES,
		.count = n,
		.source = fmt,
	};
	struct nxsim_trace_event back;
	struct nxsim_trace *t;
	uint8_t *buf, *p;
	size_t i;

	h.record_size = nxsim__trace_record_size(h.kind);
	buf = malloc(NXSIM__TRACE_HEADER_SIZE + n * h.record_size);
	if (!buf)
		return;
	nxsim__trace_put_header(buf, &h);
	p = buf + NXSIM__TRACE_HEADER_SIZE;
	for (i = 0; i < n; i++)
		p += nxsim__trace_put_event(p, h.kind, &ev[i]);
	if (nxsim_trace_open_buf(buf, p - buf, NXSIM_TRACE_BINARY, &t, NULL))
		abort();
	for (i = 0; i < n; i++) {
		if (nxsim_trace_next(t, &back) != 1)
			abort();
		same(&ev[i], &back, accesses);
	}
	if (nxsim_trace_next(t, &back) != 0)
		abort();
	nxsim_trace_close(t);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nxsim_trace_event ev[MAX_EVENTS];
	enum nxsim_trace_format fmt;
	struct nxsim_trace_stats st;
	struct nxsim_trace *t;
	size_t n = 0;
	const char *why;
	int rc;

	if (!size)
		return 0;
	fmt = (enum nxsim_trace_format)(data[0] % 5);
	if (nxsim_trace_open_buf(data + 1, size - 1, fmt, &t, &why))
		return 0;
	fmt = nxsim_trace_format(t);
	while (n < MAX_EVENTS && (rc = nxsim_trace_next(t, &ev[n])) == 1)
		n++;
	nxsim_trace_stats(t, &st);
	if (st.events != n)
		abort();
	if (fmt != NXSIM_TRACE_BINARY && n)
		round_trip(ev, n, fmt);
	nxsim_trace_close(t);
	return 0;
}
