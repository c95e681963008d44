#!/bin/sh
# svg-drawing.sh - the node drawing (probe --format svg, check --format svg,
# the drawing in check --format html).  The node: two sockets with SMT
# (fixtures/cpu-2s-smt), two NUMA nodes on them, the PCI tree of
# fixtures/pci-matrix-mixed (a GPU trained at x8 in a x16 slot, a NIC whose
# NUMA node is unknown), and the SMBIOS table tests/smbios/server-empty-
# channel.desc (16 slots, P2-DIMMD1 empty).  Checked: the SVG is well-formed
# XML (xmllint) and the same bytes on every run; probe's drawing colours
# nothing; the check's drawing marks exactly the parts its failing findings
# name (the empty slot, the x8 link), every warning and failure on a part
# (the host, kernel and process settings in boxes of their own: the copy's
# vm.swappiness is 60), nested as the machine is (package > NUMA node > L3 >
# core; switches under their host bridge); and, rendered
# by headless Chromium (network cut off), the fail colour is on those parts
# and nowhere else, the good DIMMs stay neutral, and the page shows the same
# drawing.  Skips the parts that need xmllint or chromium when absent, and
# chromium under NODEAUDIT_QUICK.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
src=$(cd "$top_srcdir/tests" && pwd)
mk=${top_builddir:-.}/tests/mksmbios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/svgdraw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

m=$tmp/node
mkdir -p "$m"
for f in cpu-2s-smt pci-matrix-mixed; do cp -R "$src/fixtures/$f/." "$m/"; done
echo "0-7,16-23" >"$m/sys/devices/system/node/node0/cpulist"
echo "8-15,24-31" >"$m/sys/devices/system/node/node1/cpulist"
mkdir -p "$m/proc/sys/vm" && echo 60 >"$m/proc/sys/vm/swappiness"
"$mk" "$src/smbios/server-empty-channel.desc" "$tmp/smbios.bin" || nok "mksmbios"
cat >"$tmp/profile.json" <<'P'
{"name": "svg-test", "extends": "agent-accelerator-host",
 "checks": {"memory.channels.populated_ratio": {"min": 1.0, "severity": "fail"}}}
P
na() { "$NODEAUDIT" --sysroot "$m" --smbios "$tmp/smbios.bin" "$@"; }
na probe --format svg >"$tmp/probe.svg" 2>"$tmp/probe.err"; rc=$?
na probe --format svg >"$tmp/probe2.svg" 2>/dev/null
[ $rc -eq 0 ] && [ -s "$tmp/probe.svg" ]; [ $? -eq 0 ] && ok "probe --format svg exits 0" || nok "probe --format svg exits $rc"
cmp -s "$tmp/probe.svg" "$tmp/probe2.svg" && ok "probe's drawing is the same bytes twice" || nok "probe's drawing differs between runs"
na check --profile "$tmp/profile.json" --format svg >"$tmp/check.svg" 2>/dev/null; rc=$?
[ $rc -eq 2 ] && ok "check --format svg exits 2 (failing findings)" || nok "check --format svg exits $rc"
na check --profile "$tmp/profile.json" --format html -o "$tmp/check.html" 2>/dev/null
na check --profile "$tmp/profile.json" --format json >"$tmp/check.json" 2>/dev/null
if command -v xmllint >/dev/null 2>&1; then
	for f in probe check; do
		if xmllint --noout "$tmp/$f.svg" 2>"$tmp/$f.lint"; then ok "$f.svg is well-formed XML"
		else nok "$f.svg: xmllint"; sed 's/^/# /' "$tmp/$f.lint" | head -5; fi
	done
else
	skip "probe.svg is well-formed XML" "no xmllint"; skip "check.svg is well-formed XML" "no xmllint"
fi

# The structure, from the XML alone (python's parser, independent of the tool).
if python3 - "$tmp/probe.svg" "$tmp/check.svg" "$tmp/check.json" >"$tmp/struct" 2>&1 <<'PY'
import json, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
bad = []
def parts(root):
    out = []
    def walk(e, chain):
        p = e.get("data-part")
        c = chain + [e] if p else chain
        if p:
            out.append((p, e, c))
        for k in e:
            walk(k, c)
    walk(root, [])
    return out
