#!/bin/sh
# check-man.sh - the manual pages are clean (mandoc -T lint -W warning) and
# nodeaudit-profile(5) documents every check ID the binary knows.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }
for m in "$top_srcdir/man/nodeaudit.1" "$top_srcdir/man/nodeaudit-profile.5"; do
	if command -v mandoc >/dev/null 2>&1; then
		out=$(mandoc -T lint -W warning "$m" 2>&1)
		[ -z "$out" ]; res "mandoc lint $(basename "$m")" $?
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
	else
		n=$((n + 1)); echo "ok $n - mandoc lint $(basename "$m") # SKIP mandoc not installed"
	fi
done
ids=$("$NODEAUDIT" explain | awk '{print $1}')
[ -n "$ids" ]; res "explain lists the checks" $?
for id in $ids; do
	grep -q "^\.It Cm $id\$" "$top_srcdir/man/nodeaudit-profile.5"
	res "nodeaudit-profile.5 documents $id" $?
done
for c in check profiles explain; do
	grep -q "^\.Cm $c\$\|^\.It Cm $c\|^\.It Xo\$" "$top_srcdir/man/nodeaudit.1"
	res "nodeaudit.1 documents $c" $?
done
echo "1..$n"
[ $fail -eq 0 ]
