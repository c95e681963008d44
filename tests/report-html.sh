#!/bin/sh
# report-html.sh - `report --format html` and `check --format html` in a real
# headless browser (Debian's chromium): the page loads with the network cut
# off (a proxy that answers nothing, and the page's own Content-Security-
# Policy) and without console errors, names nothing outside itself, the
# screenshot is not blank, and the numbers in the DOM equal the JSON report.
# The fleet is the one with planted drift of tests/report-outliers.sh; the
# node is a fixture with accelerators, a hybrid CPU and an empty memory channel
# (cpu-rpl-laptop, pci-gpu-x16-full, pci-nic, and an SMBIOS table written
# below: two channels, one DIMM).  Skips (77) without chromium.
set -u
# scripts/test-all runs this once, in the first pass; its distcheck and
# sanitizer passes set NODEAUDIT_QUICK to leave out the slow tool runs.
if [ -n "${NODEAUDIT_QUICK:-}" ]; then echo "# skip: NODEAUDIT_QUICK (run in test-all's first pass)"; exit 77; fi
: "${NODEAUDIT:?}" "${top_srcdir:?}"
browser=
for b in chromium chromium-browser; do
	command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "# no chromium: skipped"; exit 77; }
if [ -n "${NODEAUDIT_EMULATED_ALL:-}" ]; then
	echo "# chromium runs under $NODEAUDIT_EMULATED_ALL, which lacks what its GPU process and sandbox ask of the kernel: skipped"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
src=$(cd "$top_srcdir/tests" && pwd)
mk=${top_builddir:-.}/tests/mksmbios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reporthtml.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# browse PAGE NAME: screenshot and DOM of PAGE into $tmp/NAME.png, $tmp/NAME.dom
browse() {
	for what in screenshot dump; do
		if [ $what = screenshot ]; then a="--screenshot=$tmp/$2.png"; else a=--dump-dom; fi
		HOME=$tmp timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
			--proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' --enable-logging=stderr --v=0 \
			--user-data-dir="$tmp/profile" --window-size=1280,2000 --virtual-time-budget=10000 "$a" "file://$1" \
			>"$tmp/$2.$what" 2>"$tmp/$2.$what.err"
	done
	mv "$tmp/$2.dump" "$tmp/$2.dom"
	if [ -s "$tmp/$2.png" ] && grep -q '</html>' "$tmp/$2.dom"; then ok "$2: chromium loaded the page"
	else nok "$2: chromium did not load the page"; sed 's/^/# /' "$tmp/$2.dump.err" | tail -5; fi
	if grep -hiE 'CONSOLE|Refused to|Failed to load|ERR_' "$tmp/$2.screenshot.err" "$tmp/$2.dump.err" >"$tmp/$2.console"
	then nok "$2: console errors"; sed 's/^/# /' "$tmp/$2.console"; else ok "$2: no console errors"; fi
	# Not blank: the decoded screenshot has many colours, and not one colour on 99% of it.
	if python3 - "$tmp/$2.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + ln]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + ln
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride = 1 + w * bpp
rows = [raw[i * stride + 1:(i + 1) * stride] for i in range(h)]
# filters make raw bytes differ from pixels; sample unfiltered rows (filter 0)
# and the share of the most common byte over every row instead
counts = {}
for r in rows:
    for b in r[::bpp * 7]:
        counts[b] = counts.get(b, 0) + 1
total = sum(counts.values())
sys.exit(0 if len(counts) > 20 and max(counts.values()) < 0.99 * total else 1)
PY
	then ok "$2: screenshot is not blank"; else nok "$2: screenshot is blank"; fi
	if grep -qiE 'https?://|src=|<script|<link|url\(|@import' "$1"
	then nok "$2: page refers to something outside"; grep -oiE '.{20}(https?://|src=|<script|<link|url\(|@import).{20}' "$1" | head -3 | sed 's/^/# /'
	else ok "$2: page refers to nothing outside"; fi
}

