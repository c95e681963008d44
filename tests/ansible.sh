#!/bin/sh
# ansible.sh - run contrib/ansible/playbook.yml for real with ansible-playbook
# against localhost (connection local), with the just-built binary, and check
# the facts.d facts, the fetched report and the fleet report; then the cases
# admins meet: --check (the read-only audit runs), a host failed by policy
# (its failing findings are shown), a controller without nodeaudit (the play
# fails and says so), and -e nodeaudit_deb alone (the package's
# /usr/bin/nodeaudit is used).  With NODEAUDIT_DEB=path/to/nodeaudit_*.deb
# and root, that last case installs the package for real (and purges it
# again if it was not installed before).  Skips (77) without
# ansible-playbook, and without the `check` command.
set -u
# scripts/test-all runs this once, in the first pass; its distcheck and
# sanitizer passes set NODEAUDIT_QUICK to leave out the slow tool runs.
if [ -n "${NODEAUDIT_QUICK:-}" ]; then echo "# skip: NODEAUDIT_QUICK (run in test-all's first pass)"; exit 77; fi
: "${NODEAUDIT:?}" "${top_srcdir:?}"
if ! command -v ansible-playbook >/dev/null 2>&1; then
	echo "# SKIP: ansible-playbook is not installed (Debian: ansible-core)"
	exit 77
