#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nxsim-sweep from the command line (docs/sweep.md): every bad sweep file
# or argument exits 2 with a message naming the line or argument and
# writes nothing; -j 2 writes the bytes -j 1 writes; the shards' --list
# partition the job list; --resume after a run cut mid-line finishes it
# to the bytes of an uncut run; GNU options (--shard=K/N, -jN); merge
# refuses an output that is an input and a line cut short, and takes a
# line re-spaced by Python's json module as the same line; a failed job
# is a line, exit status 1; --progress ends with a line of the counts on
# stderr and leaves the output's bytes as they are.
#   tests/sweep/cli.sh NXSIM_SWEEP
set -eu
sweep=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cat >"$tmp/ok.sweep" <<'SWEEP'
# two policies x three seeds
axis policy eager none
axis seed 1 2 3
run xpfo workload compile policy=${policy} cpus=2 events=20 seed=${seed}
SWEEP

# bad_sweep 'sweep text' 'message' [ARGS...]: exit 2, message, no output
bad_sweep() {
	text=$1 msg=$2
	shift 2
	printf '%s\n' "$text" >"$tmp/bad.sweep"
	rc=0
	"$sweep" -o "$tmp/out" "$tmp/bad.sweep" "$@" 2>"$tmp/err" || rc=$?
	[ "$rc" = 2 ] || fail "exit $rc, not 2, for: $text $*"
	grep -qF -- "$msg" "$tmp/err" || {
		cat "$tmp/err" >&2
		fail "no \"$msg\" for: $text $*"
	}
	[ ! -e "$tmp/out" ] || fail "output written for: $text $*"
}
bad_sweep 'axis a 1
frob 2
run x ${a}' 'bad.sweep:2: unknown directive "frob"'
bad_sweep 'axis a
run x ${a}' 'bad.sweep:1: axis "a" has no values'
bad_sweep 'axis a 1
run x ${b}' 'bad.sweep:2: ${b}: no such axis'
bad_sweep 'axis a 1
axis b 2
run x ${a}' 'bad.sweep:2: axis "b" is not used by any run line'
bad_sweep 'run x' "option '--shard' requires an argument" --shard
for spec in 0/0 3/2 -1/4 1/ x/2 2/2; do
	bad_sweep 'run x' "$spec: " --shard "$spec"
done
bad_sweep 'run x' "option requires an argument -- 'j'" -j
bad_sweep 'run x' '0: -j takes 1 to 1024' -j 0
bad_sweep 'run x' '1025: -j takes 1 to 1024' -j 1025
bad_sweep 'run x' "unrecognized option '--frob'" --frob
rc=0
"$sweep" -o "$tmp/out" "$tmp/missing.sweep" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "missing.sweep: No such file" "$tmp/err" &&
	[ ! -e "$tmp/out" ] || fail "a missing sweep file"
rc=0
"$sweep" --resume "$tmp/ok.sweep" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--resume: needs -o FILE" "$tmp/err" &&
	[ ! -s "$tmp/out" ] || fail "--resume without -o"
rc=0
"$sweep" merge "$tmp/ok.sweep" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "merge without results"

# -j 2 writes what -j 1 writes, in job order
"$sweep" -o "$tmp/j1" "$tmp/ok.sweep"
"$sweep" -j 2 -o "$tmp/j2" "$tmp/ok.sweep"
cmp "$tmp/j1" "$tmp/j2" || fail "-j 2 differs from -j 1"
[ "$(wc -l <"$tmp/j1")" = 6 ] || fail "not 6 lines"
"$sweep" --list "$tmp/ok.sweep" >"$tmp/list"
sed 's/^{"id":"\([0-9a-f]*\)".*/\1/' "$tmp/j1" >"$tmp/ids"
cut -d' ' -f1 "$tmp/list" | cmp - "$tmp/ids" || fail "--list ids"
head -n 1 "$tmp/list" | grep -q '^[0-9a-f]\{16\} policy=eager seed=1$' ||
	fail "--list format"
sort "$tmp/list" >"$tmp/sorted"
# GNU options: --shard=K/N, -jN, --output=FILE
"$sweep" --list --shard 1/3 "$tmp/ok.sweep" >"$tmp/s1"
"$sweep" --list --shard=1/3 "$tmp/ok.sweep" | cmp - "$tmp/s1" ||
	fail "--shard=1/3"
"$sweep" -j2 --output="$tmp/j2b" "$tmp/ok.sweep"
cmp "$tmp/j1" "$tmp/j2b" || fail "-j2 --output=FILE"
for k in 0 1 2 3; do
	"$sweep" --list --shard "$k/4" "$tmp/ok.sweep"