probe, check = ET.parse(sys.argv[1]).getroot(), ET.parse(sys.argv[2]).getroot()
report = json.load(open(sys.argv[3]))
if any(r.get("data-mark") for r in probe.iter(NS + "rect")):
    bad.append("probe's drawing marks a part")
ps = parts(check)
def chain_parts(c):
    return [x.get("data-part") for x in c]
# Nesting: every core in an L3 group in a package in the machine (each
# NUMA node is its package's: a strip in it, as lstopo draws it).
for p, e, c in ps:
    if p == "core" and chain_parts(c)[:3] != ["machine", "package", "l3"]:
        bad.append("core not nested machine>package>l3: %s" % chain_parts(c))
cores = [e for p, e, c in ps if p == "core"]
f = report["facts"]
if len(cores) != f["cpu"]["cores"]:
    bad.append("%d cores drawn, %d in the facts" % (len(cores), f["cpu"]["cores"]))
if sum(int(e.get("data-threads")) for e in cores) != f["cpu"]["threads"]:
    bad.append("threads drawn differ from the facts")
nodes = [(e.get("data-node"), [x.get("data-package") for x in c if x.get("data-part") == "package"])
         for p, e, c in ps if p == "numa-node"]
if sorted(nodes) != [("0", ["0"]), ("1", ["1"])]:
    bad.append("NUMA nodes in packages: %s" % nodes)
# The switch 05:00.0 sits below downstream port 02:02.0 of switch 01:00.0,
# below root port 00:01.0 of host bridge pci0000:00 (the fixture's README).
sw = {e.get("data-bdf"): [x.get("data-bdf") or x.get("data-part") for x in c[:-1]] for p, e, c in ps if p == "switch"}
if sw.get("0000:05:00.0", [])[-4:] != ["host-bridge", "0000:00:01.0", "0000:01:00.0", "0000:02:02.0"]:
    bad.append("nested switch: %s" % sw)
# The NIC whose NUMA node is unknown (its bus names every CPU local) sits at
# the machine, in no package, as lstopo puts it, and says so.
for p, e, c in ps:
    if p == "nic" and e.get("data-bdf") == "0000:41:00.0":
        if "package" in chain_parts(c) or "numa-node" in chain_parts(c):
            bad.append("0000:41:00.0 in a package or node: %s" % chain_parts(c))
        if "NUMA unknown" not in "".join(e.itertext()):
            bad.append("0000:41:00.0 does not say its node is unknown")
# Slots: 15 DIMMs and the empty P2-DIMMD1, each named.
dimms = [e.get("data-locator") for p, e, c in ps if p == "dimm"]
empty = [e.get("data-locator") for p, e, c in ps if p == "slot-empty"]
if len(dimms) != 15 or empty != ["P2-DIMMD1"]:
    bad.append("dimms %s, empty %s" % (dimms, empty))
# The marks: exactly the empty slot and the x8 link carry fail.
fails = []
for p, e, c in ps:
    for r in e.findall(NS + "rect"):
        if r.get("data-mark") == "fail":
            fails.append((p, c[-2].get("data-bdf") if p == "link" else e.get("data-locator"), r.get("data-finding")))
want = [("slot-empty", "P2-DIMMD1", "memory.channels.populated_ratio"), ("link", "0000:81:00.0", "pci.accelerator.link_width_ratio")]
if sorted(fails) != sorted(want):
    bad.append("fail marks %s, want %s" % (fails, want))
# Every finding that warns or fails is drawn: on a part (data-finding), or
# in the legend as sharing a part; the host, kernel and process settings
# each in a box of its own in their strip, with its value.
drawn = {r.get("data-finding") for r in check.iter(NS + "rect") if r.get("data-finding")}
legend_text = " ".join("".join(e.itertext()) for p, e, c in ps if p == "legend-item")
for x in report["findings"]:
    if x["status"] in ("warn", "fail") and x["id"] not in drawn and (" " + x["id"]) not in legend_text:
        bad.append("finding %s (%s) is drawn nowhere" % (x["id"], x.get("key", "")))
