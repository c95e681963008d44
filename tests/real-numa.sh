#!/bin/sh
# real-numa.sh - NUMA facts of the real-machine captures (HACKING,
# "Real-machine captures") against the figures of their projects' expected
# outputs (node count, CPUs per node, and distances where those give them).
# Skips without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real/sysfs
[ -d "$real" ] || { echo "SKIP: $real absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/real-numa.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0 skip=0

# want NAME SYSROOT EXPECTED-JSON: the probe's JSON contains EXPECTED.
want() {
	n=$((n + 1))
	if [ ! -e "$2" ]; then echo "ok $n - $1 # SKIP capture absent"; skip=$((skip + 1)); return; fi
	printf '%s\n' "$3" >"$tmp/exp.json"
	if "$NODEAUDIT" --sysroot "$2" probe --only numa --format json >"$tmp/out.json" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/exp.json" "$tmp/out.json" >"$tmp/diff"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/diff" "$tmp/err"; fail=$((fail + 1))
	fi
}
# mem NAME SYSROOT "8190MiB 8192MiB ...": each node's memory_bytes, in the
# unit hwloc's .console prints (rounded to nearest, as lstopo does).
mem() {
	n=$((n + 1))
	if [ ! -e "$2" ]; then echo "ok $n - $1 # SKIP capture absent"; skip=$((skip + 1)); return; fi
	got=$("$NODEAUDIT" --sysroot "$2" probe --only numa --format json 2>/dev/null |
		sed -n 's/^[[:space:]]*"memory_bytes":[[:space:]]*\([0-9]*\).*/\1/p' |
		awk -v want="$3" 'BEGIN { split(want, w, " ") }
			{ i++; v = w[i]; u = v; sub(/[0-9]+/, "", u); v += 0
			  d = u == "GiB" ? 1073741824 : u == "MiB" ? 1048576 : 1024
			  printf "%s%d%s", (i > 1 ? " " : ""), int($1 / d + 0.5), u }')
	if [ "$got" = "$3" ]; then echo "ok $n - $1"
	else echo "not ok $n - $1: got '$got', want '$3'"; fail=$((fail + 1)); fi
}
node() { # node ID CPUS COUNT: one expected node
	printf '{"id": %s, "cpus": "%s", "cpu_count": %s}' "$1" "$2" "$3"; }

# Tyan S4881: 8 nodes of one dual-core Opteron each, 10 local / 20 remote.
nodes="" i=0
while [ $i -lt 8 ]; do
	d="" j=0
	while [ $j -lt 8 ]; do [ $j -eq $i ] && d="$d${d:+, }10" || d="$d${d:+, }20"; j=$((j + 1)); done
	nodes="$nodes${nodes:+, }{\"id\": $i, \"cpus\": \"$((2 * i))-$((2 * i + 1))\", \"cpu_count\": 2, \"distances\": [$d]}"
	i=$((i + 1))
done
want "16amd64-8n2c: 8 nodes, 2 CPUs each, 10/20" "$real/hwloc__16amd64-8n2c/16amd64-8n2c.tar.bz2" \
	"{\"numa\": {\"node_count\": 8, \"nodes\": [$nodes], \"cpuless_nodes\": []}, \"conflicts\": []}"

mem "16amd64-8n2c: memory per node" "$real/hwloc__16amd64-8n2c/16amd64-8n2c.tar.bz2" \
	"8190MiB 8192MiB 8192MiB 8192MiB 8192MiB 8192MiB 8192MiB 8192MiB"
mem "16em64t-4s2c2t: memory" "$real/hwloc__16em64t-4s2c2t/16em64t-4s2c2t.tar.bz2" "16GiB"
mem "2arm-2c: memory from /proc/meminfo" "$real/hwloc__2arm-2c/2arm-2c.tar.bz2" "274MiB"
mem "8em64t-2s2ca2c: memory" "$real/hwloc__8em64t-2s2ca2c/8em64t-2s2ca2c.tar.bz2" "16GiB"

want "16em64t-4s2c2t: UMA, 16 CPUs" "$real/hwloc__16em64t-4s2c2t/16em64t-4s2c2t.tar.bz2" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-15 16)]}, \"conflicts\": []}"

