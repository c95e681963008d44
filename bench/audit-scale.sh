#!/bin/sh
# audit-scale.sh - what an audit costs at the size of real servers: for
# each tree, its CPUs and files, `nodeaudit check --sysroot TREE` against
# `lstopo-no-graphics` on the same tree (HWLOC_FSROOT=TREE
# HWLOC_COMPONENTS=linux,stop) and `lscpu --sysroot TREE`, and the ratio
# check/lstopo, with the cost per CPU; then the live check against
# `lstopo-no-graphics --whole-io`; then `report` and `diff` over inputs of
# 1k, 10k and 100k keys, with the cost per key.
#
# Trees: the real-machine captures under $NODEAUDIT_SHARED/fixtures/real/sysfs
# (default: shared/ beside the source tree; skipped when absent), unpacked
# into a temporary directory, and a synthetic series generated here: 64,
# 256, 1024 and 4096 CPUs (2 threads a core, 2 or 4 packages), 8, 16, 32
# and 64 NUMA nodes, caches L1d/L1i/L2 per core and L3 per node, and 64
# accelerators behind 8 PCIe switches.
#
# Timing as in probe-vs-lstopo.sh: python3's posix_spawn with a monotonic
# clock around each run; R rounds (default 7), each round runs every
# command of a tree once, one after the other (alternating, so that a noisy
# moment hits all of them), each round starting with the next command (so
# that none always runs after the same one); the median per command and
# the median of the per-round ratios.  A warm-up run of each is not counted.
# Targets (issue 24): check on every capture of 64 CPUs or more at most
# 1.0x lstopo; check ms per CPU flat up to 4096 CPUs; live check at most
# 0.5x lstopo --whole-io; report and diff of 100k keys under 2 s.
# Issue 47's, with every library the build needs linked and no
# process-wide trick: each capture of 64 to 256 CPUs at most 1.25x lstopo,
# live check at most 1.0x lstopo --whole-io; the captures over the bound
# are named.
#   bench/audit-scale.sh [R]       NODEAUDIT=path overrides the binary
#   AUDIT_SCALE_MAX_CPUS=N         skip synthetic trees above N CPUs
#   AUDIT_SCALE_TREES=DIR          keep the trees in DIR, reuse them next time
#   AUDIT_SCALE_CAPTURES=DIR       also every DIR/*.tar.{bz2,gz,xz} capture of
#                                  AUDIT_SCALE_MIN_CPUS (64) CPUs or more, e.g.
#                                  hwloc's tests/hwloc/linux (a clone of
#                                  github.com/open-mpi/hwloc): its 64- to
#                                  256-CPU gather-topology dumps of real servers
# Per tree, also whether the check asked hwloc, and why (`check -v`).
set -eu
rounds=${1:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
na=${NODEAUDIT:-}
if [ -z "$na" ]; then
	for c in "$here/build/src/nodeaudit" "$here/src/nodeaudit"; do
		[ -x "$c" ] && { na=$c; break; }
	done
fi
if [ -z "$na" ] || [ ! -x "$na" ]; then
	echo "audit-scale: no nodeaudit binary (build first, or set NODEAUDIT)" >&2; exit 2
fi
case $rounds in ''|*[!0-9]*|0) echo "audit-scale: R must be a positive number" >&2; exit 2 ;; esac
command -v python3 >/dev/null 2>&1 || { echo "audit-scale: python3 is needed" >&2; exit 2; }
command -v lstopo-no-graphics >/dev/null 2>&1 ||
	{ echo "audit-scale: lstopo-no-graphics not found (Debian: hwloc-nox)" >&2; exit 2; }
command -v lscpu >/dev/null 2>&1 || { echo "audit-scale: lscpu not found (util-linux)" >&2; exit 2; }
shared=${NODEAUDIT_SHARED:-$here/../shared}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/audit-scale.XXXXXX")
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/trees"
# AUDIT_SCALE_TREES=DIR keeps the trees there and reuses them (profiling).
if [ -n "${AUDIT_SCALE_TREES:-}" ]; then
	mkdir -p "$AUDIT_SCALE_TREES"
	rmdir "$tmp/trees"
	ln -s "$(cd "$AUDIT_SCALE_TREES" && pwd)" "$tmp/trees"
fi

