#!/bin/sh
# markup.sh - nothing from an input becomes markup.  (1) The renderers of
# HTML and SVG (src/render/html*.c, src/render/svg*.c) print nothing
# themselves: every byte goes through render/markup.h (MK() for literals,
# mk_rawf() with numeric conversions only, mk_text()/mk_attr() for every
# string), so a grep for a printing call or a string conversion into markup
# fails the test.  (2) Facts whose strings are markup (a pci.matrix entry's
# kind "<script>...", a host name, a bridge, a locator, a device name) come
# out escaped in check --facts F --format svg and --format html: the SVG is
# well-formed XML with no element the renderer does not write, and neither
# output holds a <script> element or an on* attribute.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "# no python3: skipped"; exit 77; }
src=$(cd "$top_srcdir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/markup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# (1) The renderers' source.
if python3 - "$src"/src/render/html*.c "$src"/src/render/svg*.c >"$tmp/grep" 2>&1 <<'PY'
import re, sys
bad = []
call = re.compile(r'\b(fprintf|fputs|fputc|putc|putchar|puts|fwrite|printf|vfprintf|dprintf|fflush)\s*\(')
conv = re.compile(r'%[-+ #0-9.*\']*[hlLqjzt]*([a-zA-Z])')
lit = r'(?:\s*"(?:[^"\\\n]|\\.)*")+'
for path in sys.argv[1:]:
    text = open(path).read()
    # Comments out (they may name the calls).
    code = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
    for m in call.finditer(code):
        bad.append("%s:%d: %s() prints past the markup writer" % (path, code.count("\n", 0, m.start()) + 1, m.group(1)))
    # mk_rawf's formats: literals with numeric conversions only.
    for m in re.finditer(r'\bmk_rawf\s*\(\s*[^,]+,(' + lit + r')?', code):
        line = code.count("\n", 0, m.start()) + 1
        if not m.group(1):
            bad.append("%s:%d: mk_rawf() with a format that is not a literal" % (path, line))
            continue
        for c in conv.findall(m.group(1)):
            if c not in "diouxXeEfFgGaA":
                bad.append("%s:%d: mk_rawf() format converts %%%s into markup" % (path, line, c))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "the renderers of HTML and SVG print only through render/markup.h"
else nok "raw printing into markup"; sed 's/^/# /' "$tmp/grep" | head -20; fi

# The grep itself catches what it should: a planted fprintf with %s.
mkdir -p "$tmp/planted"
printf 'static void f(FILE *fp, const char *s)\n{\n\tfprintf(fp, "<g data-part=\\"%%s\\">", s);\n\tmk_rawf(fp, "<a x=\\"%%s\\">", s);\n}\n' >"$tmp/planted/svg-planted.c"
sed -n '/^if python3 - "\$src"/,/^PY$/p' "$0" | sed '1s/.*/python3 - "$@" <<'"'"'PY'"'"'/' >"$tmp/grep.sh"
if sh "$tmp/grep.sh" "$tmp/planted/svg-planted.c" >"$tmp/planted.out" 2>&1; then nok "the grep misses a planted fprintf"
elif [ "$(grep -c 'prints past\|converts %s' "$tmp/planted.out")" -eq 2 ]; then ok "the grep finds a planted fprintf and a %s in mk_rawf"
else nok "the grep on planted code"; sed 's/^/# /' "$tmp/planted.out"; fi

# (2) Hostile strings in facts.
"$NODEAUDIT" --sysroot "$src/tests/fixtures/pci-matrix-mixed" probe --format json >"$tmp/facts.json" 2>/dev/null ||
	nok "probe of pci-matrix-mixed"
python3 - "$tmp/facts.json" "$tmp/hostile.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
X = '<script>alert(1)</script>"\'&x'
info = f["pci"]["matrix"]["info"]
info[0]["kind"] = X
info[1]["host_bridge"] = X + "hb"
info[2]["bdf"] = X + "bdf"
info[3]["switches"] = [X + "sw"]
f["host"]["hostname"] = '<svg onload=alert(1)>"host'
f["kernel"]["version"] = '</text><script>k</script>'
for lst in ("accelerators", "nics"):
    for d in f["pci"].get(lst) or []:
        d["device"] = '<img src=x onerror=alert(1)>'
        if "interface" in d:
            d["interface"] = 'eth"><script>i</script>'
json.dump(f, open(sys.argv[2], "w"))
PY
"$NODEAUDIT" check --facts "$tmp/hostile.json" --format svg >"$tmp/h.svg" 2>"$tmp/h.err"; rc=$?
case $rc in 0|1|2|3) ok "check --facts --format svg on hostile strings exits $rc";; *) nok "check --format svg exits $rc"; sed 's/^/# /' "$tmp/h.err";; esac
"$NODEAUDIT" check --facts "$tmp/hostile.json" --format html >"$tmp/h.html" 2>/dev/null
"$NODEAUDIT" probe --sysroot "$src/tests/fixtures/pci-matrix-mixed" --format svg >"$tmp/p.svg" 2>/dev/null
for f in h.svg h.html; do
	if grep -qi '<script\|<img\|<svg[^>]* onload' "$tmp/$f"; then nok "$f holds markup from the facts"; grep -io '<script[^<]*\|<img[^>]*\|<svg[^>]* onload' "$tmp/$f" | head -3 | sed 's/^/# /'
	else ok "$f: no element from the facts"; fi
done
grep -q 'data-part="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;x"' "$tmp/h.svg" &&
	ok "the kind <script> comes out escaped in its attribute" || nok "the kind is not escaped as expected"
if python3 - "$tmp/h.svg" "$tmp/h.html" >"$tmp/xml" 2>&1 <<'PY'
import re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
SVG = {"svg", "g", "rect", "text", "title", "line", "path", "tspan", "circle", "polyline"}
HTML = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "div", "span", "b", "i", "a",
        "code", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "br", "wbr", "figure", "figcaption",
        "section", "small", "details", "summary", "nav", "caption", "colgroup", "col", "em", "strong", "sub"} | SVG
bad = []
root = ET.parse(sys.argv[1]).getroot()
for e in root.iter():
    tag = e.tag.split("}")[-1]
    if tag not in SVG:
        bad.append("svg: element <%s>" % tag)
    for a in e.attrib:
        if a.lower().startswith("on"):
            bad.append("svg: attribute %s" % a)
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag not in HTML:
            bad.append("html: element <%s>" % tag)
        for a, v in attrs:
            if a.startswith("on"):
                bad.append("html: attribute %s" % a)
P().feed(open(sys.argv[2]).read())
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "the SVG is well-formed and both outputs hold only the renderer's elements and attributes"
else nok "elements or attributes from the facts"; sed 's/^/# /' "$tmp/xml" | head; fi
echo "1..$n"
[ $fail -eq 0 ]
