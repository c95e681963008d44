#!/bin/sh
# admin-mistakes.sh - what an admin gets wrong in the first hours, each named
# in one line that says what to do (issue 45): a TMPDIR nodeaudit cannot
# write in (named, with where it came from); a profile installed under the
# prefix (the suite runs with profiles of its own); figures without their
# unit or in the wrong number; --version without the commit.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
fx=$(cd "$top_srcdir/tests/fixtures" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mistakes.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
# run WANT NAME CMD...: stdout in $tmp/out, stderr in $tmp/err
run() {
	want=$1 name=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$name: exit $want"
	else nok "$name: exit $rc, want $want"; sed 's/^/# /' "$tmp/err" | head -5; fi
}
err_is() { # err_is LINE: stderr is exactly that one line
	if [ "$(cat "$tmp/err")" = "$1" ]; then ok "says: $1"
	else nok "stderr is not '$1'"; sed 's/^/# /' "$tmp/err" | head -5; fi
}

## 6. A TMPDIR that cannot be used: the path and TMPDIR named, one line.
tar -czf "$tmp/node.tar.gz" -C "$fx/cpu-vm" .
run 3 "check --sysroot ARCHIVE with TMPDIR missing" env TMPDIR="$tmp/no-such-dir" "$NODEAUDIT" check --sysroot "$tmp/node.tar.gz"
err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/no-such-dir' (TMPDIR): No such file or directory; set TMPDIR to a directory you can write in"
: >"$tmp/a-file"
run 3 "probe --sysroot ARCHIVE with TMPDIR a file" env TMPDIR="$tmp/a-file" "$NODEAUDIT" probe --sysroot "$tmp/node.tar.gz"
err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/a-file' (TMPDIR): Not a directory; set TMPDIR to a directory you can write in"
# A TMPDIR of 700 bytes that does not exist: named whole (cut at 511).
long=$tmp
for i in 1 2 3 4 5 6 7 8 9 10; do long=$long/ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd; done
run 3 "check --sysroot ARCHIVE with a 700-byte TMPDIR missing" env TMPDIR="$long" "$NODEAUDIT" check --sysroot "$tmp/node.tar.gz"
err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$long' (TMPDIR): No such file or directory; set TMPDIR to a directory you can write in"
# plan --runtime-bin at a 700-byte path that does not exist: named whole
# (the message was cut at 599 bytes).
run 3 "plan --runtime-bin at a 700-byte path missing" "$NODEAUDIT" plan --sysroot "$fx/numa-2node" --runtime llama.cpp --runtime-bin "$long/llama-server"
err_is "nodeaudit: --runtime-bin: cannot run $long/llama-server"
run 3 "snapshot to an archive with TMPDIR missing" env TMPDIR="$tmp/no-such-dir" "$NODEAUDIT" --sysroot "$fx/cpu-vm" snapshot -o "$tmp/s.tar.gz"
err_is "nodeaudit: cannot create the staging directory of '$tmp/s.tar.gz': cannot create a temporary directory in '$tmp/no-such-dir' (TMPDIR): No such file or directory; set TMPDIR to a directory you can write in"
if [ "$(id -u)" != 0 ]; then   # root writes in a mode-0555 directory
	mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
	run 3 "check --sysroot ARCHIVE with TMPDIR not writable" env TMPDIR="$tmp/ro" "$NODEAUDIT" check --sysroot "$tmp/node.tar.gz"
	err_is "nodeaudit: cannot unpack '$tmp/node.tar.gz': cannot create a temporary directory in '$tmp/ro' (TMPDIR): Permission denied; set TMPDIR to a directory you can write in"
else
	echo "ok $((n + 1)) - TMPDIR not writable # SKIP run as root, who writes in a mode-0555 directory"; n=$((n + 1))
fi

## 8. Every figure with its unit, the human form first; plurals right.
has() { if grep -qF -- "$1" "$tmp/out"; then ok "shows '$1'"; else nok "lacks '$1'"; sed 's/^/# /' "$tmp/out" | head -20; fi; }
lacks() { if grep -qE -- "$1" "$tmp/out"; then nok "shows /$1/: $(grep -E -- "$1" "$tmp/out" | head -1)"; else ok "never /$1/"; fi; }
run 2 "check, a node short of memory" env COLUMNS=200 "$NODEAUDIT" check --facts "$fx/check-facts/bad.json"
has "Memory per core: 2.0 GiB (2147483648 bytes), expected >= 4.0 GiB (4294967296 bytes)"
has "Swap space: 2.0 GiB (2147483648 bytes), expected <= 0 bytes"
has "2 threads per core, control on"
has "1 check could not be decided"
lacks '\(s\)|[^0-9.][0-9]{5,} \('
run 0 "profiles show" env COLUMNS=200 "$NODEAUDIT" profiles show agent-cpu-inference
has ">= 4.0 GiB (4294967296 bytes)"
lacks '>= [0-9]{9,}'   # a byte threshold without its unit (fs.file-max is a count)
run 2 "check --format tap" "$NODEAUDIT" check --facts "$fx/check-facts/bad.json" --format tap
lacks '# SKIP skip'
has "# warn: Memory per core: 2.0 GiB (2147483648 bytes), expected >= 4.0 GiB (4294967296 bytes)"
run 0 "check --format tap on a guest" "$NODEAUDIT" --sysroot "$fx/cpu-vm" check --format tap
has "ok 1 - cpu.smt # SKIP the host decides this: vCPUs run on the host's threads"
run 0 "probe, one core of a kind" env COLUMNS=200 "$NODEAUDIT" --sysroot "$fx/cpu-arm-x3-capacity" probe
has "kind performance       1 core, 1 thread on CPUs 7"
lacks '(^|[^0-9])1 (cores|threads)'
run 0 "probe --format json, a VM without SMBIOS" "$NODEAUDIT" --sysroot "$fx/mem-vm-no-smbios" probe --format json
lacks 'its BIOS characteristics say'
# A CPU with none of the inference ISA: its Observed value is "none", in
# text and in the HTML page's cell, not an empty one.
run 2 "check on a CPU without AVX" env COLUMNS=200 "$NODEAUDIT" --sysroot "$fx/virt-vbox-noflag" check --profile agent-cpu-inference
has "Instruction sets for inference: none, expected any of: avx2, dotprod, sve"
run 2 "check --format html on a CPU without AVX" "$NODEAUDIT" --sysroot "$fx/virt-vbox-noflag" check --profile agent-cpu-inference --format html
if tr -d '\n' <"$tmp/out" | grep -Eq 'cpu\.(<wbr>)?isa</code>.{0,100}</td><td>none</td>'; then ok "HTML: cpu.isa's Observed cell says none"
else nok "HTML: cpu.isa's Observed cell"; tr -d '\n' <"$tmp/out" | grep -Eo 'cpu\.(<wbr>)?isa</code>.{0,200}' | head -1 | sed 's/^/# /'; fi
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
if [ -x "$MKGGUF" ] && "$MKGGUF" llama "$tmp/m.gguf" >/dev/null 2>&1; then
	run 0 "bench MODEL --dry-run" env COLUMNS=200 "$NODEAUDIT" bench "$tmp/m.gguf" --dry-run
	has "tensor bytes           2.3 MiB (2429952 bytes)"
	has "F32      5.0 KiB (5120 bytes)"
	lacks '^ +F(16|32) +[0-9]+$'
else
	echo "ok $((n + 1)) - bench's units # SKIP no tests/mkgguf"; n=$((n + 1))
fi

## 9. --version says the commit and which optional libraries this machine has.
run 0 "--version" "$NODEAUDIT" --version
ver=$(sed -n 's/^AC_INIT(\[nodeaudit\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
if [ -e "$top_srcdir/.git" ] && git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	c=$(git -C "$top_srcdir" rev-parse --short=12 HEAD)
	if head -n 1 "$tmp/out" | grep -q "^nodeaudit $ver (.*$c"; then ok "--version names commit $c"
	else nok "--version does not name commit $c: $(head -n 1 "$tmp/out")"; fi
elif [ -f "$top_srcdir/.tarball-version" ]; then
	if head -n 1 "$tmp/out" | grep -qF "nodeaudit $ver ($(cat "$top_srcdir/.tarball-version"))"; then ok "--version names the tarball's commit"
	else nok "--version does not name the tarball's commit: $(head -n 1 "$tmp/out")"; fi
else
	echo "ok $((n + 1)) - --version's commit # SKIP neither git nor a release tarball"; n=$((n + 1))
fi
if grep -Eq '^linked: cJSON [0-9.]+, hwloc API [0-9.]+, libnuma, libpci, libsmartcols [0-9][0-9.a-z-]*, libm$' "$tmp/out"; then
	ok "--version names the libraries it links"
else nok "--version does not name the libraries it links"; sed 's/^/# /' "$tmp/out"; fi
if grep -Eq '^  libcpuid\.so\.[0-9]+ +(found|not installed|broken) ' "$tmp/out"; then ok "--version says whether libcpuid is found"
elif grep -q '^built without libcpuid: ' "$tmp/out"; then ok "--version says it was built without libcpuid"
else nok "--version says nothing of libcpuid"; fi
# A libcpuid that is there but does not load is named so: an empty one
# first in the loader's path (as tests/libraries.sh makes one).
so=$(sed -n 's/^  \(libcpuid\.so\.[0-9]*\) .*/\1/p' "$tmp/out")
if [ -n "$so" ]; then
	mkdir -p "$tmp/lib" && : >"$tmp/lib/$so"
	run 0 "--version with a broken libcpuid" env LD_LIBRARY_PATH="$tmp/lib" "$NODEAUDIT" --version
	if grep -q "^  $so *broken .*($so is installed but does not load: $tmp/lib/$so" "$tmp/out"; then
		ok "--version: $so broken, with the loader's reason"
	else nok "--version with a broken $so"; sed 's/^/# /' "$tmp/out"; fi
else
	echo "ok $((n + 1)) - --version with a broken libcpuid # SKIP built without libcpuid"; n=$((n + 1))
fi

## 10. The suite does not depend on what is installed: it runs with no
## system profile directory (NODEAUDIT_NO_SYSTEM_PROFILES) and no user
## NODEAUDIT_PROFILE_PATH, so an older copy installed under the prefix
## cannot shadow the built-in profiles the tests expect.
if [ -n "${NODEAUDIT_NO_SYSTEM_PROFILES:-}" ] && [ -z "${NODEAUDIT_PROFILE_PATH+set}" ]; then
	ok "the suite's environment: no system profiles, no NODEAUDIT_PROFILE_PATH"
elif [ -z "${top_builddir:-}" ]; then
	echo "ok $((n + 1)) - the suite's environment # SKIP not run by make check"; n=$((n + 1))
else
	nok "the suite's environment: NODEAUDIT_NO_SYSTEM_PROFILES='${NODEAUDIT_NO_SYSTEM_PROFILES:-}', NODEAUDIT_PROFILE_PATH ${NODEAUDIT_PROFILE_PATH+set}"
fi
# As an admin makes it: 'make install' put an older agent-cpu-inference
# under the prefix.  A copy of the binary whose installed-profile directory
# (DATADIR/nodeaudit/profiles, compiled in) is a scratch one of the same
# length stands for it; the old profile there asks for no SMT at all.
datadir=$(strings -n 20 "$NODEAUDIT" 2>/dev/null | grep -m1 '^/.*/share/nodeaudit/profiles$')
if [ -n "$datadir" ] && command -v python3 >/dev/null 2>&1; then
	fake=$(printf '%s/%s' "$tmp" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" | cut -c1-${#datadir})
	if [ ${#fake} = ${#datadir} ] && mkdir -p "$fake" 2>/dev/null &&
	   python3 - "$NODEAUDIT" "$tmp/nodeaudit-installed" "$datadir" "$fake" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
old, new = sys.argv[3].encode() + b"\0", sys.argv[4].encode() + b"\0"
if b.count(old) != 1: sys.exit(1)
open(sys.argv[2], "wb").write(b.replace(old, new))
PY
	then
		chmod +x "$tmp/nodeaudit-installed"
		cat >"$fake/agent-cpu-inference.json" <<'J'
{"name": "agent-cpu-inference", "extends": "base", "description": "an older copy installed under the prefix",
 "checks": {"cpu.isa": {"expect": ["avx512_bf16", "amx_tile"], "severity": "fail"}}}
J
		env -u NODEAUDIT_NO_SYSTEM_PROFILES "$tmp/nodeaudit-installed" --sysroot "$fx/cpu-2s-smt" check --format json >"$tmp/out" 2>"$tmp/err"
		if grep -q "$fake/agent-cpu-inference.json" "$tmp/out"; then ok "without it, the installed profile shadows the built-in one (the mistake)"
		else nok "the installed copy is not read: the test below proves nothing"; sed 's/^/# /' "$tmp/err" | head -3; fi
		NODEAUDIT_NO_SYSTEM_PROFILES=1 "$tmp/nodeaudit-installed" --sysroot "$fx/cpu-2s-smt" check --format json >"$tmp/out2" 2>&1
		"$NODEAUDIT" --sysroot "$fx/cpu-2s-smt" check --format json >"$tmp/out3" 2>&1
		if grep -q '"source":[[:space:]]*"built-in:agent-cpu-inference"' "$tmp/out2" &&
		   ! grep -q "$fake" "$tmp/out2"; then ok "with it, the built-in profile, whatever is installed"
		else nok "with NODEAUDIT_NO_SYSTEM_PROFILES the installed profile is still read"; grep -m3 source "$tmp/out2" | sed 's/^/# /'; fi
	else
		echo "ok $((n + 1)) - an installed profile # SKIP the binary's profile directory cannot be stood in for"; n=$((n + 1))
	fi
else
	echo "ok $((n + 1)) - an installed profile # SKIP no DATADIR string in the binary, or no python3"; n=$((n + 1))
fi

# sysctl_check EXIT DESCRIPTION FIXTURE NAME KEY SPEC: check --format json of
# FIXTURE with profile NAME ($tmp/NAME.json), whose one check is kernel.sysctl
# KEY with SPEC (a JSON object).
sysctl_check() {
	printf '{"name": "%s", "checks": {"kernel.sysctl": {"%s": %s}}}\n' "$4" "$5" "$6" >"$tmp/$4.json"
	run "$1" "$2" "$NODEAUDIT" --sysroot "$fx/$3" check --profile "$tmp/$4.json" --format json
}

## A sysctl name in a profile that no kernel has, longer than any fact path
## buffer (a paste gone wrong): the finding names it whole and says why,
## never "the kernel probe did not report it" for a cut name.
if command -v python3 >/dev/null 2>&1; then
	key=$(python3 -c 'print("net.ipv4.conf." + "x" * 600 + ".rp_filter")')
	sysctl_check 0 "check with a 624-byte sysctl name in the profile" numa-2node longkey "$key" '{"max": 1, "severity": "warn"}'
	if python3 - "$tmp/out" "$key" <<'PY'
import json, sys
d, key = json.load(open(sys.argv[1])), sys.argv[2]
fact = 'kernel.sysctl."%s"' % key
f = [x for x in d["findings"] if x.get("key") == key]
g = [x for x in d["gaps"] if x["fact"] == fact]
sys.exit(not (len(f) == 1 and f[0]["status"] == "unknown" and f[0]["facts"] == [fact] and f[0]["title"].endswith(" " + key) and
              f[0]["reason"] == "%s: '%s' is not a sysctl name" % (fact, key) and len(g) == 1))
PY
	then ok "its finding (key, title), fact and gap carry the whole name, and the reason is the gap's"
	else nok "a long sysctl name is cut somewhere (finding, fact or gap)"; fi
fi

## A profile's expected value longer than 255 bytes (a sysctl such as
## kernel.core_pattern can hold one): the finding shows it and the fix sets
## it whole (the fix's value was cut at 255 bytes, so its command set a value
## the profile never asked for; the finding's expected was cut at 600).
if command -v python3 >/dev/null 2>&1; then
	val=$(python3 -c 'print(" ".join(["1"] * 350))')
	sysctl_check 1 "check with a 699-byte expected sysctl value" kernel-tuned-server longvalue vm.swappiness \
		"{\"expect\": \"$val\", \"severity\": \"warn\"}"
	if python3 - "$tmp/out" "$val" <<'PY'
import json, sys
d, val = json.load(open(sys.argv[1])), sys.argv[2]
f = [x for x in d["findings"] if x.get("key") == "vm.swappiness"]
fx = f[0].get("fix", []) if len(f) == 1 else []
sys.exit(not (fx and f[0]["status"] == "warn" and f[0]["expected"] == val and
              all(x.get("value") == val for x in fx if "value" in x) and
              any(x.get("command", "").endswith("'" + val + "'") for x in fx)))
PY
	then ok "its expected, its fix's value and its command carry the whole value"
	else nok "a long expected value is cut in the fix"; fi
	# The people's and CI's formats carry it whole too (the text report cut
	# it at 599 bytes, TAP and JUnit at 599, 'profiles show' at 359).  Text
	# wraps: its lines are joined again at the spaces the wrapping took.
	for fmt in text tap junit; do
		COLUMNS=80 "$NODEAUDIT" --sysroot "$fx/kernel-tuned-server" check --profile "$tmp/longvalue.json" --format "$fmt" >"$tmp/out" 2>"$tmp/err"
		if tr '\n' ' ' <"$tmp/out" | tr -s ' ' | grep -qF "expected $val"; then ok "check --format $fmt: the expected value whole"
		else nok "check --format $fmt: the 699-byte expected value is cut"; fi
	done
	COLUMNS=80 "$NODEAUDIT" profiles show "$tmp/longvalue.json" >"$tmp/out" 2>"$tmp/err"
	if tr '\n' ' ' <"$tmp/out" | tr -s ' ' | grep -qF "longvalue $val"; then ok "profiles show: the expected value whole"
	else nok "profiles show: the 699-byte expected value is cut"; fi
	# A 624-byte sysctl name in 'profiles show' and the text report: the
	# name whole (wrapped at no space, so lines are joined with none).
	COLUMNS=1000 "$NODEAUDIT" profiles show "$tmp/longkey.json" >"$tmp/out" 2>"$tmp/err"
	# Its CHECK column (44 wide, from the table's indent of 2) wraps the
	# name: the column's pieces joined make the check and the name.
	if python3 -c 'import sys; l = open(sys.argv[1]).read().split("\n"); h = [i for i, x in enumerate(l) if x.startswith("  CHECK ")][0]
sys.exit("kernel.sysctl" + sys.argv[2] != "".join(x[2:46].rstrip() for x in l[h + 1:]))' "$tmp/out" "$key"
	then ok "profiles show: a 624-byte sysctl name whole"
	else nok "profiles show: the 624-byte sysctl name is cut"; fi
	COLUMNS=1000 "$NODEAUDIT" --sysroot "$fx/numa-2node" check --profile "$tmp/longkey.json" >"$tmp/out" 2>"$tmp/err"
	if grep -qF "kernel.sysctl $key" "$tmp/out"; then ok "check --format text: a 624-byte sysctl name whole"
	else nok "check --format text: the 624-byte sysctl name is cut"; fi
	# The fleet report's table of checks (its ID cell was cut at 255 bytes):
	# the row, wrapped, joined again, is the check, the name and its counts.
	"$NODEAUDIT" --sysroot "$fx/numa-2node" check --profile "$tmp/longkey.json" --format json >"$tmp/a.json" 2>"$tmp/err"
	"$NODEAUDIT" --sysroot "$fx/cpu-vm" check --profile "$tmp/longkey.json" --format json >"$tmp/b.json" 2>"$tmp/err"
	run 0 "report over two nodes with a 624-byte sysctl name" "$NODEAUDIT" report "$tmp/a.json" "$tmp/b.json"
	if tr -d ' \n' <"$tmp/out" | grep -qF "kernel.sysctl${key}000200"; then ok "report: the 624-byte sysctl name whole in its table"
	else nok "report: the 624-byte sysctl name is cut in its table"; fi
fi

## A finding's detail and reason whole (they were cut at 511 bytes): the
## empty slots of a two-socket board, a profile's skip text, a sysctl value
## that is not a number.
if command -v python3 >/dev/null 2>&1; then
	# 2 sockets of 12 channels (A-L), 4 populated on each: 16 empty
	# channels, each named by its slot's locator (CPU0_DIMM_E1, as a board's
	# SMBIOS names them).  The detail lists every one, in order.
	python3 - "$fx/check-facts/good.json" "$tmp/slots.json" "$tmp/slots.want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lst, empty = [], []
for p in range(2):
    for c in "ABCDEFGHIJKL":
        e = {"package": p, "name": c, "dimms": 1 if c in "ABCD" else 0}
        if not e["dimms"]:
            e["empty_slots"] = ["CPU%d_DIMM_%s1" % (p, c)]
            empty.append("CPU%d_DIMM_%s1 (package %d, channel %s)" % (p, c, p, c))
        lst.append(e)
d["memory"]["channels"] = {"total": 24, "populated": 8, "balanced": False, "list": lst}
json.dump(d, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write("8 of 24 channels populated; empty: " + ", ".join(empty) + "\nempty: " + ", ".join(empty) + "\n")
PY
	run 2 "check --facts with 16 empty channels" "$NODEAUDIT" check --facts "$tmp/slots.json" --profile agent-cpu-inference --format json
	python3 -c 'import json, sys; f = {x["id"]: x for x in json.load(open(sys.argv[1]))["findings"]}
print(f["memory.channels.populated_ratio"]["detail"]); print(f["memory.channels.balanced"]["detail"])' "$tmp/out" >"$tmp/got" 2>&1
	if cmp -s "$tmp/got" "$tmp/slots.want"; then ok "the detail names all 16 empty slots (~630 bytes)"
	else nok "the detail of the empty channels is cut"; diff "$tmp/slots.want" "$tmp/got" | sed 's/^/# /' | head -6; fi
	# A skip text of 1142 bytes in a profile: the finding's reason is it, whole.
	why=$(python3 -c 'print("the host decides this: " + " ".join(["the channels are the host'"'"'s"] * 40))')
	printf '{"name": "longskip", "checks": {"memory.channels.balanced": {"skip": "%s"}}}\n' "$why" >"$tmp/longskip.json"
	run 0 "check with a 1142-byte skip text" "$NODEAUDIT" --sysroot "$fx/numa-2node" check --profile "$tmp/longskip.json" --format json
	if python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["findings"]
sys.exit(not (len(f) == 1 and f[0]["status"] == "skip" and f[0]["reason"] == sys.argv[2]))' "$tmp/out" "$why"
	then ok "the skip's reason is the profile's text, whole"
	else nok "the profile's skip text is cut in the reason"; fi
	# A min on kernel.core_pattern, an 855-byte pipe command: the reason
	# quotes the value whole.
	rm -rf "$tmp/root" && cp -R "$fx/kernel-tuned-server" "$tmp/root" && chmod -R u+w "$tmp/root"
	core=$(python3 -c 'print("|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" + " --x" * 200)')
	printf '%s\n' "$core" >"$tmp/root/proc/sys/kernel/core_pattern"
	printf '{"name": "longnum", "checks": {"kernel.sysctl": {"kernel.core_pattern": {"min": 1, "severity": "warn"}}}}\n' >"$tmp/longnum.json"
	run 0 "check a min on an 855-byte core_pattern" "$NODEAUDIT" --sysroot "$tmp/root" check --profile "$tmp/longnum.json" --format json
	if python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["findings"]
sys.exit(not (len(f) == 1 and f[0]["status"] == "unknown" and f[0]["reason"] == "'"'"'%s'"'"' is not a single number" % sys.argv[2]))' "$tmp/out" "$core"
	then ok "the reason quotes the value whole"
	else nok "the value in the reason is cut"; fi
	# A hybrid cgroup tree whose cgroup2 is mounted at a 1105-byte path:
	# still hybrid (the mount point was read into 1024 bytes, which shifted
	# the fields: the cgroup2 mount was missed and the tree called legacy).
	rm -rf "$tmp/root" && cp -R "$fx/kernel-untuned-desktop" "$tmp/root" && chmod -R u+w "$tmp/root"
	mnt=/run/$(python3 -c 'print("x" * 1100)')
	sed "s|^cgroup2 /sys/fs/cgroup/unified |cgroup2 $mnt |" "$fx/kernel-untuned-desktop/proc/mounts" >"$tmp/root/proc/mounts"
	run 0 "probe a cgroup2 mount at a 1105-byte path" "$NODEAUDIT" --sysroot "$tmp/root" probe --only kernel --format json
	if python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kernel"]
sys.exit(not (k["cgroup_version"] == 1 and k["cgroup_mode"] == "hybrid"))' "$tmp/out"
	then ok "kernel.cgroup_mode: hybrid"
	else nok "a long cgroup2 mount point is missed (cgroup_mode)"; fi
fi

echo "1..$n"
[ $fail -eq 0 ]
