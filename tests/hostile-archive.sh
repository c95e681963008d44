#!/bin/sh
# hostile-archive.sh - an archive sysroot holding what a capture never holds
# (a character or block device, a FIFO) is refused before any of it is
# made: as root, the device node would be made, and the read layer opens
# it before fstat() can refuse it wherever it cannot read through its
# nodev view (no CAP_SYS_ADMIN, a kernel before 5.12): a watchdog is armed,
# a tape rewinds.  One reader (libarchive) reads, judges and makes each
# member, so archives whose headers one tar reads otherwise than another
# (a directory carrying data, a second pax header, a pax size= that does
# not parse, a size in a form GNU tar does not write, a pax global size=)
# are either refused for the special member the reader finds, or unpacked
# without it: what is judged is what is made.  The hostile archives are
# written with python3's tarfile or by hand (no mknod: the test runs as
# any user), the three special types as .tar, .tar.gz, .tar.xz and
# .tar.bz2, and given to --sysroot (probe, check, snapshot) and to diff;
# each refused run must end with exit 3, the one line naming the archive,
# the member and what it is, nothing on stdout, nothing left in TMPDIR.
# Every run finds first in PATH a tar, gzip, xz and bzip2 that fail and say
# they were run: none may be.  Archives of regular files, directories,
# hard and symbolic links, GNU long names and pax headers (GNU tar's and
# python's) still unpack.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-archive.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT
base=$(cd "$top_srcdir/tests/fixtures/numa-2node" && pwd)
mkdir "$tmp/t" "$tmp/bin" "$tmp/fed" "$tmp/a"
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# The programs nodeaudit no longer runs: each found first in PATH says so.
for prog in tar gzip xz bzip2; do
	printf '#!/bin/sh\necho "$0" >>"%s/fed/ran"\nexit 99\n' "$tmp" >"$tmp/bin/$prog"
	chmod 755 "$tmp/bin/$prog"
done
command -v tar >/dev/null 2>&1 || { echo "1..0 # SKIP no tar to write the fixture archives"; exit 77; }

