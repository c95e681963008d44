#!/bin/sh
# kubernetes.sh - check --format nfd, plan --format kubelet and
# contrib/kubernetes, on every fixture sysroot (tests/fixtures/*/ with sys/
# or proc/), the real-machine captures when present (HACKING), and a
# synthetic 64-node machine made here (16 Intel packages of 4 SNC nodes):
#   the NFD file: at most 64 KiB (NFD's limit), one expiry directive (RFC 3339,
#     after the audit, EXPIRY later) before any label, no other "# +" line,
#     every label NFD_PREFIX + a name and a value of Kubernetes' label syntax,
#     no key twice, and the labels equal to the facts they come from;
#   the kubelet fragment: YAML (python3-yaml), reservedSystemCPUs equal to the
#     plan's housekeeping CPUs (plan --format json), reservedMemory adding up
#     to kubeReserved + systemReserved + evictionHard, the Topology and Memory
#     Managers off past the kubelet's NUMA limits (a node id above 63, more
#     than 8 nodes), and the kubelet's own checks (tests/kubelet-validate.py,
#     each rule with the kubelet's file and function) on every fragment,
#     hwloc's nvidiagpunumanodes and 64-node captures among them;
#   the manifests: YAML, the DaemonSet's mounts read-only and its script run
#     once here against a fixture; kubectl's client-side checks where kubectl
#     is installed (kustomize offline; create --dry-run=client, which needs an
#     API server, is skipped without one).
# Skips (77) without python3.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 77; }
top=$(cd "$top_srcdir" && pwd)
shared=${NODEAUDIT_SHARED:-$top/../shared}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubernetes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
yaml=1
python3 -c 'import yaml' 2>/dev/null || yaml=0

# The validators (python3; the YAML ones need python3-yaml).
cat >"$tmp/nfd.py" <<'EOF'
import datetime, json, re, sys
path, report = sys.argv[1], json.load(open(sys.argv[2]))
want_expiry = int(sys.argv[3])
PREFIX = "nodeaudit.feature.node.kubernetes.io/"
NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")
DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
data = open(path, "rb").read()
bad = []
if len(data) > 65536:
    bad.append("%d bytes, above NFD's 65536" % len(data))
if not data.endswith(b"\n"):
    bad.append("no final newline")
text = data.decode("ascii")
labels, expiry = {}, []
for line in text.split("\n")[:-1]:
    if line.startswith("# +"):
        if not line.startswith("# +expiry-time="):
            bad.append("unknown directive: " + line)
        elif labels:
            bad.append("the expiry directive comes after labels")
        expiry.append(line[len("# +expiry-time="):])
        continue
    if line.startswith("#"):
        continue
    key, eq, value = line.partition("=")
    prefix, slash, name = key.rpartition("/")
    if not eq or not slash:
        bad.append("not prefix/name=value: " + line)
        continue
    if prefix + "/" != PREFIX or len(prefix) > 253 or not DNS.match(prefix):
        bad.append("prefix: " + line)
    if not NAME.match(name):
        bad.append("name: " + line)
    if not NAME.match(value):
        bad.append("value: " + line)
    if name in labels:
        bad.append("twice: " + name)
    labels[name] = value
if len(expiry) != 1:
    bad.append("%d expiry directives" % len(expiry))
else:
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    e = datetime.datetime.strptime(expiry[0], fmt)
    a = datetime.datetime.strptime(report["host"]["collected_at"], fmt)
    if (e - a).total_seconds() != want_expiry:
        bad.append("expiry %s is not the audit time %s + %d s" % (expiry[0], report["host"]["collected_at"], want_expiry))

# The labels are the facts (an unknown fact gives no label).
facts = report["facts"]
def get(p):
    v = facts
    for k in p.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v
def same(name, v):
    if v is None or (isinstance(v, float) and v != int(v)):
        if name in labels:
            bad.append("%s=%s for an unknown fact" % (name, labels[name]))
        return
    if isinstance(v, bool):
        return
    if labels.get(name) != str(int(v) if isinstance(v, (int, float)) else v):
        bad.append("%s=%s, the fact is %r" % (name, labels.get(name), v))
for name, p in (("cpu.sockets", "cpu.packages"), ("cpu.cores", "cpu.cores"), ("cpu.threads", "cpu.threads"),
                ("numa.nodes", "numa.node_count"), ("memory.channels.total", "memory.channels.total"),
                ("memory.channels.populated", "memory.channels.populated"), ("memory.ecc", "memory.ecc.mode")):
    same(name, get(p))
