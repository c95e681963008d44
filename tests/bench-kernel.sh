#!/bin/sh
# bench-kernel.sh - bench names the kernel it ran and its instruction set
# (bench.kernel, bench.kernel_isa, bench.kernel_vector_bits), and they are
# this CPU's widest: on x86 avx512f, avx2 or sse2 as /proc/cpuinfo's flags
# say; on arm64 SVE at the hardware's vector length where the kernel has
# it, else NEON.  Under qemu-user (NODEAUDIT_EMULATOR, scripts/test-arm64)
# the emulated CPU is chosen with QEMU_CPU: its default ("max": SVE at 512
# bits), SVE at 256 bits, and a Cortex-A72 (no SVE): each kernel must read
# the buffer right (bench checks every variant's sum), or it is not used.
set -u
: "${NODEAUDIT:?}"
if [ ! -d /sys/devices/system/cpu ] || [ ! -r /proc/cpuinfo ]; then echo "SKIP: no Linux sysfs here"; exit 77; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-kernel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# run NAME ISA BITS: a short bench, then its kernel's fields.
run() {
	n=$((n + 1))
	if ! "$NODEAUDIT" bench --size 1M --seconds 0.3 --format json -o "$tmp/b.json" 2>"$tmp/err"; then
		echo "not ok $n - $1: bench failed"; sed 's/^/#   /' "$tmp/err"; fail=$((fail + 1)); return
	fi
	got=$(python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["bench"]
print(b["kernel"].split(" ")[0], b["kernel_isa"], b["kernel_vector_bits"])' "$tmp/b.json" 2>&1)
	prefix=$2
	[ "$2" = avx512f ] && prefix=avx512
	if [ "$got" = "$prefix $2 $3" ]; then echo "ok $n - $1: $2, $3 bits"
	else echo "not ok $n - $1: got '$got', want '$prefix $2 $3'"; fail=$((fail + 1)); fi
}

flags=$(sed -n 's/^\(flags\|Features\)[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
if [ -n "${NODEAUDIT_EMULATOR:-}" ]; then
	case $NODEAUDIT_EMULATOR in
	*aarch64*)
		unset QEMU_CPU
		run "emulated default CPU (max)" sve 512
		QEMU_CPU=max,sve256=on run "emulated SVE at 256 bits" sve 256
		QEMU_CPU=cortex-a72 run "emulated Cortex-A72 (no SVE)" neon 128 ;;
	*) n=1; echo "ok 1 - # SKIP no expectation for $NODEAUDIT_EMULATOR" ;;
	esac
else
	case $(uname -m) in
	x86_64)
		if has avx512f; then run "this x86 CPU" avx512f 512
		elif has avx2; then run "this x86 CPU" avx2 256
		else run "this x86 CPU" sse2 128; fi ;;
	aarch64)
		if has sve && [ -r /proc/sys/abi/sve_default_vector_length ]; then
			run "this arm64 CPU" sve $(($(cat /proc/sys/abi/sve_default_vector_length) * 8))
		else
			run "this arm64 CPU" neon 128
		fi ;;
	*) n=1; echo "ok 1 - # SKIP no kernel expectation for $(uname -m)" ;;
	esac
fi
echo "1..$n"
[ $fail -eq 0 ]
