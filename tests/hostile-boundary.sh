#!/bin/sh
# hostile-boundary.sh - the input boundary holds (issue 14): hostile
# sysroots and archives aimed at what reads the sysroot besides our own
# read layer (hwloc), at hangs and blow-ups, and at archive unpacking.
# Every run is made under tests/bounded and must
#   - end within 10 s wall (BOUNDARY_WALL_MS) and peak under 256 MiB RSS
#     (BOUNDARY_RSS_KB), the process and the children it waited for;
#   - open no file in a bait directory outside the sysroot (inotify);
#   - exit 0-2 with valid JSON and nothing on stderr, or exit 3 with one
#     line on stderr; never die of a signal or leave a sanitizer report.
# Each case also says what it expects (success with a given gap, or a
# refusal).  Prints TAP-ish lines; exits 1 on any failure.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}" "${top_builddir:?}"
# The probes ask hwloc only where their own reading leaves it room to
# differ; these sysroots must reach its fence on every run.
NODEAUDIT_HWLOC_ALWAYS=1
export NODEAUDIT_HWLOC_ALWAYS
BOUNDED=${BOUNDED:-$(cd "$top_builddir/tests" && pwd)/bounded}
[ -x "$BOUNDED" ] || { echo "1..0 # SKIP tests/bounded not built"; exit 77; }
wall_max=${BOUNDARY_WALL_MS:-10000}
rss_max=${BOUNDARY_RSS_KB:-262144}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/boundary.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
base=$(cd "$top_srcdir/tests/fixtures/numa-2node" && pwd)
bait=$tmp/bait
mkdir "$bait" "$tmp/t"
for f in id cache online meminfo cpuinfo target; do printf '1\n' >"$bait/$f"; done
echo '{}' >"$tmp/any.json"
n=0 fail=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# fresh: a writable copy of the base fixture at $tmp/root
fresh() { rm -rf "$tmp/root"; cp -R "$base" "$tmp/root"; chmod -R u+w "$tmp/root"; }

