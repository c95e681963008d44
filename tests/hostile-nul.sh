#!/bin/sh
# hostile-nul.sh - a JSON string holding U+0000 (written \u0000) is refused
# in every document the tool reads, like any other control character: cJSON
# would end the string there, so the string used would not be the one the
# document holds ("evil\u0000\u001b[2J" shown as "evil", a finding key
# "vm.swappiness\u0000junk" planned as vm.swappiness).  check --facts, plan
# --report, plan --bench, diff and check --profile exit 3 with one line
# naming the file, the line and column and \u0000; report skips the file,
# saying so.  "\\u0000" (a backslash, then text) and "\u0001" are not that
# (the first is text; the second is the control-character rules' own).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-nul.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fx=$top_srcdir/tests/fixtures
facts=$fx/check-facts/good.json
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
san() { grep -Eq 'runtime error:|Sanitizer' "$@"; }

# edit IN OUT STATEMENT: the JSON document IN, d changed by STATEMENT, as
# OUT (json.dump writes U+0000 as \u0000).
edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# refused LABEL FILE CMD...: exit 3, one line naming FILE, a line and column and \u0000.
refused() {
	label=$1 file=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if san "$tmp/err"; then notok "$label: sanitizer report"
	elif [ $rc -ne 3 ]; then notok "$label: exit $rc"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then notok "$label: $(wc -l <"$tmp/err") lines on stderr"
	elif ! grep -Fq "'$file'" "$tmp/err" || ! grep -q 'line [0-9]*, column [0-9]*' "$tmp/err" ||
		! grep -Fq '\u0000' "$tmp/err"; then notok "$label: the message: $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then notok "$label: output on stdout"
	else ok "$label"; fi
}

"$NODEAUDIT" check --facts "$facts" --format json -o "$tmp/report.json" || { echo "1..0 # SKIP no report"; exit 99; }

edit "$facts" "$tmp/f1.json" 'd["host"]["hostname"] = "evil\u0000\u001b[2J"'
refused "check --facts: a hostname with U+0000" "$tmp/f1.json" "$NODEAUDIT" check --facts "$tmp/f1.json"
refused "diff: a hostname with U+0000" "$tmp/f1.json" "$NODEAUDIT" diff "$tmp/f1.json" "$facts"
refused "diff: U+0000 on the right" "$tmp/f1.json" "$NODEAUDIT" diff "$facts" "$tmp/f1.json"

edit "$fx/plan/report-2s.json" "$tmp/r1.json" '
for f in d["findings"]:
    if f.get("key") == "vm.swappiness":
        f["key"] = "vm.swappiness\u0000junk"'
refused "plan --report: a finding key with U+0000" "$tmp/r1.json" "$NODEAUDIT" plan --report "$tmp/r1.json" --format sysctl
edit "$tmp/report.json" "$tmp/r2.json" 'd["profile"]["name"] = "\u0000"'
refused "plan --report: a profile name of U+0000 alone" "$tmp/r2.json" "$NODEAUDIT" plan --report "$tmp/r2.json"

printf '{"schema":"nodeaudit.bench/1","bench":{"sweep":{"nodes":[{"node":0,"knee_threads":4,"note":"a\\u0000b"}]}}}\n' >"$tmp/s1.json"
refused "plan --bench: a sweep with U+0000" "$tmp/s1.json" \
	"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --bench "$tmp/s1.json"
printf '{"schema":"nodeaudit.probe/1","host":{"hostname":"a\\u0000"}}\n' >"$tmp/f2.json"
refused "check --facts: \\u0000 in a short document" "$tmp/f2.json" "$NODEAUDIT" check --facts "$tmp/f2.json"
# A key holding U+0000.
printf '{"schema":"nodeaudit.probe/1","host\\u0000x":{}}\n' >"$tmp/f3.json"
refused "check --facts: U+0000 in a key" "$tmp/f3.json" "$NODEAUDIT" check --facts "$tmp/f3.json"

printf '{"name":"evil\\u0000x","checks":{}}\n' >"$tmp/p1.json"
"$NODEAUDIT" check --facts "$facts" --profile "$tmp/p1.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Fq "'$tmp/p1.json'" "$tmp/err" && grep -Fq '\u0000' "$tmp/err" && ! san "$tmp/err"; then
	ok "check --profile: a profile name with U+0000"
else notok "check --profile with U+0000: exit $rc: $(cat "$tmp/err")"; fi
"$NODEAUDIT" profiles validate "$tmp/p1.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -Fq '\u0000' "$tmp/out" "$tmp/err" && ok "profiles validate: U+0000 refused" ||
	notok "profiles validate with U+0000: exit $rc: $(cat "$tmp/err" "$tmp/out" | head -n 3)"

mkdir "$tmp/fleet"
edit "$tmp/report.json" "$tmp/fleet/a.json" 'd["host"]["hostname"] = "evil\u0000\u001b[2J"'
edit "$tmp/report.json" "$tmp/fleet/b.json" 'd["host"]["hostname"] = "good"'
"$NODEAUDIT" report "$tmp/fleet" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -le 2 ] && grep -Fq "skipping '$tmp/fleet/a.json'" "$tmp/err" && grep -Fq '\u0000' "$tmp/err" &&
	! grep -q evil "$tmp/out" && grep -q '1 node' "$tmp/out" && ! san "$tmp/err"; then
	ok "report: a report with U+0000 is skipped, saying why"
else notok "report with U+0000: exit $rc: $(cat "$tmp/err")"; fi

# Not U+0000: a backslash followed by the text u0000; U+0001.
edit "$facts" "$tmp/ok1.json" 'd["host"]["hostname"] = "a\\u0000"'
grep -Fq '\\u0000' "$tmp/ok1.json" || notok "the escaped backslash case was not written"
"$NODEAUDIT" check --facts "$tmp/ok1.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] && ! san "$tmp/err" && ok "check --facts: a backslash then u0000 is text" ||
	notok "check --facts with \\\\u0000: exit $rc: $(cat "$tmp/err")"
edit "$facts" "$tmp/ok2.json" 'd["host"]["hostname"] = "a\u0001"'
"$NODEAUDIT" check --facts "$tmp/ok2.json" >/dev/null 2>"$tmp/err"
rc=$?
! grep -Fq 'u0000' "$tmp/err" && ! san "$tmp/err" && ok "check --facts: U+0001 is not taken for U+0000" ||
	notok "check --facts with U+0001: exit $rc: $(cat "$tmp/err")"

echo "1..$n"
[ $fail -eq 0 ]
