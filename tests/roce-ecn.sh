#!/bin/sh
# roce-ecn.sh - the RoCE ECN check (pci.nic.roce_ecn) on
# tests/fixtures/pci-nic-roce-ecn: a two-port ConnectX card (15b3) whose
# mlx5 driver (NVIDIA's MLNX_OFED) has one file per priority for each end
# of congestion control, /sys/class/net/IF/ecn/roce_np/enable/0-7 and
# roce_rp/enable/0-7 (as NVIDIA's MLNX_OFED documentation, "Explicit
# Congestion Notification (ECN)", lays them out).  Port 0 has ECN on at
# both ends on every priority; port 1 at the notification point only.
# The facts, the finding and its part, its plan, a snapshot's replay, and
# the files that are garbled or missing.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
fix=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/roce-ecn.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
port1=sys/devices/pci0000:40/0000:40:01.1/0000:41:00.1/net/ens1f1np1/ecn

# want NAME EXPECTED-JSON ARGS...: the JSON output holds EXPECTED (jsubset).
want() {
	name=$1 exp=$2
	shift 2
	printf '%s\n' "$exp" >"$tmp/exp.json"
	"$NODEAUDIT" "$@" --format json >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	if [ $rc -le 2 ] && "$JSUBSET" "$tmp/exp.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then ok "$name"
	else nok "$name (exit $rc)"; sed 's/^/#   /' "$tmp/diff" "$tmp/err" | head -n 20; fi
}
# finding NAME EXPECTED ARGS...: "status|observed|detail or reason" of the
# pci.nic.roce_ecn finding of a check is EXPECTED.
finding() {
	name=$1 exp=$2
	shift 2
	"$NODEAUDIT" "$@" --format json >"$tmp/out.json" 2>"$tmp/err"
	got=$(python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == "pci.nic.roce_ecn":
        print("%s|%s|%s" % (f["status"], json.dumps(f.get("observed")), f.get("detail") or f.get("reason")))' "$tmp/out.json" 2>&1)
	if [ "$got" = "$exp" ]; then ok "$name"
	else nok "$name: got '$got', want '$exp'"; sed 's/^/#   /' "$tmp/err"; fi
}
fresh() {
	chmod -R u+w "$tmp/f" 2>/dev/null
	rm -rf "$tmp/f"
	cp -R "$fix/pci-nic-roce-ecn" "$tmp/f" && chmod -R u+w "$tmp/f"
}

want "facts: the priorities on at each end, per port" \
	'{"pci": {"nics": [{"bdf": "0000:41:00.0", "interface": "ens1f0np0",
	    "roce_ecn": {"np": [0, 1, 2, 3, 4, 5, 6, 7], "rp": [0, 1, 2, 3, 4, 5, 6, 7]}},
	  {"bdf": "0000:41:00.1", "interface": "ens1f1np1", "roce_ecn": {"np": [0, 1, 2, 3, 4, 5, 6, 7], "rp": []}}]},
	  "evidence": {"pci.nics[1].roce_ecn": ["/sys/class/net/ens1f1np1/ecn"]}}' \
	--sysroot "$fix/pci-nic-roce-ecn" probe --only pci
finding "agent-rdma-host: a warning on port 1, the reaction point off" \
	'warn|false|0000:41:00.1: ens1f1np1 has ECN on no priority at both ends (notification point: 0-7; reaction point: none)' \
	--sysroot "$fix/pci-nic-roce-ecn" check --profile agent-rdma-host
# Without an ecn/ directory (the same card, pci-nic): nothing to check.
finding "no port with ECN settings: skipped, with the reason" \
	'skip|null|no network controller has RoCE ECN settings (/sys/class/net/IF/ecn/: NVIDIA mlx5 with its MLNX_OFED driver)' \
	--sysroot "$fix/pci-nic" check --profile agent-rdma-host
"$NODEAUDIT" --sysroot "$fix/pci-nic" probe --only pci --format json >"$tmp/plain.json" 2>/dev/null
if grep -q roce_ecn "$tmp/plain.json" || grep -q 'roce_ecn' "$tmp/plain.json"; then nok "no ecn/: no roce_ecn member, no gap"
else ok "no ecn/: no roce_ecn member, no gap"; fi

