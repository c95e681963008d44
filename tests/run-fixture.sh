#!/bin/sh
# run-fixture.sh - run one declared fixture test (tests/*.test).
#
# A .test file holds lines "key: value":
#   sysroot: fixtures/NAME     sysroot directory, relative to tests/ (optional)
#   args:    probe --format json     arguments after --sysroot
#   exit:    0                 expected exit status (default 0)
#   expect:  expected/NAME.json    JSON subset the output must contain (jsubset)
#   expect-text: expected/NAME.txt output must equal this file
#   stderr:  REGEX             stderr must match this extended regex
#   grep:    REGEX             stdout must match (may repeat)
#   requires-shared: PATH      skip (77) unless ../shared/PATH exists
# Expected files are written from the machine's known facts, by hand.
set -u
t=$1
tests=$(cd "$(dirname "$t")" && pwd)
name=$(basename "$t" .test)
: "${NODEAUDIT:?}" "${JSUBSET:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fixture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

val() { sed -n "s/^$1:[[:space:]]*//p" "$t"; }
sysroot=$(val sysroot | head -n 1)
args=$(val args | head -n 1)
want_exit=$(val exit | head -n 1); want_exit=${want_exit:-0}

for req in $(val requires-shared); do
	shared=${NODEAUDIT_SHARED:-$tests/../../shared}
	[ -e "$shared/$req" ] || { echo "SKIP: $shared/$req absent"; exit 77; }
done
set --
if [ -n "$sysroot" ]; then
	case $sysroot in
	/*) ;;
	*) sysroot=$tests/$sysroot ;;
	esac
	[ -e "$sysroot" ] || { echo "fixture $sysroot missing"; exit 99; }
	set -- --sysroot "$sysroot"
fi
# args are shell words: quotes group ("--command 'llama-server -m m.gguf'").
eval "set -- \"\$@\" $args"
(cd "$tests" && timeout 60 "$NODEAUDIT" "$@") >"$tmp/out" 2>"$tmp/err"
rc=$?
fail=0
if [ "$rc" != "$want_exit" ]; then
	echo "$name: exit $rc, expected $want_exit"; fail=1
fi
exp=$(val expect | head -n 1)
if [ -n "$exp" ]; then
	"$JSUBSET" "$tests/$exp" "$tmp/out" || { echo "$name: output differs from $exp"; fail=1; }
fi
exp=$(val expect-text | head -n 1)
if [ -n "$exp" ]; then
	diff -u "$tests/$exp" "$tmp/out" || { echo "$name: output differs from $exp"; fail=1; }
fi
val grep | while IFS= read -r re; do
	grep -Eq -- "$re" "$tmp/out" || { echo "$name: stdout lacks /$re/"; exit 1; }
done || fail=1
re=$(val stderr | head -n 1)
if [ -n "$re" ]; then
	grep -Eq -- "$re" "$tmp/err" || { echo "$name: stderr lacks /$re/"; fail=1; }
fi
if [ $fail -ne 0 ]; then
	echo "--- stdout (head)"; head -n 60 "$tmp/out"
	echo "--- stderr"; head -n 20 "$tmp/err"
fi
exit $fail
