#!/bin/sh
# hostile-docs.sh - the rest of the contract of issue 23, case by case:
#   - documents are UTF-8 or refused: check --facts, plan --report, diff
#     (exit 3, one line naming the file, line and column) and report (the
#     file named and skipped);
#   - error lines naming a file whose name holds a newline, CR, ESC or an
#     8-bit CSI (U+009B) stay one line without a raw control;
#   - report's text and CSV views print no raw control (C0, C1, DEL) from a
#     report's strings; a hostname with a C1 control is refused;
#   - a check --format html drawing of memory slots, DIMMs and NUMA ids of
#     1e300 draws without undefined behaviour;
#   - -o's temporary file goes away on SIGTERM, SIGINT and SIGHUP (strace
#     holds the run in fsync; skipped where ptrace is not allowed);
#     snapshot's partial archive and its tar child go away on SIGTERM (a
#     slow tar first in PATH); snapshot -o refuses a symbolic link;
#   - --help, COMMAND --help and --version into /dev/full or a closed
#     stdout: exit 3 and one line on stderr.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-docs.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
san() { grep -Eq 'runtime error:|Sanitizer' "$@"; }
lines() { wc -l <"$1" | tr -d ' '; }
ctrl() { LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" || LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; }
facts=$top_srcdir/tests/fixtures/check-facts/good.json
fx=$top_srcdir/tests/fixtures/kernel-untuned-desktop

# one_line LABEL WORDS CMD...: exit 3, one line on stderr matching WORDS,
# no raw control in it, nothing on stdout.
one_line() {
	label=$1 words=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] && ! san "$tmp/err" && ! ctrl "$tmp/err" &&
	   grep -Eq "$words" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$label"
	else
		notok "$label (exit $rc): $(head -c 300 "$tmp/err")"
	fi
}

### UTF-8 ###
"$NODEAUDIT" check --facts "$facts" --format json >"$tmp/report.json" 2>/dev/null
# badutf8 IN OUT BYTES: IN with the hostname's first byte replaced by BYTES
badutf8() { python3 - "$@" <<'PY'
import sys
src, dst, bad = sys.argv[1], sys.argv[2], sys.argv[3].encode("latin-1").decode("unicode_escape").encode("latin-1")
b = open(src, "rb").read()
i = b.index(b'"hostname"')
j = b.index(b'"', b.index(b':', i)) + 1
open(dst, "wb").write(b[:j] + bad + b[j:])
PY
}
for bytes in '\xff' '\xc0\xaf' '\xed\xa0\x80' '\xf4\x90\x80\x80' '\xe2\x82'; do
	badutf8 "$facts" "$tmp/f.json" "$bytes"
	one_line "check --facts with $bytes: refused" "'$tmp/f.json': line [0-9]+, column [0-9]+: invalid UTF-8" \
		"$NODEAUDIT" check --facts "$tmp/f.json" --format json
done
badutf8 "$tmp/report.json" "$tmp/r.json" '\xff'
one_line "plan --report with invalid UTF-8: refused" "'$tmp/r.json': line [0-9]+, column [0-9]+: invalid UTF-8" \
	"$NODEAUDIT" plan --report "$tmp/r.json" --format sh
one_line "diff with invalid UTF-8: refused" "'$tmp/r.json': line [0-9]+, column [0-9]+: invalid UTF-8" \
	"$NODEAUDIT" diff "$tmp/report.json" "$tmp/r.json"
mkdir "$tmp/fleet"
cp "$tmp/report.json" "$tmp/fleet/a.json"
cp "$tmp/r.json" "$tmp/fleet/b.json"
"$NODEAUDIT" report "$tmp/fleet" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] && grep -q "skipping '$tmp/fleet/b.json': not UTF-8" "$tmp/err" && ! san "$tmp/err" &&
	ok "report: a file that is not UTF-8 is named and skipped" || notok "report with invalid UTF-8 (exit $rc): $(cat "$tmp/err")"

### File names with controls in error lines ###
weird=$tmp/$(printf 'a\nb\rc\033[2Jd\302\233e')
one_line "a missing facts file named with controls: one clean line" "cannot read" "$NODEAUDIT" check --facts "$weird.json"
printf '{' >"$weird.json"
one_line "a broken facts file named with controls: one clean line" "invalid JSON" "$NODEAUDIT" check --facts "$weird.json"
one_line "a profile named with controls: one clean line" "." "$NODEAUDIT" check --facts "$facts" --profile "$weird.json"
one_line "-o into a directory named with controls: one clean line" "cannot write" \
	"$NODEAUDIT" check --facts "$facts" -o "$weird/x/out.json"

