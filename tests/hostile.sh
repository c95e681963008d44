#!/bin/sh
# hostile.sh - hostile sysroots: files of every fixture sysroot, in turn,
# replaced by binary noise, nothing, a 5 MB value, a negative or overflowing
# number, an absurd or reversed range, a symlink loop, or a FIFO; and whole
# directories removed.  Each run of `probe --format json` (and `check` where it
# exists) must end within 30 s with exit 0-3, no signal and no sanitizer
# report, print valid JSON on exit 0-2, and say why on stderr on exit 3.
# HOSTILE_PER_FIXTURE (8) files of each fixture are mutated, spread over its
# sorted list; HOSTILE_MAX (1000) caps the runs.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}" "${top_srcdir:?}"
max=${HOSTILE_MAX:-1000}
per=${HOSTILE_PER_FIXTURE:-8}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo '{}' >"$tmp/any.json"
n=0 fail=0 runs=0
cmds="probe"
"$NODEAUDIT" help check >/dev/null 2>&1 && cmds="probe check"

mutate() { # mutate KIND FILE
	case $1 in
	noise) head -c 4096 /dev/urandom >"$2" ;;
	empty) : >"$2" ;;
	huge) head -c 5242880 /dev/zero | tr '\0' '7' >"$2" ;;
	negative) echo "-1" >"$2" ;;
	overflow) echo "99999999999999999999999999" >"$2" ;;
	range) echo "0-4294967295" >"$2" ;;
	reversed) echo "5-2" >"$2" ;;
	loop) rm -f "$2"; ln -s "$(basename "$2")" "$2" ;;
	fifo) rm -f "$2"; mkfifo "$2" ;;
	esac
}

run() { # run SYSROOT LABEL
	for c in $cmds; do
		runs=$((runs + 1))
		timeout 30 "$NODEAUDIT" --sysroot "$1" $c --format json >"$tmp/out" 2>"$tmp/err"
		rc=$?
		bad=""
		if [ $rc -gt 3 ]; then bad="exit $rc (signal or timeout)"
		elif grep -Eq 'runtime error:|Sanitizer' "$tmp/err"; then bad="sanitizer report"
		elif [ $rc -eq 3 ] && [ ! -s "$tmp/err" ]; then bad="exit 3 without a message"
		elif [ $rc -le 2 ] && ! "$JSUBSET" "$tmp/any.json" "$tmp/out" >/dev/null 2>&1; then bad="invalid JSON"
		fi
		if [ -n "$bad" ]; then
			n=$((n + 1)); fail=$((fail + 1))
			echo "not ok $n - $c on $2: $bad"; head -n 3 "$tmp/err" | sed 's/^/#   /'
		fi
	done
}

kinds="noise empty huge negative overflow range reversed loop fifo"
i=0
for fx in "$top_srcdir"/tests/fixtures/*/; do
	[ -d "$fx/sys" ] || [ -d "$fx/proc" ] || continue
	name=$(basename "$fx")
	# HOSTILE_PER_FIXTURE files of each fixture, spread over its sorted list.
	files=$(cd "$fx" && find . -type f | sort |
		awk -v k="$per" '{ f[NR] = $0 } END { s = NR / k; if (s < 1) s = 1
			for (x = 1; x <= NR; x += s) print f[int(x)] }')
	rm -rf "$tmp/root"; cp -a "$fx" "$tmp/root"
	for f in $files; do
		[ $runs -ge "$max" ] && break 2
		i=$((i + 1))
		set -- $kinds
		shift $((i % 9))
		kind=$1
		# One copy per fixture: each file is mutated, then put back.
		cp -p "$fx/$f" "$tmp/saved"
		mutate "$kind" "$tmp/root/$f"
		run "$tmp/root" "$name:$f=$kind"
		rm -f "$tmp/root/$f"; cp -p "$tmp/saved" "$tmp/root/$f"
	done
	# Whole directories missing (moved aside, then back).
	for d in sys/devices/system/cpu sys/devices/system/node proc sys; do
		[ -e "$fx/$d" ] || continue
		mv "$tmp/root/$d" "$tmp/aside"
		run "$tmp/root" "$name:-$d"
		mv "$tmp/aside" "$tmp/root/$d"
	done
done
n=$((n + 1))
if [ $fail -eq 0 ]; then echo "ok $n - $runs hostile runs ended cleanly"; else echo "not ok $n - $fail of $runs runs failed"; fi
echo "1..$n"
[ $fail -eq 0 ]
