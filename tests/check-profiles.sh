#!/bin/sh
# check-profiles.sh - every profiles/*.json validates; profiles list/show and
# explain work; profile errors exit 3 with one line.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
t() { # t NAME WANT_EXIT CMD...
	name=$1 want=$2; shift 2
	n=$((n + 1))
	"$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" = "$want" ]; then echo "ok $n - $name"
	else echo "not ok $n - $name (exit $rc, want $want)"; sed 's/^/#   /' "$err"; fail=$((fail + 1)); fi
}
has() { grep -Eq -- "$1" "$out" || { echo "not ok - output lacks /$1/"; fail=$((fail + 1)); }; }
has_err() { grep -Eq -- "$1" "$err" || { echo "not ok - stderr lacks /$1/"; sed 's/^/#   /' "$err"; fail=$((fail + 1)); }; }
one_line_err() { [ "$(wc -l <"$err")" -eq 1 ] || { echo "not ok - stderr is not one line"; fail=$((fail + 1)); }; }

for f in "$top_srcdir"/profiles/*.json; do
	t "validate $(basename "$f")" 0 "$NODEAUDIT" profiles validate "$f"; has ": ok, profile"
done
# Wide enough that no description wraps: the lines are matched whole.
t "profiles list" 0 env COLUMNS=1000 "$NODEAUDIT" profiles list
has "^agent-cpu-inference .*\(default\)$"; has "^base "; has "^agent-orchestrator "; has "^agent-accelerator-host "
t "profiles list --format json" 0 "$NODEAUDIT" profiles list --format json; has '"default":[[:space:]]*true'
t "profiles show" 0 "$NODEAUDIT" profiles show agent-cpu-inference
has "chain: base > agent-cpu-inference"; has "^  cpu.smt +warn +agent-cpu-inference +off$"
has "^  kernel.sysctl vm.swappiness +warn +base +<= 10$"
t "profiles show --format json" 0 "$NODEAUDIT" profiles show agent-orchestrator --format json
has '"net.ipv4.tcp_fin_timeout":[[:space:]]*\{'
t "profiles show unknown" 3 "$NODEAUDIT" profiles show agent-cpu-inferense
has_err "no profile named 'agent-cpu-inferense' \(did you mean 'agent-cpu-inference'\?\)"; one_line_err
t "profiles validate a broken file" 3 "$NODEAUDIT" profiles validate "$top_srcdir/tests/fixtures/check-profiles/typo.json"
has_err "typo.json': checks.\"cpu.smtt\": unknown check \(did you mean 'cpu.smt'\?\)"; one_line_err
t "profiles validate a missing file" 3 "$NODEAUDIT" profiles validate /nonexistent/x.json
has_err "cannot read profile '/nonexistent/x.json'"; one_line_err
t "profiles without a subcommand" 3 "$NODEAUDIT" profiles
t "profiles bad subcommand" 3 "$NODEAUDIT" profiles frob

# NODEAUDIT_PROFILE_PATH comes first in the search.
dir=$(mktemp -d)
printf '{"description": "site override", "extends": "base", "checks": {"memory.ecc": null}}\n' >"$dir/site.json"
t "profile from NODEAUDIT_PROFILE_PATH" 0 env NODEAUDIT_PROFILE_PATH="$dir" "$NODEAUDIT" profiles show site
has "site override"; ! grep -q "memory.ecc " "$out" || { echo "not ok - memory.ecc not disabled"; fail=$((fail + 1)); }
rm -rf "$dir"

t "explain list" 0 "$NODEAUDIT" explain; has "^cpu.smt +SMT"; has "^pci.accelerator.uplink "
t "explain cpu.smt" 0 "$NODEAUDIT" explain cpu.smt; has "8-12%"; has "agent-cpu-inference +off \(warn\)"
has "echo off > /sys/devices/system/cpu/smt/control"
t "explain numa.balancing" 0 "$NODEAUDIT" explain numa.balancing
has "Where sources disagree"; has "PerfSpect"; has "hpc-compute"; has "llama.cpp"
t "explain kernel.sysctl.vm.swappiness" 0 "$NODEAUDIT" explain kernel.sysctl.vm.swappiness; has "4096-node"
t "explain typo" 3 "$NODEAUDIT" explain cpu.smtt; has_err "did you mean 'cpu.smt'"; one_line_err

t "check --fail-on bad" 3 "$NODEAUDIT" check --fail-on sometimes; one_line_err
t "check --format yaml" 3 "$NODEAUDIT" check --format yaml; one_line_err
t "check --facts missing" 3 "$NODEAUDIT" check --facts /nonexistent.json; one_line_err
echo '{"cpu": ' >"$out.bad"
t "check --facts garbled" 3 "$NODEAUDIT" check --facts "$out.bad"; has_err "line 2, column 1: invalid JSON"; one_line_err
rm -f "$out.bad"
# nodeaudit alone runs check with the default profile (on a guest, the
# guest profile: tests/profiles-recommend.sh).
t "no command runs check" "$(NO_COLOR=1 "$NODEAUDIT" >/dev/null 2>&1; echo $?)" "$NODEAUDIT"
has "^nodeaudit check: profile agent-(cpu-inference \\(base > agent-cpu-inference\\)|vm-guest \\(base > agent-cpu-inference > agent-vm-guest\\))"
t "--color always colours the status" 1 "$NODEAUDIT" --color always check --facts "$top_srcdir/tests/fixtures/check-facts/warn.json"
grep -q "$(printf '\033')\[" "$out" || { echo "not ok - no colour with --color always"; fail=$((fail + 1)); }
t "NO_COLOR: no escape codes" 1 env NO_COLOR=1 "$NODEAUDIT" check --facts "$top_srcdir/tests/fixtures/check-facts/warn.json"
! grep -q "$(printf '\033')" "$out" || { echo "not ok - colour despite NO_COLOR"; fail=$((fail + 1)); }
awk 'length($0) > 100 { print "long: " $0; bad = 1 } END { exit bad }' "$out" || fail=$((fail + 1))
for p in agent-accelerator-host agent-cpu-inference agent-orchestrator; do
	t "text of bad/$p fits 100 columns" 2 "$NODEAUDIT" check --profile $p --facts "$top_srcdir/tests/fixtures/check-facts/bad.json"
	awk 'length($0) > 100 { print "not ok - long line: " $0; bad = 1 } END { exit bad }' "$out" || fail=$((fail + 1))
done
echo "1..$n"
[ $fail -eq 0 ]
