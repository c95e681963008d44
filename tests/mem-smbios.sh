#!/bin/sh
# mem-smbios.sh - SMBIOS tables generated from readable descriptions
# (tests/smbios/*.desc, by tests/mksmbios) probed with --smbios over small
# sysroots; expected facts in tests/expected/mem-*.json, written by hand
# from the descriptions.  Also: bad --smbios files exit 3 with one line.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
src=${top_srcdir:-.}/tests
mk=${top_builddir:-.}/tests/mksmbios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memsmbios.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# case DESC SYSROOT EXPECTED
run_case() {
	"$mk" "$src/smbios/$1.desc" "$tmp/$1.bin" || { notok "$1: mksmbios"; return; }
	"$NODEAUDIT" --sysroot "$src/fixtures/$2" --smbios "$tmp/$1.bin" probe --format json \
		>"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && "$JSUBSET" "$src/expected/$3.json" "$tmp/out.json"; then
		ok "$1 over $2 matches $3"
	else
		notok "$1 over $2 matches $3 (exit $rc)"
		sed 's/^/#   /' "$tmp/err"
	fi
}

run_case server-2s8c-ddr5 mem-server mem-server-8ch
run_case server-empty-channel mem-server mem-empty-channel
run_case desktop-2dpc mem-desktop mem-desktop-2dpc
run_case desktop-2dpc mem-edac mem-edac-smbios-conflict
run_case server-2s8c-ddr5 mem-edac mem-edac-server
run_case vm-dangling mem-vm-no-smbios mem-vm-dangling
run_case qemu-vm mem-vm-no-smbios mem-qemu-vm

# The text inventory of the server.
"$NODEAUDIT" --sysroot "$src/fixtures/mem-server" --smbios "$tmp/server-empty-channel.bin" probe \
	>"$tmp/out.txt" 2>&1
if grep -Eq '^  channels +15 of 16 populated, NOT balanced$' "$tmp/out.txt" &&
   grep -Eq '^  peak bandwidth +572\.8 GB/s' "$tmp/out.txt" &&
   grep -Eq '^  ECC +multi-bit \(smbios-memory-array\)$' "$tmp/out.txt" &&
   grep -Eq '^  speed +4400 MT/s configured \(below rated\)$' "$tmp/out.txt"; then
	ok "text inventory of the server with an empty channel"
else
	notok "text inventory of the server with an empty channel"
	sed 's/^/#   /' "$tmp/out.txt"
fi

# The kernel's split form in a sysroot (as a root snapshot stores it):
# /sys/firmware/dmi/tables/smbios_entry_point + DMI give the same facts.
sr=$tmp/sysroot
mkdir -p "$sr/sys/firmware/dmi/tables" "$sr/proc"
cp "$src/fixtures/mem-server/proc/meminfo" "$sr/proc/meminfo"
head -c 24 "$tmp/server-2s8c-ddr5.bin" >"$sr/sys/firmware/dmi/tables/smbios_entry_point"
tail -c +33 "$tmp/server-2s8c-ddr5.bin" >"$sr/sys/firmware/dmi/tables/DMI"
if "$NODEAUDIT" --sysroot "$sr" probe --format json >"$tmp/out.json" 2>"$tmp/err" &&
   "$JSUBSET" "$src/expected/mem-server-8ch.json" "$tmp/out.json" &&
   grep -q '"source":[[:space:]]*"/sys/firmware/dmi/tables/DMI"' "$tmp/out.json"; then
	ok "sysfs tables in a sysroot match mem-server-8ch"
else
	notok "sysfs tables in a sysroot match mem-server-8ch"
	sed 's/^/#   /' "$tmp/err"
fi
# A damaged table found on the machine is a gap, not a failure.
head -c 100 "$tmp/server-2s8c-ddr5.bin" | tail -c +33 >"$sr/sys/firmware/dmi/tables/DMI"
if "$NODEAUDIT" --sysroot "$sr" probe --format json >"$tmp/out.json" 2>"$tmp/err" &&
   grep -q 'SMBIOS table /sys/firmware/dmi/tables/DMI is damaged' "$tmp/out.json" &&
   grep -q '"dimms":[[:space:]]*null' "$tmp/out.json"; then
	ok "damaged sysfs table: gap, exit 0"
else
	notok "damaged sysfs table: gap, exit 0"
	sed 's/^/#   /' "$tmp/err"
fi

