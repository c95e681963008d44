#!/bin/sh
# scale-inputs.sh - big inputs give the right answer (issue 24): `diff` of
# probe documents whose objects hold 50000 keys, `diff` of reports with
# 60000 findings, `report` over reports with 60000 kernel.sysctl findings.
# Each planted difference must be found exactly, duplicate keys must keep
# their first member (what a plain walk of the object finds, and what the
# sorted indexes behind these commands must keep too), and every run must
# peak under 256 MiB (not checked in a sanitizer build, whose runtime has
# its own).  How long they take is bench/audit-scale.sh's business; the
# 120 s limit here only stops a hang.  Skips (77) without python3.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${top_builddir:?}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
BOUNDED=${BOUNDED:-$(cd "$top_builddir/tests" && pwd)/bounded}
[ -x "$BOUNDED" ] || { echo "1..0 # SKIP tests/bounded not built"; exit 77; }
rss_max=262144
grep -qa 'AddressSanitizer' "$NODEAUDIT" 2>/dev/null && rss_max=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fix=$(cd "$top_srcdir/tests/fixtures" && pwd)
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# run WANT_EXIT LABEL ARGS...: the command's output in $tmp/out.
run() {
	want=$1 label=$2
	shift 2
	"$BOUNDED" -t 120 -r "$tmp/rep" -- "$NODEAUDIT" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	maxrss_kb=0 timed_out=0
	[ -s "$tmp/rep" ] && eval "$(cat "$tmp/rep")"
	if [ "$timed_out" -eq 1 ]; then nok "$label: no answer within 120 s"
	elif [ $rc -ne "$want" ]; then nok "$label: exit $rc, not $want"; head -n 3 "$tmp/err" | sed 's/^/#   /'
	elif [ "$rss_max" -gt 0 ] && [ "$maxrss_kb" -gt "$rss_max" ]; then nok "$label: peak RSS $maxrss_kb KiB"
	else ok "$label"
	fi
}

# expect LABEL PYTHON-EXPRESSION: true of the JSON document d in $tmp/out.
expect() {
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/out" "$2" 2>"$tmp/perr"; then
		ok "$1"
	else
		nok "$1"; head -n 3 "$tmp/perr" | sed 's/^/#   /'
	fi
}

"$NODEAUDIT" --sysroot "$fix/numa-2node" probe --format json >"$tmp/probe.json" || exit 99
"$NODEAUDIT" --sysroot "$fix/kernel-tuned-server" check --format json >"$tmp/report.json"
[ $? -le 2 ] || exit 99

## diff: two probe documents, objects of 50000 keys, in another order.
# host.x: every 1000th value changed (50 changes); kernel.sysctl the same;
# host.dup: a key twice in each, 7 and 7 in the old, 7 and 2 in the new (no
# change: each member of the old is compared with the new's first).
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/probe.json"))
N = 50000
def pair(prefix):
    a = {"%s%d" % (prefix, i): i for i in range(N)}
    b = {"%s%d" % (prefix, N - 1 - i): (-1 if (N - 1 - i) % 1000 == 0 else N - 1 - i) for i in range(N)}
    return a, b
ax, bx = pair("k")
asy, bsy = pair("s.")
a = json.loads(json.dumps(d)); b = json.loads(json.dumps(d))
a["host"]["x"], b["host"]["x"] = ax, bx
a["kernel"]["sysctl"] = {k: str(v) for k, v in asy.items()}
b["kernel"]["sysctl"] = {k: str(v) for k, v in bsy.items()}
def dup(first, second):
    body = ", ".join('"d%d": %d' % (i, i) for i in range(40))
    return '{%s, "twice": %d, "twice": %d}' % (body, first, second)
for name, doc, second in (("a", a, 7), ("b", b, 2)):
    text = json.dumps(doc)
    # the duplicate key, which json.dumps cannot write: spliced in
    text = text.replace('"host": {', '"host": {"dup": %s, ' % dup(7, second), 1)
    open("%s/%s.json" % (t, name), "w").write(text)
