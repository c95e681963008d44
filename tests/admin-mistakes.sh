#!/bin/sh
# admin-mistakes.sh - what an admin gets wrong in the first hours, each named
# in one line that says what to do (issue 45): a TMPDIR nodeaudit cannot
# write in (named, with where it came from); ...
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
fx=$(cd "$top_srcdir/tests/fixtures" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mistakes.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
# run WANT NAME CMD...: stdout in $tmp/out, stderr in $tmp/err
run() {
	want=$1 name=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$name: exit $want"
	else nok "$name: exit $rc, want $want"; sed 's/^/# /' "$tmp/err" | head -5; fi
}
err_is() { # err_is LINE: stderr is exactly that one line
	if [ "$(cat "$tmp/err")" = "$1" ]; then ok "says: $1"
	else nok "stderr is not '$1'"; sed 's/^/# /' "$tmp/err" | head -5; fi
}

## 6. A TMPDIR that cannot be used: the path and TMPDIR named, one line.
tar -czf "$tmp/node.tar.gz" -C "$fx/cpu-vm" .
run 3 "check --sysroot ARCHIVE with TMPDIR missing" env TMPDIR="$tmp/no-such-dir" "$NODEAUDIT" check --sysroot "$tmp/node.tar.gz"
err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/no-such-dir' (TMPDIR): No such file or directory; set TMPDIR to a directory you can write in"
: >"$tmp/a-file"
run 3 "probe --sysroot ARCHIVE with TMPDIR a file" env TMPDIR="$tmp/a-file" "$NODEAUDIT" probe --sysroot "$tmp/node.tar.gz"
err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/a-file' (TMPDIR): Not a directory; set TMPDIR to a directory you can write in"
run 3 "snapshot to an archive with TMPDIR missing" env TMPDIR="$tmp/no-such-dir" "$NODEAUDIT" --sysroot "$fx/cpu-vm" snapshot -o "$tmp/s.tar.gz"
err_is "nodeaudit: cannot create the staging directory of '$tmp/s.tar.gz': cannot create a temporary directory in '$tmp/no-such-dir' (TMPDIR): No such file or directory; set TMPDIR to a directory you can write in"
if [ "$(id -u)" != 0 ]; then   # root writes in a mode-0555 directory
	mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
	run 3 "check --sysroot ARCHIVE with TMPDIR not writable" env TMPDIR="$tmp/ro" "$NODEAUDIT" check --sysroot "$tmp/node.tar.gz"
	err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/ro' (TMPDIR): Permission denied; set TMPDIR to a directory you can write in"
else
	echo "ok $((n + 1)) - TMPDIR not writable # SKIP run as root, who writes in a mode-0555 directory"; n=$((n + 1))
fi

echo "1..$n"
[ $fail -eq 0 ]