# A server's dump audited on a VM: the dump is authoritative for its own
# memory (channels and ECC known though the probed host is a guest), the two
# machines differ once in conflicts, the memory facts name the dump as
# evidence, and --only memory gives the same memory and platform facts.
vm=$tmp/vmroot
cp -R "$src/fixtures/cpu-vm" "$vm"
mkdir -p "$vm/sys/class/dmi/id"
echo QEMU >"$vm/sys/class/dmi/id/sys_vendor"
echo "Standard PC (Q35 + ICH9, 2009)" >"$vm/sys/class/dmi/id/product_name"
if "$NODEAUDIT" --sysroot "$vm" --smbios "$tmp/server-2s8c-ddr5.bin" probe --format json >"$tmp/full.json" 2>"$tmp/err" &&
   "$NODEAUDIT" --sysroot "$vm" --smbios "$tmp/server-2s8c-ddr5.bin" probe --only memory --format json \
	>"$tmp/only.json" 2>>"$tmp/err" &&
   python3 - "$tmp/full.json" "$tmp/only.json" "$tmp/server-2s8c-ddr5.bin" >>"$tmp/err" 2>&1 <<'EOF'
import json, sys
full, only = (json.load(open(p)) for p in sys.argv[1:3])
dump = sys.argv[3]
assert full["host"]["virtualized"] is True, full["host"]
m = full["memory"]
assert m["channels"]["total"] == 16 and m["channels"]["populated"] == 16, m["channels"]
assert m["ecc"]["mode"] == "multi-bit", m["ecc"]
assert full["platform"]["virtual_machine"] is not True, full["platform"]
conf = [c for c in full["conflicts"] if c["fact"] == "platform"]
assert len(conf) == 1 and "Acme Computers" in conf[0]["note"] and "QEMU" in conf[0]["note"], conf
for k in ("memory.dimms", "memory.slots", "memory.channels", "memory.ecc.mode", "platform"):
    assert dump in full["evidence"].get(k, []), k
assert full["memory"] == only["memory"], "memory differs with --only memory"
assert full["platform"] == only["platform"], "platform differs with --only memory"
EOF
then
	ok "server dump on a VM: its own channels and ECC, one conflict, same with --only memory"
else
	notok "server dump on a VM: its own channels and ECC, one conflict, same with --only memory"
	sed 's/^/#   /' "$tmp/err"
fi

# A QEMU guest's own table: emulated, decided and named from the table.
if "$NODEAUDIT" --sysroot "$src/fixtures/mem-vm-no-smbios" --smbios "$tmp/qemu-vm.bin" probe --format json \
	>"$tmp/out.json" 2>"$tmp/err" &&
   grep -Eq '"reason":[[:space:]]+"virtual machine \(KVM firmware in [^)]*qemu-vm.bin\): its SMBIOS memory records are emulated' "$tmp/out.json"; then
	ok "QEMU table: emulated, decided from the table"
else
	notok "QEMU table: emulated, decided from the table"
	grep -A1 '"memory.ecc.mode"' "$tmp/out.json" | sed 's/^/#   /'
fi

# Bad files: exit 3, one line naming the file and what is wrong.
bad() {
	"$NODEAUDIT" --sysroot "$src/fixtures/mem-server" --smbios "$1" probe >/dev/null 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 3 ] && [ "$lines" -eq 1 ] && grep -Fq "'$1'" "$tmp/err" && grep -Eq "$2" "$tmp/err"; then
		ok "bad --smbios: $3"
	else
		notok "bad --smbios: $3 (exit $rc, $lines lines)"
		sed 's/^/#   /' "$tmp/err"
	fi
}
printf 'this is not an SMBIOS dump\n' >"$tmp/text.bin"
bad "$tmp/text.bin" 'no SMBIOS entry point' "text file"
bad "$tmp/missing.bin" 'cannot read SMBIOS dump .*: no such file' "missing file"
head -c 200 "$tmp/server-2s8c-ddr5.bin" >"$tmp/cut.bin"
bad "$tmp/cut.bin" 'past the end|truncated|terminator' "table cut at 200 bytes"
head -c 20 "$tmp/desktop-2dpc.bin" >"$tmp/cut-ep.bin"
bad "$tmp/cut-ep.bin" 'entry point cut short' "entry point cut short"
: >"$tmp/empty.bin"
bad "$tmp/empty.bin" 'no SMBIOS entry point' "empty file"
bad "$src/smbios" 'not a regular file' "a directory"

echo "1..$n"
[ $fail -eq 0 ]
