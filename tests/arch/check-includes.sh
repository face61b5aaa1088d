#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The layers of src/ include only downward.  Each folder may include its
# own headers and those of the folders listed for it here (docs/hacking.md
# draws the same graph); any other #include "..." fails, named by file and
# line.  Public headers (<nxsim/...>) are not checked: every layer may use
# them.
# usage: check-includes.sh SRC_DIR
set -eu
cd "$1"
find . -name '*.[ch]' | sort | awk '
BEGIN {
	allowed["core"] = ""
	allowed["params"] = "core"
	allowed["mmu"] = "core params tlb"
	allowed["kvm"] = "core params mmu tlb"
	allowed["bringup"] = "core kvm"
	allowed["tlb"] = "core"
	allowed["xpfo"] = "core tlb"
	allowed["trace"] = "core tlb xpfo"
	allowed["workload"] = "core"
	allowed["plugin"] = "core mmu tlb xpfo"
	bad = 0
}
{
	file = substr($0, 3)
	from = file
	sub(/\/.*/, "", from)
	if (!(from in allowed)) {
		printf "%s: folder %s is not in the layer matrix\n", file, from
		bad = 1
		next
	}
	n = 0
	while ((getline line < $0) > 0) {
		n++
		if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/)
			continue
		inc = line
		sub(/^[^"]*"/, "", inc)
		sub(/".*/, "", inc)
		if (inc !~ /\//)
			continue	# same folder
		to = inc
		sub(/\/.*/, "", to)
		if (to == from || index(" " allowed[from] " ", " " to " "))
			continue
		printf "%s:%d: %s may not include \"%s\"\n", file, n, from, inc
		bad = 1
	}
	close($0)
}
END { exit bad }
'
