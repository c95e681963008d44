#!/bin/sh
# fuzz-replay.sh - every fuzz target's seed corpus and kept crash inputs
# (fuzz/regressions/TARGET) run once through the target code: a crash, an
# abort or a sanitizer report fails the test.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
n=0 fail=0
for corpus in "$top_srcdir"/fuzz/corpus/*/; do
	t=$(basename "$corpus")
	bin=$top_builddir/fuzz/replay-$t
	n=$((n + 1))
	if [ ! -x "$bin" ]; then echo "not ok $n - $t: $bin not built"; fail=$((fail + 1)); continue; fi
	if out=$(timeout 120 "$bin" "$corpus" "$top_srcdir/fuzz/regressions/$t" 2>&1); then
		echo "ok $n - $t: $out"
	else
		echo "not ok $n - $t"; printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'; fail=$((fail + 1))
	fi
done
echo "1..$n"
[ $fail -eq 0 ]