# No node directory at all: one node.
want "2arm-2c: no node directory, 1 node" "$real/hwloc__2arm-2c/2arm-2c.tar.bz2" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-1 2)]}, \"conflicts\": []}"

# 2 sockets of 8 cores (HT off), one node each, SLIT 10/21.
want "32em64t-2n8c: 2 nodes of 8 CPUs, 10/21" \
	"$real/hwloc__32em64t-2n8c+dax+nvme+mic+dimms/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2" \
	'{"numa": {"node_count": 2, "nodes": [{"id": 0, "cpu_count": 8, "memory_bytes": 17149054976, "distances": [10, 21]},
	 {"id": 1, "cpu_count": 8, "memory_bytes": 17179869184, "distances": [21, 10]}], "cpuless_nodes": []}, "conflicts": []}'

want "8em64t-2s2ca2c: UMA, 8 CPUs" "$real/hwloc__8em64t-2s2ca2c/8em64t-2s2ca2c.tar.bz2" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-7 8)]}, \"conflicts\": []}"

# The Lakefield sysroot is <dir>/fsroot inside the tarball.
lk=$real/hwloc__5intel64-hybrid-lakefield/5intel64-hybrid-lakefield.tar.bz2
if [ -e "$lk" ]; then mkdir "$tmp/lk" && tar -xf "$lk" -C "$tmp/lk"; fi
want "lakefield: 1 node, 5 CPUs" "$(ls -d "$tmp"/lk/*/fsroot 2>/dev/null || echo "$tmp/none")" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-4 5)]}, \"conflicts\": []}"

mem "lakefield: memory" "$(ls -d "$tmp"/lk/*/fsroot 2>/dev/null || echo "$tmp/none")" "3767MiB"
mem "i7-1270P: memory" "$real/ghw__linux-amd64-intel-i7-1270P/linux-amd64-intel-i7-1270P.tar.gz" "32542668KB"

# cpumap only, sparse ids 0, 2, 3 (lscpu: node0 0-62:2, node2 1-61:4, node3 3-63:4).
even="" odd1="" odd3="" c=0
while [ $c -lt 64 ]; do
	case $((c % 4)) in
	0|2) even="$even${even:+,}$c" ;;
	1) odd1="$odd1${odd1:+,}$c" ;;
	3) odd3="$odd3${odd3:+,}$c" ;;
	esac
	c=$((c + 1))
done
want "x86_64-64cpu: sparse nodes 0,2,3 from cpumap" "$real/util-linux__x86_64-64cpu/x86_64-64cpu.tar.gz" \
	"{\"numa\": {\"node_count\": 3, \"nodes\": [$(node 0 "$even" 32), $(node 2 "$odd1" 16), $(node 3 "$odd3" 16)], \"cpuless_nodes\": []}}"

want "dell_e4310: 1 node, 4 CPUs" "$real/util-linux__x86_64-dell_e4310/x86_64-dell_e4310.tar.gz" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-3 4)]}}"
want "ghw ryzen-1600: 1 node, 12 CPUs" "$real/ghw__linux-amd64-amd-ryzen-1600/linux-amd64-amd-ryzen-1600.tar.gz" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-11 12)]}, \"conflicts\": []}"
want "ghw i7-1270P: 1 node, 16 CPUs" "$real/ghw__linux-amd64-intel-i7-1270P/linux-amd64-intel-i7-1270P.tar.gz" \
	"{\"numa\": {\"node_count\": 1, \"nodes\": [$(node 0 0-15 16)]}, \"conflicts\": []}"

echo "1..$n"
echo "# real NUMA: $((n - fail - skip)) passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
