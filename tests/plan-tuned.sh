#!/bin/sh
# plan-tuned.sh - plan --format tuned -o DIR writes a tuned profile
# directory that tuned's own profile loader (Debian's tuned package:
# tuned.profiles.Locator and Loader, as tuned-adm profile loads it) reads,
# with the base profile included (the node's running one, else
# throughput-performance) and the plan's settings in their plugins'
# sections: [sysctl], [cpu] governor, [vm] transparent_hugepages, [sysfs]
# (SMT, RoCE ECN), [bootloader] cmdline, [scheduler] isolated_cores (the workers'
# CPUs).  What each profile must hold comes from 'plan --format json', and
# for the fixtures from their known facts.  Skips (77) without python3's
# tuned module.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}"
# tuned's modules are the distribution's (python3-tuned is Debian's tuned package's).
py=${DIST_PYTHON:-/usr/bin/python3}
"$py" -c 'import tuned.profiles' 2>/dev/null || py=python3
"$py" -c 'import tuned.profiles' 2>/dev/null || { echo "1..0 # SKIP python3's tuned module (Debian: tuned) is not installed"; exit 77; }
fx=$top_srcdir/tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plan-tuned.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
mkdir "$tmp/profiles"

# The loader: tuned's own, over /usr/lib/tuned and the generated profiles.
cat >"$tmp/load.py" <<'PY'
import json, sys
import tuned.profiles as profiles
import tuned.profiles.variables as variables
import tuned.utils.global_config as global_config
gen, name, plan_path = sys.argv[1], sys.argv[2], sys.argv[3]
# UNIT/KEY=VALUE, '+' for a blank in VALUE.
want = dict(a.replace("+", " ").split("=", 1) for a in sys.argv[4:])
plan = json.load(open(plan_path))
loader = profiles.Loader(profiles.Locator(["/usr/lib/tuned", gen]), profiles.Factory(), profiles.Merger(),
                         global_config.GlobalConfig(), variables.Variables())
bad = []
base = want.pop("include", "throughput-performance")
merged = loader.load([name])
base_units = set(loader.load(base.split(",")).units)
if not base_units <= set(merged.units):
    bad.append("the base %s's units %r are not all in the profile's %r" % (base, sorted(base_units), sorted(merged.units)))
mine = profiles.Loader(profiles.Locator([gen]), profiles.Factory(), profiles.Merger(),
                       global_config.GlobalConfig(), variables.Variables())._load_config_data(gen + "/" + name + "/tuned.conf")
if mine.get("main", {}).get("include") != base:
    bad.append("include=%r, expected %r" % (mine.get("main", {}).get("include"), base))
def opt(unit, key):
    u = merged.units.get(unit)
    return None if u is None else u.options.get(key)
# Every setting of the plan, in its plugin's section.
for s in plan["steps"]:
    k, v = s.get("kind"), s.get("value")
    if k == "sysctl" and s.get("key"):
        got = opt("sysctl", s["key"])
    elif k == "governor":
        got = opt("cpu", "governor")
    elif k == "thp":
        got = opt("vm", "transparent_hugepages")
    elif k in ("smt", "sysfs"):
        got = opt("sysfs", s["key"])
    elif k == "cmdline" and s.get("key"):
        line = (opt("bootloader", "cmdline_nodeaudit") or "").split()
        got = v if s["text"] in line else line
    else:
        continue
    if got != v:
        bad.append("%s %s: the profile has %r, the plan %r" % (k, s.get("key", ""), got, v))
cpus = ",".join(w["cpus"] for w in plan.get("workers", []) if w.get("cpus"))
house = (plan.get("housekeeping") or {}).get("cpus")
if house and cpus:
    if opt("scheduler", "isolated_cores") != cpus:
        bad.append("isolated_cores %r, the workers' CPUs %r" % (opt("scheduler", "isolated_cores"), cpus))
elif opt("scheduler", "isolated_cores") and "isolated_cores" not in str(base_units):
    bad.append("isolated_cores without housekeeping CPUs")
# What the fixture's facts say the profile holds.
for k, v in want.items():
    unit, _, key = k.partition("/")
    if str(opt(unit, key)) != v:
        bad.append("%s is %r, expected %s" % (k, opt(unit, key), v))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
PY

