#!/bin/sh
# arm-facts.sh - what nodeaudit says of ARM servers, on copies of the
# Kunpeng 920 capture (tests/fixtures/numa-arm-kunpeng920-nul, hwloc's
# 128arm-2pa2n8cluster4co) with one file changed at a time:
#   - core and vendor names by MIDR, as Linux's arch/arm64/include/asm/
#     cputype.h names them (HiSilicon 0xd02 HIP09, the Kunpeng 920B's
#     TaiShan v120; Microsoft 0xd49 Azure Cobalt 100; Cavium 0x0af
#     ThunderX2) and util-linux's lscpu-arm.c (Phytium 0x70, FTC662;
#     NVIDIA Olympus, Fujitsu MONAKA, HiSilicon 0xd03/0xd22);
#   - the ISA: asimdhp as fp16, SVE with its vector length from
#     /proc/sys/abi/sve_default_vector_length, svei8mm and svebf16;
#   - the base frequency from ACPI CPPC's nominal_freq (MHz);
#   - the clusters (topology/cluster_cpus_list): 32 of 4 cores, as
#     hwloc's expected output for the capture says;
#   - the model name from SMBIOS type 4 (a table written by tests/mksmbios),
#     else the SoC's maker from SMCCC's SOC_ID (/sys/devices/soc0/soc_id:
#     JEP106 codes as OpenOCD's src/helper/jep106.inc lists them);
#   - codename and microcode "not applicable" on ARM, not x86's reasons;
#   - a kernel architecture that /proc/cpuinfo contradicts: a gap, not []
#     (an arm64 binary under qemu-user reads the host's x86 cpuinfo);
#   - agent-cpu-inference's cpu.isa asks for dotprod on ARM: the Kunpeng
#     (asimddp) passes, the ARMv7 board (NEON alone) fails; archspec's
#     Neoverse N2/V3AE and AmpereOne A captures (asimddp) pass, and the
#     AmpereOne A's with asimddp taken out (i8mm and bf16 left) fails, as
#     do the Graviton (Cortex-A72) and ThunderX2 servers (NEON alone); the
#     fix a failed cpu.isa gives names dotprod on ARM, avx2 on x86.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
fix=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arm-facts.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 fail=0

# fresh: a writable copy of the Kunpeng capture at $tmp/k.
fresh() {
	chmod -R u+w "$tmp/k" 2>/dev/null
	rm -rf "$tmp/k"
	cp -R "$fix/numa-arm-kunpeng920-nul" "$tmp/k" && chmod -R u+w "$tmp/k"
}
# part IMPL PART: every CPU block of the copy's cpuinfo names this MIDR.
part() {
	sed -i "s/^CPU implementer\t: .*/CPU implementer\t: $1/; s/^CPU part\t: .*/CPU part\t: $2/" "$tmp/k/proc/cpuinfo"
}
# want NAME EXPECTED-JSON ARGS...: the output holds EXPECTED (jsubset).
want() {
	name=$1 exp=$2
	shift 2
	n=$((n + 1))
	printf '%s\n' "$exp" >"$tmp/exp.json"
	"$NODEAUDIT" "$@" --format json >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	if [ $rc -le 2 ] && "$JSUBSET" "$tmp/exp.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $rc)"; sed 's/^/#   /' "$tmp/diff" "$tmp/err" | head -n 20; fail=$((fail + 1))
	fi
}
# grep_out NAME REGEX: the last output matches.
grep_out() {
	n=$((n + 1))
	if grep -Eq "$2" "$tmp/out.json"; then echo "ok $n - $1"
	else echo "not ok $n - $1"; grep -E '"(fact|reason)"' "$tmp/out.json" | head -n 20 | sed 's/^/#   /'; fail=$((fail + 1)); fi
}

fresh
want "Kunpeng 920: TaiShan v110, HiSilicon, fp16 and dotprod, 32 clusters" \
	'{"cpu": {"vendor": "HiSilicon", "model_name": "TaiShan v110", "isa": ["neon", "fp16", "dotprod"],
	  "kinds": [{"core_type": "TaiShan v110", "cores": 128}], "codename": null, "microcode": null,
	  "clusters": 32}}' \
	--sysroot "$tmp/k" probe --only cpu
