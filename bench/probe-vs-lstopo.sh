#!/bin/sh
# probe-vs-lstopo.sh - wall time and system calls of `nodeaudit check`,
# `nodeaudit probe` and each `probe --only PART` against
# `lstopo-no-graphics --whole-io` and `lscpu` on this machine.
#
# Wall: N rounds (default 21); each round runs every command once, one after
# the other (alternating, so that a noisy moment hits all of them); the
# median per command, and the median of the per-round ratios to lstopo.
# The runs are started by python3's posix_spawn (vfork, then exec) with a
# monotonic clock around each: a shell forks itself for every command and
# `date` forks twice more, and on a VM those forks cost more than a whole
# `probe --only host` (7 to 14 ms a run on the reference VM, added to every
# command alike, which pulled every ratio towards 1).
# System calls: `strace -f -c` of each command, S runs (default 3), median
# of the totals (strace slows a run down: its runs are not timed).
# Target (issue 47, every library linked, no process-wide trick): check
# wall <= 1.0x lstopo --whole-io.  System calls are shown, not targeted.
#   bench/probe-vs-lstopo.sh [N [S]]     NODEAUDIT=path overrides the binary
set -eu
n=${1:-21}
s=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
na=${NODEAUDIT:-}
if [ -z "$na" ]; then
	for c in "$here/build/src/nodeaudit" "$here/src/nodeaudit"; do
		[ -x "$c" ] && { na=$c; break; }
	done
fi
if [ -z "$na" ] || [ ! -x "$na" ]; then
	echo "probe-vs-lstopo: no nodeaudit binary (build first, or set NODEAUDIT)" >&2; exit 2
fi
command -v lstopo-no-graphics >/dev/null 2>&1 ||
	{ echo "probe-vs-lstopo: lstopo-no-graphics not found (Debian: hwloc-nox)" >&2; exit 2; }
command -v lscpu >/dev/null 2>&1 || { echo "probe-vs-lstopo: lscpu not found (util-linux)" >&2; exit 2; }
case $n in ''|*[!0-9]*|0) echo "probe-vs-lstopo: N must be a positive number" >&2; exit 2 ;; esac
case $s in ''|*[!0-9]*) echo "probe-vs-lstopo: S must be a number" >&2; exit 2 ;; esac
have_strace=1
command -v strace >/dev/null 2>&1 || have_strace=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The commands, one a line: a label, a tab, the command line.
tab=$(printf '\t')
cat >"$tmp/cmds" <<EOF
check${tab}"$na" check
probe${tab}"$na" probe
probe --only host${tab}"$na" probe --only host
probe --only cpu${tab}"$na" probe --only cpu
probe --only numa${tab}"$na" probe --only numa
probe --only memory${tab}"$na" probe --only memory
probe --only pci${tab}"$na" probe --only pci
probe --only kernel${tab}"$na" probe --only kernel
lstopo-no-graphics --whole-io${tab}lstopo-no-graphics --whole-io
lscpu${tab}lscpu
EOF
ncmd=$(wc -l <"$tmp/cmds")

# cmd_K: the K-th command line (for the strace runs below).
k=1
while [ $k -le "$ncmd" ]; do
	# shellcheck disable=SC2034 # read by the eval below
	cmd=$(sed -n "${k}p" "$tmp/cmds" | cut -f2-)
	eval "cmd_$k=\$cmd"
	k=$((k + 1))
done

# Wall: one warm-up each (page cache, dynamic loader), not counted; then N
# rounds; $tmp/times gets a line a round, microseconds per command.
python3 - "$tmp/cmds" "$n" >"$tmp/times" <<'PY' ||
import os, shlex, shutil, sys, time
cmds = [shlex.split(l.rstrip("\n").split("\t", 1)[1]) for l in open(sys.argv[1])]
null = [(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
paths = [shutil.which(c[0]) or c[0] for c in cmds]
def run(k):
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(paths[k], cmds[k], os.environ, file_actions=null)
    os.waitpid(pid, 0)
    return (time.monotonic_ns() - t0) // 1000
for k in range(len(cmds)):
    run(k)
for i in range(int(sys.argv[2])):
    print(" ".join(str(run(k)) for k in range(len(cmds))))
PY
	{ echo "probe-vs-lstopo: the timing needs python3" >&2; exit 2; }

if [ $have_strace -eq 1 ] && [ "$s" -gt 0 ]; then
	k=1
	while [ $k -le "$ncmd" ]; do
		j=0
		while [ $j -lt "$s" ]; do
			eval "eval \"strace -f -c -o '$tmp/st' \$cmd_$k\"" >/dev/null 2>&1 || true
			awk '$NF == "total" { print $4 }' "$tmp/st" >>"$tmp/sc.$k"
			j=$((j + 1))
		done
		k=$((k + 1))
	done
fi

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
lst=$(grep -n '^lstopo' "$tmp/cmds" | cut -d: -f1)
printf 'runs: %d rounds, each command once a round (alternating); syscalls: median of %s strace -f -c runs\n' "$n" \
	"$([ $have_strace -eq 1 ] && echo "$s" || echo "no (strace missing)")"
printf '%-30s %9s %9s %9s %10s\n' "command" "wall ms" "/lstopo" "syscalls" "/lstopo"
lsc=nan
[ -f "$tmp/sc.$lst" ] && lsc=$(median <"$tmp/sc.$lst")
k=1
while [ $k -le "$ncmd" ]; do
	label=$(sed -n "${k}p" "$tmp/cmds" | cut -f1)
	w=$(awk -v k=$k '{ print $k }' "$tmp/times" | median)
	r=$(awk -v k=$k -v l="$lst" '{ printf "%.6f\n", $k / $l }' "$tmp/times" | median)
	sc=nan
	[ -f "$tmp/sc.$k" ] && sc=$(median <"$tmp/sc.$k")
	awk -v lab="$label" -v w="$w" -v r="$r" -v sc="$sc" -v lsc="$lsc" 'BEGIN {
		if (sc == "nan") printf "%-30s %9.1f %9.2f %9s %10s\n", lab, w / 1e3, r, "-", "-"
		else printf "%-30s %9.1f %9.2f %9d %10.2f\n", lab, w / 1e3, r, sc, sc / lsc }'
	[ "$label" = check ] && { cr=$r; csc=$sc; }
	k=$((k + 1))
done
awk -v r="$cr" 'BEGIN {
	printf "target check wall <= 1.0x lstopo --whole-io: %.2f (%s)\n", r, r <= 1.0 ? "met" : "not met" }'
