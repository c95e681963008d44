#!/bin/sh
# report-fleet.sh - time `nodeaudit report` over a generated fleet of check reports.
#   sh bench/report-fleet.sh [NODEAUDIT [COUNT...]]
# For each COUNT (default 1000 10000 50000, to show that the cost grows
# linearly) writes COUNT `check --format json`-shaped reports with varying
# figures and findings into a temporary directory, then times
# `nodeaudit report DIR --format json` (with outliers) and
# `nodeaudit report DIR --format html`, and prints the seconds, the peak
# resident set size and the size of the page.  Targets: 10,000 reports in
# under 2 s on 2 cores (JSON) and a page under 15 MB in under 3 s.
# A benchmark, not a test: it prints figures and never fails on them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# The binary: $NODEAUDIT, else build/src/nodeaudit (the README's build), else src/nodeaudit.
def=$top/build/src/nodeaudit
[ -x "$def" ] || def=$top/src/nodeaudit
bin=${1:-${NODEAUDIT:-$def}}
[ $# -gt 0 ] && shift
counts=${*:-1000 10000 50000}
[ -x "$bin" ] || { echo "report-fleet.sh: '$bin' is not an executable; build first" >&2; exit 1; }
dir=
trap 'rm -rf "$dir" "$dir.out.json" "$dir.html" "$dir.time"' EXIT INT TERM

# timed FORMAT OUT: one run; prints wall clock, CPU seconds, peak RSS
timed() {
	rc=0
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$bin" -q report "$dir" --format "$1" -o "$2" 2>"$dir.time" || rc=$?
		secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir.time")
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir.time")
		user=$(sed -n 's/.*User time (seconds): //p' "$dir.time")
		sys=$(sed -n 's/.*System time (seconds): //p' "$dir.time")
		# On a shared machine the CPU time is the steadier figure.
		echo "  $1: exit $rc, wall clock (m:ss) $secs, cpu user $user + system $sys s, peak RSS $rss KiB"
	else
		start=$(date +%s.%N)
		"$bin" -q report "$dir" --format "$1" -o "$2" || rc=$?
		end=$(date +%s.%N)
		echo "  $1: exit $rc, seconds $(awk "BEGIN{print $end - $start}")"
	fi
}

for count in $counts; do
dir=$(mktemp -d "${TMPDIR:-/tmp}/nodeaudit-fleet.XXXXXX")

# One awk process writes every file: a realistic report (about 8 KiB, 30
# findings, facts with DIMM-derived figures, 0-4 accelerators).
awk -v n="$count" -v dir="$dir" 'BEGIN {
	srand(42)
	split("pass pass pass pass pass pass pass warn fail unknown skip", st, " ")
	split("16 32 48 64 96 128", cores, " ")
	split("4 6 8 8 12 12 12", chans, " ")
	split("4800 5600 6400", mts, " ")
	for (i = 1; i <= n; i++) {
		f = sprintf("%s/rack%02d/node-%05d.json", dir, i % 40, i)
		if (i <= 40) system("mkdir -p " dir "/rack" sprintf("%02d", i % 40))
		c = cores[int(rand() * 6) + 1]; ch = chans[int(rand() * 7) + 1]; sp = mts[int(rand() * 3) + 1]
		theo = ch * sp * 8 * 1000000
		printf "{ \"schema\": \"nodeaudit.report/1\",\n  \"tool\": {\"name\": \"nodeaudit\", \"version\": \"0.1.0\"},\n" > f
		printf "  \"host\": {\"hostname\": \"node-%05d\", \"kernel\": \"6.1.0-18-amd64\", \"arch\": \"x86_64\", \"virtualized\": false, \"sysroot\": null, \"collected_at\": \"2026-11-29T20:00:00Z\", \"root\": true},\n", i > f
		printf "  \"profile\": {\"name\": \"agent-cpu-inference\", \"chain\": [\"base\", \"agent-cpu-inference\"]},\n" > f
		printf "  \"facts\": {\"cpu\": {\"packages\": %d, \"cores\": %d, \"threads\": %d, \"smt\": {\"active\": true, \"threads_per_core\": 2, \"control\": \"on\"}, \"isa\": [\"avx2\", \"avx512f\", \"avx512_vnni\", \"amx_tile\"], \"kinds\": [{\"name\": \"performance\", \"cpus\": \"0-%d\", \"cores\": %d, \"threads\": %d, \"max_mhz\": 3800, \"base_mhz\": 2000}]},\n", (c > 64 ? 2 : 1), c, 2 * c, 2 * c - 1, c, 2 * c > f
		printf "    \"numa\": {\"node_count\": 2, \"nodes\": [{\"id\": 0, \"cpus\": \"0-%d\", \"memory_bytes\": 270000000000, \"distances\": [10, 21]}, {\"id\": 1, \"cpus\": \"%d-%d\", \"memory_bytes\": 270000000000, \"distances\": [21, 10]}]},\n", c - 1, c, 2 * c - 1 > f
		printf "    \"memory\": {\"total_bytes\": 540000000000, \"dimms\": [" > f
		for (d = 0; d < ch; d++)
			printf "%s{\"locator\": \"DIMM_%c1\", \"bank\": \"P0_Node0_Channel%c\", \"size_bytes\": 68719476736, \"type\": \"DDR5\", \"speed_mts\": %d, \"configured_speed_mts\": %d, \"rank\": 2, \"ecc\": true, \"channel\": %d, \"package\": 0}", d ? ", " : "", 65 + d, 65 + d, sp, sp, d > f
		printf "],\n      \"channels\": {\"total\": 12, \"populated\": %d, \"balanced\": true}, \"ecc\": {\"mode\": \"multi-bit\", \"source\": \"smbios\", \"corrected_errors\": 0, \"uncorrected_errors\": 0}, \"speed\": {\"rated_mts\": %d, \"configured_mts\": %d}, \"bandwidth\": {\"theoretical_bytes_per_s\": %.0f}},\n", ch, sp, sp, theo > f
		na = int(rand() * 5)
		printf "    \"pci\": {\"accelerators\": [" > f
		for (a = 0; a < na; a++) {
			w = rand() < 0.9 ? 16 : 8
			printf "%s{\"bdf\": \"0000:%02x:00.0\", \"vendor_id\": \"0x10de\", \"device_id\": \"0x2330\", \"numa_node\": %d, \"link\": {\"width\": {\"current\": %d, \"max\": 16}, \"speed_gts\": {\"current\": 32.0, \"max\": 32.0}}}", a ? ", " : "", 16 + a * 32, a % 2, w > f
		}
		printf "], \"nics\": []},\n" > f
		printf "    \"kernel\": {\"sysctl\": {\"vm.swappiness\": \"60\", \"net.core.rmem_max\": \"212992\"}, \"thp\": {\"enabled\": \"madvise\", \"defrag\": \"madvise\"}, \"governor\": \"performance\", \"numa_balancing\": \"on\"},\n" > f
		printf "    \"bench\": {\"bandwidth\": {\"bytes_per_s\": %.0f}}},\n", theo * (0.6 + rand() * 0.3) > f
		printf "  \"gaps\": [],\n  \"findings\": [\n" > f
		np = nw = nf = nu = ns = 0
		for (k = 0; k < 30; k++) {
			s = st[int(rand() * 11) + 1]
			if (s == "pass") np++; else if (s == "warn") nw++; else if (s == "fail") nf++; else if (s == "unknown") nu++; else ns++
			printf "    {\"id\": \"area%d.check%02d\", \"status\": \"%s\", \"severity\": \"warn\", \"title\": \"check %d of node %d\", \"observed\": \"x\", \"expected\": \"y\", \"evidence\": [\"/sys/devices/system/cpu/smt/active\"], \"fix\": [{\"kind\": \"runtime\", \"command\": \"true\"}]}%s\n", k % 6, k, s, k, i, (k < 29 ? "," : "") > f
		}
		printf "  ],\n  \"summary\": {\"pass\": %d, \"warn\": %d, \"fail\": %d, \"unknown\": %d, \"skip\": %d, \"exit\": %d} }\n", np, nw, nf, nu, ns, (nf ? 2 : nw ? 1 : 0) > f
		close(f)
	}
}'
bytes=$(du -sk "$dir" | cut -f1)
echo "reports: $count ($bytes KiB)"
# Warm the page cache so that the figure is the parse and aggregation, not the disk.
find "$dir" -name "*.json" -exec cat {} + >/dev/null
timed json "$dir.out.json"
timed html "$dir.html"
echo "  html page: $(wc -c <"$dir.html") bytes"
sed -n 's/^\t"nodes":\t{/  nodes:/p; s/^\t\t"count":\t\([0-9]*\),$/  count \1/p' "$dir.out.json" | head -2
rm -rf "$dir" "$dir.out.json" "$dir.html" "$dir.time"
done
