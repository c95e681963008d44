#!/bin/sh
# report-outliers.sh - a fleet with planted drift: twelve nodes built in the
# test from fixture sysroots (cpu-2s-smt, numa-2node, kernel-tuned-server,
# pci-gpu-x16-full and an SMBIOS table from tests/smbios/server-2s8c-ddr5.desc,
# SMT turned off), each node changed in one file or not at all:
#   node03  SMT on            sys/devices/system/cpu/smt/active 0 -> 1
#   node05  downtrained link  the GPU's current_link_width 16 -> 8
#   node07  reverted sysctl   proc/sys/vm/swappiness 10 -> 60
#   node09  missing DIMM      SMBIOS table without CPU2_DIMM_D1 (16 -> 15)
#   node11  another machine   SMBIOS product AC-2U-8480 -> AC-2U-8580 and its
#                             sockets' version Platinum 8480+ -> 8580
#   node12  another CPU       /proc/cpuinfo model name Gold 6234 -> 6244 and
#                             microcode 0x5003604 -> 0x5003302
# `report` must name each planted node under its fact, and nothing else, in
# text, JSON and CSV; the HTML page must show the same (tests/report-html.sh
# renders it in a browser).
# Lines are matched whole: wide enough that none wraps (the layout is tested in text-width.sh).
COLUMNS=1000; export COLUMNS
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
fix=$(cd "$top_srcdir/tests/fixtures" && pwd)
smb=$(cd "$top_srcdir/tests/smbios" && pwd)
mk=${top_builddir:-.}/tests/mksmbios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/outliers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# FLEET_DIR is exported for tests/report-html.sh, which sources this file's
# fleet builder through `report-outliers.sh --build DIR`.
# smbios DESC OUT: an SMBIOS table split as the kernel exports it, into sysroot OUT
smbios() {
	"$mk" "$1" "$tmp/smbios.bin" || return 1
	mkdir -p "$2/sys/firmware/dmi/tables"
	head -c 24 "$tmp/smbios.bin" >"$2/sys/firmware/dmi/tables/smbios_entry_point"
	tail -c +33 "$tmp/smbios.bin" >"$2/sys/firmware/dmi/tables/DMI"
}

build_fleet() { # build_fleet DIR: sysroots in DIR/root/nodeNN, reports in DIR/reports
	out=$1
	base=$out/base
	mkdir -p "$base" "$out/reports"
	for f in pci-gpu-x16-full numa-2node kernel-tuned-server cpu-2s-smt; do
		cp -R "$fix/$f/." "$base/" || return 1
	done
	printf '0\n' >"$base/sys/devices/system/cpu/smt/active"
	printf 'off\n' >"$base/sys/devices/system/cpu/smt/control"
	smbios "$smb/server-2s8c-ddr5.desc" "$base" || return 1
	grep -v 'CPU2_DIMM_D1' "$smb/server-2s8c-ddr5.desc" >"$out/missing-dimm.desc"
	sed 's/AC-2U-8480/AC-2U-8580/; s/Platinum 8480+/Platinum 8580/g' "$smb/server-2s8c-ddr5.desc" >"$out/other-model.desc"
	# Every node runs microcode 0x5003604 (the line x86 kernels print).
	sed 's/^\(model name.*\)$/\1\nmicrocode\t: 0x5003604/' "$base/proc/cpuinfo" >"$out/cpuinfo" &&
		cp "$out/cpuinfo" "$base/proc/cpuinfo" || return 1
	# Through the bus's entry: the probe reads it there, and a release
	# tarball (tar -h) holds a copy of the device directory there, not a link.
	gpu=sys/bus/pci/devices/0000:01:00.0/current_link_width
	[ -f "$base/$gpu" ] || return 1
	for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
		r=$out/root/node$i
		mkdir -p "$r"
		cp -R "$base/." "$r/"
		printf 'node%s\n' "$i" >"$r/proc/sys/kernel/hostname"
		case $i in
		03) printf '1\n' >"$r/sys/devices/system/cpu/smt/active"
		    printf 'on\n' >"$r/sys/devices/system/cpu/smt/control" ;;
		05) printf '8\n' >"$r/$gpu" ;;
		07) printf '60\n' >"$r/proc/sys/vm/swappiness" ;;
		09) smbios "$out/missing-dimm.desc" "$r" || return 1 ;;
		11) smbios "$out/other-model.desc" "$r" || return 1 ;;
		12) sed 's/Gold 6234/Gold 6244/; s/0x5003604/0x5003302/' "$base/proc/cpuinfo" >"$r/proc/cpuinfo" ;;
		esac
		"$NODEAUDIT" --sysroot "$r" check --profile agent-accelerator-host --format json \
			>"$out/reports/node$i.json" 2>"$out/check.err"
		[ $? -le 2 ] || { cat "$out/check.err" >&2; return 1; }
	done
}

