# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel map's other ways (check-kernel-map.sh runs it): reads
# tests/arch/kernel-names.txt, docs/kernel-map.md, docs/hacking.md and,
# on stdin, the definitions of src/ as defs.awk prints them; prints each
# definition with a kernel name and no row, each kernel-looking name the
# kernel does not have, each row that breaks the naming rule without an
# entry under "Twins named otherwise" in docs/hacking.md, and each such
# entry that has no rule-breaking row; exits 1 if it printed any.
function kname(s) {
	if (match(s, /^FNAME\([A-Za-z0-9_]+\)/))
		s = substr(s, 7, RLENGTH - 7)
	sub(/\(.*/, "", s)
	sub(/[ \t].*/, "", s)
	return s
}
function strip(s) {
	sub(/^_+/, "", s)
	return s
}
FILENAME ~ /kernel-names\.txt$/ {
	if ($0 !~ /^#/ && NF) { kernel[$1] = 1; bare[strip($1)] = 1 }
	next
}
FILENAME ~ /kernel-map\.md$/ {
	if ($0 !~ /^\| `/)
		next
	n = split($0, f, "|")
	sym = f[4]; gsub(/[ `]/, "", sym)
	listed[sym] = 1
	kf = f[2]; nk = 0; ok = sym ~ /^nxsim_[a-z]/
	while (match(kf, /`[^`]*`/)) {
		k = substr(kf, RSTART + 1, RLENGTH - 2)
		kf = substr(kf, RSTART + RLENGTH)
		k = kname(k)
		if (k == "")
			continue
		kernel[k] = 1; bare[strip(k)] = 1
		if (sym == k || index(sym, k "_") == 1 ||
		    sym == "nxsim__" strip(k) ||
		    index(sym, "nxsim__" strip(k) "_") == 1)
			ok = 1
	}
	if (!ok)
		odd[sym] = f[2]
	next
}
FILENAME ~ /hacking\.md$/ {
	if ($0 ~ /^#/)
		inside = $0 ~ /Twins named otherwise/
	else if (inside && match($0, /^\| `[A-Za-z0-9_]+` \|/))
		excused[substr($0, 4, RLENGTH - 6)] = FNR
	next
}
{ def[NR] = $0 }
END {
	for (i in def) {
		split(def[i], d, " ")
		name = d[1]; base = name
		prefixed = sub(/^nxsim__/, "", base)
		if ((name in kernel || (prefixed && base in bare)) &&
		    !(name in listed)) {
			printf "%s:%s: %s has a kernel function's name " \
			    "but no row in docs/kernel-map.md\n", d[2], d[3], name
			bad = 1
		}
		if (base ~ /^_*kvm_/ && !(strip(base) in bare) &&
		    !(name in kernel) && !(name in listed)) {
			printf "%s:%s: %s looks like a kernel function " \
			    "that the kernel does not have\n", d[2], d[3], name
			bad = 1
		}
	}
	for (s in odd)
		if (!(s in excused)) {
			printf "kernel-map: %s (%s) breaks the naming rule " \
			    "of docs/hacking.md and is not listed under " \
			    "\"Twins named otherwise\" there\n", s, odd[s]
			bad = 1
		}
	for (s in excused)
		if (!(s in odd)) {
			printf "docs/hacking.md:%d: %s is listed under " \
			    "\"Twins named otherwise\" but follows the rule " \
			    "or has no row\n", excused[s], s
			bad = 1
		}
	exit bad
}
