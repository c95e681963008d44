#!/bin/sh
# diff.sh - `nodeaudit diff` and `check --baseline` on a fleet with planted
# drift.  The golden node is put together from existing fixtures (CPUs of
# cpu-2s-smt with SMT turned off, the H100 at x16 of pci-gpu-x16-full, the
# tuned kernel of kernel-tuned-server, the EDAC counters of mem-edac, and the
# 16-DIMM SMBIOS table tests/smbios/server-2s8c-ddr5.desc).  Each sibling
# differs from it in one file, as nodes drift in the field:
#   node-dimm    CPU1_DIMM_D1 empty in the SMBIOS table (15 of 16 channels)
#   node-link    the GPU retrained at x8 (current_link_width 16 -> 8)
#   node-smt     smt/active 0 -> 1 (a BIOS update turned SMT back on)
#   node-sysctl  /proc/sys/vm/swappiness 10 -> 60 (a package reverted it)
#   node-edac    mc0 corrected errors 5 -> 9 (a DIMM starting to fail)
#   node-same    a plain copy
# Every planted difference must be found, and nothing else flagged.
# Lines are matched whole: wide enough that none wraps (the layout is tested in text-width.sh).
COLUMNS=1000; export COLUMNS
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
fix=$(cd "$top_srcdir/tests/fixtures" && pwd)
src=$(cd "$top_srcdir/tests" && pwd)
mk=${top_builddir:-.}/tests/mksmbios
schema=$top_srcdir/schema/nodeaudit-diff.schema.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/diff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

## The golden node.
g=$tmp/golden
mkdir -p "$g/proc" "$g/sys/firmware/dmi/tables"
cp -R "$fix/cpu-2s-smt/." "$g/"
echo 0 >"$g/sys/devices/system/cpu/smt/active"
echo off >"$g/sys/devices/system/cpu/smt/control"
cp -R "$fix/pci-gpu-x16-full/sys/bus" "$g/sys/"
cp -R "$fix/pci-gpu-x16-full/sys/devices/pci0000:00" "$g/sys/devices/"
k=$fix/kernel-tuned-server
cp -R "$k/proc/sys" "$k/proc/cmdline" "$k/proc/swaps" "$k/proc/mounts" "$k/proc/version" \
	"$k/proc/meminfo" "$g/proc/"
cp -R "$k/sys/kernel" "$k/sys/module" "$k/sys/fs" "$g/sys/"
cp -R "$fix/mem-edac/sys/devices/system/edac" "$g/sys/devices/system/"
# smbios DESC DIR: the table in the split form the kernel exports.
smbios() {
	"$mk" "$1" "$tmp/smbios.bin" || return 1
	head -c 24 "$tmp/smbios.bin" >"$2/sys/firmware/dmi/tables/smbios_entry_point"
	tail -c +33 "$tmp/smbios.bin" >"$2/sys/firmware/dmi/tables/DMI"
}
if smbios "$src/smbios/server-2s8c-ddr5.desc" "$g"; then ok "golden node put together"
else nok "golden node put together"; echo "1..$n"; exit 1; fi

## The siblings, one planted difference each.
# Siblings have their own name and root file system, which is no drift.
uuid=0
for node in dimm link smt sysctl edac same; do
	cp -R "$g" "$tmp/node-$node"
	echo "node-$node" >"$tmp/node-$node/proc/sys/kernel/hostname"
	uuid=$((uuid + 1))
	sed "s/root=UUID=[^ ]*/root=UUID=0b6f3c2e-8d1a-4f7e-9c55-00000000000$uuid/" "$g/proc/cmdline" \
		>"$tmp/node-$node/proc/cmdline"
done
# The slot stays, empty, as SMBIOS reports a module that dropped out.
sed 's/^\(dimm locator "CPU1_DIMM_D1" .*\)$/\1 size 0 speed 0 configured 0 rank 0/' \
	"$src/smbios/server-2s8c-ddr5.desc" >"$tmp/15dimms.desc"
smbios "$tmp/15dimms.desc" "$tmp/node-dimm"
# Through the bus's entry (a copy of the device directory, not a link, in a
# release tarball: tar -h).
echo 8 >"$tmp/node-link/sys/bus/pci/devices/0000:01:00.0/current_link_width"
echo 1 >"$tmp/node-smt/sys/devices/system/cpu/smt/active"
echo 60 >"$tmp/node-sysctl/proc/sys/vm/swappiness"
e=$tmp/node-edac/sys/devices/system/edac/mc/mc0
echo 9 >"$e/ce_count"
echo 9 >"$e/dimm0/dimm_ce_count"

