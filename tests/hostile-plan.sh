#!/bin/sh
# hostile-plan.sh - nothing in a report or a profile can write into a plan
# (issue 23).  A report of a fixture node (kernel-untuned-desktop: a sysctl,
# a governor and a THP step) gets newlines, CR, ESC, an 8-bit CSI (U+009B),
# $(...), backquotes and both quotes planted in every string the plan prints
# (the hostname, the profile name, the finding ids, keys, observed and
# expected values, rationales, the fixes' texts, commands and values), and
#   - what a plan acts on and cannot carry (a control character in a name, a
#     key, an expected value, a fix's key or value) is refused: exit 3, one
#     line naming the file and the key;
#   - the rest is written only as the formats allow: `sh -n` parses the
#     script, every non-comment line of it holds the planted text only inside
#     single quotes, no output has a raw control character, and each format
#     has exactly the lines of the plan of the untouched report (a planted
#     string replaces a one-line string: one more line is an injection);
#   - a sysctl key off the kernel's grammar is refused with a reason (listed
#     as refused, not written), and profiles with control characters in
#     their name, expect or note are refused by `profiles validate`, `check`
#     and `plan` alike.
# Also the numbers: node ids, accelerator nodes and expected values of
# 1e300 (undefined behaviour once cast) plan without a sanitizer report.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-plan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
san() { grep -Eq 'runtime error:|Sanitizer' "$@"; }

fx=$top_srcdir/tests/fixtures/kernel-untuned-desktop
"$NODEAUDIT" --sysroot "$fx" check --format json >"$tmp/base.json" 2>"$tmp/err"
[ $? -le 2 ] || { echo "not ok 1 - base report"; cat "$tmp/err"; exit 1; }

# plant IN OUT MODE: MODE "clean" plants in the strings a plan only shows
# (comments), "quote" puts $(...), backquotes and quotes (no control) into
# the values it writes too.
plant() {
	python3 - "$1" "$2" "$3" "$tmp" <<'PY'
import json, sys
src, dst, mode, tmp = sys.argv[1:5]
d = json.load(open(src))
bad = "x\ntouch %s/PWNED\n#\r\x1b[2J\u009b31m$(touch %s/PWNED)`touch %s/PWNED`'\"" % (tmp, tmp, tmp)
quoted = "$(touch %s/PWNED)`touch %s/PWNED`'\";touch %s/PWNED" % (tmp, tmp, tmp)
d["host"]["hostname"] = bad
d["host"]["kernel"] = bad
d["profile"]["name"] = quoted
for f in d["findings"]:
    for k in ("title", "rationale", "reason", "detail"):
        if k in f:
            f[k] = bad
    if f.get("status") in ("warn", "fail"):
        f["observed"] = bad
        f["rationale"] = bad
    for x in f.get("fix", []):
        for k in ("text", "command"):
            if k in x:
                x[k] = bad
        if mode == "quote" and "value" in x:
            x["value"] = quoted
json.dump(d, open(dst, "w"))
PY
}

# lines FILE: its line count
lines() { wc -l <"$1" | tr -d ' '; }

