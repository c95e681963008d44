#!/bin/sh
# contrib.sh - the contrib/ files are valid: systemd units (systemd-analyze
# verify), shell scripts (shellcheck), the facts.d script's output (JSON);
# the textfile directory is Debian's in the unit and the README, and the
# README's prometheus command and the unit's commands work on a fresh layout.
# The systemd and shellcheck parts are skipped when their tool is missing.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
c=$(cd "$top_srcdir/contrib" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

if command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants ExecStart= to exist: point it at the built binary.
	sed "s|@bindir@|$(dirname "$NODEAUDIT")|" "$c/systemd/nodeaudit.service.in" >"$tmp/nodeaudit.service"
	cp "$c/systemd/nodeaudit.timer" "$tmp/"
	if systemd-analyze verify --man=no "$tmp/nodeaudit.service" "$tmp/nodeaudit.timer" >"$tmp/out" 2>&1 &&
	   [ ! -s "$tmp/out" ]; then ok "systemd-analyze verify"
	else nok "systemd-analyze verify"; sed 's/^/# /' "$tmp/out"; fi
	# shellcheck disable=SC2016 # ${TEXTFILE_DIR} is systemd's, matched literally
	if grep -q '^ExecStart=@bindir@/nodeaudit check --format prometheus -o ${TEXTFILE_DIR}/nodeaudit.prom$' \
		"$c/systemd/nodeaudit.service.in"; then ok "service writes TEXTFILE_DIR/nodeaudit.prom"
	else nok "service writes TEXTFILE_DIR/nodeaudit.prom"; fi
else
	echo "# skip: systemd-analyze is not installed"
fi

# One textfile directory everywhere: Debian's prometheus-node-exporter reads
# /var/lib/prometheus/node-exporter (its README.textfile); the unit's
# TEXTFILE_DIR and the README's command use the same, and the unit names the
# directory in no other place.
deb_dir=/var/lib/prometheus/node-exporter
unit=$c/systemd/nodeaudit.service.in
if grep -qx "Environment=TEXTFILE_DIR=$deb_dir" "$unit"; then ok "unit: TEXTFILE_DIR is Debian's $deb_dir"
else nok "unit: TEXTFILE_DIR is Debian's $deb_dir"; fi
if [ "$(grep -v '^#' "$unit" | grep -c '/var/lib')" = 1 ]; then ok "unit: the directory is set in one place"
else nok "unit: the directory is set in one place"; grep -n '/var/lib' "$unit" | sed 's/^/# /'; fi
cmd=$(grep -- '--format prometheus -o' "$top_srcdir/README.md")
if [ "$(printf '%s\n' "$cmd" | wc -l)" = 1 ] && printf '%s\n' "$cmd" | grep -q " -o $deb_dir/nodeaudit.prom\$"; then
	ok "README: the prometheus command writes to $deb_dir"
else nok "README: the prometheus command writes to $deb_dir"; printf '# %s\n' "$cmd"; fi
# The README's command, verbatim but for the root (a fresh, empty one) and
# the binary, must work: no directory exists yet.
root=$tmp/fresh
mkdir "$root"
run=$(printf '%s\n' "$cmd" | sed "s|/var/lib/|$root/var/lib/|g; s|^\(.*&& \)\{0,1\}nodeaudit |\1$NODEAUDIT |")
sh -c "$run" >"$tmp/out" 2>&1
rc=$?
if [ $rc -le 2 ] && [ -s "$root$deb_dir/nodeaudit.prom" ]; then ok "README's prometheus command works on a fresh layout (exit $rc)"
else nok "README's prometheus command works on a fresh layout (exit $rc)"; printf '# %s\n' "$run"; sed 's/^/# /' "$tmp/out"; fi
if command -v promtool >/dev/null 2>&1 && [ -s "$root$deb_dir/nodeaudit.prom" ]; then
	if promtool check metrics <"$root$deb_dir/nodeaudit.prom" >"$tmp/out" 2>&1; then ok "its textfile passes promtool check metrics"
	else nok "its textfile passes promtool check metrics"; sed 's/^/# /' "$tmp/out"; fi
fi
# The unit's own commands, with its TEXTFILE_DIR, on another fresh root.
root=$tmp/fresh2
mkdir "$root"
dir=$(sed -n 's/^Environment=TEXTFILE_DIR=//p' "$unit")
for k in ExecStartPre ExecStart; do
	line=$(sed -n "s/^$k=//p" "$unit" | sed "s|\${TEXTFILE_DIR}|$root$dir|g; s|^@bindir@/nodeaudit |$NODEAUDIT |")
	sh -c "$line" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -le 2 ]; then ok "unit $k runs on a fresh layout (exit $rc)"
	else nok "unit $k runs on a fresh layout (exit $rc)"; sed 's/^/# /' "$tmp/out"; fi