# hwloc's 128arm-2pa2n8cluster4co.console: Group0(Cluster) L#0 holds PUs
# 0-3, and 32 of them, of 4 cores each.
grep_out "clusters of 4: 0-3 first, 124-127 last" '"cluster_cpus":[[:space:]]*\["0-3", "4-7", .*"124-127"\]'
n=$((n + 1))
if grep -q '"sve_vector_bits"' "$tmp/out.json"; then echo "not ok $n - no SVE, no sve_vector_bits"; fail=$((fail + 1))
else echo "ok $n - no SVE, no sve_vector_bits"; fi
rm "$tmp"/k/sys/devices/system/cpu/cpu5/topology/cluster_cpus_list
want "a CPU without cluster_cpus_list: clusters null" '{"cpu": {"clusters": null}}' --sysroot "$tmp/k" probe --only cpu
grep_out "... with a gap naming the file" 'cpu5/topology/cluster_cpus_list: missing'
fresh
want "Kunpeng 920 again" '{"cpu": {"codename": null, "microcode": null}}' --sysroot "$tmp/k" probe --only cpu
grep_out "codename: not applicable on ARM" '"reason":[[:space:]]*"not applicable on ARM: a codename is x86'
grep_out "microcode: not applicable on ARM" '"reason":[[:space:]]*"not applicable on ARM: the kernel reports no microcode'

# named IMPLEMENTER PART VENDOR CORE-TYPE [NOTE]: the capture with that
# MIDR names the vendor and the core type.
named() {
	part "$1" "$2"
	want "$3 $2: $4${5:+ ($5)}" "{\"cpu\": {\"vendor\": \"$3\", \"kinds\": [{\"core_type\": \"$4\"}]}}" \
		--sysroot "$tmp/k" probe --only cpu
}
named 0x48 0xd02 HiSilicon "TaiShan v120" "Kunpeng 920B"
named 0x6d 0xd49 Microsoft "Azure Cobalt 100"
named 0x43 0x0af Cavium ThunderX2
named 0x43 0x0b8 Cavium ThunderX3
named 0x70 0x662 Phytium FTC662
# Server parts util-linux's lscpu-arm.c names (NVIDIA_CPU_PART_OLYMPUS in
# cputype.h too): NVIDIA's Olympus, Fujitsu's MONAKA, HiSilicon's
# 0xd03 and 0xd22 (Kunpeng 920 there).
named 0x4e 0x010 NVIDIA Olympus
named 0x46 0x003 Fujitsu MONAKA
named 0x48 0xd03 HiSilicon Kunpeng-920
named 0x48 0xd22 HiSilicon Kunpeng-920

# SVE: the hwcaps, and the vector length the kernel gives (32 bytes).
fresh
sed -i 's/^Features\t: \(.*\)$/Features\t: \1 sve svei8mm svebf16 i8mm bf16/' "$tmp/k/proc/cpuinfo"
mkdir -p "$tmp/k/proc/sys/abi"
echo 32 >"$tmp/k/proc/sys/abi/sve_default_vector_length"
want "SVE at 256 bits, with i8mm and bf16 in both forms" \
	'{"cpu": {"isa": ["neon", "fp16", "dotprod", "i8mm", "sve", "sve_i8mm", "bf16", "sve_bf16"], "sve_vector_bits": 256}}' \
	--sysroot "$tmp/k" probe --only cpu
echo 24 >"$tmp/k/proc/sys/abi/sve_default_vector_length"
want "an SVE length that is none: null" '{"cpu": {"sve_vector_bits": null}}' --sysroot "$tmp/k" probe --only cpu
grep_out "... with a gap naming the file" '"reason":[[:space:]]*"/proc/sys/abi/sve_default_vector_length: 24 bytes is not'
rm "$tmp/k/proc/sys/abi/sve_default_vector_length"
want "SVE without the file: null" '{"cpu": {"sve_vector_bits": null}}' --sysroot "$tmp/k" probe --only cpu

# ACPI CPPC's nominal frequency as the base frequency.
fresh
for d in "$tmp"/k/sys/devices/system/cpu/cpu[0-9]*; do
	mkdir -p "$d/acpi_cppc" && echo 2600 >"$d/acpi_cppc/nominal_freq"
done
want "base frequency from CPPC nominal_freq" '{"cpu": {"base_mhz": 2600, "kinds": [{"base_mhz": 2600}]}}' \
	--sysroot "$tmp/k" probe --only cpu
