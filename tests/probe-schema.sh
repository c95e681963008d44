#!/bin/sh
# probe-schema.sh - schema/nodeaudit-probe.schema.json is strict and complete:
# every object in it is closed (additionalProperties false, or a typed
# additionalProperties where the keys are data: sysctl names, cmdline
# parameters, evidence paths) and every field has a type and a description;
# 'probe --format json' of every fixture sysroot, of every real capture under
# ../shared (skipped when absent), with each --smbios, --pci-dump and
# --cpuid-dump input, with --only, and of a snapshot (directory and archive)
# validates against it with the distribution's validator (Debian's
# python3-jsonschema, '/usr/bin/python3 -m jsonschema'); so does the 'facts'
# object of check's report, which holds the same subjects. A document with a
# field the schema does not list (cpu.bogus_field, and deeper ones) or a field
# of the wrong type is rejected: a field added to probe without its schema
# fails here. DIST_PYTHON names another interpreter (default /usr/bin/python3).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
py=${DIST_PYTHON:-/usr/bin/python3}
if ! "$py" -m jsonschema --version >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3-jsonschema ($py -m jsonschema): apt-get install python3-jsonschema"
	exit 77
fi
top=$(cd "$top_srcdir" && pwd)
schema=$top/schema/nodeaudit-probe.schema.json
shared=${NODEAUDIT_SHARED:-$top/../shared}
real=$shared/fixtures/real
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
res() { # res NAME STATUS
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
echo "# validator: $py -m jsonschema $("$py" -m jsonschema --version 2>&1)"

# The schema itself: every object closed, every field typed and described.
"$py" - "$schema" >"$tmp/schema.out" 2>&1 <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
bad = []
def walk(n, p, field):
    if not isinstance(n, dict):
        return
    t = n.get("type")
    ts = [t] if isinstance(t, str) else (t or [])
    if field and "type" not in n and "const" not in n and "enum" not in n:
        bad.append(p + ": no type")
    if field and not n.get("description"):
        bad.append(p + ": no description")
    if "object" in ts and "additionalProperties" not in n and "patternProperties" not in n:
        bad.append(p + ": object without additionalProperties")
    if n.get("additionalProperties") is True:
        bad.append(p + ": additionalProperties true")
    for k, x in n.get("properties", {}).items():
        walk(x, p + "." + k, True)
    if isinstance(n.get("items"), dict):
        walk(n["items"], p + "[]", False)
    if isinstance(n.get("additionalProperties"), dict):
        walk(n["additionalProperties"], p + ".*", False)
walk(s, "$", False)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
r=$?
sed 's/^/#   /' "$tmp/schema.out"
res "every object in the probe schema is closed, every field has a type and a description" $r

# The documents. add NAME ARGS...: probe, keep the output when it wrote one.
mkdir "$tmp/d"
i=0
add() {
	i=$((i + 1))
	(cd "$top/tests" && "$NODEAUDIT" "$@" >"$tmp/d/$i.json" 2>"$tmp/d/$i.err")
	if [ -s "$tmp/d/$i.json" ]; then echo "$i.json $*" >>"$tmp/list"
	else echo "# no output: $*"; sed 's/^/#   /' "$tmp/d/$i.err"; rm -f "$tmp/d/$i.json"; fi
}
roots=
for d in "$top"/tests/fixtures/*/; do
	d=${d%/}
	[ -d "$d/sys" ] || [ -d "$d/proc" ] || continue
	roots="$roots $d"
done
for d in $roots; do add probe --sysroot "$d" --format json; done
nfix=$i
[ "$nfix" -ge 40 ]; res "$nfix fixture sysroots probed" $?
# Each subject alone, and the other inputs.
for s in host cpu numa memory pci kernel process; do
	add probe --sysroot fixtures/pci-8gpu-switches --only $s --format json
done
for f in "$top"/tests/fixtures/pci-dumps/*.lspci "$top"/tests/fixtures/pci-snapshot-dump/nodeaudit/pci.dump; do
	case ${f##*/} in empty.* | garbled.* | text.* | truncated.*) continue ;; esac # refused, tested elsewhere
	[ -f "$f" ] && add probe --sysroot fixtures/pci-nic --pci-dump "$f" --format json
