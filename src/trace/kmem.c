// SPDX-License-Identifier: GPL-2.0-only
/*
 * One line of kmem page events as text: what /sys/kernel/tracing/trace
 * prints (print_trace_fmt() with the default options: "comm-pid", an
 * optional "(tgid)" column, "[cpu]", the irq-info flags, "secs.usecs:")
 * and what `perf script` prints ("comm pid/tid [cpu] secs.usecs:"), then
 * the event name and the TP_printk() payload of include/trace/events/
 * kmem.h:
 *
 *   mm_page_alloc:        page=%p pfn=0x%lx order=%d migratetype=%d
 *                         gfp_flags=%s
 *   mm_page_free:         page=%p pfn=0x%lx order=%d
 *   mm_page_free_batched: page=%p pfn=0x%lx order=0
 *
 * Kernels before the hex switch print pfn=%lu; both are read.  An
 * allocation that failed prints page=(null) and pfn 0 (or -1UL in kernels
 * that printed the raw field) and is reported, not delivered.
 *
 * Left out: the raw, hex and bin output options, other clocks' timestamp
 * formats (counter, x86-tsc print plain integers: rejected), and comms
 * that contain " [": the first " [digits]" is taken as the CPU column.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <nxsim/trace.h>

#include "core/compiler.h"
#include "trace/text.h"

struct span {
	const char *p;
	size_t len;
};

static bool span_is(struct span s, const char *str)
{
	return s.len == strlen(str) && !memcmp(s.p, str, s.len);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next space-separated word of [*pos, end). */
static struct span next_word(const char **pos, const char *end)
{
	const char *p = *pos, *q;
	struct span w;

	while (p < end && *p == ' ')
		p++;
	q = p < end ? memchr(p, ' ', end - p) : NULL;
	w.p = p;
	w.len = (q ? q : end) - p;
	*pos = p + w.len;
	return w;
}

/* "CPU:1 [LOST 42 EVENTS]", which ftrace writes where its buffer overran. */
static int lost_line(const char *s, size_t len, struct nxsim_trace_event *ev)
{
	const char *p = memchr(s, '[', len);
	const char *q;

	if (!p || len < 5 || memcmp(s, "CPU:", 4))
		return -EINVAL;
	p++;
	if ((size_t)(s + len - p) < 5 || memcmp(p, "LOST ", 5))
		return -EINVAL;
	p += 5;
	for (q = p; q < s + len && is_digit(*q); q++)
		;
	if (nxsim__trace_number(p, q - p, 10, UINT64_MAX, &ev->addr) ||
	    (size_t)(s + len - q) != 8 || memcmp(q, " EVENTS]", 8))
		return -EINVAL;
	return NXSIM_TRACE_LINE_LOST;
}

/* The pid: perf's "pid" or "pid/tid" word, or ftrace's "comm-pid". */
static int task_pid(const char *s, size_t len, uint32_t *pid, const char **why)
{
	struct span w;
	const char *slash, *dash;
	uint64_t v;
	int rc;

	while (len && s[len - 1] == ' ')
		len--;
	if (len && s[len - 1] == ')') { /* ftrace's record-tgid column */
		while (len && s[len - 1] != '(')
			len--;
		while (len && (s[len - 1] == '(' || s[len - 1] == ' '))
			len--;
	}
	w.len = 0;
	while (w.len < len && s[len - w.len - 1] != ' ')
		w.len++;
	w.p = s + len - w.len;
	slash = memchr(w.p, '/', w.len);
	dash = memrchr(w.p, '-', w.len);
	if (w.len && is_digit(w.p[0]) && !dash) {
		/* perf: the thread is the tid after the slash */
		if (slash) {
			w.len -= slash + 1 - w.p;
			w.p = slash + 1;
		}
	} else if (dash) {
		w.len -= dash + 1 - w.p;
		w.p = dash + 1;
	} else {
		*why = "no task-pid before the [cpu] column";
		return -EINVAL;
	}
	rc = nxsim__trace_number(w.p, w.len, 10, NXSIM_TRACE_MAX_PID, &v);
	if (rc) {
		*why = rc == -ERANGE ? "pid out of range" : "malformed pid";
		return rc;
	}
	*pid = v;
	return 0;
}