smt = get("cpu.smt.active")
if isinstance(smt, bool) and labels.get("cpu.smt") != ("on" if smt else "off"):
    bad.append("cpu.smt=%s, the fact is %r" % (labels.get("cpu.smt"), smt))
if smt is None and "cpu.smt" in labels:
    bad.append("cpu.smt for an unknown fact")
acc = get("pci.accelerators")
same("pci.accelerators", len(acc) if isinstance(acc, list) else None)
isa = get("cpu.isa") or []
for f in ("avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16", "sve", "i8mm"):
    if (f in isa) != (labels.get("cpu.isa." + f) == "true"):
        bad.append("cpu.isa.%s=%s, cpu.isa has it: %s" % (f, labels.get("cpu.isa." + f), f in isa))
summ = report["summary"]
worst = "fail" if summ["fail"] else "warn" if summ["warn"] else "unknown" if summ["unknown"] else "pass"
if labels.get("audit.status") != worst:
    bad.append("audit.status=%s, the summary says %s" % (labels.get("audit.status"), worst))
for w in sys.argv[4:]:
    k, _, v = w.partition("=")
    if v == "-":
        if k in labels:
            bad.append("%s=%s, expected no such label" % (k, labels[k]))
    elif labels.get(k) != v:
        bad.append("%s=%s, expected %s" % (k, labels.get(k), v))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
EOF
cat >"$tmp/kubelet.py" <<'EOF'
import json, re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
plan = json.load(open(sys.argv[2]))
report = json.load(open(sys.argv[3]))
bad = []
def mi(q):
    m = re.match(r"^([0-9]+)Mi$", str(q))
    if not m:
        bad.append("not a whole Mi quantity: %r" % (q,))
        return 0
    return int(m.group(1))
if not isinstance(doc, dict):
    bad.append("not a mapping")
    doc = {}
if doc.get("apiVersion") != "kubelet.config.k8s.io/v1beta1" or doc.get("kind") != "KubeletConfiguration":
    bad.append("apiVersion/kind: %r %r" % (doc.get("apiVersion"), doc.get("kind")))
house = (plan.get("housekeeping") or {}).get("cpus") or ""
pol = doc.get("cpuManagerPolicy")
if pol == "static":
    if not house or doc.get("reservedSystemCPUs") != house:
        bad.append("reservedSystemCPUs %r, the plan's housekeeping CPUs %r" % (doc.get("reservedSystemCPUs"), house))
elif pol == "none":
    if house:
        bad.append("cpuManagerPolicy none with housekeeping CPUs %r" % house)
    if "reservedSystemCPUs" in doc:
        bad.append("reservedSystemCPUs without the static policy")
else:
    bad.append("cpuManagerPolicy %r" % pol)
opts = doc.get("cpuManagerPolicyOptions") or {}
known = {"full-pcpus-only", "distribute-cpus-across-numa", "prefer-align-cpus-by-uncorecache"}
for k, v in opts.items():
    if k not in known or v != "true":
        bad.append("cpuManagerPolicyOptions %s: %r" % (k, v))
if "distribute-cpus-across-numa" in opts and "prefer-align-cpus-by-uncorecache" in opts:
    bad.append("distribute-cpus-across-numa with prefer-align-cpus-by-uncorecache (the kubelet refuses both)")
smt = ((report["facts"].get("cpu") or {}).get("smt") or {}).get("active")
if pol == "static" and (smt is True) != ("full-pcpus-only" in opts):
    bad.append("full-pcpus-only %r with SMT %r" % ("full-pcpus-only" in opts, smt))
nodes = (report["facts"].get("numa") or {}).get("nodes") or []
cpu_nodes = [x["id"] for x in nodes if isinstance(x.get("cpu_count"), int) and x["cpu_count"] > 0]
count = (report["facts"].get("numa") or {}).get("node_count")
topo = doc.get("topologyManagerPolicy")
topts = doc.get("topologyManagerPolicyOptions") or {}
# The managers stay off past the kubelet's NUMA limits: a node id above 63
# (memory-only nodes too), more than 8 nodes.
ids = [x["id"] for x in nodes if isinstance(x.get("id"), int)]
off = bool(ids) and (max(ids) > 63 or (isinstance(count, int) and count > 8))
if len(cpu_nodes) > 1 and topo != ("none" if off else "restricted"):
    bad.append("topologyManagerPolicy %r on %d nodes with CPUs (ids up to %r, %r nodes)"
               % (topo, len(cpu_nodes), max(ids) if ids else None, count))
