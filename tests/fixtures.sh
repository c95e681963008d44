#!/bin/sh
# fixtures.sh - run every declared fixture test (tests/*.test) through
# run-fixture.sh; TAP-style lines, one per fixture.  FIXTURES=glob narrows.
set -u
here=$(cd "$(dirname "$0")" && pwd)
n=0 fail=0 skip=0
for t in "$here"/${FIXTURES:-*}.test; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	out=$(sh "$here/run-fixture.sh" "$t" 2>&1)
	rc=$?
	name=$(basename "$t" .test)
	case $rc in
	0) echo "ok $n - $name" ;;
	77) echo "ok $n - $name # SKIP $out"; skip=$((skip + 1)) ;;
	*) echo "not ok $n - $name"; printf '%s\n' "$out" | sed 's/^/#   /'; fail=$((fail + 1)) ;;
	esac
done
echo "1..$n"
echo "# fixtures: $((n - fail - skip)) passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
