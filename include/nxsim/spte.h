/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SPTEs (arch/x86/kvm/mmu/spte.h): the two formats KVM x86 writes into TDP
 * page tables, Intel EPT and the legacy x86-64 (AMD NPT) format, taken
 * apart and put together field by field.
 *
 * Left out: the MMIO-SPTE generation layout and the access-track saved
 * bits (both stay in @other).
 *
 * Thread safety: pure functions of their arguments; safe from any thread.
 */
#ifndef NXSIM_SPTE_H
#define NXSIM_SPTE_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nxsim_spte_format {
	NXSIM_SPTE_EPT,	   /* Intel EPT (kvm_mmu_set_ept_masks()) */
	NXSIM_SPTE_LEGACY, /* AMD NPT / legacy x86-64 page-table format */
};

/**
 * struct nxsim_spte_bits - an SPTE taken apart
 * @pfn: bits 12-51, the host page frame (or child page table)
 * @other: every bit no field below names (access-track saved bits,
 *	MMIO generation, C-bit, ...), in place
 * @memtype: EPT: memory type, bits 3-5; legacy: PWT | PCD << 1, bits 3-4
 * @ad_type: bits 52-53, SPTE_TDP_AD_* (0 enabled, 1 disabled, 2 wrprot-only)
 * @readable: bit 0: EPT R; legacy P (present)
 * @writable: bit 1
 * @exec: EPT X (bit 2); legacy: NX (bit 63) clear
 * @user: legacy U (bit 2); EPT has none (must be false)
 * @accessed: EPT bit 8; legacy bit 5
 * @dirty: EPT bit 9; legacy bit 6
 * @large: bit 7: a huge leaf at level 2 or 3
 * @global: legacy bit 8 (EPT: must be false)
 * @ipat: EPT bit 6, ignore PAT (legacy: must be false)
 * @user_exec: EPT bit 10, MBEC user execute (legacy: must be false)
 * @suppress_ve: EPT bit 63 (legacy: must be false)
 * @host_writable: EPT bit 57; legacy bit 9 (KVM software bits)
 * @mmu_writable: EPT bit 58; legacy bit 10
 * @mmu_present: bit 11, SPTE_MMU_PRESENT_MASK (is_shadow_present_pte())
 */
struct nxsim_spte_bits {
	uint64_t pfn;
	uint64_t other;
	uint8_t memtype;
	uint8_t ad_type;
	bool readable;
	bool writable;
	bool exec;
	bool user;
	bool accessed;
	bool dirty;
	bool large;
	bool global;
	bool ipat;
	bool user_exec;
	bool suppress_ve;
	bool host_writable;
	bool mmu_writable;
	bool mmu_present;
};

/**
 * nxsim_spte_decode() - take an SPTE apart
 * @fmt: its format
 * @spte: the value
 * @bits: receives the fields; nxsim_spte_encode() gives @spte back
 *
 * Return: 0; -EINVAL for an unknown @fmt or NULL @bits.
 */
NXSIM_API int nxsim_spte_decode(enum nxsim_spte_format fmt, uint64_t spte,
				struct nxsim_spte_bits *bits);

/**
 * nxsim_spte_encode() - build an SPTE from its fields
 * @fmt: the format
 * @bits: the fields
 * @spte: receives the value
 *
 * Return: 0; -EINVAL for an unknown @fmt, a field the format does not have,
 * a @pfn beyond bit 51, @memtype or @ad_type too wide, or @other
 * overlapping a named field.
 */
NXSIM_API int nxsim_spte_encode(enum nxsim_spte_format fmt,
				const struct nxsim_spte_bits *bits,
				uint64_t *spte);

/* SHADOW_NONPRESENT_VALUE: bit 63 (EPT suppress-#VE; legacy NX). */
#define NXSIM_SPTE_NONPRESENT (1ull << 63)

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_SPTE_H */
