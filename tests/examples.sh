#!/bin/sh
# examples.sh - every example command in README.md and in the man pages'
# EXAMPLES sections runs as written and ends with the exit status the
# pages document: 0, or for commands that report findings (nodeaudit alone,
# check, diff, report) 0 to 2 (nodeaudit(1) EXIT STATUS: 3 is never a pass).
#
# Where the examples come from: README.md's ```sh blocks, and each
# .Sh EXAMPLES section's .Bd -literal block in man/*.[157] (continuation
# lines, "\e" or "\", joined).  A README block preceded by a line
#   <!-- examples: not run: REASON -->
# (building the tree, enabling a unit) is listed, not run.  They run here:
#   - in a scratch directory, with the built nodeaudit first in PATH, on
#     this machine; the inputs they name but do not make (golden.json,
#     node17.tar.gz, reports/, model.gguf, Qwen2.5-7B-Instruct/ (a
#     checkpoint), node1.lspci, site-inference.json,
#     ...) are made first, from this machine or the fixtures;
#   - after the README's own install: this build's 'make install' into a
#     scratch DESTDIR, its nodeaudit in PATH, /usr/local/... paths the
#     installed files (the source tree's schemas when the build's prefix is
#     not /usr/local, as in distcheck);
#   - paths under /etc and /var are moved under a scratch root (never the
#     real system's files), empty but for etc/sysctl.d and var/tmp before
#     each example: an example that writes into a directory makes it;
#   - a line needing a tool that is absent (sudo) or a table this machine
#     lacks (an SMBIOS dump on a VM) is skipped, saying so.
# NODEAUDIT_QUICK leaves out the benches (10 s each).
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
src=$(cd "$top_srcdir" && pwd)
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
case $MKGGUF in /*) ;; *) MKGGUF=$(pwd)/$MKGGUF ;; esac
NODEAUDIT=$(cd "$(dirname "$NODEAUDIT")" && pwd)/$(basename "$NODEAUDIT")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0 ran=0

# The examples: "FILE:LINE<TAB>command".
{
	awk -v f=README.md '
		/^<!-- examples: not run/ { skip = 1; why = $0; sub(/^<!-- examples: not run: */, "", why); sub(/ *-->.*/, "", why); next }
		/^```sh/ { inb = 1; next }
		/^```/ { inb = 0; skip = 0; next }
		inb && /^[^#]/ && NF { printf "%s:%d\t%s%s\n", f, NR, skip ? "#NOT-RUN " why "#" : "", $0 }
	' "$src/README.md"
	for m in "$src"/man/*.[157]; do
		awk -v f="man/$(basename "$m")" '
			/^\.Sh / { ex = ($0 == ".Sh EXAMPLES"); next }
			ex && /^\.Bd -literal/ { inb = 1; next }
			inb && /^\.Ed/ { inb = 0; next }
			inb {
				line = $0; gsub(/\\e/, "\\", line)
				if (cont != "") { sub(/^ +/, "", line); line = cont " " line }
				if (line ~ /\\$/) { sub(/ *\\$/, "", line); cont = line; if (!start) start = NR; next }
				printf "%s:%d\t%s\n", f, start ? start : NR, line; cont = ""; start = 0
			}
		' "$m"
	done
} >"$tmp/examples"

# The scratch machine, after the README's own install: 'make install' of
# this build (its prefix, /usr/local unless configured otherwise) into a
# scratch DESTDIR, the installed nodeaudit first in PATH; a root for /etc
# and /var holding only what a fresh Debian has (an example needing a
# directory it does not have makes it, as the README's do).
mkdir -p "$tmp/bin" "$tmp/run"
inst=
prefix=$(sed -n 's/^prefix = //p' "${top_builddir:-.}/Makefile" 2>/dev/null)
if [ -n "$prefix" ] && make -C "${top_builddir:-.}" install DESTDIR="$tmp/inst" >"$tmp/install.log" 2>&1 &&
   [ -x "$tmp/inst$prefix/bin/nodeaudit" ]; then
	inst=$tmp/inst
	ln -s "$inst$prefix/bin/nodeaudit" "$tmp/bin/nodeaudit"
else
	echo "# make install DESTDIR failed or no Makefile: the built binary, the source tree's schemas"
	sed 's/^/#   /' "$tmp/install.log" 2>/dev/null | tail -n 5
	ln -s "$NODEAUDIT" "$tmp/bin/nodeaudit"
fi
fresh_root() {
	rm -rf "$tmp/root"
	mkdir -p "$tmp/root/etc/sysctl.d" "$tmp/root/var/tmp"
}
fresh_root
PATH=$tmp/bin:$PATH; export PATH
cd "$tmp/run" || exit 99

# Inputs the examples name without making them.
nodeaudit probe --format json -o golden.json 2>/dev/null
nodeaudit check --format json -o node17.json 2>/dev/null
cp node17.json last-audit.json
nodeaudit snapshot -o node17.tar.gz >/dev/null 2>&1
mkdir -p reports
cp node17.json reports/node17.json
nodeaudit --sysroot "$src/tests/fixtures/pci-8gpu-switches" check --format json -o reports/gpu-node.json 2>/dev/null
# node1.lspci as the man page makes it: 'lspci -xxx' of this machine (the
# pci-snapshot-dump fixture's capture without lspci).
lspci -xxx >node1.lspci 2>/dev/null && [ -s node1.lspci ] ||
	cp "$src/tests/fixtures/pci-snapshot-dump/nodeaudit/pci.dump" node1.lspci
if [ -x "$MKGGUF" ]; then
	"$MKGGUF" llama model.gguf >/dev/null && cp model.gguf model-Q4_K_M.gguf
fi
# A Hugging Face checkpoint directory for vLLM (config.json, safetensors).
sh "$src/tests/mkckpt.sh" Qwen2.5-7B-Instruct 28 4 28 3584 1048576
cat >site-inference.json <<'P'
{
  "name": "site-inference",
  "extends": "agent-cpu-inference",
  "description": "This site's inference nodes: the default, with THP madvise only",
  "checks": {
    "kernel.thp": {"expect": "madvise"}
  }
}
P

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

unmade=
while IFS='	' read -r where cmd; do
	case $cmd in
	'#NOT-RUN '*)
		why=${cmd#\#NOT-RUN }; why=${why%%#*}; line=${cmd#\#NOT-RUN *#}
		skip "$where: $line" "not run: $why"; continue ;;
	esac
	# The command without its trailing comment (a '#' after spaces).
	run=$(printf '%s\n' "$cmd" | sed 's/[[:space:]][[:space:]]*#[[:space:]].*$//')
	if [ -n "${NODEAUDIT_QUICK:-}" ] && printf '%s\n' "$run" | grep -q 'nodeaudit bench'; then
		# What the skipped bench would have written (-o FILE) is missing
		# for the examples that read it.
		o=$(printf '%s\n' "$run" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
		[ -n "$o" ] && unmade="$unmade $o"
		skip "$where: $run" "NODEAUDIT_QUICK: no bench"; continue
	fi
	skipit=
	for o in $unmade; do
		case " $run " in *" $o "*) skipit=$o ;; esac
	done
	if [ -n "$skipit" ]; then
		skip "$where: $run" "NODEAUDIT_QUICK: $skipit comes from a bench"; continue
	fi
	case $run in
	sudo\ *) if ! command -v sudo >/dev/null 2>&1; then skip "$where: $run" "sudo is not installed"; continue; fi ;;
	esac
	if printf '%s\n' "$run" | grep -q 'dmidecode --dump-bin' && [ ! -e /sys/firmware/dmi/tables/DMI ]; then
		skip "$where: $run" "no SMBIOS table on this machine (a VM)"; continue
	fi
	if printf '%s\n' "$run" | grep -q 'jsonschema' && ! python3 -c 'import jsonschema' 2>/dev/null; then
		skip "$where: $run" "python3-jsonschema is not installed"; continue
	fi
	if printf '%s\n' "$run" | grep -q 'prove' && ! command -v prove >/dev/null 2>&1; then
		skip "$where: $run" "prove (perl) is not installed"; continue
	fi
	# System paths under the scratch root; the installed files under the
	# scratch install (the README's prefix, /usr/local, is this build's), or
	# the source tree's schemas without one.
	shown=$run
	run=$(printf '%s\n' "$run" | sed -e "s| /etc/| $tmp/root/etc/|g" -e "s| /var/| $tmp/root/var/|g")
	if [ -n "$inst" ] && [ "$prefix" = /usr/local ]; then
		run=$(printf '%s\n' "$run" | sed -e "s| /usr/local/| $inst/usr/local/|g")
	else
		run=$(printf '%s\n' "$run" | sed -e "s|/usr/local/share/nodeaudit/schema/|$src/schema/|g")
	fi
	fresh_root
	# The statuses the pages document for it.
	want="0"
	case " $run" in
	*" nodeaudit check"*|*" nodeaudit diff"*|*" nodeaudit report"*) want="0 1 2" ;;
	esac
	case $run in
	nodeaudit|nodeaudit\ [!a-z]*) want="0 1 2" ;;
	esac
	# prove reports the checks that did not pass with its own exit status 1.
	case $run in *prove*) want="0 1" ;; esac
	timeout 120 sh -c "$run" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ran=$((ran + 1))
	case " $want " in
	*" $rc "*)
		if [ $rc = 0 ] || [ -s "$tmp/out" ] || printf '%s\n' "$run" | grep -q -- ' -o '; then
			ok "$where: $shown (exit $rc)"
		else nok "$where: $shown (exit $rc, no output)"; fi ;;
	*) nok "$where: $shown: exit $rc, documented $want"; sed 's/^/#   /' "$tmp/err" | head -n 5 ;;
	esac
	case $run in
	*prove*) grep -q '^Result: ' "$tmp/out" || { nok "$where: prove printed no result"; sed 's/^/#   /' "$tmp/out" | tail -n 5; } ;;
	esac
done <"$tmp/examples"
[ "$ran" -ge 20 ] || nok "only $ran examples ran: the extractor found too few"
echo "1..$n"
[ $fail -eq 0 ]