# run WANT_EXIT ARGS...: output in $tmp/out, stderr in $tmp/err.
run() {
	want=$1; shift
	"$NODEAUDIT" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$* exits $want"
	else nok "$* exits $rc, want $want"; sed 's/^/# /' "$tmp/err" "$tmp/out" | head -40; fi
}
# The paths of the fact lines in the text output (the "Facts" section).
changed_paths() {
	sed -n '/^Facts$/,/^$/p' "$tmp/out" | sed -n 's/^  \([^ ][^ ]*\)  .*/\1/p' |
		grep -v '^(no' | LC_ALL=C sort
}
has() { if grep -qF -- "$1" "$tmp/out"; then ok "output has '$1'"; else nok "output lacks '$1'"; sed 's/^/# /' "$tmp/out" | head -40; fi; }
hasnt() { if grep -qF -- "$1" "$tmp/out"; then nok "output has '$1'"; else ok "output lacks '$1'"; fi; }
# only ERE: every changed fact path matches ERE (nothing else flagged).
only() {
	changed_paths >"$tmp/paths"
	if [ -s "$tmp/paths" ] && ! grep -Ev -- "$1" "$tmp/paths" >"$tmp/extra"; then
		ok "every changed fact matches /$1/"
	else
		nok "facts outside /$1/ flagged (or none)"; sed 's/^/# /' "$tmp/extra" "$tmp/paths" | head -20
	fi
}
line() { # line PATH OLD NEW: the change is printed as "PATH  OLD -> NEW"
	if grep -Eq "^  $(printf '%s' "$1" | sed 's/[]*.["]/\\&/g') +$2 -> $3\$" "$tmp/out"; then ok "$1 $2 -> $3"
	else nok "no line '$1 $2 -> $3'"; sed 's/^/# /' "$tmp/out" | head -40; fi
}

## Nothing changed: exit 0, the volatile facts only counted.
run 0 diff "$g" "$tmp/node-same"
has "  (no change)"
has "3 volatile facts changed too (--all shows them)"
hasnt "host.sysroot"
run 0 diff --all "$g" "$tmp/node-same"
has "host.sysroot"
line host.hostname tuned-01 node-same
has "kernel.cmdline.raw"

## The missing DIMM.
run 1 diff "$g" "$tmp/node-dimm"
has "memory.dimms[CPU1_DIMM_D1]"
if grep -Eq '^  memory\.dimms\[CPU1_DIMM_D1\] +removed \(was \{"locator":"CPU1_DIMM_D1"' "$tmp/out"; then
	ok "the DIMM is removed by locator"; else nok "the DIMM is removed by locator"; fi
line memory.channels.populated 16 15
line 'memory.channels.per_package[0].populated' 8 7
line 'memory.channels.list[0/D].dimms' 1 0
hasnt "CPU1_DIMM_E1"
only '^memory\.'

## The downtrained link.
run 1 diff "$g" "$tmp/node-link"
line 'pci.accelerators[0000:01:00.0].link.width.current' 16 8
line 'pci.accelerators[0000:01:00.0].link.width_downtrained' false true
only '^pci\.(accelerators|devices)\[0000:01:00\.0\]\.link\.'

## SMT back on.
run 1 diff "$g" "$tmp/node-smt"
line cpu.smt.active false true
only '^cpu\.smt\.active$'

## The reverted sysctl.
run 1 diff "$g" "$tmp/node-sysctl"
line 'kernel.sysctl."vm.swappiness"' 10 60
only '^kernel\.sysctl\."vm\.swappiness"$'

## EDAC counters that grew are never left out; that fell (a reboot) are volatile.
run 1 diff "$g" "$tmp/node-edac"
line memory.ecc.corrected_errors '7' '11  \(grew\)'
line 'memory.ecc.controllers[mc0].dimms[dimm0].corrected_errors' 5 '9  \(grew\)'
only '^memory\.ecc\.'
run 0 diff "$tmp/node-edac" "$g"
has "6 volatile facts changed too"

## The same comparison from probe JSON, check reports and an archive.
for node in golden node-dimm node-smt node-sysctl node-link; do
	d=$tmp/$node
	"$NODEAUDIT" --sysroot "$d" probe --format json >"$tmp/$node.probe.json" 2>/dev/null
	"$NODEAUDIT" --sysroot "$d" check --format json >"$tmp/$node.report.json" 2>/dev/null
