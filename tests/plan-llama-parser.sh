#!/bin/sh
# plan-llama-parser.sh - every llama.cpp launch line that plan --runtime
# llama.cpp prints, judged by llama.cpp's own argument parser: the words of
# each line (the numactl line after its "--", and the line without numactl)
# go to common_params_parse() for the server, in the libllama-common.so of
# the npm package @node-llama-cpp/linux-x64 or linux-arm64, as the test
# program's architecture is (scripts/install-deps --test),
# through tests/llama-parse.  Each must be accepted, and what llama.cpp
# read back from its common_params must be what the plan means, derived
# here from the sysroot's files (tests/plan-workers.sh): -t the worker's
# cores (or the knee of a hand-written --bench sweep, where below them), -tb
# its cores, the CPU mask its CPU list (none in the numactl line, and none
# where a CPU is at 512 or above: llama.cpp's mask stops there), NUMA mode
# numactl with numactl, load mode none (no mmap) with several workers.
# Every fixture with a CPU topology, and the real machines' captures where
# they are there, with and without --bench.  Then the lock, an option-shaped
# model path, the syntax read from a llama-server's --help, and bad
# --runtime-bin.  Skips (77) without the library.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${JSUBSET:?}"
PARSE=${LLAMA_PARSE:-${top_builddir:-.}/tests/llama-parse}
# The package of llama-parse's own architecture: linux-arm64 for an aarch64
# build (under scripts/test-arm64, PARSE runs PARSE.arm64 under qemu-user),
# else linux-x64.
elf=$PARSE
[ -f "$PARSE.arm64" ] && head -c 2 "$PARSE" | grep -q '#!' && elf=$PARSE.arm64
case $(LC_ALL=C od -An -tx1 -j18 -N2 "$elf" 2>/dev/null | tr -d ' \n') in
b700) nlc=linux-arm64 ;;
*) nlc=linux-x64 ;;
esac
LIB=${NODEAUDIT_LLAMA_LIB:-${NODEAUDIT_NPM_DIR:-/usr/local/lib/nodeaudit-test}/node_modules/@node-llama-cpp/$nlc/bins/$nlc}
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
case $PARSE in /*) ;; *) PARSE=$PWD/$PARSE ;; esac
case $MKGGUF in /*) ;; *) MKGGUF=$PWD/$MKGGUF ;; esac
fx=$(cd "$top_srcdir/tests/fixtures" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi; }

if [ ! -r "$LIB/libllama-common.so" ]; then
	echo "1..0 # SKIP no libllama-common.so in $LIB (scripts/install-deps --test installs it)"
	exit 77
fi
# The parser reads LLAMA_ARG_* from the environment: none from here.
for v in $(env | sed -n 's/^\(LLAMA_ARG_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
# A C++ library in a sanitized test program: its own allocations at exit are not ours.
ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}; export ASAN_OPTIONS

"$PARSE" "$LIB" llama-server >"$tmp/o" 2>"$tmp/e"; rc=$?
case $rc in
0) readback=1 ;;
99) readback=0; echo "# common_params cannot be read back from this library: acceptance only"
    grep '^llama-parse:' "$tmp/e" | sed 's/^/#   /' ;;
77) echo "1..0 # SKIP $(tail -n 1 "$tmp/e")"; exit 77 ;;
*) echo "not ok 1 - llama-parse runs on an empty line"; sed 's/^/#   /' "$tmp/e"; echo "1..1"; exit 1 ;;
esac

. "$top_srcdir/tests/plan-workers.sh"

# judge WHAT WANT WORD...: llama.cpp accepts the words and reads back WANT.
judge() {
	what=$1 want=$2; shift 2
	"$PARSE" "$LIB" "$@" >"$tmp/got" 2>"$tmp/perr"; prc=$?
	if [ $readback -eq 1 ]; then
		[ $prc -eq 0 ] && [ "$(cat "$tmp/got")" = "$want" ]; r=$?
	else
		[ $prc -eq 99 ] && [ "$(cat "$tmp/got")" = accepted ]; r=$?
	fi
	ok $r "$what"
	if [ $r -ne 0 ]; then
		echo "#   line:  $*"
		echo "#   want:  $want"
		echo "#   got:   $(cat "$tmp/got")"
		grep -v '^cmn\|^load_backend\|^$' "$tmp/perr" | tail -n 3 | sed 's/^/#   /'
	fi
}

# The highest CPU of a cpulist.
top_cpu() { expand "$1" | sort -n | tail -n 1; }

# One sysroot, with and without a sweep: every worker's two lines.
one() {
	name=$1 root=$2
	expected "$root" >"$tmp/want" 2>/dev/null
	[ -s "$tmp/want" ] || return 0
	nw=$(wc -l <"$tmp/want")
	# The sweep: a knee of half the worker's cores (at least 1) on every node.
	printf '{"schema":"nodeaudit.bench/1","bench":{"sweep":{"nodes":[' >"$tmp/sweep.json"
	sep=
	while read -r id list; do
		c=$(expand "$list" | wc -l)
		printf '%s{"node":%s,"knee_threads":%d}' "$sep" "$id" $(((c + 1) / 2)) >>"$tmp/sweep.json"
		sep=,
	done <"$tmp/want"
	printf ']}}}' >>"$tmp/sweep.json"
	for bench in no yes; do
		set -- plan --sysroot "$root" --runtime llama.cpp
		[ $bench = yes ] && set -- "$@" --bench "$tmp/sweep.json"
		if ! "$NODEAUDIT" "$@" >"$tmp/text" 2>"$tmp/err"; then
			ok 1 "$name (bench $bench): plan runs"; sed 's/^/#   /' "$tmp/err"; continue
		fi
		# Each worker: its label line, its numactl line, "without numactl:", the other line.
		grep -A3 '^  node [0-9]*:$\|^  all CPUs:$' "$tmp/text" | grep -v '^--$' >"$tmp/blocks"
		[ "$(grep -c '^    numactl ' "$tmp/blocks")" -eq "$nw" ] && [ "$(grep -c '^    llama-server ' "$tmp/blocks")" -eq "$nw" ]
		ok $? "$name (bench $bench): a numactl line and one without for each of the $nw workers"
		k=0
		while read -r id list; do
			k=$((k + 1))
			c=$(expand "$list" | wc -l)
			t=$c
			[ $bench = yes ] && [ $(((c + 1) / 2)) -lt "$c" ] && t=$(((c + 1) / 2))
			lm=auto; [ "$nw" -gt 1 ] && lm=none
			l1=$(sed -n "$((4 * k - 2))p" "$tmp/blocks")
			l2=$(sed -n "$((4 * k))p" "$tmp/blocks")
			eval "set -- $l1"
			while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
			[ $# -gt 0 ] && shift
			judge "$name (bench $bench) node $id: the numactl line" \
				"threads=$t threads_batch=$c cpus=- cpus_batch=- strict=0 strict_batch=0 numa=numactl load_mode=$lm model=<model.gguf>" "$@"
			mask=$list strict=1
			if [ "$(top_cpu "$list")" -ge 512 ]; then mask=- strict=0; fi
			eval "set -- $l2"
			judge "$name (bench $bench) node $id: the line without numactl (mask ${mask})" \
				"threads=$t threads_batch=$c cpus=$mask cpus_batch=$mask strict=$strict strict_batch=$strict numa=disabled load_mode=none model=<model.gguf>" "$@"
		done <"$tmp/want"
	done
}

for d in "$fx"/*/; do
	d=${d%/}
	[ -d "$d/sys/devices/system/cpu" ] || continue
	ls "$d"/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list >/dev/null 2>&1 ||
		ls "$d"/sys/devices/system/cpu/cpu[0-9]*/topology/core_cpus_list >/dev/null 2>&1 || continue
	case ${d##*/} in cpu-garbled*) continue ;; esac   # what it holds is garbage by design
	one "${d##*/}" "$d"
done
# The real machines' captures, where present (HACKING): those whose workers
# tests/plan-workers.sh derives (as tests/plan-runtime.sh).
shared=${NODEAUDIT_SHARED:-$top_srcdir/../shared}
for tb in "$shared"/fixtures/real/sysfs/hwloc__*/*.tar.bz2; do
	[ -r "$tb" ] || continue
	nm=$(basename "$tb" .tar.bz2)
	mkdir -p "$tmp/real/$nm" && tar -xjf "$tb" -C "$tmp/real/$nm" 2>/dev/null || continue
	root=$(find "$tmp/real/$nm" -maxdepth 3 -type d -name sys | head -n 1)
	[ -n "$root" ] && one "real:$nm" "${root%/sys}"
done

# CPUs at 512 and above: node 0 of CPUs 0-7, node 1 of 512-519, one thread
# per core.  llama.cpp's -C stops at CPU 511: node 1's line without numactl
# has no mask, node 0's has one.
s=$tmp/big-ids/sys/devices/system
for c in 0 1 2 3 4 5 6 7 512 513 514 515 516 517 518 519; do
	mkdir -p "$s/cpu/cpu$c/topology"
	echo "$c" >"$s/cpu/cpu$c/topology/thread_siblings_list"
	echo "$c" >"$s/cpu/cpu$c/topology/core_cpus_list"
	echo "$c" >"$s/cpu/cpu$c/topology/core_id"
	echo 0 >"$s/cpu/cpu$c/topology/physical_package_id"
done
echo 0-7,512-519 >"$s/cpu/online"; echo 0-7,512-519 >"$s/cpu/present"; echo 0-7,512-519 >"$s/cpu/possible"
mkdir -p "$s/node/node0" "$s/node/node1"
echo 0-7 >"$s/node/node0/cpulist"; echo 512-519 >"$s/node/node1/cpulist"; echo 0-1 >"$s/node/online"
for i in 0 1; do printf 'Node %d MemTotal:       16777216 kB\n' $i >"$s/node/node$i/meminfo"; done
one "cpus-beyond-511" "$tmp/big-ids"
grep -q "node 1: no -C in the line without numactl: a CPU is at 512 or above" "$tmp/text"
ok $? "cpus-beyond-511: the plan says why node 1 has no -C"

# The lock: with RLIMIT_MEMLOCK unlimited, a model, two workers: -lm mlock
# (no mmap, locked) in every line; the model's path as given.
if "$MKGGUF" llama "$tmp/m.gguf" >/dev/null 2>&1; then
	cp -R "$fx/numa-2node" "$tmp/ml" && mkdir -p "$tmp/ml/proc/self"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         unlimited            unlimited            bytes     \n' >"$tmp/ml/proc/self/limits"
	"$NODEAUDIT" plan --sysroot "$tmp/ml" --runtime llama.cpp --model "$tmp/m.gguf" >"$tmp/text"
	l=$(grep -A1 '^  node 0:$' "$tmp/text" | tail -n 1)
	eval "set -- $l"; while [ "$1" != -- ]; do shift; done; shift
	judge "mlock: node 0's numactl line locks, unmapped" \
		"threads=7 threads_batch=7 cpus=- cpus_batch=- strict=0 strict_batch=0 numa=numactl load_mode=mlock model=$tmp/m.gguf" "$@"
	l=$(grep -A3 '^  node 1:$' "$tmp/text" | tail -n 1)
	eval "set -- $l"
	judge "mlock: node 1's line without numactl locks, unmapped" \
		"threads=7 threads_batch=7 cpus=9-15 cpus_batch=9-15 strict=1 strict_batch=1 numa=disabled load_mode=mlock model=$tmp/m.gguf" "$@"
	# A model whose relative path starts with '-': ./ before it, in the
	# text and in the JSON argv, so that no parser takes it for an option.
	cp "$tmp/m.gguf" "$tmp/-m.gguf"
	(cd "$tmp" && "$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --model=-m.gguf >"$tmp/text" &&
		"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --model=-m.gguf --format json -o "$tmp/d.json")
	ok $? "an option-shaped model path: plan runs"
	l=$(grep -A3 '^  node 0:$' "$tmp/text" | tail -n 1)
	eval "set -- $l"
	judge "an option-shaped model path reaches llama.cpp as ./-m.gguf" \
		"threads=7 threads_batch=7 cpus=1-7 cpus_batch=1-7 strict=1 strict_batch=1 numa=disabled load_mode=none model=./-m.gguf" "$@"
	! grep -q '"-m.gguf"' "$tmp/d.json" && [ "$(grep -c '"\./-m\.gguf"' "$tmp/d.json")" -eq 4 ]
	ok $? "an option-shaped model path: ./-m.gguf in all 4 JSON argv, never -m.gguf"
else
	ok 1 "mkgguf llama"
fi

# The syntax from the llama-server asked: a program whose --help has
# --load-mode gets -lm; one with --no-mmap and no --load-mode (llama.cpp
# before PR 20834) gets --no-mmap, which today's parser refuses.
mkfake() {
	printf '#!/bin/sh\ncase $1 in\n--help) printf "%%s\\n" %s ;;\n--version) echo "version: %s (abc1234)" >&2 ;;\nesac\n' "$2" "$3" >"$1"
	chmod +x "$1"
}
mkfake "$tmp/new-server" '"-lm, --load-mode MODE  model loading mode"' 9000
mkfake "$tmp/old-server" '"--mlock  force system to keep model in RAM" "--no-mmap  do not memory-map model"' 6000
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --runtime-bin "$tmp/new-server" --format json -o "$tmp/n.json"
printf '{"runtime_syntax":{"load":"-lm/--load-mode","from":"%s","version":"version: 9000 (abc1234)"},"workers":[{"command":["numactl","--physcpubind=1-7","--membind=0","--","llama-server","-m","<model.gguf>","-t","7","-tb","7","-lm","none","--numa","numactl"]},{"node":1}]}' "$tmp/new-server" >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/n.json"; ok $? "--runtime-bin with --load-mode in its --help: -lm, the version said"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --runtime-bin "$tmp/old-server" --format json -o "$tmp/o.json"
printf '{"runtime_syntax":{"load":"--no-mmap/--mlock","from":"%s"},"workers":[{"command":["numactl","--physcpubind=1-7","--membind=0","--","llama-server","-m","<model.gguf>","-t","7","-tb","7","--no-mmap","--numa","numactl"]},{"node":1}]}' "$tmp/old-server" >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/o.json"; ok $? "--runtime-bin without --load-mode in its --help: --no-mmap"
"$PARSE" "$LIB" llama-server -m x.gguf -t 7 --no-mmap >/dev/null 2>"$tmp/perr"; [ $? -eq 1 ] && grep -q 'invalid argument: --no-mmap' "$tmp/perr"
ok $? "today's llama.cpp refuses --no-mmap (so the syntax must follow the binary)"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --format json -o "$tmp/a.json"
printf '{"runtime_syntax":{"load":"-lm/--load-mode","from":null,"assumed_because":"<any>"}}' >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/a.json" && grep -q "today's syntax is assumed" "$tmp/a.json"
ok $? "no llama-server asked: today's syntax, and the plan says it assumed it"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --runtime-bin /bin/true >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'neither --load-mode nor --no-mmap' "$tmp/err"
ok $? "--runtime-bin of another program: exit 3, one line"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --runtime-bin "$tmp/new-server" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && grep -q 'runtime-bin goes with --runtime llama.cpp' "$tmp/err"
ok $? "--runtime-bin with vllm: exit 3"
echo "1..$n"
[ $fail -eq 0 ]
