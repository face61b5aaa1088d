/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NX huge page recovery rules from outside the library (docs/plugins.md):
 * which of the possible NX huge pages a recovery pass
 * (kvm_recover_nx_huge_pages() of arch/x86/kvm/mmu/mmu.c) takes, and how
 * many.  The kernel's rule, each profile's, is DIV_ROUND_UP(count, ratio)
 * pages from the head of the FIFO list (one list, or from 6.18 one per MMU
 * type).  A host made with nxsim_host_config.nx_recovery set runs a
 * registered rule instead; what happens to each page taken stays the
 * profile's (the dirty-log skip, unaccounting, the zap and its flush), and
 * the checker runs after every step as it does for the kernel's rule.
 *
 * A rule may also take two decisions of an exec fault (version 2): whether
 * it may map huge (kvm_mmu_hugepage_adjust()'s huge_page_disallowed, which
 * disallowed_hugepage_adjust() then acts on) and, on the TDP MMU, whether
 * a huge SPTE in its way is split in place (kvm_tdp_mmu_map() from 6.2) or
 * zapped and mapped anew (6.1).  The shadow MMU and shadow paging always
 * zap, as the kernel does, and ask neither hook.
 *
 * Thread safety: registration is safe from many threads; a pick runs with
 * mmu_lock held.
 */
#ifndef NXSIM_NX_RECOVERY_H
#define NXSIM_NX_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NXSIM_NX_RECOVERY_OPS_VERSION 2 /* 1: pick and period_ms only */
#define NXSIM_NX_RECOVERY_NAME_MAX 31	/* bytes of a name, without the NUL */
#define NXSIM_NX_RECOVERY_MAX 32	/* rules registered */

/**
 * struct nxsim_nx_candidate - a read-only view of one possible NX huge
 * page (a shadow page that replaced a huge mapping) on the list
 * @gfn: the first guest frame it maps
 * @level: its level (1: a table of 4K leaves standing for a 2M page)
 * @age: its place on the list, 0 the oldest (the FIFO order)
 * @dirty_logged: its memslot is dirty-logged
 * @tdp_mmu: a TDP MMU page, else a shadow MMU page
 * @present: its present SPTEs
 * @accessed: of those, the ones with the Accessed bit
 */
struct nxsim_nx_candidate {
	uint64_t gfn;
	int level;
	uint64_t age;
	bool dirty_logged;
	bool tdp_mmu;
	unsigned int present;
	unsigned int accessed;
};

/**
 * struct nxsim_nx_exec_fault - a read-only view of an exec fault on a
 * TDP page fault path (kvm_tdp_page_fault())
 * @gfn: the faulting guest frame
 * @huge_level: the level of the huge leaf mapping @gfn now (2: 2M, 3: 1G),
 *	0 for none
 * @req_level: the largest level the memslot and the host allow
 *	(kvm_mmu_max_mapping_level(); 1 while dirty-logged)
 * @nx_huge_pages: the mitigation is on (is_nx_huge_page_enabled())
 * @tdp_mmu: the TDP MMU maps it, else the shadow MMU (direct_map())
 */
struct nxsim_nx_exec_fault {
	uint64_t gfn;
	int huge_level;
	int req_level;
	bool nx_huge_pages;
	bool tdp_mmu;
};

/**
 * struct nxsim_nx_recovery_ops - a recovery rule
 * @size: sizeof(struct nxsim_nx_recovery_ops) as the rule was built
 * @version: NXSIM_NX_RECOVERY_OPS_VERSION as the rule was built
 * @name: what nxsim_host_config.nx_recovery names it by: 1 ..
 *	NXSIM_NX_RECOVERY_NAME_MAX of [A-Za-z0-9_.+-]
 * @pick: one pass over one list: @cand[0 .. @nr - 1] in list order;
 *	@kernel_nr is how many the kernel would take (from the head); write
 *	the indexes of the pages to take, in the order to take them, to
 *	@pick (room for @nr) and return how many, or a negative errno to
 *	take none.  An index not below @nr, one given twice or a count
 *	above @nr fails the pass with -EINVAL and a checker report.  NULL:
 *	the kernel's pick
 * @period_ms: the recovery worker's period, given the kernel's
 *	(nx_huge_pages_recovery_period_ms, or the profile's rule when it is
 *	0); an answer of 0 is taken as 1.  NULL: the kernel's
 * @exec_huge: (version 2) whether the exec fault @f may map huge: 1 yes,
 *	0 no; @kernel is the kernel's answer (!@f->nx_huge_pages).  NULL:
 *	the kernel's
 * @exec_split: (version 2) asked when the exec fault @f meets a huge leaf
 *	on the TDP MMU (@f->huge_level set): 1 split it in place, 0 zap it;
 *	@kernel is the profile's answer (1 from 6.2).  NULL: the kernel's
 *
 * An answer of either exec hook other than 0 or 1 fails the fault with
 * -EINVAL and a checker report, before anything changed.  A huge page
 * mapped on exec with the mitigation on is made non-executable
 * (make_spte()), as in the kernel: the fetch faults again, spuriously.
 *
 * The indexes are the only output: the pages themselves cannot be
 * reached, so that a rule cannot corrupt the list.
 */
struct nxsim_nx_recovery_ops {
	uint32_t size;
	uint32_t version;
	const char *name;
	int64_t (*pick)(const struct nxsim_nx_candidate *cand, size_t nr,
			uint64_t kernel_nr, size_t *pick);
	unsigned int (*period_ms)(unsigned int kernel_ms);
	int (*exec_huge)(const struct nxsim_nx_exec_fault *f, int kernel);
	int (*exec_split)(const struct nxsim_nx_exec_fault *f, int kernel);
};

/**
 * nxsim_nx_recovery_register() - make a recovery rule usable by name
 * @ops: the rule; the library keeps a copy of it and of its name
 * @why: on failure, receives a static text naming the problem (may be NULL)
 *
 * A version 1 rule (@size up to @period_ms) is taken as it was built: its
 * exec decisions are the kernel's.
 *
 * Return: 0; -EINVAL for NULL, a size too small for the version, no
 * hook, an empty, too long or badly spelled name; -EOPNOTSUPP for an
 * unknown version; -EEXIST for a name taken ("kernel" is the profile's
 * own rule); -ENOSPC past NXSIM_NX_RECOVERY_MAX.  Nothing is registered on
 * failure.
 */
NXSIM_API int
nxsim_nx_recovery_register(const struct nxsim_nx_recovery_ops *ops,
			   const char **why);

/**
 * nxsim_nx_recovery_name() - the @idx-th rule: "kernel" (the profile's),
 * then the registered ones; NULL past the last
 */
NXSIM_API const char *nxsim_nx_recovery_name(unsigned int idx);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_NX_RECOVERY_H */
