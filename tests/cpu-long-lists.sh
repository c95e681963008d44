#!/bin/sh
# cpu-long-lists.sh - a CPU list in the facts is whole however long it is.
# The machine: 2048 CPUs, one core each, in two packages that interleave
# (package 0 the even CPUs, package 1 the odd ones, as on a machine whose
# firmware numbers the sockets' CPUs alternately), an L3 per package; the
# topology files as a kernel since 5.14 writes them (package_cpus_list is a
# binary attribute there, not cut at a page: 4565 bytes for 1024 CPUs).
# cpu.package_cpus and cpu.caches.l3.instance_cpus must name every CPU of
# each (a 4 KB buffer once cut them after CPU 1859, and the drawing then
# left out 188 cores and both NUMA nodes).  Skips (77) without python3.
set -u
: "${NODEAUDIT:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/longlists.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/root" <<'PY' || exit 99
import os, sys
root = sys.argv[1]
n = 2048
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
pkg = [list(range(0, n, 2)), list(range(1, n, 2))]
for x in range(n):
    t = "sys/devices/system/cpu/cpu%d/" % x
    p = pkg[x % 2]
    put(t + "topology/physical_package_id", str(x % 2))
    put(t + "topology/core_id", str(x // 2))
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
for f in ("online", "present", "possible"):
    put("sys/devices/system/cpu/" + f, "0-%d" % (n - 1))
for i, p in enumerate(pkg):
    put("sys/devices/system/node/node%d/cpulist" % i, lst(p))
    put("sys/devices/system/node/node%d/cpumap" % i, mask(p))
put("sys/devices/system/node/online", "0-1")
put("sys/devices/system/node/possible", "0-1")
PY

"$NODEAUDIT" --sysroot "$tmp/root" probe --format svg >"$tmp/out.svg" 2>/dev/null
"$NODEAUDIT" --sysroot "$tmp/root" probe --format json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] || { echo "not ok 1 - probe exit $rc"; sed 's/^/#   /' "$tmp/err" | head -n 3; echo "1..1"; exit 1; }

python3 - "$tmp/out.json" "$tmp/out.svg" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
svg = open(sys.argv[2]).read()
n, fails, k = 2048, 0, 0
want = [",".join(str(x) for x in range(r, n, 2)) for r in (0, 1)]
def check(label, got):
    global fails, k
    k += 1
    if got == want:
        print("ok %d - %s: both lists whole (%d bytes each)" % (k, label, len(want[0])))
    else:
        fails += 1
        print("not ok %d - %s: %s" % (k, label, [(len(g), g[-24:]) for g in got or []]))
cpu = d.get("cpu") or {}
check("cpu.package_cpus", cpu.get("package_cpus"))
check("cpu.caches.l3.instance_cpus", ((cpu.get("caches") or {}).get("l3") or {}).get("instance_cpus"))
k += 1
nodes = [nd.get("cpus") for nd in (d.get("numa") or {}).get("nodes") or []]
if nodes == want:
    print("ok %d - numa.nodes[].cpus whole" % k)
else:
    fails += 1
    print("not ok %d - numa.nodes[].cpus: %s" % (k, [len(x or "") for x in nodes]))
# The drawing: every core, each package with its node.
k += 1
parts = re.findall(r'data-part="([a-z-]+)"', svg)
counts = {p: parts.count(p) for p in ("package", "numa-node", "core", "thread")}
if counts == {"package": 2, "numa-node": 2, "core": n, "thread": n}:
    print("ok %d - the drawing: 2 packages, 2 NUMA nodes, %d cores and threads" % (k, n))
else:
    fails += 1
    print("not ok %d - the drawing: %s" % (k, counts))
print("1..%d" % k)
sys.exit(1 if fails else 0)
PY
