#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check-refs.sh finds each kind of reference it exists for, and passes a
# tree with none: a tree with one bad reference of every kind and good
# ones beside them, and the same tree with the bad lines removed.
# usage: check-refs-selftest.sh CHECK_REFS_SH
set -eu
check=${1:?usage: check-refs-selftest.sh CHECK_REFS_SH}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
t=$w/tree
mkdir -p "$t/docs" "$t/src"
printf '| [S1] | a source |\n' >"$t/docs/sources.md"
printf 'int x; /* see docs/sources.md [S1] */\n' >"$t/src/a.c"
cat >"$t/docs/good.md" <<'MD'
[sources](sources.md), [up](../docs/sources.md#keys), [web](https://lore.kernel.org/), [here](#x)
`src/a.c`, `src/policy_<name>.c`, include/trace/events/kmem.h, arch/x86/kvm/mmu/mmu.c [S1]
kvm_mmu_page, a spectre, the table of 1.6 GHz, issue-free, commit 0b210faf3373
MD
cat >"$t/docs/bad.md" <<'MD'
[gone](gone.md)
as @SPEC@.md and @DESIGN@ say [NEXT], spec 6.4, table 1.6, 5.2#3, §4.1
issue 4 and issue #12 and #3 issue
[S1] [S2] [C13b]
`src/gone.c`, tests/integration/gone.nxs
/work/@SHARED@/docs
MD
# The planted names, spelled so that this script does not name them.
sed -i 's/@SPEC@/kvm-nx-s''pec/; s/@DESIGN@/DES''IGN.md/; s/@SHARED@/sha''red/' \
	"$t/docs/bad.md"
cat >"$w/want" <<'TXT'
docs/bad.md:1: link gone.md does not resolve
docs/bad.md:2: cites a section of a document the repository does not contain:  spec 6.4
docs/bad.md:2: cites a section of a document the repository does not contain: 5.2#3
docs/bad.md:2: cites a section of a document the repository does not contain: table 1.6
docs/bad.md:2: cites a section of a document the repository does not contain: §4.1
docs/bad.md:2: names a reference document the repository does not contain: @DESIGN@
docs/bad.md:2: names a reference document the repository does not contain: [NEXT]
docs/bad.md:2: names a reference document the repository does not contain: @SPEC@
docs/bad.md:3: carries an issue tag: #3 issue
docs/bad.md:3: carries an issue tag: issue #12
docs/bad.md:3: carries an issue tag: issue 4
docs/bad.md:4: source key [C13b] is not defined in docs/sources.md
docs/bad.md:4: source key [S2] is not defined in docs/sources.md
docs/bad.md:5: src/gone.c does not exist
docs/bad.md:5: tests/integration/gone.nxs does not exist
docs/bad.md:6: names a path outside the repository: @SHARED@/
TXT
sed -i 's/@SPEC@/kvm-nx-s''pec/; s/@DESIGN@/DES''IGN.md/; s/@SHARED@/sha''red/' \
	"$w/want"
rc=0
sh "$check" "$t" >"$w/got" || rc=$?
if [ "$rc" != 1 ] || ! diff -u "$w/want" "$w/got"; then
	echo "check-refs.sh: wrong report (exit $rc) for the bad tree" >&2
	exit 1
fi
rm "$t/docs/bad.md"
if ! sh "$check" "$t"; then
	echo "check-refs.sh: failed a clean tree" >&2
	exit 1
fi
