// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMU as the VM lifecycle sees it (arch/x86/kvm/mmu/mmu.c):
 * kvm_mmu_init_vm(), kvm_mmu_uninit_vm() with the final zap,
 * kvm_mmu_zap_all_fast() (generation flip, every root invalidated and
 * torn down at once, as the newest tree does under slots_lock), the VM
 * stats by their kernel names, and the API entry helpers.
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
#include "mmu/host.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/vm.h"

int nxsim__mmu_vm_enter(struct nxsim_vm *vm)
{
	if (!vm)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	return nxsim__gate_enter(&vm->gate);
}

void nxsim__mmu_vm_exit(struct nxsim_vm *vm)
{
	nxsim__gate_exit(&vm->gate);
}

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

int nxsim__mmu_init_vm(struct nxsim_vm *vm)
{
	const struct nxsim_cpu *cpu = &vm->host->cpu;
	struct nxsim__vm_mmu *mmu = nxsim__zalloc(sizeof(*mmu));
	int i;

	if (!mmu)
		return -ENOMEM;
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
	vm->mmu = mmu;
	return 0;
}

void nxsim__mmu_uninit_vm(struct nxsim_vm *vm)
{
	struct nxsim__vm_mmu *mmu = vm->mmu;

	nxsim__write_lock(&vm->mmu_lock);
	nxsim__tdp_mmu_zap_all_roots(vm);
	while (mmu->nr_cache)
		nxsim__tdp_mmu_free_sp(mmu, mmu->cache[--mmu->nr_cache]);
	nxsim__tdp_mmu_trim_reserve(mmu, 0);
	nxsim__memslots_free(vm);
	nxsim__tdp_mmu_release(mmu);
	nxsim__rw_unlock(&vm->mmu_lock);
	pthread_mutex_destroy(&mmu->tdp_mmu_pages_lock);
	nxsim__free(mmu, sizeof(*mmu));
	vm->mmu = NULL;
}

void nxsim__mmu_zap_all_fast(struct nxsim_vm *vm)
{
	nxsim__write_lock(&vm->mmu_lock);
	vm->mmu->mmu_valid_gen ^= 1;
	nxsim__tdp_mmu_zap_all_roots(vm);
	vm->mmu->counters.zap_all++;
	nxsim__rw_unlock(&vm->mmu_lock);
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

int nxsim_vm_stat_get(struct nxsim_vm *vm, const char *name, uint64_t *val)
{
	unsigned int i;
	int rc;

	if (!name || !val)
		return -EINVAL;
	rc = nxsim__mmu_vm_enter(vm);
	if (rc)
		return rc;
	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		if (!strcmp(name, stat_names[i]))
			break;
	nxsim__read_lock(&vm->mmu_lock);
	if (i < 3)
		*val = vm->mmu->pages[i];
	else if (i == 3)
		*val = vm->mmu->nx_lpage_splits;
	else
		rc = -ENOENT;
	nxsim__rw_unlock(&vm->mmu_lock);
	nxsim__mmu_vm_exit(vm);
	return rc;
}

int nxsim_vm_mmu_counters(struct nxsim_vm *vm, struct nxsim_mmu_counters *c)
{
	int rc;

	if (!c)
		return -EINVAL;
	rc = nxsim__mmu_vm_enter(vm);
	if (rc)
		return rc;
	nxsim__read_lock(&vm->mmu_lock);
	*c = vm->mmu->counters;
	nxsim__rw_unlock(&vm->mmu_lock);
	nxsim__mmu_vm_exit(vm);
	return 0;
}

long nxsim_vm_nr_mmu_pages(struct nxsim_vm *vm)
{
	long n;
	int rc = nxsim__mmu_vm_enter(vm);

	if (rc)
		return rc;
	nxsim__read_lock(&vm->mmu_lock);
	n = (long)(vm->mmu->nr_sps - vm->mmu->nr_cache);
	nxsim__rw_unlock(&vm->mmu_lock);
	nxsim__mmu_vm_exit(vm);
	return n;
}
