#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Write the names of the functions defined in the kernel files libnxsim
# models (its twins' files, docs/hacking.md) to stdout, one a line, for
# tests/arch/kernel-names.txt, which check-kernel-map.sh reads to find
# the definitions in src/ that carry a kernel name.  Run it on a kernel
# tree after moving to a new one:
#   tests/arch/kernel-names.sh /usr/src/linux-source-6.1 \
#	>tests/arch/kernel-names.txt
# usage: kernel-names.sh KERNEL_DIR
set -eu
k=${1:?usage: kernel-names.sh KERNEL_DIR}
here=$(cd "$(dirname "$0")" && pwd)
files="arch/x86/kvm/mmu/mmu.c arch/x86/kvm/mmu/mmu_internal.h
arch/x86/kvm/mmu/paging_tmpl.h arch/x86/kvm/mmu/page_track.c
arch/x86/kvm/mmu/spte.c arch/x86/kvm/mmu/spte.h arch/x86/kvm/mmu/tdp_iter.c
arch/x86/kvm/mmu/tdp_iter.h arch/x86/kvm/mmu/tdp_mmu.c
arch/x86/kvm/mmu/tdp_mmu.h arch/x86/kvm/mmu.h arch/x86/kvm/x86.c
arch/x86/kvm/x86.h arch/x86/include/asm/kvm_host.h virt/kvm/kvm_main.c
include/linux/kvm_host.h lib/kstrtox.c lib/string_helpers.c lib/cmdline.c
kernel/params.c arch/x86/mm/tlb.c"
for f in $files; do
	[ -f "$k/$f" ] || { echo "kernel-names: $k/$f is missing" >&2; exit 1; }
done
echo "# Functions defined in the kernel files libnxsim models, from"
echo "# $(basename "$k") by tests/arch/kernel-names.sh; read by"
echo "# tests/arch/check-kernel-map.sh."
cd "$k"
# shellcheck disable=SC2086
awk -f "$here/defs.awk" $files | awk '{ print $1 }' | LC_ALL=C sort -u
