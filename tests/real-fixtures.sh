#!/bin/sh
# real-fixtures.sh - counts on the real-machine captures (HACKING,
# "Real-machine captures") against the figures their projects' own expected
# outputs give (lstopo .console, lscpu output; copied here by hand), and
# libcpuid dumps through --cpuid-dump.  Skips (77) without the captures.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real
[ -d "$real/sysfs" ] || { echo "SKIP: $real absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/realfix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# kinds_json N: N empty objects (jsubset arrays must have the same length)
kinds_json() {
	k=$1 s=
	while [ "$k" -gt 0 ]; do s="$s${s:+, }{}"; k=$((k - 1)); done
	printf '[%s]' "$s"
}

# capture packages cores threads kinds [extra JSON members of "cpu"]
# Figures from each project's expected output: hwloc's lstopo .console
# (Package, Core, PU counts), util-linux's lscpu output (sockets, cores,
# CPUs), and for the ghw snapshots the capture's own topology files.
while read -r cap pk co th ki extra; do
	[ -n "$cap" ] || continue
	case $cap in \#*) continue ;; esac
	tarball=$(ls "$real/sysfs/$cap"/*.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || { flunk "$cap: no tarball"; continue; }
	d=$tmp/$cap
	mkdir -p "$d"
	tar -xf "$tarball" -C "$d" 2>/dev/null || { flunk "$cap: cannot unpack"; continue; }
	root=$d
	if [ ! -d "$d/sys" ]; then
		for s in "$d"/*/fsroot "$d"/*; do
			[ -d "$s/sys" ] && { root=$s; break; }
		done
	fi
	[ "$extra" = "-" ] && extra=
	printf '{"cpu": {"packages": %s, "cores": %s, "threads": %s, "kinds": %s%s}}\n' \
		"$pk" "$co" "$th" "$(kinds_json "$ki")" "${extra:+, $extra}" >"$tmp/want.json"
	if timeout 60 "$NODEAUDIT" --sysroot "$root" probe --format json >"$tmp/out.json" 2>"$tmp/err" &&
	   "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		pass "$cap: $pk packages, $co cores, $th threads, $ki kind(s)"
	else
		flunk "$cap"
		sed 's/^/#   /' "$tmp/diff" "$tmp/err"
	fi
	rm -rf "$d"
done <<'TRUTH'
hwloc__5intel64-hybrid-lakefield 1 5 5 2 "hybrid": true, "online": "0-4"
hwloc__16amd64-8n2c 8 16 16 1 "hybrid": false
hwloc__16em64t-4s2c2t 4 8 16 1 "smt": {"active": true, "threads_per_core": 2}
hwloc__2arm-2c 1 2 2 1 "caches": {"l2": null, "l3": null}
hwloc__32em64t-2n8c+dax+nvme+mic+dimms 2 16 16 1 "smt": {"active": false}
hwloc__8em64t-2s2ca2c 2 8 8 1 "caches": {"l2": {"instances": 4, "cpus_per_instance": 2}}
util-linux__x86_64-64cpu 4 32 64 1 "max_mhz": 1996, "caches": {"l3": {"size_bytes": 18874368, "instances": 4}}
util-linux__x86_64-dell_e4310 1 2 4 1 "max_mhz": 2667, "caches": {"l3": {"size_bytes": 3145728}}
ghw__linux-amd64-intel-i7-1270P 1 12 16 2 "hybrid": true, "caches": {"l2": {"instances": 6}}
ghw__linux-amd64-amd-ryzen-1600 1 6 12 1 "caches": {"l3": {"size_bytes": 8388608, "instances": 2}}
TRUTH

# The P/E split of the two hybrids, by CPU list.
for spec in "hwloc__5intel64-hybrid-lakefield 4 0-3" "ghw__linux-amd64-intel-i7-1270P 0-7 8-15"; do
	set -- $spec
	cap=$1 p=$2 e=$3
	tarball=$(ls "$real/sysfs/$cap"/*.tar.* | head -n 1)
	d=$tmp/$cap
	mkdir -p "$d" && tar -xf "$tarball" -C "$d" 2>/dev/null
	root=$d
	[ -d "$d/sys" ] || for s in "$d"/*/fsroot "$d"/*; do [ -d "$s/sys" ] && { root=$s; break; }; done
	printf '{"cpu": {"kinds": [{"name": "performance", "cpus": "%s"}, {"name": "efficiency", "cpus": "%s"}]}}\n' \
		"$p" "$e" >"$tmp/want.json"
	if "$NODEAUDIT" --sysroot "$root" probe --format json >"$tmp/out.json" 2>/dev/null &&
	   "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
		pass "$cap: performance $p, efficiency $e"
	else
		flunk "$cap: P/E split"
		sed 's/^/#   /' "$tmp/diff"
	fi
	rm -rf "$d"
done

# --sysroot takes the tarball itself.
tarball=$(ls "$real/sysfs/util-linux__x86_64-dell_e4310"/*.tar.gz | head -n 1)
printf '{"cpu": {"packages": 1, "cores": 2, "threads": 4}}\n' >"$tmp/want.json"
if "$NODEAUDIT" --sysroot "$tarball" probe --format json >"$tmp/out.json" 2>/dev/null &&
   "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >/dev/null 2>&1; then
	pass "dell_e4310 tarball as --sysroot"
else
	flunk "dell_e4310 tarball as --sysroot"
fi

# libcpuid dumps: x86 ones give the core types libcpuid's own test
# expectations give (its .test files); the ARM one is
# refused as unsupported (Debian's libcpuid 0.6.2 would die with SIGFPE).
# Built without libcpuid (arm64 on Debian 12), an x86 dump is a gap that
# says so.
fix=${top_srcdir:-.}/tests/fixtures/cpu-vm
nolib=0
grep -q '^#define HAVE_LIBCPUID 1' "${top_builddir:-.}/config.h" 2>/dev/null || nolib=1
while read -r file want; do
	[ -n "$file" ] || continue
	src=$real/cpuid/libcpuid/$file
	[ -e "$src" ] || { flunk "$file: missing"; continue; }
	dump=$tmp/$(basename "$file" .xz)
	case $file in
	*.xz) xz -dc "$src" >"$dump.full" ;;
	*) cp "$src" "$dump.full" ;;
	esac
	sed '/^--------------------------------------------------------------------------------$/,$d' \
		"$dump.full" >"$dump"
	case $nolib$file in
	1cortex*|0*) ;;
	*) want='{"cpu": {"libcpuid": null, "codename": null}}' ;;
	esac
	printf '%s\n' "$want" >"$tmp/want.json"
	if timeout 60 "$NODEAUDIT" --sysroot "$fix" --cpuid-dump "$dump" probe --format json \
		>"$tmp/out.json" 2>"$tmp/err" && "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1 &&
	   { [ $nolib -eq 0 ] || case $file in cortex*) true ;; *) grep -q '"reason":.*built without libcpuid' "$tmp/out.json" ;; esac; }; then
		pass "libcpuid $file"
	else
		flunk "libcpuid $file"
		sed 's/^/#   /' "$tmp/diff" "$tmp/err"
	fi
done <<'DUMPS'
12th-gen-intel-core-i7-12700h.test {"cpu": {"libcpuid": {"source": "dump", "types": [{"purpose": "performance", "cores": 6, "threads": 12}, {"purpose": "efficiency", "cores": 8, "threads": 8}]}}}
13th-gen-intel-core-i9-13900k.test.xz {"cpu": {"libcpuid": {"source": "dump", "types": [{"purpose": "performance", "cores": 8, "threads": 16}, {"purpose": "efficiency", "cores": 16, "threads": 16}]}}}
amd-epyc-7763-64-core-processor-dual.test.xz {"cpu": {"codename": null, "libcpuid": {"types": [{"purpose": "general", "cores": 64, "threads": 128}, {"purpose": "general", "cores": 64, "threads": 128}]}}}
amd-ryzen-7-8845hs-with-radeon-780m-graphics.test {"cpu": {"codename": null, "libcpuid": {"types": [{"purpose": "general", "cores": 8, "threads": 16}]}}}
cortex-a72.test {"cpu": {"libcpuid": null, "codename": null, "packages": 4}}
DUMPS
if grep -q '"reason":.*cortex-a72.test.*unsupported' "$tmp/out.json"; then
	pass "cortex-a72 dump reported unsupported"
else
	flunk "cortex-a72 dump reported unsupported"
fi

# A dump of another CPU than the sysroot's (an EPYC dump over an Icelake
# VM): one conflict says so, it carries the dump as evidence, and its
# counts are not compared with this machine's (no cpu.threads conflict).
dump=$tmp/amd-epyc-7763-64-core-processor-dual.test
if [ $nolib -eq 1 ]; then
	n=$((n + 1)); echo "ok $n - a dump of another CPU # SKIP nodeaudit built without libcpuid"
elif timeout 60 "$NODEAUDIT" --sysroot "$fix" --cpuid-dump "$dump" probe --format json >"$tmp/out.json" 2>"$tmp/err" &&
   [ "$(grep -c '"fact":[[:space:]]*"cpu.libcpuid"' "$tmp/out.json")" -ge 1 ] &&
   grep -q '"note":[[:space:]]*"the CPUID dump.*not this CPU"' "$tmp/out.json" &&
   ! grep -q '"note":[[:space:]]*"libcpuid counts' "$tmp/out.json" &&
   grep -A2 '"cpu.libcpuid":' "$tmp/out.json" | grep -q "amd-epyc-7763"; then
	pass "a dump of another CPU: one conflict, dump as evidence"
else
	flunk "a dump of another CPU: one conflict, dump as evidence"
	grep -B2 -A4 'cpu.libcpuid\|libcpuid counts' "$tmp/out.json" | sed 's/^/#   /'
fi

echo "1..$n"
[ $fail -eq 0 ]