### report text: no raw control from the reports ###
python3 - "$tmp/report.json" "$tmp/fleet2" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
os.mkdir(sys.argv[2])
for i, (host, kernel) in enumerate([("n1", "6.1"), ("n2", "6.1\u009b2J\x1b]0;x\x07\x7f"), ("n3", "6.1\nfake line")]):
    d["host"]["hostname"] = host
    d["host"]["kernel"] = kernel
    json.dump(d, open(os.path.join(sys.argv[2], "r%d.json" % i), "w"))
d["host"]["hostname"] = "evil\u009b31m"
json.dump(d, open(os.path.join(sys.argv[2], "r9.json"), "w"))
PY
for fmt in text csv; do
	"$NODEAUDIT" report "$tmp/fleet2" --format $fmt >"$tmp/out.raw" 2>"$tmp/err"
	rc=$?
	# CSV lines end in CR LF (RFC 4180): that CR is the format's own.
	sed 's/\r$//' "$tmp/out.raw" >"$tmp/out"
	if [ $rc -gt 2 ] || san "$tmp/err" || ctrl "$tmp/out" || ctrl "$tmp/err"; then
		notok "report --format $fmt: raw control characters (exit $rc)"
	elif [ $fmt = text ] && ! grep -q '6\.1?2J?\]0;x??' "$tmp/out"; then
		notok "report --format text: the outlier kernel is not shown cleaned"; cat "$tmp/out"
	elif [ $fmt = text ] && grep -q '^fake line' "$tmp/out"; then
		notok "report --format text: a value added a line"
	elif ! grep -q "r9.json': 'host.hostname' is not printable" "$tmp/err"; then
		notok "report --format $fmt: a C1 hostname is not refused: $(cat "$tmp/err")"
	else
		ok "report --format $fmt: C0, C1 and DEL from reports cleaned, a C1 hostname refused"
	fi
done

### Numbers of 1e300 in a drawing ###
python3 - "$facts" "$tmp/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["memory"]["channels"]["list"] = [{"name": "A", "package": 1e300, "slots": 1e300, "dimms": 1e300, "size_bytes": 1e300},
                                   {"name": "B", "package": 0, "slots": -1e300, "dimms": 2}]
d["cpu"]["packages"] = 1e300
d["numa"]["nodes"][0]["id"] = 1e300
d["numa"]["nodes"][1]["id"] = -1e300
d["pci"]["accelerators"] = [{"bdf": "0000:01:00.0", "numa_node": 1e300}]
json.dump(d, open(sys.argv[2], "w"))
PY
"$NODEAUDIT" check --facts "$tmp/big.json" --format html >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] && ! san "$tmp/err" && grep -q '</html>' "$tmp/out" &&
	ok "check --format html with slots, DIMMs, packages and NUMA ids of 1e300" ||
	notok "html of 1e300 (exit $rc): $(head -n 3 "$tmp/err")"
"$NODEAUDIT" check --facts "$tmp/big.json" --format json >"$tmp/big-report.json" 2>/dev/null
"$NODEAUDIT" plan --report "$tmp/big-report.json" --format systemd >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ! san "$tmp/err" && ! grep -q 'NUMAMask=.*e' "$tmp/out" &&
	ok "plan with NUMA ids of 1e300: no such NUMAMask" || notok "plan of 1e300 ids (exit $rc): $(head -n 3 "$tmp/err")"

### -o and signals ###
mkdir "$tmp/o"
if [ -n "${NODEAUDIT_EMULATOR:-}" ]; then
	# strace would trace the emulator's system calls, under another name.
	for sig in TERM INT HUP; do
		ok "-o and SIG$sig # SKIP nodeaudit runs under $NODEAUDIT_EMULATOR: the process is the emulator's"
	done