# refused LABEL LINE CMD...: exit 3 with LINE as the one line on stderr,
# nothing on stdout, TMPDIR empty, no tar or decompressor run.
refused() {
	label=$1 line=$2
	shift 2
	rm -f "$tmp/fed"/*
	PATH="$tmp/bin:$PATH" TMPDIR=$tmp/t timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	why=""
	if grep -Eq 'runtime error:|Sanitizer' "$tmp/err"; then why="sanitizer report"
	elif [ $rc -ne 3 ]; then why="exit $rc"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then why="$(wc -l <"$tmp/err") lines on stderr"
	elif [ "$(cat "$tmp/err")" != "nodeaudit: $line" ]; then why="said: $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then why="output on stdout"
	elif [ -n "$(ls -A "$tmp/t")" ]; then why="left in TMPDIR: $(ls -A "$tmp/t" | tr '\n' ' ')"
	elif [ -s "$tmp/fed/ran" ]; then why="it ran $(tr '\n' ' ' <"$tmp/fed/ran")"
	fi
	if [ -z "$why" ]; then ok "$label"; else notok "$label: $why"; fi
	rm -rf "$tmp/t"/*
}

# unpacks LABEL ARCHIVE: probe over it: exit 0-2, nothing on stderr, the
# fixture's two NUMA nodes read, TMPDIR empty, no tar or decompressor run.
unpacks() {
	rm -f "$tmp/fed"/*
	PATH="$tmp/bin:$PATH" TMPDIR=$tmp/t timeout 60 "$NODEAUDIT" --sysroot "$2" probe --format json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	why=""
	if [ $rc -gt 2 ]; then why="exit $rc: $(head -n 1 "$tmp/err")"
	elif [ -s "$tmp/err" ]; then why="stderr: $(head -n 1 "$tmp/err")"
	elif ! grep -Eq '"node_count":[[:space:]]*2' "$tmp/out"; then why="the fixture's 2 nodes not read"
	elif [ -n "$(ls -A "$tmp/t")" ]; then why="left in TMPDIR: $(ls -A "$tmp/t" | tr '\n' ' ')"
	elif [ -s "$tmp/fed/ran" ]; then why="it ran $(tr '\n' ' ' <"$tmp/fed/ran")"
	fi
	if [ -z "$why" ]; then ok "$1"; else notok "$1: $why"; fi
	rm -rf "$tmp/t"/*
}

# The archives: the numa-2node fixture, then the hostile member (what the
# read layer would open first sits at the end, where tar makes it last).
python3 - "$base" "$tmp/a" <<'PY' || { echo "1..0 # SKIP python3 cannot write the archives"; exit 77; }
import io, os, sys, tarfile
base, out = sys.argv[1], sys.argv[2]
ONLINE = "sys/devices/system/cpu/online"

def fixture(t, drop=()):
    for top in sorted(os.listdir(base)):
        t.add(os.path.join(base, top), arcname=top,
              filter=lambda ti: None if ti.name in drop else ti)

def body(fmt=tarfile.GNU_FORMAT, drop=()):
    """The fixture as tar headers and data, without the end blocks."""
    buf = io.BytesIO()
    t = tarfile.open(fileobj=buf, mode="w", format=fmt)
    fixture(t, drop)
    t.members = []
    return buf.getvalue()  # tarfile writes its end blocks on close only

def special(name, type, major=0, minor=0):
    ti = tarfile.TarInfo(name)
    ti.type, ti.devmajor, ti.devminor, ti.mode = type, major, minor, 0o600
    return ti

def header(ti, fmt=tarfile.USTAR_FORMAT, **fields):
    """ti's header block with fields patched (offset: bytes), re-summed."""
    h = bytearray(ti.tobuf(fmt)[-512:])
    for off, val in fields.values():
        h[off:off + len(val)] = val
    h[148:156] = b"        "
    h[148:155] = b"%06o\0" % sum(h)
    return bytes(h)

def record(r):
    """A pax record: its length counts its own digits."""
    n = len(r) + 2
    d = len(str(n))
    while len(str(n + d)) != d:
        d += 1
    return b"%d %s\n" % (n + d, r)

def pax(type, records, name="././@PaxHeader"):
    recs = b"".join(record(r) for r in records)
    ti = tarfile.TarInfo(name)
    ti.type, ti.size = type, len(recs)
    return header(ti) + recs + b"\0" * (-len(recs) % 512)

def write(name, blob):
    with open(os.path.join(out, name + ".tar"), "wb") as f:
        f.write(blob + b"\0" * 1024)

END = b"\0" * 1024
fifo = special("sneaky", tarfile.FIFOTYPE)

# The three special types, named as a capture's files are.
write("chr", body(drop={ONLINE}) + special(ONLINE, tarfile.CHRTYPE, 10, 130).tobuf(tarfile.GNU_FORMAT))
write("blk", body() + special("sys/block/sda", tarfile.BLKTYPE, 8, 0).tobuf(tarfile.GNU_FORMAT))
write("fifo", body(drop={"proc/cpuinfo"}) + special("proc/cpuinfo", tarfile.FIFOTYPE).tobuf(tarfile.GNU_FORMAT))

# A device under a GNU long name ('L' header), and one under a pax path=
# with an ESC in it whose ustar name is a decoy.
long = "sys/devices/pci0000:00/0000:00:1f.0/" + "x" * 90 + "/watchdog"
write("long", body() + special(long, tarfile.CHRTYPE, 10, 130).tobuf(tarfile.GNU_FORMAT))
ti = special("decoy", tarfile.CHRTYPE, 10, 130)
ti.pax_headers = {"path": "sys/class/watchdog/\x1b[31mwatchdog0"}
write("paxpath", body(tarfile.PAX_FORMAT) + ti.tobuf(tarfile.PAX_FORMAT))

# GNU's old sparse file and a type no tar defines.
write("sparse", body() + special("sys/sparse", tarfile.GNUTYPE_SPARSE).tobuf(tarfile.GNU_FORMAT))
write("unknown", body() + special("sys/odd", b"Z").tobuf(tarfile.GNU_FORMAT))

# Headers tar reads otherwise than a walk that takes every size at its
# word: each hides a FIFO's header where the walk would see data.
d = tarfile.TarInfo("hidden"); d.type, d.mode = tarfile.DIRTYPE, 0o755
write("dirdata", body() + header(d, size=(124, b"%011o\0" % 512)) + fifo.tobuf(tarfile.USTAR_FORMAT))
f = tarfile.TarInfo("hidden/"); f.mode = 0o644
write("slashdata", body() + header(f, size=(124, b"%011o\0" % 512)) + fifo.tobuf(tarfile.USTAR_FORMAT))
# A second pax header replaces the first in tar: its size=512 is gone.
f = tarfile.TarInfo("sys/empty")
write("paxtwice", body() + pax(tarfile.XHDTYPE, [b"size=512"]) + pax(tarfile.XHDTYPE, [b"comment=x"])
      + header(f) + fifo.tobuf(tarfile.USTAR_FORMAT))
# A global size= would be every member's.
write("globalsize", pax(tarfile.XGLTYPE, [b"size=0"], "pax_global_header") + body())
# A size tar cannot read (it keeps the header's) and one with two NULs
# before it (tar refuses the header and looks for the next one after it).
write("paxbadsize", body() + pax(tarfile.XHDTYPE, [b"size=512abc"]) + header(f) + fifo.tobuf(tarfile.USTAR_FORMAT))
write("nulsize", body() + header(f, size=(124, b"\x00\x00" + b"000001000\x00")) + fifo.tobuf(tarfile.USTAR_FORMAT))

# What still unpacks: GNU long names, pax headers (path=, a long link
# target, a global comment as git archive writes), hard and symbolic links.
deep = "sys/devices/virtual/" + "d" * 120
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT,
                  pax_headers={"comment": "a git archive's commit id"}) as t:
    fixture(t)
    dd = tarfile.TarInfo(deep); dd.type, dd.mode = tarfile.DIRTYPE, 0o755
    t.addfile(dd)
    data = b"1\n"
    ff = tarfile.TarInfo(deep + "/" + "f" * 110); ff.size = len(data)
    t.addfile(ff, io.BytesIO(data))
    hl = tarfile.TarInfo(deep + "/hard"); hl.type, hl.linkname = tarfile.LNKTYPE, ff.name
    t.addfile(hl)
    sl = tarfile.TarInfo("sys/link"); sl.type, sl.linkname = tarfile.SYMTYPE, "../" + deep + "/" + "f" * 110
    t.addfile(sl)
with open(os.path.join(out, "pax-good.tar"), "wb") as o:
    o.write(buf.getvalue())
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
    fixture(t)
    t.addfile(dd)
    t.addfile(ff, io.BytesIO(data))
    t.addfile(hl)
    t.addfile(sl)
with open(os.path.join(out, "gnu-good.tar"), "wb") as o:
    o.write(buf.getvalue())
PY

a=$tmp/a
special="a capture holds regular files, directories and links only"
chr_line="member 'sys/devices/system/cpu/online' is a character device: $special"
blk_line="member 'sys/block/sda' is a block device: $special"
fifo_line="member 'proc/cpuinfo' is a FIFO: $special"

# 1. The three special types, plain and through each decompressor.
for kind in chr blk fifo; do
	eval "msg=\$${kind}_line"
	for z in "" gz xz bz2; do
		f=$a/$kind.tar
		case $z in
		gz) gzip -1 -c "$a/$kind.tar" >"$f.gz" ;;
		xz) command -v xz >/dev/null 2>&1 || { ok "$kind.tar.xz # SKIP no xz"; continue; }
			xz -0 -c "$a/$kind.tar" >"$f.xz" ;;
		bz2) command -v bzip2 >/dev/null 2>&1 || { ok "$kind.tar.bz2 # SKIP no bzip2"; continue; }
			bzip2 -1 -c "$a/$kind.tar" >"$f.bz2" ;;
		esac
		[ -n "$z" ] && f=$f.$z
		refused "${f##*/}: refused, naming the member" \
			"cannot unpack '$f': $msg" "$NODEAUDIT" --sysroot "$f" probe --format json
	done
