#!/bin/sh
# svg-lstopo.sh - the node drawing holds what lstopo draws, nested as lstopo
# nests it.  For every fixture sysroot (tests/fixtures/*) and every shared
# capture (../shared/fixtures/real/sysfs, when present), lstopo --input DIR
# --of xml (hwloc, an independent reading of the same files) against probe
# --format svg on the same tree: the same packages, NUMA nodes, cores,
# hardware threads and PCI devices (those lstopo keeps by default, and no
# PCI device it leaves out), each drawn once; each thread in its core, each core in its package, each
# package in the group of the NUMA node that spans it, each NUMA node in its
# package or group (or the machine), each PCI device under the same PCI
# bridges and in the same package or group as lstopo's; the drawing is at
# most 1400 px wide for machines of up to 64 CPUs.  A fixture of one subject
# (PCI, memory) is laid over fixtures/cpu-2s-smt first when lstopo cannot
# read it alone, or, where its own CPUs contradict that base's, put on a
# tree made of its own CPUs; a tree lstopo cannot read at all is skipped
# (and counted).
# A PCI bridge lstopo does not know (a capture without the bridge's config
# space) is not asked for.  Skips (77) without lstopo or python3.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
command -v lstopo >/dev/null 2>&1 || command -v lstopo-no-graphics >/dev/null 2>&1 || { echo "# no lstopo: skipped"; exit 77; }
LSTOPO=$(command -v lstopo-no-graphics || command -v lstopo)
src=$(cd "$top_srcdir/tests" && pwd)
shared=${NODEAUDIT_SHARED:-$top_srcdir/../shared}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/svglstopo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
skipped=0

cat >"$tmp/cmp.py" <<'PY'
import sys
import xml.etree.ElementTree as ET

def bits(s):
    """hwloc's bitmap text (0xffffffff,0x0000000f: 32-bit words, high first) as a set.
    hwloc_bitmap_snprintf() leaves a zero word empty between its commas
    (CPU 64 is 0x00000001,,0x0): an empty word is a word of zeros."""
    out, words = set(), s.split(",")
    for i, w in enumerate(reversed(words)):
        v = int(w, 16) if w else 0
        for b in range(32):
            if v >> b & 1:
                out.add(32 * i + b)
    return frozenset(out)

def cpulist(s):
    out = set()
    for part in (s or "").split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return frozenset(out)

def lstopo(path):
    root = ET.parse(path).getroot()
    objs = []
    def walk(e, chain):
        if e.tag != "object":
            for k in e:
                walk(k, chain)
            return
        o = {"type": e.get("type"), "os": e.get("os_index"), "cpus": bits(e.get("cpuset") or "0x0"),
             "busid": e.get("pci_busid"), "chain": chain, "kids": []}
        if chain:
            chain[-1]["kids"].append(o)
        objs.append(o)
        for k in e:
            walk(k, chain + [o])
    walk(root, [])
    return objs

def lst_has_pkgs(o):
    n = 0
    stack = list(o["kids"])
    while stack:
        k = stack.pop()
        n += k["type"] == "Package"
        stack.extend(k["kids"])
    return n >= 2

def lst_where(o, start_self=False):
    """The package, NUMA-spanning group or machine an object sits in."""
    chain = o["chain"] + ([o] if start_self else [])
    for a in reversed(chain):
        if a["type"] == "Package":
            return ("package", a["cpus"])
        if a["type"] == "Group" and lst_has_pkgs(a) and any(k["type"] == "NUMANode" for k in a["kids"]):
            return ("group", a["cpus"])
    return ("machine",)

def ours(path):
    root = ET.parse(path).getroot()
    objs = []
    def walk(e, chain):
        p = e.get("data-part")
        c = chain
        if p:
            o = {"part": p, "e": e, "chain": chain}
            objs.append(o)
            c = chain + [o]
        for k in e:
            walk(k, c)
    walk(root, [])
    return root, objs

def our_where(o):
    for a in reversed(o["chain"]):
        if a["part"] in ("package", "group"):
            return (a["part"], cpulist(a["e"].get("data-cpus")))
    return ("machine",)

DEV = {"nic", "accelerator", "nvme", "storage", "network", "display", "device"}
BRIDGE = {"bridge", "switch"}

