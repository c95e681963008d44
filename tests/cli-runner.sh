#!/bin/sh
# cli-runner.sh - the one command runner: options anywhere, colour decided
# last, help from the command table, inputs that are not what they claim
# refused, -o writing regular files only, strings from other machines made
# safe for JSON and terminals.  Each case failed before the runner existed.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
facts=$top_srcdir/tests/fixtures/check-facts
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# run WANT_EXIT CMD...: stdout in $tmp/out, stderr in $tmp/err; 0 if the exit matched.
run() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "# exit $rc, want $want: $*"; sed 's/^/#   /' "$tmp/err" | head -5; return 1; }
}
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }
esc=$(printf '\033')

# Options anywhere; the command's usage and formats from its table.
run 0 "$NODEAUDIT" check --facts "$facts/good.json" --format json; res "command options after the command" $?
run 0 "$NODEAUDIT" --format json check --facts "$facts/good.json"; res "global option before the command" $?
run 0 "$NODEAUDIT" --facts "$facts/good.json" check --format json; res "command option before the command" $?
run 0 "$NODEAUDIT" help --help; res "help --help" $?
grep -q '^Usage: nodeaudit help' "$tmp/out"; res "help --help prints help's usage" $?
run 0 "$NODEAUDIT" --help; grep -q '^  help ' "$tmp/out"; res "--help lists the help command" $?
run 3 "$NODEAUDIT" chekc; grep -q "did you mean 'check'" "$tmp/err" && one_line; res "a misspelled command: did you mean" $?
run 3 "$NODEAUDIT" check --profile; grep -q "option '--profile' needs a value" "$tmp/err" && one_line
res "a long option without its value is named" $?
run 3 "$NODEAUDIT" probe --format; grep -q "option '--format' needs a value" "$tmp/err" && one_line
res "--format without a value is named, no raw byte" $?
run 3 "$NODEAUDIT" probe -o; grep -q "option '-o' needs a value" "$tmp/err" && one_line; res "-o without a value" $?
run 3 "$NODEAUDIT" probe --only=cpu=x; one_line; res "--only=cpu=x: one line" $?
run 3 "$NODEAUDIT" probe --quiet=1; grep -q "takes no value" "$tmp/err"; res "a flag given a value" $?
run 3 "$NODEAUDIT" explain --format json; grep -q "(it has: text)" "$tmp/err" && one_line; res "explain has no json format" $?
run 3 "$NODEAUDIT" snapshot --format text -o "$tmp/s"; one_line; res "snapshot has no --format" $?
run 3 "$NODEAUDIT" explain --sysroot /; grep -q "do not apply" "$tmp/err"; res "probe inputs refused where nothing is probed" $?
for c in probe check plan bench snapshot profiles explain report help; do
	"$NODEAUDIT" help "$c" >"$tmp/h" 2>&1 || { res "help $c" 1; continue; }
	got=$(sed -n 's/^  --format FMT  *//p' "$tmp/h" | sed 's/ (default)//; s/,/ /g; s/ or / /')
	# Each format the help names is accepted; an absent one is refused.
	ok=0
	for f in $got; do "$NODEAUDIT" "$c" --format "$f" --help >/dev/null 2>&1 || ok=1; done
	res "help $c: formats '$got' accepted" $ok
done

# Colour: decided for the stream the output goes to, after every option.
if command -v script >/dev/null 2>&1; then
	script -qec "NO_COLOR= '$NODEAUDIT' check --facts '$facts/warn.json' --color never" /dev/null >"$tmp/tty" 2>&1
	! grep -q "$esc" "$tmp/tty"; res "--color never after the command, on a terminal" $?
	script -qec "NO_COLOR= '$NODEAUDIT' check --facts '$facts/warn.json'" /dev/null >"$tmp/tty" 2>&1
	grep -q "$esc" "$tmp/tty"; res "colour by default on a terminal" $?
	script -qec "NO_COLOR= '$NODEAUDIT' check --facts '$facts/warn.json' -o '$tmp/r.txt'" /dev/null >/dev/null 2>&1
	[ -s "$tmp/r.txt" ] && ! grep -q "$esc" "$tmp/r.txt"; res "check -o FILE from a terminal: no escapes in the file" $?
else
	skip "colour on a terminal" "script(1) not installed"
fi