done
run 1 diff "$tmp/golden.probe.json" "$tmp/node-smt.probe.json"
only '^cpu\.smt\.active$'
run 0 diff "$tmp/golden.probe.json" "$g"
# Reports have findings: a check that got worse exits 2.
run 2 diff "$tmp/golden.report.json" "$tmp/node-sysctl.report.json"
only '^kernel\.sysctl\."vm\.swappiness"$'
if grep -Eq '^  worse +kernel\.sysctl vm\.swappiness +pass -> warn' "$tmp/out"; then
	ok "the swappiness check is worse (pass -> warn)"; else nok "the swappiness check is worse (pass -> warn)"; fi
run 2 diff "$tmp/golden.report.json" "$tmp/node-dimm.report.json"
if grep -Eq '^  worse +memory\.channels\.populated_ratio +pass -> fail' "$tmp/out"; then
	ok "the channel check is worse (pass -> fail)"; else nok "the channel check is worse (pass -> fail)"; fi
# A fix (warn -> pass) reads as better, not as cleared.
run 1 diff "$tmp/node-sysctl.report.json" "$tmp/golden.report.json"
has "better"
# The downtrained link fails no check of the default profile: facts only.
run 1 diff "$tmp/golden.report.json" "$tmp/node-link.report.json"
has "0 checks worse"
# A probe JSON against a report: facts compared, findings not.
run 1 diff "$tmp/golden.probe.json" "$tmp/node-smt.report.json"
has "(not compared"
# --profile checks both sides of any input.
run 2 diff --profile agent-cpu-inference "$g" "$tmp/node-smt"
if grep -Eq '^  worse +cpu\.smt +pass -> warn' "$tmp/out"; then
	ok "--profile: cpu.smt is worse"; else nok "--profile: cpu.smt is worse"; fi
run 0 diff --profile agent-cpu-inference "$g" "$tmp/node-same"
# An archive.
if tar -C "$tmp/node-link" -czf "$tmp/node-link.tar.gz" . 2>/dev/null; then
	run 1 diff "$tmp/golden.probe.json" "$tmp/node-link.tar.gz"
	only '^pci\.(accelerators|devices)\[0000:01:00\.0\]\.link\.'
fi
# One operand: NEW is this node, or --sysroot.
run 1 --sysroot "$tmp/node-sysctl" diff "$tmp/golden.probe.json"
only '^kernel\.sysctl\."vm\.swappiness"$'

## JSON.
run 1 diff --format json "$g" "$tmp/node-smt"
if [ -n "${JSUBSET:-}" ]; then
	cat >"$tmp/want.json" <<'JSON'
{"schema": "nodeaudit.diff/1",
 "old": {"kind": "snapshot"}, "new": {"kind": "snapshot"},
 "changes": [{"path": "cpu.smt.active", "old": false, "new": true, "kind": "changed", "volatile": false}],
 "findings": [],
 "summary": {"facts_changed": 1, "volatile_changed": 3, "checks_worse": 0, "findings_compared": false, "exit": 1}}
JSON
	if "$JSUBSET" "$tmp/want.json" "$tmp/out" >"$tmp/js" 2>&1; then ok "json document"
	else nok "json document"; sed 's/^/# /' "$tmp/js"; fi
fi
if python3 -c 'import jsonschema' 2>/dev/null; then
	for args in "$g $tmp/node-dimm" "--all $tmp/golden.report.json $tmp/node-dimm.report.json"; do
		# shellcheck disable=SC2086
		"$NODEAUDIT" diff --format json $args >"$tmp/d.json" 2>/dev/null
		if python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
			"$schema" "$tmp/d.json" 2>"$tmp/js"; then ok "diff $args validates against the schema"
		else nok "diff $args validates against the schema"; sed 's/^/# /' "$tmp/js" | tail -5; fi
	done
else
	echo "# skip: python3-jsonschema is not installed, schema not checked"
fi

## check --baseline: the same comparison inside the node's report.
run 1 --sysroot "$tmp/node-sysctl" check --baseline "$tmp/golden.probe.json" --format json
if [ -n "${JSUBSET:-}" ]; then
	cat >"$tmp/want.json" <<'JSON'
{"schema": "nodeaudit.report/1",
 "baseline": {"schema": "nodeaudit.diff/1",
   "changes": [{"path": "kernel.sysctl.\"vm.swappiness\"", "old": "10", "new": "60"}],
   "summary": {"facts_changed": 1}},
 "summary": {"exit": 1}}
