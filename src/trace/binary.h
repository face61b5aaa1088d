/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The binary trace layout (docs/traces.md has the table): a 32-byte
 * header, then fixed-size little-endian records, 32 bytes per page event
 * or 8 bytes per memory access.
 */
#ifndef NXSIM_TRACE_BINARY_H
#define NXSIM_TRACE_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include <nxsim/trace.h>

#define NXSIM__TRACE_MAGIC "NXSTRACE"
#define NXSIM__TRACE_VERSION 1
#define NXSIM__TRACE_HEADER_SIZE 32
#define NXSIM__TRACE_PAGE_RECORD 32
#define NXSIM__TRACE_ACCESS_RECORD 8

enum nxsim__trace_kind {
	NXSIM__TRACE_PAGES = 1,	   /* kmem page events */
	NXSIM__TRACE_ACCESSES = 2, /* memory accesses */
};

/* The record size of @kind: one per page event or memory access. */
static inline uint32_t nxsim__trace_record_size(int kind)
{
	return kind == NXSIM__TRACE_ACCESSES ? NXSIM__TRACE_ACCESS_RECORD :
					       NXSIM__TRACE_PAGE_RECORD;
}

/**
 * struct nxsim__trace_header - the header, decoded
 * @version: NXSIM__TRACE_VERSION
 * @kind: enum nxsim__trace_kind
 * @record_size: bytes per record, fixed by @kind
 * @count: records that follow
 * @source: the enum nxsim_trace_format the records were converted from
 */
struct nxsim__trace_header {
	uint16_t version;
	uint16_t kind;
	uint32_t record_size;
	uint64_t count;
	uint32_t source;
};

void nxsim__trace_put_header(uint8_t *out, const struct nxsim__trace_header *h);
/* Checks everything the header promises against @len; sets *why. */
int nxsim__trace_get_header(const uint8_t *buf, size_t len,
			    struct nxsim__trace_header *h, const char **why);
/* Encodes one event of @kind; returns the record size. */
size_t nxsim__trace_put_event(uint8_t *out, int kind,
			      const struct nxsim_trace_event *ev);
/* Decodes and checks one record; -EINVAL with *why for garbage. */
int nxsim__trace_get_event(const uint8_t *rec, int kind,
			   struct nxsim_trace_event *ev, const char **why);

#endif /* NXSIM_TRACE_BINARY_H */
