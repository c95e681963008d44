#!/bin/sh
# hostile-numbers.sh - numbers out of range and dates past four digits, in
# the documents the tool reads, never become a wrapped value:
#   - a sweep document (plan --bench) whose node, knee_threads, cores, pus or
#     a point's threads is 2^31, 1e308, 1e999 (infinity), -1 or 1.5 is
#     refused: exit 3, one line naming the file and the key; the same in a
#     report's facts.bench (plan --report); a knee of null is no knee;
#   - a report whose memory.total_bytes is 1e300, -5 or 1.5 gives the
#     kubelet fragment the 1024Mi floor and a note naming the key (1% of
#     MemTotal, at least 1024Mi: 1 TiB gives 10486Mi);
#   - check --format nfd writes +expiry-time in RFC 3339 with a four-digit
#     year or writes no labels: audited in 9999-12-31 with 30 days of
#     validity, no labels; 9999-12-01, 9999-12-31; year 0000, 0000-01-31; a
#     one-digit year or a 29 February of a common year is no audit time;
#   - JUnit's timestamp only from an RFC 3339 time;
#   - check's outputs show NUMA ids, node counts and threads per core of
#     1e300 or 2^31 as unknown ("?", no prometheus node label), never as
#     2147483647;
#   - a snapshot's collected_at of year 10000, and a clock
#     (SOURCE_DATE_EPOCH) past 9999, give host.collected_at null and a gap;
#   - every number of a facts document and of a report replaced by 1e300,
#     -1e300, 2^31, -2^31-1, 1.5, 1e19 and 2^53+1, through check (text,
#     json, junit, prometheus, tap, nfd), plan (text, json, sh, sysctl,
#     systemd; plain, llama.cpp, vllm), report and diff: no sanitizer report.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-numbers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fx=$top_srcdir/tests/fixtures
facts=$fx/check-facts/good.json
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
san() { grep -Eq 'runtime error:|Sanitizer' "$@"; }

# refused LABEL FILE KEY CMD...: exit 3, one line naming 'FILE' and KEY.
refused() {
	label=$1 file=$2 key=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if san "$tmp/err"; then notok "$label: sanitizer report"
	elif [ $rc -ne 3 ]; then notok "$label: exit $rc"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then notok "$label: $(wc -l <"$tmp/err") lines on stderr"
	elif ! grep -Fq "'$file'" "$tmp/err" || ! grep -Fq "$key is " "$tmp/err"; then
		notok "$label: the message names not '$file' and $key: $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then notok "$label: output on stdout"
	else ok "$label"; fi
}

### Sweep documents ###
sweep() { # sweep FILE NODE KNEE CORES THREADS
	printf '{"schema":"nodeaudit.bench/1","bench":{"sweep":{"nodes":[{"node":0,"cores":7,"pus":7,"points":[{"threads":1,"bytes_per_s":1e10},{"threads":4,"bytes_per_s":2e10}],"knee_threads":4},{"node":%s,"cores":%s,"pus":7,"points":[{"threads":%s,"bytes_per_s":1e10}],"knee_threads":%s}]}}}\n' \
		"$2" "$4" "$5" "$3" >"$1"
}
plan_bench() { "$NODEAUDIT" plan --sysroot "$fx/numa-2node" --bench "$1" --runtime llama.cpp --format json; }
for v in 2147483648 1e308 1e999 -1 1.5; do
	sweep "$tmp/s.json" 1 "$v" 7 1
	refused "plan --bench: knee_threads $v" "$tmp/s.json" "bench.sweep.nodes[1].knee_threads" plan_bench "$tmp/s.json"
	sweep "$tmp/s.json" "$v" 4 7 1
	refused "plan --bench: node $v" "$tmp/s.json" "bench.sweep.nodes[1].node" plan_bench "$tmp/s.json"
	sweep "$tmp/s.json" 1 4 "$v" 1
	refused "plan --bench: cores $v" "$tmp/s.json" "bench.sweep.nodes[1].cores" plan_bench "$tmp/s.json"
	sweep "$tmp/s.json" 1 4 7 "$v"
	refused "plan --bench: a point's threads $v" "$tmp/s.json" "bench.sweep.nodes[1].points[0].threads" plan_bench "$tmp/s.json"
done
sweep "$tmp/s.json" 1 null 7 1
if plan_bench "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err" && ! san "$tmp/err" &&
	grep -q 'node 1: the bench report has no thread knee' "$tmp/p.json" &&
	grep -q 'node 0: -t 4, not 7' "$tmp/p.json"; then
	ok "plan --bench: a knee of null is no knee, the other node's is used"
else notok "plan --bench with a null knee: $(head -n 3 "$tmp/err")"; fi

