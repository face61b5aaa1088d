#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The repository stands alone: fail on any reference a reader of it cannot
# follow, naming file:line.
#   - a relative link of docs/*.md or README.md that does not resolve;
#   - a path into the tree (docs/, src/, include/nxsim/, tests/, bench/,
#     examples/, tools/nxsim/) naming a file that does not exist;
#   - a source key [S12] or [C4] that docs/sources.md does not define;
#   - a reference document that is not in the tree (or one of its source
#     tags such as [NEXT]), a path outside the repository, a
#     section number of such a document ("spec 6.4", "5.2#3", "table 1.6",
#     "§4"), or an "issue N" tag.
# usage: check-refs.sh ROOT
set -u
root=${1:?usage: check-refs.sh ROOT}
cd "$root" || exit 2
out=$(mktemp) || exit 2
list=$(mktemp) || exit 2
trap 'rm -f "$out" "$list"' EXIT

# Every text file a reader sees; not build trees, not captured trace data
# or fuzzing corpora, not this checker and its self-test (they hold the
# patterns).
grep -rIl '' . \
	--exclude-dir=.git --exclude-dir='build*' \
	--exclude-dir=bench-results --exclude-dir=fixtures \
	--exclude-dir=corpus \
	--exclude=check-refs.sh --exclude=check-refs-selftest.sh |
	sed 's|^\./||' >"$list"

# matches PATTERN: "file:line:match" for each match of PATTERN (ERE)
matches() {
	xargs grep -HnoE "$1" /dev/null <"$list"
}

# report PATTERN WHAT
report() {
	matches "$1" | sed "s|^\([^:]*:[0-9]*\):\(.*\)|\1: $2: \2|" >>"$out"
}

# (The names are written as classes so this file does not name them.)
report 'kvm-nx-[s]pec|xpfo-tlb-[s]pec|perf-[a]nchors|style-[a]nchors|DES[I]GN\.md|\[(NEXT|MI|KH|X86C|V54|V610|STC|STS|KSTR|SPTE[HC])\]' \
	'names a reference document the repository does not contain'
report '[s]hared/' 'names a path outside the repository'
report '(^|[^a-z])spec [0-9][0-9.]*|§ ?[0-9][0-9.]*|[0-9]\.[0-9]+ ?#[0-9]+|[Tt]able [0-9]+\.[0-9]+' \
	'cites a section of a document the repository does not contain'
report '[Ii]ssues? #?[0-9]+|[Ii]ssue benchmark|#[0-9]+ issue' \
	'carries an issue tag'

# Source keys used against those docs/sources.md defines ("| [S12] |").
defs=docs/sources.md
[ -f "$defs" ] || defs=/dev/null
matches '\[[SC][0-9]+[a-z]?\]' | awk -F: '
	FILENAME != "-" { if (match($0, /^\| \[[SC][0-9]+[a-z]?\]/))
		def[substr($0, 3, RLENGTH - 2)] = 1; next }
	!($3 in def) { print $1 ":" $2 ": source key " $3 \
		" is not defined in docs/sources.md" }' \
	"$defs" - >>"$out"

# Paths into the tree name files that exist.
matches '(^|[^A-Za-z0-9_/.-])(docs|src|include/nxsim|tests|bench|examples|tools/nxsim)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(c|h|md|nxs|txt|sh|cmake)' |
	while IFS=: read -r file line path; do
		path=${path#[!A-Za-z]}
		[ -e "$path" ] || echo "$file:$line: $path does not exist"
	done >>"$out"

# Relative links of the Markdown pages resolve.
for f in README.md docs/*.md; do
	[ -f "$f" ] || continue
	grep -noE '\]\([^)]+\)' "$f" /dev/null | while IFS=: read -r file line link; do
		target=$(printf '%s' "$link" | sed 's/^](//; s/)$//; s/#.*//')
		case $link in
		*'(http:'* | *'(https:'* | *'(mailto:'* | '](#'*) continue ;;
		esac
		[ -e "$(dirname "$file")/$target" ] ||
			echo "$file:$line: link $target does not resolve"
	done
done >>"$out"

if [ -s "$out" ]; then
	LC_ALL=C sort -t: -k1,1 -k2,2n -k3 -u "$out"
	exit 1
fi