done
for f in "$top"/tests/fixtures/cpuid/*.dump; do
	[ -f "$f" ] && add probe --sysroot fixtures/cpu-rpl-laptop --cpuid-dump "$f" --format json
done
# A snapshot of a fixture, as a directory and as an archive, probed again.
"$NODEAUDIT" --sysroot "$top/tests/fixtures/pci-8gpu-switches" snapshot -o "$tmp/snap" >/dev/null 2>&1 &&
	add probe --sysroot "$tmp/snap" --format json
"$NODEAUDIT" --sysroot "$top/tests/fixtures/mem-edac" snapshot -o "$tmp/snap.tar.gz" >/dev/null 2>&1 &&
	add probe --sysroot "$tmp/snap.tar.gz" --format json
# This machine, and a snapshot of it (mostly unknowns on a build machine).
add probe --format json
"$NODEAUDIT" snapshot -o "$tmp/live.tar.gz" >/dev/null 2>&1 && add probe --sysroot "$tmp/live.tar.gz" --format json
nown=$i
# The real captures, where ../shared is present.
if [ -d "$real/sysfs" ]; then
	# each capture is a tarball of a sysfs/procfs tree (as tests/real-fixtures.sh)
	for t in "$real"/sysfs/*/*.tar.*; do
		[ -f "$t" ] || continue
		c=${t%/*}; c=$tmp/real/${c##*/}
		if ! { mkdir -p "$c" && tar -xf "$t" -C "$c" 2>/dev/null; }; then res "unpack $t" 1; continue; fi
		root=$c
		if [ ! -d "$c/sys" ]; then
			for s in "$c"/*/fsroot "$c"/*; do [ -d "$s/sys" ] && { root=$s; break; }; done
		fi
		add probe --sysroot "$root" --format json
	done
	for f in "$real"/dmi/*/*.bin; do [ -f "$f" ] && add probe --sysroot fixtures/cpu-vm --smbios "$f" --format json; done
	for f in "$real"/pci/*/*.lspci; do [ -f "$f" ] && add probe --sysroot fixtures/pci-nic --pci-dump "$f" --format json; done
	for f in "$real"/cpuid/*/*.test; do [ -f "$f" ] && add probe --sysroot fixtures/cpu-rpl-laptop --cpuid-dump "$f" --format json; done
	res "$((i - nown)) probe documents of the real captures in $real" $(( i == nown ))
else
	skip "the real captures" "no $real"
fi

# All of them at once (one interpreter), then one by one to name a failure.
set --
while read -r f _; do set -- "$@" -i "$tmp/d/$f"; done <"$tmp/list"
c=$(wc -l <"$tmp/list")
if "$py" -m jsonschema "$@" "$schema" >"$tmp/v.out" 2>&1; then
	res "$c probe documents validate against the strict schema" 0
else
	res "$c probe documents validate against the strict schema" 1
	while read -r f cmd; do
		"$py" -m jsonschema -i "$tmp/d/$f" "$schema" >"$tmp/one.out" 2>&1 ||
			{ echo "#   invalid: $cmd"; tail -n 3 "$tmp/one.out" | cut -c1-300 | sed 's/^/#     /'; }
	done <"$tmp/list"
fi

# The hand-written facts that 'check --facts' tests read are probe documents
# too (bad.json is meant to be wrong: a numa_node of -1, no conflicts).
set --
for f in good warn; do set -- "$@" -i "$top/tests/fixtures/check-facts/$f.json"; done
"$py" -m jsonschema "$@" "$schema" >"$tmp/v.out" 2>&1
r=$?
[ $r = 0 ] || cut -c1-300 "$tmp/v.out" | tail -n 5 | sed 's/^/#   /'
res "the check --facts fixtures good.json and warn.json validate" $r

