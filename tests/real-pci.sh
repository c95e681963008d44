#!/bin/sh
# real-pci.sh - probe --pci-dump on real config dumps (pciutils' test
# captures; HACKING, "Real-machine captures") against lspci's decode of
# them.  Skips (77) without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
top=${top_srcdir:-.}
shared=${NODEAUDIT_SHARED:-$top/../shared}
real=$shared/fixtures/real/pci
[ -d "$real" ] || { echo "SKIP: $real absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/real-pci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# check NAME FILE EXPECTED-JSON [OPTION]: probe OPTION FILE (--pci-dump)
check() {
	n=$((n + 1))
	if [ ! -f "$2" ]; then
		echo "ok $n - $1 # SKIP $2 absent"; return
	fi
	printf '%s\n' "$3" >"$tmp/exp.json"
	if "$NODEAUDIT" probe --only pci --format json "${4:---pci-dump}" "$2" >"$tmp/out.json" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/exp.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/diff" "$tmp/err"; fail=$((fail + 1))
	fi
}

# AMD Radeon R9 Fury/Nano: LnkCap 8 GT/s x16, LnkSta 8 GT/s x16.
check "cap-rebar: GPU at 8 GT/s x16, full" "$real/pciutils__cap-rebar/cap-rebar.lspci" '
{"pci": {"source": "dump", "nics": [], "accelerators": [
  {"bdf": "0000:09:00.0", "vendor_id": "1002", "device_id": "7300", "class": "0300",
   "integrated": false,
   "link": {"width": {"current": 16, "max": 16}, "speed_gts": {"current": 8, "max": 8},
            "generation": {"current": 3, "max": 3},
            "bandwidth_bytes_per_s": {"current": 15753846153, "max": 15753846153},
            "width_downtrained": false, "speed_downtrained": false}}]}}'

# Intel 82576: LnkCap 2.5 GT/s x4, LnkSta 2.5 GT/s x4.
check "cap-pcie-2: NIC at 2.5 GT/s x4" "$real/pciutils__cap-pcie-2/cap-pcie-2.lspci" '
{"pci": {"accelerators": [], "nics": [
  {"bdf": "0000:01:00.0", "vendor_id": "8086", "device_id": "10c9", "class": "0200",
   "link": {"width": {"current": 4, "max": 4}, "speed_gts": {"current": 2.5, "max": 2.5},
            "generation": {"current": 1, "max": 1},
            "bandwidth_bytes_per_s": {"current": 1000000000, "max": 1000000000},
            "width_downtrained": false, "speed_downtrained": false}}]}}'

# P2020 root ports: LnkCap x4, LnkSta x1 (x1 cards below them: not a
# fault); TUSB73x0: LnkCap 5 GT/s, LnkSta 2.5 GT/s, its port allows 2.5.
check "fsl-p2020: root ports x4 capable, x1 trained; TUSB73x0 5 -> 2.5 GT/s" \
	"$real/pciutils__tree-fsl-p2020/tree-fsl-p2020.lspci" '
{"pci": {"accelerators": [], "nics": [], "devices": [
  {"bdf": "0000:04:00.0", "kind": "bridge",
   "link": {"width": {"current": 1, "max": 4}, "speed_gts": {"current": 2.5, "max": 2.5},
            "width_downtrained": false}},
  {"bdf": "0000:05:00.0", "parent": "0000:04:00.0",
   "link": {"width": {"current": 1, "max": 1}, "speed_gts": {"current": 2.5, "max": 2.5}}},
  {"bdf": "0001:02:00.0", "kind": "bridge",
   "link": {"width": {"current": 1, "max": 4}, "speed_gts": {"current": 2.5, "max": 2.5}}},
  {"bdf": "0001:03:00.0", "parent": "0001:02:00.0",
   "link": {"width": {"current": 1, "max": 1}}},
  {"bdf": "0002:00:00.0", "kind": "bridge",
   "link": {"width": {"current": 1, "max": 4}, "speed_gts": {"current": 2.5, "max": 2.5}}},
  {"bdf": "0002:01:00.0", "vendor_id": "104c", "parent": "0002:00:00.0",
   "link": {"width": {"current": 1, "max": 1}, "speed_gts": {"current": 2.5, "max": 5},
            "generation": {"current": 1, "max": 2},
            "speed_limited": true, "speed_downtrained": false}}]}}'

# Fujitsu P8010: GM965 iGPU without a PCIe link; Marvell NIC 2.5 GT/s x1.
check "fujitsu-p8010: iGPU without a link, NIC 2.5 GT/s x1" \
	"$real/pciutils__tree-fujitsu-p8010/tree-fujitsu-p8010.lspci" '
{"pci": {"accelerators": [
  {"bdf": "0000:00:02.0", "vendor_id": "8086", "device_id": "2a02", "class": "0300",
   "integrated": true, "link": null, "upstream": null},
  {"bdf": "0000:00:02.1", "integrated": true, "link": null}],
 "nics": [
  {"bdf": "0000:04:00.0", "class": "0200",
   "link": {"width": {"current": 1, "max": 1}, "speed_gts": {"current": 2.5, "max": 2.5},
            "width_downtrained": false, "slot_limited": false}}]}}'

# Real sysfs captures with PCI trees (hwloc's and ghw's test suites).
sysfs=$shared/fixtures/real/sysfs
# Dell DCS8000Z: Xeon Phi (0b40) and mlx4 HCA local to package/NUMA 1, igb to 0;
# 64-byte config files and no link files: links unknown, never 0.
check "hwloc 32em64t: Xeon Phi and mlx4 on node 1, igb on node 0" \
	"$sysfs/hwloc__32em64t-2n8c+dax+nvme+mic+dimms/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2" '
{"pci": {"accelerators": [
  {"bdf": "0000:83:00.0", "vendor_id": "8086", "device_id": "225c", "class": "0b40",
   "numa_node": 1, "package": 1, "integrated": false, "link": null}],
 "nics": [
  {"bdf": "0000:02:00.0", "vendor_id": "8086", "device_id": "1521", "numa_node": 0, "package": 0,
   "link": null},
  {"bdf": "0000:02:00.3", "numa_node": 0},
  {"bdf": "0000:82:00.0", "vendor_id": "15b3", "device_id": "1003", "numa_node": 1, "package": 1}]}}' --sysroot
# ThinkPad X1 Carbon Gen 10: the Alder Lake iGPU at 00:02.0.
check "ghw i7-1270P: integrated GPU 8086:46a6" \
	"$sysfs/ghw__linux-amd64-intel-i7-1270P/linux-amd64-intel-i7-1270P.tar.gz" '
{"pci": {"accelerators": [
  {"bdf": "0000:00:02.0", "vendor_id": "8086", "device_id": "46a6", "integrated": true,
   "link": null}]}}' --sysroot
# Ryzen 5 1600 desktop: a discrete Radeon 1002:6758 behind a bridge.
check "ghw ryzen-1600: discrete Radeon 1002:6758" \
	"$sysfs/ghw__linux-amd64-amd-ryzen-1600/linux-amd64-amd-ryzen-1600.tar.gz" '
{"pci": {"accelerators": [
  {"bdf": "0000:0a:00.0", "vendor_id": "1002", "device_id": "6758", "integrated": false}]}}' --sysroot

echo "1..$n"
[ $fail -eq 0 ]