elif strace -o /dev/null -e trace=none true 2>/dev/null; then
	for sig in TERM INT HUP; do
		rm -rf "$tmp/o"/* "$tmp/o"/.[!.]* 2>/dev/null
		# A shell starts background jobs with SIGINT ignored, and nodeaudit
		# leaves an ignored signal ignored: the default restored for the run.
		python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
			strace -f -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=4000000 \
			"$NODEAUDIT" check --facts "$facts" --format json -o "$tmp/o/out.json" 2>"$tmp/err" &
		spid=$!
		# held: the temporary file exists; then the traced nodeaudit (not
		# the short-lived children strace forks to test ptrace)
		i=0
		while [ $i -lt 50 ] && [ -z "$(ls -A "$tmp/o")" ]; do sleep 0.1; i=$((i + 1)); done
		had=$(ls -A "$tmp/o")
		pid=$(ps -o pid= -o comm= --ppid "$spid" 2>/dev/null | awk '$2 == "nodeaudit" { print $1 }' | head -n 1)
		[ -n "$pid" ] && kill -$sig "$pid"
		wait $spid 2>/dev/null
		left=$(ls -A "$tmp/o")
		if [ -z "$pid" ] || [ -z "$had" ]; then notok "-o and SIG$sig: the run was not held (pid '$pid', files '$had')"
		elif [ -n "$left" ]; then notok "-o and SIG$sig: left $left"
		else ok "-o: SIG$sig removes the temporary file ($had)"
		fi
	done
else
	echo "# skip: strace cannot trace here; -o signal cleanup not checked"
fi

# snapshot: a slow tar, then SIGTERM: no partial archive, no tar left running.
mkdir "$tmp/bin" "$tmp/s" "$tmp/t"
cat >"$tmp/bin/tar" <<EOF
#!/bin/sh
echo \$\$ >"$tmp/tar.pid"
printf partial >"\$2"
exec sleep 30
EOF
chmod +x "$tmp/bin/tar"
PATH=$tmp/bin:$PATH TMPDIR=$tmp/t "$NODEAUDIT" --sysroot "$fx" snapshot -o "$tmp/s/snap.tar.gz" >/dev/null 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/tar.pid" ]; do sleep 0.1; i=$((i + 1)); done
tpid=$(cat "$tmp/tar.pid" 2>/dev/null)
had=$(ls -A "$tmp/s" "$tmp/t" | tr '\n' ' ')
kill -TERM $pid
wait $pid 2>/dev/null
i=0
while [ $i -lt 30 ] && [ -n "$tpid" ] && kill -0 "$tpid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if [ -z "$tpid" ]; then notok "snapshot: the slow tar did not start: $(cat "$tmp/err")"
elif kill -0 "$tpid" 2>/dev/null; then notok "snapshot: tar ($tpid) still runs after SIGTERM"; kill -9 "$tpid"
elif [ -n "$(ls -A "$tmp/s")" ] || [ -n "$(ls -A "$tmp/t")" ]; then
	notok "snapshot: SIGTERM left $(ls -A "$tmp/s" "$tmp/t" | tr '\n' ' ')"
else
	ok "snapshot: SIGTERM kills tar and removes the partial archive and the stage ($had)"
fi

# snapshot -o a symbolic link: refused, the link and its target untouched.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.tar.gz"
mkdir "$tmp/emptydir"
ln -s "$tmp/emptydir" "$tmp/linkdir"
for out in "$tmp/link.tar.gz" "$tmp/linkdir"; do
	one_line "snapshot -o $(basename "$out") (a symbolic link): refused" "symbolic link" \
		"$NODEAUDIT" --sysroot "$fx" snapshot -o "$out"
done
[ -L "$tmp/link.tar.gz" ] && [ "$(cat "$tmp/target")" = keep ] && [ -L "$tmp/linkdir" ] &&
	[ -z "$(ls -A "$tmp/emptydir")" ] && ok "snapshot: the links and their targets are untouched" ||
	notok "snapshot replaced or followed a symbolic link"

### --help and --version into a full disk or a closed stdout ###
for a in "--help" "--version" "plan --help" "check --version" "help" "help plan"; do
	# shellcheck disable=SC2086
	"$NODEAUDIT" $a >/dev/full 2>"$tmp/err"; rc=$?
	[ $rc -eq 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q "cannot write to standard output: No space left" "$tmp/err" &&
		ok "$a >/dev/full: exit 3 with a message" || notok "$a >/dev/full (exit $rc): $(cat "$tmp/err")"
	# shellcheck disable=SC2086
	"$NODEAUDIT" $a >&- 2>"$tmp/err"; rc=$?
	[ $rc -eq 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q "cannot write to standard output" "$tmp/err" &&
		ok "$a with stdout closed: exit 3 with a message" || notok "$a >&- (exit $rc): $(cat "$tmp/err")"
done

echo "1..$n"
[ $fail -eq 0 ]