# check's report holds the same subjects under 'facts': put them back into a
# probe document and validate that too.
i=0
for d in $roots; do
	i=$((i + 1))
	"$NODEAUDIT" check --sysroot "$d" --format json >"$tmp/r$i.json" 2>/dev/null
	"$py" - "$tmp/r$i.json" "$tmp/f$i.json" <<'EOF' || echo "# ${d##*/}: no report facts"
import json, sys
r = json.load(open(sys.argv[1]))
d = {"schema": "nodeaudit.probe/1", "tool": r["tool"], "host": {}, "gaps": [], "conflicts": [], "evidence": {}}
d.update(r["facts"])
json.dump(d, open(sys.argv[2], "w"))
EOF
done
set --
for f in "$tmp"/f*.json; do [ -f "$f" ] && set -- "$@" -i "$f"; done
[ $# -gt 0 ] && "$py" -m jsonschema "$@" "$schema" >"$tmp/v.out" 2>&1
r=$?
[ $r = 0 ] || cut -c1-300 "$tmp/v.out" | tail -n 5 | sed 's/^/#   /'
res "the facts of $(($# / 2)) check reports validate against the probe schema" $r

# Strictness: a field the schema does not list, at any depth, or a field of
# the wrong type, is rejected. Planted into the fixture with the most fields.
base=$tmp/d/$(awk '$0 ~ /pci-8gpu-switches --format json$/ { print $1; exit }' "$tmp/list")
"$py" -m jsonschema -i "$base" "$schema" >/dev/null 2>&1
res "the base document for the planted fields validates" $?
plant() { # plant NAME PYTHON-STATEMENT-ON-d [WHAT-THE-VALIDATOR-SAYS]
	if ! "$py" - "$base" "$tmp/p.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
	then res "planted $1 (could not plant)" 1; return; fi
	"$py" -m jsonschema -i "$tmp/p.json" "$schema" >"$tmp/p.out" 2>&1
	r=$?
	if [ $r != 0 ] && grep -q "${3:-.}" "$tmp/p.out"; then res "a document with $1 is rejected" 0
	else res "a document with $1 is rejected" 1; tail -n 3 "$tmp/p.out" | cut -c1-300 | sed 's/^/#   /'; fi
}
plant "cpu.bogus_field" 'd["cpu"]["bogus_field"] = 1' "Additional properties are not allowed ('bogus_field' was unexpected)"
plant "a top-level field" 'd["bogus"] = {}' "Additional properties are not allowed ('bogus' was unexpected)"
plant "host.bogus" 'd["host"]["bogus"] = "x"' "Additional properties are not allowed ('bogus' was unexpected)"
plant "pci.accelerators[0].link.width.bogus" 'd["pci"]["accelerators"][0]["link"]["width"]["bogus"] = 1' "Additional properties are not allowed ('bogus' was unexpected)"
plant "pci.devices[0].bogus" 'd["pci"]["devices"][0]["bogus"] = None' "Additional properties are not allowed ('bogus' was unexpected)"
plant "a kernel.cpufreq.policies[] entry with a bogus field" 'd["kernel"]["cpufreq"]["policies"] = [{"id": 9, "bogus": 1}]' "Additional properties are not allowed ('bogus' was unexpected)"
plant "memory.ecc.bogus" 'd["memory"]["ecc"] = {"mode": None, "bogus": 0}' "Additional properties are not allowed ('bogus' was unexpected)"
plant "a gaps[] entry with a bogus field" 'd["gaps"].append({"fact": "x", "reason": "y", "bogus": 1})' "Additional properties are not allowed ('bogus' was unexpected)"
plant "cpu.cores as a string" 'd["cpu"]["cores"] = "4"' "is not of type"
plant "kernel.sysctl value as a number" 'd["kernel"]["sysctl"] = {"vm.swappiness": 60}' "is not of type"

echo "1..$n"
[ "$fail" = 0 ]