if "max-allowable-numa-nodes" in topts:
    bad.append("max-allowable-numa-nodes on %r nodes" % count)
if off and doc.get("memoryManagerPolicy") != "None":
    bad.append("memoryManagerPolicy %r past the kubelet's NUMA limits" % doc.get("memoryManagerPolicy"))
if off and not any(("0-63" in n or "8 NUMA nodes" in n) for n in open(sys.argv[1]).read().replace("\n#", "").split("Note:")[1:]):
    bad.append("no note says why the managers are off")
kube = mi((doc.get("kubeReserved") or {}).get("memory"))
system = mi((doc.get("systemReserved") or {}).get("memory"))
evict = mi((doc.get("evictionHard") or {}).get("memory.available"))
if doc.get("memoryManagerPolicy") == "Static":
    resv = doc.get("reservedMemory") or []
    total = sum(mi(r["limits"]["memory"]) for r in resv)
    if not resv or total != kube + system + evict:
        bad.append("reservedMemory adds up to %dMi, kubeReserved + systemReserved + evictionHard = %dMi"
                   % (total, kube + system + evict))
    for r in resv:
        if r.get("numaNode") not in cpu_nodes:
            bad.append("reservedMemory on node %r, not a node with CPUs %r" % (r.get("numaNode"), cpu_nodes))
elif "reservedMemory" in doc:
    bad.append("reservedMemory without the Static policy")
for w in sys.argv[4:]:
    k, _, v = w.partition("=")
    cur = doc
    for part in k.split("/"):
        cur = cur.get(part) if isinstance(cur, dict) else None
    if str(cur) != v:
        bad.append("%s is %r, expected %s" % (k, cur, v))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
EOF

# The mirror of the kubelet's own checks (tests/kubelet-validate.py).
cp "$top/tests/kubelet-validate.py" "$tmp/kvalidate.py"

# The validators run once for all cases (run_queued, below): python3 takes
# about 0.3 s to start on a small VM, and there are 150 cases.
# queue VALIDATOR NAME ERRFILE ARG...: one case of nfd.py or kubelet.py.
: >"$tmp/queue"
queue() {
	v=$1 qn=$2 qe=$3
	shift 3
	printf '%s\t%s\t%s\t%s\n' "$v" "$qn" "$qe" "$*" >>"$tmp/queue"
}
# run_queued: each queued case with its own sys.argv, its output and exit
# status as if run alone (an exception fails the case with its traceback);
# a failure shows the validator's lines, then the tool's errors.
run_queued() {
	[ -s "$tmp/queue" ] || return 0
	python3 - "$tmp" "$tmp/queue" >"$tmp/results" 2>&1 <<'EOF'
import contextlib, io, os, sys, traceback
tmp, queue = sys.argv[1], sys.argv[2]
code = {}
for line in open(queue):
    v, name, err, args = line.rstrip("\n").split("\t")
    path = os.path.join(tmp, v + ".py")
    if v not in code:
        code[v] = compile(open(path).read(), path, "exec")
    out = io.StringIO()
    sys.argv = [path] + args.split()
    rc = 0
    with contextlib.redirect_stdout(out):
        try:
            exec(code[v], {"__name__": "__main__"})
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
        except Exception:
            rc = 1
            print("".join("#   " + l + "\n" for l in traceback.format_exc().splitlines()), end="")
    print(("ok\t" if rc == 0 else "not ok\t") + name)
    if rc:
        sys.stdout.write(out.getvalue())
        for l in open(err):
            print("#   " + l.rstrip("\n"))
EOF
	while IFS= read -r line; do
		case $line in
		"ok	"*) ok "${line#ok	}" ;;
		"not ok	"*) nok "${line#not ok	}" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$tmp/results"
	: >"$tmp/queue"
}

