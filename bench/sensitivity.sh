#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The XPFO cost-table sensitivity study (docs/sensitivity.md): runs
# bench/sweeps/xpfo-costs.sweep (each cost at 50/75/125/150% of its
# default) and xpfo-costs-base.sweep (the defaults) with nxsim-sweep,
# resuming what an earlier run wrote, then ranks the costs by how far
# they move the system-time ratio of each (CPUs, policy) and draws a
# tornado plot of each.
#   bench/sensitivity.sh [-j N] [BUILD]     (default: -j 2 build/release)
#   bench/sensitivity.sh --help             this text, and nothing else
# Writes to bench-results/sensitivity/: base.jsonl, costs.jsonl,
# ranked.tsv (every row), ranked.md (the top 8 of each), and with gnuplot
# tornado-POLICY-CPUS.png.  Needs jq (tools/deps --sweep).  Progress goes
# to stderr every 10 s: jobs done of the sweep's, time taken, time left at
# the rate so far (about 12 minutes in all on two cores).
set -eu
usage() {
	sed -n 's/^#   bench/bench/p' "$0"
}
j=2
case "${1:-}" in
-h | --help)
	usage
	exit 0
	;;
-j)
	[ $# -ge 2 ] || { usage >&2; exit 2; }
	j=$2
	shift 2
	;;
-*)
	usage >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
build=${1:-build/release}
sweep=$build/tools/nxsim-sweep
out=bench-results/sensitivity
command -v jq >/dev/null || {
	echo "bench/sensitivity.sh: needs jq (tools/deps --sweep)" >&2
	exit 2
}
[ -x "$sweep" ] || {
	echo "bench/sensitivity.sh: $sweep missing" \
		"(cmake --build --preset release)" >&2
	exit 2
}
mkdir -p "$out"

# lines FILE: the result lines FILE holds (0 when it does not exist yet)
lines() {
	if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi
}
mmss() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}
# progress SWEEP RESULTS TOTAL: every 10 s, the lines RESULTS has against
# the TOTAL jobs, the time taken and the time left at the rate so far
progress() {
	before=$(lines "$2")
	start=$(date +%s)
	while sleep 10; do
		now=$(lines "$2")
		el=$(($(date +%s) - start))
		left="?"
		[ "$now" -gt "$before" ] &&
			left=$(mmss $((el * ($3 - now) / (now - before))))
		printf '\rbench/sensitivity.sh: %s %d/%d jobs, %s, about %s left ' \
			"$(basename "$1")" "$now" "$3" "$(mmss "$el")" "$left" >&2
	done
}
# run SWEEP RESULTS: nxsim-sweep --resume, with progress on stderr
run() {
	total=$("$sweep" --list "$1" | wc -l)
	start=$(date +%s)
	progress "$1" "$2" "$total" &
	ticker=$!
	rc=0
	"$sweep" -j "$j" --resume -o "$2" "$1" || rc=$?
	kill "$ticker"
	printf '\rbench/sensitivity.sh: %s %d/%d jobs in %s%24s\n' \
		"$(basename "$1")" "$(lines "$2")" "$total" \
		"$(mmss $(($(date +%s) - start)))" "" >&2
	return $rc
}
run bench/sweeps/xpfo-costs-base.sweep "$out/base.jsonl"
run bench/sweeps/xpfo-costs.sweep "$out/costs.jsonl"

# cpus policy cost base r50 r75 r125 r150 swing, where rX is the
# system_ratio with the cost at X% and swing = max |rX - base|; sorted by
# CPUs, policy (eager, deferred, none) and swing, largest first
jq -r -s --slurpfile base "$out/base.jsonl" '
	def key: "\(.params.cpus)/\(.params.policy)";
	def abs: if . < 0 then -. else . end;
	($base | map({key: key, value: .results[0].system_ratio})
	 | from_entries) as $b
	| {"eager": 0, "deferred": 1, "none": 2} as $order
	| map(select(.status == "ok"))
	| group_by([.params.cpus, .params.policy, .params.cost])
	| map({cpus: .[0].params.cpus, policy: .[0].params.policy,
	       cost: .[0].params.cost, base: $b[.[0] | key],
	       r: (map({key: .params.scale,
			value: .results[0].system_ratio}) | from_entries)})
	| map(. + {swing: ([.r[] - .base | abs] | max)})
	| sort_by((.cpus | tonumber), $order[.policy], -.swing)
	| .[]
	| [.cpus, .policy, .cost, .base, .r["50%"], .r["75%"], .r["125%"],
	   .r["150%"], .swing]
	| @tsv' "$out/costs.jsonl" >"$out/ranked.tsv"

# the top 8 of each (CPUs, policy), as a markdown table
awk -F '\t' '
	BEGIN {
		print "| CPUs | policy | cost | default | 50% | 75% | 125% | 150% |"
		print "|---|---|---|---|---|---|---|---|"
	}
	{
		g = $1 "/" $2
		if (++n[g] > 8)
			next
		printf "| %s | %s | `%s` | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			$1, $2, $3, $4, $5, $6, $7, $8
	}' "$out/ranked.tsv" >"$out/ranked.md"
cat "$out/ranked.md"

command -v gnuplot >/dev/null || exit 0
for g in $(cut -f1,2 "$out/ranked.tsv" | tr '\t' - | sort -u); do
	cpus=${g%%-*} policy=${g#*-}
	# rank (top first) name base r50 r150 for the top 10
	awk -F '\t' -v c="$cpus" -v p="$policy" '
		$1 == c && $2 == p && n < 10 { n++; print n, $3, $4, $5, $8 }' \
		"$out/ranked.tsv" >"$out/tornado-$policy-$cpus.dat"
	gnuplot <<GP
set terminal pngcairo size 800,480 noenhanced
set output "$out/tornado-$policy-$cpus.png"
set title "$policy, $cpus CPUs: system-time ratio with one cost at 50% / 150%"
set yrange [10.7:0.3]
set ytics nomirror
set xlabel "system-time ratio (XPFO / no XPFO)"
set style fill solid 0.6 border -1
set key bottom right
base = system("head -n 1 $out/tornado-$policy-$cpus.dat | cut -d' ' -f3")
set arrow from base, graph 0 to base, graph 1 nohead dt 2
plot "$out/tornado-$policy-$cpus.dat" \\
	using ((\$3 + \$4) / 2):1:(\$3 < \$4 ? \$3 : \$4):(\$3 < \$4 ? \$4 : \$3):(\$1 - 0.35):(\$1 + 0.35):ytic(2) \\
	with boxxyerror title "50%", \\
     "" using ((\$3 + \$5) / 2):1:(\$3 < \$5 ? \$3 : \$5):(\$3 < \$5 ? \$5 : \$3):(\$1 - 0.35):(\$1 + 0.35) \\
	with boxxyerror title "150%"
GP
done