done | sort | cmp - "$tmp/sorted" || fail "the shards' lists are not the list"

# --resume: of a file that does not exist yet, a whole run; of a run cut
# in its third line, the uncut run
"$sweep" --resume -o "$tmp/new" "$tmp/ok.sweep"
cmp "$tmp/new" "$tmp/j1" || fail "--resume of a new file"
head -c "$(($(head -n 2 "$tmp/j1" | wc -c) + 20))" "$tmp/j1" >"$tmp/cut"
"$sweep" --resume -o "$tmp/cut" "$tmp/ok.sweep"
cmp "$tmp/cut" "$tmp/j1" || fail "--resume"
"$sweep" --resume -j 2 -o "$tmp/cut" "$tmp/ok.sweep"
cmp "$tmp/cut" "$tmp/j1" || fail "--resume of a finished run"

# merge: an output that is also an input is refused and left whole
"$sweep" --shard 0/2 -o "$tmp/A" "$tmp/ok.sweep"
"$sweep" --shard 1/2 -o "$tmp/B" "$tmp/ok.sweep"
cp "$tmp/A" "$tmp/A.orig"
rc=0
"$sweep" merge -o "$tmp/A" "$tmp/ok.sweep" "$tmp/A" "$tmp/B" 2>"$tmp/err" ||
	rc=$?
[ "$rc" = 2 ] && grep -q "the output is also an input" "$tmp/err" &&
	cmp "$tmp/A" "$tmp/A.orig" || fail "merge -o A SWEEP A B"
"$sweep" merge -o "$tmp/AB" "$tmp/ok.sweep" "$tmp/A" "$tmp/B"
cmp "$tmp/AB" "$tmp/j1" || fail "merge of the two shards"
# a line cut short is not a result line
head -c 100 "$tmp/B" >"$tmp/Bcut"
echo >>"$tmp/Bcut"
rc=0
"$sweep" merge "$tmp/ok.sweep" "$tmp/A" "$tmp/Bcut" >/dev/null 2>"$tmp/err" ||
	rc=$?
[ "$rc" = 2 ] && grep -q "Bcut:1: not JSON" "$tmp/err" ||
	fail "merge of a line cut short"
# a valid line re-serialized by another JSON writer is the same line
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys
for l in sys.stdin:
    print(json.dumps(json.loads(l), indent=None))' <"$tmp/B" >"$tmp/Bpy"
	"$sweep" merge -o "$tmp/ABpy" "$tmp/ok.sweep" "$tmp/A" "$tmp/Bpy" \
		2>"$tmp/err" || fail "merge of Python's lines: $(cat "$tmp/err")"
	"$sweep" merge "$tmp/ok.sweep" "$tmp/AB" "$tmp/Bpy" 2>"$tmp/err" \
		>/dev/null || true
	[ "$(grep -c 'identical' "$tmp/err")" = 3 ] ||
		fail "Python's lines are not identical to ours"
fi

# a failed job: its line says why, the others run, exit 1
cat >"$tmp/fail.sweep" <<'SWEEP'
axis w compile bogus io
run xpfo workload ${w} events=10
SWEEP
rc=0
"$sweep" -o "$tmp/f" "$tmp/fail.sweep" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "exit $rc for a failed job"
grep -q "1 of 3 jobs failed" "$tmp/err" || fail "no failure count"
[ "$(grep -c '"status":"ok"' "$tmp/f")" = 2 ] || fail "ok lines"
grep -q '"params":{"w":"bogus"}.*"status":"error","error":"ERR -ENOENT' \
	"$tmp/f" || fail "the failed job's line"

# --progress: the counts on stderr, the same result bytes; not with --list
rc=0
"$sweep" --progress -j 2 -o "$tmp/fp" "$tmp/fail.sweep" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && cmp -s "$tmp/f" "$tmp/fp" || fail "--progress output"
tail -n 2 "$tmp/err" | head -n 1 |
	grep -q '^nxsim-sweep: 3 of 3 jobs (1 failed), [0-9]* s$' ||
	fail "--progress line: $(cat "$tmp/err")"
"$sweep" --progress --shard 7/8 "$tmp/ok.sweep" >"$tmp/l" 2>"$tmp/err" &&
	[ ! -s "$tmp/l" ] &&
	grep -q '^nxsim-sweep: 0 of 0 jobs (0 failed), 0 s$' "$tmp/err" ||
	fail "--progress of an empty shard: $(cat "$tmp/err")"
rc=0
"$sweep" --list --progress "$tmp/ok.sweep" >"$tmp/l" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/l" ] &&
	grep -q -- '--list: takes --shard only' "$tmp/err" ||
	fail "--list --progress"
echo "PASS"