# audit NAME SYSROOT [LABEL=VALUE ... [-- KUBELET/KEY=VALUE ...]]: the NFD
# file and the kubelet fragment of SYSROOT, with what they must say (each
# case in a directory of its own: the validators run later).
cases=0
audit() {
	name=$1 root=$2
	shift 2
	nfdwant="" kwant=""
	while [ $# -gt 0 ]; do
		[ "$1" = -- ] && { shift; kwant="$*"; break; }
		nfdwant="$nfdwant $1"
		shift
	done
	cases=$((cases + 1))
	c=$tmp/case$cases
	mkdir "$c"
	"$NODEAUDIT" --sysroot "$root" check --format json >"$c/r.json" 2>"$c/err"
	rc=$?
	if [ $rc = 3 ]; then skip "$name" "not a sysroot the check can read (exit 3)"; return; fi
	if [ $rc -gt 3 ]; then nok "$name: check --format json exited $rc"; sed 's/^/#   /' "$c/err"; return; fi
	"$NODEAUDIT" --sysroot "$root" check --format nfd -o "$c/nfd" 2>>"$c/err"
	rc=$?
	if [ $rc -le 2 ]; then
		# shellcheck disable=SC2086 # the wanted labels are words
		queue nfd "$name: NFD file ($(wc -c <"$c/nfd") bytes, $(grep -vc '^#' "$c/nfd") labels)" "$c/err" \
			"$c/nfd" "$c/r.json" "${EXPIRY:-10800}" $nfdwant
	else
		nok "$name: NFD file (exit $rc)"; sed 's/^/#   /' "$c/err"
	fi
	"$NODEAUDIT" plan --report "$c/r.json" --format json >"$c/plan.json" 2>"$c/perr" &&
		"$NODEAUDIT" plan --report "$c/r.json" --format kubelet >"$c/kubelet.yaml" 2>>"$c/perr"
	rc=$?
	if [ $yaml = 0 ]; then skip "$name: kubelet fragment" "python3-yaml is not installed"; return; fi
	if [ $rc = 0 ]; then
		# shellcheck disable=SC2086
		queue kubelet "$name: kubelet fragment agrees with the plan" "$c/perr" \
			"$c/kubelet.yaml" "$c/plan.json" "$c/r.json" $kwant
		queue kvalidate "$name: the kubelet's own checks accept the fragment" "$c/perr" \
			"$c/kubelet.yaml" "$c/r.json"
	else
		nok "$name: kubelet fragment (exit $rc)"; sed 's/^/#   /' "$c/perr"
	fi
}

# Every fixture sysroot.
for d in "$top"/tests/fixtures/*/; do
	d=${d%/}
	[ -d "$d/sys" ] || [ -d "$d/proc" ] || continue
	audit "fixture ${d##*/}" "$d"
done

# Machines whose facts the fixtures' READMEs give.
audit "numa-2node: 2 packages of one node each" "$top/tests/fixtures/numa-2node" \
	cpu.sockets=2 numa.nodes=2 numa.nodes-per-package=1 numa.mode=- cpu.smt=off \
	-- reservedSystemCPUs=0,8 topologyManagerPolicy=restricted memoryManagerPolicy=Static \
	cpuManagerPolicyOptions/distribute-cpus-across-numa=true
audit "cpu-rpl-laptop: hybrid, 4 P-cores with SMT and 8 E-cores" "$top/tests/fixtures/cpu-rpl-laptop" \
	cpu.hybrid=true cpu.cores.performance=4 cpu.cores.efficiency=8 cpu.smt=on numa.nodes=1 \
	-- cpuManagerPolicy=static topologyManagerPolicy=none memoryManagerPolicy=None \
	cpuManagerPolicyOptions/full-pcpus-only=true
audit "kernel-tuned-server: huge pages reserved" "$top/tests/fixtures/kernel-tuned-server" \
	hugepages-2Mi=1024 hugepages-1Gi=4
audit "cpu-arm-neoverse-v2: the ARM features llama.cpp picks its builds by" \
	"$top/tests/fixtures/cpu-arm-neoverse-v2" \
	cpu.isa.dotprod=true cpu.isa.fp16=true cpu.isa.sve=true cpu.isa.sve2=true cpu.isa.i8mm=true \
	cpu.isa.bf16=true cpu.isa.sme=- cpu.isa.avx512f=-
audit "cpu-arm-thunderx2: NEON alone, no ARM feature label" "$top/tests/fixtures/cpu-arm-thunderx2" \
	cpu.isa.dotprod=- cpu.isa.fp16=- cpu.isa.sve=-
audit "pci-8gpu-switches: 8 NVIDIA 3D controllers" "$top/tests/fixtures/pci-8gpu-switches" \
	pci.accelerators=8 pci.accelerators.0302_10de=8
audit "pci-gpu-downtrained-x4: a GPU at x4 of x16" "$top/tests/fixtures/pci-gpu-downtrained-x4" \
	pci.accelerators.link=downtrained pci.accelerators.link-downtrained=1

