#!/bin/sh
# bench-sweep.sh - bench --sweep on this machine with a tiny buffer: the
# shape, never the speed.  Per node, the thread counts are 1, 2, 4, ... below
# the node's physical cores, the cores, and the SMT threads when more (counted
# here from /sys and this process's allowed CPUs, not from the tool); the
# knee is one of them.  Then plan --bench takes a knee below a worker's cores
# as its -t and says so, and leaves a knee at or above them alone.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${JSUBSET:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi; }
expand() { printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 + 0 } NF == 2 { for (i = $1; i <= $2; i++) print i }'; }

if [ -r /sys/devices/system/cpu/online ] && [ -r /proc/self/status ]; then
	"$NODEAUDIT" bench --sweep --size 1M --seconds 0.5 --format json -o "$tmp/b.json" 2>"$tmp/err"
	ok $? "bench --sweep runs"
	"$NODEAUDIT" bench --sweep --size 1M --seconds 0.5 >"$tmp/b.txt" 2>>"$tmp/err"
	ok $? "bench --sweep text runs"
	expand "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)" >"$tmp/allowed"
	expand "$(cat /sys/devices/system/cpu/online)" | grep -Fxf "$tmp/allowed" >"$tmp/usable"
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | sed 's/.*node//' | sort -n)
	[ -n "$nodes" ] || nodes=0
	printf '{"schema":"nodeaudit.bench/1","bench":{"sweep":{"knee_share":0.95,"nodes":[' >"$tmp/want.json"
	sep= nn=0
	for id in $nodes; do
		if [ -r "/sys/devices/system/node/node$id/cpulist" ]; then
			expand "$(cat "/sys/devices/system/node/node$id/cpulist")" | grep -Fxf "$tmp/usable" >"$tmp/ncpus"
		else
			cp "$tmp/usable" "$tmp/ncpus"
		fi
		pus=$(wc -l <"$tmp/ncpus")
		[ "$pus" -gt 0 ] || continue
		cores=$(while read -r c; do
			cat "/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list" 2>/dev/null || echo "$c"
		done <"$tmp/ncpus" | sort -u | wc -l)
		t=1 pts= psep=
		while [ $t -lt "$cores" ]; do pts="$pts$psep{\"threads\":$t}"; psep=,; t=$((t * 2)); done
		pts="$pts$psep{\"threads\":$cores}"
		[ "$pus" -gt "$cores" ] && pts="$pts,{\"threads\":$pus}"
		printf '%s{"node":%d,"cores":%d,"pus":%d,"points":[%s],"knee_threads":"<any>"}' "$sep" "$id" "$cores" "$pus" "$pts" >>"$tmp/want.json"
		sep=, nn=$((nn + 1))
		echo "$pts" | tr '{}' '\n\n' | sed -n 's/"threads":\([0-9]*\)/\1/p' >"$tmp/counts.$id"
	done
	printf ']}}}' >>"$tmp/want.json"
	"$JSUBSET" "$tmp/want.json" "$tmp/b.json" >"$tmp/d" 2>&1; r=$?
	ok $r "the sweep's nodes and thread counts: 1, 2, 4, ... the cores, the SMT threads"
	[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/d"
	# The knee is one of the counts, and every point has a bandwidth.
	bad=0
	for id in $nodes; do
		[ -r "$tmp/counts.$id" ] || continue
		knee=$(grep "^  node $id sweep" "$tmp/b.txt" | sed -n 's/.*; knee \([0-9]*\) thread.*/\1/p')
		[ -n "$knee" ] && grep -qx "$knee" "$tmp/counts.$id" || bad=1
	done
	[ $bad -eq 0 ] && [ "$(grep -c '^  node [0-9]* sweep' "$tmp/b.txt")" -eq "$nn" ]
	ok $? "the text names a knee per node, one of the thread counts"
	! grep -q '"bytes_per_s":[[:space:]]*null' "$tmp/b.json"; ok $? "every point has a bandwidth"
	"$NODEAUDIT" bench --sweep --dry-run --format json -o "$tmp/d.json" 2>/dev/null
	printf '{"bench":{"sweep":null},"gaps":[{"fact":"bench.bandwidth.bytes_per_s"},{"fact":"<any>"},{"fact":"<any>"}]}' >"$tmp/w.json"
	grep -q '"sweep":[[:space:]]*null' "$tmp/d.json" && grep -q '"fact":[[:space:]]*"bench.sweep"' "$tmp/d.json"
	ok $? "--dry-run: the sweep is null, with a gap"
else
	echo "ok 1 - bench --sweep # SKIP no /sys or /proc here"; n=1
fi

# plan --bench: a hand-written sweep for numa-2node (7 worker cores per node):
# node 0's knee 4 is below them, node 1's 8 is not.  -t is the knee, -tb
# the 7 cores (prompt processing wants them all); two workers: no mmap
# (-lm none, today's syntax: no llama-server asked for a --sysroot).
printf '{"schema":"nodeaudit.bench/1","bench":{"sweep":{"nodes":[{"node":0,"points":[{"threads":1,"bytes_per_s":1e10},{"threads":4,"bytes_per_s":2e10},{"threads":8,"bytes_per_s":2.05e10}],"knee_threads":4},{"node":1,"knee_threads":8}]}}}' >"$tmp/sweep.json"
"$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/numa-2node" --bench "$tmp/sweep.json" --runtime llama.cpp \
	--format json -o "$tmp/p.json"; ok $? "plan --bench runs"
printf '{"workers":[{"node":0,"threads":4,"threads_from":"bench knee","command":["numactl","--physcpubind=1-7","--membind=0","--","llama-server","-m","<model.gguf>","-t","4","-tb","7","-lm","none","--numa","numactl"]},{"node":1,"threads":7,"threads_from":{"$absent":true}}]}' >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/p.json"; ok $? "the knee below the cores is -t; the one above is not"
grep -q 'node 0: -t 4, not 7: bench --sweep measured' "$tmp/p.json" && grep -q 'node 1: the measured knee (8 threads) is not below' "$tmp/p.json"
ok $? "the notes say so"
# A 'check --bench --bench-sweep' report carries the knee in facts.bench:
# one node of 4 single-thread cores, one reserved, knee 2.
printf '{"schema":"nodeaudit.report/1","facts":{"cpu":{"online":"0-3","hybrid":false,"core_cpus":["0","1","2","3"]},"numa":{"nodes":[{"id":0,"cpus":"0-3","memory_bytes":8589934592}]},"bench":{"sweep":{"nodes":[{"node":0,"knee_threads":2,"knee_bytes_per_s":1.5e10}]}}},"findings":[]}' >"$tmp/report.json"
"$NODEAUDIT" plan --report "$tmp/report.json" --runtime vllm --format json -o "$tmp/r.json"
printf '{"workers":[{"node":0,"cpus":"1-3","threads":2,"threads_from":"bench knee"}],"env":{"VLLM_CPU_OMP_THREADS_BIND":"1-3"}}' >"$tmp/w.json"
"$JSUBSET" "$tmp/w.json" "$tmp/r.json" && grep -q 'at 2 threads, 15.0 GB/s' "$tmp/r.json"
ok $? "plan --report: a check report's sweep gives the knee, with its bandwidth"
printf '{"schema":"nodeaudit.bench/1","bench":{"nodes":[]}}' >"$tmp/nosweep.json"
"$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/numa-2node" --bench "$tmp/nosweep.json" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "has no thread sweep" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "a bench document without a sweep: exit 3, one line"
echo "1..$n"
[ $fail -eq 0 ]