done
if grep -q '^nodeaudit_info{' "$root$dir/nodeaudit.prom" 2>/dev/null; then ok "unit wrote TEXTFILE_DIR/nodeaudit.prom"
else nok "unit wrote TEXTFILE_DIR/nodeaudit.prom"; fi

if command -v shellcheck >/dev/null 2>&1; then
	for f in "$c/ansible/roles/nodeaudit/files/nodeaudit.fact" "$top_srcdir/bench/report-fleet.sh"; do
		if shellcheck -s sh "$f" >"$tmp/out" 2>&1; then ok "shellcheck $(basename "$f")"
		else nok "shellcheck $(basename "$f")"; sed 's/^/# /' "$tmp/out"; fi
	done
else
	echo "# skip: shellcheck is not installed"
fi

# The facts script prints the probe's JSON, or one {"error": ...} object.
fact=$c/ansible/roles/nodeaudit/files/nodeaudit.fact
if [ -x "$fact" ]; then ok "facts script is executable"; else nok "facts script is executable"; fi
mkdir -p "$tmp/facts.d"
cp "$fact" "$tmp/facts.d/"
echo "$NODEAUDIT" >"$tmp/facts.d/nodeaudit.path"
echo '{"schema": "nodeaudit.probe/1", "host": {"hostname": "<any>"}}' >"$tmp/want.json"
sh "$tmp/facts.d/nodeaudit.fact" >"$tmp/got.json" 2>"$tmp/err"
if "$JSUBSET" "$tmp/want.json" "$tmp/got.json" >"$tmp/out" 2>&1 && [ ! -s "$tmp/err" ]; then ok "facts script prints the probe"
else nok "facts script prints the probe"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
if [ ! -e /usr/local/bin/nodeaudit ] && [ ! -e /usr/bin/nodeaudit ]; then
	echo /nonexistent/nodeaudit >"$tmp/facts.d/nodeaudit.path"
	PATH=/nonexistent:/bin:/usr/bin sh "$tmp/facts.d/nodeaudit.fact" >"$tmp/got.json" 2>&1
	echo '{"error": "nodeaudit not found"}' >"$tmp/want.json"
	if "$JSUBSET" "$tmp/want.json" "$tmp/got.json" >"$tmp/out" 2>&1; then ok "facts script without nodeaudit prints an error object"
	else nok "facts script without nodeaudit"; sed 's/^/# /' "$tmp/got.json"; fi
fi

# bench/README.md: the scripts default to build/src/nodeaudit.  Only where
# this build is <srcdir>/build (not in distcheck's tree).
if [ -x "$top_srcdir/build/src/nodeaudit" ] &&
   [ "$(cd "$top_srcdir/build/src" && pwd)/nodeaudit" = "$NODEAUDIT" ]; then
	script=$(cd "$top_srcdir/bench" && pwd)/report-fleet.sh
	(cd "$tmp" && env -u NODEAUDIT sh "$script" "" 20) >"$tmp/out" 2>&1
	if grep -q '^reports: 20 ' "$tmp/out" && grep -q '^  json: exit [0-2], ' "$tmp/out"; then
		ok "bench/report-fleet.sh finds build/src/nodeaudit by itself"
	else nok "bench/report-fleet.sh finds build/src/nodeaudit by itself"; sed 's/^/# /' "$tmp/out"; fi
else
	echo "# skip: the build is not <srcdir>/build; bench default not checked"
fi

echo "1..$n"
[ $fail -eq 0 ]
