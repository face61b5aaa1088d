/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnxsim: a user-space model of KVM's x86 NX-huge-page mitigation
 * (iTLB multihit) and of XPFO page-frame ownership on a simulated
 * multi-CPU TLB.  Include this one header; docs/api.md has the
 * conventions every call follows.
 *
 * Thread safety: each header says its own.
 */
#ifndef NXSIM_NXSIM_H
#define NXSIM_NXSIM_H

/* Every answer is 0 or a negative errno: the E* names come with it. */
#include <errno.h>

#include <nxsim/common.h>
#include <nxsim/error.h>
#include <nxsim/alloc.h>
#include <nxsim/clock.h>
#include <nxsim/profile.h>
#include <nxsim/host.h>
#include <nxsim/nx_recovery.h>
#include <nxsim/param.h>
#include <nxsim/mmu.h>
#include <nxsim/spte.h>
#include <nxsim/vm.h>
#include <nxsim/vcpu.h>
#include <nxsim/guest.h>
#include <nxsim/tlb.h>
#include <nxsim/xpfo.h>
#include <nxsim/plugin.h>
#include <nxsim/trace.h>
#include <nxsim/stats.h>
#include <nxsim/rng.h>
#include <nxsim/hex.h>
#include <nxsim/bringup.h>
#include <nxsim/workload.h>

#endif /* NXSIM_NXSIM_H */
