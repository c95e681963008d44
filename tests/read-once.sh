#!/bin/sh
# read-once.sh - one run reads each file once (issue 17): the read layer
# answers a second read of a path from the first.  hwloc, when the probes
# ask it, reads its inputs itself in its fenced child (issue 24: that costs
# less than writing them out for it), or a private copy made from what they
# read where no namespace fence can be set up; its child (it names itself
# nodeaudit-hwloc) is held to the same rule on its own.  Every open(2) of
# `nodeaudit check` and `probe` (live), of `probe` over a fixture sysroot
# with hwloc asked (NODEAUDIT_HWLOC_ALWAYS), and of `check` over sysroots,
# is traced with strace;
# a path opened twice by us, or twice by hwloc's child, fails, except
#   /sys/devices/system/cpu/online  glibc's sysconf(_SC_NPROCESSORS_ONLN)
#                                   inside libcpuid's identification
# and what the process opens before main() (libnuma's constructor), as a
# run of --help shows it: those may be opened once more.
# Not counted: the dynamic loader's libraries and locale files, O_PATH and
# O_DIRECTORY opens (path walks, listings), and the private copy under
# TMPDIR.  Skips (77) without strace, where ptrace is not allowed, and for
# a sanitizer build.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v strace >/dev/null 2>&1 || { echo "1..0 # SKIP no strace"; exit 77; }
# A sanitizer build reads files of its own (its runtime) and LeakSanitizer
# aborts under ptrace: what this test counts is the release build's.
if grep -qa 'AddressSanitizer' "$NODEAUDIT" 2>/dev/null; then
	echo "1..0 # SKIP a sanitizer build (its runtime's reads, LeakSanitizer under ptrace)"; exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/read-once.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"
if ! strace -f -qq -o "$tmp/probe.log" true >/dev/null 2>&1; then
	echo "1..0 # SKIP strace cannot trace here (ptrace not allowed)"; exit 77
fi
n=0 fail=0

# opened LOG [PATTERN]: the files opened for reading, one line an open, by
# the real path strace -y prints for the descriptor an open returned
# ("= 4</a/b>"), whatever the open was relative to; /proc/PID/ as
# /proc/self/.
opened() {
	grep -E '(^|[[:space:]])(open|openat|openat2)\(' "$1" |
		{ if [ -n "${2:-}" ]; then grep -E "$2"; else cat; fi } |
		grep -v -e 'O_PATH' -e 'O_DIRECTORY' -e 'O_WRONLY' -e 'O_RDWR' |
		sed -n 's/^.*) = [0-9][0-9]*<\(.*\)>$/\1/p' |
		sed 's|^/proc/[0-9][0-9]*/|/proc/self/|' |
		grep -v -e '^/etc/ld\.so' -e '^/lib/' -e '^/lib64/' -e '^/usr/lib/' -e '^/usr/lib64/' \
			-e '^/usr/share/locale' -e "^$tmp/t" -e '^/sys/devices/system/cpu/online$'
}
# twice LOG [PATTERN] [BEFORE]: the files opened more than once, besides the
# opens BEFORE lists (a file of opened's lines: what the process opens
# before main(), libnuma's constructor, as a run of --help shows it).
twice() {
	opened "$1" "${2:-}" | sort >"$tmp/opens"
	if [ -n "${3:-}" ]; then
		sort "$3" | comm -23 "$tmp/opens" - | uniq -d
	else
		uniq -d "$tmp/opens"
	fi
}

# What every run opens before main(): the linked libraries' constructors
# (libnuma reads /proc/self/status and, live, each node's meminfo).
strace -f -qq -y -e trace=open,openat,openat2 -o "$tmp/help.log" "$NODEAUDIT" --help >/dev/null 2>&1
opened "$tmp/help.log" >"$tmp/before-main"

run() { # run LABEL ENV... -- ARGS...
	label=$1
	shift
	n=$((n + 1))
	env TMPDIR="$tmp/t" strace -f -qq -y -e trace=open,openat,openat2,prctl -o "$tmp/log" "$@" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -gt 2 ]; then
		echo "not ok $n - $label: exit $rc"; sed 's/^/#   /' "$tmp/err"; fail=$((fail + 1)); return
	fi
	# hwloc's child: the process ids that named themselves so.
	hw=$(sed -n 's/^\([0-9][0-9]*\) *prctl(PR_SET_NAME, "nodeaudit-hwloc".*/\1/p' "$tmp/log" |
		tr '\n' '|' | sed 's/|$//')
	if [ -n "$hw" ]; then
		grep -Ev "^($hw) " "$tmp/log" >"$tmp/ours"
		dup=$(twice "$tmp/log" "^($hw) " | sed 's/^/hwloc: /')
	else
		cp "$tmp/log" "$tmp/ours"
		dup=""
	fi
	dup="$(twice "$tmp/ours" "" "$tmp/before-main")$dup"
	if [ -n "$dup" ]; then
		echo "not ok $n - $label: opened twice:"; printf '%s\n' "$dup" | sed 's/^/#   /'
		fail=$((fail + 1))
	else
		echo "ok $n - $label"
	fi
}

run "check, live" "$NODEAUDIT" check
run "probe, live" "$NODEAUDIT" probe --format json
fix=$(cd "$top_srcdir/tests/fixtures/numa-2node" && pwd)
run "probe of a sysroot, hwloc asked" env NODEAUDIT_HWLOC_ALWAYS=1 "$NODEAUDIT" --sysroot "$fix" probe --format json
fix=$(cd "$top_srcdir/tests/fixtures/cpu-arm-cluster-pkgid" && pwd)
run "check of a sysroot whose last-level cache spans packages (hwloc asked)" "$NODEAUDIT" --sysroot "$fix" check --format json
fix=$(cd "$top_srcdir/tests/fixtures/cpu-2s-smt" && pwd)
run "check of a sysroot" "$NODEAUDIT" --sysroot "$fix" check --format json
run "probe of a sysroot, hwloc asked" env NODEAUDIT_HWLOC_ALWAYS=1 "$NODEAUDIT" --sysroot "$fix" probe --format json
echo "1..$n"
[ $fail -eq 0 ]
