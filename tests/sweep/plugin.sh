#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A sweep file's plugin directive (docs/sweep.md): the example flush
# plug-in loaded once, its policy an axis value beside a built-in one,
# both jobs ok; a plug-in that does not load is an error naming the line,
# exit status 2, nothing written.
#   tests/sweep/plugin.sh NXSIM_SWEEP PLUGIN.so
set -eu
sweep=$1
plugin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cat >"$tmp/ok.sweep" <<SWEEP
plugin $plugin
axis policy eager owner-cpus
run xpfo workload compile policy=\${policy} cpus=4 events=300
SWEEP
"$sweep" -j 2 -o "$tmp/ok.out" "$tmp/ok.sweep" || fail "sweep exit $?"
[ "$(grep -c '"status":"ok"' "$tmp/ok.out")" = 2 ] || fail "not 2 ok jobs"
grep -q '"policy":"owner-cpus"' "$tmp/ok.out" || fail "no owner-cpus job"

printf 'plugin %s/none.so\naxis p a\nrun errno ${p}\n' "$tmp" >"$tmp/bad.sweep"
rc=0
"$sweep" -o "$tmp/bad.out" "$tmp/bad.sweep" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "bad plug-in: exit $rc, not 2"
grep -q "bad.sweep:1: plugin: no such plug-in file" "$tmp/err" ||
	fail "bad plug-in: $(cat "$tmp/err")"
[ ! -s "$tmp/bad.out" ] || fail "bad plug-in: output written"
echo PASS