## The fleet.
sh "$src/report-outliers.sh" --build "$tmp/fleet" || { nok "fleet built"; echo "1..$n"; exit 1; }
"$NODEAUDIT" report "$tmp/fleet/reports" --format json >"$tmp/fleet.json" 2>/dev/null
"$NODEAUDIT" report "$tmp/fleet/reports" --format html -o "$tmp/fleet.html" 2>/dev/null
rc=$?
if [ $rc -eq 2 ] && [ -s "$tmp/fleet.html" ]; then ok "report --format html exits 2 and writes the page"
else nok "report --format html exits $rc"; fi
browse "$tmp/fleet.html" fleet
if python3 - "$tmp/fleet.dom" "$tmp/fleet.json" >"$tmp/cmp" 2>&1 <<'PY'
import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.stack, self.checks, self.outliers, self.nodes = {}, [], [], [], []
        self.cur = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a))
        if tag == "tr" and "data-check" in a:
            self.cur = {"id": a["data-check"], "key": a["data-key"], "cells": {}}
            self.checks.append(self.cur)
        if tag == "tr" and "data-fact" in a:
            self.cur = {"fact": a["data-fact"], "links": [], "texts": []}
            self.outliers.append(self.cur)
        if tag == "tr" and a.get("id", "").startswith("node-"):
            self.nodes.append(a["id"])
            self.cur = None
    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
    def handle_data(self, d):
        if not self.stack:
            return
        tag, a = self.stack[-1]
        if "id" in a and tag == "b":
            self.ids[a["id"]] = self.ids.get(a["id"], "") + d
        if tag == "span" and a.get("id") == "fleet-exit":
            self.ids["fleet-exit"] = d
        if self.cur is not None and "data-status" in a and tag == "td":
            self.cur["cells"][a["data-status"]] = int(d)
        if self.cur is not None and "fact" in self.cur and tag == "a":
            self.cur["links"].append(d)
p = P()
p.feed(open(sys.argv[1]).read())
j = json.load(open(sys.argv[2]))
bad = []
def same(what, got, want):
    if str(got) != str(want):
        bad.append("%s: page %r, json %r" % (what, got, want))
same("nodes", p.ids.get("count-nodes"), j["nodes"]["count"])
same("files", p.ids.get("count-files"), j["inputs"]["files"])
same("skipped", p.ids.get("count-skipped"), j["inputs"]["skipped"])
for e in ("ok", "warning", "critical", "unknown"):
    same(e, p.ids.get("count-" + e), j["nodes"][e])
same("exit", p.ids.get("fleet-exit"), j["exit"])
same("outlier facts", p.ids.get("count-outlier-facts"), len(j["outliers"]["facts"]))
same("check rows", len(p.checks), len(j["checks"]))
for hc, jc in zip(p.checks, j["checks"]):
    same("check id", (hc["id"], hc["key"]), (jc["id"], jc.get("key", "")))
    for st in ("pass", "warn", "fail", "unknown", "skip", "info"):
        same("%s %s %s" % (jc["id"], jc.get("key", ""), st), hc["cells"].get(st), jc[st])
