#!/bin/sh
# profiles-recommend.sh - `profiles recommend` names the built-in profile that
# fits each fixture, with the reason; the guest profile skips what the host
# decides; plain `nodeaudit`, check and every plan format use it on a guest
# (saying so) unless --profile is given; profiles' "skip" key
# is validated.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
COLUMNS=80; export COLUMNS
n=0 fail=0
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/recommend.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t() { # t NAME WANT_EXIT CMD...
	name=$1 want=$2; shift 2
	n=$((n + 1))
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then echo "ok $n - $name"
	else echo "not ok $n - $name (exit $rc, want $want)"; sed 's/^/  /' "$tmp/err"; fail=$((fail + 1)); fi
}
has() { grep -q -- "$1" "$tmp/out" || { echo "not ok - output lacks '$1'"; sed 's/^/  | /' "$tmp/out"; fail=$((fail + 1)); }; }
lacks() { ! grep -q -- "$1" "$tmp/out" || { echo "not ok - output has '$1'"; fail=$((fail + 1)); }; }
first() { [ "$(head -n 1 "$tmp/out")" = "$1" ] || { echo "not ok - first line '$(head -n 1 "$tmp/out")', want '$1'"; fail=$((fail + 1)); }; }

# fixture: the profile, from what the fixture models
#   cpu-vm               KVM guest (QEMU Icelake), 4 vCPUs
#   pci-vm-passthrough   a guest with a GPU passed through
#   virt-s390-zvm        a z/VM guest
#   pci-8gpu-switches    bare metal, 8 H100 behind switches
#   pci-gpu-x16-full     one GPU at full width
#   numa-2node           2 nodes, 16 cores, no accelerators
#   cpu-2s-smt           2 x Xeon Gold 6234: 16 cores
#   cpu-rpl-laptop       i7-1360P: 4 P-cores + 8 E-cores
while read -r s prof why; do
	t "recommend on $s" 0 "$NODEAUDIT" --sysroot "$fx/$s" profiles recommend </dev/null
	first "$prof"; has "$why"