# check --facts takes probe documents and earlier reports (their facts).
printf '{}' >"$tmp/empty.json"
run 3 "$NODEAUDIT" check --facts "$tmp/empty.json"; one_line && grep -q "no \"schema\"" "$tmp/err"; res "check --facts {}: refused" $?
"$NODEAUDIT" plan --facts "$facts/good.json" --format json >/dev/null 2>&1
"$NODEAUDIT" check --facts "$facts/good.json" --format json >"$tmp/report.json"
"$NODEAUDIT" check --facts "$tmp/report.json" --format json >"$tmp/report2.json"
cmp -s "$tmp/report.json" "$tmp/report2.json"; res "check --facts REPORT: the same report again" $?
sed 's|"facts":|"fects":|' "$tmp/report.json" >"$tmp/nofacts.json"
run 3 "$NODEAUDIT" check --facts "$tmp/nofacts.json"; one_line && grep -q "(no facts)" "$tmp/err"
res "check --facts of a report without facts: refused" $?
printf '{"schema": "nodeaudit.fleet/1", "nodes": []}' >"$tmp/fleet.json"
run 3 "$NODEAUDIT" check --facts "$tmp/fleet.json"; one_line; res "check --facts FLEET: refused" $?
sed 's|nodeaudit.probe/1|nodeaudit.probe/9|' "$facts/good.json" >"$tmp/v9.json"
run 3 "$NODEAUDIT" check --facts "$tmp/v9.json"; one_line; res "check --facts of an unknown schema version: refused" $?

# -o writes regular files only.
mkfifo "$tmp/fifo" 2>/dev/null
run 3 "$NODEAUDIT" check --facts "$facts/good.json" -o "$tmp/fifo"; [ -p "$tmp/fifo" ] && one_line
res "-o FIFO without a reader: refused, FIFO kept" $?
ln -s "$tmp/victim" "$tmp/link"; echo keep >"$tmp/victim"
run 3 "$NODEAUDIT" check --facts "$facts/good.json" -o "$tmp/link"; [ -L "$tmp/link" ] && [ "$(cat "$tmp/victim")" = keep ] && one_line
res "-o symbolic link: refused, link and target kept" $?
run 3 "$NODEAUDIT" check --facts "$facts/good.json" -o "$tmp"; one_line; res "-o directory: refused" $?
# A private null device (never the system's /dev/null: a binary with the
# old bug would replace it with a regular file).
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	run 0 "$NODEAUDIT" check --facts "$facts/good.json" -o "$tmp/null"; res "-o a character device: written in place" $?
	[ -c "$tmp/null" ]; res "the device is still a device" $?
else
	skip "-o a character device" "mknod needs root"
fi
long=$(printf 'n%.0s' $(seq 1 250)).json
run 0 "$NODEAUDIT" check --facts "$facts/good.json" --format json -o "$tmp/$long"; [ -s "$tmp/$long" ]
res "-o with a 255-byte file name" $?
run 3 "$NODEAUDIT" snapshot -o "$tmp/snap.zip"; [ ! -e "$tmp/snap.zip" ] && grep -q "'.zip'" "$tmp/err" && one_line
res "snapshot -o snap.zip: refused, nothing made" $?

# Strings from other machines: valid UTF-8 in JSON, no controls in text.
sed 's/"hostname": "infer-07"/"hostname": "evil\\u001b[31m\\u009b2J"/' "$facts/good.json" >"$tmp/ctl.json"
printf '%s' "$(cat "$facts/good.json")" | sed "s/\"hostname\": \"infer-07\"/\"hostname\": \"bad$(printf '\377\376')name\"/" >"$tmp/bad8.json"
# A document that is not UTF-8 is refused (issue 23); a sysroot's file
# with invalid UTF-8 is read, and its JSON carries U+FFFD.
run 3 "$NODEAUDIT" check --facts "$tmp/bad8.json" --format json && one_line && grep -q "bad8.json': line 4, column [0-9]*: invalid UTF-8" "$tmp/err"
res "invalid UTF-8 in a facts document: refused, one line" $?
cp -R "$top_srcdir/tests/fixtures/kernel-untuned-desktop" "$tmp/bad8root"
chmod -R u+w "$tmp/bad8root"
printf 'bad\377\376name\n' >"$tmp/bad8root/proc/sys/kernel/hostname"
run 0 "$NODEAUDIT" --sysroot "$tmp/bad8root" probe --format json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8", errors="strict")); assert "\ufffd" in d["host"]["hostname"], d["host"]["hostname"]' "$tmp/out"
res "invalid UTF-8 in a sysroot's hostname: JSON output is valid UTF-8 (U+FFFD)" $?
run 0 "$NODEAUDIT" check --facts "$tmp/ctl.json"
! grep -q "$esc" "$tmp/out" && ! grep -q "$(printf '\302\233')" "$tmp/out"
res "C0/C1 controls in a hostname do not reach the text output" $?

# A sysctl named only by a custom profile is captured by snapshot.
mkdir -p "$tmp/prof"
cat >"$tmp/prof/custom-sysctl.json" <<'PROF'
{ "name": "custom-sysctl", "extends": "base", "description": "test",
  "checks": { "kernel.sysctl": { "kernel.pid_max": { "min": 1 } } } }