settings = [(e.get("data-check"), "".join(e.itertext())) for p, e, c in ps if p == "setting"]
for x in report["findings"]:
    if x["status"] in ("warn", "fail") and (x["id"].startswith(("kernel.", "process.")) or x["id"] == "numa.balancing"):
        if not any(k == x["id"] and (x.get("key") or x["id"]) in t for k, t in settings):
            bad.append("setting %s %s has no box of its own: %s" % (x["id"], x.get("key", ""), settings))
if not settings:
    bad.append("no setting box: the fixture's swappiness (60) warns under agent-accelerator-host")
failing = sorted(x["id"] for x in report["findings"] if x["status"] == "fail")
for fid in ("memory.channels.populated_ratio", "pci.accelerator.link_width_ratio"):
    if fid not in failing:
        bad.append("the report does not fail %s: %s" % (fid, failing))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "check.svg: nested topology, slots by locator, fail marks on the empty slot and the x8 link only"
else nok "check.svg structure"; sed 's/^/# /' "$tmp/struct"; fi

# The text names the empty slot as well.
na check --profile "$tmp/profile.json" >"$tmp/check.txt" 2>/dev/null
grep -q "15 of 16 channels populated; empty: P2-DIMMD1 (package 1, channel D)" "$tmp/check.txt" &&
	ok "check's text names the empty slot P2-DIMMD1" || nok "check's text does not name the empty slot"

## A function the kernel lists but whose identity cannot be read
# (fixtures/pci-garbled-sysfs: 00:02.0 has a class file of "3D" and no
# device file; the probe leaves its class null and says why in a gap).
# lstopo keeps it (hwloc reads an unparsable class as 0, "unclassified",
# which its default filter keeps): the drawing shows it once, dashed, with
# the reason visible and in its <title>; the readable accelerator 01:00.0
# is drawn as before.
u=$tmp/unread
cp -R "$src/fixtures/cpu-2s-smt" "$u" && cp -R --remove-destination "$src/fixtures/pci-garbled-sysfs/." "$u/"
"$NODEAUDIT" --sysroot "$u" probe --format svg >"$tmp/unread.svg" 2>/dev/null
"$NODEAUDIT" --sysroot "$u" probe --format json >"$tmp/unread.json" 2>/dev/null
if python3 - "$tmp/unread.svg" "$tmp/unread.json" >"$tmp/unread.out" 2>&1 <<'PY'
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
facts = json.load(open(sys.argv[2]))
i = [d["bdf"] for d in facts["pci"]["devices"]].index("0000:00:02.0")
why = [g["reason"] for g in facts["gaps"] if g["fact"] == "pci.devices[%d].class" % i]
bad = []
if facts["pci"]["devices"][i]["class"] is not None or len(why) != 1:
    bad.append("the facts: class %r, gap %r (the fixture changed?)" % (facts["pci"]["devices"][i]["class"], why))
else:
    why = why[0]
    short = why.replace("/sys/bus/pci/devices/0000:00:02.0/", "")
    g = [e for e in root.iter(ns + "g") if e.get("data-bdf") == "0000:00:02.0"]
    if len(g) != 1:
        bad.append("00:02.0 drawn %d times" % len(g))
    else:
        g = g[0]
        texts = [t.text for t in g.findall(ns + "text")]
        title = g.find(ns + "title")
        if texts != ["PCI 00:02.0", "unreadable: " + short]:
            bad.append("its lines: %r" % texts)
        if title is None or not title.text.endswith("unreadable: " + why):
            bad.append("its title: %r" % (title.text if title is not None else None))
        if g.get("data-part") != "device" or g.find(ns + "rect").get("stroke-dasharray") is None:
            bad.append("not a dashed device: %r" % g.attrib)
    acc = [e for e in root.iter(ns + "g") if e.get("data-bdf") == "0000:01:00.0"]
    if len(acc) != 1 or acc[0].get("data-part") != "accelerator":
        bad.append("01:00.0: %r" % [e.attrib for e in acc])
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "an unreadable PCI function is drawn once, dashed, with its reason"
else nok "an unreadable PCI function"; sed 's/^/# /' "$tmp/unread.out" | head -5; fi

