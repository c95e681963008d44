#!/bin/sh
# layers.sh - the tree keeps the shape HACKING gives it: src/ in layer folders
# (lib < read < probe < bench < audit < render < cmd), where an object file
# uses symbols of its own folder and the folders before it only (nm on the
# built objects: what is really linked), a source includes no later
# folder's header, a header declares no later folder's function, and no
# headers include each other in a circle; no two object files use each other; no source file over 1,000 lines; no function
# over 100 lines, data tables (initialised definitions) aside.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "1..0 # SKIP no nm"; exit 77; }
[ -f "$build/src/main.o" ] || [ -n "$(find "$build/src" -name '*.o' 2>/dev/null | head -1)" ] ||
	{ echo "1..0 # SKIP no objects under $build/src"; exit 77; }
exec python3 - "$top/src" "$build/src" <<'EOF'
import collections, glob, os, re, subprocess, sys

src, objdir = sys.argv[1], sys.argv[2]
ORDER = ['lib', 'read', 'probe', 'bench', 'audit', 'render', 'cmd']
n = fails = 0

def ok(cond, what):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', n, what))

def layer(path, root):
    parts = os.path.relpath(path, root).split(os.sep)
    return parts[0] if len(parts) > 1 else None

# Sources: every .c and .h sits in a layer folder (main.c aside), at most
# 1,000 lines; functions at most 100 lines.
sources = sorted(glob.glob(os.path.join(src, '**', '*.[ch]'), recursive=True))
stray = [os.path.relpath(f, src) for f in sources
         if layer(f, src) not in ORDER and os.path.relpath(f, src) != 'main.c']
ok(not stray, 'every source file is in a layer folder' + (': not ' + ', '.join(stray) if stray else ''))
long_files, long_funcs = [], []
for f in sources:
    lines = open(f, encoding='utf-8', errors='replace').read().split('\n')
    if len(lines) - 1 > 1000:
        long_files.append('%s (%d lines)' % (os.path.relpath(f, src), len(lines) - 1))
    if not f.endswith('.c'):
        continue
    start = None
    for i, l in enumerate(lines):
        if l.startswith('{') and start is None:
            j = i - 1
            while j > 0 and '(' not in lines[j] and '=' not in lines[j]:
                j -= 1
            head = lines[j]
            m = re.search(r'(\w+)\s*\(', head)
            table = '=' in head.split('(')[0] or '(' not in head
            start = (i, m.group(1) if m else '?', table)
        elif l.startswith('}') and start is not None:
            size = i - start[0] + 1
            if not start[2] and size > 100:
                long_funcs.append('%s: %s (%d lines)' % (os.path.relpath(f, src), start[1], size))
            start = None
ok(not long_files, 'no source file over 1,000 lines' + (': ' + ', '.join(long_files) if long_files else ''))
ok(not long_funcs, 'no function over 100 lines' + (': ' + ', '.join(long_funcs) if long_funcs else ''))

# Objects: who defines and who uses each symbol.
objs = sorted(o for o in glob.glob(os.path.join(objdir, '**', '*.o'), recursive=True)
              if layer(o, objdir) in ORDER)
defs, uses = {}, collections.defaultdict(set)
for o in objs:
    out = subprocess.run(['nm', o], capture_output=True, text=True).stdout
    for l in out.splitlines():
        p = l.split()
        if len(p) == 3 and p[1] in 'TDBRCG':
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == 'U':
            uses[o].add(p[1])
ok(len(objs) > 20, '%d objects in layer folders' % len(objs))
edges = collections.defaultdict(set)
for o in objs:
    for s in uses[o]:
        d = defs.get(s)
        if d and d != o:
            edges[(o, d)].add(s)
rel = lambda o: os.path.relpath(o, objdir)
up = ['%s -> %s (%s)' % (rel(a), rel(b), ' '.join(sorted(ss)[:3]))
      for (a, b), ss in sorted(edges.items())
      if ORDER.index(layer(b, objdir)) > ORDER.index(layer(a, objdir))]
ok(not up, 'no object uses a later layer' + (': ' + '; '.join(up) if up else ''))
mutual = ['%s <-> %s' % (rel(a), rel(b)) for (a, b) in sorted(edges) if a < b and (b, a) in edges]
ok(not mutual, 'no two objects use each other' + (': ' + '; '.join(mutual) if mutual else ''))

# Headers: no file includes a later layer's header; a header declares only
# functions defined in its own layer or an earlier one (a prototype of a
# render function in an audit header would let audit call render); no two
# headers include each other, even through others.
INC = re.compile(r'^#\s*include\s+"([a-z]+)/([^"]+)"', re.M)
def includes(path):
    return [(m.group(1), m.group(2)) for m in INC.finditer(open(path, encoding='utf-8', errors='replace').read())]
def upward_includes(root):
    bad = []
    for f in sorted(glob.glob(os.path.join(root, '**', '*.[ch]'), recursive=True)):
        l = layer(f, root)
        if l not in ORDER:
            continue
        for hl, h in includes(f):
            if hl in ORDER and ORDER.index(hl) > ORDER.index(l):
                bad.append('%s includes %s/%s' % (os.path.relpath(f, root), hl, h))
    return bad
up_inc = upward_includes(src)
ok(not up_inc, 'no source includes a later layer\'s header' + (': ' + '; '.join(up_inc) if up_inc else ''))
# The check itself catches one: a copy of a lib/ header with an include of
# render/render.h planted in it.
import shutil, tempfile
with tempfile.TemporaryDirectory() as t:
    os.makedirs(os.path.join(t, 'lib'))
    shutil.copy(os.path.join(src, 'lib', 'util.h'), os.path.join(t, 'lib', 'util.h'))
    with open(os.path.join(t, 'lib', 'util.h'), 'a') as h:
        h.write('#include "render/render.h"\n')
    ok(upward_includes(t) == ['lib/util.h includes render/render.h'],
       'the include check finds a planted upward include')
# Prototypes: every function a header declares, where it is defined.
PROTO = re.compile(r'^[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*(?:__attribute__\s*\(\(.*?\)\))?\s*;', re.M)
misplaced = []
for h in sorted(glob.glob(os.path.join(src, '**', '*.h'), recursive=True)):
    hl = layer(h, src)
    if hl not in ORDER:
        continue
    text = re.sub(r'/\*.*?\*/', '', open(h, encoding='utf-8', errors='replace').read(), flags=re.S)
    for m in PROTO.finditer(text):
        d = defs.get(m.group(1))
        if d and ORDER.index(layer(d, objdir)) > ORDER.index(hl):
            misplaced.append('%s declares %s (%s)' % (os.path.relpath(h, src), m.group(1), rel(d)))
ok(not misplaced, 'no header declares a later layer\'s function' + (': ' + '; '.join(misplaced) if misplaced else ''))
# Include circles among the headers.
graph = {}
for h in glob.glob(os.path.join(src, '**', '*.h'), recursive=True):
    graph[os.path.relpath(h, src)] = [a + '/' + b for a, b in includes(h)]
circles = set()
def walk(h, path):
    for n in graph.get(h, []):
        if n in path:
            cyc = path[path.index(n):]
            k = min(range(len(cyc)), key=lambda i: cyc[i])
            circles.add(' -> '.join(cyc[k:] + cyc[:k] + [cyc[k]]))
        elif n in graph and len(path) < 20:
            walk(n, path + [n])
for h in sorted(graph):
    walk(h, [h])
ok(not circles, 'no include circle among the headers' + (': ' + '; '.join(sorted(circles)) if circles else ''))
print('1..%d' % n)
sys.exit(1 if fails else 0)
EOF