got = sorted((o["fact"], n) for o in p.outliers for n in o["links"])
want = sorted((f["fact"], n) for f in j["outliers"]["facts"] for v in f["values"] for n in v["nodes"])
same("outliers", got, want)
same("node rows", len(p.nodes), j["nodes"]["count"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "fleet: the numbers in the page equal the JSON report"
else nok "fleet: page and JSON differ"; sed 's/^/# /' "$tmp/cmp"; fi
# every planted node is shown as an outlier of its fact
for pair in "cpu.smt.active node03" "pci.accelerators[].link.width.current node05" \
	"kernel.sysctl.vm.swappiness node07" "memory.channels.populated node09"; do
	f=${pair% *} h=${pair#* }
	# the fact's whole name, breaking only after a dot or an underscore
	if tr '\n' ' ' <"$tmp/fleet.dom" | sed 's/<wbr>//g' | grep -qF "data-fact=\"$f\"><td><code class=\"cid\">$f</code></td>" &&
	   grep -F "data-fact=\"$f\"" "$tmp/fleet.dom" | grep -qF "#node-$h\">$h</a>"
	then ok "fleet page shows $h under $f"; else nok "fleet page lacks $h under $f"; fi
done
# distributions drawn
c=$(grep -o '<figure class="chart"><svg' "$tmp/fleet.dom" | wc -l)
if [ "$c" -ge 2 ]; then ok "fleet: $c SVG distributions"; else nok "fleet: $c SVG distributions"; fi

## A hostile host name is escaped, never markup.
mkdir -p "$tmp/hostile"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = "<img src=x onerror=alert(1)>&\"x\x27"
d["facts"]["platform"]["bios"]["version"] = "</title><script>alert(2)</script>"
json.dump(d, open(sys.argv[2], "w"))' "$tmp/fleet/reports/node01.json" "$tmp/hostile/evil.json"
cp "$tmp/fleet/reports/node02.json" "$tmp/fleet/reports/node03.json" "$tmp/hostile/"
"$NODEAUDIT" report "$tmp/hostile" --format html -o "$tmp/hostile.html" 2>/dev/null
if grep -qF '&lt;img src=x onerror=alert(1)&gt;&amp;&quot;x&#39;' "$tmp/hostile.html" &&
   ! grep -qF '<img' "$tmp/hostile.html" && ! grep -qF '<script' "$tmp/hostile.html"
then ok "fleet: hostile host name and SMBIOS string escaped"; else nok "fleet: hostile strings not escaped"; fi

## One node: accelerators, a hybrid CPU, an empty memory channel.
one=$tmp/one
mkdir -p "$one/sys/firmware/dmi/tables"
for f in pci-gpu-x16-full pci-nic cpu-rpl-laptop; do cp -R "$src/fixtures/$f/." "$one/"; done
cat >"$tmp/laptop.desc" <<'D'
# A laptop board: two memory controllers with one channel each; channel B empty.
entry _SM3_ 3.4
bios vendor "LENOVO" version "N3HET80W (1.52 )" date "05/22/2024"
system vendor "LENOVO" product "21HD" version "ThinkPad T14 Gen 4"
socket designation "U3E1" manufacturer "Intel(R) Corporation" version "13th Gen Intel(R) Core(TM) i7-1360P" cores 12 threads 16
array handle 0x0040 ecc none max 64G devices 2
defaults array 0x0040 size 16G type DDR5 speed 5200 configured 5200 rank 1 width 64/64 form SODIMM registered no manufacturer "Samsung" part "M425R2GA3BB0-CWMOD"
dimm locator "Controller0-ChannelA-DIMM0" bank "BANK 0"
dimm locator "Controller1-ChannelB-DIMM0" bank "BANK 0" size 0
D
"$mk" "$tmp/laptop.desc" "$tmp/laptop.bin" || nok "mksmbios"
head -c 24 "$tmp/laptop.bin" >"$one/sys/firmware/dmi/tables/smbios_entry_point"
tail -c +33 "$tmp/laptop.bin" >"$one/sys/firmware/dmi/tables/DMI"
"$NODEAUDIT" --sysroot "$one" check --profile agent-accelerator-host --format json >"$tmp/one.json" 2>/dev/null
"$NODEAUDIT" --sysroot "$one" check --profile agent-accelerator-host --format html -o "$tmp/one.html" 2>/dev/null
rc=$?
if [ $rc -eq 2 ] && [ -s "$tmp/one.html" ]; then ok "check --format html exits 2 and writes the page"
else nok "check --format html exits $rc"; fi
browse "$tmp/one.html" one
if python3 - "$tmp/one.dom" "$tmp/one.json" >"$tmp/cmp" 2>&1 <<'PY'
import json, re, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.parts, self.kinds, self.threads, self.rows = {}, {}, [], [], []
        self.tag = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tag = (tag, a)
        if "data-part" in a:
            self.parts[a["data-part"]] = self.parts.get(a["data-part"], 0) + 1
            if a["data-part"] == "core":
                self.kinds.append(a["data-kind"])
                self.threads.append(int(a["data-threads"]))
        if tag == "tr" and "data-status" in a:
            self.rows.append(a["data-status"])
    def handle_endtag(self, tag):
        self.tag = None
    def handle_data(self, d):
        if self.tag and "id" in self.tag[1] and self.tag[0] in ("b", "span"):
            self.ids[self.tag[1]["id"]] = d
p = P()
p.feed(open(sys.argv[1]).read())
j = json.load(open(sys.argv[2]))
f = j["facts"]
bad = []
def same(what, got, want):
    if got != want:
        bad.append("%s: page %r, json %r" % (what, got, want))
for st in ("pass", "warn", "fail", "unknown", "skip", "info"):
    same("count " + st, p.ids.get("count-" + st), str(j["summary"].get(st, 0)))
    same("rows " + st, p.rows.count(st), sum(1 for x in j["findings"] if x["status"] == st))
same("exit", p.ids.get("exit"), str(j["summary"]["exit"]))
same("cores", p.parts.get("core"), f["cpu"]["cores"])
same("threads", sum(p.threads), f["cpu"]["threads"])
for k in f["cpu"]["kinds"]:
    same("%s cores" % k["name"], p.kinds.count(k["name"][0].upper()), k["cores"])
same("accelerators", p.parts.get("accelerator"), len(f["pci"]["accelerators"]))
same("nics", p.parts.get("nic"), len(f["pci"]["nics"]))
same("dimms", p.parts.get("dimm"), len([d for d in f["memory"]["dimms"] if d.get("size_bytes")]))
same("empty channels", p.parts.get("channel-empty"), f["memory"]["channels"]["total"] - f["memory"]["channels"]["populated"])
same("packages", p.parts.get("package"), f["cpu"]["packages"])
same("numa nodes", p.parts.get("numa-node"), len(f["numa"]["nodes"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "node: the numbers in the page equal the JSON report"
else nok "node: page and JSON differ"; sed 's/^/# /' "$tmp/cmp"; fi
# the fixture is what the test says it is
if python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["facts"]
sys.exit(0 if f["cpu"]["hybrid"] and f["pci"]["accelerators"] and f["memory"]["channels"]["populated"] < f["memory"]["channels"]["total"] else 1)' "$tmp/one.json"
then ok "node fixture: hybrid CPU, an accelerator, an empty channel"; else nok "node fixture"; fi
# Hostile strings in a node's facts (host name, PCI device name, SMBIOS
# socket version) are text in the page, never markup.
"$NODEAUDIT" --sysroot "$one" probe --format json >"$tmp/probe.json" 2>/dev/null
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = "<b>evil</b>&"
d["pci"]["accelerators"][0]["device"] = "<script>alert(1)</script>"
d["platform"]["sockets"][0]["version"] = "\"><svg onload=alert(2)>"
json.dump(d, open(sys.argv[2], "w"))' "$tmp/probe.json" "$tmp/evil.json"
"$NODEAUDIT" check --facts "$tmp/evil.json" --profile agent-accelerator-host --format html -o "$tmp/evil.html" 2>/dev/null
if grep -qF '&lt;b&gt;evil&lt;/b&gt;&amp;' "$tmp/evil.html" && grep -qF '&lt;script&gt;alert(1)' "$tmp/evil.html" &&
   grep -qF '&quot;&gt;&lt;svg onload=alert(2)&gt;' "$tmp/evil.html" &&
   ! grep -qE '<script|<b>evil|<svg onload' "$tmp/evil.html"
then ok "node: hostile strings escaped"; else nok "node: hostile strings not escaped"; fi
if [ -n "${KEEP_HTML:-}" ]; then cp "$tmp"/*.png "$tmp"/*.html "$KEEP_HTML/"; fi

echo "1..$n"
[ $fail -eq 0 ]