# ECN on for priority 3 alone at both ends: passes.
fresh
for e in roce_np roce_rp; do for p in 0 1 2 4 5 6 7; do echo 0 >"$tmp/f/$port1/$e/enable/$p"; done; echo 1 >"$tmp/f/$port1/$e/enable/3"; done
finding "priority 3 on at both ends: passes" \
	'pass|true|0000:41:00.0: ens1f0np0 has ECN on priorities 0-7 (notification point) and 0-7 (reaction point)' \
	--sysroot "$tmp/f" check --profile agent-rdma-host
# ... but np on 3 and rp on 4: no priority has both.
echo 0 >"$tmp/f/$port1/roce_rp/enable/3"; echo 1 >"$tmp/f/$port1/roce_rp/enable/4"
finding "np on 3, rp on 4: no common priority, a warning" \
	'warn|false|0000:41:00.1: ens1f1np1 has ECN on no priority at both ends (notification point: 3; reaction point: 4)' \
	--sysroot "$tmp/f" check --profile agent-rdma-host

# A garbled file: null and a gap naming it; the check is unknown (port 0 passes).
fresh
echo on >"$tmp/f/$port1/roce_np/enable/5"
want "garbled enable/5: roce_ecn null" \
	'{"pci": {"nics": [{"roce_ecn": {"np": [0, 1, 2, 3, 4, 5, 6, 7]}}, {"roce_ecn": null}]}}' \
	--sysroot "$tmp/f" probe --only pci
grep -Eq '"reason":[[:space:]]*"/sys/class/net/ens1f1np1/ecn/roce_np/enable/5: neither 0 nor 1"' "$tmp/out.json" &&
	ok "... and a gap naming the file" || nok "... and a gap naming the file"
finding "... and the check is unknown, naming the port" \
	'unknown|null|0000:41:00.1: its RoCE ECN settings could not be read' \
	--sysroot "$tmp/f" check --profile agent-rdma-host
# A missing one: the gap says which file.
fresh
rm "$tmp/f/$port1/roce_rp/enable/7"
"$NODEAUDIT" --sysroot "$tmp/f" probe --only pci --format json >"$tmp/out.json" 2>/dev/null
grep -Eq '"reason":[[:space:]]*"/sys/class/net/ens1f1np1/ecn/roce_rp/enable/7: missing"' "$tmp/out.json" && ok "a missing enable/7: its gap" ||
	nok "a missing enable/7: its gap"

# The finding is drawn on its device, with its reason; Prometheus names the port.
"$NODEAUDIT" --sysroot "$fix/pci-nic-roce-ecn" check --profile agent-rdma-host --format svg >"$tmp/out.svg" 2>/dev/null
grep -q 'data-finding="pci.nic.roce_ecn"' "$tmp/out.svg" && ok "svg: the finding is on a part" || nok "svg: the finding is on a part"
"$NODEAUDIT" --sysroot "$fix/pci-nic-roce-ecn" check --profile agent-rdma-host --format prometheus >"$tmp/out.prom" 2>/dev/null
grep -q '^nodeaudit_check_status{id="pci.nic.roce_ecn",bdf="0000:41:00.1",check_severity="warn",status="warn"} 1$' "$tmp/out.prom" &&
	ok "prometheus: the status series names the port" || nok "prometheus: the status series names the port"

# The plan: the sysfs globs, in the shell script.
"$NODEAUDIT" --sysroot "$fix/pci-nic-roce-ecn" plan --profile agent-rdma-host --format sh >"$tmp/plan.sh" 2>/dev/null
grep -q '^for g in /sys/class/net/\*/ecn/roce_rp/enable/\*; do$' "$tmp/plan.sh" && ok "plan sh: the reaction point's files" ||
	nok "plan sh: the reaction point's files"

# A snapshot keeps the files: its replay says the same.
if "$NODEAUDIT" --sysroot "$fix/pci-nic-roce-ecn" snapshot -o "$tmp/snap.tar.gz" >/dev/null 2>"$tmp/err"; then
	want "a snapshot's replay: the same ECN facts" \
		'{"pci": {"nics": [{"roce_ecn": {"rp": [0, 1, 2, 3, 4, 5, 6, 7]}}, {"roce_ecn": {"rp": []}}]}}' \
		--sysroot "$tmp/snap.tar.gz" probe --only pci
else
	nok "snapshot of the fixture"; sed 's/^/#   /' "$tmp/err"
fi

echo "1..$n"
[ $fail -eq 0 ]
