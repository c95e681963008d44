#!/bin/sh
# membw-vs-likwid.sh - nodeaudit bench against likwid-bench's best load kernel, same
# buffer size, for each thread count: each round runs likwid, nodeaudit, likwid, and
# compares nodeaudit with the mean of the two likwid runs around it (the host's
# bandwidth drifts between runs seconds apart); the median ratio nodeaudit / likwid
# is printed per thread count, with how many rounds fell under 1.0 and how much each
# tool's own figure moved from run to run.
#   bench/membw-vs-likwid.sh [SIZE_MIB] [THREAD_COUNTS] [ROUNDS]
#   defaults: 1024 "1 2" 5.  DD=1 adds a dd-from-/dev/zero copy figure to each round.
# The best load kernel is picked per thread count by the better of two runs of every
# load kernel the CPU has (load, load_sse, load_avx, load_avx512, load_mem).
# Not a test: numbers depend on the machine and its load (printed at start and end).
# shellcheck disable=SC2046  # na prints two words on purpose
set -eu
size=${1:-1024} counts=${2:-"1 2"} rounds=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
# The binary: $NODEAUDIT, else build/src/nodeaudit (the README's build), else src/nodeaudit.
def=$top/build/src/nodeaudit
[ -x "$def" ] || def=$top/src/nodeaudit
NODEAUDIT=${NODEAUDIT:-$def}
command -v likwid-bench >/dev/null || { echo "likwid-bench not found (Debian: apt-get install likwid)" >&2; exit 77; }
kernels="load load_sse"
grep -qw avx /proc/cpuinfo && kernels="$kernels load_avx"
grep -qw avx512f /proc/cpuinfo && kernels="$kernels load_avx512"
kernels="$kernels load_mem"

lw() { # lw KERNEL THREADS -> MByte/s
	likwid-bench -t "$1" -W "N:${size}MB:$2" 2>/dev/null | sed -n 's/^MByte\/s:[[:space:]]*//p'
}
na() { # na THREADS -> bytes/s, then "reliable" (true/false/null)
	"$NODEAUDIT" bench --size "${size}M" --threads "$1" --seconds 3 --format json >"$tmp"
	sed -n 's/^\t\t\t"bytes_per_s":[[:space:]]*\([0-9.e+]*\),*$/\1/p' "$tmp" | head -n 1
	sed -n 's/^\t\t\t"reliable":[[:space:]]*\([a-z]*\),*$/\1/p' "$tmp" | head -n 1
}
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END {
	printf "%.3f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

tmp=$(mktemp "${TMPDIR:-/tmp}/membw-vs-likwid.XXXXXX")
trap 'rm -f "$tmp"' EXIT
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
summary=""
for t in $counts; do
	best="" bestv=0
	for k in $kernels; do
		# Twice each, the better kept: one run picks the luckiest kernel.
		v=$(lw "$k" "$t"); v2=$(lw "$k" "$t")
		[ -n "$v" ] || continue
		[ -n "$v2" ] && awk "BEGIN { exit !($v2 > $v) }" && v=$v2
		echo "threads $t: likwid $k $(echo "$v" | awk '{ printf "%.1f", $1 / 1e3 }') GB/s"
		if awk "BEGIN { exit !($v > $bestv) }"; then best=$k bestv=$v; fi
	done
	[ -n "$best" ] || { echo "likwid-bench gave no figure" >&2; exit 1; }
	ratios="" i=0 below=0 nas="" lws=""
	while [ $i -lt "$rounds" ]; do
		# likwid before and after nodeaudit: their mean is the reference at
		# nodeaudit's moment, whichever way the host's bandwidth drifts.
		l1=$(lw "$best" "$t"); set -- $(na "$t"); l2=$(lw "$best" "$t")
		n=$1 rel=${2:-?}
		l=$(echo "$l1 $l2" | awk '{ printf "%.1f", ($1 + $2) / 2 }')
		r=$(echo "$n $l" | awk '{ printf "%.3f", $1 / ($2 * 1e6) }')
		extra=""
		[ "${DD:-0}" = 1 ] && extra="; dd $(dd if=/dev/zero of=/dev/null bs="${size}M" count=4 2>&1 |
			sed -n 's/.*, \([0-9.]* [GM]B\/s\)$/\1/p')"
		echo "threads $t round $((i + 1)): nodeaudit $(echo "$n" | awk '{ printf "%.1f", $1 / 1e9 }') GB/s" \
		     "(reliable: $rel), likwid $best $(echo "$l1 $l2" | awk '{ printf "%.1f and %.1f", $1 / 1e3, $2 / 1e3 }') GB/s," \
		     "ratio $r$extra"
		ratios="$ratios $r"
		nas="$nas $(echo "$n" | awk '{ printf "%.0f", $1 / 1e6 }')"
		lws="$lws $l1 $l2"
		awk "BEGIN { exit !($r < 1.0) }" && below=$((below + 1))
		i=$((i + 1))
	done
	m=$(echo "$ratios" | median)
	# How much each tool's own figure moves from run to run (max / min - 1).
	sn=$(echo "$nas" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f", (hi / lo - 1) * 100 }')
	sl=$(echo "$lws" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f", (hi / lo - 1) * 100 }')
	echo "threads $t: median ratio nodeaudit / likwid $best: $m ($rounds rounds, $below under 1.0);" \
	     "run to run, nodeaudit moves ${sn}%, likwid ${sl}%"
	summary="$summary
threads $t: median ratio $m against $best ($rounds rounds, ${size} MiB, $below under 1.0; spread nodeaudit ${sn}%, likwid ${sl}%)"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)$summary"
