#!/bin/sh
# cpu-long-lists.sh - a CPU list in the facts is whole however long it is.
# The machine: 4096 possible CPUs, the even ones online (2048, one core
# each), in two packages that interleave (package 0 CPUs 0, 4, 8..., package
# 1 CPUs 2, 6, 10..., as on a machine whose firmware numbers the sockets'
# CPUs alternately), an L3 and a NUMA node per package; the files as a
# kernel since 5.14 writes them (the lists are binary attributes there, not
# cut at a page: package_cpus_list is 4.8 KB, cpu/online 9.7 KB).
# cpu.online, cpu.package_cpus, cpu.caches.l3.instance_cpus and the nodes'
# lists must name every CPU (4 KB buffers once cut the first three, and the
# drawing then left out the cores past the cut and both NUMA nodes); the
# drawing must hold every core and both nodes.  Skips (77) without python3.
set -u
: "${NODEAUDIT:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/longlists.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mk() { python3 - "$@" <<'PY'
import os, sys
root, npkg = sys.argv[1], int(sys.argv[2])
n = 4096
def put(rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text + "\n")
lst = lambda s: ",".join(str(x) for x in s)
def mask(s):
    words = [0] * (n // 32)
    for x in s:
        words[x // 32] |= 1 << (x % 32)
    return ",".join("%08x" % w for w in reversed(words))
online = list(range(0, n, 2))
pkg = [list(range(0, n, 4)), list(range(2, n, 4))] if npkg == 2 else [online]
for x in online:
    t = "sys/devices/system/cpu/cpu%d/" % x
    k = (x // 2) % npkg
    p = pkg[k]
    put(t + "online", "1")
    put(t + "topology/physical_package_id", str(k))
    put(t + "topology/core_id", str(x // 4))
    for f in ("core_cpus", "thread_siblings"):
        put(t + "topology/" + f + "_list", str(x))
        put(t + "topology/" + f, mask([x]))
    for f in ("package_cpus", "core_siblings"):
        put(t + "topology/" + f + "_list", lst(p))
        put(t + "topology/" + f, mask(p))
    c = t + "cache/index3/"
    put(c + "level", "3")
    put(c + "type", "Unified")
    put(c + "size", "65536K")
    put(c + "shared_cpu_list", lst(p))
    put(c + "shared_cpu_map", mask(p))
for x in range(1, n, 2):
    put("sys/devices/system/cpu/cpu%d/online" % x, "0")
put("sys/devices/system/cpu/online", lst(online))
put("sys/devices/system/cpu/offline", lst(range(1, n, 2)))
for f in ("present", "possible"):
    put("sys/devices/system/cpu/" + f, "0-%d" % (n - 1))
for i, p in enumerate(pkg):
    put("sys/devices/system/node/node%d/cpulist" % i, lst(p))
    put("sys/devices/system/node/node%d/cpumap" % i, mask(p))
put("sys/devices/system/node/online", "0-%d" % (npkg - 1))
put("sys/devices/system/node/possible", "0-%d" % (npkg - 1))
PY
}
mk "$tmp/root" 2 || exit 99
# The same CPUs in one package and one node: the plan's worker then takes
# every core but the one reserved, a list of 9,682 bytes (cut at 8 KB once).
mk "$tmp/one" 1 || exit 99

"$NODEAUDIT" --sysroot "$tmp/one" plan --format json >"$tmp/plan.json" 2>/dev/null
"$NODEAUDIT" --sysroot "$tmp/one" plan --runtime vllm --format json >"$tmp/vllm.json" 2>/dev/null
"$NODEAUDIT" --sysroot "$tmp/root" probe --format svg >"$tmp/out.svg" 2>/dev/null
"$NODEAUDIT" --sysroot "$tmp/root" probe --format json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] || { echo "not ok 1 - probe exit $rc"; sed 's/^/#   /' "$tmp/err" | head -n 3; echo "1..1"; exit 1; }

python3 - "$tmp/out.json" "$tmp/out.svg" "$tmp/plan.json" "$tmp/vllm.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
svg = open(sys.argv[2]).read()
n, fails, k = 4096, 0, 0
want = [",".join(str(x) for x in range(r, n, 4)) for r in (0, 2)]
def check(label, got, want):
    global fails, k
    k += 1
    if got == want:
        print("ok %d - %s whole (%s bytes)" % (k, label, "+".join(str(len(w)) for w in want)))
    else:
        fails += 1
        print("not ok %d - %s: %s" % (k, label, [(len(g or ""), (g or "")[-24:]) for g in got or []]))
cpu = d.get("cpu") or {}
check("cpu.online", [cpu.get("online")], [",".join(str(x) for x in range(0, n, 2))])
check("cpu.package_cpus", cpu.get("package_cpus"), want)
check("cpu.caches.l3.instance_cpus", ((cpu.get("caches") or {}).get("l3") or {}).get("instance_cpus"), want)
check("numa.nodes[].cpus", [nd.get("cpus") for nd in (d.get("numa") or {}).get("nodes") or []], want)
n //= 2   # the online CPUs, each a core
# The drawing: every core, each package with its node.
k += 1
parts = re.findall(r'data-part="([a-z-]+)"', svg)
counts = {p: parts.count(p) for p in ("package", "numa-node", "core", "thread")}
if counts == {"package": 2, "numa-node": 2, "core": n, "thread": n}:
    print("ok %d - the drawing: 2 packages, 2 NUMA nodes, %d cores and threads" % (k, n))
else:
    fails += 1
    print("not ok %d - the drawing: %s" % (k, counts))
# Each package's <title> names its CPUs whole (the list was cut at 511
# bytes there): the drawing's lines leave them out, the title says them.
k += 1
titles = re.findall(r'<title>(package [0-9]+: CPUs [^<]*)</title>', svg)
twant = ["package %d: CPUs %s, %d cores" % (p, want[p], n // 2) for p in (0, 1)]
if titles == twant:
    print("ok %d - each package's title names its CPUs whole (%d bytes)" % (k, len(want[0])))
else:
    fails += 1
    print("not ok %d - a package's title: %s" % (k, [(len(t), t[-40:]) for t in titles]))
# The plan on one node: one core (CPU 0) reserved for the OS, the worker
# on the 2,047 others, in its cpus, its numactl and its taskset line whole.
k += 1
rest = ",".join(str(x) for x in range(2, 2 * n, 2))
try:
    w = json.load(open(sys.argv[3]))["workers"]
    good = (len(w) == 1 and w[0]["cpus"] == rest and "--physcpubind=%s " % rest in w[0]["numactl"] and
            "taskset -c %s " % rest in w[0]["taskset"])
except (OSError, ValueError, KeyError, TypeError):
    good = False
if good:
    print("ok %d - the plan's worker list, numactl and taskset lines whole (%d bytes)" % (k, len(rest)))
else:
    fails += 1
    print("not ok %d - the plan's CPU list is cut or wrong" % k)
# vLLM's container: --cpuset-cpus holds the ranks' cores and the reserved
# one the API server runs on, every online CPU here.
k += 1
try:
    a = json.load(open(sys.argv[4]))["container"]["docker_args"]
    cs = a[a.index("--cpuset-cpus") + 1]
    good = cs == ",".join(str(x) for x in range(0, 2 * n, 2))
except (OSError, ValueError, KeyError, TypeError, IndexError):
    good, cs = False, ""
if good:
    print("ok %d - vLLM's --cpuset-cpus whole (%d bytes)" % (k, len(cs)))
else:
    fails += 1
    print("not ok %d - vLLM's --cpuset-cpus is cut: ...%s" % (k, cs[-24:]))
print("1..%d" % k)
sys.exit(1 if fails else 0)
PY
