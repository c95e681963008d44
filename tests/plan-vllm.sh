#!/bin/sh
# plan-vllm.sh - plan --runtime vllm against what vLLM itself checks (its
# Python package cannot be installed here, so its checks are mirrored below,
# each citing the upstream file and function), on every fixture with a CPU
# topology and the real captures where present, with a Hugging Face
# checkpoint (tests/mkckpt.sh) of 20 GiB, 40 attention heads, 8 KV heads:
#  - vllm/config (ModelConfig.verify_with_parallel_config): "Total number of
#    attention heads (40) must be divisible by tensor parallel size";
#  - vllm/model_executor/layers/linear.py (QKVParallelLinear.__init__):
#    divide(kv_heads, tp) when tp < kv_heads, else divide(tp, kv_heads);
#  - vllm/v1/worker/cpu_worker.py (CPUWorker.init_device):
#    VLLM_CPU_OMP_THREADS_BIND.split("|")[rank]: one CPU list per rank, the
#    lists as numa_parse_cpustring() reads them (csrc/cpu/utils.cpp
#    init_cpu_threads_env), here disjoint;
#  - vllm/envs.py: VLLM_CPU_KVCACHE_SPACE is int(), GiB.
# And the choice the plan promises, from the fixture's node memory: one
# replica per node when the model fits one node's 90%, else the smallest
# tensor-parallel size that vLLM accepts and whose shard fits.  Then GGUF
# refused for vLLM, a checkpoint refused for llama.cpp, a complete plan
# from a small checkpoint, and an option-shaped checkpoint path.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${JSUBSET:?}"
fx=$(cd "$top_srcdir/tests/fixtures" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi; }
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}

GIB=1073741824
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/big" 40 8 2 5120 $((20 * GIB))
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/small" 32 8 2 4096 $((GIB / 2))

cat >"$tmp/check.py" <<'EOF'
import json, sys, re

plan = json.load(open(sys.argv[1]))
heads, kv, weights = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kv_per_pos = int(sys.argv[5])            # bytes per position (K and V, all layers)
mems = [int(m) for m in sys.argv[6].split()] if sys.argv[6] else []
ctx = 4096
bad = []

def cpulist(s):
    out = set()
    if not re.fullmatch(r'\d+(-\d+)?(,\d+(-\d+)?)*', s):
        bad.append("not a CPU list: %r" % s)
        return out
    for part in s.split(','):
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out

def vllm_accepts(tp):
    # ModelConfig.verify_with_parallel_config
    if heads % tp:
        return False
    # QKVParallelLinear.__init__: divide() asserts exact division
    return kv % tp == 0 if tp < kv else tp % kv == 0

workers = plan["workers"]
tp = plan["tensor_parallel_size"]
par = plan["parallel"]
if par["tensor_parallel_size"] != tp:
    bad.append("parallel.tensor_parallel_size differs")
if not vllm_accepts(tp):
    bad.append("vLLM refuses tensor parallel size %d for %d heads, %d KV heads" % (tp, heads, kv))
