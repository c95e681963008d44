#!/bin/sh
# membw-vs-likwid.sh - nodeaudit bench against likwid-bench's best load kernel, same
# buffer size, for each thread count; the two run alternately (the order swaps every
# round) and the median ratio nodeaudit / likwid is printed per thread count.
#   bench/membw-vs-likwid.sh [SIZE_MIB] [THREAD_COUNTS] [ROUNDS]
#   defaults: 1024 "1 2" 5.  DD=1 adds a dd-from-/dev/zero copy figure to each round.
# The best load kernel is picked per thread count by one run of every load kernel the
# CPU has (load, load_sse, load_avx, load_avx512, load_mem).
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
		v=$(lw "$k" "$t")
		[ -n "$v" ] || continue
		echo "threads $t: likwid $k $(echo "$v" | awk '{ printf "%.1f", $1 / 1e3 }') GB/s"
		if awk "BEGIN { exit !($v > $bestv) }"; then best=$k bestv=$v; fi
	done
	[ -n "$best" ] || { echo "likwid-bench gave no figure" >&2; exit 1; }
	ratios="" i=0
	while [ $i -lt "$rounds" ]; do
		if [ $((i % 2)) -eq 0 ]; then
			l=$(lw "$best" "$t"); set -- $(na "$t")
		else
			set -- $(na "$t"); l=$(lw "$best" "$t")
		fi
		n=$1 rel=${2:-?}
		r=$(echo "$n $l" | awk '{ printf "%.3f", $1 / ($2 * 1e6) }')
		extra=""
		[ "${DD:-0}" = 1 ] && extra="; dd $(dd if=/dev/zero of=/dev/null bs="${size}M" count=4 2>&1 |
			sed -n 's/.*, \([0-9.]* [GM]B\/s\)$/\1/p')"
		echo "threads $t round $((i + 1)): nodeaudit $(echo "$n" | awk '{ printf "%.1f", $1 / 1e9 }') GB/s" \
		     "(reliable: $rel), likwid $best $(echo "$l" | awk '{ printf "%.1f", $1 / 1e3 }') GB/s," \
		     "ratio $r$extra"
		ratios="$ratios $r"
		i=$((i + 1))
	done
	m=$(echo "$ratios" | median)
	echo "threads $t: median ratio nodeaudit / likwid $best: $m ($rounds rounds)"
	summary="$summary
threads $t: median ratio $m against $best ($rounds rounds, ${size} MiB)"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)$summary"
