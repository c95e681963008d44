#!/bin/sh
# kernel-live.sh - on this machine, the kernel probe agrees with sysctl(8)
# and /proc/cmdline.  Skips (77) without procps' sysctl or /proc/sys.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
PATH=$PATH:/usr/sbin:/sbin
command -v sysctl >/dev/null 2>&1 || { echo "SKIP: no sysctl (procps)"; exit 77; }
if [ ! -r /proc/sys/vm/swappiness ] || [ ! -r /proc/cmdline ]; then
	echo "SKIP: no readable /proc/sys"; exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kernel-live.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
"$NODEAUDIT" probe --only kernel --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$((n + 1))
if [ $rc -eq 0 ]; then echo "ok $n - probe --only kernel exits 0"
else echo "not ok $n - probe --only kernel exits $rc"; cat "$tmp/err"; exit 1; fi

# JSON string escaping for sh: backslash and double quote (no control
# characters in these values).
jesc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

check() { # check NAME EXPECTED-JSON
	n=$((n + 1))
	printf '%s\n' "$2" >"$tmp/exp"
	if "$JSUBSET" "$tmp/exp" "$tmp/out" >"$tmp/diff" 2>&1; then echo "ok $n - $1"
	else echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/diff"; fail=$((fail + 1)); fi
}

# net.* sysctls are the host's only where this process shares pid 1's network
# namespace; where that is not so, or cannot be told (pid 1's link is root's
# with CAP_SYS_PTRACE, and the kernel does not give the initial namespace its
# fixed inode, net:[4026531833]), the probe leaves them null.
own=$(readlink /proc/self/ns/net 2>/dev/null)
if [ "$own" = 'net:[4026531833]' ]; then hostns=1
else
	init=$(readlink /proc/1/ns/net 2>/dev/null) && [ -n "$own" ] && [ "$own" = "$init" ] && hostns=1 || hostns=0
fi
for key in vm.swappiness vm.overcommit_memory vm.max_map_count net.core.somaxconn \
	   net.ipv4.ip_local_port_range fs.file-max fs.nr_open; do
	case $key in net.*) if [ $hostns = 0 ]; then
		check "kernel.sysctl.\"$key\" = null (not pid 1's network namespace, or cannot tell)" \
			"{\"kernel\": {\"sysctl\": {\"$key\": null}}}"
		continue
	fi ;; esac
	v=$(sysctl -n "$key" 2>/dev/null) || { n=$((n + 1)); echo "ok $n - $key # SKIP sysctl cannot read it"; continue; }
	# sysctl prints tabs as the kernel does; the probe squashes white space.
	v=$(printf '%s' "$v" | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')
	check "kernel.sysctl.\"$key\" = sysctl -n ($v)" "{\"kernel\": {\"sysctl\": {\"$key\": \"$(jesc "$v")\"}}}"
done

raw=$(head -n 1 /proc/cmdline | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
check "kernel.cmdline.raw = /proc/cmdline" "{\"kernel\": {\"cmdline\": {\"raw\": \"$(jesc "$raw")\"}}}"

nb=$(sysctl -n kernel.numa_balancing 2>/dev/null) && {
	case $nb in 0) want=off ;; *) want=on ;; esac
	check "kernel.numa_balancing = $want" "{\"kernel\": {\"numa_balancing\": \"$want\"}}"
}
rel=$(uname -r)
check "kernel.version = uname -r" "{\"kernel\": {\"version\": \"$(jesc "$rel")\"}}"
if pgrep -x irqbalance >/dev/null 2>&1; then irq=true; else irq=false; fi
command -v pgrep >/dev/null 2>&1 && check "kernel.irqbalance = $irq (pgrep)" "{\"kernel\": {\"irqbalance\": $irq}}"
echo "1..$n"
[ $fail -eq 0 ]
