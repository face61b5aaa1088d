#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# docs/kernel-map.md cannot rot, checked both ways:
#   - every row's libnxsim symbol must be defined (not just named) in the
#     file the row gives.  A definition is a line at column 0 that holds
#     "symbol(" and whose declaration reaches "{" before ";";
#   - every definition in src/ that carries a kernel function's name (as
#     it is, or after "nxsim__" without the leading underscores; the names
#     are those of tests/arch/kernel-names.txt and of the map's rows) has
#     a row;
#   - no definition takes a kernel-looking name ("kvm_", after any
#     "nxsim__") that no kernel function has, unless a row lists it;
#   - every row's symbol follows the naming rule of docs/hacking.md (the
#     kernel's name, "nxsim__" and the name without leading underscores,
#     either with a "_suffix" of era or case, or the public nxsim_ API),
#     or docs/hacking.md lists it, with its reason, under "Twins named
#     otherwise"; that list names no symbol that follows the rule.
# Fails naming the row, or the file and line.
# usage: check-kernel-map.sh REPO_DIR
set -eu
cd "$1"
here=$(cd "$(dirname "$0")" && pwd)
# Every table row: | kernel function | kernel file | symbol | file |
grep '^| `' docs/kernel-map.md |
	awk -F'|' '
	function field(i,   s) {
		s = $i
		gsub(/^[ \t]*`|`[ \t]*$/, "", s)
		return s
	}
	{
		rows++
		kfn = field(2); sym = field(4); file = field(5)
		gsub(/`/, "", kfn)
		if (NF != 6 || sym !~ /^[A-Za-z_][A-Za-z0-9_]*$/) {
			printf "kernel-map: malformed row: %s\n", $0
			bad = 1
			next
		}
		if (file !~ /^src\//) {
			printf "kernel-map: %s: %s is not under src/\n",
			    kfn, file
			bad = 1
			next
		}
		found = 0
		inside = 0
		while ((getline line < file) > 0) {
			if (!inside && line ~ /^[A-Za-z_]/ &&
			    index(line, sym "(") &&
			    match(line, "(^|[^A-Za-z0-9_])" sym "\\("))
				inside = 1
			if (inside) {
				if (line ~ /\{/) { found = 1; break }
				if (line ~ /;/) inside = 0
			}
		}
		close(file)
		if (!found) {
			printf "kernel-map: %s -> %s is not defined in %s\n",
			    kfn, sym, file
			bad = 1
		}
	}
	END {
		if (!rows) {
			print "kernel-map: docs/kernel-map.md has no rows"
			bad = 1
		}
		exit bad
	}
	'

# The other ways: definitions against rows, rows against the rule.
awk -f "$here/defs.awk" src/*/*.[ch] |
	awk -f "$here/kernel-map-ways.awk" "$here/kernel-names.txt" \
		docs/kernel-map.md docs/hacking.md -