grep_out "... with CPPC as its evidence" 'acpi_cppc/nominal_freq'

# The model name from SMBIOS type 4 where cpuinfo has none.
if [ -x "${top_builddir:-.}/tests/mksmbios" ]; then
	fresh
	cat >"$tmp/t.desc" <<'EOF'
entry _SM3_ 3.3
system vendor "Huawei" product "XA320 V2" version "1.0" family "Server"
socket designation "CPU01" manufacturer "HiSilicon" version "Kunpeng 920-6426" cores 64 threads 64
socket designation "CPU02" manufacturer "HiSilicon" version "Kunpeng 920-6426" cores 64 threads 64
EOF
	mkdir -p "$tmp/k/sys/firmware/dmi/tables"
	if "${top_builddir:-.}/tests/mksmbios" "$tmp/t.desc" "$tmp/t.bin" >"$tmp/err" 2>&1; then
		# The split form the kernel exports (an _SM3_ entry point is 24 bytes).
		head -c 24 "$tmp/t.bin" >"$tmp/k/sys/firmware/dmi/tables/smbios_entry_point"
		tail -c +33 "$tmp/t.bin" >"$tmp/k/sys/firmware/dmi/tables/DMI"
		want "model name from SMBIOS type 4" '{"cpu": {"model_name": "Kunpeng 920-6426"}}' --sysroot "$tmp/k" probe --only cpu
		grep_out "... with SMBIOS as its evidence" 'SMBIOS type 4'
		mkdir -p "$tmp/k/sys/devices/soc0" && echo jep106:0736:0001 >"$tmp/k/sys/devices/soc0/soc_id"
		want "SMBIOS type 4 before soc0" '{"cpu": {"model_name": "Kunpeng 920-6426"}}' --sysroot "$tmp/k" probe --only cpu
	else
		n=$((n + 1)); echo "not ok $n - mksmbios"; sed 's/^/#   /' "$tmp/err"; fail=$((fail + 1))
	fi
else
	n=$((n + 1)); echo "ok $n - model name from SMBIOS # SKIP no tests/mksmbios"
fi

# Without SMBIOS: the SoC's maker from Arm SMCCC's SOC_ID
# (/sys/devices/soc0/soc_id, "jep106:BBCC:SSSS": JEP106 bank 7 code 0x36
# is HiSilicon, bank 10 code 0x16 Ampere Computing), with the cores; a
# code the table lacks stays the raw id; a soc_id of another form is none.
fresh
mkdir -p "$tmp/k/sys/devices/soc0"
echo jep106:0736:0001 >"$tmp/k/sys/devices/soc0/soc_id"
want "soc0: HiSilicon's SOC_ID" '{"cpu": {"model_name": "HiSilicon SoC jep106:0736:0001 (TaiShan v110)"}}' \
	--sysroot "$tmp/k" probe --only cpu
grep_out "... with soc_id and the JEP106 maker as its evidence" 'soc0/soc_id \(SMCCC SOC_ID: JEP106 bank 7, code 0x36: HiSilicon\)'
echo jep106:0a16:0001 >"$tmp/k/sys/devices/soc0/soc_id"
want "soc0: Ampere's SOC_ID" '{"cpu": {"model_name": "Ampere Computing SoC jep106:0a16:0001 (TaiShan v110)"}}' \
	--sysroot "$tmp/k" probe --only cpu
echo jep106:0b4a:0001 >"$tmp/k/sys/devices/soc0/soc_id"
want "soc0: a maker not in the table, the raw id" '{"cpu": {"model_name": "SoC jep106:0b4a:0001 (TaiShan v110)"}}' \
	--sysroot "$tmp/k" probe --only cpu
echo 'jep106: a16:0001' >"$tmp/k/sys/devices/soc0/soc_id"
want "soc0: a garbled SOC_ID is none" '{"cpu": {"model_name": "TaiShan v110"}}' --sysroot "$tmp/k" probe --only cpu
echo 'qcom,ipq8074' >"$tmp/k/sys/devices/soc0/soc_id"
want "soc0: a soc_id of another form is none" '{"cpu": {"model_name": "TaiShan v110"}}' --sysroot "$tmp/k" probe --only cpu

