#!/bin/sh
# membw-vs-likwid.sh - nodeaudit bench against likwid-bench's best load kernel and a
# memcpy-like reference (dd from /dev/zero), same thread count and buffer size, run
# alternately; prints each pair and the median ratio nodeaudit / likwid.
#   bench/membw-vs-likwid.sh [SIZE_MIB] [THREADS] [ROUNDS]
# Not a test: numbers depend on the machine and its load.
set -eu
size=${1:-512} threads=${2:-$(nproc)} rounds=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
# The binary: $NODEAUDIT, else build/src/nodeaudit (the README's build), else src/nodeaudit.
def=$top/build/src/nodeaudit
[ -x "$def" ] || def=$top/src/nodeaudit
NODEAUDIT=${NODEAUDIT:-$def}
command -v likwid-bench >/dev/null || { echo "likwid-bench not found (Debian: apt-get install likwid)" >&2; exit 77; }
kernel=load_sse
grep -q avx2 /proc/cpuinfo && kernel=load_avx
grep -q avx512f /proc/cpuinfo && kernel=load_avx512
ratios=""
i=0
while [ $i -lt "$rounds" ]; do
	l=$(likwid-bench -t $kernel -W "N:${size}MB:$threads" 2>/dev/null | sed -n 's/^MByte\/s:[[:space:]]*//p')
	n=$("$NODEAUDIT" bench --size "${size}M" --threads "$threads" --seconds 3 --format json |
		sed -n 's/^\t\t\t"bytes_per_s":[[:space:]]*\([0-9.e+]*\),*$/\1/p' | head -n 1)
	d=$(dd if=/dev/zero of=/dev/null bs="${size}M" count=8 2>&1 | sed -n 's/.*, \([0-9.]* [GM]B\/s\)$/\1/p')
	r=$(echo "$n $l" | awk '{ printf "%.3f", $1 / ($2 * 1e6) }')
	echo "round $((i + 1)): nodeaudit $(echo "$n" | awk '{ printf "%.1f", $1 / 1e9 }') GB/s," \
	     "likwid $kernel $(echo "$l" | awk '{ printf "%.1f", $1 / 1e3 }') GB/s, ratio $r; dd $d"
	ratios="$ratios $r"
	i=$((i + 1))
done
echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END {
	m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
	printf "median ratio nodeaudit / likwid: %.3f (%d rounds)\n", m, NR }'