# ctrl FILE: 0 when FILE has a raw control character (but tab and newline)
ctrl() { LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" || LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; }

# unquoted SCRIPT: the non-comment lines that hold PWNED outside single quotes
unquoted() { grep -v '^[[:space:]]*#' "$1" | sed -e "s/'\\\\''//g" -e "s/'[^']*'//g" | grep PWNED; }

for fmt in sh sysctl systemd; do
	"$NODEAUDIT" plan --report "$tmp/base.json" --format $fmt >"$tmp/base.$fmt" 2>"$tmp/err" ||
		{ notok "base plan --format $fmt"; cat "$tmp/err"; }
done
[ "$(grep -c '^set_sysctl ' "$tmp/base.sh")" -ge 1 ] && grep -q '^vm.swappiness = ' "$tmp/base.sysctl" &&
	ok "the base plan sets vm.swappiness" || notok "the base plan has no sysctl step (fixture changed?)"

for mode in clean quote; do
	plant "$tmp/base.json" "$tmp/$mode.json" $mode
	for fmt in sh sysctl systemd; do
		out=$tmp/$mode.$fmt
		"$NODEAUDIT" plan --report "$tmp/$mode.json" --format $fmt >"$out" 2>"$tmp/err"
		rc=$?
		why=""
		if san "$tmp/err"; then why="sanitizer report"
		elif [ $rc -ne 0 ]; then why="exit $rc: $(head -n 1 "$tmp/err")"
		elif [ "$(lines "$out")" != "$(lines "$tmp/base.$fmt")" ]; then
			why="$(lines "$out") lines, the plan has $(lines "$tmp/base.$fmt")"
		elif ctrl "$out"; then why="a raw control character"
		elif ! grep -q PWNED "$out"; then why="the planted text is not shown at all"
		elif [ $fmt = sh ] && ! sh -n "$out" 2>"$tmp/err"; then why="sh -n: $(head -n 1 "$tmp/err")"
		elif [ $fmt = sh ] && unquoted "$out" >/dev/null; then why="unquoted: $(unquoted "$out" | head -n 1)"
		elif [ $fmt = sysctl ] && grep -v '^#' "$out" | grep -v '^$' | grep -Eqv '^[A-Za-z0-9_.:@+/-]+ = '; then
			why="a sysctl line that is not KEY = VALUE"
		elif [ $fmt = sysctl ] && [ "$(grep -v '^#' "$out" | cut -d' ' -f1)" != "$(grep -v '^#' "$tmp/base.$fmt" | cut -d' ' -f1)" ]; then
			why="other sysctl keys than the plan's"
		elif [ $fmt = systemd ] && grep -v '^#' "$out" | grep -v '^$' | grep -Eqv '^(\[Service\]|CPUAffinity=[0-9,-]+|NUMAPolicy=bind|NUMAMask=[0-9]+|\[Unit\]|Description=Inference worker %i \(nodeaudit plan\)|(After|Wants)=network-online\.target|Type=exec|ExecStart=(<your-inference-command>( -t [0-9]+)?)?|Restart=on-failure|RestartSec=5|\[Install\]|WantedBy=multi-user\.target)$'; then
			why="a systemd line that is not the plan's"
		elif [ -e "$tmp/PWNED" ]; then why="the planted command ran"
		fi
		[ -z "$why" ] && ok "planted ($mode) in every string: --format $fmt holds" || notok "planted ($mode): --format $fmt: $why"
	done
done
# The quoted values reach the script as the values they are.
grep -q "^set_sysctl 'vm.swappiness' '\$(touch $tmp/PWNED)\`touch $tmp/PWNED\`'\\\\''\";touch $tmp/PWNED'\$" "$tmp/quote.sh" &&
	ok "a value with \$(...), backquotes and quotes is one shell word" || notok "the quoted value (see $tmp/quote.sh)"

# refused LABEL KEYPATH PYEXPR: the report with PYEXPR applied (d: the
# report, f: the vm.swappiness finding, x: its first fix) is refused by
# every plan format: exit 3, one line naming the file and KEYPATH.
refused() {
	label=$1 key=$2 expr=$3
	python3 - "$tmp/base.json" "$tmp/r.json" "$expr" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f.get("key") == "vm.swappiness"][0]
x = f["fix"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
	for fmt in sh sysctl systemd json; do
		"$NODEAUDIT" plan --report "$tmp/r.json" --format $fmt >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] && ! san "$tmp/err" &&
		   grep -Fq "'$tmp/r.json': $key: " "$tmp/err" && ! ctrl "$tmp/err"; then
			:
		else
			notok "$label: --format $fmt (exit $rc): $(head -n 2 "$tmp/err")"
			return
		fi
	done
	ok "$label: refused naming $key"
}
i=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([i for i,f in enumerate(d["findings"]) if f.get("key")=="vm.swappiness"][0])' "$tmp/base.json")
refused "newline in the profile name" "profile.name" 'd["profile"]["name"] = "p\ntouch /tmp/x"'
refused "newline in a finding id" "findings[$i].id" 'f["id"] = "kernel.sysctl\nrm -rf /"'
refused "CR in a finding key" "findings[$i].key" 'f["key"] = "vm.swappiness\r"'
refused "newline in an expected value" "findings[$i].expected" 'f["expected"] = "10\nkernel.core_pattern = |/tmp/evil"'
refused "U+009B in an expected list" "findings[$i].expected[1]" 'f["expected"] = ["10", "1\u009b2J"]'
refused "newline in a fix value" "findings[$i].fix[0].value" 'x["value"] = "10\nkernel.core_pattern = |/tmp/evil"'
refused "newline in a fix key" "findings[$i].fix[0].key" 'x["key"] = "vm.swappiness\nkernel.core_pattern"'
refused "ESC in a fix step" "findings[$i].fix[0].step" 'x["step"] = "sysctl\x1b"'