def compare(xml, svg, name):
    bad = []
    L = lstopo(xml)
    root, O = ours(svg)
    pus = sorted(int(o["os"]) for o in L if o["type"] == "PU")
    # Threads: each once, in the core lstopo has it in.
    lt = {int(o["os"]): [a for a in o["chain"] if a["type"] == "Core"] for o in L if o["type"] == "PU"}
    lt = {k: (v[-1]["cpus"] if v else None) for k, v in lt.items()}
    ot = {}
    for o in O:
        if o["part"] == "thread":
            k = int(o["e"].get("data-os"))
            if k in ot:
                bad.append("thread P#%d drawn twice" % k)
            core = [a for a in o["chain"] if a["part"] == "core"]
            ot[k] = cpulist(core[-1]["e"].get("data-cpus")) if core else None
    if set(lt) - set(ot):
        bad.append("threads lstopo draws and we do not: %s" % sorted(set(lt) - set(ot))[:8])
    for k in set(lt) & set(ot):
        if lt[k] is not None and lt[k] != ot[k]:
            bad.append("thread P#%d in core %s, lstopo %s" % (k, sorted(ot[k] or []), sorted(lt[k])))
    # Cores: the same sets of threads, each once, in the same package.
    lc = {o["cpus"]: lst_where(o) for o in L if o["type"] == "Core"}
    oc = {}
    for o in O:
        if o["part"] == "core":
            s = cpulist(o["e"].get("data-cpus"))
            if s in oc:
                bad.append("core %s drawn twice" % sorted(s))
            oc[s] = our_where(o)
    if set(lc) - set(oc):
        bad.append("cores lstopo draws and we do not: %s" % [sorted(x) for x in set(lc) - set(oc)][:4])
    for s in set(lc) & set(oc):
        if lc[s] != oc[s]:
            bad.append("core %s in %s, lstopo %s" % (sorted(s), oc[s][0], lc[s][0]))
            break
    # Packages: the same CPU sets, each once, in the same group.
    lp = {o["cpus"]: lst_where(o) for o in L if o["type"] == "Package"}
    op = {}
    for o in O:
        if o["part"] == "package":
            s = cpulist(o["e"].get("data-cpus"))
            if s in op:
                bad.append("package %s drawn twice" % sorted(s))
            op[s] = our_where(o)
    if set(lp) - set(op):
        bad.append("packages lstopo draws and we do not: %s (ours %s)" % ([sorted(x)[:4] for x in set(lp) - set(op)][:4],
                                                                       [sorted(x)[:4] for x in op][:4]))
    for s in set(lp) & set(op):
        if lp[s] != op[s]:
            bad.append("package %s in %s, lstopo %s" % (sorted(s)[:4], op[s][0], lp[s][0]))
    # NUMA nodes: each once, in the same package, group or machine.
    ln = {int(o["os"]): lst_where(o) for o in L if o["type"] == "NUMANode"}
    on = {}
    for o in O:
        if o["part"] == "numa-node":
            k = int(o["e"].get("data-node"))
            if k in on:
                bad.append("NUMA node %d drawn twice" % k)
            on[k] = our_where(o)
    # A machine with one node and no NUMA facts draws none (lstopo always has one).
    if not (len(ln) == 1 and not on):
        if set(ln) - set(on):
            bad.append("NUMA nodes lstopo draws and we do not: %s (ours %s)" % (sorted(set(ln) - set(on)), sorted(on)))
        for k in set(ln) & set(on):
            if ln[k] != on[k]:
                bad.append("NUMA node %d in %s %s, lstopo %s %s" % (k, on[k][0], sorted(on[k][1])[:4] if len(on[k]) > 1 else "",
                                                                   ln[k][0], sorted(ln[k][1])[:4] if len(ln[k]) > 1 else ""))
    # PCI devices: each once, under the same bridges, in the same place.
    ld, known = {}, {o["busid"] for o in L if o["type"] == "Bridge" and o["busid"]}
    for o in L:
        if o["type"] == "PCIDev":
            br = [a["busid"] for a in o["chain"] if a["type"] == "Bridge" and a["busid"]]
            ld[o["busid"]] = (lst_where(o), br)
    od = {}
    for o in O:
        if o["part"] in DEV and o["e"].get("data-bdf"):
            k = o["e"].get("data-bdf")
            if k in od:
                bad.append("PCI %s drawn twice" % k)
            # The bridges lstopo knows (a capture without their config
            # space leaves lstopo without them; the sysfs path still has them).
            br = [a["e"].get("data-bdf") for a in o["chain"] if a["part"] in BRIDGE and a["e"].get("data-bdf") in known]
            od[k] = (our_where(o), br)
    if set(ld) - set(od):
        bad.append("PCI devices lstopo draws and we do not: %s" % sorted(set(ld) - set(od)))
    if set(od) - set(ld):
        bad.append("PCI devices we draw and lstopo does not: %s" % sorted(set(od) - set(ld)))
    for k in set(ld) & set(od):
        if ld[k] != od[k]:
            bad.append("PCI %s: ours in %s under %s, lstopo in %s under %s" % (k, od[k][0][0], od[k][1], ld[k][0][0], ld[k][1]))
    w = int(float(root.get("width")))
    if len(pus) <= 64 and w > 1400:
        bad.append("%d px wide for %d CPUs" % (w, len(pus)))
    return bad, "%d packages, %d NUMA nodes, %d cores, %d threads, %d PCI devices; %d px wide" % (
        len(lp), len(ln), len(lc), len(lt), len(ld), w)

