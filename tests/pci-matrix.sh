#!/bin/sh
# pci-matrix.sh - pci.matrix against the fixtures' own sysfs trees: a small
# walker below (python3) follows each /sys/bus/pci/devices/BDF link, finds
# the host bridge and the bridges above every device, tells switches by
# their PCIe port type (config space) or by two bridges below them, and
# derives the nvidia-smi class of every pair from the definitions alone: X
# itself, PIX at most one switch (or one bridge) between them, PXB several,
# PHB the same host bridge, NODE host bridges of one NUMA node, SYS across
# nodes, null when a NUMA node that decides it is unknown.  It also lists
# the NVMe controllers (class 0108) and the accelerator-NIC pairs that meet
# inside a switch.  The fixtures: multi-switch (pci-8gpu-switches), two
# host bridges on two sockets (pci-2socket-remote), an unknown NUMA node
# (pci-numa-unknown), and all of them at once with NICs, NVMe and nested
# switches (pci-matrix-mixed); the rest of the PCI fixtures too.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
src=$(cd "$top_srcdir/tests" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcimatrix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
cat >"$tmp/check.py" <<'PY'
import json, os, struct, sys
root, out = sys.argv[1], json.load(open(sys.argv[2]))
pci = out["pci"]
m = pci["matrix"]
bus = os.path.join(root, "sys/bus/pci/devices")
def rd(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None
dev = {}
for bdf in sorted(os.listdir(bus)):
    target = os.path.normpath(os.path.join(bus, os.readlink(os.path.join(bus, bdf))))
    parts = target[len(os.path.join(root, "sys/devices")) + 1:].split("/")
    d = os.path.join(root, "sys/devices", *parts)
    cls = rd(os.path.join(d, "class"))
    numa = rd(os.path.join(d, "numa_node"))
    ptype = None
    try:
        c = open(os.path.join(d, "config"), "rb").read()
        if len(c) >= 256 and c[6] & 0x10:
            ptr = c[0x34] & 0xfc
            while ptr >= 0x40:
                if c[ptr] == 0x10:
                    ptype = struct.unpack_from("<H", c, ptr + 2)[0] >> 4 & 0xf
                    break
                ptr = c[ptr + 1] & 0xfc
    except OSError:
        pass
    dev[bdf] = {"host": parts[0], "above": parts[1:-1], "cls": int(cls, 16) if cls else None,
                "numa": int(numa) if numa and int(numa) >= 0 else None, "ptype": ptype}
def is_bridge(b):
    return b in dev and dev[b]["cls"] is not None and dev[b]["cls"] >> 16 == 6
def is_switch(b):
    if dev[b]["ptype"] is not None:
        return dev[b]["ptype"] == 5
    kids = [x for x in dev if dev[x]["above"] and dev[x]["above"][-1] == b and is_bridge(x)]
    return len(kids) >= 2
nodes = [x for x in os.listdir(os.path.join(root, "sys/devices/system/node"))
         if x.startswith("node")] if os.path.isdir(os.path.join(root, "sys/devices/system/node")) else []
one_node = len(nodes) <= 1
def unit(chain, k):
    b = chain[k]
    if is_switch(b):
        return b
    if k > 0 and is_switch(chain[k - 1]):
        return chain[k - 1]
    return b
def cls(a, b):
    if a == b:
        return "X"
    ca, cb = [x for x in dev[a]["above"] if x in dev], [x for x in dev[b]["above"] if x in dev]
    k = 0
    while k < len(ca) and k < len(cb) and ca[k] == cb[k]:
        k += 1
    if k:
        units = {unit(ca, i) for i in range(k - 1, len(ca))} | {unit(cb, i) for i in range(k - 1, len(cb))}
        return "PIX" if len(units) <= 1 else "PXB"
    if dev[a]["host"] == dev[b]["host"]:
        return "PHB"
    na, nb = dev[a]["numa"], dev[b]["numa"]
    if na is not None and nb is not None:
        return "NODE" if na == nb else "SYS"
    return "NODE" if one_node else None
bad = []
# The devices: the probe's accelerators, its NICs, then every class-0108 function.
want = [d["bdf"] for d in pci["accelerators"]] + [d["bdf"] for d in pci["nics"]] + \
       sorted(b for b in dev if dev[b]["cls"] is not None and dev[b]["cls"] >> 8 == 0x0108)
if m["devices"] != want:
    bad.append("devices %s, want %s" % (m["devices"], want))
for i, a in enumerate(want):
    for j, b in enumerate(want):
        got = m["paths"][i][j] if i < len(m["paths"]) and j < len(m["paths"][i]) else "(missing)"
        if got != cls(a, b):
            bad.append("%s-%s: %s, want %s" % (a, b, got, cls(a, b)))
pairs = []
accs, nics = [d["bdf"] for d in pci["accelerators"]], [d["bdf"] for d in pci["nics"]]
for a in accs:
    for b in nics:
        ca, cb = dev[a]["above"], dev[b]["above"]
        k = 0
        while k < len(ca) and k < len(cb) and ca[k] == cb[k]:
            k += 1
        if k and (is_switch(ca[k - 1]) or (k > 1 and is_switch(ca[k - 2]))):
            pairs.append({"accelerator": a, "nic": b, "switch": unit(ca, k - 1)})
if m["switch_pairs"] != pairs:
    bad.append("switch_pairs %s, want %s" % (m["switch_pairs"], pairs))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
# A machine wider than 80 columns: 12 GPUs, two per switch... three per
# switch, two switches per host bridge, two host bridges on two nodes.
python3 - "$tmp/wide" <<'PY'
import os, sys
root = sys.argv[1]
def w(p, t):
    p = os.path.join(root, p)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(t)
g = 0
for hb, node, cpus in (("00", 0, "0-7"), ("80", 1, "8-15")):
    for sw in range(2):
        bus = int(hb, 16) + sw * 8
        rp = "0000:%s:%02x.0" % (hb, sw + 1)
        up = "0000:%02x:00.0" % (bus + 1)
        chain = "pci0000:%s/%s/%s" % (hb, rp, up)
        for b, cls in ((rp, "0x060400"), (up, "0x060400")):
            pass
        devs = [(rp, "pci0000:%s" % hb, "0x060400"), (up, "pci0000:%s/%s" % (hb, rp), "0x060400")]
        for k in range(3):
            ds = "0000:%02x:%02x.0" % (bus + 2, k)
            gpu = "0000:%02x:00.0" % (bus + 3 + k)
            devs.append((ds, chain, "0x060400"))
            devs.append((gpu, chain + "/" + ds, "0x030200"))
        for bdf, parent, cls in devs:
            d = "sys/devices/%s/%s" % (parent, bdf)
            for f, v in (("vendor", "0x10de"), ("device", "0x2330"), ("class", cls), ("numa_node", str(node)),
                         ("local_cpulist", cpus), ("max_link_width", "16"), ("current_link_width", "16"),
                         ("max_link_speed", "32.0 GT/s PCIe"), ("current_link_speed", "32.0 GT/s PCIe")):
                w(d + "/" + f, v + "\n")
            l = os.path.join(root, "sys/bus/pci/devices", bdf)
            os.makedirs(os.path.dirname(l), exist_ok=True)
            if not os.path.lexists(l):
                os.symlink("../../../devices/%s/%s" % (parent, bdf), l)
for n, cpus in ((0, "0-7"), (1, "8-15")):
    w("sys/devices/system/node/node%d/cpulist" % n, cpus + "\n")
w("sys/devices/system/node/online", "0-1\n")
PY
for f in pci-8gpu-switches pci-2socket-remote pci-numa-unknown pci-matrix-mixed pci-4modules-shared-uplink \
	 pci-gpu-downtrained-x4 pci-gpu-slot-limited-x8 pci-gpu-x16-full pci-nic pci-vm-passthrough wide; do
	n=$((n + 1))
	case $f in wide) sr=$tmp/wide ;; *) sr=$src/fixtures/$f ;; esac
	"$NODEAUDIT" --sysroot "$sr" probe --only numa,pci --format json >"$tmp/$f.json" 2>"$tmp/$f.err"
	if python3 "$tmp/check.py" "$sr" "$tmp/$f.json" >"$tmp/$f.out" 2>&1
	then echo "ok $n - $f: pci.matrix equals the paths of its sysfs tree"
	else echo "not ok $n - $f"; sed 's/^/# /' "$tmp/$f.out" "$tmp/$f.err" | head -20; fail=$((fail + 1)); fi
	# The text matrix fits 80 columns; beyond 8 devices it wraps by groups
	# of devices, each group with every row.
	n=$((n + 1))
	COLUMNS=80 "$NODEAUDIT" --sysroot "$sr" probe --only numa,pci | sed -n '/^PCI device matrix/,/^[A-Z]/p' >"$tmp/$f.txt"
	devs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pci"]["matrix"]["devices"]))' "$tmp/$f.json")
	if awk -v n="$devs" '
		length($0) > 80 { print "# too wide: " $0; bad = 1 }
		/^        (ACC|NIC|NVM)/ { blocks++; cols += NF - ($0 ~ /CPU affinity/ ? 3 : 0) }
		/^  (ACC|NIC|NVM)[0-9]+ +(X|PIX|PXB|PHB|NODE|SYS|\?)( |$)/ { rows++ }
		END { if (n > 0 && (cols != n || rows != n * blocks)) { print "# " cols " columns, " rows " rows in " blocks " blocks for " n " devices"; bad = 1 }
		      if (n > 8 && blocks < 2) { print "# not wrapped"; bad = 1 }
		      exit bad }' "$tmp/$f.txt"
	then echo "ok $n - $f: the text matrix fits 80 columns ($devs devices)"
	else echo "not ok $n - $f: text matrix"; fail=$((fail + 1)); fi