# A sysctl key off the kernel's grammar: the fix is refused with a reason,
# the rest of the plan is written.
for key in 'vm.swappiness;touch PWNED' '-vm.swappiness' 'vm..swappiness' 'vm.swappiness x' "vm.\$(id)"; do
	python3 - "$tmp/base.json" "$tmp/k.json" "$key" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f.get("key") == "vm.swappiness"][0]
f["fix"][0]["key"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
	why=""
	for fmt in sh sysctl json; do
		"$NODEAUDIT" plan --report "$tmp/k.json" --format $fmt >"$tmp/k.out.$fmt" 2>"$tmp/err" || why="$fmt: exit $?"
	done
	if [ -n "$why" ]; then :
	elif grep -Fq -e "$key" "$tmp/k.out.sysctl" && grep -v '^#' "$tmp/k.out.sysctl" | grep -Fq -e "$key"; then why="written into the sysctl file"
	elif grep '^set_sysctl' "$tmp/k.out.sh" | grep -Fq -e "$key"; then why="set by the script"
	elif ! grep -q '^# Refused' "$tmp/k.out.sysctl" || ! grep -q '^# Refused' "$tmp/k.out.sh"; then why="no refusal comment"
	elif ! sh -n "$tmp/k.out.sh"; then why="sh -n fails"
	elif ! python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["refused"]; assert r[0]["key"]==sys.argv[2] and "sysctl key" in r[0]["reason"]' "$tmp/k.out.json" "$key" 2>/dev/null; then
		why="not listed under refused with a reason"
	fi
	[ -z "$why" ] && ok "sysctl key '$key' refused with a reason" || notok "sysctl key '$key': $why"
done

# Profiles: control characters in the name, an expected value or a note
# are refused wherever the profile is read.
mkprofile() { # mkprofile FILE NAME EXPECT NOTE
	python3 - "$@" <<'PY'
import json, sys
out, name, expect, note = sys.argv[1:5]
json.dump({"name": name, "extends": "agent-cpu-inference",
           "checks": {"kernel.sysctl": {"vm.swappiness": {"expect": expect, "note": note}}}}, open(out, "w"))
PY
}
pref() { # pref LABEL KEY FILE
	label=$1 key=$2 file=$3 bad=""
	for c in "profiles validate $file" "--sysroot $fx check --profile $file" "--sysroot $fx plan --profile $file --format sh"; do
		# shellcheck disable=SC2086
		"$NODEAUDIT" $c >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 3 ] || [ "$(lines "$tmp/err")" -ne 1 ] || san "$tmp/err" || ctrl "$tmp/err" ||
		   ! grep -Fq "'$file': $key" "$tmp/err" || ! grep -q "control character U+" "$tmp/err"; then
			bad="'$c': exit $rc: $(head -n 2 "$tmp/err")"
			break
		fi
	done
	[ -z "$bad" ] && ok "profile: $label refused naming $key" || notok "profile: $label: $bad"
}
mkprofile "$tmp/p1.json" "$(printf 'evil\ntouch PWNED')" "<= 10" "n"; pref "newline in the name" "name" "$tmp/p1.json"
mkprofile "$tmp/p2.json" "evil" "$(printf '10\nkernel.core_pattern = |/tmp/evil')" "n"
pref "newline in expect" 'checks."kernel.sysctl"."vm.swappiness".expect' "$tmp/p2.json"
mkprofile "$tmp/p3.json" "evil" "<= 10" "$(printf 'a\033[2Jb')"
pref "ESC in a note" 'checks."kernel.sysctl"."vm.swappiness".note' "$tmp/p3.json"
python3 -c 'import json,sys; json.dump({"name": "evil\u0085x", "checks": {}}, open(sys.argv[1], "w"))' "$tmp/p4.json"
pref "U+0085 (C1) in the name" "name" "$tmp/p4.json"
# $(...) and quotes in an expected value are a value: quoted in the script.
mkprofile "$tmp/p5.json" "evil\$(id)" "\$(touch $tmp/PWNED)'" "n"
"$NODEAUDIT" --sysroot "$fx" plan --profile "$tmp/p5.json" --format sh >"$tmp/p5.sh" 2>"$tmp/err"
if [ $? -eq 0 ] && sh -n "$tmp/p5.sh" && ! unquoted "$tmp/p5.sh" >/dev/null &&
   grep -q "^set_sysctl 'vm.swappiness' '\$(touch $tmp/PWNED)'\\\\'''\$" "$tmp/p5.sh"; then
	ok "profile: \$(...) and a quote in expect: one shell word"
else
	notok "profile: \$(...) in expect (see $tmp/p5.sh)"; cat "$tmp/err"
