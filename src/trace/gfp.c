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

static const struct gfp_name {
	const char *name;
	uint32_t bits;
} gfp_names[] = {
	{ "GFP_TRANSHUGE", TRANSHUGE_LIGHT | G(DIRECT_RECLAIM) },
	{ "GFP_TRANSHUGE_LIGHT", TRANSHUGE_LIGHT },
	{ "GFP_HIGHUSER_MOVABLE", HIGHUSER_MOVABLE },
	{ "GFP_HIGHUSER", NXSIM_GFP_HIGHUSER },
	{ "GFP_USER", USER },
	{ "GFP_KERNEL_ACCOUNT", KERNEL | G(ACCOUNT) },
	{ "GFP_KERNEL", KERNEL },
	{ "GFP_NOFS", RECLAIM | G(IO) },
	{ "GFP_ATOMIC", G(HIGH) | G(KSWAPD_RECLAIM) },
	{ "GFP_NOIO", RECLAIM },
	{ "GFP_NOWAIT", G(KSWAPD_RECLAIM) },
	{ "GFP_DMA", G(DMA) },
	{ "GFP_DMA32", G(DMA32) },
	{ "__GFP_RECLAIM", RECLAIM },
	{ "__GFP_DMA", G(DMA) },
	{ "__GFP_HIGHMEM", G(HIGHMEM) },
	{ "__GFP_DMA32", G(DMA32) },
	{ "__GFP_MOVABLE", G(MOVABLE) },
	{ "__GFP_RECLAIMABLE", G(RECLAIMABLE) },
	{ "__GFP_HIGH", G(HIGH) },
	{ "__GFP_IO", G(IO) },
	{ "__GFP_FS", G(FS) },
	{ "__GFP_ZERO", G(ZERO) },
	{ "__GFP_ATOMIC", G(ATOMIC) },
	{ "__GFP_DIRECT_RECLAIM", G(DIRECT_RECLAIM) },
	{ "__GFP_KSWAPD_RECLAIM", G(KSWAPD_RECLAIM) },
	{ "__GFP_WRITE", G(WRITE) },
	{ "__GFP_NOWARN", G(NOWARN) },
	{ "__GFP_RETRY_MAYFAIL", G(RETRY_MAYFAIL) },
	{ "__GFP_NOFAIL", G(NOFAIL) },
	{ "__GFP_NORETRY", G(NORETRY) },
	{ "__GFP_MEMALLOC", G(MEMALLOC) },
	{ "__GFP_COMP", G(COMP) },
	{ "__GFP_NOMEMALLOC", G(NOMEMALLOC) },
	{ "__GFP_HARDWALL", G(HARDWALL) },
	{ "__GFP_THISNODE", G(THISNODE) },
	{ "__GFP_ACCOUNT", G(ACCOUNT) },
	{ "__GFP_ZEROTAGS", G(ZEROTAGS) },
	{ "__GFP_SKIP_ZERO", G(SKIP_ZERO) },
	{ "__GFP_SKIP_KASAN", G(SKIP_KASAN) },
	{ "__GFP_SKIP_KASAN_POISON", G(SKIP_KASAN) },
	{ "__GFP_SKIP_KASAN_UNPOISON", G(SKIP_KASAN) },
	{ "__GFP_NOLOCKDEP", G(NOLOCKDEP) },
	{ "__GFP_NO_OBJ_EXT", G(NO_OBJ_EXT) },
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
		if (strlen(gfp_names[i].name) == len &&
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
