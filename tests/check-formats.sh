#!/bin/sh
# check-formats.sh - every JSON document nodeaudit emits (probe, check, plan,
# bench, report, diff) validates against its schema in schema/ with the
# distribution's own validator (Debian's python3-jsonschema, run as
# '/usr/bin/python3 -m jsonschema', as an admin would), for every fixture;
# check's JUnit XML is well formed and its Prometheus textfile is valid.
# Validators that are not installed (python3-jsonschema, xmllint, promtool)
# skip their part; the shape checks by awk always run.
# DIST_PYTHON names another interpreter (default /usr/bin/python3).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
facts=$top_srcdir/tests/fixtures/check-facts
sdir=$top_srcdir/schema
res() { # res NAME OK
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# Every schema has an absolute $id (a relative one such as "nodeaudit.report/1"
# makes jsonschema 4.10 fail with "unknown url type" on every document).
for k in probe report plan bench fleet diff; do
	f=$sdir/nodeaudit-$k.schema.json
	grep -q "^  \"\$id\": \"https://[a-z0-9.-]*/[^\"]*/nodeaudit\.$k/1\",\$" "$f"
	res "nodeaudit-$k.schema.json has an absolute \$id ending in nodeaudit.$k/1" $?
done

# Collect documents: DOC KIND FILE per line in $tmp/docs.
mkdir "$tmp/doc"
i=0
add() { # add KIND CMD...: run, keep the output when the exit status is 0-2
	k=$1; shift
	i=$((i + 1))
	"$@" >"$tmp/doc/$i.json" 2>"$tmp/doc/$i.err"
	rc=$?
	if [ $rc -le 2 ] && [ -s "$tmp/doc/$i.json" ]; then echo "$k $tmp/doc/$i.json $*" >>"$tmp/docs"
	else echo "# $* exited $rc:"; sed 's/^/#   /' "$tmp/doc/$i.err"; echo "bad $tmp/doc/$i.json $*" >>"$tmp/docs"; fi
}
for f in good bad warn; do
	for p in agent-cpu-inference agent-orchestrator agent-accelerator-host base; do
		add report "$NODEAUDIT" check --facts "$facts/$f.json" --profile $p --format json
	done
done
for s in $(sed -n 's/^sysroot: *//p' "$top_srcdir"/tests/*.test | sort -u); do
	add probe "$NODEAUDIT" probe --sysroot "$top_srcdir/tests/$s" --format json
	add report "$NODEAUDIT" check --sysroot "$top_srcdir/tests/$s" --format json
	add plan "$NODEAUDIT" plan --sysroot "$top_srcdir/tests/$s" --format json
done
add plan "$NODEAUDIT" plan --report "$top_srcdir/tests/fixtures/plan/report-2s.json" --format json
# Launch plans in the runtimes' terms, with a model that fits and one that does not.
mk=${top_builddir:-.}/tests/mkgguf
# llama.cpp loads GGUF files, vLLM checkpoint directories (tests/mkckpt.sh).
"$mk" llama "$tmp/m.gguf" >/dev/null 2>&1 && "$mk" big "$tmp/big.gguf" >/dev/null 2>&1
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/m.ckpt" 8 8 2 256 1048576 >/dev/null 2>&1
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/big.ckpt" 40 8 2 5120 21474836480 >/dev/null 2>&1
for rt in llama.cpp vllm; do
	m=m.gguf big=big.gguf
	[ $rt = vllm ] && m=m.ckpt big=big.ckpt
	add plan "$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/numa-2node" --runtime $rt --format json
	add plan "$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/cpu-rpl-laptop" --runtime $rt --model "$tmp/$m" --format json
	add plan "$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/numa-2node" --runtime $rt --model "$tmp/$big" --ctx 4096 --format json
done
# This machine too (mostly unknowns on a build machine: they must validate as well).
add probe "$NODEAUDIT" probe --format json
add report "$NODEAUDIT" check --format json
add plan "$NODEAUDIT" plan --format json
add bench "$NODEAUDIT" bench --size 16M --seconds 0.2 --format json
add bench "$NODEAUDIT" bench --sweep --size 1M --seconds 0.2 --format json
# bench MODEL --dry-run measures nothing: its nulls must validate too.
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
if [ -x "$MKGGUF" ] && "$MKGGUF" llama "$tmp/m.gguf" q4_k >/dev/null 2>&1; then
	add bench "$NODEAUDIT" bench "$tmp/m.gguf" --dry-run --format json
	"$NODEAUDIT" bench "$tmp/m.gguf" --dry-run --format json >"$tmp/dry.json" 2>/dev/null
	"$NODEAUDIT" bench "$tmp/m.gguf" --dry-run >"$tmp/dry.txt" 2>/dev/null
	! grep -q 'fits in caches' "$tmp/dry.json" "$tmp/dry.txt"
	res "bench --dry-run claims nothing about caches (nothing was measured)" $?
else
	skip "bench MODEL --dry-run" "no tests/mkgguf"
fi
# diff documents: fixture against fixture, report against report, and this
# machine against a snapshot of it.
add diff "$NODEAUDIT" diff --format json "$top_srcdir/tests/fixtures/cpu-2s-smt" "$top_srcdir/tests/fixtures/cpu-vm"
add diff "$NODEAUDIT" diff --all --format json "$facts/good.json" "$facts/bad.json"
"$NODEAUDIT" check --facts "$facts/good.json" --format json >"$tmp/g.report.json" 2>/dev/null
"$NODEAUDIT" check --facts "$facts/warn.json" --format json >"$tmp/w.report.json" 2>/dev/null
add diff "$NODEAUDIT" diff --format json "$tmp/g.report.json" "$tmp/w.report.json"
add diff "$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/cpu-vm" diff --format json "$facts/good.json"
for d in a b; do
	add fleet "$NODEAUDIT" report "$top_srcdir/tests/fixtures/report/$d" --format json
done
mkdir "$tmp/fleet"
for f in good bad warn; do "$NODEAUDIT" check --facts "$facts/$f.json" --format json >"$tmp/fleet/$f.json"; done
add fleet "$NODEAUDIT" report "$tmp/fleet" --format json
grep -q '^bad ' "$tmp/docs"; res "every document was written (exit 0-2)" $(( $? == 0 ))
for k in probe report plan bench fleet diff; do
	c=$(grep -c "^$k " "$tmp/docs")
	[ "$c" -gt 0 ]; res "$c $k documents" $?
	# Each says which schema it follows.
	bad=0
	for f in $(awk -v k=$k '$1 == k { print $2 }' "$tmp/docs"); do
		grep -q "\"schema\":[[:space:]]*\"nodeaudit\.$k/1\"" "$f" || { bad=1; echo "# $f: no \"schema\": \"nodeaudit.$k/1\""; }
	done
	res "$k documents name nodeaudit.$k/1" $bad
done

py=${DIST_PYTHON:-/usr/bin/python3}
if "$py" -m jsonschema --version >/dev/null 2>&1; then
	echo "# validator: $py -m jsonschema $("$py" -m jsonschema --version 2>&1)"
	for k in probe report plan bench fleet diff; do
		set --
		for f in $(awk -v k=$k '$1 == k { print $2 }' "$tmp/docs"); do set -- "$@" -i "$f"; done
		if "$py" -m jsonschema "$@" "$sdir/nodeaudit-$k.schema.json" >"$tmp/v.out" 2>&1; then
			res "every $k document validates ($py -m jsonschema)" 0
		else
			res "every $k document validates ($py -m jsonschema)" 1
			awk -v k=$k '$1 == k' "$tmp/docs" | while read -r _ f cmd; do
				"$py" -m jsonschema -i "$f" "$sdir/nodeaudit-$k.schema.json" >/dev/null 2>&1 || echo "#   invalid: $cmd"
			done
			head -c 2000 "$tmp/v.out" | sed 's/^/#   /'
		fi
	done
	# And the validator does reject: a report with a bad status.
	f=$(awk '$1 == "report" { print $2; exit }' "$tmp/docs")
	sed 's/"status":[[:space:]]*"[a-z]*"/"status": "maybe"/' "$f" >"$tmp/broken.json"
	"$py" -m jsonschema -i "$tmp/broken.json" "$sdir/nodeaudit-report.schema.json" >/dev/null 2>&1
	res "the validator rejects a report with status 'maybe'" $(( $? == 0 ))
else
	skip "schema validation" "$py has no jsonschema (Debian: python3-jsonschema)"
fi

# JUnit: well formed; one testcase per finding; failures for fail (and warn
# unless --fail-on fail); an error for unknown (it could not be evaluated:
# never a pass or a skip); skipped for skip.
"$NODEAUDIT" check --facts "$facts/bad.json" --format junit >"$tmp/bad.xml"
res "junit exit 2" $(( $? != 2 ))
"$NODEAUDIT" check --facts "$facts/bad.json" --format junit --fail-on fail >"$tmp/bad-fail.xml"
grep -q '<testsuites name="nodeaudit" tests="16" failures="9" errors="1" skipped="3">' "$tmp/bad.xml"
res "junit counts: 16 tests, 3 fail + 6 warn failures, 1 error (unknown), 3 skipped" $?
grep -q 'tests="16" failures="3" errors="1" skipped="3"' "$tmp/bad-fail.xml"
res "junit --fail-on fail: warnings are not failures" $?
grep -q '<error type="unknown" message="unknown: memory.ecc.uncorrected_errors: ' "$tmp/bad.xml"
res "junit: the unknown check is an <error>, not <skipped>" $?
! grep -q '<skipped message="unknown' "$tmp/bad.xml"; res "junit: no unknown check is skipped" $?

# TAP: an unknown check is "not ok ... # unknown: REASON", never ok or a
# SKIP.  (The lines are checked here, not printed: this test's own TAP is
# the only one in its log.)
"$NODEAUDIT" check --facts "$facts/bad.json" --format tap >"$tmp/bad.tap"
grep -Eq '^not ok [0-9]+ - memory.ecc.errors # unknown: memory.ecc.uncorrected_errors: ' "$tmp/bad.tap"
res "tap: the unknown check is not ok # unknown: REASON" $?
! grep -Eq '^ok .*(# SKIP unknown|unknown:)' "$tmp/bad.tap"; res "tap: no unknown check is ok" $?
# --unknown: ignore (default) leaves the exit status; warn and fail weigh
# an unknown as a warning or a failure, under the same --fail-on.
"$NODEAUDIT" check --facts "$facts/bad.json" --fail-on never --unknown fail >/dev/null; res "--unknown fail --fail-on never: exit 0" $?
"$NODEAUDIT" check --facts "$facts/bad.json" --unknown maybe >/dev/null 2>"$tmp/e"
[ $? -eq 3 ] && grep -q "unknown takes ignore, warn or fail" "$tmp/e"; res "--unknown maybe: usage error" $?
"$NODEAUDIT" check --facts "$facts/bad.json" --unknown warn --format json >"$tmp/u.json"
grep -q '"on_unknown":[[:space:]]*"warn"' "$tmp/u.json"; res "--unknown recorded as summary.on_unknown" $?
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
grep -qx 'nodeaudit_check_status{id="cpu.smt",check_severity="warn",status="warn"} 1' "$tmp/bad.prom"; res "warn: its status series is 1" $?
grep -qx 'nodeaudit_check_status{id="cpu.smt",check_severity="warn",status="pass"} 0' "$tmp/bad.prom"; res "warn: pass is 0" $?
grep -qx 'nodeaudit_check_status{id="memory.ecc",check_severity="fail",status="fail"} 1' "$tmp/bad.prom"; res "fail: its status series is 1" $?
grep -qx 'nodeaudit_check_status{id="memory.ecc.errors",check_severity="fail",status="unknown"} 1' "$tmp/bad.prom"; res "unknown: its status series is 1" $?
grep -qx 'nodeaudit_check_status{id="cpu.isa",check_severity="fail",status="pass"} 1' "$tmp/bad.prom"; res "pass: its status series is 1" $?
grep -qx 'nodeaudit_check_status{id="cpu.isa",check_severity="fail",status="fail"} 0' "$tmp/bad.prom"; res "pass: fail is 0" $?
grep -qx 'nodeaudit_check_status{id="kernel.sysctl",key="vm.swappiness",check_severity="warn",status="warn"} 1' "$tmp/bad.prom"
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
