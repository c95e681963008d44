#!/bin/sh
# lazy-libs.sh - libpci and liburing are loaded only when a run needs them
# (src/read/lazylib.h): --help and a probe that reads PCI from sysfs
# load neither libpci nor zlib; a PCI dump (a snapshot's, --pci-dump)
# loads libpci.  A libpci that cannot be loaded (an empty file first on
# LD_LIBRARY_PATH) makes --pci-dump fail with exit 3 and one line naming
# the dump and the loader's reason, and a snapshot's dump a gap: the links
# then come from sysfs; a liburing that cannot be loaded changes no fact;
# libhwloc is loaded only where a probe asks hwloc, and one that cannot be
# loaded is a gap; libcpuid only for CPUID (live x86, or a dump).  Which libraries a run loaded is read from glibc's
# LD_DEBUG=libs; skips (77) where that prints nothing (another libc).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
FIXTURES=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazy-libs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
res() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/err" | head -n 5; fi
}

# (--version loads each optional library on purpose, to say which this
# machine has: --help is the run that needs none.)
LD_DEBUG=libs "$NODEAUDIT" --help >/dev/null 2>"$tmp/err"
grep -q 'calling init' "$tmp/err" || { echo "SKIP: LD_DEBUG=libs says nothing here"; exit 77; }
! grep -Eq 'calling init: .*/(libpci|liburing|libz)\.so' "$tmp/err"
res "--help loads none of libpci, liburing, zlib" $?

sys=$FIXTURES/pci-gpu-x16-full
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$sys" probe --only pci --format json >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -q '"accelerators"' "$tmp/out" && ! grep -Eq 'calling init: .*/(libpci|libz)\.so' "$tmp/err"
res "PCI from sysfs, names from pci.ids: libpci not loaded (exit $r)" $?

snap=$FIXTURES/pci-snapshot-dump
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$snap" probe --only pci --format json >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -Eq 'calling init: .*/libpci\.so' "$tmp/err"
res "a snapshot's PCI dump: libpci loaded (exit $r)" $?

mkdir "$tmp/lib"
: >"$tmp/lib/libpci.so.3"
: >"$tmp/lib/libpci.so"
LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" --sysroot "$snap" probe --only pci \
	--pci-dump "$snap/nodeaudit/pci.dump" >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "cannot read PCI dump '$snap/nodeaudit/pci.dump': cannot load libpci: " "$tmp/err"
res "--pci-dump without a loadable libpci: exit 3, one line naming the dump (exit $r)" $?

LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" --sysroot "$snap" probe --only pci --format json >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -q '/nodeaudit/pci.dump: cannot load libpci: .*; links from sysfs files only' "$tmp/out"
res "a snapshot's dump without a loadable libpci: a gap, links from sysfs (exit $r)" $?

# liburing that cannot be loaded: a sysroot is read file by file, the same
# facts (a build without liburing names no liburing: skipped).
big=$FIXTURES/numa-2node
if grep -q 'liburing\.so' "$NODEAUDIT"; then
	LD_DEBUG=libs "$NODEAUDIT" --sysroot "$big" probe --format json >"$tmp/with" 2>"$tmp/err"
	grep -Eq 'calling init: .*/liburing\.so' "$tmp/err"
	res "a sysroot read in batches: liburing loaded" $?
	: >"$tmp/lib/liburing.so.2"
	LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" --sysroot "$big" probe --format json >"$tmp/without" 2>"$tmp/err"
	r=$?
	[ $r -eq 0 ] && grep -v '"collected_at"\|_ms"' "$tmp/with" >"$tmp/a" && grep -v '"collected_at"\|_ms"' "$tmp/without" >"$tmp/b" &&
		cmp -s "$tmp/a" "$tmp/b"
	res "a sysroot without a loadable liburing: the same facts, read one by one (exit $r)" $?
else
	n=$((n + 1)); echo "ok $n - liburing # SKIP built without liburing"
fi