# unpack ARCHIVE NAME: the capture into trees/real-NAME (once); a single
# top directory is the tree (as --sysroot takes it).  1 when it is there.
unpack() {
	d=$tmp/trees/real-$2
	[ -d "$d" ] && return 0
	mkdir -p "$d"
	tar -xf "$1" -C "$d" 2>/dev/null || { rm -rf "$d"; return 1; }
	set -- "$d"/*
	if [ $# -eq 1 ] && [ -d "$1" ] && [ ! -d "$d/sys" ]; then
		mv "$1" "$d.t" && rmdir "$d" && mv "$d.t" "$d"
	fi
	# hwloc's newer dumps keep the tree in fsroot/ beside a cpuid/ dump
	# (--sysroot takes either; lstopo and lscpu want the tree itself).
	if [ -d "$d/fsroot" ] && [ ! -d "$d/sys" ]; then
		mv "$d" "$d.t" && mv "$d.t/fsroot" "$d" && rm -rf "$d.t"
	fi
}
# The real captures of the shared directory.
if [ -d "$shared/fixtures/real/sysfs" ]; then
	for a in "$shared"/fixtures/real/sysfs/*/*.tar.*; do
		if [ -f "$a" ]; then unpack "$a" "$(basename "$(dirname "$a")")" || true; fi
	done
else
	echo "audit-scale: no real captures at $shared/fixtures/real/sysfs (skipped)"
fi
# Public test suites' captures (AUDIT_SCALE_CAPTURES): those of enough CPUs.
if [ -n "${AUDIT_SCALE_CAPTURES:-}" ]; then
	for a in "$AUDIT_SCALE_CAPTURES"/*.tar.bz2 "$AUDIT_SCALE_CAPTURES"/*.tar.gz "$AUDIT_SCALE_CAPTURES"/*.tar.xz; do
		[ -f "$a" ] || continue
		name=$(basename "$a"); name=${name%.tar.*}
		unpack "$a" "$name" || continue
		ncpu=$(find "$d/sys/devices/system/cpu" -maxdepth 1 -name 'cpu[0-9]*' 2>/dev/null | wc -l)
		[ "$ncpu" -ge "${AUDIT_SCALE_MIN_CPUS:-64}" ] || rm -rf "$d"
	done
fi

python3 - "$tmp" "$na" "$rounds" "${AUDIT_SCALE_MAX_CPUS:-4096}" "$here" <<'PY'
import json, os, shutil, statistics, sys, time

tmp, na, rounds, max_cpus, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
trees = os.path.join(tmp, "trees")

# --- the synthetic series -------------------------------------------------
def cpulist(ids):
    ids = sorted(ids)
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)

def cpumask(ids, n):
    words = [0] * ((n + 31) // 32)
    for c in ids:
        words[c // 32] |= 1 << (c % 32)
    return ",".join("%08x" % w for w in reversed(words))

def put(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")

def synth(n, nodes, pkgs, gpus):
    root = os.path.join(trees, "synthetic-%dcpu-%dnode" % (n, nodes))
    if os.path.isdir(root):
        return root
    half = n // 2                      # cores; CPU i and i + half share one
    per_pkg = half // pkgs
    per_node = half // nodes
    cpu = "sys/devices/system/cpu"
    node_of = lambda core: core // per_node
    ci = []
    for i in range(n):
        core = i % half
        pkg = core // per_pkg
        sib = [core, core + half]
        pkg_cpus = [c for c in range(n) if (c % half) // per_pkg == pkg]
        nd = node_of(core)
        node_cpus = [c for c in range(n) if node_of(c % half) == nd]
        d = "%s/cpu%d" % (cpu, i)
        t = d + "/topology/"
        put(root, t + "physical_package_id", str(pkg))
        put(root, t + "core_id", str(core % per_pkg))
        put(root, t + "die_id", "0")
        for name, ids in (("core_cpus", sib), ("thread_siblings", sib),
                          ("package_cpus", pkg_cpus), ("core_siblings", pkg_cpus),
                          ("die_cpus", pkg_cpus)):
            put(root, t + name, cpumask(ids, n))
            put(root, t + name + "_list", cpulist(ids))
        for k, (lvl, typ, size, ids) in enumerate(((1, "Data", "48K", sib), (1, "Instruction", "32K", sib),
                                                   (2, "Unified", "2048K", sib),
                                                   (3, "Unified", "%dK" % (per_node * 2048), node_cpus))):
            c = "%s/cache/index%d/" % (d, k)
            put(root, c + "level", str(lvl))
            put(root, c + "type", typ)
            put(root, c + "size", size)
            put(root, c + "coherency_line_size", "64")
            put(root, c + "number_of_sets", "64")
            put(root, c + "ways_of_associativity", "12")
            put(root, c + "physical_line_partition", "1")
            put(root, c + "shared_cpu_map", cpumask(ids, n))
            put(root, c + "shared_cpu_list", cpulist(ids))
            put(root, c + "id", str(core if lvl < 3 else nd))
        put(root, d + "/cpufreq/cpuinfo_max_freq", "3800000")
        put(root, d + "/cpufreq/scaling_governor", "performance")
        if i:
            put(root, d + "/online", "1")
        ci.append("processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                  "model name\t: Synthetic Xeon %d-CPU\nstepping\t: 8\ncpu MHz\t\t: 2000.000\n"
                  "cache size\t: %d KB\nphysical id\t: %d\nsiblings\t: %d\ncore id\t\t: %d\n"
                  "cpu cores\t: %d\napicid\t\t: %d\nflags\t\t: fpu lm sse4_2 avx avx2 avx512f avx512_bf16 amx_tile\n"
                  % (i, n, per_node * 2048, pkg, 2 * per_pkg, core % per_pkg, per_pkg, i))
    put(root, "proc/cpuinfo", "\n".join(ci))
    for f in ("online", "possible", "present"):
        put(root, cpu + "/" + f, "0-%d" % (n - 1))
    put(root, cpu + "/smt/active", "1")
    put(root, cpu + "/smt/control", "on")
    mem_kb = 16 << 20                   # 16 GiB a node
    put(root, "proc/meminfo", "MemTotal: %d kB\nMemFree: %d kB\nMemAvailable: %d kB\n"
        "HugePages_Total: 0\nHugepagesize: 2048 kB\n" % (mem_kb * nodes, mem_kb * nodes // 2, mem_kb * nodes // 2))
    nd = "sys/devices/system/node"
    for f in ("online", "possible", "has_cpu", "has_memory", "has_normal_memory"):
        put(root, nd + "/" + f, "0-%d" % (nodes - 1))
    for k in range(nodes):
        ids = [c for c in range(n) if node_of(c % half) == k]
        put(root, "%s/node%d/cpulist" % (nd, k), cpulist(ids))
        put(root, "%s/node%d/cpumap" % (nd, k), cpumask(ids, n))
        put(root, "%s/node%d/meminfo" % (nd, k), "Node %d MemTotal: %d kB\nNode %d MemFree: %d kB\n"
            % (k, mem_kb, k, mem_kb // 2))
        put(root, "%s/node%d/distance" % (nd, k),
            " ".join("10" if j == k else ("12" if j // (nodes // pkgs) == k // (nodes // pkgs) else "21")
                     for j in range(nodes)))
    # 64 accelerators: 8 root ports, a switch behind each (one upstream
    # port, 8 downstream ports), one accelerator on each downstream port.
    pci = "sys/devices/pci0000:00"
    def dev(path, cls, vendor, device, width, node, cpus):
        put(root, path + "/class", cls)
        put(root, path + "/vendor", vendor)
        put(root, path + "/device", device)
        put(root, path + "/numa_node", str(node))
        put(root, path + "/local_cpulist", cpus)
        put(root, path + "/current_link_speed", "32.0 GT/s PCIe")
        put(root, path + "/max_link_speed", "32.0 GT/s PCIe")
        put(root, path + "/current_link_width", str(width))
        put(root, path + "/max_link_width", str(width))
        bdf = os.path.basename(path)
        link = os.path.join(root, "sys/bus/pci/devices", bdf)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.relpath(os.path.join(root, path), os.path.dirname(link)), link)
    g = 0
    for rp in range(gpus // 8):
        k = rp * nodes // (gpus // 8)
        cpus = cpulist([c for c in range(n) if node_of(c % half) == k])
        bus = 1 + rp * 10
        rpath = "%s/0000:00:%02x.0" % (pci, rp + 1)
        dev(rpath, "0x060400", "0x8086", "0x352a", 16, k, cpus)
        up = "%s/0000:%02x:00.0" % (rpath, bus)
        dev(up, "0x060400", "0x1000", "0xc030", 16, k, cpus)
        for p in range(8):
            dn = "%s/0000:%02x:%02x.0" % (up, bus + 1, p)
            dev(dn, "0x060400", "0x1000", "0xc030", 16, k, cpus)
            dev("%s/0000:%02x:00.0" % (dn, bus + 2 + p), "0x030200", "0x10de", "0x2330", 16, k, cpus)
            g += 1
    put(root, "proc/sys/kernel/osrelease", "6.8.0-synthetic")
    put(root, "proc/sys/kernel/hostname", "synthetic-%d" % n)
    put(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/sda1 ro")
    return root

for n, nodes, pkgs in ((64, 8, 2), (256, 16, 2), (1024, 32, 4), (4096, 64, 4)):
    if n <= max_cpus:
        synth(n, nodes, pkgs, 64)

# --- timing ---------------------------------------------------------------
null = [(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]

def spawn2(argv, env):
    """wall ms and CPU ms (user + system, the child's rusage) of one run"""
    path = shutil.which(argv[0]) or argv[0]
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(path, argv, env, file_actions=null)
    _, _, ru = os.wait4(pid, 0)
    return (time.monotonic_ns() - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3

def spawn(argv, env):
    return spawn2(argv, env)[0]

cpu_side = {}
def bench(cmds):
    """cmds: [(argv, env)]; per command the median wall ms, and the medians
    of the per-round ratios to the second command; the same of CPU time in
    cpu_side["med"], cpu_side["ratio"]."""
    for c in cmds:
        spawn2(*c)
    runs = []
    for r in range(rounds):
        # Each round starts with the next command: what the one before
        # leaves behind (lscpu's 26 ms over a 64-CPU tree slows the next
        # process by up to 6 ms on the reference VM) falls on each in turn.
        got = [None] * len(cmds)
        for k in range(len(cmds)):
            i = (r + k) % len(cmds)
            got[i] = spawn2(*cmds[i])
        runs.append(got)
    med = [statistics.median(r[k][0] for r in runs) for k in range(len(cmds))]
    ratio = [statistics.median(r[k][0] / r[1][0] for r in runs) for k in range(len(cmds))]
    cpu_side["med"] = [statistics.median(r[k][1] for r in runs) for k in range(len(cmds))]
    cpu_side["ratio"] = [statistics.median(r[k][1] / max(r[1][1], 1e-3) for r in runs) for k in range(len(cmds))]
    return med, ratio

def count(root):
    files = 0
    for _, _, fs in os.walk(root):
        files += len(fs)
    cpu = os.path.join(root, "sys/devices/system/cpu")
    cpus = len([e for e in os.listdir(cpu) if e[3:].isdigit() and e.startswith("cpu")]) if os.path.isdir(cpu) else 0
    return cpus, files

env = dict(os.environ)
print("trees: %d rounds, each command once a round (alternating, the first in turn); medians of wall ms, and of CPU ms"
      % rounds)
print("(user + system, the children's rusage: what a loaded machine does not inflate)")
print("%-40s %5s %6s %8s %8s %8s %7s %7s %8s %7s %8s" % ("tree", "CPUs", "files", "check", "lstopo",
                                                         "lscpu", "/lstopo", "/lscpu", "cpu ms", "/lstopo",
                                                         "cpu/CPU"))
met_cap = met_cap_cpu = True
over47 = []   # (name, wall ratio) of the 64- to 256-CPU captures over 1.25x
n47 = 0
per_cpu = []
for name in sorted(os.listdir(trees), key=lambda s: (not s.startswith("real"), count(os.path.join(trees, s))[0], s)):
    root = os.path.join(trees, name)
    cpus, files = count(root)
    hw = dict(env, HWLOC_FSROOT=root, HWLOC_COMPONENTS="linux,stop")
    (c, l, s), (rc, _, rs) = bench([([na, "--sysroot", root, "check"], env),
                                    (["lstopo-no-graphics"], hw),
                                    (["lscpu", "--sysroot", root], env)])
    cc, crc = cpu_side["med"][0], cpu_side["ratio"][0]
    print("%-40s %5d %6d %8.1f %8.1f %8.1f %7.2f %7.2f %8.1f %7.2f %8.3f" % (
        name[:40], cpus, files, c, l, s, rc, c / s if s else float("nan"), cc, crc, cc / cpus if cpus else 0))
    if name.startswith("real") and cpus >= 64 and rc > 1.0:
        met_cap = False
    if name.startswith("real") and 64 <= cpus <= 256:
        n47 += 1
        if rc > 1.25:
            over47.append((name, rc))
    if name.startswith("real") and cpus >= 64 and crc > 1.0:
        met_cap_cpu = False
    if name.startswith("synthetic"):
        per_cpu.append((cpus, c / cpus, cc / cpus))
print("target check on captures of 64+ CPUs <= 1.00x lstopo: wall %s, CPU %s" %
      ("met" if met_cap else "not met", "met" if met_cap_cpu else "not met"))
print("target (issue 47) each capture of 64 to 256 CPUs <= 1.25x lstopo: %s (%d of %d over%s)" %
      ("met" if not over47 else "not met", len(over47), n47,
       ": " + ", ".join("%s %.2fx" % (n[:40], r) for n, r in over47) if over47 else ""))
# Whether the check asked hwloc for a second reading, and why (-v says).
import subprocess
asked = []
reals = [n for n in sorted(os.listdir(trees)) if n.startswith("real")]
for name in reals:
    err = subprocess.run([na, "-v", "--sysroot", os.path.join(trees, name), "check"],
                         capture_output=True, text=True).stderr
    why = [l.split("hwloc asked by ", 1)[1] for l in err.splitlines() if "hwloc asked by " in l]
    if why:
        asked.append((name, "; ".join(why)))
print("hwloc asked on %d of %d real captures%s" % (len(asked), len(reals), ":" if asked else ""))
for name, why in asked:
    print("  %-40s %s" % (name[:40], why))
if per_cpu:
    lo, hi = min(p[2] for p in per_cpu), max(p[2] for p in per_cpu)
    print("check CPU ms per CPU, synthetic series: %s (max/min %.2f)" %
          (", ".join("%d: %.3f" % (x[0], x[2]) for x in per_cpu), hi / lo))

# --- live -----------------------------------------------------------------
(c, l), (rc, _) = bench([([na, "check"], env), (["lstopo-no-graphics", "--whole-io"], env)])
print("live: check %.1f ms, lstopo-no-graphics --whole-io %.1f ms, ratio %.2f (target <= 0.50: %s; "
      "issue 47's <= 1.00: %s); CPU %.1f ms to %.1f ms, ratio %.2f"
      % (c, l, rc, "met" if rc <= 0.5 else "not met", "met" if rc <= 1.0 else "not met", cpu_side["med"][0], cpu_side["med"][1], cpu_side["ratio"][0]))

# --- report and diff over 1k/10k/100k keys --------------------------------
import subprocess
fix = os.path.join(top, "tests", "fixtures")
probe = json.loads(subprocess.run([na, "--sysroot", os.path.join(fix, "numa-2node"), "probe", "--format", "json"],
                                  capture_output=True, check=True).stdout)
rep = json.loads(subprocess.run([na, "--sysroot", os.path.join(fix, "kernel-tuned-server"), "check", "--format", "json"],
                                capture_output=True).stdout)
print("%-40s %8s %9s %12s %9s %12s" % ("input", "keys", "wall ms", "us per key", "cpu ms", "us per key"))
worst = worst_cpu = 0.0
for n in (1000, 10000, 100000):
    a = json.loads(json.dumps(probe)); b = json.loads(json.dumps(probe))
    a["kernel"]["sysctl"] = {"k.%d" % i: str(i) for i in range(n)}
    b["kernel"]["sysctl"] = {"k.%d" % (n - 1 - i): str(n - 1 - i if i % 100 else -1) for i in range(n)}
    pa, pb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    json.dump(a, open(pa, "w")); json.dump(b, open(pb, "w"))
    r = json.loads(json.dumps(rep))
    r["facts"]["kernel"]["sysctl"] = {"x.k%d" % i: str(i) for i in range(n)}
    r["findings"] += [{"id": "kernel.sysctl", "key": "x.k%d" % i, "status": "pass", "severity": "warn",
                       "title": "sysctl x.k%d" % i, "observed": str(i)} for i in range(n)]
    r["summary"]["pass"] += n
    pr = os.path.join(tmp, "r.json")
    json.dump(r, open(pr, "w"))
    r2 = json.loads(json.dumps(r)); r2["host"]["hostname"] = "other"
    r2["findings"][-1]["status"] = "fail"
    pr2 = os.path.join(tmp, "r2.json")
    json.dump(r2, open(pr2, "w"))
    for label, argv in (("diff of probes (object of N keys)", [na, "diff", pa, pb]),
                        ("diff of reports (N findings)", [na, "diff", pr, pr2]),
                        ("report of one report (N sysctl findings)", [na, "report", pr]),
                        ("report of two reports (N sysctl findings)", [na, "report", pr, pr2])):
        spawn(argv, env)
        t = [spawn2(argv, env) for _ in range(max(3, rounds // 2))]
        ms = statistics.median(x[0] for x in t)
        cms = statistics.median(x[1] for x in t)
        worst = max(worst, ms) if n == 100000 else worst
        worst_cpu = max(worst_cpu, cms) if n == 100000 else worst_cpu
        print("%-40s %8d %9.1f %12.2f %9.1f %12.2f" % (label, n, ms, ms * 1000 / n, cms, cms * 1000 / n))
print("target report and diff of 100k keys < 2000 ms: wall %.0f ms (%s), CPU %.0f ms (%s)" % (
    worst, "met" if worst < 2000 else "not met", worst_cpu, "met" if worst_cpu < 2000 else "not met"))
PY