/* "1076.463929:" with 1 to 9 fractional digits. */
static int timestamp(struct span w, uint64_t *ns, const char **why)
{
	const char *dot = memchr(w.p, '.', w.len);
	uint64_t secs, frac;
	size_t nfrac;
	int rc;

	*why = "malformed timestamp";
	if (!dot || w.len < 4 || w.p[w.len - 1] != ':')
		return -EINVAL;
	nfrac = w.p + w.len - 1 - (dot + 1);
	if (nfrac < 1 || nfrac > 9)
		return -EINVAL;
	rc = nxsim__trace_number(w.p, dot - w.p, 10, UINT64_MAX / 1000000000,
				 &secs);
	if (!rc)
		rc = nxsim__trace_number(dot + 1, nfrac, 10, UINT64_MAX, &frac);
	while (!rc && nfrac++ < 9)
		frac *= 10;
	/* 18446744073.709551615 is the last nanosecond a u64 holds */
	if (!rc && __builtin_add_overflow(secs * 1000000000, frac, &secs))
		rc = -ERANGE;
	if (rc == -ERANGE)
		*why = "timestamp out of range";
	if (!rc)
		*ns = secs;
	return rc;
}

struct payload {
	struct span page, pfn, order, migratetype, gfp;
};

static const struct {
	const char *name;
	size_t len;
	size_t off;
} payload_keys[] = {
#define KEY(key, field)                                               \
	{                                                             \
		key, sizeof(key) - 1, offsetof(struct payload, field) \
	}
	KEY("page", page),     KEY("pfn", pfn),
	KEY("order", order),   KEY("migratetype", migratetype),
	KEY("gfp_flags", gfp),
#undef KEY
};

static int split_payload(const char *p, const char *end, struct payload *pl,
			 const char **why)
{
	struct span w;
	size_t i;

	memset(pl, 0, sizeof(*pl));
	for (w = next_word(&p, end); w.len; w = next_word(&p, end)) {
		const char *eq = memchr(w.p, '=', w.len);
		struct span key, val;

		if (!eq) {
			*why = "payload word without '='";
			return -EINVAL;
		}
		key.p = w.p;
		key.len = eq - w.p;
		val.p = eq + 1;
		val.len = w.p + w.len - val.p;
		/* kernels before 4.15 padded a NULL %p: "page=    (null)" */
		if (!val.len && span_is(key, "page")) {
			const char *q = p;
			struct span v = next_word(&q, end);

			if (span_is(v, "(null)")) {
				p = q;
				val = v;
			}
		}
		/* keys this table does not know belong to newer kernels */
		for (i = 0; i < ARRAY_SIZE(payload_keys); i++) {
			struct span *slot;

			if (key.len != payload_keys[i].len ||
			    memcmp(key.p, payload_keys[i].name, key.len))
				continue;
			slot = (struct span *)((char *)pl +
					       payload_keys[i].off);
			if (slot->p) {
				*why = "field given twice";
				return -EINVAL;
			}
			*slot = val;
		}
	}
	return 0;
}

static int field(struct span f, uint64_t max, uint64_t *v, const char *missing,
		 const char *bad, const char **why)
{
	int rc;

	if (!f.p) {
		*why = missing;
		return -EINVAL;
	}
	rc = nxsim__trace_number(f.p, f.len, 0, max, v);
	if (rc)
		*why = bad;
	return rc;
}

/* mm_page_free_batched of old kernels printed no order: it is always 0. */
static int page_event(int op, bool batched, const struct payload *pl,
		      struct nxsim_trace_event *ev, const char **why)
{
	uint64_t pfn, order = 0, mt;
	int rc;