# run LABEL WANT CMD... ; WANT: ok (exit 0-2, JSON), done (exit 0, no
# output expected) or refused (exit 3).
# $need, when set, is a regex stdout must match (a gap naming the cause).
run() {
	label=$1 want=$2
	shift 2
	TMPDIR=$tmp/t "$BOUNDED" -t $((wall_max / 1000 + 5)) -w "$bait" -r "$tmp/rep" -- "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	wall_ms=0 maxrss_kb=0 opened=0 timed_out=0
	[ -s "$tmp/rep" ] && eval "$(cat "$tmp/rep")"
	rm -f "$tmp/rep"
	bad=""
	if [ "$opened" -gt 0 ]; then bad="opened $opened file(s) outside the sysroot"
	elif [ "$timed_out" -eq 1 ] || [ $rc -gt 3 ]; then bad="exit $rc (signal or timeout)"
	elif grep -Eq 'runtime error:|Sanitizer' "$tmp/err" "$tmp/out"; then bad="sanitizer report"
	elif [ "$wall_ms" -gt "$wall_max" ]; then bad="took $wall_ms ms"
	elif [ "$maxrss_kb" -gt "$rss_max" ]; then bad="peak RSS $maxrss_kb KiB"
	elif [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then bad="exit 3 with $(wc -l <"$tmp/err") lines on stderr"
	elif [ $rc -le 2 ] && [ -s "$tmp/err" ]; then bad="exit $rc with stderr: $(head -c 200 "$tmp/err")"
	elif [ "$want" = ok ] && [ $rc -le 2 ] && ! "$JSUBSET" "$tmp/any.json" "$tmp/out" >/dev/null 2>&1; then bad="invalid JSON"
	elif [ "$want" != refused ] && [ $rc -gt 2 ]; then bad="refused: $(head -n 1 "$tmp/err")"
	elif [ "$want" = refused ] && [ $rc -ne 3 ]; then bad="exit $rc, not refused"
	elif [ -n "${need:-}" ] && ! grep -Eq "$need" "$tmp/out" "$tmp/err"; then bad="no match for /$need/"
	elif [ -n "$(ls -A "$tmp/t")" ]; then bad="left in TMPDIR: $(ls -A "$tmp/t" | head -n 3 | tr '\n' ' ')"
	fi
	need=""
	if [ -n "$bad" ]; then
		notok "$label: $bad"
		head -n 3 "$tmp/err" | sed 's/^/#   /'
	else
		ok "$label ($wall_ms ms, $maxrss_kb KiB)"
	fi
	rm -rf "$tmp/t"/* 2>/dev/null
}

probe() { run "$1" "$2" "$NODEAUDIT" --sysroot "$3" probe --format json; }

cpu=sys/devices/system/cpu
node=sys/devices/system/node

# 1. Links out of the sysroot where hwloc reads: absolute, and ../ enough
# to climb past the root.  None may be opened; the facts stay sane.
up=../../../../../../../../../../../../../../../../../../../..
fresh
r=$tmp/root
rm -f "$r/$cpu/cpu0/topology/physical_package_id"
ln -s "$bait/id" "$r/$cpu/cpu0/topology/physical_package_id"
mkdir -p "$r/$cpu/cpu0/cache/index1"
printf '2\n' >"$r/$cpu/cpu0/cache/index1/level"
printf 'Unified\n' >"$r/$cpu/cpu0/cache/index1/type"
printf '0001\n' >"$r/$cpu/cpu0/cache/index1/shared_cpu_map"
ln -s "$up$bait/cache" "$r/$cpu/cpu0/cache/index1/size"
rm -f "$r/$cpu/online"
ln -s "$bait/online" "$r/$cpu/online"
rm -f "$r/$node/node1/meminfo"
ln -s "$up$bait/meminfo" "$r/$node/node1/meminfo"
ln -s "$bait/cpuinfo" "$r/proc/cpuinfo"
mkdir -p "$r/sys/bus/dax/devices/dax0.0"
ln -s "$bait/target" "$r/sys/bus/dax/devices/dax0.0/target_node"
probe "links out of the sysroot at hwloc's inputs" ok "$r"
run "links out of the sysroot, as on a kernel without openat2" ok env NODEAUDIT_NO_OPENAT2=1 \
	"$NODEAUDIT" --sysroot "$r" probe --format json
run "links out of the sysroot: check" ok "$NODEAUDIT" --sysroot "$r" check --format json
# The fallback where no namespace fence can be set up: a private copy,
# chosen beforehand, or after the child found no namespace to enter.
run "links out of the sysroot, hwloc given a copy" ok env NODEAUDIT_HWLOC_FENCE=copy \
	"$NODEAUDIT" --sysroot "$r" probe --format json
run "links out of the sysroot, no namespace here: a copy" ok env NODEAUDIT_FAULT=hwloc-nofence \
	"$NODEAUDIT" --sysroot "$r" probe --format json
run "links out of the sysroot: snapshot of it" "done" "$NODEAUDIT" --sysroot "$r" -q snapshot -o "$tmp/snap.tar.gz"
rm -f "$tmp/snap.tar.gz"

# 2. FIFOs: behind a cpuN that is a link to a directory, and at a DAX
# device's target_node.
fresh
r=$tmp/root
mkdir -p "$r/elsewhere"
mv "$r/$cpu/cpu3" "$r/elsewhere/cpu3"
ln -s ../../../../elsewhere/cpu3 "$r/$cpu/cpu3"
rm -f "$r/elsewhere/cpu3/topology/core_id"
mkfifo "$r/elsewhere/cpu3/topology/core_id"
need='core_id'
probe "FIFO behind a linked cpu3 directory" ok "$r"
need='core_id'
run "FIFO behind a linked cpu3 directory, hwloc given a copy" ok env NODEAUDIT_HWLOC_FENCE=copy \
	"$NODEAUDIT" --sysroot "$r" probe --format json
# Only hwloc reads it: its open() in the fenced child gives up, no stall.
fresh
r=$tmp/root
mkfifo "$r/$cpu/cpu3/topology/die_cpus"
wall_was=$wall_max
wall_max=3000
probe "FIFO that only hwloc opens: within 3 s" ok "$r"
wall_max=$wall_was
fresh
r=$tmp/root
mkdir -p "$r/sys/bus/dax/devices/dax0.0"
mkfifo "$r/sys/bus/dax/devices/dax0.0/target_node"
probe "FIFO at a DAX device's target_node" ok "$r"

# 3. Lists and names hwloc sizes bitmaps from, or asserts on.
for v in 0-65535 -1 1-0 0,4294967295; do
	fresh
	printf '%s\n' "$v" >"$tmp/root/$node/online"
	need="hwloc not given '/$node/online'"
	probe "node/online = $v" ok "$tmp/root"
done
fresh
rm -f "$tmp/root/$cpu/online"
mkdir "$tmp/root/$cpu/cpu2147483647"
need="hwloc not given '/$cpu/cpu2147483647'"
probe "a directory cpu2147483647 without cpu/online" ok "$tmp/root"
fresh
mkdir "$tmp/root/$cpu/cpu-1"
need="hwloc not given '/$cpu/cpu-1'"
probe "a directory cpu-1" ok "$tmp/root"
fresh
mkdir "$tmp/root/$node/node4294967295"
need="hwloc not given '/$node/node4294967295'"
probe "a directory node4294967295" ok "$tmp/root"
fresh
printf 'processor\t: 4294967295\nmodel name\t: x\n\n' >"$tmp/root/proc/cpuinfo"
need="hwloc not given '/proc/cpuinfo'"
probe "processor 4294967295 in cpuinfo" ok "$tmp/root"

# 4. Many nodes: gap de-duplication must not be quadratic.
fresh
r=$tmp/root
(cd "$r/$node" && seq 2 4095 | sed 's/^/node/' | xargs mkdir)
echo 0-4095 >"$r/$node/online"
probe "4096 nodes" ok "$r"

# 5. The library itself failing: an abort and a stall in hwloc's child
# are gaps naming hwloc, not our death or our hang.
need='hwloc: crashed \(Aborted\)'
run "hwloc aborts" ok env NODEAUDIT_FAULT=hwloc-abort "$NODEAUDIT" --sysroot "$base" probe --format json
need='hwloc: no answer within'
run "hwloc stalls" ok env NODEAUDIT_FAULT=hwloc-stall "$NODEAUDIT" --sysroot "$base" probe --format json
# Live, libcpuid runs on a thread of ours (x86 only): a fault there is a
# gap naming it, not our death.
cpuid_live=$(uname -m)
[ -n "${NODEAUDIT_EMULATOR:-}" ] && cpuid_live="emulated by $NODEAUDIT_EMULATOR: not x86"
grep -q '^#define HAVE_LIBCPUID 1' "${top_builddir:-.}/config.h" 2>/dev/null || cpuid_live="built without libcpuid"
case $cpuid_live in
x86_64 | i?86)
	need='libcpuid crashed \(signal 8\) on this CPU'
	run "libcpuid faults in its child" ok env NODEAUDIT_FAULT=libcpuid-crash "$NODEAUDIT" probe --only cpu --format json
	;;
*) ok "libcpuid faults in its child # SKIP libcpuid runs live on x86 only ($cpuid_live)" ;;
esac

# 6. Archives.
(cd "$base" && tar -cf - .) | gzip -1 >"$tmp/host:x.tar.gz"
probe "archive named host:x.tar.gz is a local file" ok "$tmp/host:x.tar.gz"
head -c 4096 /dev/urandom | gzip -1 >"$tmp/noise.tar.gz"
probe "corrupt .tar.gz: one line, exit 3" refused "$tmp/noise.tar.gz"
printf 'not an archive\n' >"$tmp/text.tar"
probe "a text file named .tar: one line, exit 3" refused "$tmp/text.tar"
if command -v xz >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	# 500 MB of zeros in a small .tar.xz: refused before it is written out.
	python3 - "$tmp/bomb.tar" <<'PY'
import sys, tarfile
class Zeros:
    def __init__(self, n): self.n = n
    def read(self, k=-1):
        k = self.n if k < 0 else min(k, self.n)
        self.n -= k
        return b"\0" * k
with open(sys.argv[1], "wb") as f:
    t = tarfile.open(fileobj=f, mode="w", format=tarfile.GNU_FORMAT)
    ti = tarfile.TarInfo("sys/bomb"); ti.size = 0
    t.addfile(ti)
    hdr = tarfile.TarInfo("proc/cpuinfo"); hdr.size = 500 << 20
    f.write(hdr.tobuf(tarfile.GNU_FORMAT))
PY
	# The member's data: zeros streamed straight into xz.
	{ cat "$tmp/bomb.tar"; head -c $((500 << 20)) /dev/zero; head -c 1024 /dev/zero; } |
		xz -0 -T1 >"$tmp/bomb.tar.xz"
	rm -f "$tmp/bomb.tar"
	need='refusing'
	probe "80 KB .tar.xz holding 500 MB: refused, nothing left in TMPDIR" refused "$tmp/bomb.tar.xz"
	rm -f "$tmp/bomb.tar.xz"
fi
# A tiny tar followed by 4 GiB of zeros (256 gzip members of 16 MiB each,
# 4 MB on disk): read up to its end-of-archive blocks, as tar -t does, and
# no further (the wall limit above is what reading the rest would break).
python3 - "$base" "$tmp/zeros.tar.gz" <<'PY'
import gzip, io, os, sys, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
    t.add(sys.argv[1], arcname=".")
zeros = gzip.compress(b"\0" * (16 << 20), 9)
with open(sys.argv[2], "wb") as f:
    # tarfile pads to 10 KiB records: the zeros after its end blocks.
    f.write(gzip.compress(buf.getvalue(), 1))
    for _ in range(256):
        f.write(zeros)
PY
need='"node_count":[[:space:]]*2'
probe "a tiny .tar.gz followed by 4 GiB of zeros: read to its end blocks" ok "$tmp/zeros.tar.gz"
rm -f "$tmp/zeros.tar.gz"
# Members within the caps whose headers and padding add up to 205 MB of
# tar stream: the decompressed bytes are capped too.
python3 - "$tmp/stream.tar.gz" <<'PY'
import sys, tarfile, zlib
ti = tarfile.TarInfo("d/0000000"); ti.size = 1025
base = bytearray(ti.tobuf(tarfile.USTAR_FORMAT))
body = b"x" * 1025 + b"\0" * 511
co = zlib.compressobj(1, zlib.DEFLATED, 31)
with open(sys.argv[1], "wb") as out:
    chunk = []
    for i in range(100000):
        h = bytearray(base); h[0:9] = b"d/%07d" % i
        h[148:156] = b"        "
        h[148:155] = b"%06o\0" % sum(h)
        chunk += [bytes(h), body]
        if len(chunk) > 2000:
            out.write(co.compress(b"".join(chunk))); chunk = []
    out.write(co.compress(b"".join(chunk))); out.write(co.flush())
PY
need='tar stream runs past 192 MiB'
probe "a .tar.gz whose tar stream is 205 MB: refused" refused "$tmp/stream.tar.gz"
rm -f "$tmp/stream.tar.gz"
# Many files: the count is capped too.
python3 - "$tmp/many.tar.gz" <<'PY'
import sys, tarfile, io
with tarfile.open(sys.argv[1], "w:gz", compresslevel=1) as t:
    for i in range(200001):
        ti = tarfile.TarInfo("d/%d" % i); ti.type = tarfile.SYMTYPE; ti.linkname = "x"
        t.addfile(ti)
PY
need='refusing'
probe "an archive of 200001 entries: refused" refused "$tmp/many.tar.gz"
rm -f "$tmp/many.tar.gz"

# 7. Signals and modes: nothing of ours stays in TMPDIR.
sigrun() { # sigrun SIGNAL LABEL CMD...
	sig=$1 label=$2
	shift 2
	# A shell starts background jobs with SIGINT ignored; undo that.
	TMPDIR=$tmp/t NODEAUDIT_FAULT=hwloc-stall $defsig "$@" >/dev/null 2>&1 &
	pid=$!
	i=0
	# hwloc's child (a child of this run named nodeaudit-hwloc) is
	# stalling: in a namespace fence, or over a private copy in TMPDIR.
	while [ $i -lt 50 ] &&
		[ -z "$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p=$pid '$4 == p && $2 == "(nodeaudit-hwloc)"')" ] &&
		! [ -n "$(find "$tmp/t" -maxdepth 1 -name 'nodeaudit-hwloc.*' 2>/dev/null)" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	sleep 0.2
	if [ -n "$(ls -A "$tmp/t")" ]; then
		notok "$label: left $(ls -A "$tmp/t" | tr '\n' ' ')"
	elif [ $rc -le 128 ]; then
		notok "$label: exit $rc, not killed by the signal"
	else
		ok "$label"
	fi
	rm -rf "$tmp/t"/*
}
defsig="env --default-signal=INT"
$defsig true 2>/dev/null || defsig=""
sigrun TERM "SIGTERM while reading an archive" "$NODEAUDIT" --sysroot "$tmp/host:x.tar.gz" probe --format json
[ -n "$defsig" ] && sigrun INT "SIGINT while reading an archive" "$NODEAUDIT" --sysroot "$tmp/host:x.tar.gz" probe --format json
sigrun TERM "SIGTERM during snapshot to an archive" "$NODEAUDIT" --sysroot "$base" -q snapshot -o "$tmp/s.tar.gz"
rm -f "$tmp/s.tar.gz" "$tmp"/.s.tar.gz.*

# A mode-0555 directory in an archive, unpacked by an unprivileged user.
fresh
chmod 0555 "$tmp/root/$node/node1"
(cd "$tmp/root" && tar -cf - .) | gzip -1 >"$tmp/ro.tar.gz"
chmod -R u+w "$tmp/root"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$tmp" && chmod 777 "$tmp/t" && chmod 644 "$tmp/ro.tar.gz"
	cp "$NODEAUDIT" "$tmp/nodeaudit" && chmod 755 "$tmp/nodeaudit"
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/nodeaudit" --version >/dev/null 2>&1; then
		run "mode-0555 directory in an archive, as uid 65534" ok \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/nodeaudit" --sysroot "$tmp/ro.tar.gz" probe --format json
	else
		n=$((n + 1)); echo "ok $n # SKIP the binary does not run as uid 65534"
	fi
else
	probe "mode-0555 directory in an archive" ok "$tmp/ro.tar.gz"
fi

echo "1..$n"
[ $fail -eq 0 ]
