#!/bin/sh
# virt-snapshot.sh - a snapshot keeps every file the virtualization
# witnesses read: /proc/bus/pci/devices (VirtualBox without the CPU flag),
# the device tree (PowerVM), /proc/sysinfo (z/VM); replayed, it names the
# same hypervisor.
set -u
: "${NODEAUDIT:?}"
src=${top_srcdir:-.}/tests
tmp=$(mktemp -d "${TMPDIR:-/tmp}/virtsnap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
while read -r fx name; do
	n=$((n + 1))
	rm -rf "$tmp/snap"
	if "$NODEAUDIT" --sysroot "$src/fixtures/$fx" snapshot -o "$tmp/snap" >/dev/null 2>"$tmp/err" &&
	   "$NODEAUDIT" --sysroot "$tmp/snap" probe --format json >"$tmp/out.json" 2>>"$tmp/err" &&
	   grep -q '"virtualized":[[:space:]]*true' "$tmp/out.json" &&
	   grep -q "\"hypervisor\":[[:space:]]*\"$name\"" "$tmp/out.json"; then
		echo "ok $n - snapshot of $fx names $name"
	else
		echo "not ok $n - snapshot of $fx names $name"
		sed 's/^/#   /' "$tmp/err"
		grep '"virtualized"\|"hypervisor"' "$tmp/out.json" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done <<'CASES'
virt-vbox-noflag VirtualBox
cpu-power7-lpar PowerVM
virt-s390-zvm z/VM 6.1.0
CASES
echo "1..$n"
[ $fail -eq 0 ]
