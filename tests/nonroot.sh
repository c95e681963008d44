#!/bin/sh
# nonroot.sh - nodeaudit as an unprivileged user (uid/gid 65534 through
# setpriv): `probe` and `check` on this machine end with exit 0-2, never 3;
# what the unprivileged run lacks shows up as gaps whose reasons say root
# or permission; no finding is worse merely because a fact was unreadable
# (unreadable => "unknown").  Assertions that need a source this machine
# lacks (SMBIOS, root-only sysctls, PCI links read from config space) are
# skipped with the reason.  A sysroot with an unreadable sysctl pins the
# "unknown, permission denied (run as root)" rule on every machine.
# Skips (77) unless run as root with setpriv (util-linux) and python3.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP not root"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "1..0 # SKIP no setpriv"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
top_srcdir=$(cd "$top_srcdir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nonroot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp "$NODEAUDIT" "$tmp/nodeaudit" && chmod 755 "$tmp/nodeaudit"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# The sanitizer build writes its reports where the user can.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}log_path=stderr"
if ! nobody "$tmp/nodeaudit" --version >/dev/null 2>&1; then
	echo "1..0 # SKIP the binary does not run as uid 65534 here"; exit 77
fi
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

cd "$tmp" || exit 1
for c in probe check; do
	timeout 120 ./nodeaudit $c --format json >"root-$c.json" 2>"root-$c.err"
	echo $? >"root-$c.rc"
	timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups ./nodeaudit $c --format json \
		>"nobody-$c.json" 2>"nobody-$c.err"
	rc=$?
	if [ $rc -le 2 ]; then ok "$c as uid 65534: exit $rc"
	else notok "$c as uid 65534: exit $rc"; sed 's/^/#   /' "nobody-$c.err" | head -n 5; fi
done

# The comparisons, one TAP line each (python3 prints them as "PASS|FAIL|SKIP text").
python3 - "$tmp" >"$tmp/results" 2>&1 <<'EOF'
import json, os, re, sys
d = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except Exception as e:
        print("FAIL %s: %s" % (name, e))
        sys.exit(0)
rp, np = load("root-probe.json"), load("nobody-probe.json")
rc, nc = load("root-check.json"), load("nobody-check.json")
root_re = re.compile(r"root|permission", re.I)
def gaps(doc):
    return {g["fact"]: g["reason"] for g in doc.get("gaps") or []}
rg, ng = gaps(rp), gaps(np)

print(("PASS" if rp["host"].get("root") is True and np["host"].get("root") is False else "FAIL") +
      " host.root is true as root, false as uid 65534")

# Gaps that only the unprivileged run has (or whose reason changed) say why.
new = {f: r for f, r in ng.items() if rg.get(f) != r}
bad = {f: r for f, r in new.items() if not root_re.search(r)}
if bad:
    print("FAIL gaps of the unprivileged run that do not say root: %s" % bad)
else:
    print("PASS %d gap(s) only as uid 65534, each saying root or permission%s" %
          (len(new), (": " + ", ".join(sorted(new))) if new else ""))

# SMBIOS: a table the kernel exposes is root-only.
if os.path.exists("/sys/firmware/dmi/tables/DMI"):
    r = ng.get("memory.dimms", "")
    print(("PASS" if root_re.search(r) else "FAIL") +
          " SMBIOS: memory.dimms gap as uid 65534 says root (%s)" % r)
else:
    print("SKIP SMBIOS: this machine has no /sys/firmware/dmi/tables/DMI")

# PCI: link figures read from config space beyond 64 bytes.
pci = [f for f, r in ng.items() if "64 bytes" in r]
if pci:
    bad = [f for f in pci if not root_re.search(ng[f])]
    print(("FAIL" if bad else "PASS") + " PCI config space beyond 64 bytes: %d gap(s) say root (%s)" %
          (len(pci), ", ".join(pci)))
else:
    print("SKIP PCI: no fact here needs config space beyond 64 bytes (sysfs link files, or no such device)")

# Sysctls whose /proc/sys file only root can read.
ss = (rp.get("kernel") or {}).get("sysctl") or {}
closed = [k for k in ss if os.path.exists("/proc/sys/" + k.replace(".", "/")) and
          not os.stat("/proc/sys/" + k.replace(".", "/")).st_mode & 0o004]
if closed:
    nss = (np.get("kernel") or {}).get("sysctl") or {}
    bad = [k for k in closed if nss.get(k) is not None or
           not root_re.search(ng.get('kernel.sysctl."%s"' % k, ""))]
    print(("FAIL" if bad else "PASS") + " root-only sysctls are null with a root gap: %s" % closed)
else:
    print("SKIP sysctls: every sysctl nodeaudit reads is world-readable here")

# Findings: never worse unprivileged; those on facts it could not read are unknown.
order = {"pass": 0, "skip": 0, "info": 1, "unknown": 1, "warn": 2, "fail": 3}
def fkey(f):
    return (f["id"], f.get("key"))
rf = {fkey(f): f for f in rc.get("findings") or []}
worse = []
unread = []
for f in nc.get("findings") or []:
    r = rf.get(fkey(f))
    if r and order.get(f["status"], 0) > order.get(r["status"], 0) and f["status"] in ("warn", "fail"):
        worse.append("%s: %s as root, %s as uid 65534" % (fkey(f), r["status"], f["status"]))
    if any(x in new for x in f.get("facts") or []) and f["status"] != "unknown":
        unread.append("%s is %s" % (fkey(f), f["status"]))
print(("FAIL" if worse else "PASS") + " no finding is worse as uid 65534%s" % (": %s" % worse if worse else ""))
print(("FAIL" if unread else "PASS") + " findings on facts unreadable as uid 65534 are unknown%s" %
      (": %s" % unread if unread else ""))
EOF
while IFS= read -r line; do
	case $line in
	PASS\ *) ok "${line#PASS }" ;;
	SKIP\ *) skip "${line#SKIP }" ;;
	*) notok "${line#FAIL }" ;;
	esac
done <"$tmp/results"

# On every machine: a sysroot whose vm.swappiness only root may read.
cp -a "$top_srcdir/tests/fixtures/check-node" "$tmp/sr"
chmod -R a+rX "$tmp/sr"
chmod 000 "$tmp/sr/proc/sys/vm/swappiness"
nobody ./nodeaudit --sysroot "$tmp/sr" check --format json >sr.json 2>sr.err
rc=$?
python3 - sr.json >sr.res 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x.get("key") == "vm.swappiness"]
g = [x["reason"] for x in d["gaps"] if x["fact"] == 'kernel.sysctl."vm.swappiness"']
ok = (len(f) == 1 and f[0]["status"] == "unknown" and d["facts"]["kernel"]["sysctl"]["vm.swappiness"] is None
      and g == ["/proc/sys/vm/swappiness: permission denied (run as root)"])
print("PASS" if ok else "FAIL %s %s" % (f, g))
EOF
if [ $rc -le 2 ] && [ "$(cat sr.res)" = PASS ]; then
	ok "unreadable vm.swappiness in a sysroot: exit $rc, finding unknown, gap 'permission denied (run as root)'"
else
	notok "unreadable vm.swappiness in a sysroot (exit $rc): $(cat sr.res)"; sed 's/^/#   /' sr.err | head -n 3
fi

echo "1..$n"
[ $fail -eq 0 ]
