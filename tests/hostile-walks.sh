#!/bin/sh
# hostile-walks.sh - a sysroot where a directory of a numbered walk should
# be and something else is: a plain file, a FIFO, a link to itself, a link
# that loops back through itself (cpu0/cache -> ../cpu0/cache/..), a link to
# "." or "..".  The places are the numbered entries the probes walk
# (cpuN/cache, cache/indexN, cpuN, nodeN, EDAC's mcN, PCI functions) and the
# directories above them; the sysroots are given as directories and as
# .tar.gz archives.  Every `probe` must end (within 30 s) with exit 0, no
# sanitizer report, and where a directory of the walk is not one, a gap
# naming that path and saying what it is ("not a directory", "symbolic link
# loop"): never an endless walk (the cache walk used to stop only on ENOENT
# and read ENOTDIR or ELOOP for ever, its memory growing).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-walks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fx=$top_srcdir/tests/fixtures
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# shape KIND PATH: PATH (inside a copied sysroot) made into KIND.
shape() {
	rm -rf "$2"
	b=$(basename "$2") d=$(basename "$(dirname "$2")")
	case $1 in
	file) echo 1 >"$2" ;;
	fifo) mkfifo "$2" ;;
	self) ln -s "$b" "$2" ;;
	loop) ln -s "../$d/$b/.." "$2" ;;
	dot) ln -s . "$2" ;;
	up) ln -s .. "$2" ;;
	esac
}

# walk FIXTURE REL KIND GAP: probe the fixture with REL made into KIND, as
# a directory and (but a FIFO, which an archive never holds) as a .tar.gz
# where forms is "dir tgz"; GAP (a fixed string, may be empty) must be in
# the JSON output.
forms="dir tgz"
walk() {
	fixture=$1 rel=$2 kind=$3 gap=$4
	rm -rf "$tmp/s"
	# One copy of each fixture, and hard-linked trees of it (each case
	# replaces an entry, never writes into a file).
	[ -d "$tmp/p/$fixture" ] || { mkdir -p "$tmp/p" && cp -R "$fx/$fixture" "$tmp/p/$fixture"; }
	cp -R -l "$tmp/p/$fixture" "$tmp/s" 2>/dev/null || cp -R "$tmp/p/$fixture" "$tmp/s"
	shape "$kind" "$tmp/s/$rel"
	for form in $forms; do
		root=$tmp/s
		if [ $form = tgz ]; then
			[ "$kind" = fifo ] && continue
			(cd "$tmp/s" && tar -czf "$tmp/s.tar.gz" .) || { notok "$rel $kind: tar"; continue; }
			root=$tmp/s.tar.gz
		fi
		timeout 30 "$NODEAUDIT" --sysroot "$root" probe --format json >"$tmp/out" 2>"$tmp/err"
		rc=$?
		why=""
		if grep -Eq 'runtime error:|Sanitizer' "$tmp/err"; then why="sanitizer report"
		elif [ $rc -eq 124 ]; then why="did not end within 30 s"
		elif [ $rc -ne 0 ]; then why="exit $rc"
		elif [ -n "$gap" ] && ! grep -Fq "\"$gap\"" "$tmp/out"; then why="no gap \"$gap\""
		fi
		if [ -z "$why" ]; then ok "$fixture: $rel as $kind ($form)"
		else notok "$fixture: $rel as $kind ($form): $why"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi
	done
}

cpu=sys/devices/system/cpu
for k in file fifo; do
	walk cpu-2s-smt $cpu/cpu0/cache $k "/$cpu/cpu0/cache: not a directory"
	walk cpu-2s-smt $cpu/cpu0/cache/index2 $k "/$cpu/cpu0/cache/index2: not a directory"
	walk cpu-2s-smt $cpu/cpu0/cache/index0 $k ""
done
for k in self loop; do
	walk cpu-2s-smt $cpu/cpu0/cache $k "/$cpu/cpu0/cache: symbolic link loop"
	walk cpu-2s-smt $cpu/cpu0/cache/index2 $k "/$cpu/cpu0/cache/index2: symbolic link loop"
	walk cpu-2s-smt $cpu/cpu0/cache/index0 $k ""
done
for k in dot up; do
	walk cpu-2s-smt $cpu/cpu0/cache $k ""
	walk cpu-2s-smt $cpu/cpu0/cache/index2 $k ""
done
# A CPU's own directory, the CPU directory, the nodes, EDAC, PCI: every
# shape ends; the gaps name the files below it (as directories only: the
# archives unpack to the same trees, as the CPU's cases above show).
forms=dir
for k in file fifo self loop dot up; do
	walk cpu-2s-smt $cpu/cpu0 $k ""
	walk cpu-2s-smt $cpu/cpu5/topology $k ""
	walk cpu-2s-smt $cpu $k ""
	walk numa-2node sys/devices/system/node/node1 $k ""
	walk numa-2node sys/devices/system/node $k ""
	walk mem-edac sys/devices/system/edac/mc/mc0 $k ""
	walk pci-8gpu-switches sys/bus/pci/devices/0000:16:00.0 $k ""
	walk pci-8gpu-switches sys/devices/pci0000:15/0000:15:01.0 $k ""
	walk pci-8gpu-switches sys/bus/pci/devices $k ""
done
forms="dir tgz"
walk cpu-2s-smt $cpu/cpu0 file "/$cpu/cpu0: not a directory"
walk cpu-2s-smt $cpu/cpu0 self "/$cpu/cpu0: symbolic link loop"
walk numa-2node sys/devices/system/node/node1 self "/sys/devices/system/node/node1/cpulist: symbolic link loop"

echo "1..$n"
[ $fail -eq 0 ]