# The Memory Manager's sum is named only where the fragment sets its Static policy.
for fx in numa-2node:1 cpu-vm:0; do
	"$NODEAUDIT" --sysroot "$top/tests/fixtures/${fx%:*}" plan --format kubelet >"$tmp/mm" 2>/dev/null
	want=${fx#*:}
	got=$(sed -n 's/^# //p' "$tmp/mm" | tr '\n' ' ' | grep -c 'requires reservedMemory to add up')
	static=$(grep -c '^memoryManagerPolicy: "Static"' "$tmp/mm")
	if [ "$got" = "$want" ] && [ "$static" = "$want" ]; then
		ok "${fx%:*}: the reservations comment names reservedMemory only with the Static policy"
	else
		nok "${fx%:*}: reservedMemory named $got, Static $static (want $want)"; grep -n 'Reserv\|reservedMemory\|memoryManager' "$tmp/mm" | sed 's/^/#   /'
	fi
done

# hwloc's captures past the kubelet's NUMA limits (tests/fixtures/hwloc/README).
audit "hwloc nvidiagpunumanodes: NUMA ids 0, 8 and 250-255 (GPU memory)" \
	"$top/tests/fixtures/hwloc/nvidiagpunumanodes.tar.bz2" numa.nodes=8 \
	-- cpuManagerPolicy=static topologyManagerPolicy=none memoryManagerPolicy=None reservedMemory=None
audit "hwloc 256ia64-64n2s2c: 64 NUMA nodes" "$top/tests/fixtures/hwloc/256ia64-64n2s2c.tar.bz2" \
	numa.nodes=64 cpu.threads=256 \
	-- cpuManagerPolicy=static topologyManagerPolicy=none memoryManagerPolicy=None \
	topologyManagerPolicyOptions=None cpuManagerPolicyOptions/distribute-cpus-across-numa=None

# The real captures (skipped when absent).
real=$shared/fixtures/real/sysfs
if [ -d "$real" ]; then
	for f in "$real"/*/*.tar.bz2 "$real"/*/*.tar.gz; do
		[ -f "$f" ] || continue
		audit "real ${f##*/}" "$f"
	done
	f=$real/hwloc__16amd64-8n2c/16amd64-8n2c.tar.bz2
	[ -f "$f" ] && audit "real 16amd64-8n2c: 8 Opterons, one node each" "$f" \
		cpu.sockets=8 numa.nodes=8 numa.nodes-per-package=1 numa.mode=nps1 \
		-- topologyManagerPolicy=restricted topologyManagerPolicyOptions/prefer-closest-numa-nodes=None
	f=$real/util-linux__x86_64-64cpu/x86_64-64cpu.tar.gz
	[ -f "$f" ] && audit "real x86_64-64cpu: 4 packages in 3 nodes" "$f" \
		cpu.sockets=4 numa.mode=unknown numa.nodes-per-package=-
else
	skip "real captures" "$real absent"
fi

# A synthetic 64-node machine: 16 Intel packages, each split in 4 SNC nodes
# of 2 cores x 2 threads (256 CPUs), distances 10 / 12 in a package / 21,
# 4 GiB per node, L3 per node, the AMX and AVX-512 flags.
python3 - "$tmp/snc64" <<'EOF'
import os, sys
root = sys.argv[1]
def w(p, s):
    p = os.path.join(root, p.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(s + "\n")
P, N, C, T = 16, 4, 2, 2
cpus = P * N * C * T
nodes = P * N
flags = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c avx512f avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile amx_int8 amx_bf16 lm"
ci = []
w("/sys/devices/system/cpu/online", "0-%d" % (cpus - 1))
w("/sys/devices/system/cpu/possible", "0-%d" % (cpus - 1))
w("/sys/devices/system/node/online", "0-%d" % (nodes - 1))
w("/sys/devices/system/node/possible", "0-%d" % (nodes - 1))
w("/sys/devices/system/node/has_cpu", "0-%d" % (nodes - 1))
for node in range(nodes):
    pkg = node // N
    first = node * C * T
    cl = "%d-%d" % (first, first + C * T - 1)
    w("/sys/devices/system/node/node%d/cpulist" % node, cl)
    w("/sys/devices/system/node/node%d/distance" % node, " ".join(
        "10" if o == node else "12" if o // N == pkg else "21" for o in range(nodes)))
    w("/sys/devices/system/node/node%d/meminfo" % node,
      "Node %d MemTotal:        4194304 kB\nNode %d MemFree:         4000000 kB" % (node, node))
    for core in range(C):
        sib = [first + core * T + t for t in range(T)]
        for cpu in sib:
            d = "/sys/devices/system/cpu/cpu%d/" % cpu
            pfirst = pkg * N * C * T
            w(d + "online", "1")
            w(d + "topology/physical_package_id", str(pkg))
            w(d + "topology/core_id", str((node % N) * C + core))
            w(d + "topology/thread_siblings_list", "%d-%d" % (sib[0], sib[-1]))
            w(d + "topology/core_cpus_list", "%d-%d" % (sib[0], sib[-1]))
            w(d + "topology/package_cpus_list", "%d-%d" % (pfirst, pfirst + N * C * T - 1))
            w(d + "topology/core_siblings_list", "%d-%d" % (pfirst, pfirst + N * C * T - 1))
            w(d + "cache/index3/level", "3")
            w(d + "cache/index3/type", "Unified")
            w(d + "cache/index3/size", "32768K")
            w(d + "cache/index3/shared_cpu_list", cl)
            ci.append("processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                      "model name\t: Synthetic Xeon (16 sockets, SNC4)\nphysical id\t: %d\nsiblings\t: %d\n"
                      "core id\t\t: %d\ncpu cores\t: %d\nflags\t\t: %s\n" % (cpu, pkg, N * C * T, (node % N) * C + core, N * C, flags))
w("/proc/cpuinfo", "\n".join(ci))
w("/proc/meminfo", "MemTotal:       %d kB\nMemFree:        %d kB" % (nodes * 4194304, nodes * 4000000))
EOF
audit "synthetic 64 nodes: 16 Intel packages in SNC4" "$tmp/snc64" \
	cpu.sockets=16 cpu.cores=128 cpu.threads=256 cpu.smt=on numa.nodes=64 numa.nodes-per-package=4 \
	numa.mode=snc4 cpu.isa.amx_int8=true cpu.isa.avx512_bf16=true \
	-- topologyManagerPolicy=none topologyManagerPolicyOptions=None memoryManagerPolicy=None \
	cpuManagerPolicyOptions/full-pcpus-only=true cpuManagerPolicyOptions/distribute-cpus-across-numa=None \
	systemReserved/memory=2622Mi
# The same machine with every remote node at one distance: the nodes no
# longer show which package they share, so the split is unknown.
for f in "$tmp"/snc64/sys/devices/system/node/node*/distance; do
	sed 's/12/21/g' "$f" >"$f.new" && mv "$f.new" "$f"
done
audit "synthetic 64 nodes, flat distances: the split is unknown" "$tmp/snc64" \
	numa.nodes=64 numa.mode=unknown numa.nodes-per-package=- \
	-- topologyManagerPolicyOptions/prefer-closest-numa-nodes=None
# And as a guest (the CPU's hypervisor flag): a VM's nodes are its
# hypervisor's, SNC and NPS the host's firmware settings: no mode label.
sed 's/^flags\t\t: /&hypervisor /' "$tmp/snc64/proc/cpuinfo" >"$tmp/cpuinfo" && mv "$tmp/cpuinfo" "$tmp/snc64/proc/cpuinfo"
audit "synthetic 64 nodes in a VM: no SNC/NPS mode" "$tmp/snc64" numa.nodes=64 numa.mode=-
run_queued

# A value outside the label syntax (a profile named with a blank) is left
# out with a comment, not changed into something else.
printf '{"name": "my profile", "extends": "base"}\n' >"$tmp/profile.json"
"$NODEAUDIT" --sysroot "$top/tests/fixtures/numa-2node" check --profile "$tmp/profile.json" --format nfd >"$tmp/nfd" 2>"$tmp/err"
if grep -qx '# audit.profile left out: the value is not a valid label value (1 to 63 of A-Z a-z 0-9 . _ -, alphanumeric at both ends)' "$tmp/nfd" &&
   ! grep -q 'audit.profile=' "$tmp/nfd" && grep -q 'audit.status=' "$tmp/nfd"; then ok "an invalid label value is left out with a comment"
else nok "an invalid label value is left out with a comment"; sed 's/^/#   /' "$tmp/nfd" "$tmp/err"; fi
# The expiry follows --nfd-expiry and the audit time (SOURCE_DATE_EPOCH pins it).
SOURCE_DATE_EPOCH=1700000000 "$NODEAUDIT" --sysroot "$tmp/snc64" check --format nfd --nfd-expiry 2d >"$tmp/nfd" 2>"$tmp/err"
if grep -qx '# +expiry-time=2023-11-16T22:13:20Z' "$tmp/nfd"; then ok "--nfd-expiry 2d: expiry two days after the audit"
else nok "--nfd-expiry 2d"; grep '^# +' "$tmp/nfd" | sed 's/^/#   /'; fi
for bad in 10s 31d 0 -1h 3x ""; do
	"$NODEAUDIT" --sysroot "$tmp/snc64" check --format nfd --nfd-expiry "$bad" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 3 ] && grep -q -- "--nfd-expiry takes a duration" "$tmp/err"; then ok "--nfd-expiry '$bad' refused"
	else nok "--nfd-expiry '$bad' refused (exit $rc)"; sed 's/^/#   /' "$tmp/err"; fi
done

# The 64 KiB limit: a saved probe of 6000 nodes with a bench figure each
# would need about 350 KB of per-node labels; the file stays within 65536
# bytes, keeps the machine-wide labels and says how many it left out.
python3 - "$tmp/snc64" "$tmp/big.json" "$NODEAUDIT" <<'EOF'
import json, subprocess, sys
probe = json.loads(subprocess.run([sys.argv[3], "--sysroot", sys.argv[1], "probe", "--format", "json"],
                                  capture_output=True, check=False).stdout)
probe["bench"] = {"bandwidth": {"bytes_per_s": 9.5e11},
                  "nodes": [{"node": i, "threads": 2, "cpus": "0", "bytes_per_s": 1.2345e10 + i} for i in range(6000)]}
json.dump(probe, open(sys.argv[2], "w"))
EOF
"$NODEAUDIT" check --facts "$tmp/big.json" --format nfd -o "$tmp/nfd" 2>"$tmp/err"
"$NODEAUDIT" check --facts "$tmp/big.json" --format json >"$tmp/r.json" 2>>"$tmp/err"
if python3 "$tmp/nfd.py" "$tmp/nfd" "$tmp/r.json" 10800 numa.nodes=64 bench.membw-mbps=950000 \
	bench.membw-mbps.node0=12345 >"$tmp/out" && grep -q "^# [0-9]* labels left out: the file would pass NFD's 65536-byte limit" "$tmp/nfd" &&
   [ "$(wc -c <"$tmp/nfd")" -le 65536 ] && [ "$(wc -c <"$tmp/nfd")" -gt 60000 ]; then
	ok "64 KiB: $(wc -c <"$tmp/nfd") bytes, $(sed -n 's/^# \([0-9]*\) labels left out.*/\1/p' "$tmp/nfd") per-node labels left out"
else
	nok "64 KiB limit ($(wc -c <"$tmp/nfd") bytes)"; cat "$tmp/out"; tail -n 2 "$tmp/nfd" | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/err"
fi

# The manifests.
k=$top/contrib/kubernetes
if [ $yaml = 1 ]; then
	if python3 - "$k/nodeaudit-nfd.yaml" "$k/kustomization.yaml" >"$tmp/out" 2>&1 <<'EOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kust = yaml.safe_load(open(sys.argv[2]))
bad = []
kinds = {d["kind"]: d for d in docs}
if sorted(kinds) != ["DaemonSet", "Namespace", "ServiceAccount"]:
    bad.append("kinds %r" % sorted(kinds))
if any(d["kind"].startswith(("Role", "ClusterRole")) for d in docs):
    bad.append("RBAC objects")
ns = kinds["Namespace"]["metadata"]["name"]
sa, ds = kinds["ServiceAccount"], kinds["DaemonSet"]
if sa["metadata"]["namespace"] != ns or ds["metadata"]["namespace"] != ns:
    bad.append("namespaces differ")
if sa.get("automountServiceAccountToken") is not False:
    bad.append("the service account mounts its token")
if ds["apiVersion"] != "apps/v1":
    bad.append("DaemonSet apiVersion")
spec = ds["spec"]["template"]["spec"]
if spec.get("serviceAccountName") != sa["metadata"]["name"] or spec.get("automountServiceAccountToken") is not False:
    bad.append("pod: service account or its token")
if ds["spec"]["selector"]["matchLabels"] != ds["spec"]["template"]["metadata"]["labels"]:
    bad.append("selector does not match the template's labels")
vols = {v["name"]: v for v in spec["volumes"]}
(c,) = spec["containers"]
sc = c["securityContext"]
if sc.get("privileged") is not False or sc.get("allowPrivilegeEscalation") is not False or \
   sc.get("capabilities", {}).get("drop") != ["ALL"] or sc.get("capabilities", {}).get("add") != ["SYS_PTRACE"] or \
   sc.get("readOnlyRootFilesystem") is not True:
    bad.append("securityContext %r" % sc)
# The host's network namespace (its net.* sysctls), not the host's PIDs or IPC;
# SYS_PTRACE only, to read /host/proc/1/ns/net.
if spec.get("hostPID") or spec.get("hostIPC"):
    bad.append("host PID or IPC namespace")
if spec.get("hostNetwork") is not True:
    bad.append("no hostNetwork: the net.* sysctls would be the pod's")
mounts = {m["name"]: m for m in c["volumeMounts"]}
if set(mounts) != set(vols):
    bad.append("mounts %r, volumes %r" % (sorted(mounts), sorted(vols)))
for name, host, at in (("host-sys", "/sys", "/host/sys"), ("host-proc", "/proc", "/host/proc")):
    if vols[name]["hostPath"]["path"] != host or mounts[name]["mountPath"] != at or mounts[name].get("readOnly") is not True:
        bad.append("%s: not %s read-only at %s" % (name, host, at))
fd = [n for n, v in vols.items() if v.get("hostPath", {}).get("path") == "/etc/kubernetes/node-feature-discovery/features.d"]
if len(fd) != 1 or mounts[fd[0]]["mountPath"] != "/features.d":
    bad.append("features.d hostPath")
script = c["args"][0]
if "--sysroot /host" not in script or "--format nfd" not in script or "-o /features.d/nodeaudit" not in script:
    bad.append("the script does not audit /host into features.d: %r" % script)
if kust.get("resources") != ["nodeaudit-nfd.yaml"] or kust["images"][0]["name"] != c["image"].split(":")[0]:
    bad.append("kustomization")
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
EOF
	then ok "manifests: YAML, RBAC-free, token not mounted, /sys and /proc read-only, features.d hostPath"
	else nok "manifests"; cat "$tmp/out"; fi
	# The DaemonSet's script, run once here: /host is a fixture, features.d
	# a temporary directory, nodeaudit the built one, and sleep ends the loop.
	python3 -c 'import sys, yaml
d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x["kind"] == "DaemonSet"][0]
c = d["spec"]["template"]["spec"]["containers"][0]
print("\n".join("%s=\"%s\"" % (e["name"], e["value"]) for e in c["env"]))
print(c["args"][0])' "$k/nodeaudit-nfd.yaml" >"$tmp/script" 2>&1
	mkdir "$tmp/features.d"
	{ printf 'sleep() { exit 0; }\nnodeaudit() { "$NODEAUDIT" "$@"; }\n'
	  sed "s|--sysroot /host|--sysroot $top/tests/fixtures/numa-2node|; s|/features.d/|$tmp/features.d/|" "$tmp/script"; } >"$tmp/run.sh"
	NODEAUDIT=$NODEAUDIT sh "$tmp/run.sh" >"$tmp/out" 2>&1
	if [ -s "$tmp/features.d/nodeaudit" ] && grep -q '^# +expiry-time=' "$tmp/features.d/nodeaudit" &&
	   grep -q "^nodeaudit: check exited [0-2] at " "$tmp/out" && ! ls -A "$tmp/features.d" | grep -q '^\.'; then
		ok "the DaemonSet's script writes features.d/nodeaudit (and no leftover dot-file)"
	else
		nok "the DaemonSet's script"; sed 's/^/#   /' "$tmp/out" "$tmp/run.sh"
	fi
else
	skip "manifests" "python3-yaml is not installed"
fi
if command -v kubectl >/dev/null 2>&1; then
	if timeout 60 kubectl kustomize "$k" >"$tmp/kust.yaml" 2>"$tmp/err" && grep -q '^kind: DaemonSet' "$tmp/kust.yaml"; then
		ok "kubectl kustomize contrib/kubernetes (offline)"
	else nok "kubectl kustomize contrib/kubernetes"; sed 's/^/#   /' "$tmp/err"; fi
	timeout 30 kubectl create --dry-run=client --validate=false --request-timeout=5s -o name -f "$k/nodeaudit-nfd.yaml" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && [ "$(wc -l <"$tmp/out")" = 3 ]; then ok "kubectl create --dry-run=client"
	elif grep -qi 'connection refused\|unable to recognize\|no such host\|timeout\|dial tcp' "$tmp/err"; then
		skip "kubectl create --dry-run=client" "it needs an API server"
	else nok "kubectl create --dry-run=client (exit $rc)"; sed 's/^/#   /' "$tmp/err"; fi
else
	skip "kubectl" "kubectl is not installed"
fi

echo "1..$n"
[ $fail = 0 ]