# The kernel says aarch64, /proc/cpuinfo is an x86 one.
cp -R "$fix/cpu-vm" "$tmp/vm" && chmod -R u+w "$tmp/vm"
mkdir -p "$tmp/vm/nodeaudit" && echo aarch64 >"$tmp/vm/nodeaudit/arch"
want "an x86 cpuinfo under an aarch64 kernel: isa null" '{"host": {"arch": "aarch64"}, "cpu": {"isa": null}}' \
	--sysroot "$tmp/vm" probe --only cpu
grep_out "... with a gap naming both" '"reason":[[:space:]]*"the kernel.s architecture is aarch64 but /proc/cpuinfo describes an x86 CPU'

# cpu.isa in agent-cpu-inference: dotprod on ARM.
# isa_check NAME WANT SYSROOT status|fix: cpu.isa's finding in
# agent-cpu-inference's check of SYSROOT, its status and expected value
# ("pass any of: ...") or its fixes' texts (joined by " | "), is WANT.
isa_check() {
	n=$((n + 1))
	"$NODEAUDIT" --sysroot "$3" check --profile agent-cpu-inference --format json >"$tmp/out.json" 2>"$tmp/err"
	got=$(python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == "cpu.isa":
        if sys.argv[2] == "status":
            print(f["status"], f["expected"])
        else:
            print(" | ".join(x.get("text", "") for x in f.get("fix", [])))' "$tmp/out.json" "$4" 2>&1)
	if [ "$got" = "$2" ]; then echo "ok $n - $1"
	else echo "not ok $n - $1: got '$got', want '$2'"; fail=$((fail + 1)); fi
}
isa_status() { isa_check "$1" "$2" "$3" status; }
fresh
isa_status "Kunpeng (dotprod): cpu.isa passes" "pass any of: avx2, dotprod, sve" "$tmp/k"
isa_status "ARMv7 (NEON alone): cpu.isa fails" "fail any of: avx2, dotprod, sve" "$fix/cpu-armv7-global-block"
# A64FX: SVE without dotprod; SVE's SDOT/UDOT are in its base set.
isa_status "A64FX (SVE, no dotprod): cpu.isa passes" "pass any of: avx2, dotprod, sve" "$fix/cpu-arm-a64fx"
# archspec's server captures with dotprod: Neoverse N2 and V3AE (SVE2 too),
# AmpereOne A (dotprod and i8mm, no SVE).
for f in cpu-arm-neoverse-n2 cpu-arm-neoverse-n2-padded cpu-arm-neoverse-v3ae cpu-arm-ampereone-a; do
	isa_status "$f (dotprod): cpu.isa passes" "pass any of: avx2, dotprod, sve" "$fix/$f"
done
# NEON-only servers: Graviton (Cortex-A72, ARMv8.0) and ThunderX2.
isa_status "Graviton (Cortex-A72, NEON alone): cpu.isa fails" "fail any of: avx2, dotprod, sve" "$fix/cpu-arm-graviton1"
isa_status "ThunderX2 (NEON alone): cpu.isa fails" "fail any of: avx2, dotprod, sve" "$fix/cpu-arm-thunderx2"
# The fix a failed cpu.isa prints names this architecture's member of the
# profile's list (dotprod on ARM, not x86's avx2; avx2 on x86 as before).
isa_fix() { isa_check "$1" "$2" "$3" fix; }
isa_fix "Graviton (aarch64): the fix asks for dotprod" \
	"Use a CPU with dotprod (or run a build of the model runtime for this ISA)" "$fix/cpu-arm-graviton1"
isa_fix "ARMv7 board (arm): the fix asks for dotprod" \
	"Use a CPU with dotprod (or run a build of the model runtime for this ISA)" "$fix/cpu-armv7-global-block"
isa_fix "AMD family 15h (x86_64, AVX without AVX2): the fix asks for avx2" \
	"Use a CPU with avx2 (or run a build of the model runtime for this ISA)" "$fix/cpu-amd-fam15h"
mkdir -p "$tmp/a1a/proc"
sed '/^Features/s/ asimddp / /' "$fix/cpu-arm-ampereone-a/proc/cpuinfo" >"$tmp/a1a/proc/cpuinfo"
isa_status "AmpereOne A without asimddp (i8mm, no SVE): cpu.isa fails" "fail any of: avx2, dotprod, sve" "$tmp/a1a"

echo "1..$n"
[ $fail -eq 0 ]
