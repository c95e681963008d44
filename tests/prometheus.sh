#!/bin/sh
# prometheus.sh - check --format prometheus: promtool-clean metrics on every
# kind of fixture, a bdf label on the link findings, per-device link gauges
# and per-node gauges with the fixtures' figures, the bench gauges with
# --bench; contrib/prometheus's alert rules pass 'promtool check rules' and
# fire, in 'promtool test rules', on the series this output gives.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v promtool >/dev/null 2>&1 || { echo "SKIP: no promtool"; exit 77; }
n=0 fail=0
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prom.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
has() { if grep -qxF -- "$1" "$tmp/out"; then ok "$2"; else nok "$2: no line '$1'"; fi; }

for s in pci-gpu-downtrained-x4 pci-8gpu-switches pci-nic numa-2node mem-edac cpu-vm pci-vm-passthrough; do
	"$NODEAUDIT" --sysroot "$fx/$s" check --profile agent-accelerator-host --format prometheus >"$tmp/out" 2>/dev/null
	if promtool check metrics <"$tmp/out" >"$tmp/lint" 2>&1; then ok "$s: promtool check metrics clean"
	else nok "$s: promtool: $(head -n 3 "$tmp/lint")"; fi
done

# pci-gpu-downtrained-x4: 0000:01:00.0 (Aldebaran/MI200 [Instinct MI210],
# node 0) trained to x4 of x16 at 16 of 16 GT/s; 0000:02:00.0 x16 at 2.5 of 16.
"$NODEAUDIT" --sysroot "$fx/pci-gpu-downtrained-x4" check --profile agent-accelerator-host --format prometheus >"$tmp/out" 2>/dev/null
has 'nodeaudit_check_status{id="pci.accelerator.link_width_ratio",bdf="0000:01:00.0",check_severity="fail",status="fail"} 1' \
	"the failing link width names its device"
has 'nodeaudit_check_status{id="pci.accelerator.link_width_ratio",bdf="0000:01:00.0",check_severity="fail",status="pass"} 0' \
	"one series per status: not passing"
has 'nodeaudit_check_status{id="pci.accelerator.link_speed",bdf="0000:02:00.0",check_severity="info",status="info"} 1' \
	"the slow link names its device"
if grep '^nodeaudit_check_status{' "$tmp/out" | grep -v ',status="\(pass\|info\|warn\|fail\|unknown\)"} [01]$' | grep -q . ||
   grep '^nodeaudit_check_status{' "$tmp/out" | grep -q '[{,]severity='; then
	nok "check_status: a status label and 0/1 on every series, no severity label"
else ok "check_status: a status label and 0/1 on every series, no severity label"; fi
# Exactly one status is 1 per check.
if grep '^nodeaudit_check_status{' "$tmp/out" | sed 's/,status="[a-z]*"} / /' | awk '
	{ n[$1]++; s[$1] += $2 } END { for (k in n) if (n[k] != 5 || s[k] != 1) { print k; bad = 1 } exit bad }'; then
	ok "check_status: five series per check, one of them 1"
else nok "check_status: five series per check, one of them 1"; fi
has 'nodeaudit_pci_link_width{bdf="0000:01:00.0",class="accelerator",device="Aldebaran/MI200 [Instinct MI210]",node="0"} 4' \
	"link width gauge per device"
has 'nodeaudit_pci_link_width_max{bdf="0000:01:00.0",class="accelerator",device="Aldebaran/MI200 [Instinct MI210]",node="0"} 16' \
	"maximum link width gauge"
has 'nodeaudit_pci_link_speed_transfers_per_second{bdf="0000:02:00.0",class="accelerator",node="0"} 2500000000' \
	"link speed gauge in transfers per second (an unnamed device has no device label)"
has 'nodeaudit_pci_link_speed_max_transfers_per_second{bdf="0000:02:00.0",class="accelerator",node="0"} 16000000000' \
	"maximum link speed gauge"
