#!/bin/sh
# check-formats.sh - check's JSON report validates against the schema in
# schema/, its JUnit XML is well formed, its Prometheus textfile is valid.
# Validators that are not installed (python3-jsonschema, xmllint, promtool)
# skip their part; the shape checks by awk always run.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
facts=$top_srcdir/tests/fixtures/check-facts
schema=$top_srcdir/schema/nodeaudit-report.schema.json
res() { # res NAME OK
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

have_jsonschema=0
python3 -c 'import jsonschema' 2>/dev/null && have_jsonschema=1
for f in good bad warn; do
	for p in agent-cpu-inference agent-orchestrator agent-accelerator-host base; do
		"$NODEAUDIT" check --facts "$facts/$f.json" --profile $p --format json >"$tmp/$f-$p.json"
		rc=$?
		[ $rc -le 2 ]; res "json report $f/$p (exit $rc)" $?
		if [ $have_jsonschema = 1 ]; then
			python3 - "$schema" "$tmp/$f-$p.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
PY
			res "$f/$p validates against the report schema" $?
		fi
	done
done
# A live report too (mostly unknowns on a build machine: they must validate as well).
"$NODEAUDIT" check --format json >"$tmp/live.json"
[ $? -le 2 ]; res "live json report" $?
if [ $have_jsonschema = 1 ]; then
	python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$schema" "$tmp/live.json"
	res "live report validates against the schema" $?
else
	skip "schema validation" "python3-jsonschema not installed"
fi

# JUnit: well formed; one testcase per finding; failures for fail (and warn
# unless --fail-on fail); skipped for unknown and skip.
"$NODEAUDIT" check --facts "$facts/bad.json" --format junit >"$tmp/bad.xml"
res "junit exit 2" $(( $? != 2 ))
"$NODEAUDIT" check --facts "$facts/bad.json" --format junit --fail-on fail >"$tmp/bad-fail.xml"
grep -q '<testsuites name="nodeaudit" tests="16" failures="9" errors="0" skipped="4">' "$tmp/bad.xml"
res "junit counts: 16 tests, 3 fail + 6 warn failures, 4 skipped (1 unknown, 3 skip)" $?
grep -q 'tests="16" failures="3" errors="0" skipped="4"' "$tmp/bad-fail.xml"
res "junit --fail-on fail: warnings are not failures" $?
[ "$(grep -c '<testcase ' "$tmp/bad.xml")" = 16 ]; res "one testcase per finding" $?
grep -q '<testcase classname="nodeaudit.kernel" name="kernel.sysctl\[vm.swappiness\]"' "$tmp/bad.xml"
res "sysctl testcase named with its key" $?
grep -q "expected &gt;= 1" "$tmp/bad.xml"; res "XML escaping of >" $?
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$tmp/bad.xml" "$tmp/bad-fail.xml"; res "junit is well-formed XML (xmllint)" $?
else
	skip "junit well-formed" "xmllint not installed"
fi
# A hostname with XML specials must be escaped.
sed 's/"hostname": "cheap-01"/"hostname": "a<b>\&c\\"d"/' "$facts/bad.json" >"$tmp/evil.json"
"$NODEAUDIT" check --facts "$tmp/evil.json" --format junit >"$tmp/evil.xml"
grep -q 'hostname="a&lt;b&gt;&amp;c&quot;d"' "$tmp/evil.xml"; res "hostname escaped in XML" $?
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$tmp/evil.xml"; res "escaped junit is well-formed" $?
fi

# Prometheus textfile.
"$NODEAUDIT" check --facts "$facts/bad.json" --format prometheus >"$tmp/bad.prom"
res "prometheus exit 2" $(( $? != 2 ))
grep -qx 'nodeaudit_check_status{id="cpu.smt",severity="warn"} 1' "$tmp/bad.prom"; res "warn is 1" $?
grep -qx 'nodeaudit_check_status{id="memory.ecc",severity="fail"} 2' "$tmp/bad.prom"; res "fail is 2" $?
grep -qx 'nodeaudit_check_status{id="memory.ecc.errors",severity="fail"} 3' "$tmp/bad.prom"; res "unknown is 3" $?
grep -qx 'nodeaudit_check_status{id="cpu.isa",severity="fail"} 0' "$tmp/bad.prom"; res "pass is 0" $?
grep -qx 'nodeaudit_check_status{id="kernel.sysctl",key="vm.swappiness",severity="warn"} 1' "$tmp/bad.prom"
res "sysctl status has its key" $?
grep -q '^nodeaudit_check_status{id="numa.balancing"' "$tmp/bad.prom"; res "skipped checks are omitted" $(( $? == 0 ))
grep -qx 'nodeaudit_findings{status="fail"} 3' "$tmp/bad.prom"; res "findings by status" $?
grep -qx 'nodeaudit_info{version="0.1.0",profile="agent-cpu-inference",schema="nodeaudit.report/1"} 1' "$tmp/bad.prom"
res "info metric" $?
grep -qx 'nodeaudit_memory_total_bytes 34359738368' "$tmp/bad.prom"; res "memory gauge" $?
grep -qx 'nodeaudit_cpu_cores 16' "$tmp/bad.prom"; res "cores gauge" $?
# Shape: every sample's metric has HELP and TYPE before it; names and labels are valid.
awk '
/^# HELP / { help[$3] = 1; next }
/^# TYPE / { if ($4 != "gauge" && $4 != "counter") bad = bad " type:" $3; type[$3] = 1; next }
/^#/ { next }
{
	name = $1; sub(/\{.*/, "", name)
	if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) bad = bad " name:" name
	if (!(name in help) || !(name in type)) bad = bad " nohelp:" name
	if ($NF !~ /^-?[0-9.e+]+$/) bad = bad " value:" $0
	if ($1 ~ /\{/ && $0 !~ /^[a-z_]+\{([a-z_]+="([^"\\]|\\.)*",?)+\} /) bad = bad " labels:" $0
}
END { if (bad != "") { print bad; exit 1 } }' "$tmp/bad.prom"
res "prometheus shape (HELP/TYPE, names, labels, values)" $?
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$tmp/bad.prom"; res "promtool check metrics" $?
else
	skip "promtool check metrics" "promtool not installed"
fi
echo "1..$n"
[ $fail -eq 0 ]