# Each line of the list: name, lstopo's XML, our SVG, a known difference or "-".
n = fails = 0
for line in open(sys.argv[1]):
    name, xml, svg, known = line.rstrip("\n").split("\t")
    n += 1
    try:
        bad, what = compare(xml, svg, name)
    except Exception as e:   # a drawing that does not parse, say
        bad, what = ["cannot compare: %s" % e], ""
    if known != "-":
        if bad:
            print("ok %d - %s # known difference: %s" % (n, name, known))
            for b in bad[:3]:
                print("#   " + b)
        else:
            fails += 1
            print("not ok %d - %s: listed as a known difference (%s) but the drawing matches: take it off the list" % (n, name, known))
    elif bad:
        fails += 1
        print("not ok %d - %s" % (n, name))
        for b in bad[:8]:
            print("#   " + b)
    else:
        print("ok %d - %s: %s" % (n, name, what))
print("1..%d" % n)
sys.exit(1 if fails else 0)
PY

# The CPUs a fixture of one subject names (its nodes' cpulist or cpumap, else
# cpu/online, else its cpuN directories) as a tree both readers take: one
# core a CPU, in the package its physical_package_id names, else its NUMA
# node's, else 0; the topology files as masks (what hwloc reads) and lists
# (what the probe reads), cpu/online, present and possible, /proc/cpuinfo;
# each node's cpumap and cpulist and node/online.  The fixture's own files
# are kept.  Exit 3 when it names no CPU.
cat >"$tmp/mkbase.py" <<'PY'
import os, sys, glob
fx, out = sys.argv[1], sys.argv[2]
def cpulist(s):
    r = set()
    for part in s.replace("\0", "").strip().split(","):
        part = part.strip()
        if not part: continue
        a, _, b = part.partition("-")
        try: r.update(range(int(a), int(b or a) + 1))
        except ValueError: return None
    return r
def cpumask(s):
    words = [w for w in s.strip().split(",") if w]
    r = set()
    try:
        for i, w in enumerate(reversed(words)):
            v = int(w, 16)
            r.update(32 * i + b for b in range(32) if v >> b & 1)
    except ValueError: return None
    return r
def rd(p):
    try: return open(p, errors="replace").read()
    except OSError: return None
sysd = os.path.join(fx, "sys/devices/system")
node_of, cpus, node_cpus = {}, set(), {}
for nd in sorted(glob.glob(os.path.join(sysd, "node/node[0-9]*"))):
    nid = int(os.path.basename(nd)[4:])
    s = rd(nd + "/cpulist"); c = cpulist(s) if s is not None else None
    if c is None:
        s = rd(nd + "/cpumap"); c = cpumask(s) if s is not None else None
    node_cpus[nid] = c
    for x in c or ():
        node_of.setdefault(x, nid); cpus.add(x)
if not cpus:
    s = rd(os.path.join(sysd, "cpu/online")); cpus = cpulist(s) or set() if s else set()
if not cpus:
    cpus = {int(os.path.basename(d)[3:]) for d in glob.glob(os.path.join(sysd, "cpu/cpu[0-9]*"))}
if not cpus:
    sys.exit(3)   # the fixture names no CPU: the caller lays it over cpu-2s-smt
if len(sys.argv) > 3 and cpus == cpulist(sys.argv[3]):
    sys.exit(4)   # the base's own CPUs: laid over it, nothing contradicts
def topo(x, name):
    """The fixture's own topology/NAME_list or NAME (mask) of CPU x, as a set, else None."""
    base = os.path.join(sysd, "cpu/cpu%d/topology/" % x)
    s = rd(base + name + "_list")
    if s is not None and cpulist(s):
        return cpulist(s)
    s = rd(base + name)
    return cpumask(s) if s is not None and cpumask(s) else None
def num(x, name):
    try: return int(rd(os.path.join(sysd, "cpu/cpu%d/topology/%s" % (x, name))))
    except (TypeError, ValueError): return None
