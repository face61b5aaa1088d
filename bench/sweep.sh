#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nxsim-sweep's costs (docs/sweep.md), each beside a reference measured in
# the same run, interleaved A,B,A,B over 5 reps, medians, as ratios:
#   overhead  per-job time of a 1000-job sweep on one thread against the
#             nxsim driver running the same 2000 commands as one script;
#             the difference per job against the 1 ms budget
#   scaling   a 64-job grid of equal jobs on -j 2 against -j 1: speedup / 2
#             (target >= 0.9), and the CPU time both take (~1: the threads
#             do not slow each other down)
#   memory    peak RSS of --list and of a run over 10^5 jobs against the
#             same over 10^3 (target: flat, ratio ~1)
# Wall times on a shared machine drift; the ratios are what to read.
#   bench/sweep.sh [BUILD]         (default build/release)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/release}
sweep=$build/tools/nxsim-sweep
nxsim=$build/tools/nxsim
for t in "$sweep" "$nxsim" /usr/bin/time; do
	[ -x "$t" ] || {
		echo "bench/sweep.sh: $t missing (cmake --build --preset release;" \
			"tools/deps --sweep)" >&2
		exit 2
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
reps=5

now() {
	date +%s.%N
}
# calc EXPR: EXPR evaluated by awk
calc() {
	awk "BEGIN { printf \"%.6f\", $* }"
}
# secs CMD...: the wall time of CMD, output discarded
secs() {
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	calc "$t1 - $t0"
	echo
}
# cpu CMD...: the user + system CPU seconds of CMD
cpu() {
	/usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -n 1 |
		awk '{ printf "%.6f\n", $1 + $2 }'
}
# rss CMD...: the peak RSS of CMD in KiB
rss() {
	/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
}
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# interleave NAME A_CMD B_CMD: 5 reps of A then B, medians to NAME.a/.b
interleave() {
	name=$1 a=$2 b=$3
	: >"$tmp/$name.a"
	: >"$tmp/$name.b"
	i=0
	while [ $i -lt $reps ]; do
		eval "$a" >>"$tmp/$name.a"
		eval "$b" >>"$tmp/$name.b"
		i=$((i + 1))
	done
	ma=$(median <"$tmp/$name.a")
	mb=$(median <"$tmp/$name.b")
}

ten="0 1 2 3 4 5 6 7 8 9"
# axes AXIS...: "axis A 0 1 ... 9" for each; a product of 10^count jobs
axes() {
	for a in "$@"; do
		echo "axis $a $ten"
	done
}

# overhead: 1000 short jobs, each making and freeing a 4-CPU machine
cmd="xpfo create m cpus=4 frames=256"
for i in $(seq 0 999); do
	echo "$cmd seed=$((1000 + i))"
	echo "xpfo destroy m"
done >"$tmp/alone.nxs"
{
	axes a b c
	echo "run $cmd seed=1\${a}\${b}\${c}"
	echo "run xpfo destroy m"
} >"$tmp/overhead.sweep"
interleave overhead "secs $nxsim $tmp/alone.nxs" \
	"secs $sweep -o /dev/null $tmp/overhead.sweep"
alone_us=$(calc "$ma * 1000")
swept_us=$(calc "$mb * 1000")
over_us=$(calc "$swept_us - $alone_us")

# scaling: 64 equal jobs of about 50 ms
{
	echo "axis a 1 2 3 4 5 6 7 8"
	echo "axis b 1 2 3 4 5 6 7 8"
	echo "run xpfo workload compile cpus=4 events=300 seed=\${a}\${b}"
} >"$tmp/grid.sweep"
interleave scaling "secs $sweep -j 1 -o /dev/null $tmp/grid.sweep" \
	"secs $sweep -j 2 -o /dev/null $tmp/grid.sweep"
t1=$ma t2=$mb
# and the CPU time the same work takes on 2 threads: contention shows here
interleave cputime "cpu $sweep -j 1 -o /dev/null $tmp/grid.sweep" \
	"cpu $sweep -j 2 -o /dev/null $tmp/grid.sweep"
c1=$ma c2=$mb

# memory: 10^5 jobs against 10^3, listed and run (a cheap command)
{
	axes a b c d e
	echo "run clock create c\${a}\${b}\${c}\${d}\${e}"
} >"$tmp/big.sweep"
{
	axes a b c
	echo "run clock create c\${a}\${b}\${c}"
} >"$tmp/small.sweep"
list_small=$(rss "$sweep" --list "$tmp/small.sweep")
list_big=$(rss "$sweep" --list "$tmp/big.sweep")
run_small=$(rss "$sweep" -j 2 -o /dev/null "$tmp/small.sweep")
run_big=$(rss "$sweep" -j 2 -o /dev/null "$tmp/big.sweep")

printf '%-34s %14s %14s %8s  %s\n' figure value reference ratio target
printf '%-34s %11.1f us %11.1f us %8.3f  %s\n' \
	"per-job time, sweep vs script" "$swept_us" "$alone_us" \
	"$(calc "$swept_us / $alone_us")" "-"
printf '%-34s %11.1f us %11.1f us %8.3f  %s\n' \
	"runner overhead per job" "$over_us" 1000 \
	"$(calc "$over_us / 1000")" "< 1"
printf '%-34s %12.2f s %12.2f s %8.3f  %s\n' \
	"-j 2 vs -j 1, 64 jobs (speedup/2)" "$t2" "$t1" \
	"$(calc "$t1 / $t2 / 2")" ">= 0.9"
printf '%-34s %12.2f s %12.2f s %8.3f  %s\n' \
	"CPU time, -j 2 vs -j 1, 64 jobs" "$c2" "$c1" \
	"$(calc "$c2 / $c1")" "~1"
printf '%-34s %11d KiB %10d KiB %8.3f  %s\n' \
	"--list RSS, 10^5 vs 10^3 jobs" "$list_big" "$list_small" \
	"$(calc "$list_big / $list_small")" "~1"
printf '%-34s %11d KiB %10d KiB %8.3f  %s\n' \
	"run RSS, 10^5 vs 10^3 jobs, -j 2" "$run_big" "$run_small" \
	"$(calc "$run_big / $run_small")" "~1"
