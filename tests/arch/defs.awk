# SPDX-License-Identifier: GPL-2.0-only
#
# The function definitions of C files, one "name file line" a line.  A
# definition is a line at column 0 that holds "name(" and whose
# declaration reaches "{" before ";" (kernel style: the name starts its
# line or follows the return type on it); FNAME(name) (the kernel's
# paging_tmpl.h) counts as name.  Lines of the preprocessor, of types
# and of initialisers are not definitions.
# usage: awk -f defs.awk FILE...
function flush_pending() {
	pending = ""
}
FNR == 1 { flush_pending() }
pending != "" {
	if ($0 ~ /\{/) {
		print pending
		flush_pending()
	} else if ($0 ~ /;/ || ++lines > 30) {
		flush_pending()
	}
	next
}
/^[A-Za-z_]/ && /\(/ && !/^(typedef|__attribute__|#)/ {
	head = $0
	if (match(head, /FNAME\([A-Za-z0-9_]+\)[ \t]*\(/)) {
		name = substr(head, RSTART + 6, RLENGTH - 6)
		sub(/\).*/, "", name)
	} else {
		sub(/\(.*/, "", head)
		if (head ~ /=/ || head !~ /[A-Za-z0-9_][ \t]*$/)
			next
		name = head
		sub(/[ \t]+$/, "", name)
		sub(/.*[^A-Za-z0-9_]/, "", name)
	}
	# an attribute before the type: the name is on a later line
	if (name ~ /^(if|for|while|switch|return|sizeof|defined|__attribute__)$/)
		next
	pending = name " " FILENAME " " FNR
	lines = 0
	if ($0 ~ /\{/) {
		print pending
		flush_pending()
	} else if ($0 ~ /;/) {
		flush_pending()
	}
}