fi

# Numbers: ids and expected values of 1e300 plan without undefined behaviour.
python3 - "$tmp/base.json" "$tmp/n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fa = d["facts"]
fa.setdefault("numa", {})["nodes"] = [{"id": 1e300, "cpus": "0-3"}, {"id": -5, "cpus": "0-3"}, {"id": 0.5, "cpus": "0-1"}]
fa.setdefault("cpu", {})["core_cpus"] = ["0", "1", "2", "3"]
fa.setdefault("pci", {})["accelerators"] = [{"bdf": "0000:01:00.0", "numa_node": 1e300}, {"bdf": "0000:02:00.0", "numa_node": -1e300}]
for f in d["findings"]:
    if f.get("key") == "vm.swappiness":
        f["expected"] = 1e300
        for x in f["fix"]:
            x.pop("value", None)
            x.pop("step", None)
    if f.get("id") == "cpu.governor":
        f["expected"] = {"min": 1e300}
json.dump(d, open(sys.argv[2], "w"))
PY
bad=""
for fmt in text json sh sysctl systemd; do
	"$NODEAUDIT" plan --report "$tmp/n.json" --format $fmt >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || san "$tmp/err"; then bad="$fmt: exit $rc: $(head -n 3 "$tmp/err")"; break; fi
done
if [ -z "$bad" ]; then
	"$NODEAUDIT" plan --report "$tmp/n.json" --format json >"$tmp/n.plan" 2>/dev/null
	python3 - "$tmp/n.plan" <<'PY' || bad="the plan of 1e300 ids: $(cat "$tmp/err")"
import json, sys
p = json.load(open(sys.argv[1]))
assert all(w.get("node") is None or 0 <= w["node"] <= 1023 for w in p["workers"]), p["workers"]
assert all(f["node"] is None for f in p["feeders"]), p["feeders"]
assert any("not a NUMA node id" in n for n in p["notes"]), p["notes"]
PY
fi
[ -z "$bad" ] && ok "node ids, accelerator nodes and expected values of 1e300: no undefined behaviour, not used as ids" ||
	notok "numbers of 1e300: $bad"

# A sysroot's hostname with controls, $(...) and backquotes: the live plan
# has the lines of the fixture's plan and no raw control.
cp -R "$fx" "$tmp/root"
chmod -R u+w "$tmp/root"
printf 'de\033[2Jsk\302\233$(touch %s/PWNED)`id`\rX\n' "$tmp" >"$tmp/root/proc/sys/kernel/hostname"
"$NODEAUDIT" --sysroot "$fx" plan --format sh >"$tmp/live0.sh" 2>/dev/null
"$NODEAUDIT" --sysroot "$tmp/root" plan --format sh >"$tmp/live.sh" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ! san "$tmp/err" && ! ctrl "$tmp/live.sh" && sh -n "$tmp/live.sh" &&
	[ "$(lines "$tmp/live.sh")" = "$(lines "$tmp/live0.sh")" ] && ! unquoted "$tmp/live.sh" >/dev/null &&
	ok "a sysroot hostname with controls and \$(...): the plan's lines only" || notok "a sysroot hostname (exit $rc)"

# The fuzz target's corpus (fuzz/fuzz-plan.c checks its oracle in process):
# here the real `sh -n` on each script, and its lines outside quotes.
for seed in "$top_srcdir"/fuzz/corpus/plan/*.json "$top_srcdir"/fuzz/regressions/plan/*; do
	[ -f "$seed" ] || continue
	"$NODEAUDIT" plan --report "$seed" --format sh >"$tmp/seed.sh" 2>"$tmp/err"
	rc=$?
	name=$(basename "$seed")
	if san "$tmp/err" || [ $rc -gt 3 ]; then notok "corpus $name: exit $rc"
	elif [ $rc -eq 3 ] && [ "$(lines "$tmp/err")" -ne 1 ]; then notok "corpus $name: refused without one line"
	elif [ $rc -eq 0 ] && ! sh -n "$tmp/seed.sh"; then notok "corpus $name: sh -n fails"
	elif [ $rc -eq 0 ] && (ctrl "$tmp/seed.sh" || unquoted "$tmp/seed.sh" >/dev/null); then notok "corpus $name: a control or an unquoted planted word"
	else ok "corpus $name: $( [ $rc -eq 0 ] && echo 'sh -n parses the script' || echo refused)"
	fi
done

[ -e "$tmp/PWNED" ] && notok "a planted command ran"
echo "1..$n"
[ $fail -eq 0 ]
