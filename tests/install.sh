#!/bin/sh
# install.sh - what 'make install' puts on a machine is what admins use:
# the manual pages open with man(1) (nodeaudit-checks(7) included), every
# JSON Schema sits in $(datadir)/nodeaudit/schema and the README's validator
# command accepts a report with it, and the systemd service and timer are
# installed, pointing at the installed binary, not enabled, and accepted by
# systemd-analyze verify (scripts/verify-units; skipped without it).
set -u
# scripts/test-all runs this once, in the first pass; its distcheck and
# sanitizer passes set NODEAUDIT_QUICK to leave out the slow tool runs.
if [ -n "${NODEAUDIT_QUICK:-}" ]; then echo "# skip: NODEAUDIT_QUICK (run in test-all's first pass)"; exit 77; fi
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${top_builddir:?}"
n=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
dest=$tmp/dest
if make -C "$top_builddir" install DESTDIR="$dest" >"$tmp/out" 2>&1; then ok "make install DESTDIR"
else nok "make install DESTDIR"; tail -20 "$tmp/out" | sed 's/^/# /'; echo "1..$n"; exit 1; fi
# A make variable as make expands it (${datadir}/... under a prefix of
# one's own, as make distcheck's).
mkvar() { printf 'na-print-var:\n\t@echo $(%s)\n' "$1" | make -s -C "$top_builddir" -f Makefile -f - na-print-var 2>/dev/null; }
prefix=$(mkvar prefix)
unitdir=$(mkvar systemdsystemunitdir)
datadir=$dest$prefix/share
bin=$dest$prefix/bin/nodeaudit

# Manual pages, through man(1) as an admin opens them.
if command -v man >/dev/null 2>&1; then
	for page in nodeaudit:1 nodeaudit-profile:5 nodeaudit-checks:7; do
		name=${page%:*} sec=${page#*:}
		if [ -f "$datadir/man/man$sec/$name.$sec" ] &&
		   MANPATH=$datadir/man MANWIDTH=80 man -P cat "$sec" "$name" >"$tmp/man" 2>"$tmp/err" &&
		   grep -q "^NAME" "$tmp/man"; then ok "man $sec $name opens"
		else nok "man $sec $name opens"; sed 's/^/# /' "$tmp/err"; fi
	done
	MANPATH=$datadir/man MANWIDTH=80 man -P cat 7 nodeaudit-checks 2>/dev/null | col -b >"$tmp/man"
	missing=0
	for id in $("$NODEAUDIT" explain | awk '{print $1}'); do
		grep -q "^ *$id " "$tmp/man" || { echo "# nodeaudit-checks(7) as man shows it lacks $id"; missing=1; }
	done
	if [ $missing = 0 ]; then ok "man 7 nodeaudit-checks shows every check"; else nok "man 7 nodeaudit-checks shows every check"; fi
else
	echo "# skip: man is not installed"
fi

# Schemas, and the README's validator command on the installed schema.
for k in probe report plan bench fleet; do
	if [ -f "$datadir/nodeaudit/schema/nodeaudit-$k.schema.json" ]; then ok "schema/nodeaudit-$k.schema.json installed"
	else nok "schema/nodeaudit-$k.schema.json installed"; fi
done
py=${DIST_PYTHON:-/usr/bin/python3}
cmd=$(grep -- 'python3 -m jsonschema -i report.json' "$top_srcdir/README.md")
if [ -n "$cmd" ] && "$py" -m jsonschema --version >/dev/null 2>&1; then
	srcroot=$(cd "$top_srcdir" && pwd)
	run=$(printf '%s\n' "$cmd" | sed "s|^nodeaudit check |$bin check --facts $srcroot/tests/fixtures/check-facts/bad.json |;
		s|python3 -m|$py -m|; s|/usr/local/share/|$datadir/|")
	(cd "$tmp" && sh -c "$run") >"$tmp/out" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ -s "$tmp/report.json" ]; then ok "README's validator command accepts the report"
	else nok "README's validator command accepts the report (exit $rc)"; printf '# %s\n' "$run"; head -5 "$tmp/out" | sed 's/^/# /'; fi
else
	echo "# skip: no README validator command or no $py -m jsonschema"
fi

# The README's schema path is the one its install (the default prefix) gives.
if [ "$prefix" = /usr/local ]; then
	if grep -q -- "-i report.json $prefix/share/nodeaudit/schema/nodeaudit-report.schema.json" "$top_srcdir/README.md"
	then ok "README's validator names the schema where the README's install puts it"
	else nok "README's validator names the schema where the README's install puts it ($prefix/share)"; fi
fi

# The bash completion: where bash-completion loads it (for /usr and
# /usr/local its pkg-config completionsdir, else /usr/share/...; another
# prefix's own share/bash-completion/completions), unless configure was told.
compdir=$(mkvar bashcompletiondir)
if [ -f "$dest$compdir/nodeaudit" ]; then ok "completion installed in $compdir"
else nok "completion installed in $compdir"; fi
looks=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null)
looks=${looks:-/usr/share/bash-completion/completions}
case $prefix in /usr|/usr/local) ;; *) looks=$prefix/share/bash-completion/completions ;; esac
if grep -q -- '--with-bash-completion-dir' "$top_builddir/config.status" 2>/dev/null; then
	echo "# skip: configured --with-bash-completion-dir=$compdir"
elif [ "$compdir" = "$looks" ]; then ok "completion where bash-completion looks ($looks)"
else nok "completion in $compdir, bash-completion looks in $looks"; fi

# systemd units: installed, run the installed binary, not enabled.
if [ -n "$unitdir" ]; then
	for u in nodeaudit.service nodeaudit.timer; do
		if [ -f "$dest$unitdir/$u" ]; then ok "$u installed in $unitdir"; else nok "$u installed in $unitdir"; fi
	done
	if grep -q "^ExecStart=$prefix/bin/nodeaudit check " "$dest$unitdir/nodeaudit.service" 2>/dev/null; then
		ok "the service runs $prefix/bin/nodeaudit"
	else nok "the service runs $prefix/bin/nodeaudit"; fi
	if [ -z "$(find "$dest" -path '*/systemd/system/*.wants*' 2>/dev/null)" ]; then ok "no unit is enabled"
	else nok "no unit is enabled"; fi
	# systemd's own checker on the installed units, ExecStart= resolved
	# inside the DESTDIR: the configured bindir must hold the binary.
	# Only where systemd reads units (a prefix of one's own, make
	# distcheck's, puts them where it does not).
	case $unitdir in
	/usr/local/lib/systemd/system|/usr/lib/systemd/system|/lib/systemd/system|/etc/systemd/system)
		sh "$top_srcdir/scripts/verify-units" "$dest" >"$tmp/out" 2>&1
		case $? in
		0) ok "systemd-analyze verify: the installed units" ;;
		77) echo "# skip: $(cat "$tmp/out")" ;;
		*) nok "systemd-analyze verify: the installed units"; sed 's/^/# /' "$tmp/out" ;;
		esac ;;
	*) echo "# skip: systemd-analyze verify: the units are in $unitdir, where systemd reads none" ;;
	esac
else
	echo "# skip: configured --without-systemdsystemunitdir"
fi
echo "1..$n"
[ $fail -eq 0 ]
