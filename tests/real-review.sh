#!/bin/sh
# real-review.sh - values an independent review of `probe` found wrong on the
# real-machine captures (HACKING, "Real-machine captures"), pinned to the
# true figures (the upstream .console / .orig.txt files and the capture's
# own files, copied here by hand).  Skips (77) without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real
[ -d "$real/sysfs" ] || { echo "SKIP: $real absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/realrev.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# json NAME WANT ARGS...: probe --format json ARGS must contain WANT.
json() {
	name=$1 want=$2
	shift 2
	printf '%s\n' "$want" >"$tmp/want.json"
	if timeout 60 "$NODEAUDIT" "$@" probe --format json >"$tmp/out.json" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		pass "$name"
	else
		flunk "$name"
		sed 's/^/#   /' "$tmp/diff" "$tmp/err"
	fi
}

# text NAME REGEX ARGS...: probe's text output has a line matching REGEX.
text() {
	name=$1 re=$2
	shift 2
	if timeout 60 "$NODEAUDIT" "$@" probe >"$tmp/out.txt" 2>&1 && grep -Eq "$re" "$tmp/out.txt"; then
		pass "$name"
	else
		flunk "$name: no line /$re/"
		sed 's/^/#   /' "$tmp/out.txt" | head -n 40
	fi
}

tb() { ls "$real/$1"/*.tar.* 2>/dev/null | head -n 1; }

# PowerEdge 2950 (8em64t .console: DMIProductName="PowerEdge 2950",
# DMIBoardName=0NR282, DMIBIOSVersion=2.3.1, DMIBIOSDate=04/29/2008): the
# platform lives in /sys/class/dmi/id (it read /sys/firmware/dmi/id: unknown).
t=$(tb sysfs/hwloc__8em64t-2s2ca2c)
json "8em64t platform from /sys/class/dmi/id" '{"platform": {
  "system": {"vendor": "Dell Inc.", "product": "PowerEdge 2950"},
  "board": {"vendor": "Dell Inc.", "product": "0NR282", "version": "A00"},
  "bios": {"vendor": "Dell Inc.", "version": "2.3.1", "date": "04/29/2008"}}}' --sysroot "$t"
text "8em64t platform text" '^  system +Dell Inc\. PowerEdge 2950$' --sysroot "$t"
# Its /proc/swaps is not in the capture: the device count is unknown, not 0.
text "8em64t swap devices unknown" '^  swap +7\.5 GiB, devices unknown$' --sysroot "$t"

# Dell DCS8000Z (board 0W6W6G in hwloc's test); DIMM widths 72/64 say ECC, and
# no memory array record says which kind.
t=$(tb sysfs/hwloc__32em64t-2n8c+dax+nvme+mic+dimms)
json "32em64t platform and ECC" '{"platform": {"system": {"vendor": "Dell", "product": "DCS8000Z"},
  "board": {"product": "0W6W6G"}},
  "memory": {"ecc": {"mode": "ecc", "source": "smbios-dimm-widths"}}}' --sysroot "$t"
# Its net/*/operstate: eth0 up at 1000 Mb/s, eth1 down, ib0 up with an
# empty speed file (speed unknown, not "down").
json "32em64t NIC operstate" '{"pci": {"nics": [
  {"bdf": "0000:02:00.0", "interface": "eth0", "speed_mbps": 1000, "operstate": "up"},
  {"bdf": "0000:02:00.3", "interface": "eth1", "speed_mbps": null, "operstate": "down"},
  {"bdf": "0000:82:00.0", "interface": "ib0", "speed_mbps": null, "operstate": "up"}]}}' --sysroot "$t"
text "32em64t ib0 shown up" '^  0000:82:00\.0 .* ib0 up ' --sysroot "$t"

# ThinkPad X1 Carbon Gen 10, i7-1270P (the capture's cache files: L2
# 4 x 1280 KiB for the P-cores' 2 threads each + 2 x 2048 KiB for 4 E-cores
# each).
t=$(tb sysfs/ghw__linux-amd64-intel-i7-1270P)
json "1270P L2 groups" '{"cpu": {"caches": {"l2": {"instances": 6, "uniform": false, "groups": [
  {"size_bytes": 2097152, "instances": 2, "cpus_per_instance": 4},
  {"size_bytes": 1310720, "instances": 4, "cpus_per_instance": 2}]}}}}' --sysroot "$t"