grep -q '^# HELP nodeaudit_pci_link_width .*pci.accelerator.link_width_ratio' "$tmp/out" &&
	ok "HELP names the check" || nok "HELP does not name the check"

# numa-2node: two nodes of 16 GiB.
"$NODEAUDIT" --sysroot "$fx/numa-2node" check --format prometheus >"$tmp/out" 2>/dev/null
has 'nodeaudit_numa_node_memory_bytes{node="0"} 17179869184' "node label: node 0's memory"
has 'nodeaudit_numa_node_memory_bytes{node="1"} 17179869184' "node label: node 1's memory"

# check-facts/bad.json: 4 of 8 channels populated.
"$NODEAUDIT" check --facts "$fx/check-facts/bad.json" --format prometheus >"$tmp/out" 2>/dev/null
has 'nodeaudit_memory_channels 8' "channels total"
has 'nodeaudit_memory_channels_populated 4' "channels populated"
has 'nodeaudit_pci_link_width{bdf="0000:41:00.0",class="accelerator"} 8' "a device of unknown node has no node label"

if [ -z "${NODEAUDIT_QUICK:-}" ]; then
	"$NODEAUDIT" check --bench --format prometheus >"$tmp/out" 2>/dev/null
	if grep -q '^nodeaudit_bench_bandwidth_bytes_per_second [0-9.e+]*$' "$tmp/out" &&
	   grep -q '^nodeaudit_bench_node_bandwidth_bytes_per_second{node="[0-9]*"} [0-9.e+]*$' "$tmp/out" &&
	   promtool check metrics <"$tmp/out" >/dev/null 2>&1; then ok "--bench: bandwidth gauges, promtool-clean"
	else nok "--bench: no bandwidth gauges"; fi
fi

rules=$top_srcdir/contrib/prometheus/nodeaudit.rules.yml
if promtool check rules "$rules" >"$tmp/lint" 2>&1; then ok "promtool check rules contrib/prometheus"
else nok "promtool check rules: $(cat "$tmp/lint")"; fi

# The narrow-link alert fires for the downtrained card and only for it, on
# the series of this very output (each sample held for 20 minutes).
"$NODEAUDIT" --sysroot "$fx/pci-gpu-downtrained-x4" check --profile agent-accelerator-host --format prometheus >"$tmp/out" 2>/dev/null
cp "$rules" "$tmp/rules.yml"
{
	printf 'rule_files:\n  - rules.yml\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n'
	grep '^nodeaudit_pci_link_width' "$tmp/out" | grep -v '_transfers_' | while read -r series value; do
		printf "      - series: '%s'\n        values: '%sx20'\n" "$series" "$value"
	done
	cat <<'Y'
    alert_rule_test:
      - eval_time: 20m
        alertname: NodeauditAcceleratorLinkNarrow
        exp_alerts:
          - exp_labels:
              severity: critical
              bdf: "0000:01:00.0"
              class: accelerator
              device: "Aldebaran/MI200 [Instinct MI210]"
              node: "0"
            exp_annotations:
              summary: ": accelerator 0000:01:00.0 runs at x4"
              description: "The PCIe link of 0000:01:00.0 (Aldebaran/MI200 [Instinct MI210]) is narrower than the card's; reseat it or check the slot's bifurcation."
Y
} >"$tmp/test.yml"
if (cd "$tmp" && promtool test rules test.yml) >"$tmp/lint" 2>&1; then ok "the narrow-link alert fires for 0000:01:00.0 only"
else nok "promtool test rules: $(cat "$tmp/lint")"; fi
# The failed-check alert fires for each check whose status is fail, with
# the check's severity as check_severity beside the alert's own.
"$NODEAUDIT" --sysroot "$fx/pci-gpu-downtrained-x4" check --profile agent-accelerator-host --format json >"$tmp/r.json" 2>/dev/null
python3 - "$tmp/out" "$tmp/r.json" >"$tmp/test.yml" <<'PY'
import json, re, sys
series = [l.rsplit(" ", 1) for l in open(sys.argv[1]) if l.startswith("nodeaudit_check_status{")]
report = json.load(open(sys.argv[2]))
print("rule_files:\n  - rules.yml\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:")
for name, value in series:
    print("      - series: '%s'\n        values: '%sx20'" % (name, value.strip()))