# libhwloc (with libudev and libm behind it) is loaded only where hwloc is
# asked: never by --help, nor by a probe whose own reading is settled;
# a probe that asks it (NODEAUDIT_HWLOC_ALWAYS) loads it; one that cannot
# load it gets a gap naming the loader's reason, and the same other facts.
LD_DEBUG=libs "$NODEAUDIT" --help >/dev/null 2>"$tmp/err"
! grep -Eq 'calling init: .*/(libhwloc|libudev)\.so' "$tmp/err"
res "--help loads neither libhwloc nor libudev" $?
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$big" probe --format json >"$tmp/settled" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && ! grep -Eq 'calling init: .*/(libhwloc|libudev)\.so' "$tmp/err"
res "a probe hwloc has nothing to add to: libhwloc not loaded (exit $r)" $?
NODEAUDIT_HWLOC_ALWAYS=1 LD_DEBUG=libs "$NODEAUDIT" --sysroot "$big" probe --format json >"$tmp/asked" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -Eq 'calling init: .*/libhwloc\.so' "$tmp/err"
res "a probe that asks hwloc: libhwloc loaded (exit $r)" $?
# libcpuid: not by --help, nor by a sysroot without a dump; live on
# x86, by the CPU probe's thread; one that cannot be loaded is a gap.
LD_DEBUG=libs "$NODEAUDIT" --help >/dev/null 2>"$tmp/err"
! grep -Eq 'calling init: .*/libcpuid\.so' "$tmp/err"
res "--help does not load libcpuid" $?
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$big" probe --only cpu --format json >/dev/null 2>"$tmp/err"
! grep -Eq 'calling init: .*/libcpuid\.so' "$tmp/err"
res "a sysroot's probe without a CPUID dump does not load libcpuid" $?
cpuid_live=$(uname -m)
[ -n "${NODEAUDIT_EMULATOR:-}" ] && cpuid_live="emulated by $NODEAUDIT_EMULATOR: not x86"
grep -q '^#define HAVE_LIBCPUID 1' "${top_builddir:-.}/config.h" 2>/dev/null || cpuid_live="built without libcpuid"
case $cpuid_live in
x86_64|i?86)
	LD_DEBUG=libs "$NODEAUDIT" probe --only cpu --format json >/dev/null 2>"$tmp/err"
	grep -Eq 'calling init: .*/libcpuid\.so' "$tmp/err"
	res "a live probe on x86 loads libcpuid" $?
	: >"$tmp/lib/libcpuid.so.16"
	LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" probe --only cpu --format json >"$tmp/out" 2>"$tmp/err"
	r=$?
	[ $r -eq 0 ] && grep -q '"reason":.*"cannot load libcpuid: .*libcpuid\.so' "$tmp/out"
	res "a libcpuid that cannot be loaded: a gap naming it (exit $r)" $?
	rm -f "$tmp/lib/libcpuid.so.16" ;;
*)
	n=$((n + 1)); echo "ok $n - live libcpuid # SKIP $cpuid_live" ;;
esac

: >"$tmp/lib/libhwloc.so.15"
LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" bench --seconds 1 >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "bench: hwloc places its threads, and it cannot be loaded: .*libhwloc\.so" "$tmp/err"
res "bench without a loadable libhwloc: exit 3, one line naming it (exit $r)" $?
if ! command -v python3 >/dev/null 2>&1; then
	n=$((n + 1)); echo "ok $n - a libhwloc that cannot be loaded # SKIP no python3 to compare"
	echo "1..$n"; [ "$fail" -eq 0 ]; exit
fi
NODEAUDIT_HWLOC_ALWAYS=1 LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" --sysroot "$big" probe --format json >"$tmp/nohw" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -q '"hwloc not run: .*libhwloc\.so' "$tmp/nohw" &&
	python3 - "$tmp/asked" "$tmp/nohw" <<'PY'
import json, sys
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if k != "collected_at" and not k.endswith("_ms")}
    if isinstance(o, list):
        return [clean(v) for v in o if not (isinstance(v, dict) and
                str(v.get("reason", "")).startswith("hwloc not run: "))]
    return o
a, b = (clean(json.load(open(f))) for f in sys.argv[1:3])
sys.exit(a != b)
PY
res "a libhwloc that cannot be loaded: a gap naming it, the same other facts (exit $r)" $?

echo "1..$n"
[ "$fail" -eq 0 ]
