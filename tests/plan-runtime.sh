#!/bin/sh
# plan-runtime.sh - plan --runtime llama.cpp|vllm on every fixture with CPUs
# (and on the real-machine captures when they are there): each worker's CPU
# list is one online hardware thread per physical core of its node (P-cores
# only on hybrids) less the reserved cores, derived here from the fixture's
# own files (online, thread_siblings_list, nodeN/cpulist, cpu_capacity or
# base_frequency), not from the tool; without a model, vLLM runs one replica
# per worker (tensor parallel size 1), each bound to its worker's list; the
# text line of each llama.cpp worker, read by sh, is the argv of the JSON
# plan.  Then the fit on a 20 GiB model (mkgguf big; for vLLM a checkpoint
# directory of the same size) against 16 GiB nodes, the lock against
# RLIMIT_MEMLOCK, and bad options.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${JSUBSET:?}"
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi; }

# expand, compress and expected (the workers of a sysroot, from its files).
. "$top_srcdir/tests/plan-workers.sh"

# The workers of a JSON plan, as "NODE LIST" lines, via its text output:
# the text plan says "node N: K threads on CPUs LIST" ("all CPUs: ..." without nodes).
actual() {
	sed -n 's/^  node \([0-9]*\): [0-9]* threads\{0,1\} on CPUs \([0-9,-]*[0-9]\).*/\1 \2/p; s/^  all CPUs: [0-9]* threads\{0,1\} on CPUs \([0-9,-]*[0-9]\).*/- \1/p' "$1"
}

