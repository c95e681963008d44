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
has "an expected choice as a list" 'any of:<ul class="vals"><li>avx2</li><li>dotprod</li><li>sve</li></ul>' "$p"
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
sys.exit(0 if p.nics and all("numa-unknown" not in c for c in p.nics) else 1)
PY
then ok "one-node VM: its NICs are drawn with the machine's CPUs, not as of an unknown node"; else nok "one-node VM: a NIC outside its node"; fi
hasnt "one-node VM: no box of devices on an unknown node" 'data-part="numa-unknown"' "$tmp/vm.html"
hasnt "one-node VM: nothing on a node the report does not know" 'NUMA node the report does not know' "$tmp/vm.html"

# CPU-less NUMA nodes (numa-sparse: nodes 34, 45 and 73 have none).
"$NODEAUDIT" --sysroot "$src/fixtures/numa-sparse" check --format html -o "$tmp/sparse.html" 2>/dev/null
has "a NUMA node without CPUs says so" 'NUMA node P#34 · 64 GiB · no CPUs (memory only)' "$tmp/sparse.html"
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

# The fleet of the 10 shared real-machine captures (when ../shared is
# here): one check document each, one fleet page over them.
shared=${NODEAUDIT_SHARED:-$top_srcdir/../shared}
pages="c fleet"
if [ -d "$shared/fixtures/real/sysfs" ]; then
	mkdir -p "$tmp/real/reports"
	k=0
	for c in "$shared"/fixtures/real/sysfs/*/; do
		t=$(ls "$c"*.tar.* 2>/dev/null | head -n 1)
		[ -n "$t" ] || continue
		name=$(basename "$c")
		root=$tmp/real/cap/$name
		mkdir -p "$root"
		tar -xf "$t" -C "$root" 2>/dev/null || { nok "real: unpack $name"; continue; }
		if [ ! -d "$root/sys" ]; then
			for d in "$root"/*/fsroot "$root"/*; do [ -d "$d/sys" ] && { root=$d; break; }; done
		fi
		"$NODEAUDIT" --sysroot "$root" check --format json >"$tmp/real/reports/$name.json" 2>/dev/null
		[ $? -le 2 ] && k=$((k + 1)) || nok "real: check of $name"
		rm -rf "$tmp/real/cap"
	done
	"$NODEAUDIT" report "$tmp/real/reports" --format html -o "$tmp/real.html" 2>/dev/null
	has "real: a fleet of the $k shared captures" "<h1>Fleet: $k nodes</h1>" "$tmp/real.html"
	[ "$k" -ge 10 ] && ok "real: 10 captures or more ($k)" || nok "real: only $k captures"
	pages="c fleet real"
else
	echo "# $shared/fixtures/real absent: no fleet of the shared captures"
fi

## The pages in a real browser (skipped under NODEAUDIT_QUICK or without
## chromium): no script and nothing fetched; at 1400 and 800 px wide no
## horizontal scrolling, no text past its box (measured by the browser in a
## test copy of the page with a measuring script added: the pages carry
## none), and the failure colours (the drawing's #ffcecb, the grid's and
## the bars' #ff8182) only on the parts that fail, each of them showing it;
## the fleets' grid and distributions on the first screen at 1400 x 900
## (the 12-node fleet of report-outliers.sh and the 10 shared captures).
for f in $(for p in $pages; do echo "$tmp/$p.html"; done); do
	if grep -qi '<script\|<iframe\|<img\|<link\|url(\|src=\|href="http' "$f"; then nok "$(basename "$f"): script or something to fetch"
	else ok "$(basename "$f"): no script, nothing to fetch"; fi
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$f" && ok "$(basename "$f"): a policy that forbids any fetch" ||
		nok "$(basename "$f"): no Content-Security-Policy"
done
browser=
for b in chromium chromium-browser; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
if [ -n "${NODEAUDIT_QUICK:-}" ] || [ -z "$browser" ] || [ -n "${NODEAUDIT_EMULATED_ALL:-}" ]; then
	why=${NODEAUDIT_QUICK:+NODEAUDIT_QUICK}
	why=${why:-${NODEAUDIT_EMULATED_ALL:+"chromium runs under $NODEAUDIT_EMULATED_ALL, which lacks what its GPU process and sandbox ask of the kernel"}}
	why=${why:-no chromium}
	n=$((n + 1)); echo "ok $n - pages in a browser at 1400 and 800 px # SKIP $why"
	echo "1..$n"; [ $fail -eq 0 ]; exit
fi
run_browser() {   # width height out-flag file
	HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars --force-device-scale-factor=1 \
		--proxy-server=127.0.0.1:9 --user-data-dir="$(mktemp -d "$tmp/prof.XXXXXX")" --window-size="$1,$2" "$3" \
		"file://$4"
}
cat >"$tmp/measure.js" <<'JS'
(function () {
	var out = { w: innerWidth, sw: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight,
		    boxes: [], over: [], marked: 0 };
	function box(e) { var r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }
	document.querySelectorAll('rect[data-mark="fail"], g[data-part="legend-item"] > rect, rect[data-status="fail"], ' +
				  'g.figure[data-status="fail"] rect').forEach(function (e) { out.boxes.push(box(e)); });
	out.marked = document.querySelectorAll('rect[data-mark="fail"]').length;
	['grid', 'distributions'].forEach(function (id) {
		var e = document.getElementById(id);
		if (e) out[id] = e.getBoundingClientRect().bottom + scrollY;
	});
	document.querySelectorAll('svg.nodemap text').forEach(function (t) {
		var r = t.parentNode.querySelector(':scope > rect');
		if (!r) return;
		var a = t.getBoundingClientRect(), b = r.getBoundingClientRect();
		if (a.right > b.right + 1 || a.left < b.left - 1 || a.bottom > b.bottom + 2)
			out.over.push(['svg', t.textContent, Math.round(a.right - b.right)]);
	});
	document.querySelectorAll('td, th, .card, .verdict, figcaption, h1, h2, p').forEach(function (e) {
		if (e.scrollWidth > e.clientWidth + 1)
			out.over.push([e.tagName, e.textContent.slice(0, 60), e.scrollWidth - e.clientWidth]);
	});
	var p = document.createElement('pre');
	p.id = 'measure';
	p.textContent = JSON.stringify(out);
	document.body.appendChild(p);
})();
JS
cat >"$tmp/png.py" <<'PY'
import struct, zlib
def png(path):
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + ln
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
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows
PY
for page in $pages; do
	for width in 1400 800; do
		sed -e '/Content-Security-Policy/d' -e "s|</body>|<script>$(tr '\n' ' ' <"$tmp/measure.js" | sed 's/[&|]/\\&/g')</script></body>|" \
			"$tmp/$page.html" >"$tmp/$page-m.html"
		run_browser "$width" 900 --dump-dom "$tmp/$page-m.html" >"$tmp/$page-$width.dom" 2>/dev/null
		h=$(python3 -c 'import html,json,re,sys; m=re.search(r"<pre id=\"measure\">(.*?)</pre>", open(sys.argv[1]).read(), re.S); print(json.loads(html.unescape(m.group(1)))["h"] if m else 900)' "$tmp/$page-$width.dom" 2>/dev/null)
		run_browser "$width" "${h:-900}" --screenshot="$tmp/$page-$width.png" "$tmp/$page.html" >/dev/null 2>&1
		if python3 - "$tmp/$page-$width.dom" "$tmp/$page-$width.png" "$tmp" "$page" >"$tmp/px" 2>&1 <<'PY'
import html, json, re, sys
sys.path.insert(0, sys.argv[3])
from png import png
m = re.search(r'<pre id="measure">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
if not m:
    print("the measuring copy did not report"); sys.exit(1)
d = json.loads(html.unescape(m.group(1)))
bad = []
if d["sw"] > d["w"]:
    bad.append("%d px of content in a %d px window: it scrolls sideways" % (d["sw"], d["w"]))
for o in d["over"][:5]:
    bad.append("text past its box: %s %r by %s px" % tuple(o))
w, h, bpp, rows = png(sys.argv[2])
FAIL = (bytes((0xff, 0xce, 0xcb)), bytes((0xff, 0x81, 0x82)))
boxes = d["boxes"]
def inside(x, y, b):
    return b[0] - 2 <= x <= b[0] + b[2] + 2 and b[1] - 2 <= y <= b[1] + b[3] + 2
hits, stray, total = [0] * len(boxes), [], 0
for y in range(h):
    row = rows[y]
    for x in range(w):
        px = row[x * bpp:x * bpp + 3]
        if px not in FAIL:
            continue
        total += 1
        k = [i for i, b in enumerate(boxes) if inside(x, y, b)]
        for i in k:
            hits[i] += 1
        if not k:
            stray.append((x, y))
if stray:
    bad.append("%d failure-coloured pixels outside the failing parts, e.g. %s" % (len(stray), stray[:3]))
shown = sum(1 for b, n in zip(boxes, hits) if n > 0)
if boxes and shown < len(boxes) // 2:
    bad.append("only %d of %d failing parts show the failure colour" % (shown, len(boxes)))
# The fleet at a glance: its grid and its distributions on the first screen
# of a 1400 x 900 window.
if sys.argv[4] in ("fleet", "real") and d["w"] == 1400:
    for k in ("grid", "distributions"):
        if k not in d or d[k] > 900:
            bad.append("the %s ends at %s px: not on the first screen" % (k, d.get(k)))
if sys.argv[4] == "c" and d["marked"] < 1:
    bad.append("no part marked failing on the check page, want the empty slot")
print("# %dx%d: %d failure-coloured pixels in %d failing parts (%d show it); %d overflows" % (w, h, total, len(boxes), shown, len(d["over"])))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
		then ok "$page page at $width px: no sideways scrolling, no text past its box, failure colours on failing parts only"
		else nok "$page page at $width px"; fi
		sed 's/^# //; s/^/# /' "$tmp/px" | head -8
	done
done
echo "1..$n"
[ $fail -eq 0 ]
