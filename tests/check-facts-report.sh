#!/bin/sh
# check-facts-report.sh - `check --facts` takes an earlier report as
# nodeaudit(1) says: its facts, gaps and conflicts are checked again, and
# its findings' files are the evidence.  Checking a report with the
# profile that wrote it gives that report again (JSON, byte for byte) and
# the same exit status, for the passing, warning and failing facts of
# tests/fixtures/check-facts and for a snapshot's probe with gaps; another
# profile decides again from the same facts as from the probe document
# (only its findings' files can differ: a report keeps the files of its
# own checks);
# a report without facts, or with a host inside them, is refused (exit 3,
# one line naming the file).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-facts-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fx=$top_srcdir/tests/fixtures
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

"$NODEAUDIT" --sysroot "$fx/pci-8gpu-switches" probe --format json -o "$tmp/gpu.json" ||
	{ echo "1..0 # SKIP probe failed"; exit 99; }
for f in "$fx/check-facts/good.json" "$fx/check-facts/warn.json" "$fx/check-facts/bad.json" "$tmp/gpu.json"; do
	b=$(basename "$f")
	"$NODEAUDIT" check --facts "$f" --format json -o "$tmp/r1.json"
	rc1=$?
	"$NODEAUDIT" check --facts "$tmp/r1.json" --format json -o "$tmp/r2.json" 2>"$tmp/err"
	rc2=$?
	if [ $rc1 -ne $rc2 ]; then notok "$b: exit $rc2 from the report, $rc1 from the facts: $(cat "$tmp/err")"
	elif ! cmp -s "$tmp/r1.json" "$tmp/r2.json"; then notok "$b: the report checked again differs"; diff "$tmp/r1.json" "$tmp/r2.json" | head -n 6 | sed 's/^/#   /'
	else ok "$b: the report checked again is the same report (exit $rc1)"; fi
	"$NODEAUDIT" check --facts "$f" >"$tmp/t1" 2>&1
	"$NODEAUDIT" check --facts "$tmp/r1.json" >"$tmp/t2" 2>&1
	cmp -s "$tmp/t1" "$tmp/t2" && ok "$b: the same text" || notok "$b: the text differs"
	for p in base agent-accelerator-host agent-orchestrator; do
		"$NODEAUDIT" check --facts "$f" --profile $p --format json -o "$tmp/p1.json" 2>/dev/null
		rc1=$?
		"$NODEAUDIT" check --facts "$tmp/r1.json" --profile $p --format json -o "$tmp/p2.json" 2>/dev/null
		rc2=$?
		# The files of a check the report's profile did not run are not
		# in it: all else is the same.
		[ $rc1 -eq $rc2 ] && python3 - "$tmp/p1.json" "$tmp/p2.json" <<'PY' && ok "$b, profile $p: as from the facts" ||
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
for f in a["findings"] + b["findings"]:
    f.pop("evidence", None)
sys.exit(0 if a == b else 1)
PY
			notok "$b, profile $p: from the report (exit $rc2) not as from the facts (exit $rc1)"
	done
done
grep -q '"evidence":[[:space:]]*\[[[:space:]]*"' "$tmp/r2.json" && ok "the findings name their files again" ||
	notok "the findings of a checked report name no files"

sed 's/"facts":/"fects":/' "$tmp/r1.json" >"$tmp/nofacts.json"
"$NODEAUDIT" check --facts "$tmp/nofacts.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Fq "'$tmp/nofacts.json'" "$tmp/err" && grep -q 'no facts' "$tmp/err" &&
	ok "a report without facts: refused" || notok "a report without facts: exit $rc: $(cat "$tmp/err")"
sed 's/"facts":[[:space:]]*{/"facts": {"host": {},/' "$tmp/r1.json" >"$tmp/host.json"
"$NODEAUDIT" check --facts "$tmp/host.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'facts hold a host' "$tmp/err" &&
	ok "a report whose facts hold a host: refused" || notok "a report with facts.host: exit $rc: $(cat "$tmp/err")"
printf '{"schema":"nodeaudit.fleet/1","nodes":[]}' >"$tmp/fleet.json"
"$NODEAUDIT" check --facts "$tmp/fleet.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q "not 'nodeaudit.probe/1' or 'nodeaudit.report/1'" "$tmp/err" &&
	ok "a fleet document: refused, naming both schemas taken" || notok "a fleet document: exit $rc: $(cat "$tmp/err")"

echo "1..$n"
[ $fail -eq 0 ]
