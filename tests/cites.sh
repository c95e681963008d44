#!/bin/sh
# cites.sh - what nodeaudit prints cites only what ships.  Every text a user
# sees (help, explain, check in every format, plan in every format, profiles)
# is collected; a *.md document (the project's DOMAIN.md is not installed) or
# a path into the source tree fails, and every manual page it names, such as
# nodeaudit-checks(7), must be one that 'make install' installs.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }
facts=$top_srcdir/tests/fixtures/check-facts
out=$tmp/all
{
	"$NODEAUDIT" --help
	for c in $("$NODEAUDIT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
		"$NODEAUDIT" help "$c"
	done
	"$NODEAUDIT" explain
	for id in $("$NODEAUDIT" explain | awk '{print $1}'); do "$NODEAUDIT" explain "$id"; done
	for p in $("$NODEAUDIT" profiles list | awk '{print $1}'); do
		"$NODEAUDIT" profiles show "$p"
		for f in bad warn good; do
			for fmt in text json junit prometheus html; do
				"$NODEAUDIT" check --facts "$facts/$f.json" --profile "$p" --format $fmt
			done
		done
	done
	for s in kernel-untuned-desktop numa-2node cpu-rpl-laptop pci-2socket-remote; do
		for fmt in text json sh sysctl systemd; do
			"$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/$s" --format $fmt
		done
	done
} >"$out" 2>&1
[ -s "$out" ]; res "outputs collected ($(wc -l <"$out") lines)" $?
grep -n 'DOMAIN' "$out" | head -5 >"$tmp/bad"
[ ! -s "$tmp/bad" ]; res "no output names DOMAIN.md" $?
sed 's/^/#   /' "$tmp/bad"
grep -noE '[A-Za-z0-9_./-]+\.md\b' "$out" | head -5 >"$tmp/bad"
[ ! -s "$tmp/bad" ]; res "no output cites a .md document (none is installed)" $?
sed 's/^/#   /' "$tmp/bad"
grep -noE '\.\./shared|/work/|tests/fixtures' "$out" | grep -v "$top_srcdir" | head -5 >"$tmp/bad"
[ ! -s "$tmp/bad" ]; res "no output points into the source tree" $?
sed 's/^/#   /' "$tmp/bad"
grep -c 'nodeaudit-checks(7)' "$out" >"$tmp/count"
[ "$(cat "$tmp/count")" -gt 0 ]; res "outputs cite nodeaudit-checks(7)" $?
# Every nodeaudit manual page an output names ships (dist_man_MANS).
for page in $(grep -oE 'nodeaudit(-[a-z]+)?\([1-8]\)' "$out" | sort -u); do
	name=${page%(*}; sec=${page#*(}; sec=${sec%)}
	[ -e "$top_srcdir/man/$name.$sec" ] &&
		grep -q "man/$name\.$sec\>" "$top_srcdir/Makefile.am"
	res "$page is a shipped manual page" $?
done
# The plan's "why:" lines name the explain command of their check.
"$NODEAUDIT" plan --sysroot "$top_srcdir/tests/fixtures/kernel-untuned-desktop" --format sysctl >"$tmp/sysctl"
grep -q '^# why: .*(nodeaudit explain kernel.sysctl; nodeaudit-checks(7))$' "$tmp/sysctl"
res "plan --format sysctl cites 'nodeaudit explain kernel.sysctl' and nodeaudit-checks(7)" $?
echo "1..$n"
[ $fail -eq 0 ]