# One sysroot, both runtimes.
one() {
	name=$1 root=$2
	expected "$root" >"$tmp/want" 2>/dev/null
	[ -s "$tmp/want" ] || return 0
	for rt in llama.cpp vllm; do
		"$NODEAUDIT" plan --sysroot "$root" --runtime "$rt" >"$tmp/text" 2>"$tmp/err" &&
		"$NODEAUDIT" plan --sysroot "$root" --runtime "$rt" --format json -o "$tmp/plan.json" 2>>"$tmp/err"
		ok $? "$name $rt: plan runs"
		actual "$tmp/text" >"$tmp/got"
		diff -u "$tmp/want" "$tmp/got" >"$tmp/d"; r=$?
		ok $r "$name $rt: one online thread per physical core of each node, less the reserved"
		[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/d"
		if [ "$rt" = vllm ]; then
			cnt=$(wc -l <"$tmp/want")
			printf '{"runtime":"vllm","tensor_parallel_size":1,"parallel":{"mode":"replicas","replicas":%d},"workers":[' \
				"$cnt" >"$tmp/w.json"
			sep=
			while read -r _ list; do
				printf '%s{"replica":"<any>","rank":0,"env":{"VLLM_CPU_OMP_THREADS_BIND":"%s"}}' "$sep" "$list" >>"$tmp/w.json"
				sep=,
			done <"$tmp/want"
			printf ']}' >>"$tmp/w.json"
			"$JSUBSET" "$tmp/w.json" "$tmp/plan.json" >"$tmp/d" 2>&1; r=$?
			ok $r "$name vllm: no model: one replica per worker ($cnt), each bound to its worker's list"
			[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/d"
		else
			# Each worker's line in the text, read by sh, is its JSON argv:
			# the words as a JSON array, matched by jsubset.
			k=0
			grep -A1 '^  node [0-9]*:$\|^  all CPUs:$' "$tmp/text" | grep '^    numactl ' >"$tmp/lines"
			printf '{"workers":[' >"$tmp/w.json"
			while IFS= read -r line; do
				eval "set -- $line"
				[ $k -gt 0 ] && printf ',' >>"$tmp/w.json"
				printf '{"command":[' >>"$tmp/w.json"
				sep=
				for word in "$@"; do
					# JSON's escapes, by sed only for a word that needs them.
					case $word in
					*[\\\"]*) word=$(printf '%s' "$word" | sed 's/[\\"]/\\&/g') ;;
					esac
					printf '%s"%s"' "$sep" "$word" >>"$tmp/w.json"
					sep=,
				done
				printf ']}' >>"$tmp/w.json"
				k=$((k + 1))
			done <"$tmp/lines"
			printf ']}' >>"$tmp/w.json"
			[ $k -eq "$(wc -l <"$tmp/want")" ] && "$JSUBSET" "$tmp/w.json" "$tmp/plan.json" >"$tmp/d" 2>&1
			ok $? "$name llama.cpp: each worker's line parses as the JSON argv"
		fi
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

# The real machines' captures, where present (HACKING).
shared=${NODEAUDIT_SHARED:-$top_srcdir/../shared}
for tb in "$shared"/fixtures/real/sysfs/hwloc__*/*.tar.bz2; do
	[ -r "$tb" ] || continue
	nm=$(basename "$tb" .tar.bz2)
	mkdir -p "$tmp/real/$nm" && tar -xjf "$tb" -C "$tmp/real/$nm" 2>/dev/null || continue
	root=$(find "$tmp/real/$nm" -maxdepth 3 -type d -name sys | head -n 1)
	[ -n "$root" ] && one "real:$nm" "${root%/sys}"
done

# The fit: 20 GiB of weights against nodes of 16 GiB.  The tensor table of
# mkgguf's model: f16 token_embd and output (256 x 64), per layer (2) q and
# output 256 x 256, k and v 256 x 128, gate, up, down 256 x 512; five f32
# norms of 256; the 20 GiB f32 tensor.
if "$MKGGUF" big "$tmp/big.gguf" >/dev/null 2>&1; then
	"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --model "$tmp/big.gguf" --ctx 2048 \
		--format json -o "$tmp/fit.json"; ok $? "fit: plan with a 20 GiB model runs"
	printf '{"fit":{"fits":false,"weights_bytes":%s,"workers":[{"node":0,"fits":false,"memory_bytes":17179869184},{"node":1,"fits":false}]},"findings":[{"id":"plan.model_fit","status":"fail","node":0},{"id":"plan.model_fit","node":1}]}' \
		"$(( 20 * 1024 * 1024 * 1024 + 2 * (2 * 256 * 64 + 2 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512)) + 4 * 5 * 256 ))" >"$tmp/w.json"
	"$JSUBSET" "$tmp/w.json" "$tmp/fit.json"; ok $? "fit: a finding per node, with the figures"
	grep -q 'smaller quant' "$tmp/fit.json" && grep -q 'interleave=all' "$tmp/fit.json"
	ok $? "fit: says what to do (a smaller quant, one worker interleaved over the nodes)"
	# The same 20 GiB as a checkpoint for vLLM: 40 heads, 8 KV heads, 2
	# layers, hidden 5120 (head_dim 128), bfloat16 (tests/mkckpt.sh).
	sh "$top_srcdir/tests/mkckpt.sh" "$tmp/ck" 40 8 2 5120 21474836480
	"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/ck" --ctx 2048 \
		--format json -o "$tmp/fitv.json"
	# Not one node's 90% of 16 GiB: split over 2 ranks (2 divides 40 and 8).
	# KV space: 14.4 GiB less the 10 GiB shard less the reserve (a tenth of
	# the shard, at least 1 GiB): 3.4 GiB, floored.
	printf '{"fit":{"fits":true,"shards":2,"weights_bytes":21474836480},"tensor_parallel_size":2,"parallel":{"mode":"tensor","replicas":1},"env":{"VLLM_CPU_KVCACHE_SPACE":"3"}}' >"$tmp/w.json"
	"$JSUBSET" "$tmp/w.json" "$tmp/fitv.json"; ok $? "fit: vllm splits a checkpoint over 2 ranks; KV cache space 3 GiB"
	grep -q '"findings"' "$tmp/fitv.json"; [ $? -ne 0 ]; ok $? "fit: no finding when it fits"
	# --mlock: the limit of the process reading the plan's facts.
	cp -R "$fx/numa-2node" "$tmp/ml" && mkdir -p "$tmp/ml/proc/self"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         8388608              8388608              bytes     \n' >"$tmp/ml/proc/self/limits"
	"$NODEAUDIT" plan --sysroot "$tmp/ml" --runtime llama.cpp --model "$tmp/big.gguf" --format json -o "$tmp/ml.json"
	! grep -q '"mlock"' "$tmp/ml.json" && grep -q 'no --mlock: RLIMIT_MEMLOCK is 8.0 MiB' "$tmp/ml.json"
	ok $? "mlock: left out under an 8 MiB RLIMIT_MEMLOCK, and says why"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         unlimited            unlimited            bytes     \n' >"$tmp/ml/proc/self/limits"
	"$NODEAUDIT" plan --sysroot "$tmp/ml" --runtime llama.cpp --model "$tmp/big.gguf" --format json -o "$tmp/ml.json"
	# Two workers, no mmap (one copy per node), locked: -lm mlock in both lines of each.
	[ "$(grep -o '"-lm",[[:space:]]*"mlock"' "$tmp/ml.json" | wc -l)" -eq 4 ]; ok $? "mlock: -lm mlock in every line when unlimited"
else
	echo "not ok $((n + 1)) - mkgguf big"; n=$((n + 1)); fail=$((fail + 1))
fi
# A hybrid: nothing is reserved per node, so vLLM's API server runs on the
# E-cores (cpu-rpl-laptop: CPUs 8-15 have the lower base_frequency), and the
# container's cpuset holds them beside the worker's.  No taskset narrows
# vllm serve; Docker's default seccomp profile, /dev/shm of 4g.
"$NODEAUDIT" plan --sysroot "$fx/cpu-rpl-laptop" --runtime vllm --format json -o "$tmp/h.json"
printf '{"launch":["vllm","serve","<model>","--tensor-parallel-size","1"],"container":{"seccomp":"docker-default","docker_args":["--cap-add","SYS_NICE","--shm-size","4g","--cpuset-cpus","0,2,4,6,8-15","--cpuset-mems","0"]}}' >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/h.json" && grep -q 'reserved cores (8-15), where the API server' "$tmp/h.json"
ok $? "hybrid vllm: the API server on the E-cores, inside the container's cpuset"
"$NODEAUDIT" plan --runtime tensorrt >/dev/null 2>"$tmp/err"; [ $? -eq 3 ] && grep -q "llama.cpp or vllm" "$tmp/err"
ok $? "unknown runtime: exit 3, names the runtimes"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model /nonexistent.gguf >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q nonexistent.gguf "$tmp/err"
ok $? "missing model: exit 3, one line naming it"
"$NODEAUDIT" plan --ctx 0 >/dev/null 2>&1; [ $? -eq 3 ]; ok $? "bad --ctx: exit 3"
echo "1..$n"
[ $fail -eq 0 ]