PROF
if [ -r /proc/sys/kernel/pid_max ]; then
	NODEAUDIT_PROFILE_PATH=$tmp/prof "$NODEAUDIT" snapshot -o "$tmp/snap" >/dev/null 2>&1
	[ -f "$tmp/snap/proc/sys/kernel/pid_max" ]; res "snapshot captures a custom profile's sysctl" $?
	NODEAUDIT_PROFILE_PATH=$tmp/prof "$NODEAUDIT" --sysroot "$tmp/snap" check --profile custom-sysctl --format json >"$tmp/c.json" 2>/dev/null
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=[x for x in d["findings"] if x.get("key")=="kernel.pid_max"][0]; assert f["status"]=="pass", f' "$tmp/c.json"
	res "check --sysroot SNAP --profile custom: that sysctl is known" $?
else
	skip "snapshot of a custom profile's sysctl" "/proc/sys/kernel/pid_max unreadable"
fi

# Profile numbers must be finite.
printf '{"name":"inf","extends":"base","description":"d","checks":{"memory.channels.populated_ratio":{"min":1e999}}}' >"$tmp/inf.json"
run 3 "$NODEAUDIT" profiles validate "$tmp/inf.json"; one_line && grep -q 'populated_ratio".min: a finite number' "$tmp/err"
res "profile min 1e999: refused with the key path" $?
printf '{"name":"inf","extends":"base","description":"d","checks":{"kernel.sysctl":{"vm.swappiness":{"expect":-1e999}}}}' >"$tmp/inf2.json"
run 3 "$NODEAUDIT" check --facts "$facts/good.json" --profile "$tmp/inf2.json"; one_line && grep -q 'swappiness".expect: a finite' "$tmp/err"
res "profile expect -1e999: refused" $?

# -v: what each probe read and how long it took.
run 0 "$NODEAUDIT" -v --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" probe --format json
grep -Eq '^nodeaudit: debug: probe cpu: [0-9.]+ ms, [0-9]+ files? read$' "$tmp/err"; res "-v: per-probe time and files" $?
run 0 "$NODEAUDIT" -vv --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" probe --only cpu --format json
grep -q 'debug:   read /sys/devices/system/cpu/online' "$tmp/err"; res "-vv: every file read" $?

# check --format tap: prove's verdict is the exit status's.
if command -v prove >/dev/null 2>&1; then
	"$NODEAUDIT" check --facts "$facts/good.json" --format tap >"$tmp/good.tap"
	prove -e cat "$tmp/good.tap" >/dev/null 2>&1; res "tap: a passing node passes prove" $?
	"$NODEAUDIT" check --facts "$facts/warn.json" --format tap >"$tmp/warn.tap"
	! prove -e cat "$tmp/warn.tap" >/dev/null 2>&1; res "tap: a warning fails prove" $?
	grep -q '^not ok 1 - cpu.smt$' "$tmp/warn.tap"; res "tap: the warned check is not ok" $?
	"$NODEAUDIT" check --facts "$facts/warn.json" --format tap --fail-on fail >"$tmp/warn2.tap"
	prove -e cat "$tmp/warn2.tap" >/dev/null 2>&1; res "tap: --fail-on fail tolerates the warning" $?
else
	skip "check --format tap under prove" "prove not installed"
fi

# A PCI dump of the probed machine itself is no conflict.
snap=$top_srcdir/tests/fixtures/pci-snapshot-dump
run 0 "$NODEAUDIT" --sysroot "$snap" probe --only pci --pci-dump "$snap/nodeaudit/pci.dump" --format json
! grep -q "describes another machine" "$tmp/out"; res "--pci-dump of the same machine: no conflict" $?

# Durations: one grammar.
run 3 "$NODEAUDIT" check --bench-seconds 0.5 --facts "$facts/good.json"; grep -q "measures this machine" "$tmp/err"
res "check --bench-seconds 0.5 is a duration (refused only for --facts)" $?
run 3 "$NODEAUDIT" bench --seconds 0.01 --dry-run; grep -q "duration" "$tmp/err"; res "bench --seconds below 0.1 s refused" $?
# An archive's unpacked tree is removed on the way out.
node=$top_srcdir/tests/fixtures/numa-2node
mkdir "$tmp/t"
tar -czf "$tmp/node.tar.gz" -C "$node" .
TMPDIR=$tmp/t "$NODEAUDIT" --sysroot "$tmp/node.tar.gz" check --format json >"$tmp/left" 2>&1
[ -z "$(ls -A "$tmp/t")" ]; res "check of an archive: nothing left in TMPDIR" $?

echo "1..$n"
[ $fail -eq 0 ]
