#!/bin/sh
# kernel-real.sh - the kernel probe on real-machine captures (HACKING,
# "Real-machine captures"; old kernels: per-CPU cpufreq directories, no
# cpuidle 'disable').  Figures checked against the captured files.  Skips
# (77) without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real/sysfs
[ -d "$real" ] || { echo "SKIP: $real absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kernel-real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
check() { # check NAME ARCHIVE EXPECTED-JSON
	n=$((n + 1))
	[ -e "$real/$2" ] || { echo "ok $n - $1 # SKIP $2 absent"; return; }
	printf '%s\n' "$3" >"$tmp/exp"
	if "$NODEAUDIT" --sysroot "$real/$2" probe --only kernel --format json >"$tmp/out" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/exp" "$tmp/out" >"$tmp/diff" 2>&1; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"; sed 's/^/#   /' "$tmp/diff" "$tmp/err"; fail=$((fail + 1))
	fi
}
# 64 CPUs, each its own acpi-cpufreq policy (affected_cpus N; related_cpus
# is a 16-CPU domain), ondemand, 1996000 kHz; intel_idle without 'disable'.
check "util-linux x86_64-64cpu" util-linux__x86_64-64cpu/x86_64-64cpu.tar.gz '{"kernel": {
  "cpufreq": {"driver": "acpi-cpufreq", "governor": "ondemand", "epp": null,
    "policies": [{"id": 0, "cpus": "0", "related_cpus": "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60", "max_mhz": 1996},
      "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>",
      "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>",
      "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>",
      "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>", "<any>",
      {"id": 63, "cpus": "63", "governor": "ondemand", "max_mhz": 1996}]},
  "governor": "ondemand",
  "cpuidle": {"driver": "intel_idle", "deepest_state": null}}}'
# Dell Latitude E4310: 4 CPUs, acpi-cpufreq, ondemand, 2667000 kHz.
check "util-linux x86_64-dell_e4310" util-linux__x86_64-dell_e4310/x86_64-dell_e4310.tar.gz '{"kernel": {
  "cpufreq": {"driver": "acpi-cpufreq", "governor": "ondemand",
    "policies": [{"id": 0, "cpus": "0", "max_mhz": 2667}, {"id": 1, "cpus": "1", "max_mhz": 2667},
                 {"id": 2, "cpus": "2", "max_mhz": 2667}, {"id": 3, "cpus": "3", "max_mhz": 2667}]},
  "governor": "ondemand", "cpuidle": {"driver": "intel_idle"}}}'
echo "1..$n"
[ $fail -eq 0 ]