# case NAME ARGS... [-- UNIT/KEY=VALUE...]: the profile of a plan, loaded.
case_() {
	name=$1
	shift
	args="" want=""
	while [ $# -gt 0 ]; do
		[ "$1" = -- ] && { shift; want="$*"; break; }
		args="$args $1"
		shift
	done
	# shellcheck disable=SC2086 # args and want are words
	if "$NODEAUDIT" $args plan --format json >"$tmp/$name.json" 2>"$tmp/err" &&
	   "$NODEAUDIT" $args plan --format tuned -o "$tmp/profiles/$name" 2>>"$tmp/err" &&
	   [ -f "$tmp/profiles/$name/tuned.conf" ] &&
	   "$py" "$tmp/load.py" "$tmp/profiles" "$name" "$tmp/$name.json" $want >"$tmp/out" 2>&1; then
		ok "$name: tuned's loader reads it, with the plan's settings$([ -n "$want" ] && echo " ($want)")"
	else
		nok "$name"; sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null
		[ -f "$tmp/profiles/$name/tuned.conf" ] && sed 's/^/#   | /' "$tmp/profiles/$name/tuned.conf"
	fi
}

# kernel-untuned-desktop: swappiness 60 (agent-cpu-inference wants <= 10),
# governors mixed; no tuned profile recorded.
case_ desktop --sysroot "$fx/kernel-untuned-desktop" -- sysctl/vm.swappiness=10 cpu/governor=performance
# The same node running tuned's balanced profile: the base is balanced.
cp -R "$fx/kernel-untuned-desktop" "$tmp/balanced"
mkdir -p "$tmp/balanced/etc/tuned" && echo balanced >"$tmp/balanced/etc/tuned/active_profile"
case_ desktop-balanced --sysroot "$tmp/balanced" -- include=balanced sysctl/vm.swappiness=10
# ... and nodeaudit's own profile: its base is not known, throughput-performance.
echo "nodeaudit" >"$tmp/balanced/etc/tuned/active_profile"
case_ desktop-own --sysroot "$tmp/balanced" -- include=throughput-performance
# Two merged profiles ("balanced virtual-guest"): both included.
echo "balanced virtual-guest" >"$tmp/balanced/etc/tuned/active_profile"
case_ desktop-two --sysroot "$tmp/balanced" -- include=balanced,virtual-guest
# check-facts/bad.json: governor, THP always (wants madvise), swappiness 60,
# SMT on (wants off).
"$NODEAUDIT" check --facts "$fx/check-facts/bad.json" --format json >"$tmp/report-bad.json" 2>/dev/null
case_ bad --report "$tmp/report-bad.json" -- vm/transparent_hugepages=madvise sysfs//sys/devices/system/cpu/smt/control=off \
	sysctl/vm.swappiness=10
# numa-2node: housekeeping CPUs 0 and 8, workers on 1-7 and 9-15.
case_ numa-2node --sysroot "$fx/numa-2node" -- scheduler/isolated_cores=1-7,9-15
# Kernel parameters the profile names: [bootloader].
printf '%s\n' '{"name": "tuned-cmdline", "extends": "agent-cpu-inference", "checks": {"kernel.cmdline": {' \
	'"numa_balancing": {"expect": "disable", "severity": "warn"},' \
	'"transparent_hugepage": {"expect": "madvise", "severity": "warn"}}}}' >"$tmp/profile-cmdline.json"
case_ cmdline --sysroot "$fx/kernel-untuned-desktop" --profile "$tmp/profile-cmdline.json" -- \
	bootloader/cmdline_nodeaudit=numa_balancing=disable+transparent_hugepage=madvise
# RoCE ports with ECN off at the reaction point: [sysfs] with the
# globs tuned's sysfs plugin expands, after nothing else (no SMT step).
case_ roce-ecn --sysroot "$fx/pci-nic-roce-ecn" --profile agent-rdma-host -- \
	'sysfs//sys/class/net/*/ecn/roce_np/enable/*=1' 'sysfs//sys/class/net/*/ecn/roce_rp/enable/*=1'
# A 2-socket SMT server and a hybrid laptop.
case_ cpu-2s-smt --sysroot "$fx/cpu-2s-smt"
case_ rpl-laptop --sysroot "$fx/cpu-rpl-laptop"

# Without -o: tuned.conf on stdout; -o on a file that is not a directory: refused.
"$NODEAUDIT" --sysroot "$fx/kernel-untuned-desktop" plan --format tuned >"$tmp/stdout" 2>"$tmp/err"
if [ $? = 0 ] && cmp -s "$tmp/stdout" "$tmp/profiles/desktop/tuned.conf"; then ok "without -o: the same tuned.conf on stdout"
else nok "without -o: the same tuned.conf on stdout"; fi
: >"$tmp/afile"
"$NODEAUDIT" --sysroot "$fx/kernel-untuned-desktop" plan --format tuned -o "$tmp/afile" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 3 ] && grep -q "not a directory" "$tmp/err" && [ ! -s "$tmp/afile" ]; then ok "-o on a plain file: refused (exit 3)"
else nok "-o on a plain file: refused (exit $rc)"; cat "$tmp/err"; fi
# The profile says how to apply and verify it.
if grep -q '^#   tuned-adm profile nodeaudit$' "$tmp/stdout" && grep -q 'tuned-adm verify' "$tmp/stdout"; then
	ok "the profile says how to apply and verify it"
else nok "the profile says how to apply and verify it"; fi
echo "1..$n"
[ $fail -eq 0 ]