# The same sweep inside a report's facts.bench.
report_with() { # report_with OUT PYTHON-STATEMENT (d: the report)
	python3 - "$fx/plan/report-2s.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
for v in 2147483648 1e308; do
	report_with "$tmp/r.json" "d['facts']['bench'] = {'sweep': {'nodes': [{'node': 0, 'knee_threads': $v}]}}"
	refused "plan --report: facts.bench knee_threads $v" "$tmp/r.json" "facts.bench.sweep.nodes[0].knee_threads" \
		"$NODEAUDIT" plan --report "$tmp/r.json" --runtime vllm
done

### memory.total_bytes in the kubelet fragment ###
for v in 1e300 -5 1.5 1e19; do
	report_with "$tmp/r.json" "d['facts']['memory'] = {'total_bytes': $v}"
	"$NODEAUDIT" plan --report "$tmp/r.json" --format kubelet >"$tmp/k" 2>"$tmp/err"
	rc=$?
	sr=$(grep -A1 '^systemReserved:' "$tmp/k" | sed -n 's/^  memory: "\(.*\)"$/\1/p')
	if [ $rc -ne 0 ] || san "$tmp/err"; then notok "kubelet, memory.total_bytes $v: exit $rc $(head -n 2 "$tmp/err")"
	elif [ "$sr" != 1024Mi ]; then notok "kubelet, memory.total_bytes $v: systemReserved memory is '$sr', not the 1024Mi floor"
	elif ! grep -q 'memory.total_bytes is .*not a byte count' "$tmp/k"; then notok "kubelet, memory.total_bytes $v: no note names the key"
	else ok "kubelet, memory.total_bytes $v: the 1024Mi floor and a note"; fi
done
report_with "$tmp/r.json" "d['facts']['memory'] = {'total_bytes': 1099511627776}"
"$NODEAUDIT" plan --report "$tmp/r.json" --format kubelet >"$tmp/k" 2>"$tmp/err"
[ "$(grep -A1 '^systemReserved:' "$tmp/k" | sed -n 's/^  memory: "\(.*\)"$/\1/p')" = 10486Mi ] &&
	ok "kubelet, 1 TiB: systemReserved 10486Mi (1%, rounded up)" || notok "kubelet of 1 TiB: $(grep -A1 '^systemReserved:' "$tmp/k")"

### Node ids, threads per core and packages in check's outputs ###
python3 - "$fx/check-facts/warn.json" "$tmp/ids.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cpu"]["smt"]["threads_per_core"] = 1e300
d["numa"]["node_count"] = 1e300
for n in d["numa"].get("nodes", []):
    n["id"] = 1e300
d.setdefault("pci", {})["accelerators"] = [{"bdf": "0000:01:00.0", "numa_node": 2 ** 31}]
json.dump(d, open(sys.argv[2], "w"))
PY
for fmt in text json prometheus tap junit; do
	"$NODEAUDIT" check --facts "$tmp/ids.json" --format $fmt >"$tmp/o.all" 2>"$tmp/err"
	rc=$?
	# The JSON report carries the facts as the document has them: its
	# findings' words are what the check says.
	if [ $fmt = json ]; then grep '"detail"' "$tmp/o.all" >"$tmp/o"; else cp "$tmp/o.all" "$tmp/o"; fi
	if [ $rc -gt 2 ] || san "$tmp/err"; then notok "check --format $fmt of ids of 1e300: exit $rc"
	elif grep -Eq '2147483647|2147483648|-1 thread|node=' "$tmp/o"; then
		notok "check --format $fmt of ids of 1e300: a wrapped number: $(grep -Eo '.{20}(2147483647|2147483648|node=).{10}' "$tmp/o" | head -n 1)"
	else ok "check --format $fmt: ids and counts of 1e300 and 2^31 never shown wrapped"; fi
done