if [ "${1:-}" = "--build" ]; then
	build_fleet "$2"
	exit $?
fi

if build_fleet "$tmp/fleet"; then ok "fleet of 12 built from fixtures"; else nok "fleet built"; echo "1..$n"; exit 1; fi
rep=$tmp/fleet/reports

# Each planted difference under its fact; sorted "fact node" pairs.
cat >"$tmp/want" <<'W'
cpu.microcode node12
cpu.model_name node12
cpu.smt.active node03
kernel.sysctl.vm.swappiness node07
memory.channels.populated node09
memory.installed_bytes node09
pci.accelerators[].link.width.current node05
platform.sockets[].version node11
platform.system.product node11
W

## JSON: exactly the planted pairs, with the values.
"$NODEAUDIT" report "$rep" --format json >"$tmp/out.json" 2>"$tmp/err"
python3 - "$tmp/out.json" >"$tmp/got" <<'PY' || nok "json outliers readable"
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["outliers"]["facts"]:
    for v in f["values"]:
        for node in v["nodes"]:
            print(f["fact"], node)
PY
sort -o "$tmp/got" "$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok "json: every planted difference, nothing else"
else nok "json outliers"; diff "$tmp/want" "$tmp/got" | sed 's/^/# /'; fi
cat >"$tmp/want.json" <<'J'
{"nodes": {"count": 12}, "profiles": [{"name": "agent-accelerator-host", "nodes": 12}], "profiles_mixed": false,
 "outliers": {"facts": [
  {"fact": "cpu.microcode", "fleet": "0x5003604", "differ": 1,
   "values": [{"value": "0x5003302", "count": 1, "nodes": ["node12"]}]},
  {"fact": "cpu.model_name", "fleet": "Intel(R) Xeon(R) Gold 6234 CPU @ 3.30GHz", "differ": 1,
   "values": [{"value": "Intel(R) Xeon(R) Gold 6244 CPU @ 3.30GHz", "count": 1, "nodes": ["node12"]}]},
  {"fact": "cpu.smt.active", "fleet": "false", "nodes": 12, "known": 12, "differ": 1,
   "values": [{"value": "true", "count": 1, "nodes": ["node03"]}]},
  {"fact": "kernel.sysctl.vm.swappiness", "fleet": "10", "differ": 1,
   "values": [{"value": "60", "count": 1, "nodes": ["node07"]}]},
  {"fact": "memory.channels.populated", "fleet": "16", "differ": 1,
   "values": [{"value": "15", "count": 1, "nodes": ["node09"]}]},
  {"fact": "memory.installed_bytes", "fleet": "1099511627776", "differ": 1,
   "values": [{"value": "1030792151040", "count": 1, "nodes": ["node09"]}]},
  {"fact": "pci.accelerators[].link.width.current", "fleet": "1 at x16", "differ": 1,
   "values": [{"value": "1 at x8", "count": 1, "nodes": ["node05"]}]},
  {"fact": "platform.sockets[].version", "fleet": "Intel(R) Xeon(R) Platinum 8480+ | Intel(R) Xeon(R) Platinum 8480+", "differ": 1,
   "values": [{"value": "Intel(R) Xeon(R) Platinum 8580 | Intel(R) Xeon(R) Platinum 8580", "count": 1, "nodes": ["node11"]}]},
  {"fact": "platform.system.product", "fleet": "AC-2U-8480", "differ": 1,
   "values": [{"value": "AC-2U-8580", "count": 1, "nodes": ["node11"]}]}]}}
J
if "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/js" 2>&1; then ok "json outlier values"
else nok "json outlier values"; sed 's/^/# /' "$tmp/js"; fi

