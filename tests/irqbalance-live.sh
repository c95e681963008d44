#!/bin/sh
# irqbalance-live.sh - on this machine, kernel.irqbalance finds a process
# named irqbalance: by its control socket (@irqbalancePID.sock in
# /proc/net/unix) reading one process's comm, not every process's; without
# a socket, by the scan of /proc (an executable named irqbalance), which
# skips the kernel's own threads; and a socket whose process is not
# irqbalance is no irqbalance.  Skips (77) without python3 or /proc/net/unix.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
[ -r /proc/net/unix ] || { echo "SKIP: no /proc/net/unix"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irqbalance-live.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 fail=0
real=0
pgrep -x irqbalance >/dev/null 2>&1 && real=1
# Every program emulated (an arm64 root under qemu-user through
# binfmt_misc, scripts/test-all): the kernel shows each emulated process's
# exe as the emulator, and strace traces the emulator's own calls.
emu_why=${NODEAUDIT_EMULATED_ALL:+"every process here runs under $NODEAUDIT_EMULATED_ALL, whose /proc/PID/exe is the emulator's"}

# fake NAME SOCKET: a process named NAME (15 characters at most) that holds
# an abstract socket "@irqbalance<its pid>.sock" when SOCKET is 1.
fake() {
	rm -f "$tmp/ready"
	python3 -c '
import ctypes, os, socket, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
if sys.argv[2] == "1":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0irqbalance%d.sock" % os.getpid())
    s.listen(1)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
time.sleep(60)
' "$1" "$2" "$tmp/ready" &
	pids="$pids $!"
	i=0
	while [ ! -e "$tmp/ready" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	# The python3 found first may be a wrapper (pyenv): the process
	# itself wrote its PID.
	last=$(cat "$tmp/ready" 2>/dev/null)
	pids="$pids $last"
}
stop() { kill "$last" 2>/dev/null; wait "$last" 2>/dev/null; }

probe() { # probe EXPECTED NAME
	n=$((n + 1))
	printf '{"kernel": {"irqbalance": %s}}\n' "$1" >"$tmp/exp"
	if "$NODEAUDIT" probe --only kernel --format json >"$tmp/out" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/exp" "$tmp/out" >"$tmp/diff" 2>&1; then echo "ok $n - $2"
	else echo "not ok $n - $2"; sed 's/^/#   /' "$tmp/diff" "$tmp/err"; fail=$((fail + 1)); fi
}

# 0. As root, the scan reads few comm files: one readlink of exe each.
n=$((n + 1))
if [ "$(id -u)" -ne 0 ] || ! command -v strace >/dev/null 2>&1; then
	echo "ok $n - scan without comm reads # SKIP needs root and strace"
elif [ $real -eq 1 ]; then
	echo "ok $n - scan without comm reads # SKIP an irqbalance runs here"
else
	procs=$(find /proc -maxdepth 1 -name '[0-9]*' 2>/dev/null | wc -l)
	strace -f -e trace=open,openat -o "$tmp/trace" "$NODEAUDIT" probe --only kernel >/dev/null 2>&1
	comms=$(grep -c '/comm"' "$tmp/trace")
	# A process whose exe is refused even to root (another namespace's
	# init) still has its comm read.
	if [ $((comms * 4)) -lt "$procs" ]; then echo "ok $n - the scan reads $comms comm files for $procs processes"
	else echo "not ok $n - the scan read $comms comm files for $procs processes"; fail=$((fail + 1)); fi
fi

# 0b. The kernel's own threads (kthreadd's children) are not looked at:
# no readlink of a kernel thread's exe.  Needs root, strace and
# /proc/2/task/2/children of a kthreadd (not in a container's namespace).
n=$((n + 1))
kids=$(cat /proc/2/task/2/children 2>/dev/null)
if [ "$(id -u)" -ne 0 ] || ! command -v strace >/dev/null 2>&1; then
	echo "ok $n - kernel threads skipped # SKIP needs root and strace"
elif [ $real -eq 1 ]; then
	echo "ok $n - kernel threads skipped # SKIP an irqbalance runs here"
elif [ -n "$emu_why" ]; then
	echo "ok $n - kernel threads skipped # SKIP $emu_why"
elif ! grep -q '^2 (kthreadd) ' /proc/2/stat 2>/dev/null || [ -z "$kids" ]; then
	echo "ok $n - kernel threads skipped # SKIP no kthreadd children list here"
else
	strace -f -e trace=readlinkat,readlink -o "$tmp/trace" "$NODEAUDIT" probe --only kernel >/dev/null 2>&1
	looked=$(sed -n 's/.*"\([0-9][0-9]*\)\/exe".*/\1/p' "$tmp/trace" | sort -u)
	hit=0 nlooked=0
	for p in $looked; do
		nlooked=$((nlooked + 1))
		for k in $kids; do [ "$p" = "$k" ] && hit=$((hit + 1)); done
	done
	nkids=$(echo $kids | wc -w)
	if [ $hit -eq 0 ] && [ $nlooked -gt 0 ]; then
		echo "ok $n - $nlooked processes looked at, none of the $nkids kernel threads"
	else
		echo "not ok $n - $hit of $nkids kernel threads looked at ($nlooked in all)"; fail=$((fail + 1))
	fi
fi

# 1. A socket whose process is not irqbalance: not counted.
fake notirqbalance 1
if [ $real -eq 0 ]; then probe false "a stale or foreign irqbalance socket is no irqbalance"
else n=$((n + 1)); echo "ok $n - foreign socket # SKIP an irqbalance runs here"; fi
stop

# 2. irqbalance with its control socket: found, one comm read.
fake irqbalance 1
probe true "irqbalance with a control socket"
n=$((n + 1))
if command -v strace >/dev/null 2>&1; then
	strace -f -e trace=open,openat -o "$tmp/trace" "$NODEAUDIT" probe --only kernel >/dev/null 2>&1
	comms=$(grep -c '/comm"' "$tmp/trace")
	if [ "$comms" -le 1 ]; then echo "ok $n - found by its socket: $comms comm read"
	else echo "not ok $n - found by its socket, yet $comms comm files read"; fail=$((fail + 1)); fi
else
	echo "ok $n - comm reads # SKIP no strace"
fi
stop

# 3. irqbalance without a socket (an old one): found by the scan, as root by
# its executable, else by its comm.
sleep=$(command -v sleep)
mkdir "$tmp/sbin" && cp "$sleep" "$tmp/sbin/irqbalance"
if [ -n "$emu_why" ]; then
	n=$((n + 1)); echo "ok $n - irqbalance without a socket # SKIP $emu_why"
else
	"$tmp/sbin/irqbalance" 60 &
	pids="$pids $!"
	last=$!
	probe true "irqbalance without a socket"
	stop
fi

echo "1..$n"
[ $fail -eq 0 ]