	if (pl->page.p && span_is(pl->page, "(null)")) {
		*why = "a free of page (null)";
		return op == NXSIM_TRACE_ALLOC ? NXSIM_TRACE_LINE_FAILED :
						 -EINVAL;
	}
	rc = field(pl->pfn, UINT64_MAX, &pfn, "no pfn= field",
		   "pfn malformed or out of range", why);
	if (rc)
		return rc;
	/*
	 * A failed allocation shows pfn -1 (the raw field) or 0 (what the
	 * print format substitutes); x86 never hands out pfn 0, the BIOS
	 * page, so either means no page, also where perf shows page=0x0.
	 */
	if ((pfn == UINT64_MAX || pfn == 0) && op == NXSIM_TRACE_ALLOC)
		return NXSIM_TRACE_LINE_FAILED;
	if (pfn > NXSIM_TRACE_MAX_PFN) {
		*why = "pfn out of range";
		return -ERANGE;
	}
	if (pl->order.p || !batched) {
		rc = field(pl->order, NXSIM_TRACE_MAX_ORDER, &order,
			   "no order= field", "order malformed or out of range",
			   why);
		if (rc)
			return rc;
	}
	ev->op = op;
	ev->addr = pfn;
	ev->order = order;
	if (op != NXSIM_TRACE_ALLOC)
		return NXSIM_TRACE_LINE_EVENT;
	if (!pl->gfp.p ||
	    nxsim_trace_parse_gfp(pl->gfp.p, pl->gfp.len, &ev->gfp)) {
		*why = "missing or malformed gfp_flags";
		return -EINVAL;
	}
	ev->user = nxsim_trace_gfp_user(ev->gfp);
	if (pl->migratetype.p) {
		rc = nxsim__trace_number(pl->migratetype.p, pl->migratetype.len,
					 10, 127, &mt);
		if (rc) {
			*why = "migratetype malformed or out of range";
			return rc;
		}
		ev->migratetype = (int8_t)mt;
	}
	return NXSIM_TRACE_LINE_EVENT;
}

int nxsim_trace_parse_kmem(const char *s, size_t len,
			   struct nxsim_trace_event *ev, const char **why)
{
	const char *end = s + len, *p, *cpu_open = NULL;
	struct span w, name;
	struct payload pl;
	uint64_t cpu;
	bool batched = false;
	const char *ignored;
	int op, rc;

	if (!ev || (!s && len))
		return -EINVAL;
	if (!why)
		why = &ignored;
	memset(ev, 0, sizeof(*ev));
	ev->migratetype = -1;
	*why = "malformed line";
	for (p = s; p < end && *p == ' '; p++)
		;
	if (p == end || *p == '#')
		return NXSIM_TRACE_LINE_NONE;
	if (memchr(s, '\0', len)) {
		*why = "NUL byte in a text line";
		return -EINVAL;
	}
	if (*p == 'C' && (rc = lost_line(p, end - p, ev)) > 0)
		return rc;

	/* the first " [digits]" is the CPU column */
	for (p = s + 1;
	     !cpu_open && p + 2 < end && (p = memchr(p, '[', end - p - 2));
	     p++) {
		const char *q = p + 1;

		if (p[-1] != ' ' || !is_digit(*q))
			continue;
		while (q < end && is_digit(*q))
			q++;
		if (q < end && *q == ']')
			cpu_open = p;
	}
	if (!cpu_open) {
		*why = "no [cpu] column";
		return -EINVAL;
	}
	rc = task_pid(s, cpu_open - s, &ev->pid, why);
	if (rc)
		return rc;
	p = memchr(cpu_open, ']', end - cpu_open);
	rc = nxsim__trace_number(cpu_open + 1, p - cpu_open - 1, 10,
				 NXSIM_TRACE_MAX_CPU, &cpu);
	if (rc) {
		*why = "cpu out of range";
		return rc;
	}
	ev->cpu = cpu;
	p++;

	w = next_word(&p, end); /* irq-info flags, if shown */
	if (w.len && w.p[w.len - 1] != ':')
		w = next_word(&p, end);
	rc = timestamp(w, &ev->ts_ns, why);
	if (rc)
		return rc;
	name = next_word(&p, end);
	if (name.len < 2 || name.p[name.len - 1] != ':') {
		*why = "no event name after the timestamp";
		return -EINVAL;
	}
	name.len--;
	if (name.len > 5 && !memcmp(name.p, "kmem:", 5)) {
		name.p += 5;
		name.len -= 5;
	}
	if (span_is(name, "mm_page_alloc"))
		op = NXSIM_TRACE_ALLOC;
	else if (span_is(name, "mm_page_free"))
		op = NXSIM_TRACE_FREE;
	else if ((batched = span_is(name, "mm_page_free_batched")))
		op = NXSIM_TRACE_FREE;
	else
		return NXSIM_TRACE_LINE_OTHER;
	rc = split_payload(p, end, &pl, why);
	if (rc)
		return rc;
	return page_event(op, batched, &pl, ev, why);
}