if par["replicas"] != len(workers) // tp:
    bad.append("replicas %d, not %d" % (par["replicas"], len(workers) // tp))
# The choice: from the nodes' memory (90% usable).
need = weights + kv_per_pos * ctx
if mems and len(mems) == len(workers):
    budget = min(mems) * 0.9
    if need <= budget:
        want = 1
    else:
        fits = [t for t in range(2, len(workers) + 1) if vllm_accepts(t) and need / t <= budget]
        want = fits[0] if fits else max([t for t in range(1, len(workers) + 1) if vllm_accepts(t)])
    if tp != want:
        bad.append("tensor parallel %d, the contract gives %d (need %d, budget %d)" % (tp, want, need, budget))
    if (par["mode"] == "tensor") != (tp > 1):
        bad.append("mode %s with tp %d" % (par["mode"], tp))
# Each replica: one launch, one bind list with a list per rank.
for g in range(par["replicas"]):
    ws = [w for w in workers if w.get("replica") == g]
    if len(ws) != tp or [w["rank"] for w in ws] != list(range(tp)):
        bad.append("replica %d: ranks %s" % (g, [w.get("rank") for w in ws]))
        continue
    env = ws[0]["env"]
    lists = env["VLLM_CPU_OMP_THREADS_BIND"].split("|")    # CPUWorker: split("|")[rank]
    if len(lists) != tp:
        bad.append("replica %d: %d bind lists for %d ranks" % (g, len(lists), tp))
    seen = set()
    for r, (l, w) in enumerate(zip(lists, ws)):
        c = cpulist(l)
        if c & seen:
            bad.append("replica %d: rank %d's CPUs overlap another rank's" % (g, r))
        seen |= c
        if l != w["cpus"]:
            bad.append("replica %d: rank %d binds %s, its worker has %s" % (g, r, l, w["cpus"]))
    if "VLLM_CPU_KVCACHE_SPACE" in env and not re.fullmatch(r'[1-9]\d*', env["VLLM_CPU_KVCACHE_SPACE"]):
        bad.append("VLLM_CPU_KVCACHE_SPACE %r is not int()" % env["VLLM_CPU_KVCACHE_SPACE"])  # envs.py
    cmd = ws[0]["command"]
    if cmd[:2] != ["vllm", "serve"] or cmd[cmd.index("--tensor-parallel-size") + 1] != str(tp):
        bad.append("replica %d: launch %s" % (g, cmd))
    if any(w["command"] != cmd or w["env"] != env for w in ws):
        bad.append("replica %d: its workers' launches differ" % g)
    if par["replicas"] > 1 and cmd[cmd.index("--port") + 1] != str(8000 + g):
        bad.append("replica %d: port" % g)
    if cmd[0] == "taskset":
        bad.append("taskset narrows vllm serve")
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
EOF

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3"
	exit 77
fi

# KV cache per position of the big model: K and V x 2 layers x 8 KV heads x
# head_dim 128 (5120 / 40) x 2 bytes (bfloat16).
kvpp=$((2 * 2 * 8 * 128 * 2))
one() {
	name=$1 root=$2
	mems=
	for m in "$root"/sys/devices/system/node/node[0-9]*/meminfo; do
		[ -r "$m" ] || continue
		mems="$mems $(awk '/MemTotal/ { print $4 * 1024 }' "$m")"
	done
	"$NODEAUDIT" plan --sysroot "$root" --runtime vllm --model "$tmp/big" --format json -o "$tmp/p.json" 2>"$tmp/err"
	r=$?
	if [ $r -ne 0 ]; then ok 1 "$name: plan runs"; sed 's/^/#   /' "$tmp/err"; return; fi
	nw=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["workers"]))' "$tmp/p.json")
	# Memory compared only where every worker's node has it (and only nodes with CPUs have workers).
	set -- $mems
	[ $# -ne "$nw" ] && mems=
	python3 "$tmp/check.py" "$tmp/p.json" 40 8 $((20 * GIB)) $kvpp "$mems"
	ok $? "$name: a tensor-parallel size vLLM accepts, chosen by the fit; one bind list per rank"
}
for d in "$fx"/*/; do
	d=${d%/}
	[ -d "$d/sys/devices/system/cpu" ] || continue
	case ${d##*/} in cpu-garbled*) continue ;; esac
	ls "$d"/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list >/dev/null 2>&1 ||
		ls "$d"/sys/devices/system/cpu/cpu[0-9]*/topology/core_cpus_list >/dev/null 2>&1 || continue
	one "${d##*/}" "$d"