fi
src=$(cd "$top_srcdir/contrib/ansible" && pwd)
srcroot=$(cd "$top_srcdir" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# Keep ansible's own files in the temporary directory.
ANSIBLE_HOME=$tmp/home ANSIBLE_LOCAL_TEMP=$tmp/local ANSIBLE_REMOTE_TEMP=$tmp/remote
ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0
ANSIBLE_PYTHON_INTERPRETER=auto_silent ANSIBLE_STDOUT_CALLBACK=default
export ANSIBLE_HOME ANSIBLE_LOCAL_TEMP ANSIBLE_REMOTE_TEMP ANSIBLE_NOCOLOR ANSIBLE_RETRY_FILES_ENABLED
export ANSIBLE_LOCALHOST_WARNING ANSIBLE_PYTHON_INTERPRETER ANSIBLE_STDOUT_CALLBACK

# Everything the role writes goes under $tmp: the binary is copied to
# $tmp/node/bin, facts.d is $tmp/node/facts.d, the node's report is
# $tmp/node/report.json, and the controller collects into $tmp/reports.
cat >"$tmp/vars.yml" <<VARS
nodeaudit_hosts: localhost
nodeaudit_become: false
nodeaudit_binary: "$NODEAUDIT"
nodeaudit_bin: "$tmp/node/bin/nodeaudit"
nodeaudit_facts_dir: "$tmp/node/facts.d"
nodeaudit_remote_report: "$tmp/node/report.json"
nodeaudit_fetch_dir: "$tmp/reports"
nodeaudit_controller_bin: "$NODEAUDIT"
nodeaudit_fail_rc: 4
nodeaudit_report_format: json
nodeaudit_report_output: "$tmp/fleet.json"
VARS
mkdir -p "$tmp/node/bin"
# Ansible refuses to run without a UTF-8 locale; the test suite runs with LANG=C.
if ! locale -a 2>/dev/null | grep -qi '^c\.utf-\{0,1\}8$'; then
	echo "# SKIP: no C.UTF-8 locale, which ansible needs"
	exit 77
fi
play() { LC_ALL=C.UTF-8 LANG=C.UTF-8 ansible-playbook -i localhost, -c local "$src/playbook.yml" -e "@$tmp/vars.yml" "$@"; }

if play --syntax-check >"$tmp/out" 2>&1; then ok "playbook syntax"; else nok "playbook syntax"; sed 's/^/# /' "$tmp/out"; fi

if ! "$NODEAUDIT" check --help >/dev/null 2>&1; then
	# No check engine yet: install and facts only, then skip.
	if play --skip-tags check >"$tmp/out" 2>&1; then ok "install and facts ran"
	else nok "install and facts ran"; sed 's/^/# /' "$tmp/out"; fi
	if grep -q "nodeaudit facts: schema nodeaudit.probe/1" "$tmp/out"; then ok "ansible_local.nodeaudit holds the probe facts"
	else nok "ansible_local.nodeaudit holds the probe facts"; sed 's/^/# /' "$tmp/out"; fi
	echo "1..$n"
	[ $fail -eq 0 ] || exit 1
	echo "# SKIP: '$NODEAUDIT check' does not exist yet: the check part of the role was not run"
	exit 77
fi

if play >"$tmp/out" 2>&1; then ok "playbook ran"; else nok "playbook ran"; sed 's/^/# /' "$tmp/out"; fi
# A second run changes nothing when the report differs only in its time.
# A fixture sysroot makes the facts the same twice while the audit time
# moves on (live, a loaded machine can time out hwloc's child one run and
# not the next: a real change).
good="{\"nodeaudit_check_args\": [\"--sysroot\", \"$srcroot/tests/fixtures/pci-gpu-downtrained-x4\"]}"
play -e "$good" >"$tmp/out2" 2>&1
cp "$tmp/node/report.json" "$tmp/report.first" 2>/dev/null
sleep 1   # a report of the next second
if play -e "$good" >"$tmp/out2" 2>&1 && grep -q 'localhost *: ok=[0-9]* *changed=0 ' "$tmp/out2"; then
	ok "a second run reports changed=0"
else
	nok "a second run reports changed=0"; grep -B1 '^changed:' "$tmp/out2" | sed 's/^/# /'
	grep 'localhost *:' "$tmp/out2" | sed 's/^/# /'
	diff "$tmp/report.first" "$tmp/node/report.json" | sed 's/^/# /'
fi
# ... but a report that changed (another profile) is written again.
if play --tags check -e nodeaudit_profile=base -e "$good" >"$tmp/out2" 2>&1 && grep -q 'localhost *: ok=[0-9]* *changed=2 ' "$tmp/out2" &&
   grep -q '"name":[[:space:]]*"base"' "$tmp/node/report.json"; then
	ok "a changed report is written again (changed=2: the node's and the controller's copies)"
else nok "a changed report is not written again"; grep 'localhost *:' "$tmp/out2" | sed 's/^/# /'; fi
if grep -q "nodeaudit facts: schema nodeaudit.probe/1" "$tmp/out"; then ok "ansible_local.nodeaudit holds the probe facts"
else nok "ansible_local.nodeaudit holds the probe facts"; fi
if [ -x "$tmp/node/bin/nodeaudit" ]; then ok "binary installed"; else nok "binary installed"; fi
if [ -x "$tmp/node/facts.d/nodeaudit.fact" ]; then ok "facts.d script installed"; else nok "facts.d script installed"; fi
r=$tmp/reports/localhost.json
if grep -q '"schema":[[:space:]]*"nodeaudit.report/1"' "$r" 2>/dev/null; then ok "report fetched to the controller"
else nok "report fetched to the controller ($r)"; fi
"$NODEAUDIT" report "$tmp/reports" --format csv >"$tmp/csv" 2>"$tmp/err"
rc=$?
if [ $rc -le 2 ] && [ "$(wc -l <"$tmp/csv")" -eq 2 ]; then ok "fetched report is usable (report exit $rc)"
else nok "fetched report is usable (report exit $rc)"; sed 's/^/# /' "$tmp/err"; fi
if grep -q '"schema":[[:space:]]*"nodeaudit.fleet/1"' "$tmp/fleet.json" 2>/dev/null &&
   tr -d ' \t\n' <"$tmp/fleet.json" | grep -q '"nodes":{"count":1,'; then ok "fleet report written on the controller"
else nok "fleet report written on the controller"; fi

# Check mode, on a node whose audit fails (the bad fixture: ECC off): the
# audit still runs, the report reaches the controller and is summarised, the
# node is not written to, and the host fails by policy naming the finding.
rm -rf "$tmp/reports" "$tmp/node/report.json" "$tmp/fleet.json"
play --check -e nodeaudit_fail_rc=2 -e nodeaudit_profile=base -e nodeaudit_report_format=text \
	-e nodeaudit_report_output= \
	-e "{\"nodeaudit_check_args\": [\"--facts\", \"$srcroot/tests/fixtures/check-facts/bad.json\"]}" >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q 'failed=1' "$tmp/out"; then ok "--check: the host fails by policy (exit $rc)"
else nok "--check: the host fails by policy (exit $rc)"; sed 's/^/# /' "$tmp/out"; fi
if grep -q '"schema":[[:space:]]*"nodeaudit.report/1"' "$r" 2>/dev/null; then ok "--check: the report reaches the controller"
else nok "--check: the report reaches the controller"; fi
if grep -q '"Fleet: 1 node from 1 file"' "$tmp/out"; then ok "--check: the fleet report ran"
else nok "--check: the fleet report ran"; fi
if [ ! -e "$tmp/node/report.json" ]; then ok "--check: nothing written on the node"
else nok "--check: nothing written on the node"; fi
if grep -q 'FAIL memory.ecc (ECC memory): observed \\"off\\", expected on' "$tmp/out" &&
   grep -q 'nodeaudit check exited 2 (CRITICAL)' "$tmp/out"; then ok "the failed host shows its failing findings"
else nok "the failed host shows its failing findings"; grep -A3 'Apply the policy' "$tmp/out" | sed 's/^/# /'; fi

# Policy: with nodeaudit_fail_rc=0 any outcome fails the host, and the report is still fetched.
rm -rf "$tmp/reports"
if play -e nodeaudit_fail_rc=0 --tags check >"$tmp/out" 2>&1; then nok "policy fails the host"
else ok "policy fails the host (exit $?)"; fi
if [ -s "$r" ]; then ok "report fetched from a failed host"; else nok "report fetched from a failed host"; fi
if grep -q 'this host fails at 0 or more (nodeaudit_fail_rc)' "$tmp/out"; then ok "the policy failure names nodeaudit_fail_rc"
else nok "the policy failure names nodeaudit_fail_rc"; sed 's/^/# /' "$tmp/out"; fi

# A controller without nodeaudit: the play fails and says so (it used to end
# "ok" with an empty fleet report).
if play --tags check -e nodeaudit_controller_bin=/nonexistent/nodeaudit >"$tmp/out" 2>&1; then
	nok "a controller without nodeaudit fails the play"
else ok "a controller without nodeaudit fails the play"; fi
if grep -q "no '/nonexistent/nodeaudit' on the controller" "$tmp/out"; then ok "... and says why"
else nok "... and says why"; sed 's/^/# /' "$tmp/out"; fi

# -e nodeaudit_deb alone: the role runs the package's /usr/bin/nodeaudit, not
# /usr/local/bin/nodeaudit.  Without a package to install (install skipped)
# it names that path as missing, or runs it where it is installed.
cat >"$tmp/deb.yml" <<VARS
nodeaudit_hosts: localhost
nodeaudit_become: false
nodeaudit_facts_dir: "$tmp/node/facts.d"
nodeaudit_remote_report: "$tmp/node/report.json"
nodeaudit_fetch_dir: "$tmp/reports"
nodeaudit_controller_bin: "$NODEAUDIT"
nodeaudit_fail_rc: 4
VARS
pd() { LC_ALL=C.UTF-8 LANG=C.UTF-8 ansible-playbook -i localhost, -c local "$src/playbook.yml" -e "@$tmp/deb.yml" "$@"; }
pd -e nodeaudit_deb=/nonexistent/nodeaudit_0.1.0-1_amd64.deb --skip-tags install,facts,check >"$tmp/out" 2>&1
if grep -q "nodeaudit: '/usr/bin/nodeaudit' is missing" "$tmp/out" ||
   { [ -x /usr/bin/nodeaudit ] && ! grep -q 'failed=[1-9]' "$tmp/out"; }; then
	ok "nodeaudit_deb alone: the role uses /usr/bin/nodeaudit"
else nok "nodeaudit_deb alone: the role uses /usr/bin/nodeaudit"; sed 's/^/# /' "$tmp/out"; fi
if [ -n "${NODEAUDIT_DEB:-}" ] && [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null 2>&1; then
	deb=$(cd "$(dirname "$NODEAUDIT_DEB")" && pwd)/$(basename "$NODEAUDIT_DEB")
	had=0
	dpkg -s nodeaudit >/dev/null 2>&1 && had=1
	rm -rf "$tmp/reports"
	if pd -e "nodeaudit_deb=$deb" >"$tmp/out" 2>&1; then ok "-e nodeaudit_deb=$(basename "$deb") installs and audits"
	else nok "-e nodeaudit_deb=$(basename "$deb") installs and audits"; sed 's/^/# /' "$tmp/out"; fi
	if grep -q '"schema":[[:space:]]*"nodeaudit.report/1"' "$r" 2>/dev/null; then ok "... with the installed /usr/bin/nodeaudit"
	else nok "... with the installed /usr/bin/nodeaudit"; fi
	if [ ! -e "/var/tmp/$(basename "$deb")" ]; then ok "... and no .deb left in /var/tmp"
	else nok "... and the .deb left in /var/tmp"; fi
	if pd -e "nodeaudit_deb=$deb" >"$tmp/out" 2>&1 && grep -q 'localhost *: ok=[0-9]* *changed=0 ' "$tmp/out"; then
		ok "... a second install run reports changed=0"
	else nok "... a second install run reports changed=0"; grep 'localhost *:' "$tmp/out" | sed 's/^/# /'; fi
	[ $had = 1 ] || dpkg --purge nodeaudit >/dev/null 2>&1
else
	echo "# SKIP: the real package install (set NODEAUDIT_DEB=path/to/nodeaudit_*.deb, as root)"
fi

echo "1..$n"
[ $fail -eq 0 ]