done
gzip -1 -c "$a/chr.tar" >"$a/chr.tgz"
refused "chr.tgz through check" "cannot unpack '$a/chr.tgz': $chr_line" \
	"$NODEAUDIT" --sysroot "$a/chr.tgz" check
refused "chr.tgz through snapshot" "cannot unpack '$a/chr.tgz': $chr_line" \
	"$NODEAUDIT" --sysroot "$a/chr.tgz" -q snapshot -o "$tmp/snap.tar.gz"
[ -e "$tmp/snap.tar.gz" ] && notok "snapshot of chr.tgz left $tmp/snap.tar.gz"

# 2. diff of two archives: either side refused alike.
(cd "$base" && command tar -cf - .) | gzip -1 >"$a/good.tar.gz"
refused "diff good.tar.gz chr.tar.gz" "cannot unpack '$a/chr.tar.gz': $chr_line" \
	"$NODEAUDIT" diff "$a/good.tar.gz" "$a/chr.tar.gz"
refused "diff fifo.tar.gz good.tar.gz" "cannot unpack '$a/fifo.tar.gz': $fifo_line" \
	"$NODEAUDIT" diff "$a/fifo.tar.gz" "$a/good.tar.gz"

# 3. Names from elsewhere than the header's name field.
refused "a device under a GNU long name" \
	"cannot unpack '$a/long.tar': member 'sys/devices/pci0000:00/0000:00:1f.0/$(printf '%090d' 0 | tr 0 x)/watchdog' is a character device: $special" \
	"$NODEAUDIT" --sysroot "$a/long.tar" probe --format json
