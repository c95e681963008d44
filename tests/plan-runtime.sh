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

# A cpulist, one number a line.
expand() { printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 + 0 } NF == 2 { for (i = $1; i <= $2; i++) print i }'; }
# Numbers on stdin (sorted) into a cpulist: 1-3,8.
compress() {
	sort -n | awk 'BEGIN { s = -1 } { if (s < 0) { s = p = $1 } else if ($1 == p + 1) p = $1; else { o = o sep (s == p ? s : s "-" p); sep = ","; s = p = $1 } }
		END { if (s >= 0) o = o sep (s == p ? s : s "-" p); print o }'
}

# The expected workers of sysroot $1: "NODE LIST" lines ("- LIST" without nodes).
expected() {
	root=$1 c=$1/sys/devices/system/cpu
	if [ -r "$c/online" ]; then expand "$(cat "$c/online")"; else
		for d in "$c"/cpu[0-9]*; do [ -d "$d" ] && echo "${d##*/cpu}"; done
	fi | sort -n >"$tmp/online"
	# P-cores on hybrids (the top kind only, as on x86): on Arm, the CPUs of
	# the biggest core design in /proc/cpuinfo (Arm's part numbers, Cortex-X
	# above the A7xx of the v9 generation, above the v8 big cores, above the
	# little ones); else the highest cpu_capacity; else the highest base
	# frequency; else the highest cpuinfo_max_freq; nothing when all are alike.
	: >"$tmp/kind"
	# A part printed once for all processors (an old kernel's shared block)
	# is the reading CPU's, evidence for none: parts count only when every
	# processor has its own.
	awk -F'\t*: *' '/^processor/ { p = $2; np++ } /^CPU part/ { l[++nl] = p " " $2 }
		END { if (nl == np) for (i = 1; i <= nl; i++) print l[i] }' "$root/proc/cpuinfo" 2>/dev/null >"$tmp/parts"
	# Each CPU's files read by one awk (a few forks a CPU would cost more
	# than the tool's whole run): "-" for a file that is absent or empty.
	awk -v c="$c" -v parts="$tmp/parts" '
	function rd(f,   l, r) { r = (getline l < f); close(f); return r > 0 && l != "" ? l : "-" }
	BEGIN {
		while ((getline l < parts) > 0) { split(l, w, " "); part[w[1]] = w[2] }
		n = split("0xd44 0xd48 0xd4e 0xd82 0xd85", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 4 # Cortex-X1, X2, X3, X4, X925
		n = split("0xd4d 0xd47 0xd81 0xd87", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 3       # A715, A710, A720, A725
		n = split("0xd07 0xd08 0xd09 0xd0a 0xd0b 0xd0d 0xd41", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 2 # A57 ... A78
		n = split("0xd03 0xd04 0xd05 0xd46 0xd80", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 1 # A53, A35, A55, A510, A520
	}
	{
		cpu = $1
		rank = (cpu in part) && (part[cpu] in rk) ? rk[part[cpu]] : "-"
		print cpu, rd(c "/cpu" cpu "/cpu_capacity"), rd(c "/cpu" cpu "/cpufreq/base_frequency"), rank,
		      rd(c "/cpu" cpu "/cpufreq/cpuinfo_max_freq")
	}' "$tmp/online" >"$tmp/kind"
	awk '
	{ cpu[NR] = $1; cap[NR] = $2; base[NR] = $3; rank[NR] = $4; mf[NR] = $5 }
	$5 != "-" { if (fmin == "" || $5 < fmin) fmin = $5; if (fmax == "" || $5 > fmax) fmax = $5 }
	$2 != "-" { if (cmin == "" || $2 < cmin) cmin = $2; if (cmax == "" || $2 > cmax) cmax = $2 }
	$3 != "-" { if (bmin == "" || $3 < bmin) bmin = $3; if (bmax == "" || $3 > bmax) bmax = $3 }
	$4 != "-" { if (rmin == "" || $4 < rmin) rmin = $4; if (rmax == "" || $4 > rmax) rmax = $4 }
	END {
		for (i = 1; i <= NR; i++) {
			p = 1
			if (rmin != "" && rmin != rmax) p = rank[i] == rmax
			else if (cmin != "" && cmin != cmax) p = cap[i] != "-" && cap[i] == cmax
			else if (bmin != "" && bmin != bmax) p = base[i] == bmax
			else if (fmin != "" && fmin != fmax) p = mf[i] == fmax
			if (p) print cpu[i]
		}
		h = (rmin != "" && rmin != rmax) || (cmin != "" && cmin != cmax) || (bmin != "" && bmin != bmax) ||
		    (fmin != "" && fmin != fmax)
		print h ? "hybrid" : "plain" > "/dev/stderr"
	}' "$tmp/kind" >"$tmp/pcores" 2>"$tmp/hybrid"
	# One thread per core: the lowest online thread of its siblings.
	# (thread_siblings_list, else core_cpus_list, else the CPU alone; a
	# file that is there but empty names no thread).
	awk -v c="$c" -v online="$tmp/online" -v pcores="$tmp/pcores" '
	function rd(f,   l, r) { r = (getline l < f); close(f); return r < 0 ? "\001" : r == 0 ? "" : l }
	BEGIN {
		while ((getline l < online) > 0) on[l + 0] = 1
		while ((getline l < pcores) > 0) pc[l + 0] = 1
	}
	{
		cpu = $1
		sib = rd(c "/cpu" cpu "/topology/thread_siblings_list")
		if (sib == "\001") sib = rd(c "/cpu" cpu "/topology/core_cpus_list")
		if (sib == "\001") sib = cpu
		first = ""
		n = split(sib, part, ",")
		for (i = 1; i <= n; i++) {
			m = split(part[i], r, "-")
			if (m == 1 && r[1] != "") { lo = r[1] + 0; hi = lo } else if (m == 2) { lo = r[1] + 0; hi = r[2] + 0 } else continue
			for (j = lo; j <= hi; j++) if ((j in on) && (first == "" || j < first)) first = j
		}
		if (first != "" && first == cpu + 0 && ((cpu + 0) in pc)) print cpu
	}' "$tmp/online" >"$tmp/reps"
	reserve=1
	[ "$(cat "$tmp/hybrid")" = hybrid ] && reserve=0
	nodes=$(ls -d "$root"/sys/devices/system/node/node[0-9]* 2>/dev/null | sed 's/.*node//' | sort -n)
	if [ -z "$nodes" ]; then
		sort -n "$tmp/reps" >"$tmp/nreps"
		cnt=$(wc -l <"$tmp/nreps")
		[ "$cnt" -le "$reserve" ] && reserve=0
		# No node directory: a kernel without NUMA, one node 0.
		echo "0 $(tail -n +$((reserve + 1)) "$tmp/nreps" | compress)"
		return
	fi
	# A CPU that several nodes claim (broken firmware) belongs to the first.
	: >"$tmp/taken"
	for id in $nodes; do
		expand "$(cat "$root/sys/devices/system/node/node$id/cpulist" 2>/dev/null)" >"$tmp/ncpus"
		grep -Fxf "$tmp/ncpus" "$tmp/reps" | grep -vFxf "$tmp/taken" | sort -n >"$tmp/nreps"
		cat "$tmp/nreps" >>"$tmp/taken"
		cnt=$(wc -l <"$tmp/nreps")
		[ "$cnt" -eq 0 ] && continue
		r=$reserve
		[ "$cnt" -le "$r" ] && r=0
		echo "$id $(tail -n +$((r + 1)) "$tmp/nreps" | compress)"
	done
}

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
