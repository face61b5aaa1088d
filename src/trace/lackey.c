// SPDX-License-Identifier: GPL-2.0-only
/*
 * One line of a valgrind lackey --trace-mem=yes log (lackey/lk_main.c,
 * printInstr() and printDataAccess()):
 *
 *   "I  %08lx,%lu"   instruction fetch: address, size
 *   " L %08lx,%lu"   load
 *   " S %08lx,%lu"   store
 *   " M %08lx,%lu"   modify (load and store of the same bytes)
 *
 * "==pid==" lines are valgrind's banner and statistics, "--pid--" its
 * debug messages; "SB" lines (--trace-superblocks=yes) are not accesses.
 * Sizes are 1 to 512 in lackey (MAX_DSIZE); NXSIM_TRACE_MAX_SIZE bounds
 * them.  Records carry no thread, CPU or time: those fields stay 0.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/trace.h>

#include "trace/text.h"

static int lackey_op(const char *s)
{
	if (s[0] == 'I' && s[1] == ' ' && s[2] == ' ')
		return NXSIM_TRACE_IFETCH;
	if (s[0] != ' ' || s[2] != ' ')
		return 0;
	switch (s[1]) {
	case 'L':
		return NXSIM_TRACE_LOAD;
	case 'S':
		return NXSIM_TRACE_STORE;
	case 'M':
		return NXSIM_TRACE_MODIFY;
	}
	return 0;
}

int nxsim_trace_parse_lackey(const char *s, size_t len,
			     struct nxsim_trace_event *ev, const char **why)
{
	const char *comma;
	uint64_t addr, size;
	const char *ignored;
	int op, rc;

	if (!ev || (!s && len))
		return -EINVAL;
	if (!why)
		why = &ignored;
	memset(ev, 0, sizeof(*ev));
	ev->migratetype = -1;
	*why = "not a lackey record";
	if (len == 0)
		return NXSIM_TRACE_LINE_NONE;
	if (len >= 2 &&
	    ((s[0] == '=' && s[1] == '=') || (s[0] == '-' && s[1] == '-')))
		return NXSIM_TRACE_LINE_NONE;
	if (len >= 3 && s[0] == 'S' && s[1] == 'B' && s[2] == ' ')
		return NXSIM_TRACE_LINE_OTHER;
	if (len < 6 || !(op = lackey_op(s)))
		return -EINVAL;
	s += 3;
	len -= 3;
	comma = memchr(s, ',', len);
	if (!comma) {
		*why = "no ',' between address and size";
		return -EINVAL;
	}
	rc = nxsim__trace_number(s, comma - s, 16, NXSIM_TRACE_MAX_ADDR, &addr);
	if (rc) {
		*why = rc == -ERANGE ? "address out of range" :
				       "malformed address";
		return rc;
	}
	rc = nxsim__trace_number(comma + 1, s + len - comma - 1, 10,
				 NXSIM_TRACE_MAX_SIZE, &size);
	if (!rc && size == 0)
		rc = -ERANGE;
	if (rc) {
		*why = rc == -ERANGE ? "size out of range" : "malformed size";
		return rc;
	}
	ev->op = op;
	ev->addr = addr;
	ev->size = size;
	return NXSIM_TRACE_LINE_EVENT;
}
