#!/bin/sh
# plan.sh - plan formats from a hand-written report of a 2-socket SMT server
# (4 cores x 2 threads per socket, L4 GPU on node 1): sysctl and systemd
# output compared with files written from that design; the shell plan must
# pass sh -n and shellcheck; json carries every step.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
rep=$top_srcdir/tests/fixtures/plan/report-2s.json
exp=$top_srcdir/tests/expected
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi; }

"$NODEAUDIT" plan --report "$rep" --format sysctl >"$tmp/sysctl"; ok $? "sysctl format runs"
diff -u "$exp/plan-2s.sysctl" "$tmp/sysctl"; ok $? "sysctl.d file as designed"
"$NODEAUDIT" plan --report "$rep" --format systemd --unit llama >"$tmp/systemd"; ok $? "systemd format runs"
diff -u "$exp/plan-2s.systemd" "$tmp/systemd"; ok $? "systemd template and drop-ins as designed"
# -o DIR: the files themselves, as under /etc/systemd/system, each path printed;
# systemd's own verify loads the template with each drop-in without a word.
"$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/numa-2node" plan --format systemd --command '/bin/sleep 600 -x "50%" $HOME' \
	-o "$tmp/units/" >"$tmp/out" 2>"$tmp/err"; ok $? "systemd -o DIR runs"
printf '%s\n' "$tmp/units/inference-worker@.service" "$tmp/units/inference-worker@node0.service.d/90-nodeaudit.conf" \
	"$tmp/units/inference-worker@node1.service.d/90-nodeaudit.conf" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/out"; ok $? "systemd -o DIR names the three files it wrote"
for f in $(cat "$tmp/want"); do [ -s "$f" ] || echo "# missing $f"; done
[ "$(find "$tmp/units" -type f | wc -l)" -eq 3 ]; ok $? "systemd -o DIR wrote the template and two drop-ins, nothing else"
grep -qx 'ExecStart=/bin/sleep 600 -x "50%%" $$HOME' "$tmp/units/inference-worker@.service"; ok $? "template: the command, % and \$ escaped for systemd"
printf '[Service]\nCPUAffinity=9-15\nNUMAPolicy=bind\nNUMAMask=1\nExecStart=\nExecStart=/bin/sleep 600 -x "50%%%%" $$HOME -t 7\n' |
	diff -u - "$tmp/units/inference-worker@node1.service.d/90-nodeaudit.conf"; ok $? "node 1's drop-in: its CPUs, node and threads"
if command -v systemd-analyze >/dev/null 2>&1; then
	(cd "$tmp/units" && SYSTEMD_UNIT_PATH="$tmp/units:" systemd-analyze verify --man=no \
		inference-worker@node0.service inference-worker@node1.service) >"$tmp/verify" 2>&1
	rc=$?; [ $rc -eq 0 ] && [ ! -s "$tmp/verify" ]; ok $? "systemd-analyze verify: no complaint (exit $rc)"
	sed 's/^/# /' "$tmp/verify"
else
	echo "ok $((n + 1)) - systemd-analyze verify # SKIP systemd-analyze is not installed"; n=$((n + 1))
fi
"$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/numa-2node" plan --format text -o "$tmp/units/" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ]; ok $? "-o DIR with a format of one file: exit 3"
"$NODEAUDIT" plan --report "$rep" --format sh >"$tmp/plan.sh"; ok $? "sh format runs"
sh -n "$tmp/plan.sh"; ok $? "sh -n accepts the script"
grep -q "^set_sysctl 'vm.swappiness' '10'$" "$tmp/plan.sh"; ok $? "script sets swappiness idempotently"
grep -q "^set_choice /sys/kernel/mm/transparent_hugepage/enabled 'madvise'$" "$tmp/plan.sh"; ok $? "script sets THP"
grep -q "set_plain \"\$g\" 'performance'" "$tmp/plan.sh"; ok $? "script sets the governor"
grep -q "^#   Debian/Ubuntu: add mitigations=auto,nosmt to GRUB_CMDLINE_LINUX" "$tmp/plan.sh"; ok $? "cmdline printed, not run"
grep -qx "#   Fedora/RHEL:   grubby --update-kernel=ALL --args='mitigations=auto,nosmt'" "$tmp/plan.sh"; ok $? "grubby line with the argument"
# The grubby line as an admin pastes it (the comment's text): grubby gets the
# argument itself, not the sentence of the check's fix.
"$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" plan --format sh >"$tmp/smt.sh"
line=$(sed -n 's/^#   Fedora\/RHEL: *//p' "$tmp/smt.sh")
got=$(grubby() { printf '[%s]' "$@"; }; eval "$line")
[ "$got" = "[--update-kernel=ALL][--args=nosmt]" ]; ok $? "pasted grubby line gives --args=nosmt (got $got)"
! grep -q "args=.*kernel command line" "$tmp/smt.sh"; ok $? "no prose in the grubby line"
grep -q "reboot" "$tmp/plan.sh" && ! grep -Eq '^[^#]*\breboot\b' "$tmp/plan.sh"; ok $? "never reboots"
if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -s sh "$tmp/plan.sh"; ok $? "shellcheck accepts the script"
else
	echo "ok $((n + 1)) - shellcheck # SKIP not installed"; n=$((n + 1))