## A tree whose topology files are garbage (fixtures/cpu-garbled: online
## 0-3, packages and cores unknown): no package is drawn (none is known;
## one used to be, "CPUs , 0 cores"), and the four online CPUs are, each a
## dashed hardware thread whose title says its core is unknown.  A tree of
## /proc/cpuinfo alone (cpu-arm-graviton2): its one CPU, and the model on
## the machine.
if command -v python3 >/dev/null 2>&1; then
	"$NODEAUDIT" --sysroot "$src/fixtures/cpu-garbled" probe --format svg >"$tmp/garbled.svg" 2>/dev/null
	"$NODEAUDIT" --sysroot "$src/fixtures/cpu-arm-graviton2" probe --format svg >"$tmp/cpuinfo.svg" 2>/dev/null
	if python3 - "$tmp/garbled.svg" "$tmp/cpuinfo.svg" <<'PY' >"$tmp/loose.out" 2>&1
import re, sys
bad = []
for path, cpus, model in ((sys.argv[1], [0, 1, 2, 3], None), (sys.argv[2], [0], "Neoverse-N1")):
    s = open(path).read()
    if 'data-part="package"' in s or 'data-part="core"' in s:
        bad.append("%s: a package or core the facts do not give" % path)
    th = re.findall(r'<g data-part="thread" data-os="(\d+)"><rect [^>]*stroke-dasharray[^>]*/>.*?<title>([^<]*)</title>', s)
    if [int(x) for x, _ in th] != cpus or not all("core unknown" in t for _, t in th):
        bad.append("%s: threads %r" % (path, th))
    if model and ">%s</text>" % model not in s:
        bad.append("%s: no %s" % (path, model))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	then ok "CPUs whose cores are unknown: dashed threads, no invented package or core"
	else nok "CPUs whose cores are unknown"; sed 's/^/# /' "$tmp/loose.out" | head -5; fi
fi

## A setting whose values do not fit its box: its line is cut with "...",
## and the box's <title> says it whole.  A 699-byte expected value (the
## line was cut, the value nowhere whole), and an observed kernel.core_pattern
## of 855 bytes (clipped at 40 characters, and nowhere whole either).
v=$tmp/values
cp -R "$src/fixtures/kernel-tuned-server" "$v" && chmod -R u+w "$v"
core=$(python3 -c 'print("|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" + " --x" * 200)')
printf '%s\n' "$core" >"$v/proc/sys/kernel/core_pattern"
val=$(python3 -c 'print(" ".join(["1"] * 350))')
printf '{"name": "longvalues", "checks": {"kernel.sysctl": {"vm.swappiness": {"expect": "%s", "severity": "warn"}, "kernel.core_pattern": {"expect": "core", "severity": "warn"}}}}\n' "$val" >"$tmp/values.json"
"$NODEAUDIT" --sysroot "$v" check --profile "$tmp/values.json" --format svg >"$tmp/values.svg" 2>/dev/null
if python3 - "$tmp/values.svg" "$val" "$core" >"$tmp/values.out" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
val, core = sys.argv[2], sys.argv[3]
want = {"vm.swappiness": "10, expected " + val, "kernel.core_pattern": "observed " + core}
bad = []
for key, whole in want.items():
    g = [e for e in root.iter(ns + "g") if e.get("data-part") == "setting" and
         [t.text for t in e.findall(ns + "text")][:1] == [key]]
    if len(g) != 1:
        bad.append("%s: %d setting boxes" % (key, len(g)))
        continue
    lines = [t.text for t in g[0].findall(ns + "text")]
    title = g[0].find(ns + "title")
    if "..." not in lines[1]:
        bad.append("%s: its line is not cut: %r" % (key, lines[1][-40:]))
    if title is None or ("\n" + whole + "\n") not in title.text:
        bad.append("%s: its title lacks the whole value: %r" % (key, title.text[:120] if title is not None else None))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "a setting's values cut in its box are whole in its title"
else nok "a setting's values cut in its box"; sed 's/^/# /' "$tmp/values.out" | head -5; fi

