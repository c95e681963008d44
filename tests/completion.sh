#!/bin/sh
# completion.sh - contrib/bash-completion/nodeaudit: sourced in bash, its
# function completes commands, options, profile names, check IDs, --format
# values and file names.  Skipped when bash is missing.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
command -v bash >/dev/null 2>&1 || { echo "# skip: bash is not installed"; exit 77; }
script=$top_srcdir/contrib/bash-completion/nodeaudit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# comp WORD...: the completions (one a line, sorted) for the command line
# "nodeaudit WORD..." with the cursor on the last word.
comp() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		_nodeaudit || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' comp "$script" "$NODEAUDIT" "$@" | LC_ALL=C sort
}
# want DESC "EXPECTED WORDS" WORD...: the completions are exactly these.
want() {
	desc=$1 exp=$2; shift 2
	got=$(comp "$@" | tr '\n' ' ' | sed 's/ $//')
	exp=$(printf '%s\n' $exp | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$exp" ]; then ok "$desc"
	else nok "$desc"; echo "# want: $exp"; echo "# got:  $got"; fi
}
# has DESC WORD-EXPECTED WORD...: the completions include this one.
has() {
	desc=$1 exp=$2; shift 2
	if comp "$@" | grep -qxF -- "$exp"; then ok "$desc"
	else nok "$desc"; echo "# got: $(comp "$@" | tr '\n' ' ')"; fi
}

want "commands starting with pr" "probe profiles" pr
want "plan --format" "text json sh sysctl systemd kubelet tuned" plan --format ""
want "check --format" "text json junit prometheus tap html nfd svg" check --format ""
want "report --format" "text json csv html" report --format ""
want "--fail-on" "warn fail never" --sysroot /x check --fail-on ""
want "--unknown" "ignore warn fail" check --unknown ""
want "--color" "auto always never" --color ""
want "profiles subcommands" "list recommend show validate" profiles ""
want "probe --only comma list" "cpu,numa" probe --only cpu,n
has "explain cpu. gives cpu.smt" cpu.smt explain cpu.
has "check --profile agent- gives agent-cpu-inference" agent-cpu-inference check --profile agent-
has "profiles show gives a profile" base profiles show ""
has "check options" --fail-on check --
has "check --bench-model" --bench-model check --bench
has "plan options" --reserve plan --
has "global options" --sysroot --
has "-o after a command" -o snapshot -
has "help COMMAND" check help ch
want "no option from quoted text (dmidecode --dump-bin)" "" probe --dump

# Every check ID 'explain' lists is completed.
comp explain "" >"$tmp/ids"
missing=$("$NODEAUDIT" explain | awk '{ print $1 }' | grep '\.' | grep -vxFf "$tmp/ids" || true)
if [ -z "$missing" ] && [ -s "$tmp/ids" ]; then ok "every check ID is completed"
else nok "every check ID is completed"; echo "# missing: $missing"; fi

# Every command 'nodeaudit --help' lists is completed, and nothing else.
cmds=$(LC_ALL=C "$NODEAUDIT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || nok "--help lists commands"
want "every command in --help is completed, help once" "$cmds" ""
for c in $cmds; do
	# Each command's --format values are named in its own help text.
	fmts=$(comp "$c" --format "")
	for f in $fmts; do
		LC_ALL=C "$NODEAUDIT" help "$c" | grep -q -- "$f" ||
			nok "$c --format $f: not in 'nodeaudit help $c'"
	done
done
ok "--format values appear in each command's help"

# File names for the options that take one.
mkdir -p "$tmp/d/snapdir"
: >"$tmp/d/smbios.bin"
has "--sysroot completes directories" "$tmp/d/snapdir" --sysroot "$tmp/d/s"
has "--smbios completes files" "$tmp/d/smbios.bin" --smbios "$tmp/d/sm"
has "bench MODEL completes files" "$tmp/d/smbios.bin" bench "$tmp/d/sm"
has "check --facts completes files" "$tmp/d/smbios.bin" check --facts "$tmp/d/sm"
has "check --baseline completes files" "$tmp/d/smbios.bin" check --baseline "$tmp/d/sm"
has "diff OLD completes files" "$tmp/d/smbios.bin" diff "$tmp/d/sm"
has "diff NEW completes directories" "$tmp/d/snapdir" diff old.json "$tmp/d/s"

if command -v shellcheck >/dev/null 2>&1; then
	if shellcheck -s bash "$script" >"$tmp/out" 2>&1; then ok "shellcheck"
	else nok "shellcheck"; sed 's/^/# /' "$tmp/out"; fi
fi
echo "1..$n"
[ "$fail" -eq 0 ]