print("    alert_rule_test:\n      - eval_time: 20m\n        alertname: NodeauditCheckFailed\n        exp_alerts:")
for f in report["findings"]:
    if f["status"] != "fail":
        continue
    labels = {"severity": "critical", "id": f["id"], "check_severity": f["severity"], "status": "fail"}
    if f.get("key"):
        labels["key"] = f["key"]
    m = re.match(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]):", f.get("detail") or "")
    if m:
        labels["bdf"] = m.group(1)
    print("          - exp_labels:")
    for k, v in labels.items():
        print("              %s: %s" % (k, json.dumps(v)))
    print("            exp_annotations:")
    print("              summary: %s" % json.dumps(": nodeaudit check %s fails" % f["id"]))
    print("              description: %s" % json.dumps("Run 'nodeaudit check' on the node; 'nodeaudit explain %s' says why it matters." % f["id"]))
PY
if grep -q 'exp_labels' "$tmp/test.yml" && (cd "$tmp" && promtool test rules test.yml) >"$tmp/lint" 2>&1; then
	ok "the failed-check alert fires for the failing checks ($(grep -c exp_labels "$tmp/test.yml")) and no other"
else nok "promtool test rules (NodeauditCheckFailed): $(cat "$tmp/lint")"; fi

# ECC: counters; the uncorrected-error alert fires where EDAC counted some
# (mem-edac with mc1's ue_count at 2) and not on mem-edac itself (0).
cp -R "$fx/mem-edac" "$tmp/edac"
echo 2 >"$tmp/edac/sys/devices/system/edac/mc/mc1/ue_count"
for v in edac:2 mem-edac:0; do
	root=${v%%:*} want=${v#*:}
	case $root in edac) root=$tmp/edac ;; *) root=$fx/$root ;; esac
	"$NODEAUDIT" --sysroot "$root" check --format prometheus >"$tmp/out" 2>/dev/null
	has "nodeaudit_memory_ecc_uncorrected_errors_total $want" "uncorrected ECC errors: $want"
	has '# TYPE nodeaudit_memory_ecc_uncorrected_errors_total counter' "uncorrected ECC errors: a counter"
	has '# TYPE nodeaudit_memory_ecc_corrected_errors_total counter' "corrected ECC errors: a counter"
	if promtool check metrics <"$tmp/out" >"$tmp/lint" 2>&1; then ok "ECC $want: promtool check metrics clean"
	else nok "ECC $want: promtool: $(head -n 3 "$tmp/lint")"; fi
	{
		printf 'rule_files:\n  - rules.yml\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n'
		printf "      - series: 'nodeaudit_memory_ecc_uncorrected_errors_total'\n        values: '%sx5'\n" "$want"
		printf '    alert_rule_test:\n      - eval_time: 2m\n        alertname: NodeauditUncorrectedMemoryErrors\n'
		if [ "$want" = 0 ]; then printf '        exp_alerts: []\n'
		else cat <<Y
        exp_alerts:
          - exp_labels:
              severity: critical
            exp_annotations:
              summary: ": $want uncorrected ECC errors since boot"
              description: "EDAC counted uncorrected memory errors: drain the node and replace the DIMM."
Y
		fi
	} >"$tmp/test.yml"
	if (cd "$tmp" && promtool test rules test.yml) >"$tmp/lint" 2>&1; then
		ok "the uncorrected-ECC alert $( [ "$want" = 0 ] && echo "stays quiet" || echo fires ) at $want"
	else nok "promtool test rules (ECC $want): $(cat "$tmp/lint")"; fi
done
echo "1..$n"
[ $fail -eq 0 ]