done
shared=${NODEAUDIT_SHARED:-$top_srcdir/../shared}
for tb in "$shared"/fixtures/real/sysfs/hwloc__*/*.tar.bz2; do
	[ -r "$tb" ] || continue
	nm=$(basename "$tb" .tar.bz2)
	mkdir -p "$tmp/real/$nm" && tar -xjf "$tb" -C "$tmp/real/$nm" 2>/dev/null || continue
	root=$(find "$tmp/real/$nm" -maxdepth 3 -type d -name sys | head -n 1)
	[ -n "$root" ] && one "real:$nm" "${root%/sys}"
done

# 17 nodes of 8 GiB, 40 heads: the issue's case.  20 GiB does not fit 7.2
# GiB; 3 shards of 6.7 GiB would, but 3 does not divide 40: 4 (divides 40
# and 8) is the smallest that vLLM accepts and fits; 4 replicas of 4 ranks,
# one node left over.
s=$tmp/n17/sys/devices/system
for i in $(seq 0 16); do
	for j in 0 1; do
		c=$((i * 2 + j))
		mkdir -p "$s/cpu/cpu$c/topology"
		echo "$c" >"$s/cpu/cpu$c/topology/thread_siblings_list"
		echo "$c" >"$s/cpu/cpu$c/topology/core_cpus_list"
	done
	mkdir -p "$s/node/node$i"
	echo "$((i * 2))-$((i * 2 + 1))" >"$s/node/node$i/cpulist"
	printf 'Node %d MemTotal:       8388608 kB\n' "$i" >"$s/node/node$i/meminfo"
done
echo 0-33 >"$s/cpu/online"; echo 0-16 >"$s/node/online"
"$NODEAUDIT" plan --sysroot "$tmp/n17" --runtime vllm --model "$tmp/big" --format json -o "$tmp/p17.json"
printf '{"tensor_parallel_size":4,"parallel":{"mode":"tensor","tensor_parallel_size":4,"replicas":4}}' >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/p17.json" && grep -q '1 worker left without a rank' "$tmp/p17.json" &&
	python3 "$tmp/check.py" "$tmp/p17.json" 40 8 $((20 * GIB)) $kvpp "$(printf '8589934592 %.0s' $(seq 17))"
ok $? "17 nodes of 8 GiB, 40 heads: tensor parallel 4, not 16 (nor 3), 4 replicas"

# A checkpoint that fits a node: a complete plan, one replica per node.
# KV space: 90% of 16 GiB less the 0.5 GiB of weights less the 1 GiB
# reserve = 12.9 GiB, floored; 2 replicas on ports 8000 and 8001.
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/small" --format json -o "$tmp/s.json"
printf '{"runtime":"vllm","tensor_parallel_size":1,"parallel":{"mode":"replicas","replicas":2,"why":"<any>"},"fit":{"fits":true,"weights_bytes":%d,"shards":1},"container":{"seccomp":"docker-default","docker_args":["--cap-add","SYS_NICE","--shm-size","4g","--cpuset-cpus","0-15","--cpuset-mems","0-1"]},"workers":[{"node":0,"replica":0,"rank":0,"env":{"VLLM_CPU_OMP_THREADS_BIND":"1-7","VLLM_CPU_KVCACHE_SPACE":"12"},"command":["vllm","serve","%s","--tensor-parallel-size","1","--port","8000"]},{"node":1,"replica":1,"rank":0,"env":{"VLLM_CPU_OMP_THREADS_BIND":"9-15","VLLM_CPU_KVCACHE_SPACE":"12"},"command":["vllm","serve","%s","--tensor-parallel-size","1","--port","8001"]}]}' \
	$((GIB / 2)) "$tmp/small" "$tmp/small" >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/s.json"; ok $? "a checkpoint that fits a node: one replica per node, complete"
grep -q '"findings"' "$tmp/s.json"; [ $? -ne 0 ]; ok $? "a checkpoint that fits a node: no finding"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/small" >"$tmp/s.txt"
grep -q '^    VLLM_CPU_OMP_THREADS_BIND=9-15 VLLM_CPU_KVCACHE_SPACE=12 vllm serve .* --port 8001$' "$tmp/s.txt"
ok $? "the text: replica 1's line"
"$NODEAUDIT" plan --sysroot "$fx/cpu-vm" --runtime vllm --model "$tmp/small" >"$tmp/one.txt"
grep -q 'one process, one rank;' "$tmp/one.txt" && ! grep -q 'all 1 rank' "$tmp/one.txt"
ok $? "one node, one rank: the note says one rank, not 'all 1 rank'"

# An option-shaped checkpoint path: ./ before it.
cp -R "$tmp/small" "$tmp/--trust-remote-code"
(cd "$tmp" && "$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model=--trust-remote-code --format json -o "$tmp/t.json" &&
	"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model=--trust-remote-code >"$tmp/t.txt")
ok $? "an option-shaped checkpoint path: plan runs"
! grep -q '"--trust-remote-code"' "$tmp/t.json" && [ "$(grep -c '"\./--trust-remote-code"' "$tmp/t.json")" -eq 2 ] &&
	[ "$(grep -c ' vllm serve \./--trust-remote-code ' "$tmp/t.txt")" -eq 2 ]
ok $? "an option-shaped checkpoint path: ./--trust-remote-code in JSON and text, never as an option"

# Refusals: one line each.
"$MKGGUF" llama "$tmp/m.gguf" >/dev/null 2>&1
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/m.gguf" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'cannot load a GGUF file.*--runtime llama.cpp' "$tmp/err"
ok $? "a GGUF model for vLLM: exit 3, one line naming llama.cpp"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --model "$tmp/small" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'llama.cpp loads one GGUF file' "$tmp/err"
ok $? "a checkpoint directory for llama.cpp: exit 3, one line"
mkdir -p "$tmp/bad1" && printf '{"num_attention_heads":40}' >"$tmp/bad1/config.json"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/bad1" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'bad1/config.json: lacks' "$tmp/err"
ok $? "config.json without the sizes: exit 3, names the file"
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/bad2" 40 8 2 5120 4096
truncate -s 100 "$tmp/bad2/model.safetensors"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/bad2" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'model.safetensors: ' "$tmp/err"
ok $? "a truncated safetensors file: exit 3, names it"
sh "$top_srcdir/tests/mkckpt.sh" "$tmp/bad3" 40 7 2 5120 4096
printf '{"num_attention_heads":40,"num_key_value_heads":8,"num_hidden_layers":2,"hidden_size":5120,"torch_dtype":"int3"}' >"$tmp/bad3/config.json"
"$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime vllm --model "$tmp/bad3" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "torch_dtype 'int3'" "$tmp/err"
ok $? "an unknown torch_dtype: exit 3"
echo "1..$n"
[ $fail -eq 0 ]