done <<'L'
cpu-vm agent-vm-guest a virtual guest (KVM): the host decides
pci-vm-passthrough agent-vm-guest an accelerator is passed through
virt-s390-zvm agent-vm-guest a virtual guest (z/VM
pci-8gpu-switches agent-accelerator-host 8 PCIe accelerators
pci-gpu-x16-full agent-accelerator-host 1 PCIe accelerator:
numa-2node agent-cpu-inference 16 cores: CPU decode
cpu-2s-smt agent-cpu-inference 16 cores at up to 4000 MHz
cpu-rpl-laptop agent-orchestrator 4 performance cores at up to 5000 MHz, fewer than 16
L
t "recommend --format json" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" profiles recommend --format json
has '"profile":[[:space:]]*"agent-vm-guest"'; has '"reason":'
t "recommend on this machine" 0 "$NODEAUDIT" profiles recommend
grep -qx 'agent-vm-guest\|agent-accelerator-host\|agent-orchestrator\|agent-cpu-inference' "$tmp/out" ||
	{ echo "not ok - no profile named on this machine"; fail=$((fail + 1)); }
if "$NODEAUDIT" probe --format json 2>/dev/null | grep -q '"virtualized":[[:space:]]*true'; then
	first agent-vm-guest
fi
t "recommend takes no argument" 3 "$NODEAUDIT" profiles recommend extra

# The guest profile: the host's checks skipped with the reason.
t "agent-vm-guest validates" 0 "$NODEAUDIT" profiles validate "$top_srcdir/profiles/agent-vm-guest.json"
t "check --profile agent-vm-guest on cpu-vm" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" check --profile agent-vm-guest --format json --fail-on never
for c in cpu.governor cpu.smt memory.ecc memory.ecc.errors memory.channels.populated_ratio \
	 memory.channels.balanced memory.speed.configured_ratio bench.efficiency; do
	tr -d '\n' <"$tmp/out" | grep -q "\"id\":[[:space:]]*\"$c\",[[:space:]]*\"status\":[[:space:]]*\"skip\"[^}]*\"reason\":[[:space:]]*\"the host decides this" ||
		{ echo "not ok - $c is not skipped with 'the host decides this'"; fail=$((fail + 1)); }
done
tr -d '\n' <"$tmp/out" | grep -q '"id":[[:space:]]*"cpu.isa",[[:space:]]*"status":[[:space:]]*"pass"' ||
	{ echo "not ok - cpu.isa (the guest sees its ISA) is not decided"; fail=$((fail + 1)); }
t "profiles show: skipped checks" 0 env COLUMNS=200 "$NODEAUDIT" profiles show agent-vm-guest
has "skipped: the host decides this"

# Plain nodeaudit on a guest: the guest profile, said on the first line.
t "nodeaudit on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm"
first "nodeaudit check: profile agent-vm-guest (base > agent-cpu-inference >"
has "^  agent-vm-guest), chosen for a virtual guest (KVM): the host decides the$"
has "^  hardware checks; --profile overrides$"
t "nodeaudit on a guest, json" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" --format json
has '"chosen":[[:space:]]*"a virtual guest (KVM)'
t "nodeaudit --profile on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" --profile agent-cpu-inference
first "nodeaudit check: profile agent-cpu-inference (base > agent-cpu-inference)"; lacks "chosen"
# One choice for every command: check and each plan format on a guest use
# the guest profile too, and say where it was chosen.
t "nodeaudit check on a guest: the guest profile" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" check
first "nodeaudit check: profile agent-vm-guest (base > agent-cpu-inference >"
has "chosen for a virtual guest (KVM)"
t "check --format tap on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" check --format tap
has "^ok [0-9]* - cpu.smt # SKIP"; has "^ok [0-9]* - memory.ecc # SKIP"
t "check --format junit on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" check --format junit
has 'name="nodeaudit.agent-vm-guest"'
t "plan on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" plan
first "Profile agent-vm-guest, chosen for a virtual guest (KVM): the host decides the"
lacks "cpu.smt"
t "plan --format json on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" plan --format json
has '"profile":[[:space:]]*"agent-vm-guest"'; has '"profile_chosen":[[:space:]]*"a virtual guest (KVM)'
for f in sh sysctl systemd; do
	t "plan --format $f on a guest" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" plan --format $f
	has "^# Generated by nodeaudit .* (profile agent-vm-guest, chosen for a virtual guest (KVM)"
done
t "plan --profile on a guest: as given" 0 "$NODEAUDIT" --sysroot "$fx/cpu-vm" plan --profile agent-cpu-inference --format sh
has "(profile agent-cpu-inference)\.$"; lacks "chosen"
t "check on bare metal: the default" 1 "$NODEAUDIT" --sysroot "$fx/cpu-2s-smt" check
first "nodeaudit check: profile agent-cpu-inference (base > agent-cpu-inference)"; lacks "chosen"
t "nodeaudit on bare metal: the default" 1 "$NODEAUDIT" --sysroot "$fx/cpu-2s-smt"
first "nodeaudit check: profile agent-cpu-inference (base > agent-cpu-inference)"; lacks "chosen"

# "skip" in a profile file
printf '{"name": "x", "checks": {"cpu.smt": {"skip": 1}}}\n' >"$tmp/x.json"
t "skip must be a string" 3 "$NODEAUDIT" profiles validate "$tmp/x.json"
grep -q 'checks."cpu.smt".skip: expected the reason as a string, not a number' "$tmp/err" ||
	{ echo "not ok - unclear error: $(cat "$tmp/err")"; fail=$((fail + 1)); }
printf '{"name": "x", "checks": {"cpu.smt": {"skip": ""}}}\n' >"$tmp/x.json"
t "skip must not be empty" 3 "$NODEAUDIT" profiles validate "$tmp/x.json"
printf '{"name": "x", "checks": {"cpu.smt": {"skip": "not here"}}}\n' >"$tmp/x.json"
t "skip alone is a whole spec" 0 "$NODEAUDIT" profiles validate "$tmp/x.json"
# The hypervisor's name as /proc/sysinfo gives it, 600 bytes (a long
# "Control Program" line): the reason quotes it whole (it was cut at 511).
rm -rf "$tmp/zvm" && cp -R "$fx/virt-s390-zvm" "$tmp/zvm" && chmod -R u+w "$tmp/zvm"
cp_name="z/VM 6.1.0$(printf ' site%03d' $(seq 1 74))"
sed "s|^VM00 Control Program:.*|VM00 Control Program: $cp_name|" "$fx/virt-s390-zvm/proc/sysinfo" >"$tmp/zvm/proc/sysinfo"
t "recommend with a 600-byte hypervisor name" 0 "$NODEAUDIT" --sysroot "$tmp/zvm" profiles recommend --format json
has "\"reason\":[[:space:]]*\"a virtual guest ($cp_name): the host decides the hardware checks (frequency, SMT, ECC, memory channels and speed)\""
echo "1..$n"
[ $fail -eq 0 ]
