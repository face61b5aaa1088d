// SPDX-License-Identifier: GPL-2.0-only
/*
 * GFP flags as ftrace prints them, and XPFO's user/kernel test.
 *
 * Models show_gfp_flags() of include/trace/events/mmflags.h, read
 * backwards: __print_flags() prints composite names first (GFP_TRANSHUGE
 * ... GFP_NOWAIT) when all their bits are set, then single __GFP_ names,
 * then any unnamed rest as hex, joined by '|'; 0 prints "none".  A name
 * stands for its bits as include/linux/gfp_types.h defines them; where a
 * composite changed between releases (GFP_ATOMIC lost __GFP_ATOMIC in 6.2,
 * GFP_HIGHUSER_MOVABLE had the KASAN skip bits in 6.1) the table keeps the
 * bits common to all, which include every bit the user test looks at.
 *
 * The user test is XPFO's (xpfo_alloc_pages() after Laura Abbott's review
 * of v1): (gfp & GFP_HIGHUSER) == GFP_HIGHUSER.  So THP allocations
 * (GFP_TRANSHUGE*, which clear __GFP_KSWAPD_RECLAIM) count as kernel pages,
 * as they did under XPFO.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/trace.h>

#include "core/compiler.h"
#include "trace/text.h"

#define G(x) NXSIM_GFP_##x
#define RECLAIM (G(DIRECT_RECLAIM) | G(KSWAPD_RECLAIM))
#define KERNEL (RECLAIM | G(IO) | G(FS))
#define USER (KERNEL | G(HARDWALL))
#define HIGHUSER_MOVABLE (NXSIM_GFP_HIGHUSER | G(MOVABLE))
#define TRANSHUGE_LIGHT \
	((HIGHUSER_MOVABLE | G(COMP) | G(NOMEMALLOC) | G(NOWARN)) & ~RECLAIM)

#define N(name, bits)                        \
	{                                    \
		name, sizeof(name) - 1, bits \
	}

static const struct gfp_name {
	const char *name;
	size_t len;
	uint32_t bits;
} gfp_names[] = {
	N("GFP_TRANSHUGE", TRANSHUGE_LIGHT | G(DIRECT_RECLAIM)),
	N("GFP_TRANSHUGE_LIGHT", TRANSHUGE_LIGHT),
	N("GFP_HIGHUSER_MOVABLE", HIGHUSER_MOVABLE),
	N("GFP_HIGHUSER", NXSIM_GFP_HIGHUSER),
	N("GFP_USER", USER),
	N("GFP_KERNEL_ACCOUNT", KERNEL | G(ACCOUNT)),
	N("GFP_KERNEL", KERNEL),
	N("GFP_NOFS", RECLAIM | G(IO)),
	N("GFP_ATOMIC", G(HIGH) | G(KSWAPD_RECLAIM)),
	N("GFP_NOIO", RECLAIM),
	N("GFP_NOWAIT", G(KSWAPD_RECLAIM)),
	N("GFP_DMA", G(DMA)),
	N("GFP_DMA32", G(DMA32)),
	N("__GFP_RECLAIM", RECLAIM),
	N("__GFP_DMA", G(DMA)),
	N("__GFP_HIGHMEM", G(HIGHMEM)),
	N("__GFP_DMA32", G(DMA32)),
	N("__GFP_MOVABLE", G(MOVABLE)),
	N("__GFP_RECLAIMABLE", G(RECLAIMABLE)),
	N("__GFP_HIGH", G(HIGH)),
	N("__GFP_IO", G(IO)),
	N("__GFP_FS", G(FS)),
	N("__GFP_ZERO", G(ZERO)),
	N("__GFP_ATOMIC", G(ATOMIC)),
	N("__GFP_DIRECT_RECLAIM", G(DIRECT_RECLAIM)),
	N("__GFP_KSWAPD_RECLAIM", G(KSWAPD_RECLAIM)),
	N("__GFP_WRITE", G(WRITE)),
	N("__GFP_NOWARN", G(NOWARN)),
	N("__GFP_RETRY_MAYFAIL", G(RETRY_MAYFAIL)),
	N("__GFP_NOFAIL", G(NOFAIL)),
	N("__GFP_NORETRY", G(NORETRY)),
	N("__GFP_MEMALLOC", G(MEMALLOC)),
	N("__GFP_COMP", G(COMP)),
	N("__GFP_NOMEMALLOC", G(NOMEMALLOC)),
	N("__GFP_HARDWALL", G(HARDWALL)),
	N("__GFP_THISNODE", G(THISNODE)),
	N("__GFP_ACCOUNT", G(ACCOUNT)),
	N("__GFP_ZEROTAGS", G(ZEROTAGS)),
	N("__GFP_SKIP_ZERO", G(SKIP_ZERO)),
	N("__GFP_SKIP_KASAN", G(SKIP_KASAN)),
	N("__GFP_SKIP_KASAN_POISON", G(SKIP_KASAN)),
	N("__GFP_SKIP_KASAN_UNPOISON", G(SKIP_KASAN)),
	N("__GFP_NOLOCKDEP", G(NOLOCKDEP)),
	N("__GFP_NO_OBJ_EXT", G(NO_OBJ_EXT)),
};

/* A flag name as the kernel spells them: capitals, digits, underscores. */
static bool flag_shaped(const char *s, size_t len)
{
	size_t i;

	if (len < 5 || (memcmp(s, "GFP_", 4) && memcmp(s, "__GFP_", 5)))
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static int gfp_part(const char *s, size_t len, uint32_t *gfp)
{
	uint64_t unnamed;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gfp_names); i++) {
		if (gfp_names[i].len == len &&
		    !memcmp(gfp_names[i].name, s, len)) {
			*gfp |= gfp_names[i].bits;
			return 0;
		}
	}
	if (len > 2 && s[0] == '0' && s[1] == 'x')
		return nxsim__trace_number(s, len, 0, UINT64_MAX, &unnamed);
	return flag_shaped(s, len) ? 0 : -EINVAL;
}

int nxsim_trace_parse_gfp(const char *s, size_t len, uint32_t *gfp)
{
	uint32_t bits = 0;
	size_t start = 0, i;

	if (len == 4 && !memcmp(s, "none", 4)) {
		*gfp = 0;
		return 0;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '|')
			continue;
		if (gfp_part(s + start, i - start, &bits))
			return -EINVAL;
		start = i + 1;
	}
	*gfp = bits;
	return 0;
}

bool nxsim_trace_gfp_user(uint32_t gfp)
{
	return (gfp & NXSIM_GFP_HIGHUSER) == NXSIM_GFP_HIGHUSER;
}
