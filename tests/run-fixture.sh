#!/bin/sh
# run-fixture.sh - run one declared fixture test (tests/*.test); automake's
# log compiler for .test files (TEST_LOG_COMPILER in Makefile.am), so each
# fixture is a test of its own: exit 0 pass, 1 fail, 77 skip, 99 error.
#
# A .test file holds lines "key: value" (and # comments):
#   sysroot: fixtures/NAME     sysroot directory, relative to tests/ (optional)
#   args:    probe --format json     arguments after --sysroot
#   exit:    0                 expected exit status (default 0)
#   expect:  expected/NAME.json    JSON subset the output must contain (jsubset)
#   expect-text: expected/NAME.txt output must equal this file (diff -u);
#                              the sysroot shows as given (fixtures/NAME)
#   stderr:  REGEX             stderr must match this extended regex
#   grep:    REGEX             stdout must match (may repeat)
#   columns: N                 the text width (COLUMNS); default 100, the
#                              width the older expected files were written at
#   requires-shared: PATH      skip (77) unless $NODEAUDIT_SHARED/PATH (the
#                              real-machine captures, HACKING) exists
#   requires: libcpuid         skip (77) where nodeaudit was built without
#                              libcpuid (config.h; arm64 on Debian 12)
#   wrong:   TEXT              a line of the output known to be wrong (may
#                              repeat): the expect-text file holds the right
#                              text, the test is in XFAIL_TESTS, and
#                              UPDATE_EXPECTED leaves its file alone
# Expected files are written from the machine's known facts, by hand.
#
# UPDATE_EXPECTED=1 (make update-expected) writes the actual output over the
# expect-text file instead of comparing; review the change with git diff.
# JSON subsets (expect:) are never rewritten: edit them by hand.
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
# The text width is pinned as the locale and the time zone are.
COLUMNS=$(val columns | head -n 1); COLUMNS=${COLUMNS:-100}
export COLUMNS

for req in $(val requires); do
	case $req in
	libcpuid) grep -q '^#define HAVE_LIBCPUID 1' "${top_builddir:-.}/config.h" 2>/dev/null ||
		{ echo "SKIP: nodeaudit was built without libcpuid"; exit 77; } ;;
	*) echo "unknown requirement '$req'"; exit 99 ;;
	esac
done
for req in $(val requires-shared); do
	shared=${NODEAUDIT_SHARED:-$tests/../../shared}
	[ -e "$shared/$req" ] || { echo "SKIP: $shared/$req absent"; exit 77; }
done
set --
if [ -n "$sysroot" ]; then
	# The tool runs in tests/ and is given the path as written, so that
	# text shows it as written whatever the tree's own path (a long one
	# wrapped it where a short one did not).
	case $sysroot in
	/*) abs=$sysroot ;;
	*) abs=$tests/$sysroot ;;
	esac
	[ -e "$abs" ] || { echo "fixture $abs missing"; exit 99; }
	set -- --sysroot "$sysroot"
fi
# args are shell words: quotes group ("--command 'llama-server -m m.gguf'").
eval "set -- \"\$@\" $args"
echo "$name: nodeaudit $*"
(cd "$tests" && timeout 60 "$NODEAUDIT" "$@") >"$tmp/out" 2>"$tmp/err"
rc=$?
fail=0 shown=0
if [ "$rc" != "$want_exit" ]; then
	echo "$name: exit $rc, expected $want_exit"; fail=1
fi
exp=$(val expect | head -n 1)
if [ -n "$exp" ]; then
	# jsubset prints one line per mismatch: PATH: WHAT: expected X, got Y
	"$JSUBSET" "$tests/$exp" "$tmp/out" >"$tmp/jsubset" 2>&1 ||
		{ echo "$name: output differs from $exp:"; sed 's/^/  /' "$tmp/jsubset"; fail=1; }
fi
exp=$(val expect-text | head -n 1)
if [ -n "$exp" ]; then
	# The tool runs with the absolute sysroot path: show it relative to tests/.
	sed "s|$tests/||g" "$tmp/out" >"$tmp/text"
	if [ "${UPDATE_EXPECTED:-0}" = 1 ] && [ -z "$(val wrong)" ]; then
		if cmp -s "$tmp/text" "$tests/$exp"; then
			echo "$name: $exp unchanged"
		else
			cp "$tmp/text" "$tests/$exp" && echo "$name: updated $exp (review with git diff)"
		fi
	elif ! diff -u --label "$exp" --label actual "$tests/$exp" "$tmp/text" >"$tmp/diff"; then
		echo "$name: output differs from $exp (- expected, + actual):"
		cat "$tmp/diff"; fail=1; shown=1
	fi
	if [ "${UPDATE_EXPECTED:-0}" = 1 ] && [ -n "$(val wrong)" ]; then
		echo "$name: $exp not updated: the output has known wrong lines:"
		val wrong | sed 's/^/  /'
	fi
fi
val grep | while IFS= read -r re; do
	grep -Eq -- "$re" "$tmp/out" || { echo "$name: stdout lacks /$re/"; exit 1; }
done || fail=1
re=$(val stderr | head -n 1)
if [ -n "$re" ]; then
	grep -Eq -- "$re" "$tmp/err" || { echo "$name: stderr lacks /$re/"; fail=1; }
fi
if [ $fail -ne 0 ]; then
	# Indented, so that no output line reads as a TAP result ("ok ...").
	[ $shown = 1 ] || { echo "--- stdout (head)"; head -n 60 "$tmp/out" | sed 's/^/| /'; }
	echo "--- stderr"; head -n 20 "$tmp/err" | sed 's/^/| /'
fi
exit $fail
