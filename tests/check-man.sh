#!/bin/sh
# check-man.sh - the manual pages are clean (mandoc -T lint -W warning), render
# without nested-quote debris, nodeaudit-profile(5) documents every check ID
# the binary knows, and nodeaudit-checks(7) matches the check catalogue: the
# same IDs both ways, each with its title, what it measures and the built-in
# thresholds 'nodeaudit explain ID' prints.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
n=0 fail=0
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checks7=$top_srcdir/man/nodeaudit-checks.7
for m in "$top_srcdir/man/nodeaudit.1" "$top_srcdir/man/nodeaudit-profile.5" "$checks7"; do
	if command -v mandoc >/dev/null 2>&1; then
		b=$(basename "$m")
		out=$(mandoc -T lint -W warning "$m" 2>&1)
		[ -z "$out" ]; res "mandoc lint $b" $?
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
# Nested enclosures on one macro line (.Dq a , Dq b) render as ("a, "b"");
# a rendered page never has two closing quotes in a row (an empty string
# such as "('' for a flag" opens after a space or parenthesis).
if command -v mandoc >/dev/null 2>&1; then
	for m in "$top_srcdir/man/nodeaudit.1" "$top_srcdir/man/nodeaudit-profile.5" "$checks7"; do
		b=$(basename "$m")
		bad=$(mandoc -T ascii "$m" | col -b | tr '\n\t' '  ' | tr -s ' ' |
			grep -oE ".{0,30}[^ (](\"\"|'').{0,10}")
		[ -z "$bad" ]; res "$b renders without nested quotes" $?
		[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/#   /'
	done
fi

# nodeaudit-checks(7) against the catalogue.  Entries are
#   .It Cm ID No \(em TITLE / .Sy Measures : / text / .Pp / .Sy Thresholds : / text
awk '
/^\.It Cm [a-z]/ { id = $3; sec = ""; next }
/^\.Sy Measures :$/ { sec = "measures"; next }
/^\.Sy Thresholds :$/ { sec = "thresholds"; next }
/^\./ { sec = ""; next }
sec != "" && id != "" { printf "%s ", $0 >> (dir "/" sec "." id) }
' dir="$tmp" "$checks7"
sed -n 's/^\.It Cm \([^ ]*\) No \\(em .*/\1/p' "$checks7" | sort >"$tmp/ids7"
printf '%s\n' $ids | sort >"$tmp/ids"
[ -s "$tmp/ids7" ]; res "nodeaudit-checks.7 has entries" $?
comm -13 "$tmp/ids" "$tmp/ids7" >"$tmp/extra"
[ ! -s "$tmp/extra" ]; res "every check in nodeaudit-checks.7 exists in the catalogue" $?
sed 's/^/#   unknown: /' "$tmp/extra"
norm() { tr '\n' ' ' | tr -s ' ' | sed 's/^ //; s/ $//'; }
"$NODEAUDIT" explain | while read -r id title; do
	printf '%s\t%s\n' "$id" "$title"
done >"$tmp/titles"
while IFS="$(printf '\t')" read -r id title; do
	t7=$(sed -n "s/^\\.It Cm $id No \\\\(em //p" "$checks7")
	[ -n "$t7" ] && [ "$t7" = "$title" ]; res "nodeaudit-checks.7 has $id with its title '$title'" $?
	"$NODEAUDIT" explain "$id" >"$tmp/x"
	what=$(sed -n '/^What it measures$/,/^$/p' "$tmp/x" | sed '1d;/^  Facts read:/,$d' | norm)
	m7=$(norm <"$tmp/measures.$id" 2>/dev/null)
	[ -n "$what" ] && [ "$what" = "$m7" ]; res "$id: 'Measures' is the catalogue's text" $?
	[ "$what" = "$m7" ] || printf '#   catalogue: %s\n#   page:      %s\n' "$what" "$m7"
	# Every distinct built-in threshold "VALUE (SEVERITY)" explain prints.
	sed -n '/^Built-in profiles$/,$p' "$tmp/x" | sed '1d' | grep -v '^      ' | grep -v ' not checked$' |
		sed 's/^  [a-z-]*  *//' | sort -u >"$tmp/thr"
	thr7=$(norm <"$tmp/thresholds.$id" 2>/dev/null)
	miss=0
	while read -r v; do
		case "$thr7" in *"$v in "*) ;; *) miss=1; echo "#   $id: no threshold '$v'";; esac
	done <"$tmp/thr"
	if [ ! -s "$tmp/thr" ]; then case "$thr7" in "none: "*) ;; *) miss=1;; esac; fi
	[ $miss = 0 ]; res "$id: the built-in thresholds are listed" $?
done <"$tmp/titles"

for c in check profiles explain; do
	grep -q "^\.Cm $c\$\|^\.It Cm $c\|^\.It Xo\$" "$top_srcdir/man/nodeaudit.1"
	res "nodeaudit.1 documents $c" $?
done
echo "1..$n"
[ $fail -eq 0 ]
