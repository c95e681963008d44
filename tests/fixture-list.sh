#!/bin/sh
# fixture-list.sh - the fixture tests' declarations hang together: every
# tests/*.test is listed in FIXTURE_TESTS in Makefile.am (so that make check
# runs it) and every listed one exists; every expect/expect-text file a test
# names exists; a test with wrong: lines is in XFAIL_TESTS and only then.
# Each fixture itself runs as a test of its own (tests/run-fixture.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mk=$top/Makefile.am
[ -f "$mk" ] || { echo "# SKIP: no Makefile.am"; echo "1..0 # SKIP no Makefile.am"; exit 77; }
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# The items of a Makefile.am list (one per line, continued with backslashes).
list() {
	awk -v name="$1" '
		!on && $1 == name && $2 == "=" { on = 1; $1 = ""; $2 = "" }
		on { more = sub(/\\$/, ""); for (i = 1; i <= NF; i++) print $i; if (!more) exit }' "$mk"
}
list FIXTURE_TESTS | sort >"${TMPDIR:-/tmp}/fixtures.listed.$$"
list XFAIL_TESTS | sort >"${TMPDIR:-/tmp}/fixtures.xfail.$$"
listed=${TMPDIR:-/tmp}/fixtures.listed.$$ xfail=${TMPDIR:-/tmp}/fixtures.xfail.$$
trap 'rm -f "$listed" "$listed.f" "$xfail"' EXIT

if [ -s "$listed" ]; then ok "FIXTURE_TESTS is not empty"; else notok "FIXTURE_TESTS is empty"; fi
for t in "$top"/tests/*.test; do
	rel=tests/${t##*/}
	if grep -qx "$rel" "$listed"; then ok "$rel listed"; else notok "$rel is not in FIXTURE_TESTS (Makefile.am)"; fi
	for key in expect expect-text; do
		sed -n "s/^$key:[[:space:]]*//p" "$t" >"$listed.f"
		while read -r f; do
			if [ -f "$top/tests/$f" ]; then ok "$rel: $f exists"; else notok "$rel: $key: tests/$f missing"; fi
		done <"$listed.f"
	done
	if grep -q '^wrong:' "$t"; then
		if grep -qx "$rel" "$xfail"; then ok "$rel (wrong: lines) in XFAIL_TESTS"
		else notok "$rel has wrong: lines but is not in XFAIL_TESTS"; fi
	elif grep -qx "$rel" "$xfail"; then
		notok "$rel is in XFAIL_TESTS without wrong: lines"
	fi
done
while read -r rel; do
	[ -f "$top/$rel" ] || notok "$rel is listed in FIXTURE_TESTS but missing"
done <"$listed"

# run-fixture.sh itself, on made-up expectations for cpu-vm (4 sockets of
# one core): a failure names the JSON path with both values, shows a text
# difference as a unified diff, and UPDATE_EXPECTED rewrites only text.
if [ -n "${NODEAUDIT:-}" ] && [ -n "${JSUBSET:-}" ]; then
	d=$(mktemp -d "${TMPDIR:-/tmp}/fixtures.XXXXXX")
	trap 'rm -f "$listed" "$listed.f" "$xfail"; rm -rf "$d"' EXIT
	ln -s "$top/tests/fixtures" "$d/fixtures"
	run() { sh "$top/tests/run-fixture.sh" "$d/$1" >"$d/log" 2>&1; }
	printf 'sysroot: fixtures/cpu-vm\nargs: probe --format json\nexpect: j.json\n' >"$d/j.test"
	echo '{"cpu": {"packages": 2, "cores": 4}}' >"$d/j.json"
	run j.test
	if [ $? = 1 ] && grep -qx '  cpu.packages: differs: expected 2, got 4' "$d/log"; then
		ok "run-fixture: a JSON mismatch names the path, expected and actual"
	else notok "run-fixture: JSON mismatch"; sed 's/^/#   /' "$d/log"; fi
	printf 'sysroot: fixtures/cpu-vm\nargs: probe --only cpu\nexit: 3\nexpect-text: t.txt\n' >"$d/t.test"
	printf 'CPU\n  sysroot                fixtures/cpu-vm\n' >"$d/t.txt"
	run t.test
	if [ $? = 1 ] && grep -qx 't: exit 0, expected 3' "$d/log" && grep -qx -- '--- t.txt' "$d/log" &&
		grep -qx '+Host' "$d/log" && grep -qx '+++ actual' "$d/log" &&
		grep -qx '   sysroot                fixtures/cpu-vm' "$d/log" && ! grep -q '^ok ' "$d/log"; then
		ok "run-fixture: a text mismatch is a unified diff, the sysroot shown as given"
	else notok "run-fixture: text mismatch"; sed 's/^/#   /' "$d/log"; fi
	sed -i 's/^exit: 3$/exit: 0/' "$d/t.test"
	cp "$d/j.json" "$d/j.orig"
	printf 'expect: j.json\n' >>"$d/t.test"
	UPDATE_EXPECTED=1 run t.test
	if [ $? = 1 ] && grep -q '^  virtualization         guest (KVM)$' "$d/t.txt" && cmp -s "$d/j.json" "$d/j.orig"; then
		ok "run-fixture: UPDATE_EXPECTED rewrites the text file, not the JSON subset"
	else notok "run-fixture: UPDATE_EXPECTED"; sed 's/^/#   /' "$d/log"; fi
	sed -i '/^expect: /d' "$d/t.test"
	if run t.test; then ok "run-fixture: the rewritten text file passes"
	else notok "run-fixture: rewritten text"; sed 's/^/#   /' "$d/log"; fi
	printf 'CPU\n' >"$d/t.txt"
	printf 'wrong: CPU\n' >>"$d/t.test"
	UPDATE_EXPECTED=1 run t.test
	if [ $? = 1 ] && [ "$(cat "$d/t.txt")" = CPU ] && grep -q 'not updated' "$d/log"; then
		ok "run-fixture: UPDATE_EXPECTED leaves a test with wrong: lines alone"
	else notok "run-fixture: UPDATE_EXPECTED with wrong:"; sed 's/^/#   /' "$d/log"; fi
else
	echo "# NODEAUDIT or JSUBSET unset: run-fixture.sh not exercised"
fi
echo "1..$n"
[ $fail -eq 0 ]
