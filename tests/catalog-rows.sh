#!/bin/sh
# catalog-rows.sh - each check's catalogue row against the code and the
# outputs that show it (issue: a check is its row, its observe function and
# its profile entry):
#   - tests/catalog-reads runs every observe function over the fact trees of
#     the fixtures below, every member lookup traced: each read must be in
#     the row's .facts, and each entry of .facts read somewhere;
#   - every Prometheus series a row names (.metrics) is written by
#     check --format prometheus, with the check's id in its HELP line;
#   - every NFD label a row names (.labels) is written by check --format nfd;
#   - a row whose drawing part is a device or a link names the device list.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${top_builddir:?}"
reads=$top_builddir/tests/catalog-reads
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/catalog-rows.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
[ -x "$reads" ] || { echo "1..0 # SKIP tests/catalog-reads is not built"; exit 77; }

# Fact trees that take every check down its branches: accelerators behind
# switches and with NICs, DIMMs and EDAC, hugepages per node, hybrid cores,
# cgroup limits, RoCE ports; and reports with bench figures.
set --
for d in pci-nic-roce-ecn pci-8gpu-switches pci-gpu-slot-limited-x8 pci-matrix-mixed pci-4modules-shared-uplink \
	 numa-2node mem-server mem-edac kernel-tuned-server cpu-2s-smt cpu-rpl-laptop process-v2-limited; do
	"$NODEAUDIT" --sysroot "$fx/$d" probe --format json >"$tmp/$d.json" 2>/dev/null
	set -- "$@" "$tmp/$d.json"
done
if "$reads" "$@" "$fx"/check-facts/*.json "$fx/report/node-e.json" "$fx/report/a/node-a.json" >"$tmp/out" 2>&1; then
	ok "every observe function reads what its row lists: $(tail -n 1 "$tmp/out")"
else
	nok "observe functions and their rows' facts"; sed 's/^/#   /' "$tmp/out" | sort -u | head -n 30
fi

# ... and it does tell: over an empty tree no entry is read.
echo '{}' >"$tmp/empty.json"
if ! "$reads" "$tmp/empty.json" >"$tmp/out" 2>&1 && grep -q '^cpu.smt: its row lists cpu.smt.active, which it read in none' "$tmp/out"
then ok "over an empty tree it names the entries no check read"; else nok "over an empty tree it names the entries no check read"; fi

if "$reads" --renderers >"$tmp/rows" 2>"$tmp/err"; then ok "device and link parts name their device list"
else nok "device and link parts name their device list"; sed 's/^/#   /' "$tmp/err"; fi
[ -s "$tmp/rows" ] && ok "rows name $(grep -c '^metric' "$tmp/rows") series and $(grep -c '^label' "$tmp/rows") labels" ||
	nok "the rows name no series or label"

# The renderers' outputs over reports that hold every figure: the
# fixtures' checks under agent-rdma-host, and the reports with bench facts.
: >"$tmp/prom"
: >"$tmp/nfd"
for d in pci-nic-roce-ecn pci-8gpu-switches mem-edac mem-server cpu-rpl-laptop numa-2node; do
	"$NODEAUDIT" --sysroot "$fx/$d" check --profile agent-rdma-host --format prometheus >>"$tmp/prom" 2>/dev/null
	"$NODEAUDIT" --sysroot "$fx/$d" check --profile agent-rdma-host --format nfd >>"$tmp/nfd" 2>/dev/null
done
# check-facts/good.json with a bench that knew its peak (check --bench's facts).
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["bench"] = {"bandwidth": {"bytes_per_s": 2.0e11}, "peak_bytes_per_s": 3.0e11, "efficiency": 2.0 / 3}
json.dump(d, open(sys.argv[2], "w"))' "$fx/check-facts/good.json" "$tmp/bench.json"
for r in "$fx/report/node-e.json" "$fx/report/a/node-a.json" "$tmp/bench.json"; do
	"$NODEAUDIT" check --facts "$r" --format prometheus >>"$tmp/prom" 2>/dev/null
	"$NODEAUDIT" check --facts "$r" --format nfd >>"$tmp/nfd" 2>/dev/null
done
while read -r kind name id; do
	case $kind in
	metric)
		if grep -q "^$name[ {]" "$tmp/prom" && grep "^# HELP $name " "$tmp/prom" | grep -q "[ (]$id[,)]"; then
			ok "$id: series $name is written, its HELP names the check"
		else nok "$id: series $name is not written, or its HELP does not name the check"; fi ;;
	label)
		re=$(printf '%s' "$name" | sed 's/\./\\./g; s/\*/[a-z0-9_]*/')
		if grep -q "^nodeaudit\.feature\.node\.kubernetes\.io/$re=" "$tmp/nfd"; then ok "$id: NFD label $name is written"
		else nok "$id: NFD label $name is not written"; fi ;;
	esac
done <"$tmp/rows"
# And a HELP line names no check that is not in the catalogue.
"$NODEAUDIT" explain >"$tmp/ids" 2>/dev/null
bad=0
for id in $(grep -o '(checks\? [a-z_., ]*)' "$tmp/prom" | sed 's/^(checks\? //; s/)$//; s/,/ /g' | tr ' ' '\n' | sort -u); do
	grep -q "^$id " "$tmp/ids" || { echo "# a HELP line names $id, which is no check"; bad=1; }
done
[ $bad = 0 ] && ok "HELP lines name only catalogue checks" || nok "HELP lines name only catalogue checks"

echo "1..$n"
[ $fail -eq 0 ]
