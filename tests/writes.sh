#!/bin/sh
# writes.sh - nodeaudit writes only where -o says, through a temporary file
# renamed in the same directory: never into the sysroot it reads (also not
# through a symlink), nothing (not even the temporary file) left behind on
# failure, an existing file untouched by a failed run; snapshot refuses to
# write inside the sysroot, nor plan make a directory there; bench refuses a --size beyond its memory budget
# before allocating it.  The read-only directory case runs as uid 65534
# (root and setpriv needed; skipped otherwise).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/writes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

sr=$tmp/sr
cp -a "$top_srcdir/tests/fixtures/check-node" "$sr"
chmod -R u+w "$sr"
find "$sr" | sort >"$tmp/sr.before"
unchanged() { find "$sr" | sort | cmp -s - "$tmp/sr.before"; }

# refused LABEL WORDS DIR CMD...: exit 3, one line matching WORDS, DIR unchanged.
refused() {
	label=$1 words=$2 dir=$3
	shift 3
	ls -A "$dir" >"$tmp/dir.before" 2>/dev/null
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq "$words" "$tmp/err" &&
	   ls -A "$dir" 2>/dev/null | cmp -s - "$tmp/dir.before" && unchanged; then
		ok "$label"
	else
		notok "$label (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3; ls -A "$dir" | sed 's/^/#   left: /'
	fi
}

### -o into the sysroot ###
refused "probe -o inside the sysroot" 'refusing to write .* inside the sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" probe --format json -o "$sr/out.json"
refused "check -o inside the sysroot (a subdirectory)" 'inside the sysroot' "$sr/proc" \
	"$NODEAUDIT" --sysroot "$sr" check -o "$sr/proc/report.txt"
ln -s "$sr/proc" "$tmp/via-link"
refused "probe -o through a symlink into the sysroot" 'inside the sysroot' "$sr/proc" \
	"$NODEAUDIT" --sysroot "$sr" probe -o "$tmp/via-link/out.json"
refused "snapshot -o inside the sysroot" 'inside the sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" snapshot -o "$sr/snap"
refused "snapshot -o the sysroot itself" 'sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" snapshot -o "$sr"
refused "snapshot -o an archive inside the sysroot" 'inside the sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" snapshot -o "$sr/snap.tar.gz"
refused "plan --format tuned -o a new profile directory inside the sysroot" 'inside the sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" plan --format tuned -o "$sr/agent-node"
refused "plan --format systemd -o a new directory tree inside the sysroot" 'inside the sysroot' "$sr" \
	"$NODEAUDIT" --sysroot "$sr" plan --format systemd -o "$sr/units/system/"

### Atomic replacement ###
mkdir "$tmp/out"
echo old >"$tmp/out/report.json"
refused "a failed check leaves the existing -o file as it was" "cannot read profile" "$tmp/out" \
	"$NODEAUDIT" --sysroot "$sr" check --profile "$tmp/nothing.json" -o "$tmp/out/report.json"
echo '{' >"$tmp/bad.json"
refused "a refused profile: no -o file, no temporary file" "invalid JSON" "$tmp/out" \
	"$NODEAUDIT" --sysroot "$sr" check --profile "$tmp/bad.json" -o "$tmp/out/new.json"
[ "$(cat "$tmp/out/report.json")" = old ] && ok "the old file's content is intact" || notok "old file changed"
"$NODEAUDIT" --sysroot "$sr" probe --format json -o "$tmp/out/report.json" 2>"$tmp/err"
rc=$?
if [ $rc -le 2 ] && [ "$(ls -A "$tmp/out")" = report.json ] && grep -q '"schema"' "$tmp/out/report.json"; then
	ok "a successful run replaces the file, no temporary file left"
else
	notok "successful -o (exit $rc): $(ls -A "$tmp/out" | tr '\n' ' ')"
fi
refused "-o into a missing directory" "cannot write" "$tmp" \
	"$NODEAUDIT" --sysroot "$sr" probe -o "$tmp/missing/out.json"
mkdir "$tmp/out/adir"
refused "-o naming a directory: nothing left beside it" "cannot write" "$tmp/out" \
	"$NODEAUDIT" --sysroot "$sr" probe -o "$tmp/out/adir"

### -o into a directory the user may not write ###
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$tmp"
	mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
	cp "$NODEAUDIT" "$tmp/nodeaudit" && chmod 755 "$tmp/nodeaudit"
	chmod -R a+rX "$sr"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}log_path=stderr"
	export ASAN_OPTIONS
	refused "-o into a read-only directory as uid 65534: nothing created" "cannot write .*ermission denied" "$tmp/ro" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/nodeaudit" --sysroot "$sr" probe -o "$tmp/ro/out.json"
else
	skip "-o into a read-only directory as uid 65534: needs root and setpriv"
fi

### bench: a --size beyond the budget is refused before it is allocated ###
avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
if [ -n "$avail" ]; then
	limit=""
	# Under a 256 MB address-space limit an allocation of MemAvailable would
	# fail; the sanitizer build cannot start under one (its shadow memory),
	# and under qemu-user the emulator's own mappings count against it and
	# vary from run to run (a library's segment failed to map once in two).
	if [ -z "${NODEAUDIT_EMULATOR:-}" ] && (ulimit -v 262144 && "$NODEAUDIT" --version) >/dev/null 2>&1; then
		limit=262144
	fi
	(
		[ -n "$limit" ] && ulimit -v "$limit"
		exec "$NODEAUDIT" bench --size "${avail}K" --seconds 1
	) >"$tmp/out.txt" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "would not fit in half of the .* available memory; use a smaller --size" "$tmp/err"; then
		ok "bench --size ${avail}K (all of MemAvailable) refused${limit:+ under ulimit -v $limit}: $(cat "$tmp/err")"
	else
		notok "bench --size ${avail}K (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3
	fi
else
	skip "bench budget: no MemAvailable in /proc/meminfo"
fi

echo "1..$n"
[ $fail -eq 0 ]