done
# A wide terminal and a long CPU list (every other CPU of 400, 689 bytes,
# in ACC0's local_cpulist): the row carries its cells and the list whole
# (the row was cut at 511 bytes).
n=$((n + 1))
cp -R "$src/fixtures/pci-matrix-mixed" "$tmp/longlist" && chmod -R u+w "$tmp/longlist"
list=$(python3 -c 'print(",".join(str(i) for i in range(0, 400, 2)))')
printf '%s\n' "$list" >"$tmp/longlist/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/local_cpulist"
COLUMNS=1000 "$NODEAUDIT" --sysroot "$tmp/longlist" probe --only numa,pci >"$tmp/longlist.txt" 2>"$tmp/longlist.err"
# One block (every device fits 1000 columns); ACC0's row: its label, a
# cell per device, the list whole, its node.
if awk -v list="$list" '
	/^        ACC0 / { heads = NF - 3 }
	/^  ACC0  X / { cells = NF - 3; last = $(NF - 1) " " $NF }
	END { exit !(heads > 1 && cells == heads && last == list " 0") }' "$tmp/longlist.txt"
then echo "ok $n - a 689-byte CPU list whole in a 1000-column matrix row"
else echo "not ok $n - the matrix row of a long CPU list is cut"; grep '^  ACC0  X' "$tmp/longlist.txt" | cut -c1-100 | sed 's/^/# /'; fail=$((fail + 1)); fi
echo "1..$n"
[ $fail -eq 0 ]
