#!/bin/sh
# cli-table.sh - the command table, --help, the man page and the bash
# completion agree: every option and format a command's usage lists (the
# usage is generated from its descriptor) is documented in nodeaudit(1) and
# completed by contrib/bash-completion/nodeaudit.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
man=$top_srcdir/man/nodeaudit.1
script=$top_srcdir/contrib/bash-completion/nodeaudit
n=0 fail=0
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }
comp() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		_nodeaudit || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' comp "$script" "$NODEAUDIT" "$@"
}
cmds=$("$NODEAUDIT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$cmds" ]; res "--help lists the commands" $?
for c in $cmds; do
	{ grep -q "^\.It Cm $c\( \|$\)" "$man" || grep -A1 '^\.It Xo$' "$man" | grep -qx "\.Cm $c"; }
	res "nodeaudit.1 documents the command $c" $?
	help=$("$NODEAUDIT" help "$c")
	opts=$(printf '%s\n' "$help" | sed -n '/^Options:/,/^$/p' | grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*' | sed 's/.*--//')
	for o in $opts; do
		[ "$o" = format ] && continue
		grep -q "Fl -$o\( \|$\)" "$man"; res "nodeaudit.1 documents $c --$o" $?
		if command -v bash >/dev/null 2>&1; then
			comp "$c" "--${o%"${o#??}"}" | grep -qx -- "--$o"; res "completion offers $c --$o" $?
		fi
	done
	fmts=$(printf '%s\n' "$help" | sed -n 's/^  --format FMT  *//p' | sed 's/ (default)//; s/,/ /g; s/ or / /')
	for f in $fmts; do
		grep -q "^\.Cm $f\( \|$\)" "$man"; res "nodeaudit.1 names $c's format $f" $?
	done
	if command -v bash >/dev/null 2>&1; then
		got=$(comp "$c" --format "" | sort | tr '\n' ' ')
		want=$(printf '%s\n' $fmts | sort | tr '\n' ' ')
		[ "$got" = "$want" ]; res "completion of $c --format is exactly '$want'" $?
	fi
done
echo "1..$n"
[ $fail -eq 0 ]