## Text: the issue's line shape.
"$NODEAUDIT" report "$rep" >"$tmp/out.txt" 2>"$tmp/err"
for want in \
	"cpu.smt.active: 1 of 12 nodes has true (fleet: false): node03" \
	"kernel.sysctl.vm.swappiness: 1 of 12 nodes has 60 (fleet: 10): node07" \
	"memory.channels.populated: 1 of 12 nodes has 15 (fleet: 16): node09" \
	"pci.accelerators[].link.width.current: 1 of 12 nodes has 1 at x8 (fleet: 1 at x16): node05" \
	"platform.system.product: 1 of 12 nodes has AC-2U-8580 (fleet: AC-2U-8480): node11" \
	"cpu.microcode: 1 of 12 nodes has 0x5003302 (fleet: 0x5003604): node12"
do
	if grep -qxF "  $want" "$tmp/out.txt"; then ok "text: $want"; else nok "text lacks: $want"; fi
done
l=$(sed -n '/^Outliers/,/^$/p' "$tmp/out.txt" | grep -c '^  ')
if [ "$l" -eq 9 ]; then ok "text: 9 outlier lines"; else nok "text: $l outlier lines, want 9"; sed 's/^/# /' "$tmp/out.txt"; fi
if grep -q "kernel.sysctl vm.swappiness  *11  *1 " "$tmp/out.txt"; then ok "text: one row per sysctl, counting nodes"
else nok "text: sysctl row"; grep sysctl "$tmp/out.txt" | sed 's/^/# /'; fi

## CSV: the outliers column names the node's differing facts.
"$NODEAUDIT" report "$rep" --format csv | tr -d '\r' >"$tmp/out.csv"
awk -F, 'NR > 1 && $NF != "" {print $1 ": " $NF}' "$tmp/out.csv" >"$tmp/got.csv"
cat >"$tmp/want.csv" <<'C'
node03: cpu.smt.active=true
node05: pci.accelerators[].link.width.current=1 at x8
node07: kernel.sysctl.vm.swappiness=60
node09: memory.channels.populated=15;memory.installed_bytes=1030792151040
node11: platform.sockets[].version=Intel(R) Xeon(R) Platinum 8580 | Intel(R) Xeon(R) Platinum 8580;platform.system.product=AC-2U-8580
node12: cpu.microcode=0x5003302;cpu.model_name=Intel(R) Xeon(R) Gold 6244 CPU @ 3.30GHz
C
if cmp -s "$tmp/want.csv" "$tmp/got.csv"; then ok "csv outliers column"
else nok "csv outliers column"; diff "$tmp/want.csv" "$tmp/got.csv" | sed 's/^/# /'; fi

## The clean fleet: no outlier at all.
mkdir -p "$tmp/clean"
for i in 01 02 04 06 08 10; do cp "$rep/node$i.json" "$tmp/clean/"; done
"$NODEAUDIT" report "$tmp/clean" >"$tmp/out.txt" 2>&1
if grep -q "(none: the [0-9]* facts compared are the same on every node that has them)" "$tmp/out.txt"
then ok "clean fleet: no outliers"; else nok "clean fleet has outliers"; sed -n '/^Outliers/,/^$/p' "$tmp/out.txt" | sed 's/^/# /'; fi

## Measured bandwidth: within 10% of the median is the same; beyond is named.
# bench BYTES_PER_S IN OUT: a report with facts.bench added (as check --bench writes it)
bench() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[2]))
d["facts"]["bench"] = {"bandwidth": {"bytes_per_s": float(sys.argv[1])}}
json.dump(d, open(sys.argv[3], "w"))' "$@"
}
for i in 01 02 04 06 08; do bench "2${i}000000000" "$rep/node$i.json" "$tmp/clean/node$i.json"; done
bench 150000000000 "$rep/node10.json" "$tmp/clean/node10.json"
"$NODEAUDIT" report "$tmp/clean" >"$tmp/out.txt" 2>&1
if grep -qxF "  bench.bandwidth.bytes_per_s: 1 of 6 nodes differ by more than 10% (fleet median: 203.0 GB/s): node10 (150.0 GB/s)" "$tmp/out.txt"
then ok "measured bandwidth: tolerance around the median"
else nok "measured bandwidth"; sed -n '/^Outliers/,/^$/p' "$tmp/out.txt" | sed 's/^/# /'; fi

echo "1..$n"
[ $fail -eq 0 ]