## Pixels, in a real browser.
browser=
for b in chromium chromium-browser; do
	command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -n "${NODEAUDIT_QUICK:-}" ] || [ -z "$browser" ] || [ -n "${NODEAUDIT_EMULATED_ALL:-}" ]; then
	why=${NODEAUDIT_QUICK:+NODEAUDIT_QUICK}
	why=${why:-${NODEAUDIT_EMULATED_ALL:+"chromium runs under $NODEAUDIT_EMULATED_ALL, which lacks what its GPU process and sandbox ask of the kernel"}}
	why=${why:-no chromium}
	skip "the fail colour is on the failing parts only (screenshot)" "$why"
	skip "the page's drawing has the same failing parts (screenshot)" "$why"
	echo "1..$n"; [ $fail -eq 0 ]; exit
fi
shot() {
	HOME=$tmp timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
		--force-device-scale-factor=1 --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
		--user-data-dir="$tmp/profile" --window-size=1280,$2 --virtual-time-budget=5000 \
		--screenshot="$tmp/$3.png" "file://$1" >"$tmp/$3.out" 2>&1
}
h=$(sed -n 's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$tmp/check.svg" | head -n 1)
shot "$tmp/check.svg" $((h + 20)) svg
shot "$tmp/check.html" 4000 page
cat >"$tmp/png.py" <<'PY'
import struct, zlib
def png(path):
    """RGB rows of a PNG (8-bit RGB or RGBA, any filter)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + ln
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows
PY
if python3 - "$tmp/svg.png" "$tmp/check.svg" "$tmp/page.png" "$tmp" >"$tmp/pix" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
sys.path.insert(0, sys.argv[4])
from png import png
NS = "{http://www.w3.org/2000/svg}"
FAIL = (0xff, 0xce, 0xcb)
DIMM = (0xc9, 0xd1, 0xd9)
root = ET.parse(sys.argv[2]).getroot()
def box(r):
    return tuple(int(float(r.get(k))) for k in ("x", "y", "width", "height"))
marked = [box(r) for r in root.iter(NS + "rect") if r.get("data-mark") == "fail"]
legend = [box(r) for g in root.iter(NS + "g") if g.get("data-part") == "legend" for r in g.iter(NS + "rect")]
dimm = [box(r) for g in root.iter(NS + "g") if g.get("data-part") == "dimm" for r in g.iter(NS + "rect")]
w, h, rows = png(sys.argv[1])
def inside(x, y, b, pad=3):
    return b[0] - pad <= x <= b[0] + b[2] + pad and b[1] - pad <= y <= b[1] + b[3] + pad
bad, stray, hits = [], [], [0] * len(marked)
total = 0
for y in range(h):
    for x in range(w):
        if rows[y][x] != FAIL:
            continue
        total += 1
        k = [i for i, b in enumerate(marked) if inside(x, y, b)]
        for i in k:
            hits[i] += 1
        if not k and not any(inside(x, y, b) for b in legend):
            stray.append((x, y))
if stray:
    bad.append("%d fail-coloured pixels outside the failing parts, e.g. %s" % (len(stray), stray[:3]))
for b, n in zip(marked, hits):
    if n < 0.3 * b[2] * b[3]:
        bad.append("failing part at %s has %d fail-coloured pixels" % (b, n))
neutral = sum(1 for b in dimm if rows[b[1] + b[3] // 2][b[0] + 2] == DIMM)
if neutral != len(dimm):
    bad.append("%d of %d DIMMs neutral" % (neutral, len(dimm)))
# The page: the same drawing, so as many fail-coloured pixels (the
# findings table uses other colours).
pw, ph, prows = png(sys.argv[3])
ptotal = sum(1 for r in prows for p in r if p == FAIL)
if abs(ptotal - total) > 0.02 * total + 10:
    bad.append("page: %d fail-coloured pixels, the drawing alone %d" % (ptotal, total))
print("# %d fail-coloured pixels on %d failing parts; %d DIMMs neutral; page %d" % (total, len(marked), neutral, ptotal))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "the fail colour is on the failing parts only (screenshot)"; ok "the page's drawing has the same failing parts (screenshot)"
else nok "screenshot pixels"; n=$((n + 1)); sed 's/^/# /' "$tmp/pix" | head -10; fi
head -n 1 "$tmp/pix"
echo "1..$n"
[ $fail -eq 0 ]