### Dates: NFD's +expiry-time, JUnit's timestamp ###
facts_at() { # facts_at OUT WHEN
	python3 - "$facts" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["collected_at"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
}
nfd() { # nfd WHEN EXPIRY|none
	facts_at "$tmp/f.json" "$1"
	"$NODEAUDIT" check --facts "$tmp/f.json" --format nfd --nfd-expiry 30d >"$tmp/nfd" 2>"$tmp/err"
	rc=$?
	got=$(sed -n 's/^# +expiry-time=//p' "$tmp/nfd")
	labels=$(grep -c '^nodeaudit\.feature' "$tmp/nfd")
	if [ $rc -gt 2 ] || san "$tmp/err"; then notok "nfd at $1: exit $rc"
	elif [ "$2" = none ] && { [ -n "$got" ] || [ "$labels" -ne 0 ]; }; then
		notok "nfd at $1: expiry '$got' and $labels labels, wanted none"
	elif [ "$2" != none ] && { [ "$got" != "$2" ] || [ "$labels" -eq 0 ]; }; then
		notok "nfd at $1: expiry '$got' ($labels labels), wanted $2"
	else ok "nfd audited $1 + 30 days: ${got:-no labels}"; fi
}
nfd 9999-12-31T23:59:59Z none
nfd 9999-12-01T00:00:00Z 9999-12-31T00:00:00Z
nfd 0000-01-01T00:00:00Z 0000-01-31T00:00:00Z
nfd 0-01-01T00:00:00Z none
nfd 2026-02-29T00:00:00Z none
nfd 2024-02-29T12:00:00Z 2024-03-30T12:00:00Z
nfd ' 2026-01-01T00:00:00Z' none
nfd 2026-01-01T00:00:00Z 2026-01-31T00:00:00Z
for w in 10000-01-01T00:00:00Z 2026-13-01T00:00:00Z 2026-01-01T00:00:00; do
	facts_at "$tmp/f.json" "$w"
	"$NODEAUDIT" check --facts "$tmp/f.json" --format junit >"$tmp/j" 2>"$tmp/err"
	grep -q 'timestamp=' "$tmp/j" && notok "junit: a timestamp from '$w'" || ok "junit: no timestamp from '$w'"
done
facts_at "$tmp/f.json" 2026-11-29T20:00:00Z
"$NODEAUDIT" check --facts "$tmp/f.json" --format junit >"$tmp/j" 2>"$tmp/err"
grep -q 'timestamp="2026-11-29T20:00:00"' "$tmp/j" && ok "junit: the timestamp of an RFC 3339 time" || notok "junit: no timestamp"

### collected_at: a snapshot's and the clock's ###
cp -R "$fx/numa-2node" "$tmp/snap"
mkdir -p "$tmp/snap/nodeaudit"
echo 10000-01-01T00:00:00Z >"$tmp/snap/nodeaudit/collected_at"
"$NODEAUDIT" --sysroot "$tmp/snap" probe --format json >"$tmp/p.json" 2>"$tmp/err"
if grep -q '"collected_at":[[:space:]]*null' "$tmp/p.json" &&
	grep -q '/nodeaudit/collected_at: not an RFC 3339 UTC time' "$tmp/p.json"; then
	ok "a snapshot's collected_at of year 10000: null and a gap"
else notok "a snapshot's collected_at of year 10000: $(grep collected_at "$tmp/p.json" | head -n 2)"; fi
SOURCE_DATE_EPOCH=253402300800 "$NODEAUDIT" --sysroot "$fx/numa-2node" probe --format json >"$tmp/p.json" 2>"$tmp/err"
if grep -q '"collected_at":[[:space:]]*null' "$tmp/p.json" && grep -q 'the clock is past the year 9999' "$tmp/p.json" &&
	! san "$tmp/err"; then
	ok "a clock past 9999: collected_at null and a gap"
else notok "a clock past 9999: $(grep collected_at "$tmp/p.json" | head -n 2)"; fi
SOURCE_DATE_EPOCH=253402300799 "$NODEAUDIT" --sysroot "$fx/numa-2node" probe --format json >"$tmp/p.json" 2>"$tmp/err"
grep -q '"collected_at":[[:space:]]*"9999-12-31T23:59:59Z"' "$tmp/p.json" && ok "the last second of 9999" ||
	notok "the last second of 9999: $(grep collected_at "$tmp/p.json" | head -n 1)"

### Every number replaced ###
"$NODEAUDIT" check --facts "$facts" --format json -o "$tmp/report.json" 2>/dev/null
bad=""
for v in 1e300 -1e300 2147483648 -2147483649 1.5 1e19 9007199254740993; do
	python3 - "$facts" "$tmp/report.json" "$tmp/f.json" "$tmp/r.json" "$v" <<'PY'
import json, sys
v = float(sys.argv[5])
def walk(o, k=None):
    if isinstance(o, dict):
        return {a: (b if a == "schema" else walk(b, a)) for a, b in o.items()}
    if isinstance(o, list):
        return [walk(x) for x in o]
    if isinstance(o, bool) or o is None or not isinstance(o, (int, float)):
        return o
    return v
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    json.dump(walk(json.load(open(src))), open(dst, "w"))
PY
	for fmt in text json junit prometheus tap nfd; do
		"$NODEAUDIT" check --facts "$tmp/f.json" --format $fmt >/dev/null 2>"$tmp/err"
		san "$tmp/err" && bad="$bad check-$fmt@$v"
	done
	for fmt in text json sh sysctl systemd; do
		for rt in "" vllm llama.cpp; do
			"$NODEAUDIT" plan --report "$tmp/r.json" --format $fmt ${rt:+--runtime $rt} >/dev/null 2>"$tmp/err"
			san "$tmp/err" && bad="$bad plan-$fmt-$rt@$v"
		done
	done
	for fmt in text csv json; do
		"$NODEAUDIT" report --format $fmt "$tmp/r.json" >/dev/null 2>"$tmp/err"
		san "$tmp/err" && bad="$bad report-$fmt@$v"
	done
	"$NODEAUDIT" diff "$tmp/f.json" "$facts" >/dev/null 2>"$tmp/err"
	san "$tmp/err" && bad="$bad diff@$v"
done
[ -z "$bad" ] && ok "every number at 1e300, -1e300, 2^31, 1.5, 1e19, 2^53+1: no undefined behaviour" ||
	notok "sanitizer reports:$bad"

echo "1..$n"
[ $fail -eq 0 ]
