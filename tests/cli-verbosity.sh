#!/bin/sh
# cli-verbosity.sh - -q prints the results only, -v the probes and their
# timings, -vv every file read, -q with -v is refused; a mistyped long
# option gets the nearest one suggested, as a mistyped command does.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/verbosity.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t() { # t NAME WANT_EXIT CMD...
	name=$1 want=$2; shift 2
	n=$((n + 1))
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then echo "ok $n - $name"
	else echo "not ok $n - $name (exit $rc, want $want)"; sed 's/^/  /' "$tmp/err"; fail=$((fail + 1)); fi
}
has() { grep -q -- "$1" "$tmp/out" || { echo "not ok - output lacks '$1'"; fail=$((fail + 1)); }; }
lacks() { ! grep -q -- "$1" "$tmp/out" || { echo "not ok - output has '$1'"; fail=$((fail + 1)); }; }
err_is() { [ "$(cat "$tmp/err")" = "$1" ] || { echo "not ok - stderr is '$(cat "$tmp/err")', want '$1'"; fail=$((fail + 1)); }; }
err_has() { grep -q -- "$1" "$tmp/err" || { echo "not ok - stderr lacks '$1'"; fail=$((fail + 1)); }; }
err_lines() { [ "$(wc -l <"$tmp/err")" -eq "$1" ] || { echo "not ok - stderr has $(wc -l <"$tmp/err") lines, want $1"; fail=$((fail + 1)); }; }

bad=$fx/check-facts/bad.json
# bad.json: memory.ecc fails with two fixes; 3 fail, 6 warn (text-check-bad).
t "check: fixes shown" 2 "$NODEAUDIT" check --facts "$bad"; has "fix (hardware): Install ECC DIMMs"
t "-q check: the results only" 2 "$NODEAUDIT" -q check --facts "$bad"
has "^fail    memory.ecc "; has "^3 fail, 6 warn"; lacks "fix ("; lacks "could not be decided"
[ -s "$tmp/err" ] && { echo "not ok - -q wrote to stderr"; fail=$((fail + 1)); }
t "-q check: still every finding" 2 "$NODEAUDIT" --quiet check --facts "$bad"
[ "$(grep -c '^\(fail\|warn\|info\|pass\|unknown\|skip\) ' "$tmp/out")" = \
  "$("$NODEAUDIT" check --facts "$bad" | grep -c '^\(fail\|warn\|info\|pass\|unknown\|skip\) ')" ] ||
	{ echo "not ok - -q dropped findings"; fail=$((fail + 1)); }
t "plan: hints" 0 "$NODEAUDIT" --sysroot "$fx/numa-2node" plan; has "writes these as files"
t "-q plan: no hints or notes" 0 "$NODEAUDIT" -q --sysroot "$fx/numa-2node" plan
lacks "writes these as files"; lacks "^Notes"; lacks "why: "; has "^Inference workers"

t "-v: each probe with its time" 0 "$NODEAUDIT" -v --sysroot "$fx/numa-2node" probe
for p in host cpu numa memory pci kernel; do
	err_has "debug: probe $p: [0-9.]* ms, [0-9]* files\? read"
done
grep -q "debug:   read " "$tmp/err" && { echo "not ok - -v lists files (that is -vv)"; fail=$((fail + 1)); }
t "-vv: every file read" 0 "$NODEAUDIT" -vv --sysroot "$fx/numa-2node" probe --only numa
err_has "debug:   read /sys/devices/system/node/online"
t "-v -v is -vv" 0 "$NODEAUDIT" -v -v --sysroot "$fx/numa-2node" probe --only numa
err_has "debug:   read /sys/devices/system/node/online"

for q in "-q -v" "-v -q" "-qv" "--quiet --verbose"; do
	# shellcheck disable=SC2086
	t "$q refused" 3 "$NODEAUDIT" $q --sysroot "$fx/numa-2node" probe
	err_has "contradict"; err_lines 1
	[ -s "$tmp/out" ] && { echo "not ok - $q printed output"; fail=$((fail + 1)); }
done

t "--profil" 3 "$NODEAUDIT" check --profil base
err_is "nodeaudit: unknown option '--profil' (did you mean '--profile'?); try 'nodeaudit check --help'"
t "--profil before no command" 3 "$NODEAUDIT" --profil base
err_is "nodeaudit: unknown option '--profil' (did you mean '--profile'?); try 'nodeaudit --help'"
t "--verison" 3 "$NODEAUDIT" --verison
err_is "nodeaudit: unknown option '--verison' (did you mean '--version'?); try 'nodeaudit check --help'"
t "--fail-onn=warn" 3 "$NODEAUDIT" check --fail-onn=warn
err_has "did you mean '--fail-on'?"
t "--formt json" 3 "$NODEAUDIT" probe --formt json
err_has "did you mean '--format'?"
t "nothing near" 3 "$NODEAUDIT" probe --zzzzzzzz
err_is "nodeaudit: unknown option '--zzzzzzzz'; try 'nodeaudit probe --help'"
echo "1..$n"
[ $fail -eq 0 ]
