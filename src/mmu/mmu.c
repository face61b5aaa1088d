// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMU as the VM lifecycle sees it (arch/x86/kvm/mmu/mmu.c):
 * kvm_mmu_init_vm(), kvm_mmu_uninit_vm() with the final zap,
 * kvm_mmu_zap_all_fast() (generation flip, every root invalidated and
 * torn down at once, as the newest tree does under slots_lock), the VM
 * stats by their kernel names, and is_nx_huge_page_enabled().
 *
 * The SPTE format follows the host CPU (EPT on Intel, NPT on AMD); the
 * root has 5 levels when the host has LA57 and, on EPT, the guest's
 * MAXPHYADDR (the host's here) exceeds 48 (kvm_mmu_get_tdp_level()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

void nxsim__mmu_event(struct nxsim__vm_mmu *mmu, const char *fmt, ...)
{
	va_list ap;

	if (mmu->nr_events < NXSIM__MAX_EVENTS) {
		va_start(ap, fmt);
		vsnprintf(mmu->events[mmu->nr_events], sizeof(mmu->events[0]),
			  fmt, ap);
		va_end(ap);
	}
	mmu->nr_events++;
}

int nxsim__kvm_mmu_init_vm(const struct nxsim__mmu_config *cfg,
			   struct nxsim__vm_mmu **mmup)
{
	const struct nxsim_cpu *cpu = cfg->cpu;
	struct nxsim__vm_mmu *mmu = nxsim__zalloc(sizeof(*mmu));
	int i;

	if (!mmu)
		return -ENOMEM;
	mmu->prof = cfg->prof;
	mmu->bugs = cfg->bugs;
	mmu->params = cfg->params;
	pthread_rwlock_init(&mmu->mmu_lock, NULL);
	mmu->fmt = cpu->amd ? NXSIM_SPTE_LEGACY : NXSIM_SPTE_EPT;
	mmu->phys_bits = cpu->phys_bits ? cpu->phys_bits : 46;
	mmu->root_level = cpu->la57 && (cpu->amd || mmu->phys_bits > 48) ? 5 :
									   4;
	mmu->max_huge_level = cpu->no_gbpages ? NXSIM_PG_LEVEL_2M :
						NXSIM_PG_LEVEL_1G;
	TAILQ_INIT(&mmu->roots);
	TAILQ_INIT(&mmu->reserve);
	TAILQ_INIT(&mmu->slots);
	for (i = 0; i < NXSIM__NR_MMU_TYPES; i++)
		TAILQ_INIT(&mmu->nx[i].pages);
	mmu->free_frame = NXSIM__NO_FRAME;
	pthread_mutex_init(&mmu->tdp_mmu_pages_lock, NULL);
	*mmup = mmu;
	return 0;
}

void nxsim__kvm_mmu_uninit_vm(struct nxsim__vm_mmu *mmu)
{
	pthread_rwlock_wrlock(&mmu->mmu_lock);
	nxsim__tdp_mmu_zap_all_roots(mmu);
	while (mmu->nr_cache)
		nxsim__tdp_mmu_free_sp(mmu, mmu->cache[--mmu->nr_cache]);
	nxsim__tdp_mmu_trim_reserve(mmu, 0);
	nxsim__memslots_free(mmu);
	nxsim__tdp_mmu_release(mmu);
	pthread_rwlock_unlock(&mmu->mmu_lock);
	pthread_mutex_destroy(&mmu->tdp_mmu_pages_lock);
	pthread_rwlock_destroy(&mmu->mmu_lock);
	nxsim__free(mmu, sizeof(*mmu));
}

void nxsim__kvm_mmu_zap_all_fast(struct nxsim__vm_mmu *mmu)
{
	pthread_rwlock_wrlock(&mmu->mmu_lock);
	mmu->mmu_valid_gen ^= 1;
	nxsim__tdp_mmu_zap_all_roots(mmu);
	mmu->counters.zap_all++;
	pthread_rwlock_unlock(&mmu->mmu_lock);
}

bool nxsim__is_nx_huge_page_enabled(struct nxsim__vm_mmu *mmu)
{
	return READ_ONCE(mmu->params->nx_huge_pages) != 0 &&
	       !READ_ONCE(mmu->disable_nx_huge_pages);
}

void nxsim__mmu_disable_nx_huge_pages(struct nxsim__vm_mmu *mmu)
{
	WRITE_ONCE(mmu->disable_nx_huge_pages, true);
}

static const char *const stat_names[] = {
	"pages_4k",
	"pages_2m",
	"pages_1g",
	"nx_lpage_splits",
};

const char *nxsim_vm_stat_name(unsigned int i)
{
	return i < ARRAY_SIZE(stat_names) ? stat_names[i] : NULL;
}

int nxsim__mmu_stat_get(struct nxsim__vm_mmu *mmu, const char *name,
			uint64_t *val)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		if (!strcmp(name, stat_names[i]))
			break;
	pthread_rwlock_rdlock(&mmu->mmu_lock);
	if (i < 3)
		*val = mmu->pages[i];
	else if (i == 3)
		*val = mmu->nx_lpage_splits;
	else
		rc = -ENOENT;
	pthread_rwlock_unlock(&mmu->mmu_lock);
	return rc;
}

void nxsim__mmu_counters(struct nxsim__vm_mmu *mmu,
			 struct nxsim_mmu_counters *c)
{
	pthread_rwlock_rdlock(&mmu->mmu_lock);
	*c = mmu->counters;
	pthread_rwlock_unlock(&mmu->mmu_lock);
}

long nxsim__mmu_nr_pages(struct nxsim__vm_mmu *mmu)
{
	long n;

	pthread_rwlock_rdlock(&mmu->mmu_lock);
	n = (long)(mmu->nr_sps - mmu->nr_cache);
	pthread_rwlock_unlock(&mmu->mmu_lock);
	return n;
}