JSON
	if "$JSUBSET" "$tmp/want.json" "$tmp/out" >"$tmp/js" 2>&1; then ok "report.baseline"
	else nok "report.baseline"; sed 's/^/# /' "$tmp/js"; fi
fi
# The golden node itself passes every check (exit 0), so drift alone gives 1.
run 0 --sysroot "$g" check --baseline "$tmp/golden.report.json"
has "0 facts changed"
run 1 --sysroot "$tmp/node-link" check --baseline "$tmp/golden.report.json"
has "Baseline  $tmp/golden.report.json"
has "pci.accelerators[0000:01:00.0].link.width.current"
# The summary line names the drift that gave exit 1 (no fail, no warn).
has "0 fail, 0 warn, "
has "; exit 1 (drift from the baseline: "
has " facts changed, 0 checks worse)"
run 0 --sysroot "$tmp/node-link" check --baseline "$tmp/golden.report.json" --fail-on fail
run 3 --sysroot "$tmp/node-link" check --baseline "$tmp/missing.json"

## Inputs that are none of the three: exit 3, one line naming the file.
bad() {
	if [ $# -gt 3 ]; then   # bad PATH RE WHAT CMD...: --sysroot PATH CMD
		p=$1 re=$2 what=$3; shift 3
		"$NODEAUDIT" --sysroot "$p" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		set -- "$p" "$re" "$what ($*)"
		[ -s "$tmp/out" ] && rc="$rc, with output"
	else
		"$NODEAUDIT" diff "$1" "$g" >/dev/null 2>"$tmp/err"
		rc=$?
	fi
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 3 ] && [ "$lines" -eq 1 ] && grep -Fq "'$1'" "$tmp/err" && grep -Eq "$2" "$tmp/err"; then
		ok "refused: $3"
	else
		nok "refused: $3 (exit $rc, $lines lines)"; sed 's/^/# /' "$tmp/err"
	fi
}
echo '{"schema": "nodeaudit.fleet/1"}' >"$tmp/fleet.json"
bad "$tmp/fleet.json" "not a probe JSON, check report or snapshot \\(schema 'nodeaudit.fleet/1'\\)" "a fleet summary"
echo 'not json' >"$tmp/text.json"
bad "$tmp/text.json" 'not JSON: line 1' "a text file"
: >"$tmp/empty.json"
bad "$tmp/empty.json" 'empty file' "an empty file"
echo '[1, 2]' >"$tmp/array.json"
bad "$tmp/array.json" "no 'schema' key" "a JSON array"
mkdir "$tmp/emptydir"
bad "$tmp/emptydir" 'a directory without proc/, sys/ or nodeaudit/' "a directory that is no snapshot"
bad "$tmp/nothere.json" 'cannot read .*: No such file' "a missing file"
# --sysroot with such a directory, as a user gives it: the folder above an
# extracted capture (named), an empty one; every command that reads a machine.
mkdir "$tmp/above"
cp -R "$g" "$tmp/above/node17"
for c in check probe plan snapshot bench; do
	bad "$tmp/above" "it holds nothing a capture holds \\(no proc/, sys/ or nodeaudit/\\); '$tmp/above/node17' does" \
		"--sysroot above a capture" $c
done
bad "$tmp/emptydir" "cannot use sysroot '$tmp/emptydir': it holds nothing a capture holds" "an empty --sysroot" check --format tap
bad "$tmp/emptydir" "it holds nothing a capture holds" "an empty --sysroot" -q
# The same folder as an archive (tar czf of the folder above a capture, with
# the capture one level too deep, and a second folder beside it): refused after
# unpacking, for every command that reads a machine.
mkdir "$tmp/above/notes"
tar -C "$tmp/above" -czf "$tmp/above.tar.gz" .
for c in check probe plan; do
	bad "$tmp/above.tar.gz" "the archive holds nothing a capture holds \\(no proc/, sys/ or nodeaudit/\\)" \
		"--sysroot archive of the folder above a capture" $c
done
# An empty one beside a dump is the dump's machine with nothing else.
"$NODEAUDIT" --sysroot "$tmp/emptydir" --smbios /dev/null probe --only memory >/dev/null 2>"$tmp/err"
if grep -q "holds nothing a capture holds" "$tmp/err"; then nok "an empty --sysroot beside --smbios refused"
else ok "an empty --sysroot beside --smbios is the dump's machine"; fi
run 3 diff
run 3 diff a b c
run 3 diff --format csv "$g" "$g"
run 3 --sysroot "$g" diff "$g" "$g"

echo "1..$n"
[ $fail -eq 0 ]
