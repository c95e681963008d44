#!/bin/sh
# report.sh - `nodeaudit report` on hand-made check reports (tests/fixtures/report).
# Every expected figure below was worked out by hand from the five node files
# (see tests/expected/report-fleet.json), not pasted from the tool's output.
# Lines are matched whole: wide enough that none wraps (the layout is tested in text-width.sh).
COLUMNS=1000; export COLUMNS
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
fix=$(cd "$top_srcdir/tests/fixtures" && pwd)
exp=$(cd "$top_srcdir/tests/expected" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
# run WANT_EXIT ARGS...: nodeaudit from the fixtures directory, output in $tmp/out, $tmp/err
run() {
	want=$1; shift
	(cd "$fix" && "$NODEAUDIT" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "report $* exits $want"
	else nok "report $* exits $rc, want $want"; sed 's/^/# /' "$tmp/err"; fi
}
has() { if grep -qF -- "$1" "$tmp/out"; then ok "output has '$1'"; else nok "output lacks '$1'"; fi; }
has_err() { if grep -qF -- "$1" "$tmp/err"; then ok "stderr has '$1'"; else nok "stderr lacks '$1'"; sed 's/^/# /' "$tmp/err"; fi; }
err_lines() {
	l=$(wc -l <"$tmp/err")
	if [ "$l" -eq "$1" ]; then ok "stderr has $1 lines"; else nok "stderr has $l lines, want $1"; fi
}
subset() { # subset EXPECTED_FILE
	if "$JSUBSET" "$1" "$tmp/out" >"$tmp/js" 2>&1; then ok "json matches $(basename "$1")"
	else nok "json does not match $(basename "$1")"; sed 's/^/# /' "$tmp/js"; fi
}

## The fleet in JSON: 5 usable nodes, 3 bad files named and skipped; the
## nodes were checked against two profiles, which is said.
run 2 report report --format json
subset "$exp/report-fleet.json"
err_lines 4
has_err "warning: the reports were checked against 2 different profiles ('agent-cpu-inference', 'agent-accelerator-host'); their findings do not compare"
has_err "skipping 'report/bad/garbled.json': not JSON (syntax error at line 11, column 14)"
has_err "skipping 'report/bad/wrong-schema.json': schema is 'nodeaudit.probe/1', not 'nodeaudit.report/1'"
has_err "skipping 'report/bad/bad-status.json': 'findings[1].status' is 'passed', not pass, warn, fail, unknown, skip or info"

## Text.
run 2 report report
has "Fleet: 5 nodes from 8 files (3 skipped)"
has "exit                   2 (critical)"
has "ok 1, warning 2, critical 2, unknown 0"
has "profiles               MIXED: agent-cpu-inference (2 nodes), agent-accelerator-host (3 nodes)"
has "memory.ecc                             2     0     2     1     0     0  node-c, node-d"
has "cpu.smt                                3     2     0     0     0     0"
has "node-c                   fail 2, warn 1, unknown 0, exit 2  report/b/node-c.json"
has "min 120.0 GB/s, median 180.0 GB/s, max 250.0 GB/s (3 values, 2 unknown)"
has "min 4, median 7, max 8 (4 values, 1 unknown)"
has "4: 1, 6: 1, 8: 2"
has "min 153.6 GB/s, median 268.8 GB/s, max 307.2 GB/s (4 values, 1 unknown)"
has "153.6 GB/s: 1, 230.4 GB/s: 1, 307.2 GB/s: 2"
has "min 16, median 32, max 64 (5 values, 0 unknown)"
has "16: 1, 32: 2, 64: 2"
if grep -q ' $' "$tmp/out"; then nok "text has trailing blanks"; else ok "text has no trailing blanks"; fi

## CSV: one row per node in file order, CRLF line ends (RFC 4180).  The last
## column names the facts where the node differs from the fleet's most common
## value (ties go to the smaller value in byte order), worked out by hand:
## packages 1 (a b e) against 2 (c d); cores 32 (a b) ties 64 (c d), so 32,
## and e's 16 differs too; SMT only a (false) and b (true): false; channels
## populated 8 (a b); kernel amd64 but e; accelerators 1 (b d); the link
## multisets tie one each ("1 at x16" first) and d's unknown link is not
## compared; bandwidth median 180 GB/s: a (250) and e (120) are over 10% off.
run 2 report report --format csv
cat >"$tmp/want.csv" <<'CSV'
hostname,file,exit,pass,warn,fail,unknown,skip,info,cpu_cores,memory_channels_populated,memory_channels_total,memory_theoretical_bytes_per_s,bench_bytes_per_s,accelerators,accelerator_link_width_min,accelerators_narrow_link,outliers
node-a,report/a/node-a.json,0,4,0,0,0,0,0,32,8,8,307200000000,250000000000,0,,0,bench.bandwidth.bytes_per_s=250000000000;pci.accelerators=0;pci.accelerators[].link.speed_gts.current=none;pci.accelerators[].link.width.current=none
node-b,report/a/node-b.json,1,3,1,0,0,0,0,32,8,8,307200000000,,1,16,0,cpu.smt.active=true
node-c,report/b/node-c.json,2,1,1,2,0,0,0,64,6,8,230400000000,180000000000,2,8,1,"cpu.cores=64;cpu.packages=2;memory.channels.populated=6;pci.accelerators=2;pci.accelerators[].link.speed_gts.current=2 at 16 GT/s;pci.accelerators[].link.width.current=1 at x16, 1 at x8"
node-d,report/b/node-d.json,2,2,0,1,1,0,0,64,,,,,1,,0,cpu.cores=64;cpu.packages=2
node-e,report/node-e.json,1,1,1,0,1,1,0,16,4,8,153600000000,120000000000,,,,bench.bandwidth.bytes_per_s=120000000000;cpu.cores=16;host.kernel=6.1.0-18-arm64;memory.channels.populated=4
CSV
tr -d '\r' <"$tmp/out" >"$tmp/got.csv"
if cmp -s "$tmp/want.csv" "$tmp/got.csv"; then ok "csv rows"; else nok "csv rows"; diff "$tmp/want.csv" "$tmp/got.csv" | sed 's/^/# /'; fi
if [ "$(tr -cd '\r' <"$tmp/out" | wc -c)" -eq 6 ]; then ok "csv lines end in CRLF"; else nok "csv lines do not end in CRLF"; fi

## CSV quoting: a comma and quotes in a host name.
mkdir -p "$tmp/q"
sed 's/"hostname": "node-a"/"hostname": "odd,\\"name\\""/' "$fix/report/a/node-a.json" >"$tmp/q/odd.json"
run 0 report "$tmp/q/odd.json" --format csv
if grep -qF '"odd,""name""",' "$tmp/out"; then ok "csv quotes a field with , and \""; else nok "csv quoting"; sed 's/^/# /' "$tmp/out"; fi

## CSV: a cell a spreadsheet would run as a formula stays text (a leading ').
for h in '=HYPERLINK(1)' '+1' '-2' '@SUM(A1)'; do
	sed "s|\"hostname\": \"node-a\"|\"hostname\": \"$h\"|" "$fix/report/a/node-a.json" >"$tmp/q/odd.json"
	run 0 report "$tmp/q/odd.json" --format csv
	if sed -n 2p "$tmp/out" | grep -q "^\"'[-=+@]"; then ok "csv neutralises a hostname starting with ${h%"${h#?}"}"
	else nok "csv formula ${h%"${h#?}"}"; sed 's/^/# /' "$tmp/out"; fi
done

## -q: the skipped files are not named on stderr (the JSON still names them).
run 2 report report --format json -q
err_lines 0
has '"skipped":	3'

## A status "info" (check writes it for advisory findings) is a usable report;
## kernel.sysctl findings count one row per key, nodes not keys.
sed -e 's/"status": "pass", "severity": "warn", "title": "governor is performance"/"status": "info", "severity": "info", "title": "governor is performance"/' \
    -e 's/"findings": \[/"findings": [{"id": "kernel.sysctl", "key": "vm.swappiness", "status": "warn"}, {"id": "kernel.sysctl", "key": "fs.file-max", "status": "pass"},/' \
    "$fix/report/a/node-a.json" >"$tmp/q/info.json"
sed 's/"vm.swappiness", "status": "warn"/"vm.swappiness", "status": "pass"/; s/"node-a"/"node-z"/' "$tmp/q/info.json" >"$tmp/q/info2.json"
run 0 report "$tmp/q/info.json" "$tmp/q/info2.json"
has "cpu.governor                           0     0     0     0     0     2"
has "kernel.sysctl vm.swappiness            1     1     0     0     0     0"
has "kernel.sysctl fs.file-max              2     0     0     0     0     0"
rm -f "$tmp/q/odd.json" "$tmp/q/info.json" "$tmp/q/info2.json"

## Two sysctl names alike for their first 200 bytes stay two facts: node-c
## differs from the fleet in the second alone (before, both were cut to one
## name of 160 bytes, and no node was an outlier).
long=$(printf 'net.ipv4.conf.%0200d' 0 | tr 0 p)
for nv in a:2 b:2 c:3; do
	sed -e "s/\"findings\": \[/\"findings\": [{\"id\": \"kernel.sysctl\", \"key\": \"$long.x\", \"status\": \"pass\", \"observed\": \"1\"}, {\"id\": \"kernel.sysctl\", \"key\": \"$long.y\", \"status\": \"pass\", \"observed\": \"${nv#*:}\"},/" \
	    -e "s/\"node-a\"/\"node-${nv%%:*}\"/" "$fix/report/a/node-a.json" >"$tmp/q/long-${nv%%:*}.json"
done
run 0 report "$tmp/q/long-a.json" "$tmp/q/long-b.json" "$tmp/q/long-c.json" --format csv
if tr -d '\r' <"$tmp/out" | grep -q "^node-c,.*,kernel.sysctl.$long.y=3\$" &&
   ! tr -d '\r' <"$tmp/out" | grep -q "^node-[ab],.*kernel.sysctl"; then ok "two long sysctl names alike: node-c an outlier in the second, by its whole name"
else nok "long sysctl names in the fleet's uniform facts"; sed 's/^/# /' "$tmp/out" | cut -c1-200; fi
rm -f "$tmp/q"/long-*.json

## Exit status is the worst node's.
run 0 report report/a/node-a.json
has "(none: every node passed)"
run 1 report report/a/node-a.json report/a/node-b.json
run 2 report report/a report/b
sed 's/"exit": 0/"exit": 3/' "$fix/report/a/node-a.json" >"$tmp/q/unknown.json"
run 2 report "$tmp/q/unknown.json"
has "nodes by exit          ok 0, warning 0, critical 0, unknown 1"

## Nothing usable: exit 3, each file named, then one summary line.
run 3 report report/bad
err_lines 4
has_err "no usable report among 3 files"
run 3 report report/bad/README
has_err "skipping 'report/bad/README': not JSON"
run 3 report
err_lines 1
has_err "no report files or directories given"
run 3 report report --format yaml
err_lines 1
run 3 report report --top x
err_lines 1

## A missing file is named and skipped; the rest still count.
run 0 report report/a/node-a.json report/no-such.json
has_err "skipping 'report/no-such.json': No such file or directory"

## Schema types.
sed 's/"cores": 32/"cores": "32"/' "$fix/report/a/node-a.json" >"$tmp/q/t1.json"
sed 's/"summary"/"summery"/' "$fix/report/a/node-a.json" >"$tmp/q/t2.json"
sed 's/"memory": {"total_bytes"/"memory": 7, "x": {"total_bytes"/' "$fix/report/a/node-a.json" >"$tmp/q/t3.json"
sed 's/"exit": 0/"exit": 4/' "$fix/report/a/node-a.json" >"$tmp/q/t4.json"
sed 's/"current": 16/"current": -16/' "$fix/report/a/node-b.json" >"$tmp/q/t5.json"
echo '[1, 2]' >"$tmp/q/t6.json"
sed 's/"hostname": "node-a"/"hostname": "node\\u001b[2J"/' "$fix/report/a/node-a.json" >"$tmp/q/t8.json"
: >"$tmp/q/t7.json"
rm -f "$tmp/q/odd.json" "$tmp/q/unknown.json"
run 3 report "$tmp/q"
has_err "t1.json': 'facts.cpu.cores' is a string, not a number"
has_err "t2.json': no 'summary' key"
has_err "t3.json': 'facts.memory' is a number, not an object"
has_err "t4.json': 'summary.exit' is 4, not an integer from 0 to 3"
has_err "t5.json': 'facts.pci.accelerators[0].link.width.current' is -16, not a number >= 0"
has_err "t6.json': the report is an array, not an object"
has_err "t7.json': empty file"
has_err "t8.json': 'host.hostname' is not printable"
err_lines 9

## Failing nodes: the first five by file order, then a count; checks with equal
## counts are in ID order.
mkdir -p "$tmp/many"
for i in 1 2 3 4 5 6 7; do
	sed "s/\"node-c\"/\"c$i\"/" "$fix/report/b/node-c.json" >"$tmp/many/c$i.json"
done
run 2 report "$tmp/many" --top 1 --format json
cat >"$tmp/want.json" <<'JSON'
{"nodes": {"count": 7}, "checks": [
  {"id": "memory.channels.populated_ratio", "fail": 7, "failing_more": 2},
  {"id": "memory.ecc", "fail": 7, "failing_nodes": ["c1", "c2", "c3", "c4", "c5"], "failing_more": 2},
  {"id": "cpu.smt", "warn": 7, "failing_nodes": [], "warning_nodes": ["c1", "c2", "c3", "c4", "c5"], "warning_more": 2},
  {"id": "cpu.governor", "pass": 7}],
 "worst_nodes": [{"hostname": "c1"}],
 "spreads": {"pci.accelerators[].link.width.current": {"count": 14, "min": 8, "median": 12, "max": 16}}}
JSON
subset "$tmp/want.json"
run 2 report "$tmp/many"
has "c1, c2, c3, c4, c5 (+2 more)"
# The warning nodes are named as the failing ones are.
has "warn: c1, c2, c3, c4, c5 (+2 more)"
run 2 report "$tmp/many" --format html
has "warn: <a"

## The tool's own reports of captures without a hostname (host.hostname
## null, as the schema allows) are fleet members, named by their files.
mkdir -p "$tmp/own"
for c in cpu-2s-smt cpu-vm pci-8gpu-switches; do
	"$NODEAUDIT" check --sysroot "$fix/$c" --profile agent-cpu-inference --format json -o "$tmp/own/$c.json" 2>/dev/null
done
if grep -q '"hostname":[[:space:]]*null' "$tmp/own/cpu-vm.json"; then ok "cpu-vm's report has a null hostname"
else nok "cpu-vm's report has a hostname: the test below proves nothing"; fi
run 1 report "$tmp/own"
err_lines 0
has "Fleet: 3 nodes from 3 files"
has "cpu-vm                   fail 0, warn 0, unknown 12, exit 0  $tmp/own/cpu-vm.json"
has "gpu8                     fail 0, warn 0, unknown 14, exit 0"
run 1 report "$tmp/own" --format json
cat >"$tmp/want.json" <<'JSON'
{"nodes": {"count": 3}, "worst_nodes": [{"hostname": "cpu-2s-smt"}, {"hostname": "gpu8"}, {"hostname": "cpu-vm"}]}
JSON
subset "$tmp/want.json"

## CPU lists longer than 63 characters (two nodes of 32 interleaved CPUs
## each) are shown whole in text, JSON and HTML, not cut.
mkdir -p "$tmp/lists"
even=$(seq -s, 0 2 62) odd=$(seq -s, 1 2 63)
for i in 1 2 3; do
	python3 - "$fix/report/a/node-a.json" "$tmp/lists/n$i.json" "n$i" "$even" "$odd" "$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = sys.argv[3]
cpus = [sys.argv[4], sys.argv[5]] if sys.argv[6] != "3" else ["0-31", "32-63"]
d["facts"]["numa"] = {"nodes": [{"id": k, "cpus": c} for k, c in enumerate(cpus)]}
json.dump(d, open(sys.argv[2], "w"))
PY
done
run 0 report "$tmp/lists"
has "numa.nodes[].cpus: 1 of 3 nodes has 0-31 | 32-63 (fleet: $even | $odd): n3"
run 0 report "$tmp/lists" --format json
cat >"$tmp/want.json" <<JSON
{"outliers": {"facts": [{"fact": "numa.nodes[].cpus", "fleet": "$even | $odd",
  "values": [{"value": "0-31 | 32-63", "nodes": ["n3"]}]}]}}
JSON
subset "$tmp/want.json"
run 0 report "$tmp/lists" --format html
has "$even | $odd"

## The same host twice is counted twice, with a warning.
run 1 report report/a/node-b.json report/a/node-b.json
err_lines 1
has_err "warning: host 'node-b' has 2 reports ('report/a/node-b.json', 'report/a/node-b.json'); each is counted"
has "Fleet: 2 nodes from 2 files"

run 2 report report --top 0
has "(not listed: --top 0)"

## -o writes the file atomically.
run 2 report report -o "$tmp/fleet.json" --format json
if [ -s "$tmp/fleet.json" ] && [ ! -s "$tmp/out" ]; then ok "-o wrote the file"; else nok "-o"; fi

## Two profiles whose names share their first 150 bytes: two profiles, a
## node each, and the warning (the names were cut at 127 bytes, counted as
## one profile of two nodes, and the mix went unsaid).
pre=$(printf 'site-%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
for x in a b; do
	printf '{"name": "%s%s", "checks": {"kernel.sysctl": {"vm.swappiness": {"max": 100, "severity": "warn"}}}}\n' "$pre" "$x" >"$tmp/p$x.json"
	"$NODEAUDIT" --sysroot "$fix/numa-2node" check --profile "$tmp/p$x.json" --format json >"$tmp/r$x.json" 2>/dev/null
done
run 0 report "$tmp/ra.json" "$tmp/rb.json" --format json
subset_of() { if "$JSUBSET" "$1" "$tmp/out" >/dev/null 2>&1; then ok "$2"; else nok "$2"; fi; }
printf '{"profiles": [{"name": "%sa", "nodes": 1}, {"name": "%sb", "nodes": 1}], "profiles_mixed": true}\n' "$pre" "$pre" >"$tmp/want.json"
subset_of "$tmp/want.json" "two 151-byte profile names, whole: two profiles, mixed"
has_err "the reports were checked against 2 different profiles ('${pre}a', '${pre}b')"

## A host name of 21 four-byte characters in the HTML grid: clipped at 20
## characters with "...", whole in its <title>, the page valid UTF-8 (it was
## cut at 63 bytes, inside a character, with no "...").
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["host"]["hostname"] = "\U0001d400" * 21
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)' "$tmp/ra.json" "$tmp/rh.json"
run 0 report "$tmp/rh.json" "$tmp/rb.json" --format html
if python3 -c 'import sys; t = open(sys.argv[1], "rb").read().decode("utf-8"); a = "\U0001d400"
sys.exit(">%s...<title>%s</title>" % (a * 20, a * 21) not in t)' "$tmp/out" 2>/dev/null
then ok "a long UTF-8 host name: clipped whole characters and '...', whole in its title"
else nok "a long UTF-8 host name is cut inside a character in the HTML grid"; fi

echo "1..$n"
[ $fail -eq 0 ]
