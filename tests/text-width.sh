#!/bin/sh
# text-width.sh - the text layout engine: at COLUMNS=80 no line of any
# command's text output or of any --help is wider than 80 columns (but a
# plan's command, which stands whole on a line of its own); the
# width follows COLUMNS (60, 132), and the terminal's own width wins over
# COLUMNS when the output is a terminal (script(1) gives one).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/width.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}

# fits W NAME CMD...: the command's stdout has no line wider than W columns
# (characters, not bytes: the tool prints UTF-8) and is not empty.
fits() {
	w=$1 name=$2; shift 2
	n=$((n + 1))
	COLUMNS=$w "$@" >"$tmp/out" 2>"$tmp/err"
	# A plan's command stands whole on a line of its own (a wrapped one
	# would paste as two): plan may exceed the width there, nowhere else.
	cmdre='^$'
	case " $* " in *" plan "*) cmdre='^ +(numactl|taskset|sysctl|llama-server|vllm|[A-Z_]+=[^ ]*) ' ;; esac
	long=$(LC_ALL=C.UTF-8 awk -v w="$w" -v re="$cmdre" 'length($0) > w && $0 !~ re { c++; if (c == 1) first = $0 } END { if (c) print c " line(s), the first: " first }' "$tmp/out")
	if [ ! -s "$tmp/out" ]; then
		echo "not ok $n - $name at $w: no output"; sed 's/^/  /' "$tmp/err"; fail=$((fail + 1))
	elif [ -n "$long" ]; then
		echo "not ok $n - $name at $w: $long"; fail=$((fail + 1))
	else
		echo "ok $n - $name fits $w columns"
	fi
}

for w in 80 60; do
	fits $w "--help" "$NODEAUDIT" --help
	for c in probe check plan bench snapshot profiles explain report diff help; do
		fits $w "$c --help" "$NODEAUDIT" "$c" --help
	done
	for s in numa-2node pci-8gpu-switches pci-gpu-downtrained-x4 cpu-rpl-laptop kernel-untuned-desktop \
	    pci-nic cpu-vm mem-server pci-4modules-shared-uplink; do
		fits $w "probe $s" "$NODEAUDIT" --sysroot "$fx/$s" probe
		fits $w "check $s" "$NODEAUDIT" --sysroot "$fx/$s" check
		fits $w "plan $s" "$NODEAUDIT" --sysroot "$fx/$s" plan
	done
	fits $w "check bad facts" "$NODEAUDIT" check --facts "$fx/check-facts/bad.json"
	fits $w "check, a baseline" "$NODEAUDIT" --sysroot "$fx/numa-2node" check --baseline "$fx/pci-nic"
	fits $w "plan --report" "$NODEAUDIT" plan --report "$fx/plan/report-2s.json"
	fits $w "report" "$NODEAUDIT" report "$fx/report"
	fits $w "diff" "$NODEAUDIT" diff "$fx/numa-2node" "$fx/pci-8gpu-switches"
	fits $w "explain" "$NODEAUDIT" explain
	fits $w "explain cpu.smt" "$NODEAUDIT" explain cpu.smt
	fits $w "profiles list" "$NODEAUDIT" profiles list
	fits $w "profiles show" "$NODEAUDIT" profiles show agent-accelerator-host
	fits $w "bench --dry-run" "$NODEAUDIT" bench --dry-run
	if [ -x "$MKGGUF" ] && "$MKGGUF" llama "$tmp/m.gguf" >/dev/null 2>&1; then
		fits $w "bench MODEL --dry-run" "$NODEAUDIT" bench "$tmp/m.gguf" --dry-run
	fi
done
# this machine, and the bench (a short one)
fits 80 "probe (this machine)" "$NODEAUDIT" probe
fits 80 "check (this machine)" "$NODEAUDIT" check
fits 80 "bench (this machine)" "$NODEAUDIT" bench --size 16M --seconds 0.2

# The width follows COLUMNS: a wider one lets long values stay on one line.
n=$((n + 1))
COLUMNS=132 "$NODEAUDIT" --sysroot "$fx/cpu-rpl-laptop" probe --only cpu >"$tmp/wide"
COLUMNS=80 "$NODEAUDIT" --sysroot "$fx/cpu-rpl-laptop" probe --only cpu >"$tmp/narrow"
if grep -q '^  kind performance .*\[base_frequency\], intel_pstate/powersave$' "$tmp/wide" &&
   grep -q '^                         .*\[base_frequency\], intel_pstate/powersave$' "$tmp/narrow" &&
   ! grep -q '^  kind performance .*intel_pstate/powersave$' "$tmp/narrow"; then
	echo "ok $n - COLUMNS=132 keeps the kind on one line, 80 wraps it under its value"
else
	echo "not ok $n - COLUMNS does not set the width"; fail=$((fail + 1))
fi
n=$((n + 1))
COLUMNS=junk "$NODEAUDIT" --sysroot "$fx/cpu-rpl-laptop" probe --only cpu >"$tmp/junk"
if cmp -s "$tmp/junk" "$tmp/narrow"; then echo "ok $n - COLUMNS=junk: 80 columns"
else echo "not ok $n - COLUMNS=junk is not 80 columns"; fail=$((fail + 1)); fi

# A terminal's width wins over COLUMNS (TIOCGWINSZ); an -o file is no terminal.
if script -qec true /dev/null >/dev/null 2>&1; then
	n=$((n + 1))
	# COLUMNS set after stty: a shell updates it on a size change.
	script -qec "stty cols 70 rows 40; COLUMNS=200 '$NODEAUDIT' --sysroot '$fx/cpu-rpl-laptop' probe --only cpu --color never" \
		/dev/null >"$tmp/tty" 2>&1
	long=$(tr -d '\r' <"$tmp/tty" | awk 'length($0) > 70' | head -n 1)
	if [ -z "$long" ] && tr -d '\r' <"$tmp/tty" | grep -q '^  kind efficiency'; then
		echo "ok $n - on a 70-column terminal, 70 columns whatever COLUMNS says"
	else
		echo "not ok $n - terminal width not used: ${long:-no output}"; fail=$((fail + 1))
	fi
	n=$((n + 1))
	script -qec "stty cols 50 rows 40; COLUMNS=100 '$NODEAUDIT' --sysroot '$fx/cpu-rpl-laptop' probe --only cpu -o '$tmp/file.txt'" \
		/dev/null >/dev/null 2>&1
	if [ -s "$tmp/file.txt" ] && awk 'length($0) > 50 { f = 1 } END { exit !f }' "$tmp/file.txt" &&
	   ! awk 'length($0) > 100 { f = 1 } END { exit !f }' "$tmp/file.txt"; then
		echo "ok $n - -o FILE from a terminal: COLUMNS (100), not the terminal's 50"
	else
		echo "not ok $n - -o FILE laid out to the terminal"; fail=$((fail + 1))
	fi
else
	echo "# script(1) cannot make a terminal here: the terminal-width cases skipped"
fi
echo "1..$n"
[ $fail -eq 0 ]
