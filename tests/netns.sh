#!/bin/sh
# netns.sh - net.* sysctls belong to a network namespace: a check inside a
# private one (unshare -n) never reports that namespace's values as the
# host's; they are null with a gap that says why.  On a capture, the links
# /proc/self/ns/net and /proc/1/ns/net it records decide: the same
# namespace gives the values, another one or none gives the gap; the
# initial namespace's fixed inode decides alone.  The
# unshare part skips where no network namespace can be made.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netns.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
nets="net.core.somaxconn net.core.rmem_max net.ipv4.tcp_fin_timeout net.ipv4.tcp_tw_reuse"

# every_net_null OUT LABEL REASON: each net.* sysctl null, its gap naming
# REASON (a Python regular expression).
every_net_null() {
	for k in $nets; do
		if python3 - "$1" "$k" "$3" >"$tmp/why" 2>&1 <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
k = sys.argv[2]
if d["kernel"]["sysctl"].get(k, "absent") is not None:
    sys.exit("%s = %r" % (k, d["kernel"]["sysctl"].get(k, "absent")))
gaps = [g["reason"] for g in d["gaps"] if g["fact"] == 'kernel.sysctl."%s"' % k]
if not any(re.search("network namespace.*" + sys.argv[3], r) for r in gaps):
    sys.exit("gaps: %r" % gaps)
PY
		then ok "$2: $k is null, its gap says why"
		else nok "$2: $k is null, its gap says why ($3)"; sed 's/^/# /' "$tmp/why"; fi
	done
}
# is_host OUT: kernel.netns.is_host as JSON.
is_host() {
	python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["kernel"]["netns"]["is_host"]))' "$1"
}

# A capture: its links decide.
fx=$top_srcdir/tests/fixtures/check-node
cp -R "$fx" "$tmp/same"
# host_values DIR LABEL: the probe of DIR gives the fixture's net.* values
# (tcp_fin_timeout 60, tcp_tw_reuse 1) and kernel.netns.is_host true.
host_values() {
	"$NODEAUDIT" --sysroot "$1" probe --only kernel --format json >"$1.json" 2>"$tmp/err"
	if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["kernel"]["sysctl"]
sys.exit(0 if (s["net.ipv4.tcp_fin_timeout"], s["net.ipv4.tcp_tw_reuse"]) == ("60", "1") else 1)' "$1.json" &&
	   [ "$(is_host "$1.json")" = true ]; then ok "$2: its net.* values"
	else nok "$2: its net.* values"; cat "$tmp/err"; fi
}
host_values "$tmp/same" "capture in pid 1's namespace"

cp -R "$fx" "$tmp/other"
ln -sfn 'net:[4026532239]' "$tmp/other/proc/self/ns/net"
"$NODEAUDIT" --sysroot "$tmp/other" probe --only kernel --format json >"$tmp/other.json" 2>"$tmp/err"
every_net_null "$tmp/other.json" "capture in another namespace" "is not the host's"
if [ "$(is_host "$tmp/other.json")" = false ]; then ok "capture in another namespace: is_host false"
else nok "capture in another namespace: is_host false"; fi

cp -R "$fx" "$tmp/none"
rm -rf "$tmp/none/proc/1" "$tmp/none/proc/self"
"$NODEAUDIT" --sysroot "$tmp/none" probe --only kernel --format json >"$tmp/none.json" 2>"$tmp/err"
every_net_null "$tmp/none.json" "capture without the links" "holds no /proc/self/ns/net link"

# The initial namespace's fixed inode (NET_NS_INIT_INO, 0xEFFFFFF9) names the
# host's namespace without pid 1's link; any other inode needs that link.
cp -R "$fx" "$tmp/init"
rm -rf "$tmp/init/proc/1"
ln -sfn 'net:[4026531833]' "$tmp/init/proc/self/ns/net"
host_values "$tmp/init" "no pid 1 link, the initial namespace's fixed inode"
cp -R "$tmp/init" "$tmp/noinit"
ln -sfn 'net:[4026532239]' "$tmp/noinit/proc/self/ns/net"
"$NODEAUDIT" --sysroot "$tmp/noinit" probe --only kernel --format json >"$tmp/noinit.json" 2>"$tmp/err"
every_net_null "$tmp/noinit.json" "no pid 1 link, another inode" "holds no /proc/1/ns/net link"

# The profile that reads them: its net checks are unknown, never a warning
# about the other namespace's values.
"$NODEAUDIT" --sysroot "$tmp/other" check --profile agent-orchestrator --format json >"$tmp/chk.json" 2>"$tmp/err"
if python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
net = [f for f in r["findings"] if f["id"] == "kernel.sysctl" and f.get("key", "").startswith("net.")]
sys.exit(0 if net and all(f["status"] == "unknown" for f in net) else 1)' "$tmp/chk.json"; then
	ok "check in another namespace: the net.* checks are unknown"
else nok "check in another namespace: the net.* checks are unknown"; cat "$tmp/err"; fi

# Live, inside a private network namespace.
if unshare -n true 2>/dev/null; then how="unshare -n"
elif unshare -rn true 2>/dev/null; then how="unshare -rn"
else how=""; fi
if [ -n "$how" ]; then
	# shellcheck disable=SC2086 # how is two words
	$how "$NODEAUDIT" probe --only kernel --format json >"$tmp/live.json" 2>"$tmp/err"
	every_net_null "$tmp/live.json" "$how" "(is not the host's|cannot tell)"
	# shellcheck disable=SC2086
	$how "$NODEAUDIT" check --profile agent-orchestrator --format json >"$tmp/livechk.json" 2>"$tmp/err"
	if python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
net = [f for f in r["findings"] if f["id"] == "kernel.sysctl" and f.get("key", "").startswith("net.")]
sys.exit(0 if net and all(f["status"] == "unknown" for f in net) else 1)' "$tmp/livechk.json"; then
		ok "$how: check's net.* checks are unknown"
	else nok "$how: check's net.* checks are unknown"; cat "$tmp/err"; fi
else
	echo "# skip: no network namespace can be made here (unshare -n and -rn fail)"
fi
echo "1..$n"
[ $fail -eq 0 ] || exit 1
[ -n "$how" ] || exit 77