text "1270P L2 text" '^  l2 cache +2 MiB x 2, 4 CPUs each \+ 1280 KiB x 4, 2 CPUs each$' --sysroot "$t"

# Lakefield (.console: L2 1536 KiB over PUs 0-3, L2 512 KiB over PU 4).
t=$(tb sysfs/hwloc__5intel64-hybrid-lakefield)
json "lakefield L2 groups" '{"cpu": {"caches": {"l2": {"groups": [
  {"size_bytes": 1572864, "instances": 1, "cpus_per_instance": 4},
  {"size_bytes": 524288, "instances": 1, "cpus_per_instance": 1}]},
  "l3": {"groups": [{"size_bytes": 4194304, "instances": 1, "cpus_per_instance": 5}]}}}}' --sysroot "$t"

# A dump of one card: the Fiji GPU sits on bus 09, behind a port the dump
# lacks; not "on the root bus".
f=$real/pci/pciutils__cap-rebar/cap-rebar.lspci
json "cap-rebar upstream unknown" '{"pci": {"accelerators": [{"bdf": "0000:09:00.0",
  "upstream": null, "shared_uplink": null}]}}' --pci-dump "$f"
if tr -d '\n\t ' <"$tmp/out.json" |
   grep -q '"fact":"pci.accelerators\[0\].upstream","reason":"nobridgetobus09'; then
	pass "cap-rebar upstream gap names the missing bridge"
else
	flunk "cap-rebar upstream gap names the missing bridge"
fi

# Gigabyte GA-MA74GMT-S2 (.orig.txt: A2, A3 1 GB, Type Unknown, Speed
# 1066 MT/s, no configured speed).
f=$real/dmi/u-root__Gigabyte-GA-MA74GMT-S2/Gigabyte-GA-MA74GMT-S2.bin
fix=${top_srcdir:-.}/tests/fixtures/mem-vm-no-smbios
text "GA-MA74 DIMM type unknown" '^  A2 +1\.0 GiB type unknown 1066 MT/s$' --sysroot "$fix" --smbios "$f"
text "GA-MA74 rated speed" '^  speed +1066 MT/s rated \(configured unknown\)$' --sysroot "$fix" --smbios "$f"

# An EPYC 7763 CPUID dump against a sysroot of another CPU must not name
# it; against one whose /proc/cpuinfo is that EPYC it does ("EPYC (Milan)").
src=$real/cpuid/libcpuid/amd-epyc-7763-64-core-processor-dual.test.xz
vm=${top_srcdir:-.}/tests/fixtures/cpu-vm
if [ -e "$src" ] && xz -dc "$src" >"$tmp/epyc.full" 2>/dev/null; then
	sed '/^--------------------------------------------------------------------------------$/,$d' \
		"$tmp/epyc.full" >"$tmp/epyc.dump"
	json "EPYC dump on an Intel sysroot: no codename" '{"cpu": {"codename": null}}' \
		--sysroot "$vm" --cpuid-dump "$tmp/epyc.dump"
	cp -R "$vm" "$tmp/epyc-root"
	chmod -R u+w "$tmp/epyc-root"
	sed -i 's/^vendor_id\t: .*/vendor_id\t: AuthenticAMD/; s/^model name\t: .*/model name\t: AMD EPYC 7763 64-Core Processor/' \
		"$tmp/epyc-root/proc/cpuinfo"
	if grep -q '^#define HAVE_LIBCPUID 1' "${top_builddir:-.}/config.h" 2>/dev/null; then
		json "EPYC dump on an EPYC sysroot: EPYC (Milan)" '{"cpu": {"codename": "EPYC (Milan)"}}' \
			--sysroot "$tmp/epyc-root" --cpuid-dump "$tmp/epyc.dump"
	else
		n=$((n + 1)); echo "ok $n - EPYC dump on an EPYC sysroot # SKIP nodeaudit built without libcpuid"
	fi
else
	flunk "EPYC dump: cannot unpack"
fi

echo "1..$n"
[ $fail -eq 0 ]
