#!/bin/sh
# real-score.sh - every capture of a real machine through `probe`, each
# figure compared with the one its project asserts, scored one by one:
# correct (the same value), unknown (null: the tool said it could not tell)
# or wrong (another value).  Prints one line "N correct, W wrong, U unknown"
# and fails on any wrong figure.
#
# The captures: those in $NODEAUDIT_SHARED/fixtures/real (HACKING,
# "Real-machine captures"; skipped when absent) and the ones reduced into
# tests/fixtures from public test suites (their READMEs cite the origin).
# The figures come from each project's own expected output (hwloc's
# lstopo .console, util-linux's lscpu output) or, for the ghw snapshots,
# from the capture's own topology files, never from this tool.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
fix=${top_srcdir:-.}/tests/fixtures
shared=${NODEAUDIT_SHARED:-${top_srcdir:-.}/../shared}
real=$shared/fixtures/real
tmp=$(mktemp -d "${TMPDIR:-/tmp}/realscore.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0 correct=0 wrong=0 unknown=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# json PATH VALUE: {"a": {"b": VALUE}} for PATH a.b; PATH kinds# is the
# number of cpu.kinds (N empty objects: jsubset compares array lengths).
json() {
	jp=$1 jv=$2
	case $jp in
	kinds\#)
		js= jk=$jv
		while [ "$jk" -gt 0 ]; do js="$js${js:+, }{}"; jk=$((jk - 1)); done
		printf '{"cpu": {"kinds": [%s]}}\n' "$js"
		return ;;
	esac
	jout=$jv
	while :; do
		jleaf=${jp##*.}
		jout="{\"$jleaf\": $jout}"
		[ "$jleaf" = "$jp" ] && break
		jp=${jp%.*}
	done
	printf '%s\n' "$jout"
}

# score NAME DOC PATH=VALUE...: one figure each.
score() {
	name=$1 doc=$2
	shift 2
	for fv in "$@"; do
		p=${fv%%=*} v=${fv#*=}
		json "$p" "$v" >"$tmp/want.json"
		if "$JSUBSET" "$tmp/want.json" "$doc" >/dev/null 2>&1; then
			correct=$((correct + 1))
			continue
		fi
		case $p in
		kinds\#) printf '{"cpu": {"kinds": null}}\n' >"$tmp/null.json" ;;
		*) json "$p" null >"$tmp/null.json" ;;
		esac
		if "$JSUBSET" "$tmp/null.json" "$doc" >/dev/null 2>&1; then
			unknown=$((unknown + 1))
			echo "# $name: $p unknown (expected $v)"
		else
			wrong=$((wrong + 1))
			flunk "$name: $p is wrong (expected $v)"
			"$JSUBSET" "$tmp/want.json" "$doc" 2>&1 | sed 's/^/#   /'
		fi
	done
}

# probe_root NAME ROOT FIGURES...
probe_root() {
	name=$1 root=$2
	shift 2
	if timeout 60 "$NODEAUDIT" --sysroot "$root" probe --format json >"$tmp/out.json" 2>"$tmp/err"; then
		pass "$name: probed"
		score "$name" "$tmp/out.json" "$@"
	else
		flunk "$name: probe failed"
		sed 's/^/#   /' "$tmp/err"
	fi
}

# The captures reduced into tests/fixtures (always here).
probe_root "util-linux arm-A510-A710-A715-X3 (cpu-arm-cluster-pkgid)" "$fix/cpu-arm-cluster-pkgid" \
	cpu.threads=8 cpu.cores=8 cpu.packages=1 "kinds#=4" cpu.hybrid=true cpu.smt.threads_per_core=1 \
	'cpu.model_name="Cortex-X3 + Cortex-A715 + Cortex-A710 + Cortex-A510"'
probe_root "util-linux arm-A510-A710-A715-X3 (cpu-arm-x3-capacity)" "$fix/cpu-arm-x3-capacity" \
	cpu.threads=8 cpu.cores=8 cpu.packages=1 "kinds#=4" cpu.max_mhz=3187.2 \
	'cpu.model_name="Cortex-X3 + Cortex-A715 + Cortex-A710 + Cortex-A510"'
probe_root "util-linux armv7 (cpu-armv7-global-block)" "$fix/cpu-armv7-global-block" \
	cpu.threads=2 cpu.cores=2 cpu.packages=1 "kinds#=1" cpu.max_mhz=1700 \
	'cpu.model_name="Cortex-A15"' 'cpu.isa=["neon"]'
probe_root "hwloc 128arm-2pa2n8cluster4co (numa-arm-kunpeng920-nul)" "$fix/numa-arm-kunpeng920-nul" \
	cpu.threads=128 cpu.cores=128 cpu.packages=2 numa.node_count=4 cpu.caches.l3.instances=4 \
	cpu.caches.l3.size_bytes=33554432 cpu.smt.threads_per_core=1

# The shared captures.
if [ -d "$real/sysfs" ]; then
	while read -r cap figs; do
		[ -n "$cap" ] || continue
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
		# shellcheck disable=SC2086
		probe_root "$cap" "$root" $figs
		rm -rf "$d"
	done <<'TRUTH'
hwloc__5intel64-hybrid-lakefield cpu.packages=1 cpu.cores=5 cpu.threads=5 numa.node_count=1 kinds#=2 cpu.hybrid=true cpu.caches.l3.instances=1 cpu.caches.l2.instances=2
hwloc__16amd64-8n2c cpu.packages=8 cpu.cores=16 cpu.threads=16 numa.node_count=8 cpu.caches.l2.instances=16 cpu.caches.l3=null kinds#=1
hwloc__16em64t-4s2c2t cpu.packages=4 cpu.cores=8 cpu.threads=16 numa.node_count=1 cpu.caches.l3.instances=4 cpu.caches.l2.instances=8 cpu.smt.threads_per_core=2
hwloc__2arm-2c cpu.packages=1 cpu.cores=2 cpu.threads=2 numa.node_count=1 cpu.caches.l2=null cpu.caches.l3=null
hwloc__32em64t-2n8c+dax+nvme+mic+dimms cpu.packages=2 cpu.cores=16 cpu.threads=16 numa.node_count=2 cpu.caches.l3.instances=2 cpu.smt.active=false
hwloc__8em64t-2s2ca2c cpu.packages=2 cpu.cores=8 cpu.threads=8 numa.node_count=1 cpu.caches.l2.instances=4 cpu.caches.l3=null
util-linux__x86_64-64cpu cpu.packages=4 cpu.cores=32 cpu.threads=64 numa.node_count=3 cpu.caches.l3.instances=4 cpu.caches.l3.size_bytes=18874368 cpu.max_mhz=1996 cpu.smt.threads_per_core=2
util-linux__x86_64-dell_e4310 cpu.packages=1 cpu.cores=2 cpu.threads=4 numa.node_count=1 cpu.caches.l3.size_bytes=3145728 cpu.max_mhz=2667
ghw__linux-amd64-intel-i7-1270P cpu.packages=1 cpu.cores=12 cpu.threads=16 kinds#=2 cpu.hybrid=true cpu.caches.l2.instances=6
ghw__linux-amd64-amd-ryzen-1600 cpu.packages=1 cpu.cores=6 cpu.threads=12 numa.node_count=1 cpu.caches.l3.instances=2 cpu.caches.l3.size_bytes=8388608
TRUTH
else
	echo "# $real absent: only the captures reduced into tests/fixtures are scored"
fi

total=$((correct + wrong + unknown))
echo "# $correct correct, $wrong wrong, $unknown unknown (of $total figures)"
# The score itself is a test: no wrong figure.
if [ "$wrong" -eq 0 ]; then pass "$correct correct, $wrong wrong, $unknown unknown"
else flunk "$correct correct, $wrong wrong, $unknown unknown"; fi
echo "1..$n"
[ $fail -eq 0 ]