pk = {x: num(x, "physical_package_id") for x in cpus}
for x in cpus:
    if pk[x] is None:
        pk[x] = node_of.get(x, 0)
lst = lambda s: ",".join(str(x) for x in sorted(s))
def mask(s):
    n = max(s) // 32 + 1
    return ",".join("%08x" % sum(1 << (x - 32 * i) for x in s if 32 * i <= x < 32 * (i + 1)) for i in reversed(range(n)))
def put(rel, text):
    p = os.path.join(out, rel)
    if os.path.exists(os.path.join(fx, rel)):
        return   # the fixture's own file wins
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text + "\n")
for x in sorted(cpus):
    t = "sys/devices/system/cpu/cpu%d/topology/" % x
    sib = topo(x, "thread_siblings") or topo(x, "core_cpus") or {x}
    pkg = topo(x, "package_cpus") or topo(x, "core_siblings") or {y for y in cpus if pk[y] == pk[x]}
    put(t + "physical_package_id", str(pk[x]))
    put(t + "core_id", str(num(x, "core_id") if num(x, "core_id") is not None else min(sib)))
    for name, v in (("core_cpus", sib), ("thread_siblings", sib), ("package_cpus", pkg), ("core_siblings", pkg)):
        put(t + name + "_list", lst(v))
        put(t + name, mask(v))
for f in ("online", "present", "possible"):
    put("sys/devices/system/cpu/" + f, lst(cpus))
# A kernel with node directories writes both forms of each node's CPUs and
# node/online (sysfs-devices-node): hwloc reads the cpumap and the list of
# nodes, the probe the cpulist.
for nid, c in sorted(node_cpus.items()):
    if c is None:
        continue   # neither form read: nothing to be consistent with
    d = "sys/devices/system/node/node%d/" % nid
    put(d + "cpulist", lst(c))
    put(d + "cpumap", mask(c) if c else "00000000")
if node_cpus:
    put("sys/devices/system/node/online", lst(node_cpus))
if not os.path.exists(os.path.join(fx, "proc/cpuinfo")):
    put("proc/cpuinfo", "\n".join("processor\t: %d\n" % x for x in sorted(cpus)))
PY

# Fixtures where the facts themselves differ from hwloc's reading (the
# drawing shows the facts): name, then why.  Each reason was checked
# against the kernel's sysfs ABI and hwloc's linux backend.
known() {
	case $1 in
	fixtures/cpu-arm64-dt-*|fixtures/cpu-arm64-shared-block)
		# sysfs-devices-system-cpu: physical_package_id "is architecture
		# and platform dependent"; arm64 before 5.x stored the cluster
		# there (parse_cluster()), and hwloc reads it as a socket.
		echo "arm64 kernel of before 5.x: physical_package_id holds the cluster, hwloc takes it for a socket (2 packages); the probe weighs the device tree and the MPIDR and finds 1 or unknown (see the fixture's README)" ;;
	fixtures/cpu-garbled-online)
		echo "garbled on purpose (the online file is a PNG): hwloc then draws its CPUs at the machine with no package, the probe keeps package 0 that both topology files name" ;;
	fixtures/cpu-garbled)
		echo "garbled on purpose (topology files of garbage): the probe refuses them and says why, so cores and packages are unknown and the drawing holds the 4 online CPUs as threads of unknown core; hwloc makes each CPU a core of its own" ;;
	fixtures/numa-sparse)
		# drivers/base/node.c has printed only a node's online CPUs
		# since commit 064f0e9302af (2016, Linux 4.7); this tree is an
		# older kernel's.  hwloc takes node 72's cpumap whole, and as
		# no object has CPUs {16,17} (package 2 has online CPU 16; an
		# offline CPU has no topology files),
		# hwloc__find_insert_memory_parent() inserts a memory group for
		# it, around package 2; node 73 (no CPUs, nearest to 72 by
		# distance) joins it.  Online CPUs only, that group and package
		# 2 are the same CPU 16.
		echo "node 72's cpulist names offline CPU 17 beside online CPU 16 (a kernel before 4.7 wrote offline CPUs there): hwloc attaches nodes 72 and 73 to a memory group it inserts around package 2 for the set {16,17}, which no object has; the probe keeps a node's online CPUs (what the kernel prints since 4.7), so the drawing puts both nodes in package 2, whose CPUs (16) are that group's" ;;
	*) echo - ;;
	esac
}

