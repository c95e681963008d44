#!/bin/sh
# probe-vs-lstopo.sh - wall time of `nodeaudit probe` against
# `lstopo-no-graphics --whole-io` on this machine, run alternately N times
# (default 21); prints each median in ms and the median of the per-round
# ratios probe/lstopo (the goal: at most 1.0).
#   bench/probe-vs-lstopo.sh [N]      NODEAUDIT=path overrides the binary
set -eu
n=${1:-21}
top=$(cd "$(dirname "$0")/.." && pwd)
# The binary: $NODEAUDIT, else build/src/nodeaudit (the README's build), else src/nodeaudit.
def=$top/build/src/nodeaudit
[ -x "$def" ] || def=$top/src/nodeaudit
na=${NODEAUDIT:-$def}
[ -x "$na" ] || { echo "probe-vs-lstopo: no nodeaudit at '$na' (build first)" >&2; exit 2; }
command -v lstopo-no-graphics >/dev/null 2>&1 ||
	{ echo "probe-vs-lstopo: lstopo-no-graphics not found (Debian: hwloc-nox)" >&2; exit 2; }
case $n in ''|*[!0-9]*|0) echo "probe-vs-lstopo: N must be a positive number" >&2; exit 2 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ns() { date +%s%N; }
# One warm-up each (page cache, dynamic loader), not counted.
"$na" probe >/dev/null 2>&1 || true
lstopo-no-graphics --whole-io >/dev/null 2>&1 || true
i=0
while [ $i -lt "$n" ]; do
	t0=$(ns); "$na" probe >/dev/null 2>&1 || true; t1=$(ns)
	lstopo-no-graphics --whole-io >/dev/null 2>&1 || true; t2=$(ns)
	echo "$((t1 - t0)) $((t2 - t1))" >>"$tmp/times"
	i=$((i + 1))
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p=$(cut -d' ' -f1 "$tmp/times" | median)
l=$(cut -d' ' -f2 "$tmp/times" | median)
r=$(awk '{ printf "%.6f\n", $1 / $2 }' "$tmp/times" | median)
awk -v p="$p" -v l="$l" -v r="$r" -v n="$n" 'BEGIN {
	printf "runs: %d each, alternating\n", n
	printf "nodeaudit probe:               median %.1f ms\n", p / 1e6
	printf "lstopo-no-graphics --whole-io: median %.1f ms\n", l / 1e6
	printf "median ratio probe/lstopo:     %.2f\n", r }'
