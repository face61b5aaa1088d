#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/kcheck's bad input, with no boot: each case exits 2 and names
# what is missing.  usage: bad-input.sh NXSIM NXSIM_KVM
set -u
nxsim=$1
kvm=$2
top=$(dirname "$0")/../..
kcheck="python3 $top/tools/kcheck --nxsim $nxsim --nxsim-kvm $kvm"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
printf 'host create h0 profile=6.1 cpu=amd\n' >"$w/ok.nxs"
printf 'host create h0 cmdline="unterminated\n' >"$w/bad.nxs"
printf '# kcheck: differs because it does\nparam get tdp_mmu\n' >"$w/why.nxs"
mkdir "$w/mods"
fail=0
case_() { # WANT-PATTERN ARGS...
	want=$1
	shift
	out=$($kcheck "$@" 2>&1)
	rc=$?
	if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "$want"; then
		echo "FAIL (exit $rc): kcheck $*"
		echo "$out"
		fail=1
	fi
}
case_ "no QEMU" --qemu /nonexistent/qemu "$w/ok.nxs"
case_ "no kernel image" --kernel "$w/none" --modules "$w/mods" "$w/ok.nxs"
case_ "without KVM" --kernel "$w/ok.nxs" --modules "$w/mods" "$w/ok.nxs"
case_ "does not parse" "$w/bad.nxs"
case_ "names the kernel code" "$w/why.nxs"
case_ "No such file" "$w/missing.nxs"
case_ "go together" --kernel "$w/ok.nxs" "$w/ok.nxs"
[ $fail -eq 0 ] && echo PASS
exit $fail
