#!/bin/sh
# html-pages.sh - what people read on the HTML pages, without a browser:
# check --format html opens with a one-word verdict; numbers are in human
# units (%, GiB) with the raw value in a title attribute; lists are lists;
# check IDs break only after a dot or an underscore; a fix's command sits on
# a line of its own; the empty slot is named by its locator (finding text
# and drawing).  A one-node VM's NIC whose numa_node is -1 sits in that
# node, a NUMA node without CPUs says so (never "0 cores").  report
# --format html lists the nodes worst first and says the fleet's verdict.
# The node: fixtures cpu-2s-smt + pci-matrix-mixed with the SMBIOS table
# smbios/server-empty-channel.desc (as in svg-drawing.sh).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
src=$(cd "$top_srcdir/tests" && pwd)
mk=${top_builddir:-.}/tests/mksmbios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/htmlpages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
has() { if grep -qF -- "$2" "$3"; then ok "$1"; else nok "$1"; echo "#   lacks: $2"; fi; }
hasnt() { if grep -qF -- "$2" "$3"; then nok "$1"; echo "#   has: $2"; else ok "$1"; fi; }

m=$tmp/node
mkdir -p "$m"
for f in cpu-2s-smt pci-matrix-mixed; do cp -R "$src/fixtures/$f/." "$m/"; done
echo "0-7,16-23" >"$m/sys/devices/system/node/node0/cpulist"
echo "8-15,24-31" >"$m/sys/devices/system/node/node1/cpulist"
"$mk" "$src/smbios/server-empty-channel.desc" "$tmp/smbios.bin" || nok "mksmbios"
"$NODEAUDIT" --sysroot "$m" --smbios "$tmp/smbios.bin" check --format html -o "$tmp/c.html" 2>/dev/null
p=$tmp/c.html
# The verdict comes right after the host name, before anything else.
if sed -n '/<h1>/,$p' "$p" | sed -n 2p | grep -q '^<p class="verdict fail" id="verdict"><b>FAIL</b>: 2 checks fail'
then ok "verdict line first: FAIL and how many fail"; else nok "verdict line"; sed -n '/<h1>/,+2p' "$p" | sed 's/^/# /'; fi
has "a ratio as a percentage, the raw value in the title" '<td><span title="0.9375">93.8%</span></td>' "$p"
has "a speed ratio without float noise on the page" '<span title="0.91666666666666663">91.7%</span>' "$p"
if grep -qE '<td><span title="[0-9]+">[0-9.]+ [KMGT]iB</span></td>' "$p"; then ok "bytes in binary units, raw in the title"
else nok "bytes in binary units, raw in the title"; fi
has "an expected number of bytes in GiB" '<td>&gt;= <span title="4294967296">4 GiB</span></td>' "$p"
has "an expected choice as a list" 'any of:<ul class="vals"><li>avx2</li><li>dotprod</li></ul>' "$p"
has "check IDs break only after dots and underscores" '<code class="cid">memory.<wbr>channels.<wbr>populated_<wbr>ratio</code>' "$p"
has "a fix's command on a line of its own" '</div><div class="cmd"><code>echo off &gt; /sys/devices/system/cpu/smt/control</code></div>' "$p"
has "the empty slot named in the finding" '15 of 16 channels populated; empty: P2-DIMMD1 (package 1, channel D)' "$p"
has "the empty slot named in the drawing" '<g data-part="slot-empty" data-locator="P2-DIMMD1">' "$p"
hasnt "no raw float on the page outside titles" '>0.9375<' "$p"

# A one-node VM: the NIC whose NUMA node is unknown is in that node.
v=$tmp/vm
mkdir -p "$v"
for f in cpu-vm pci-nic; do cp -R "$src/fixtures/$f/." "$v/"; done
for d in "$v"/sys/devices/pci*/*/*/numa_node "$v"/sys/devices/pci*/*/numa_node; do [ -f "$d" ] && echo -1 >"$d"; done
"$NODEAUDIT" --sysroot "$v" check --format html -o "$tmp/vm.html" 2>/dev/null
if python3 - "$tmp/vm.html" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack, self.nics = [], []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "g":
            self.stack.append(a.get("data-part"))
            if a.get("data-part") == "nic":
                self.nics.append(list(self.stack))
    def handle_endtag(self, tag):
        if tag == "g" and self.stack:
            self.stack.pop()
p = P(); p.feed(open(sys.argv[1]).read())
sys.exit(0 if p.nics and all("numa-node" in c and "numa-unknown" not in c for c in p.nics) else 1)
PY
then ok "one-node VM: its NICs are drawn in its node"; else nok "one-node VM: a NIC outside its node"; fi
hasnt "one-node VM: no box of devices on an unknown node" 'data-part="numa-unknown"' "$tmp/vm.html"
hasnt "one-node VM: nothing on a node the report does not know" 'NUMA node the report does not know' "$tmp/vm.html"

# CPU-less NUMA nodes (numa-sparse: nodes 34, 45 and 73 have none).
"$NODEAUDIT" --sysroot "$src/fixtures/numa-sparse" check --format html -o "$tmp/sparse.html" 2>/dev/null
has "a NUMA node without CPUs says so" 'NUMA node 34 · 64 GiB · no CPUs (memory only)' "$tmp/sparse.html"
hasnt "no NUMA node has '0 cores'" '0 cores' "$tmp/sparse.html"

# The fleet: worst first, and a verdict.
sh "$src/report-outliers.sh" --build "$tmp/fleet" >/dev/null 2>&1 || nok "fleet built"
"$NODEAUDIT" report "$tmp/fleet/reports" --format html -o "$tmp/fleet.html" 2>/dev/null
"$NODEAUDIT" report "$tmp/fleet/reports" --format json >"$tmp/fleet.json" 2>/dev/null
if python3 - "$tmp/fleet.html" "$tmp/fleet.json" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
rows = re.findall(r'<tr id="node-[^"]*" class="([a-z]+)"><td>([^<]*)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', page)
rank = {"fail": 0, "unknown": 1, "warn": 2, "pass": 3}
keys = [(rank[c], -int(f), -int(w), -int(u), h) for c, h, e, f, w, u in rows]
j = json.load(open(sys.argv[2]))
ok = rows and keys == sorted(keys) and len(rows) == j["nodes"]["count"]
if not ok:
    print("# rows: %s" % rows[:5])
sys.exit(0 if ok else 1)
PY
then ok "fleet: nodes worst first (critical, unknown, warning, ok; more fails first)"; else nok "fleet: node order"; fi
# node09 was planted with 960 GiB of DIMMs against the fleet's 1 TiB.
has "fleet: outlier values in binary units, raw in the title" '<td><span title="1030792151040">960 GiB</span></td><td class="n">1</td><td><span title="1099511627776">1 TiB</span></td>' "$tmp/fleet.html"
if grep -q '<p class="verdict [a-z]*" id="verdict"><b>\(CRITICAL\|WARNING\|UNKNOWN\|OK\)</b>' "$tmp/fleet.html"
then ok "fleet: verdict line"; else nok "fleet: verdict line"; fi
echo "1..$n"
[ $fail -eq 0 ]
