#!/bin/sh
# libraries.sh - what nodeaudit links and what it loads by name.  Every
# build links libhwloc, libnuma, libpci, cJSON, libsmartcols and libm (their NEEDED
# entries); libcpuid, which a platform may lack, and libarchive, which
# only an archive sysroot needs, are loaded by name: their sonames
# (config.h's CPUID_SONAME, ARCHIVE_SONAME) are in the binary's
# .note.dlopen (https://systemd.io/ELF_DLOPEN_METADATA/) and nowhere among
# NEEDED; libcpuid is loaded only for CPUID (live x86, or a dump),
# libarchive only to unpack an archive, neither by --help or a directory
# sysroot without a dump; one that is there but does not load (an empty
# file first on LD_LIBRARY_PATH), or lacks a symbol nodeaudit calls, is
# "broken" in --version and a gap (libcpuid) or an error (libarchive)
# naming it; one that is not there is "not installed".  Which libraries a run loaded is read from
# glibc's LD_DEBUG=libs; skips (77) where that prints nothing (another libc).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
FIXTURES=$top_srcdir/tests/fixtures
config=${top_builddir:-.}/config.h
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libraries.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
res() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/err" | head -n 5; fi
}
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
[ -f "$config" ] || { echo "1..0 # SKIP no config.h at $config"; exit 77; }
soname=$(sed -n 's/^#define CPUID_SONAME "\(.*\)"$/\1/p' "$config")
arsoname=$(sed -n 's/^#define ARCHIVE_SONAME "\(.*\)"$/\1/p' "$config")
[ -n "$arsoname" ] || { echo "1..0 # SKIP no ARCHIVE_SONAME in $config"; exit 77; }

# The ELF file itself: NEEDED entries and the .note.dlopen notes (under
# scripts/test-arm64, $NODEAUDIT is a script that runs the arm64 binary
# NAME.arm64 under qemu-user: that binary).
elf=$NODEAUDIT
[ -f "$NODEAUDIT.arm64" ] && head -c 2 "$NODEAUDIT" | grep -q '#!' && elf=$NODEAUDIT.arm64
python3 - "$elf" "$soname" "$arsoname" >"$tmp/err" 2>&1 <<'PY'
import json, struct, sys
path, soname, arsoname = sys.argv[1], sys.argv[2], sys.argv[3]
d = open(path, "rb").read()
if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
    sys.exit("not a 64-bit little-endian ELF file")
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
def name(off, tab):
    s = secs[tab]; o = s[4] + off
    return d[o:d.index(b"\0", o)].decode()
byname = {name(s[0], shstrndx): s for s in secs}
# NEEDED: .dynamic entries of tag 1, names in .dynstr.
dyn, dynstr = byname[".dynamic"], byname[".dynstr"]
needed = []
for o in range(dyn[4], dyn[4] + dyn[5], 16):
    tag, val = struct.unpack_from("<qQ", d, o)
    if tag == 1:
        needed.append(d[dynstr[4] + val:d.index(b"\0", dynstr[4] + val)].decode())
want = ["libhwloc.so.", "libnuma.so.", "libpci.so.", "libcjson.so.", "libsmartcols.so.", "libm.so."]
missing = [w for w in want if not any(n.startswith(w) for n in needed)]
if missing:
    sys.exit("NEEDED %s lacks %s" % (needed, missing))
for lazy in ("libcpuid.", "libarchive."):
    if any(n.startswith(lazy) for n in needed):
        sys.exit("%s is NEEDED: %s" % (lazy, needed))
notes = []
s = byname.get(".note.dlopen")
if s:
    o, end = s[4], s[4] + s[5]
    while o < end:
        namesz, descsz, typ = struct.unpack_from("<III", d, o)
        if namesz == descsz == typ == 0:   # a sanitizer's padding after a note
            o += 4
            continue
        o += 12
        owner = d[o:o + namesz].rstrip(b"\0").decode(); o += (namesz + 3) & ~3
        desc = d[o:o + descsz]; o += (descsz + 3) & ~3
        if owner != "FDO" or typ != 0x407c0c0a or not desc.endswith(b"\0"):
            sys.exit("a .note.dlopen note that is not FDO's: %r %#x" % (owner, typ))
        notes += json.loads(desc[:-1].decode())
sonames = sorted(x for note in notes for x in note["soname"])
want = sorted([soname, arsoname] if soname else [arsoname])
if sonames != want:
    sys.exit(".note.dlopen names %s, config.h's CPUID_SONAME and ARCHIVE_SONAME say %s" % (sonames, want))
for note in notes:
    if note.get("priority") not in ("required", "recommended", "suggested") or not note.get("feature"):
        sys.exit("a note without a feature or with priority %r" % note.get("priority"))