fi
"$NODEAUDIT" plan --report "$rep" >"$tmp/text"; ok $? "text format runs"
grep -q "numactl --physcpubind=1-3 --membind=0 -- <your-inference-command> -t 3" "$tmp/text"; ok $? "node 0 worker line"
grep -q "numactl --physcpubind=5-7 --membind=1 -- <your-inference-command> -t 3" "$tmp/text"; ok $? "node 1 worker line"
grep -q "node 1: numactl --cpunodebind=1 --membind=1" "$tmp/text"; ok $? "GPU feeder on its node"
grep -q "populate channels C, D, G and H" "$tmp/text"; ok $? "hardware hint shown"
# Plain text never wraps a command (a paste would run two): each worker's
# numactl and taskset line whole, on a line of its own, at 80 columns with a
# long --command; the label goes to a line of its own when the two do not fit.
cmd="llama-server -m /srv/models/very-long-model-name-Q4_K_M.gguf --port 8080 --host 0.0.0.0"
for w in 80 40; do
	COLUMNS=$w "$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" plan --command "$cmd" >"$tmp/text$w"
	COLUMNS=$w "$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" plan --command "$cmd" --format json >"$tmp/p.json"
	python3 - "$tmp/p.json" "$tmp/text$w" <<'PY'; ok $? "COLUMNS=$w: every command of the plan on one line of the text"
import json, sys
p = json.load(open(sys.argv[1])); lines = [l.strip() for l in open(sys.argv[2])]
cmds = [w[k] for w in p["workers"] for k in ("numactl", "taskset")]
cmds += [p["housekeeping"]["taskset"], p["housekeeping"]["move_running"].split("   (")[0]]
cmds += ["sysctl -w %s=%s" % (s["key"], s["value"]) for s in p["steps"] if s["kind"] == "sysctl"]
missing = [c for c in cmds if not any(l == c or l.endswith(": " + c) or l.startswith(c + "  ") for l in lines)]
for c in missing: print("# not whole on a line:", c)
sys.exit(1 if missing or not cmds else 0)
PY
done
# A note's quoted command is not cut either: --command "llama-server -m MODEL.gguf".
COLUMNS=60 "$NODEAUDIT" --sysroot "$top_srcdir/tests/fixtures/cpu-2s-smt" plan >"$tmp/t60"
grep -q '"llama-server -m MODEL.gguf"' "$tmp/t60"; ok $? "a note's quoted command on one line"
# plan --help: no sentence broken by a hard line break ("and" or "node" alone).
COLUMNS=80 "$NODEAUDIT" plan --help >"$tmp/help"
! grep -Eqx ' *(and|node)' "$tmp/help"; ok $? "plan --help: no 'and' or 'node' alone on a line"
tr '\n' ' ' <"$tmp/help" | tr -s ' ' | grep -q 'which sizes --mlock, the KV cache, vLLM.s tensor parallelism and the fit per node --ctx'; ok $? "plan --help: --model's sentence whole"
tr '\n' ' ' <"$tmp/help" | tr -s ' ' | grep -q 'its knee per node becomes -t where below the cores --runtime-bin'; ok $? "plan --help: --bench's sentence whole"
"$NODEAUDIT" plan --report "$rep" --format json -o "$tmp/plan.json"; ok $? "json format runs"
printf '{"schema":"nodeaudit.plan/1","workers":[{"node":0,"cpus":"1-3","threads":3,"reserved_cpus":"0,8"},{"node":1,"cpus":"5-7","threads":3}],"feeders":[{"bdf":"0000:81:00.0","node":1}]}' >"$tmp/want.json"
"$JSUBSET" "$tmp/want.json" "$tmp/plan.json"; ok $? "json plan as designed"
"$NODEAUDIT" plan --report /nonexistent.json >/dev/null 2>"$tmp/err"; [ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; ok $? "missing report: exit 3, one line"
printf '{"schema": "nodeaudit.fleet/1"}' >"$tmp/notreport.json"
"$NODEAUDIT" plan --report "$tmp/notreport.json" >/dev/null 2>"$tmp/err"; [ $? -eq 3 ] && grep -q "is not a 'nodeaudit check --format json' report" "$tmp/err"; ok $? "a JSON that is not a report: exit 3, says so"
head -c 300 "$rep" >"$tmp/cut.json"
"$NODEAUDIT" plan --report "$tmp/cut.json" >/dev/null 2>"$tmp/err"; [ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; ok $? "a truncated report: exit 3, one line"
"$NODEAUDIT" plan --report "$rep" --unit 'a/b' >/dev/null 2>&1; [ $? -eq 3 ]; ok $? "a unit name with '/': exit 3"
"$NODEAUDIT" plan --reserve lots >/dev/null 2>&1; [ $? -eq 3 ]; ok $? "bad --reserve: exit 3"
echo "1..$n"
[ $fail -eq 0 ]
