#!/bin/sh
# contrib.sh - the contrib/ files are valid: systemd units (systemd-analyze
# verify), shell scripts (shellcheck), the facts.d script's output (JSON).
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
	sed "s|/usr/bin/nodeaudit|$NODEAUDIT|" "$c/systemd/nodeaudit.service" >"$tmp/nodeaudit.service"
	cp "$c/systemd/nodeaudit.timer" "$tmp/"
	if systemd-analyze verify --man=no "$tmp/nodeaudit.service" "$tmp/nodeaudit.timer" >"$tmp/out" 2>&1 &&
	   [ ! -s "$tmp/out" ]; then ok "systemd-analyze verify"
	else nok "systemd-analyze verify"; sed 's/^/# /' "$tmp/out"; fi
	if grep -q '^ExecStart=/usr/bin/nodeaudit check --format prometheus -o /var/lib/node_exporter/textfile_collector/nodeaudit.prom$' \
		"$c/systemd/nodeaudit.service"; then ok "service writes the textfile collector's file"
	else nok "service writes the textfile collector's file"; fi
else
	echo "# skip: systemd-analyze is not installed"
fi

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

echo "1..$n"
[ $fail -eq 0 ]
