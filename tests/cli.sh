#!/bin/sh
# cli.sh - the command line behaves like a GNU tool (DESIGN.md, exit codes)
set -u
: "${NODEAUDIT:?}"
n=0 fail=0
t() { # t NAME WANT_EXIT CMD...
	name=$1 want=$2; shift 2
	n=$((n + 1))
	"$@" >/tmp/cli.$$.out 2>/tmp/cli.$$.err
	rc=$?
	if [ "$rc" = "$want" ]; then echo "ok $n - $name"
	else echo "not ok $n - $name (exit $rc, want $want)"; cat /tmp/cli.$$.err; fail=$((fail + 1)); fi
}
has() { grep -q -- "$1" /tmp/cli.$$.out || { echo "not ok - output lacks '$1'"; fail=$((fail + 1)); }; }
has_err() { grep -q -- "$1" /tmp/cli.$$.err || { echo "not ok - stderr lacks '$1'"; fail=$((fail + 1)); }; }
lines_err() { [ "$(wc -l </tmp/cli.$$.err)" -eq "$1" ] || { echo "not ok - stderr has $(wc -l </tmp/cli.$$.err) lines, want $1"; fail=$((fail + 1)); }; }

t "--version" 0 "$NODEAUDIT" --version; has "nodeaudit 0.1.0"
t "--help" 0 "$NODEAUDIT" --help; has "Usage: nodeaudit"; has "probe"
t "help probe" 0 "$NODEAUDIT" help probe; has "Usage: nodeaudit probe"
t "probe --help" 0 "$NODEAUDIT" probe --help; has "Usage: nodeaudit probe"
t "unknown command" 3 "$NODEAUDIT" frobnicate; has_err "not a nodeaudit command"; lines_err 1
t "unknown option" 3 "$NODEAUDIT" --frobnicate; lines_err 1
t "unknown command option" 3 "$NODEAUDIT" probe --frobnicate; has_err "try 'nodeaudit probe --help'"; lines_err 1
t "missing option value" 3 "$NODEAUDIT" probe --format; lines_err 1
t "bad format" 3 "$NODEAUDIT" probe --format yaml; has_err "format 'yaml'"; lines_err 1
t "bad color" 3 "$NODEAUDIT" --color sometimes probe; lines_err 1
t "help for unknown command" 3 "$NODEAUDIT" help frobnicate
t "missing sysroot" 3 "$NODEAUDIT" --sysroot /nonexistent/dir probe; has_err "/nonexistent/dir"; lines_err 1
t "unexpected operand" 3 "$NODEAUDIT" probe extra; lines_err 1
tmp=$(mktemp -d)
t "-o writes atomically" 0 "$NODEAUDIT" probe --format json -o "$tmp/out.json"
[ -s "$tmp/out.json" ] && ! ls -A "$tmp" | grep -q '^\.' || { echo "not ok - -o left no file or a temp file"; fail=$((fail + 1)); }
t "-o into a missing directory" 3 "$NODEAUDIT" probe -o "$tmp/no/such/dir/x"; lines_err 1
rm -rf "$tmp"
rm -f /tmp/cli.$$.out /tmp/cli.$$.err
echo "1..$n"
[ $fail -eq 0 ]