# The fixtures of one subject whose own CPUs are read on a tree of their own
# (mkbase.py): laid over cpu-2s-smt they contradict it (other CPUs, other
# nodes: a tree no kernel writes).  On their own tree each CPU has the
# topology files of its node's package, each node its cpumap beside its
# cpulist, and node/online lists them, as a kernel writes them.
own_cpus() {
	case $1 in
	fixtures/pci-nic|fixtures/pci-nic-roce-ecn|fixtures/process-v2-limited|fixtures/numa-cpumap-only|\
	fixtures/kernel-tuned-server|fixtures/numa-interleaved-2048|fixtures/numa-arm-kunpeng920-nul|fixtures/pci-garbled-sysfs) return 0 ;;
	esac
	return 1
}

lst() { timeout 60 "$LSTOPO" --input "$1" --of xml >"$2" 2>"$tmp/l.err" && grep -q 'type="PU"' "$2"; }
k=0
one() {   # name sysroot
	k=$((k + 1))
	if ! lst "$2" "$tmp/$k.xml" && [ ! -d "$2/proc" ]; then
		# lstopo takes a directory for a sysroot only when it holds
		# proc/; git keeps no empty directory, so a fixture of sys/
		# alone gets an empty proc/ in a copy (the probe reads the
		# same copy).
		rm -rf "$tmp/alone"
		cp -R "$2" "$tmp/alone" && mkdir -p "$tmp/alone/proc" && lst "$tmp/alone" "$tmp/$k.xml" &&
			set -- "$1" "$tmp/alone"
	fi
	if { [ ! -s "$tmp/$k.xml" ] || ! grep -q 'type="PU"' "$tmp/$k.xml"; } && own_cpus "$1" && rm -rf "$tmp/own" &&
	   mkdir -p "$tmp/own" && python3 "$tmp/mkbase.py" "$2" "$tmp/own" 0-31 2>"$tmp/l.err"; then
		# A fixture of one subject whose CPUs contradict cpu-2s-smt's
		# (more of them, other packages): on a tree made of its own
		# CPUs, so that both readers read one consistent machine.
		cp -R "$2/." "$tmp/own/" && mkdir -p "$tmp/own/proc"
		if lst "$tmp/own" "$tmp/$k.xml"; then
			set -- "$1 (on its own CPUs)" "$tmp/own"
		fi
	fi
	if [ ! -s "$tmp/$k.xml" ] || ! grep -q 'type="PU"' "$tmp/$k.xml"; then
		# One that names no CPU (PCI, memory) lacks what lstopo needs:
		# laid over fixtures/cpu-2s-smt, as the drawing's other tests do
		# (hard links to one copy of the base; the fixture's files
		# replace them, never write through them).
		[ -d "$tmp/base" ] || cp -R "$src/fixtures/cpu-2s-smt" "$tmp/base"
		rm -rf "$tmp/over"
		cp -al "$tmp/base" "$tmp/over" 2>/dev/null || cp -R "$tmp/base" "$tmp/over"
		cp -R --remove-destination "$2/." "$tmp/over/"
		if ! lst "$tmp/over" "$tmp/$k.xml"; then
			skipped=$((skipped + 1)); echo "# $1: lstopo cannot read it: $(grep -v 'discovery component' "$tmp/l.err" | head -n 1)"; return
		fi
		set -- "$1 (over cpu-2s-smt)" "$tmp/over"
	fi
	timeout 60 "$NODEAUDIT" --sysroot "$2" probe --format svg >"$tmp/$k.svg" 2>/dev/null
	printf '%s\t%s\t%s\t%s\n' "$1" "$tmp/$k.xml" "$tmp/$k.svg" "$(known "$1")" >>"$tmp/list"
}

: >"$tmp/list"
for d in "$src"/fixtures/*/; do
	[ -d "$d/sys" ] || continue
	one "fixtures/$(basename "$d")" "$d"
done
if [ -d "$shared/fixtures/real/sysfs" ]; then
	for c in "$shared"/fixtures/real/sysfs/*/; do
		t=$(ls "$c"*.tar.* 2>/dev/null | head -n 1)
		[ -n "$t" ] || continue
		name=$(basename "$c")
		mkdir -p "$tmp/cap/$name"
		tar -xf "$t" -C "$tmp/cap/$name" 2>/dev/null || { echo "# $name: cannot unpack"; continue; }
		root=$tmp/cap/$name
		if [ ! -d "$root/sys" ]; then
			for s in "$root"/*/fsroot "$root"/*; do [ -d "$s/sys" ] && { root=$s; break; }; done
		fi
		one "shared/$name" "$root"
		rm -rf "$tmp/cap/$name"
	done
else
	echo "# $shared/fixtures/real absent: the shared captures are not compared"
fi
echo "# $skipped tree(s) lstopo cannot read"
python3 "$tmp/cmp.py" "$tmp/list"
