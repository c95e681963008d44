#!/bin/sh
# emulated.sh - scripts/emulated (scripts/test-all's witness that every
# program runs under qemu-user, so that the tests skip what the emulator
# cannot do) on fake /proc trees: this machine's own kind of cpuinfo is no
# emulation, the other kind is; an enabled binfmt_misc handler for this
# very architecture is, a disabled one or another architecture's is not.
# And on the real /proc of a machine that runs its own code: none.
set -u
: "${top_srcdir:?}"
em="$top_srcdir/scripts/emulated"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emulated.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
m=$(uname -m)
x86='vendor_id	: GenuineIntel
flags		: fpu sse2'
arm='processor	: 0
CPU implementer	: 0x41
CPU part	: 0xd0c'
case $m in
x86_64|i?86) own=$x86 other=$arm ;;
aarch64|arm64) own=$arm other=$x86 ;;
*) echo "1..0 # SKIP scripts/emulated knows x86 and arm64 machines, not $m"; exit 0 ;;
esac
# case NAME WANT CPUINFO [HANDLER-STATE HANDLER-ARCH]
case_() {
	n=$((n + 1))
	d=$tmp/$n
	mkdir -p "$d/sys/fs/binfmt_misc"
	printf '%s\n' "$3" >"$d/cpuinfo"
	[ $# -ge 5 ] && printf '%s\ninterpreter /usr/libexec/qemu-binfmt/%s-binfmt-P\nflags: F\n' "$4" "$5" \
		>"$d/sys/fs/binfmt_misc/qemu-$5"
	out=$(sh "$em" "$d"); rc=$?
	if [ "$2" = yes ] && [ $rc -eq 0 ] && case $out in "qemu-$m "*) true ;; *) false ;; esac; then
		echo "ok $n - $1: $out"
	elif [ "$2" = no ] && [ $rc -eq 1 ] && [ -z "$out" ]; then
		echo "ok $n - $1: not emulated"
	else
		echo "not ok $n - $1: exit $rc, '$out'"; fail=$((fail + 1))
	fi
}
case_ "this machine's own kind of /proc/cpuinfo" no "$own"
case_ "another architecture's /proc/cpuinfo" yes "$other"
case_ "an enabled handler for this architecture" yes "$own" enabled "$m"
case_ "a disabled handler for this architecture" no "$own" disabled "$m"
case_ "an enabled handler for another architecture" no "$own" enabled riscv64
n=$((n + 1))
if [ -n "${NODEAUDIT_EMULATED_ALL:-}" ]; then
	echo "ok $n - this machine # SKIP it runs under $NODEAUDIT_EMULATED_ALL"
elif out=$(sh "$em"); then
	echo "not ok $n - this machine reads as emulated: $out"; fail=$((fail + 1))
else
	echo "ok $n - this machine runs its own code"
fi
echo "1..$n"
[ $fail -eq 0 ]
