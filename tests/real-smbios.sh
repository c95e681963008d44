#!/bin/sh
# real-smbios.sh - the real SMBIOS captures (HACKING, "Real-machine
# captures": dmidecode --dump-bin files, and the hwloc capture whose
# /sys/firmware/dmi/entries/17-*/raw hold 24 DIMM slots) against dmidecode's
# decodes of them.  Skips (77) without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real
[ -d "$real/dmi" ] || { echo "SKIP: $real/dmi absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/realsmbios.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty"   # no DMI, no cpuinfo: nothing to tell another machine by
n=0 fail=0 G=1073741824

check() {   # name, expected JSON, nodeaudit arguments...
	name=$1 exp=$2
	shift 2
	n=$((n + 1))
	printf '%s\n' "$exp" >"$tmp/exp.json"
	if "$NODEAUDIT" "$@" probe --only memory --format json >"$tmp/out.json" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/exp.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/#   /' "$tmp/err" "$tmp/diff"
		fail=$((fail + 1))
	fi
}
# A DIMM the manifest describes: size, type.
d() { printf '{"size_bytes": %s, "type": %s}' "$1" "$2"; }

# Synology RS3614xs+: 4 x 8 GB DDR3-1600, ChannelA/B-DIMM0/1, array says
# single-bit ECC (the 128/64-bit widths are nonsense and must not count).
f=$real/dmi/u-root__Synology-RS3614xsp/Synology-RS3614xsp.bin
check "Synology RS3614xs+" "{\"memory\": {
  \"dimms\": [$(d $((8 * G)) '"DDR3"'), $(d $((8 * G)) '"DDR3"'), $(d $((8 * G)) '"DDR3"'), $(d $((8 * G)) '"DDR3"')],
  \"installed_bytes\": $((32 * G)), \"slots\": {\"total\": 4, \"populated\": 4},
  \"channels\": {\"total\": 2, \"populated\": 2, \"balanced\": true},
  \"ecc\": {\"mode\": \"single-bit\", \"source\": \"smbios-memory-array\"}},
  \"platform\": {\"system\": {\"vendor\": \"Synology\", \"product\": \"RS3614xs+\"}, \"smbios\": {\"version\": \"2.7\"}},
  \"conflicts\": []}" --sysroot "$tmp/empty" --smbios "$f"

# ThinkPad T480: 8 GB + 16 GB DDR4-2400 SODIMM, ECC none, both channels
# populated, sizes differ.
f=$real/dmi/u-root__Lenovo-ThinkPad-T480/Lenovo-ThinkPad-T480.bin
check "ThinkPad T480" "{\"memory\": {
  \"dimms\": [{\"locator\": \"ChannelA-DIMM0\", \"size_bytes\": $((8 * G)), \"type\": \"DDR4\", \"rank\": 1, \"form_factor\": \"SODIMM\", \"configured_speed_mts\": 2400, \"channel\": \"A\"},
              {\"locator\": \"ChannelB-DIMM0\", \"size_bytes\": $((16 * G)), \"type\": \"DDR4\", \"rank\": 2, \"channel\": \"B\"}],
  \"installed_bytes\": $((24 * G)), \"slots\": {\"total\": 2, \"populated\": 2},
  \"channels\": {\"total\": 2, \"populated\": 2, \"balanced\": false},
  \"bandwidth\": {\"theoretical_bytes_per_s\": 38400000000},
  \"ecc\": {\"mode\": \"none\"}},
  \"platform\": {\"smbios\": {\"entry_point\": \"_SM3_\"}}}" --smbios "$f"

# Gigabyte GA-MA74GMT-S2 (SMBIOS 2.4): slots A0-A3, A2 and A3 hold 1 GB
# each (type Unknown, 1066 MT/s), ECC none, no core counts in type 4.
# "A0".."A3" with banks "Bank0/1".."Bank6/7" do not name channels: unknown.
f=$real/dmi/u-root__Gigabyte-GA-MA74GMT-S2/Gigabyte-GA-MA74GMT-S2.bin
check "Gigabyte GA-MA74GMT-S2" "{\"memory\": {
  \"dimms\": [{\"locator\": \"A2\", \"size_bytes\": $G, \"type\": null, \"speed_mts\": 1066},
              {\"locator\": \"A3\", \"size_bytes\": $G, \"type\": null, \"speed_mts\": 1066}],
  \"installed_bytes\": $((2 * G)), \"slots\": {\"total\": 4, \"populated\": 2},
  \"channels\": null, \"ecc\": {\"mode\": \"none\"}},
  \"platform\": {\"sockets\": [{\"cores\": null, \"threads\": null}]}}" --smbios "$f"

# hwloc 32em64t (Dell DCS8000Z): /sys/firmware/dmi/entries/17-0..23, 8 x
# 4 GiB DDR3 registered ECC (72/64) in DIMM_A1-A4 and DIMM_B1-B4 of 24
# slots; DIMM_A1..A12 name a socket's slots, not channels: unknown.  No
# memory array record: the 72/64 widths say ECC, not which kind ("ecc").
tb=$(ls "$real"/sysfs/hwloc__32em64t-2n8c+dax+nvme+mic+dimms/*.tar.bz2 2>/dev/null | head -n 1)
if [ -n "$tb" ] && tar -xjf "$tb" -C "$tmp" 2>/dev/null; then
	r=$tmp/32em64t-2n8c+1mic
	dd='{"size_bytes": 4294967296, "type": "DDR3", "rank": 2, "registered": true, "ecc": true}'
	check "hwloc 32em64t DIMM entries" "{\"memory\": {
	  \"dimms\": [$dd, $dd, $dd, $dd, $dd, $dd, $dd, $dd],
	  \"installed_bytes\": $((32 * G)), \"slots\": {\"total\": 24, \"populated\": 8},
	  \"channels\": null, \"ecc\": {\"mode\": \"ecc\", \"source\": \"smbios-dimm-widths\"}}}" --sysroot "$r"
	n=$((n + 1))
	locs=$(grep -o '"locator":[[:space:]]*"[^"]*"' "$tmp/out.json" | sed 's/.*:[[:space:]]*"//; s/"$//' | sort | tr '\n' ' ')
	if [ "$locs" = "DIMM_A1 DIMM_A2 DIMM_A3 DIMM_A4 DIMM_B1 DIMM_B2 DIMM_B3 DIMM_B4 " ]; then
		echo "ok $n - hwloc 32em64t DIMM locators"
	else
		echo "not ok $n - hwloc 32em64t DIMM locators: $locs"
		fail=$((fail + 1))
	fi
else
	n=$((n + 1))
	echo "ok $n - hwloc 32em64t # SKIP capture absent"
fi
echo "1..$n"
[ $fail -eq 0 ]