refused "a device under a pax path= with an ESC, a decoy ustar name" \
	"cannot unpack '$a/paxpath.tar': member 'sys/class/watchdog/?[31mwatchdog0' is a character device: $special" \
	"$NODEAUDIT" --sysroot "$a/paxpath.tar" probe --format json

# 4. Types with no device behind them: POSIX reads a type it does not
# define as a regular file, and a GNU sparse member without holes is one.
unpacks "GNU sparse file, no holes: a regular file" "$a/sparse.tar"
unpacks "unknown type 'Z': a regular file" "$a/unknown.tar"

# 5. Headers two tars read differently: one reader judges what it makes.
# Where it reads the FIFO hidden after them, the FIFO is refused; where it
# reads the FIFO's header as data, there is no FIFO to make.
fifo_hidden="member 'sneaky' is a FIFO: $special"
refused "a directory carrying data" "cannot unpack '$a/dirdata.tar': $fifo_hidden" \
	"$NODEAUDIT" --sysroot "$a/dirdata.tar" probe --format json
refused "a file named 'hidden/' carrying data" "cannot unpack '$a/slashdata.tar': $fifo_hidden" \
	"$NODEAUDIT" --sysroot "$a/slashdata.tar" probe --format json
refused "a second pax header dropping the first's size=" "cannot unpack '$a/paxtwice.tar': $fifo_hidden" \
	"$NODEAUDIT" --sysroot "$a/paxtwice.tar" probe --format json
refused "a size field with two NULs first" "cannot unpack '$a/nulsize.tar': $fifo_hidden" \
	"$NODEAUDIT" --sysroot "$a/nulsize.tar" probe --format json
unpacks "a pax global header's size=0: the fixture" "$a/globalsize.tar"
unpacks "a pax size= that does not parse: the FIFO's header read as data" "$a/paxbadsize.tar"

# 6. What a capture holds still unpacks.
cp -R "$base" "$tmp/root"
chmod -R u+w "$tmp/root"
ln "$tmp/root/sys/devices/system/node/node0/meminfo" "$tmp/root/sys/devices/system/node/node0/meminfo.hard"
ln -s ../node0/meminfo "$tmp/root/sys/devices/system/node/node1/meminfo.link"
(cd "$tmp/root" && command tar -cf - .) | gzip -1 >"$a/links.tar.gz"
unpacks "GNU tar's archive with a hard link and a symbolic link" "$a/links.tar.gz"
unpacks "python's pax archive: long names, a global comment, hard and symbolic links" "$a/pax-good.tar"
unpacks "python's GNU archive: long names and links" "$a/gnu-good.tar"

echo "1..$n"
[ $fail -eq 0 ]