print("NEEDED:", " ".join(needed), "| dlopen:", " ".join(sonames) or "none")
PY
res "linked: libhwloc, libnuma, libpci, cJSON, libsmartcols, libm; .note.dlopen: ${soname:+$soname, }$arsoname (config.h)" $?
sed 's/^/# /' "$tmp/err"

LD_DEBUG=libs "$NODEAUDIT" --help >/dev/null 2>"$tmp/err"
grep -q 'calling init' "$tmp/err" || { echo "# SKIP: LD_DEBUG=libs says nothing here"; echo "1..$n"; [ "$fail" -eq 0 ]; exit; }
! grep -Eq 'calling init: .*/lib(cpuid|archive)\.so' "$tmp/err"
res "--help loads neither libcpuid nor libarchive" $?
big=$FIXTURES/numa-2node
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$big" check --format json >/dev/null 2>"$tmp/err"
! grep -Eq 'calling init: .*/lib(cpuid|archive)\.so' "$tmp/err"
res "a check of a directory sysroot without a CPUID dump loads neither" $?

# libarchive: loaded for an archive sysroot, and an error naming it when
# it does not load (the archive is never read another way).
tar -cf "$tmp/numa.tar" -C "$FIXTURES" numa-2node 2>"$tmp/err"
LD_DEBUG=libs "$NODEAUDIT" --sysroot "$tmp/numa.tar" probe --only numa --format json >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 0 ] && grep -Eq 'calling init: .*/libarchive\.so' "$tmp/err"
res "an archive sysroot loads libarchive (exit $r)" $?
mkdir -p "$tmp/arlib"
: >"$tmp/arlib/$arsoname"
LD_LIBRARY_PATH=$tmp/arlib "$NODEAUDIT" --sysroot "$tmp/numa.tar" probe --only numa >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "^nodeaudit: cannot unpack '$tmp/numa.tar': reading a tar archive takes libarchive, and $arsoname is installed but does not load: " "$tmp/err"
res "a libarchive that does not load: one line naming it, exit 3 (exit $r)" $?
LD_LIBRARY_PATH=$tmp/arlib "$NODEAUDIT" --version >"$tmp/out" 2>"$tmp/err"
grep -Eq "^  $arsoname +broken .*is installed but does not load" "$tmp/out"
res "--version: a libarchive that does not load is broken" $?
"$NODEAUDIT" --version >"$tmp/out" 2>"$tmp/err"
grep -Eq "^  $arsoname +found " "$tmp/out"
res "--version: this machine's libarchive is found" $?

cpuid_live=$(uname -m)
[ -n "${NODEAUDIT_EMULATOR:-}" ] && cpuid_live="emulated by $NODEAUDIT_EMULATOR: not x86"
[ -n "$soname" ] || cpuid_live="built without libcpuid"
case $cpuid_live in
x86_64|i?86)
	LD_DEBUG=libs "$NODEAUDIT" probe --only cpu --format json >/dev/null 2>"$tmp/err"
	grep -Eq 'calling init: .*/libcpuid\.so' "$tmp/err"
	res "a live probe on x86 loads libcpuid (in its child)" $?
	mkdir "$tmp/lib"
	: >"$tmp/lib/$soname"
	LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" probe --only cpu --format json >"$tmp/out" 2>"$tmp/err"
	r=$?
	[ $r -eq 0 ] && grep -q "\"reason\":.*\"cannot load libcpuid: $soname is installed but does not load: " "$tmp/out"
	res "a libcpuid that does not load: a gap naming it (exit $r)" $?
	LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" --version >"$tmp/out" 2>"$tmp/err"
	grep -Eq "^  $soname +broken .*is installed but does not load" "$tmp/out"
	res "--version: a libcpuid that does not load is broken" $?
	if command -v cc >/dev/null 2>&1 && echo 'int nodeaudit_stub;' | cc -shared -fPIC -x c - -o "$tmp/lib/$soname" 2>"$tmp/err"; then
		LD_LIBRARY_PATH=$tmp/lib "$NODEAUDIT" probe --only cpu --format json >"$tmp/out" 2>"$tmp/err"
		r=$?
		[ $r -eq 0 ] && grep -q "\"reason\":.*\"cannot load libcpuid: $soname has no cpuid_present, which nodeaudit calls" "$tmp/out"
		res "a libcpuid without a symbol nodeaudit calls: a gap naming the symbol (exit $r)" $?
	else
		n=$((n + 1)); echo "ok $n - a libcpuid without its symbols # SKIP no C compiler"
	fi
	"$NODEAUDIT" --version >"$tmp/out" 2>"$tmp/err"
	grep -Eq "^  $soname +found " "$tmp/out"
	res "--version: this machine's libcpuid is found" $? ;;
*)
	n=$((n + 1)); echo "ok $n - live libcpuid # SKIP $cpuid_live" ;;
esac

echo "1..$n"
[ "$fail" -eq 0 ]
