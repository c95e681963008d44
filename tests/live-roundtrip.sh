#!/bin/sh
# live-roundtrip.sh - on this machine, `probe` and `probe --sysroot SNAPSHOT`
# give the same facts (DESIGN.md "Snapshot / sysroot"), for a snapshot
# directory and a .tar.gz.  Volatile values are removed before comparing:
# when a probe adds a value that changes between two reads (free memory,
# a current frequency), add its key below, never loosen the comparison.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${JSTRIP:?}"
[ -d /sys/devices/system/cpu ] && [ -r /proc/cpuinfo ] || { echo "SKIP: no Linux sysfs here"; exit 77; }
command -v tar >/dev/null 2>&1 || { echo "SKIP: no tar"; exit 77; }

# Paths deleted from both documents; -k: any key containing the word.
VOLATILE="host.sysroot pci.source host.collected_at gaps[].reason cpu.libcpuid.source evidence.cpu.libcpuid -k free -k available -k used -k cur_mhz"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/roundtrip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
check() { # check NAME CMD...
	n=$((n + 1))
	if "$@" >"$tmp/out" 2>"$tmp/err"; then echo "ok $n - $name"
	else echo "not ok $n - $name"; sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 40; fail=$((fail + 1)); fi
}
strip() { # shellcheck disable=SC2086
	"$JSTRIP" "$1" $VOLATILE >"$2"; }
same() { # same A B: equal both ways
	"$JSUBSET" "$1" "$2" && "$JSUBSET" "$2" "$1"; }

name="probe live"; check "$NODEAUDIT" probe --format json -o "$tmp/live.json"
strip "$tmp/live.json" "$tmp/live.s"

name="snapshot -o DIR"; check "$NODEAUDIT" snapshot -o "$tmp/snap"
name="snapshot has a manifest"; check grep -q '"schema":[[:space:]]*"nodeaudit.snapshot/1"' "$tmp/snap/nodeaudit/MANIFEST.json"
name="snapshot is small (< 1 MiB)"
check sh -c "[ \$(du -sk --apparent-size '$tmp/snap' | cut -f1) -lt 1024 ]"
name="probe --sysroot DIR"; check "$NODEAUDIT" --sysroot "$tmp/snap" probe --format json -o "$tmp/dir.json"
strip "$tmp/dir.json" "$tmp/dir.s"
name="same facts from the directory"; check same "$tmp/live.s" "$tmp/dir.s"

name="snapshot -o FILE.tar.gz"; check "$NODEAUDIT" snapshot -o "$tmp/snap.tar.gz"
name="archive is small (< 1 MiB)"; check sh -c "[ \$(wc -c <'$tmp/snap.tar.gz') -lt 1048576 ]"
name="probe --sysroot FILE.tar.gz"; check "$NODEAUDIT" probe --sysroot "$tmp/snap.tar.gz" --format json -o "$tmp/tgz.json"
strip "$tmp/tgz.json" "$tmp/tgz.s"
name="same facts from the archive"; check same "$tmp/live.s" "$tmp/tgz.s"

# A snapshot of a snapshot is the same snapshot.
name="re-snapshot"; check "$NODEAUDIT" --sysroot "$tmp/snap" snapshot -o "$tmp/snap2"
name="probe --sysroot re-snapshot"; check "$NODEAUDIT" --sysroot "$tmp/snap2" probe --format json -o "$tmp/re.json"
strip "$tmp/re.json" "$tmp/re.s"
name="same facts from the re-snapshot"; check same "$tmp/live.s" "$tmp/re.s"

# Refusals: exit 3, one line, nothing written.
mkdir "$tmp/full" && : >"$tmp/full/x"
n=$((n + 1))
"$NODEAUDIT" snapshot -o "$tmp/full" 2>"$tmp/e"; rc=$?
if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && [ ! -e "$tmp/full/nodeaudit" ]; then echo "ok $n - non-empty directory: exit 3, one line"
else echo "not ok $n - non-empty directory: exit $rc"; cat "$tmp/e"; fail=$((fail + 1)); fi
n=$((n + 1))
"$NODEAUDIT" --sysroot "$tmp/snap" snapshot -o "$tmp/snap/inner" 2>"$tmp/e"; rc=$?
if [ $rc -eq 3 ] && grep -q 'inside the sysroot' "$tmp/e" && [ ! -e "$tmp/snap/inner" ]; then echo "ok $n - refuses to write into the sysroot"
else echo "not ok $n - writes into the sysroot (exit $rc)"; cat "$tmp/e"; fail=$((fail + 1)); fi
n=$((n + 1))
"$NODEAUDIT" snapshot 2>"$tmp/e"; rc=$?
if [ $rc -eq 3 ] && grep -q -- '-o DIR' "$tmp/e"; then echo "ok $n - needs -o"
else echo "not ok $n - no -o: exit $rc"; fail=$((fail + 1)); fi
# Where a fact was read from is provenance, not drift: a live probe and a
# fresh snapshot of the same node diff to no change and exit 0, the
# sources (live/snapshot, sysfs/sysfs+dump) listed apart; check --baseline
# of the live probe against the snapshot adds no drift either.
n=$((n + 1))
"$NODEAUDIT" diff --format json "$tmp/live.json" "$tmp/snap.tar.gz" >"$tmp/d.json" 2>"$tmp/e"; rc=$?
if [ $rc -eq 0 ] && grep -q '"facts_changed":[[:space:]]*0' "$tmp/d.json" &&
   ! sed -n '/"changes":/,/"findings":/p' "$tmp/d.json" | grep -q '"volatile":[[:space:]]*false'; then
	echo "ok $n - diff live probe / fresh snapshot: exit 0, no change"
else
	echo "not ok $n - diff live probe / fresh snapshot: exit $rc"; sed 's/^/#   /' "$tmp/d.json" "$tmp/e" | head -n 40
	fail=$((fail + 1))
fi
n=$((n + 1))
"$NODEAUDIT" diff "$tmp/live.json" "$tmp/snap.tar.gz" >"$tmp/d.txt" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^  (no change)' "$tmp/d.txt"; then
	echo "ok $n - diff text: (no change), exit 0"
else
	echo "not ok $n - diff text: exit $rc"; sed 's/^/#   /' "$tmp/d.txt" | head -n 30; fail=$((fail + 1))
fi
n=$((n + 1))
"$NODEAUDIT" --sysroot "$tmp/snap.tar.gz" check --baseline "$tmp/live.json" --format json >"$tmp/c.json" 2>"$tmp/e"
if grep -q '"facts_changed":[[:space:]]*0' "$tmp/c.json"; then
	echo "ok $n - check --baseline live probe on its snapshot: no drift"
else
	echo "not ok $n - check --baseline live probe on its snapshot: drift"
	grep -A3 '"path"' "$tmp/c.json" | sed 's/^/#   /' | head -n 30; fail=$((fail + 1))
fi
n=$((n + 1))
leftover=$(find "$tmp" -maxdepth 1 -name '.*.??????' | wc -l)
if [ "$leftover" -eq 0 ]; then echo "ok $n - no temporary files left"
else echo "not ok $n - $leftover temporary files left"; fail=$((fail + 1)); fi

echo "1..$n"
[ $fail -eq 0 ]
