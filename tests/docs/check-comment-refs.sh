#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Comments that stay true: fail, naming file:line, where
#   - a comment of a .c or .h file names a file (name.c, name.h) that is
#     not in the tree, unless the tree names a kernel file of that name
#     by its path somewhere (arch/x86/kvm/mmu/tdp_iter.c makes tdp_iter.c
#     a kernel file);
#   - a comment, or a page of docs/ or README.md, names a function of the
#     library (nxsim_name() or nxsim__name(), with its parentheses) that
#     nothing in the tree defines (tests/arch/defs.awk) nor #defines.
# usage: check-comment-refs.sh ROOT
set -u
root=${1:?usage: check-comment-refs.sh ROOT}
cd "$root" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

find . -path ./.git -prune -o -path './build*' -prune -o -type f -print |
	sed 's|^\./||' >"$tmp/all"
grep -E '\.[ch]$' "$tmp/all" | grep -v '^tests/fuzz/corpus/' >"$tmp/code"
grep -E '^(docs/.*\.md|README\.md)$' "$tmp/all" >"$tmp/pages"

# Known files: every name in the tree, and the kernel files it names.
sed 's|.*/||' "$tmp/all" >"$tmp/known-files"
xargs grep -ohE '(^|[^A-Za-z0-9_./-])(arch|virt|include|lib|kernel|mm|tools|drivers)/[A-Za-z0-9_./-]+\.[ch]' \
	<"$tmp/code" /dev/null | sed 's|.*/||' >>"$tmp/known-files"
xargs grep -ohE '(^|[^A-Za-z0-9_./-])(arch|virt|include|lib|kernel|mm|tools|drivers)/[A-Za-z0-9_./-]+\.[ch]' \
	<"$tmp/pages" /dev/null | sed 's|.*/||' >>"$tmp/known-files"

# Known functions: definitions and function-like macros.
xargs awk -f tests/arch/defs.awk <"$tmp/code" | awk '{ print $1 }' \
	>"$tmp/known-fns"
xargs grep -ohE '^[ \t]*#[ \t]*define[ \t]+[A-Za-z0-9_]+\(' <"$tmp/code" |
	sed -E 's/.*define[ \t]+//; s/\($//' >>"$tmp/known-fns"

# The comments of the code, as "file:line:text", and the pages as they are.
xargs awk '
	FNR == 1 { inside = 0 }
	{
		line = $0; out = ""
		while (line != "") {
			if (inside) {
				i = index(line, "*/")
				if (!i) { out = out " " line; line = ""; break }
				out = out " " substr(line, 1, i - 1)
				line = substr(line, i + 2); inside = 0
			} else {
				i = index(line, "/*"); j = index(line, "//")
				if (j && (!i || j < i)) {
					out = out " " substr(line, j + 2); line = ""
				} else if (i) {
					line = substr(line, i + 2); inside = 1
				} else {
					line = ""
				}
			}
		}
		if (out != "")
			print FILENAME ":" FNR ":" out
	}' <"$tmp/code" >"$tmp/comments"
xargs grep -Hn '' <"$tmp/pages" >"$tmp/pagelines"

awk -v files="$tmp/known-files" -v fns="$tmp/known-fns" '
	BEGIN {
		while ((getline f < files) > 0) file[f] = 1
		while ((getline f < fns) > 0) fn[f] = 1
	}
	{
		split($0, p, ":"); where = p[1] ":" p[2]
		text = substr($0, length(where) + 2)
		s = text
		while (match(s, /nxsim__?[a-z0-9_]+\(\)/)) {
			name = substr(s, RSTART, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
			if (!(name in fn)) {
				print where ": " name "() is not defined in the tree"
				bad = 1
			}
		}
		if (FILENAME !~ /comments$/)
			next
		s = " " text " "
		while (match(s, /[^A-Za-z0-9_.\/<-][A-Za-z0-9_-]+\.[ch][^A-Za-z0-9_\/>]/)) {
			name = substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH - 1)
			if (!(name in file)) {
				print where ": " name " is not in the tree"
				bad = 1
			}
		}
	}
	END { exit bad }
' "$tmp/comments" "$tmp/pagelines"
