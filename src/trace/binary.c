// SPDX-License-Identifier: GPL-2.0-only
/*
 * Encoding and decoding of the binary trace format, little-endian on any
 * host.  The format is libnxsim's own (nothing in the kernel models it);
 * it keeps page events as fixed records (docs/traces.md),
 * accesses as one u64 each.
 *
 * Header (32 bytes):
 *   0  char[8] "NXSTRACE"      16 u64 record count
 *   8  u16 version (1)         24 u32 source format (enum nxsim_trace_format)
 *   10 u16 kind (1 pages, 2 accesses)
 *   12 u32 record size (32 or 8)  28 u32 reserved, 0
 * Page record (32 bytes):
 *   0 u64 ts_ns, 8 u64 pfn, 16 u32 cpu, 20 u32 pid, 24 u32 gfp (NXSIM_GFP_*),
 *   28 u8 op (1 alloc, 2 free), 29 u8 order, 30 s8 migratetype,
 *   31 u8 flags (bit 0: user page; others 0)
 * Access record (8 bytes): addr << 12 | (size - 1) << 2 | kind
 *   (kind 0 I, 1 L, 2 S, 3 M)
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "trace/binary.h"

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

void nxsim__trace_put_header(uint8_t *out, const struct nxsim__trace_header *h)
{
	memset(out, 0, NXSIM__TRACE_HEADER_SIZE);
	memcpy(out, NXSIM__TRACE_MAGIC, 8);
	put16(out + 8, h->version);
	put16(out + 10, h->kind);
	put32(out + 12, h->record_size);
	put64(out + 16, h->count);
	put32(out + 24, h->source);
}

int nxsim__trace_get_header(const uint8_t *buf, size_t len,
			    struct nxsim__trace_header *h, const char **why)
{
	uint32_t want;

	if (len < NXSIM__TRACE_HEADER_SIZE ||
	    memcmp(buf, NXSIM__TRACE_MAGIC, 8)) {
		*why = len < NXSIM__TRACE_HEADER_SIZE ? "truncated header" :
							"bad magic";
		return -EINVAL;
	}
	h->version = get16(buf + 8);
	h->kind = get16(buf + 10);
	h->record_size = get32(buf + 12);
	h->count = get64(buf + 16);
	h->source = get32(buf + 24);
	if (h->version != NXSIM__TRACE_VERSION) {
		*why = "unsupported version";
		return -EINVAL;
	}
	switch (h->kind) {
	case NXSIM__TRACE_PAGES:
		want = NXSIM__TRACE_PAGE_RECORD;
		if (h->source != NXSIM_TRACE_FTRACE &&
		    h->source != NXSIM_TRACE_PERF)
			want = 0;
		break;
	case NXSIM__TRACE_ACCESSES:
		want = NXSIM__TRACE_ACCESS_RECORD;
		if (h->source != NXSIM_TRACE_LACKEY)
			want = 0;
		break;
	default:
		*why = "unknown record kind";
		return -EINVAL;
	}
	if (!want || h->record_size != want || get32(buf + 28)) {
		*why = "record size, source or reserved field wrong";
		return -EINVAL;
	}
	if (h->count > (len - NXSIM__TRACE_HEADER_SIZE) / want) {
		*why = "truncated: fewer records than the header counts";
		return -EINVAL;
	}
	if (h->count * want != len - NXSIM__TRACE_HEADER_SIZE) {
		*why = "trailing bytes after the last record";
		return -EINVAL;
	}
	return 0;
}

size_t nxsim__trace_put_event(uint8_t *out, int kind,
			      const struct nxsim_trace_event *ev)
{
	if (kind == NXSIM__TRACE_ACCESSES) {
		put64(out, ev->addr << 12 | (uint64_t)(ev->size - 1) << 2 |
				   (uint64_t)(ev->op - NXSIM_TRACE_IFETCH));
		return NXSIM__TRACE_ACCESS_RECORD;
	}
	put64(out, ev->ts_ns);
	put64(out + 8, ev->addr);
	put32(out + 16, ev->cpu);
	put32(out + 20, ev->pid);
	put32(out + 24, ev->gfp);
	out[28] = ev->op;
	out[29] = ev->order;
	out[30] = (uint8_t)ev->migratetype;
	out[31] = ev->user;
	return NXSIM__TRACE_PAGE_RECORD;
}

int nxsim__trace_get_event(const uint8_t *rec, int kind,
			   struct nxsim_trace_event *ev, const char **why)
{
	uint64_t v;

	memset(ev, 0, sizeof(*ev));
	ev->migratetype = -1;
	if (kind == NXSIM__TRACE_ACCESSES) {
		v = get64(rec);
		ev->op = NXSIM_TRACE_IFETCH + (v & 3);
		ev->size = ((v >> 2) & 0x3ff) + 1;
		ev->addr = v >> 12;
		return 0;
	}
	ev->ts_ns = get64(rec);
	ev->addr = get64(rec + 8);
	ev->cpu = get32(rec + 16);
	ev->pid = get32(rec + 20);
	ev->gfp = get32(rec + 24);
	ev->op = rec[28];
	ev->order = rec[29];
	ev->migratetype = (int8_t)rec[30];
	ev->user = rec[31] & 1;
	*why = "garbage record";
	if (ev->op != NXSIM_TRACE_ALLOC && ev->op != NXSIM_TRACE_FREE)
		return -EINVAL;
	if (rec[31] > 1 || ev->migratetype < -1 ||
	    ev->gfp >= NXSIM_GFP_NO_OBJ_EXT << 1 ||
	    ev->user != nxsim_trace_gfp_user(ev->gfp))
		return -EINVAL;
	if (ev->op == NXSIM_TRACE_FREE && (ev->gfp || ev->migratetype != -1))
		return -EINVAL;
	if (ev->addr > NXSIM_TRACE_MAX_PFN ||
	    ev->order > NXSIM_TRACE_MAX_ORDER ||
	    ev->cpu > NXSIM_TRACE_MAX_CPU || ev->pid > NXSIM_TRACE_MAX_PID) {
		*why = "record field out of range";
		return -ERANGE;
	}
	return 0;
}