PY
run 1 "diff of probe documents with objects of 50000 keys" diff --format json "$tmp/a.json" "$tmp/b.json"
expect "the 50 changed values of host.x, each once" \
	'sorted(c["path"] for c in d["changes"] if c["path"].startswith("host.x.")) == sorted("host.x.k%d" % i for i in range(0, 50000, 1000))'
expect "the 50 changed sysctls, each once" \
	'len([c for c in d["changes"] if c["path"].startswith("kernel.sysctl")]) == 50'
expect "a key given twice: its first member compared, no change" \
	'not [c for c in d["changes"] if "dup" in c["path"]]'
expect "nothing else changed" 'len(d["changes"]) == 100 and d["summary"]["facts_changed"] == 100'

## diff: two reports of 60000 findings, one status changed in each
# direction, one finding only in the new report, one listed twice in the
# old one (the first counts).
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/report.json"))
N = 60000
def doc(changed):
    r = json.loads(json.dumps(d))
    for i in range(N):
        st = changed.get(i, "pass")
        r["findings"].append({"id": "kernel.sysctl", "key": "x.k%d" % i, "status": st,
                              "severity": "warn", "title": "sysctl x.k%d" % i, "observed": str(i)})
    return r
old = doc({17: "fail"})
new = doc({59999: "warn"})
old["findings"].append({"id": "kernel.sysctl", "key": "x.k5", "status": "fail", "severity": "warn",
                        "title": "sysctl x.k5", "observed": "5"})
new["findings"].append({"id": "kernel.sysctl", "key": "x.new", "status": "fail", "severity": "warn",
                        "title": "sysctl x.new", "observed": "1"})
json.dump(old, open(t + "/old.json", "w"))
json.dump(new, open(t + "/new.json", "w"))
PY
run 2 "diff of reports with 60000 findings" diff --format json "$tmp/old.json" "$tmp/new.json"
expect "x.k17 better, x.k59999 worse, x.new appeared; x.k5's second listing ignored" \
	'sorted((f["key"], f["change"]) for f in d["findings"]) == [("x.k17", "better"), ("x.k59999", "worse"), ("x.new", "appeared")]'

## report: three reports of 60000 kernel.sysctl findings; one sysctl
# differs on one node.
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/report.json"))
N = 60000
for host, odd in (("n1", None), ("n2", 4242), ("n3", None)):
    r = json.loads(json.dumps(d))
    r["host"]["hostname"] = host
    r["facts"]["kernel"]["sysctl"] = {"x.k%d" % i: str(-i if i == odd else i) for i in range(N)}
    # a name twice in the fact tree: the first member is the value
    r["facts"]["kernel"]["sysctl"]["x.k9"] = "9"
    for i in range(N):
        r["findings"].append({"id": "kernel.sysctl", "key": "x.k%d" % i, "status": "pass",
                              "severity": "warn", "title": "sysctl x.k%d" % i, "observed": str(i)})
    r["summary"]["pass"] += N
    text = json.dumps(r).replace('"x.k9": "9"}', '"x.k9": "9", "x.k9": "%s"}' % host, 1)
    open("%s/%s.json" % (t, host), "w").write(text)
PY
run 0 "report over three reports of 60000 sysctl findings" report --format json \
	"$tmp/n1.json" "$tmp/n2.json" "$tmp/n3.json"
expect "every sysctl finding a check row, passed on 3 nodes" \
	'len([c for c in d["checks"] if c["id"] == "kernel.sysctl" and c.get("key", "").startswith("x.k") and c["pass"] == 3]) == 60000'
expect "one outlier among the sysctls: x.k4242, on n2 (x.k9's second member ignored)" \
	'[(o["fact"], [v["nodes"] for v in o["values"]]) for o in d["outliers"]["facts"] if o["fact"].startswith("kernel.sysctl")] == [("kernel.sysctl.x.k4242", [["n2"]])]'

echo "1..$n"
[ $fail -eq 0 ]
