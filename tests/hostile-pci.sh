#!/bin/sh
# hostile-pci.sh - PCI sysroots that try to make the probe read outside the
# sysroot or block: a device directory linked outside (absolute and
# relative links), a config file that is a FIFO or links to one outside, a
# config file that is a device node (in a directory and in a .tar.gz
# unpacked as root), and a snapshot's pci.dump that links outside.  Bait
# planted outside the sysroot makes an accelerator appear if read, and a
# FIFO bait records any open; where the file system keeps access times,
# no bait file may have been read.  Every run must end within 10 s with
# exit 0 (or exit 3 and one line on stderr).  Parts that need root print
# SKIP lines when not root.
set -u
: "${NODEAUDIT:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-pci.XXXXXX")
writers=""
cleanup() {
	for w in $writers; do kill "$w" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; [ -f "$tmp/err" ] && sed 's/^/#   /' "$tmp/err" | head -n 5; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# bytes HEX...: those bytes (octal escapes: dash's printf has no \x).
bytes() {
	# shellcheck disable=SC2059 # the format is the byte
	for h in "$@"; do printf "\\$(printf %03o "0x$h")"; done
}

# cfg FILE VENDOR DEVICE CLASS: a 256-byte config space of a PCIe endpoint
# (LnkCap and LnkSta x16 16 GT/s) with the given ids ("10de" "20b5" "030200").
cfg() {
	v=$2 d=$3 c=$4
	{
		bytes "${v#??}" "${v%??}" "${d#??}" "${d%??}" 00 00 10 00
		bytes 00 "$(echo "$c" | cut -c5-6)" "$(echo "$c" | cut -c3-4)" "$(echo "$c" | cut -c1-2)" 00 00 00 00
		head -c 36 /dev/zero
		bytes 40 00 00 00 00 00 00 00 00 00 00 00
		bytes 10 00 02 00 00 00 00 00 00 00 00 00
		bytes 04 01 00 00 00 00 04 01
		head -c 172 /dev/zero
	} >"$1"
}

# dump CFG BDF: an lspci -xxx style dump of one function.
dump() {
	printf '%s Class 0000: 0000:0000\n' "$2"
	od -An -tx1 -v "$1" | awk '{ printf "%02x:", (NR - 1) * 16; for (i = 1; i <= NF; i++) printf " %s", $i; print "" }'
}

# A minimal sysroot: one CPU, and PCI device BDF with the given files.
mkroot() { # mkroot DIR
	mkdir -p "$1/proc" "$1/sys/bus/pci/devices" "$1/sys/devices/pci0000:00" \
		"$1/sys/devices/system/cpu/cpu0/topology"
	printf 'processor\t: 0\n\n' >"$1/proc/cpuinfo"
	echo 0 >"$1/sys/devices/system/cpu/cpu0/topology/physical_package_id"
}

# A device directory with sysfs ids and no link files (config matters).
mkdev() { # mkdev DIR VENDOR DEVICE CLASS
	mkdir -p "$1"
	echo "0x$2" >"$1/vendor"; echo "0x$3" >"$1/device"; echo "0x$4" >"$1/class"
	echo -1 >"$1/numa_node"; echo 0 >"$1/local_cpulist"
}

# Bait outside every sysroot: an accelerator's config and ids.
bait=$tmp/outside
mkdev "$bait/0000:00:05.0" 10de 20b5 030200
cfg "$bait/0000:00:05.0/config" 10de 20b5 030200
cfg "$bait/config" 10de 20b5 030200
mkfifo "$bait/fifo"
dump "$bait/config" 0000:00:05.0 >"$bait/pci.dump"
cfg "$tmp/nic.cfg" 8086 1521 020000

# Access times: read bait must show; skip the check where they do not move.
atime_ok=0
old=200001010000
for f in "$bait/0000:00:05.0/vendor" "$bait/0000:00:05.0/class" "$bait/0000:00:05.0/config" "$bait/config" \
	"$bait/pci.dump"; do
	touch -a -t "$old" "$f"
done
echo probe >"$tmp/atime-probe"; touch -a -t "$old" "$tmp/atime-probe"
cat "$tmp/atime-probe" >/dev/null
[ "$(stat -c %X "$tmp/atime-probe")" -gt 946771200 ] && atime_ok=1

# A FIFO bait: a writer waits until someone opens it for reading.
( exec 3>"$bait/fifo"; : >"$tmp/fifo-opened" ) &
writers="$writers $!"

# run NAME SYSROOT [ARGS]: probe --only pci within 10 s; output in $tmp/out.
run() {
	name=$1 root=$2
	shift 2
	rm -f "$tmp/out" "$tmp/err"
	start=$(date +%s)
	timeout 10 "$NODEAUDIT" --sysroot "$root" probe --only pci --format json "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 124 ] || [ $rc -gt 3 ]; then flunk "$name: exit $rc after ${secs}s (a stall or a crash)"; return 1; fi
	if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then flunk "$name: exit 3 without exactly one line"; return 1; fi
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then flunk "$name: exit $rc"; return 1; fi
	pass "$name: ends in ${secs}s with exit $rc"
	return 0
}

no_bait() { # no_bait NAME: the bait accelerator is not in the output
	if grep -q '20b5' "$tmp/out"; then flunk "$1: the bait outside the sysroot was read (10de:20b5 reported)"
	else pass "$1: nothing from outside the sysroot"; fi
}

gap_has() { # gap_has NAME REGEX
	if grep -Eq "$2" "$tmp/out"; then pass "$1"; else flunk "$1 (no /$2/ in the output)"; fi
}

# 1. The device directory is an absolute link outside the sysroot.
r=$tmp/r1; mkroot "$r"
ln -s "$bait/0000:00:05.0" "$r/sys/devices/pci0000:00/0000:00:05.0"
ln -s "../../../devices/pci0000:00/0000:00:05.0" "$r/sys/bus/pci/devices/0000:00:05.0"
run "device directory linked outside (absolute)" "$r" && no_bait "absolute device link"

# 2. ... a relative link climbing out of the sysroot.
r=$tmp/r2; mkroot "$r"
up=$(echo "$r/sys/devices/pci0000:00" | sed 's#[^/][^/]*#..#g; s#^/##')
ln -s "$up$bait/0000:00:05.0" "$r/sys/devices/pci0000:00/0000:00:05.0"
ln -s "../../../devices/pci0000:00/0000:00:05.0" "$r/sys/bus/pci/devices/0000:00:05.0"
run "device directory linked outside (relative ..)" "$r" && no_bait "relative device link"

# 3. A NIC whose config file links to the accelerator's config outside.
r=$tmp/r3; mkroot "$r"
mkdev "$r/sys/devices/pci0000:00/0000:00:03.0" 8086 1521 020000
ln -s "$bait/config" "$r/sys/devices/pci0000:00/0000:00:03.0/config"
ln -s "../../../devices/pci0000:00/0000:00:03.0" "$r/sys/bus/pci/devices/0000:00:03.0"
run "config linked outside" "$r" &&
	gap_has "config linked outside: the NIC's link is a gap, not the bait's x16" '"link":[[:space:]]*null'

# 4. A config linked to the FIFO bait (read first), and a config FIFO
# inside the sysroot.
r=$tmp/r4; mkroot "$r"
mkdev "$r/sys/devices/pci0000:00/0000:00:02.0" 8086 1521 020000
ln -s "$bait/fifo" "$r/sys/devices/pci0000:00/0000:00:02.0/config"
ln -s "../../../devices/pci0000:00/0000:00:02.0" "$r/sys/bus/pci/devices/0000:00:02.0"
mkdev "$r/sys/devices/pci0000:00/0000:00:03.0" 8086 1521 020000
mkfifo "$r/sys/devices/pci0000:00/0000:00:03.0/config"
ln -s "../../../devices/pci0000:00/0000:00:03.0" "$r/sys/bus/pci/devices/0000:00:03.0"
run "config FIFO" "$r" &&
	gap_has "config FIFO: a gap naming the reason" 'config: not a regular file'

# 5. A snapshot's pci.dump that links outside; the same path inside the
# sysroot holds a NIC's dump.  The function has no sysfs ids: its config
# space names it.
r=$tmp/r5; mkroot "$r"
mkdir -p "$r/sys/devices/pci0000:00/0000:00:05.0" "$r/nodeaudit" "$r$bait"
ln -s "../../../devices/pci0000:00/0000:00:05.0" "$r/sys/bus/pci/devices/0000:00:05.0"
dump "$tmp/nic.cfg" 0000:00:05.0 >"$r$bait/pci.dump"
ln -s "$bait/pci.dump" "$r/nodeaudit/pci.dump"
run "snapshot pci.dump linked outside" "$r" && no_bait "pci.dump link" &&
	gap_has "pci.dump link: the NIC of the dump inside the sysroot" '"device_id":[[:space:]]*"1521"'

# 6. Device nodes as config (root only): in a directory and in a .tar.gz.
if [ "$(id -u)" -ne 0 ]; then
	skip "config as a device node" "needs root (mknod)"
	skip "config as a device node in a .tar.gz unpacked as root" "needs root"
else
	r=$tmp/r6; mkroot "$r"
	mkdev "$r/sys/devices/pci0000:00/0000:00:03.0" 8086 1521 020000
	mknod "$r/sys/devices/pci0000:00/0000:00:03.0/config" c 1 5   # /dev/zero
	ln -s "../../../devices/pci0000:00/0000:00:03.0" "$r/sys/bus/pci/devices/0000:00:03.0"
	if run "config as a device node" "$r"; then
		if grep -q 'conventional PCI' "$tmp/out"; then
			flunk "config as a device node: the device was read (zeros taken for a header)"
		else
			gap_has "config as a device node: a gap naming the reason" 'config: not a regular file'
		fi
	fi
	(cd "$tmp" && tar -czf r6.tar.gz r6)
	if run "config as a device node in a .tar.gz" "$tmp/r6.tar.gz"; then
		if grep -q 'conventional PCI' "$tmp/out"; then
			flunk "device node in a .tar.gz: the device was read"
		else
			pass "device node in a .tar.gz: not read"
		fi
	fi
fi

# Nothing outside was opened or read.
sleep 0.2
if [ -e "$tmp/fifo-opened" ]; then flunk "the FIFO bait outside the sysroot was opened"
else pass "the FIFO bait outside the sysroot was never opened"; fi
if [ $atime_ok -eq 1 ]; then
	read_any=""
	for f in "$bait/0000:00:05.0/vendor" "$bait/0000:00:05.0/class" "$bait/0000:00:05.0/config" "$bait/config" \
		"$bait/pci.dump"; do
		[ "$(stat -c %X "$f")" -gt 946771200 ] && read_any="$read_any $f"
	done
	if [ -n "$read_any" ]; then flunk "bait read (access time moved):$read_any"
	else pass "no bait file outside the sysroot was read (access times)"; fi
else
	skip "bait access times" "this file system does not update access times"
fi

echo "1..$n"
[ $fail -eq 0 ]
