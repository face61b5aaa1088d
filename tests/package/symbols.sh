#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# debian/libnxsim0.symbols lists exactly what the library exports: every
# global symbol of default visibility in LIB (libnxsim.a or libnxsim.so),
# and nothing else but the "(optional)" ones (malloc_conf exists on the
# jemalloc arena only).  A new public function fails here until its line
# is added (in order), with the version that first has it; the failure
# prints the lines to add:
#    nxsim_foo@Base 0.1.0
# Usage: symbols.sh LIB SYMBOLS VERSION
set -eu
lib=$1
symbols=$2
version=$3
tmp=${TMPDIR:-/tmp}/nxsim-symbols.$$
trap 'rm -f "$tmp".*' EXIT

readelf -sW "$lib" | awk '($5 == "GLOBAL" || $5 == "WEAK") &&
	$6 == "DEFAULT" && $7 != "UND" { sub(/@.*/, "", $8); print $8 }' |
	sort -u >"$tmp.lib"
awk '/^ / && !/\(optional\)/ { sub(/@.*/, "", $1); print $1 }' "$symbols" |
	sort -u >"$tmp.want"
awk '/^ \(optional\)/ { sub(/^\(optional\)/, "", $1); sub(/@.*/, "", $1);
	print $1 }' "$symbols" | sort -u >"$tmp.opt"

new=$(comm -23 "$tmp.lib" "$tmp.want" | comm -23 - "$tmp.opt")
gone=$(comm -13 "$tmp.lib" "$tmp.want")
rc=0
if [ -n "$new" ]; then
	echo "FAIL: exported but not in $symbols; add these lines:"
	echo "$new" | sed "s/.*/ &@Base $version/"
	rc=1
fi
if [ -n "$gone" ]; then
	echo "FAIL: in $symbols but no longer exported (an ABI break: bump" \
		"the SOVERSION, or keep the symbol):"
	echo "$gone" | sed 's/^/  /'
	rc=1
fi
[ $rc = 0 ] && echo "PASS: $(wc -l <"$tmp.lib") symbols as $symbols lists"
exit $rc
