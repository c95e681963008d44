#!/bin/sh
# man.sh - the man pages are lint-clean (mandoc -T lint -W warning) and name
# every command and option the binary knows (nodeaudit.1) and every check ID
# (nodeaudit-profile.5, when the binary can list them).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
man=$(cd "$top_srcdir/man" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

if command -v mandoc >/dev/null 2>&1; then
	for f in "$man"/*.1 "$man"/*.5 "$man"/*.7; do
		[ -e "$f" ] || continue
		if mandoc -T lint -W warning "$f" >"$tmp/out" 2>&1; then ok "mandoc lint $(basename "$f")"
		else nok "mandoc lint $(basename "$f")"; sed 's/^/# /' "$tmp/out"; fi
	done
else
	echo "# skip: mandoc is not installed, no lint"
fi

# Commands: the lines between "Commands:" and the next blank line of --help.
"$NODEAUDIT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' >"$tmp/commands"
if [ -s "$tmp/commands" ]; then ok "--help lists commands"; else nok "--help lists commands"; fi
# Long options: those of --help (global) and of every command's usage.
opts() { sed -n 's/^  *\(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p'; }
"$NODEAUDIT" --help | opts >"$tmp/opts"
while read -r cmd; do
	if grep -q "^\.It Cm $cmd\>" "$man/nodeaudit.1" ||
	   grep -A1 '^\.It Xo$' "$man/nodeaudit.1" | grep -q "^\.Cm $cmd\>"; then ok "nodeaudit.1 documents '$cmd'"
	else nok "nodeaudit.1 lacks '.It Cm $cmd'"; fi
	"$NODEAUDIT" help "$cmd" | opts >>"$tmp/opts"
done <"$tmp/commands"
sort -u "$tmp/opts" >"$tmp/opts.u"
if [ -s "$tmp/opts.u" ]; then ok "usage texts list options"; else nok "usage texts list options"; fi
while read -r opt; do
	if grep -q "Fl -$opt\>" "$man/nodeaudit.1"; then ok "nodeaudit.1 documents '--$opt'"
	else nok "nodeaudit.1 lacks 'Fl -$opt'"; fi
done <"$tmp/opts.u"

# --format: each command's list in nodeaudit.1's --format entry is the one
# its usage gives (nfd and kubelet were once left out).
awk '/^\.It Fl -format Ar fmt$/ { on = 1; next } on && /^\.It / { exit } on' "$man/nodeaudit.1" |
	tr '\n' ' ' | sed 's/ *\.Cm / /g' >"$tmp/fmts"
while read -r cmd; do
	want=$(COLUMNS=1000 "$NODEAUDIT" help "$cmd" | sed -n 's/^  --format FMT *//p' |
		sed 's/ (default)//; s/,//g; s/ or / /')
	[ -n "$want" ] || continue
	want=$(echo $want)
	# "CMD : a , b , c ;" or "CMD and OTHER : a , b ;" in the page's text
	got=$(sed -n "s/.* $cmd \(and [a-z]* \)\{0,1\}: \([^;.]*\)[;.].*/\2/p" "$tmp/fmts" | sed 's/ ,//g')
	got=$(echo $got)
	if [ "$got" = "$want" ]; then ok "nodeaudit.1 --format lists $cmd's formats"
	else nok "nodeaudit.1 --format lists '$got' for $cmd, its usage '$want'"; fi
done <"$tmp/commands"

# Check IDs, when the binary can list them and the profile page exists.
if "$NODEAUDIT" explain >"$tmp/ids.raw" 2>/dev/null; then
	sed -n 's/^[[:space:]]*\([a-z][a-z0-9_]*\.[a-z0-9_.]*\).*/\1/p' "$tmp/ids.raw" | sort -u >"$tmp/ids"
	if [ ! -e "$man/nodeaudit-profile.5" ]; then
		nok "nodeaudit-profile.5 is missing but the binary has check IDs"
	elif [ ! -s "$tmp/ids" ]; then
		nok "'explain' printed no check ID"
	else
		while read -r id; do
			if grep -qF "$id" "$man/nodeaudit-profile.5"; then ok "nodeaudit-profile.5 documents '$id'"
			else nok "nodeaudit-profile.5 lacks '$id'"; fi
		done <"$tmp/ids"
	fi
else
	echo "# skip: 'nodeaudit explain' does not list checks, check IDs not compared"
fi

echo "1..$n"
[ $fail -eq 0 ]
