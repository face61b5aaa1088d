#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# ctest's entry to tools/kcheck (label "kernel", docs/kcheck.md):
#   run.sh NXSIM NXSIM_KVM SCRIPT...
# Exit 77 (skipped) with the reason when a package it needs is not
# installed (tools/deps --kernel installs them); otherwise kcheck's status.
set -u
missing=""
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	missing="$missing qemu-system-x86"
command -v busybox >/dev/null 2>&1 || [ -x /bin/busybox ] ||
	missing="$missing busybox-static"
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$missing linux-image-amd64"
if [ -n "$missing" ]; then
	echo "SKIPPED: not installed:$missing (tools/deps --kernel)"
	exit 77
fi
nxsim=$1
nxsim_kvm=$2
shift 2
# the scenarios a 6.1 kernel on AMD cannot run are listed and left out
exec python3 "$(dirname "$0")/../../tools/kcheck" -q --expressible \
	--nxsim "$nxsim" --nxsim-kvm "$nxsim_kvm" "$@"
