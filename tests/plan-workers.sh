# plan-workers.sh - sourced by the plan tests: the workers a plan must have
# on a sysroot, derived from the sysroot's own files (online,
# thread_siblings_list, nodeN/cpulist, cpu_capacity or base_frequency), not
# from the tool.  Needs $tmp (a scratch directory).

# A cpulist, one number a line.
expand() { printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 + 0 } NF == 2 { for (i = $1; i <= $2; i++) print i }'; }
# Numbers on stdin (sorted) into a cpulist: 1-3,8.
compress() {
	sort -n | awk 'BEGIN { s = -1 } { if (s < 0) { s = p = $1 } else if ($1 == p + 1) p = $1; else { o = o sep (s == p ? s : s "-" p); sep = ","; s = p = $1 } }
		END { if (s >= 0) o = o sep (s == p ? s : s "-" p); print o }'
}

# The expected workers of sysroot $1: "NODE LIST" lines ("- LIST" without nodes).
expected() {
	root=$1 c=$1/sys/devices/system/cpu
	if [ -r "$c/online" ]; then expand "$(cat "$c/online")"; else
		for d in "$c"/cpu[0-9]*; do [ -d "$d" ] && echo "${d##*/cpu}"; done
	fi | sort -n >"$tmp/online"
	# P-cores on hybrids (the top kind only, as on x86): on Arm, the CPUs of
	# the biggest core design in /proc/cpuinfo (Arm's part numbers, Cortex-X
	# above the A7xx of the v9 generation, above the v8 big cores, above the
	# little ones); else the highest cpu_capacity; else the highest base
	# frequency; else the highest cpuinfo_max_freq; nothing when all are alike.
	: >"$tmp/kind"
	# A part printed once for all processors (an old kernel's shared block)
	# is the reading CPU's, evidence for none: parts count only when every
	# processor has its own.
	awk -F'\t*: *' '/^processor/ { p = $2; np++ } /^CPU part/ { l[++nl] = p " " $2 }
		END { if (nl == np) for (i = 1; i <= nl; i++) print l[i] }' "$root/proc/cpuinfo" 2>/dev/null >"$tmp/parts"
	# Each CPU's files read by one awk (a few forks a CPU would cost more
	# than the tool's whole run): "-" for a file that is absent or empty.
	awk -v c="$c" -v parts="$tmp/parts" '
	function rd(f,   l, r) { r = (getline l < f); close(f); return r > 0 && l != "" ? l : "-" }
	BEGIN {
		while ((getline l < parts) > 0) { split(l, w, " "); part[w[1]] = w[2] }
		n = split("0xd44 0xd48 0xd4e 0xd82 0xd85", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 4 # Cortex-X1, X2, X3, X4, X925
		n = split("0xd4d 0xd47 0xd81 0xd87", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 3       # A715, A710, A720, A725
		n = split("0xd07 0xd08 0xd09 0xd0a 0xd0b 0xd0d 0xd41", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 2 # A57 ... A78
		n = split("0xd03 0xd04 0xd05 0xd46 0xd80", x, " "); for (i = 1; i <= n; i++) rk[x[i]] = 1 # A53, A35, A55, A510, A520
	}
	{
		cpu = $1
		rank = (cpu in part) && (part[cpu] in rk) ? rk[part[cpu]] : "-"
		print cpu, rd(c "/cpu" cpu "/cpu_capacity"), rd(c "/cpu" cpu "/cpufreq/base_frequency"), rank,
		      rd(c "/cpu" cpu "/cpufreq/cpuinfo_max_freq")
	}' "$tmp/online" >"$tmp/kind"
	awk '
	{ cpu[NR] = $1; cap[NR] = $2; base[NR] = $3; rank[NR] = $4; mf[NR] = $5 }
	$5 != "-" { if (fmin == "" || $5 < fmin) fmin = $5; if (fmax == "" || $5 > fmax) fmax = $5 }
	$2 != "-" { if (cmin == "" || $2 < cmin) cmin = $2; if (cmax == "" || $2 > cmax) cmax = $2 }
	$3 != "-" { if (bmin == "" || $3 < bmin) bmin = $3; if (bmax == "" || $3 > bmax) bmax = $3 }
	$4 != "-" { if (rmin == "" || $4 < rmin) rmin = $4; if (rmax == "" || $4 > rmax) rmax = $4 }
	END {
		for (i = 1; i <= NR; i++) {
			p = 1
			if (rmin != "" && rmin != rmax) p = rank[i] == rmax
			else if (cmin != "" && cmin != cmax) p = cap[i] != "-" && cap[i] == cmax
			else if (bmin != "" && bmin != bmax) p = base[i] == bmax
			else if (fmin != "" && fmin != fmax) p = mf[i] == fmax
			if (p) print cpu[i]
		}
		h = (rmin != "" && rmin != rmax) || (cmin != "" && cmin != cmax) || (bmin != "" && bmin != bmax) ||
		    (fmin != "" && fmin != fmax)
		print h ? "hybrid" : "plain" > "/dev/stderr"
	}' "$tmp/kind" >"$tmp/pcores" 2>"$tmp/hybrid"
	# One thread per core: the lowest online thread of its siblings.
	# (thread_siblings_list, else core_cpus_list, else the CPU alone; a
	# file that is there but empty names no thread).
	awk -v c="$c" -v online="$tmp/online" -v pcores="$tmp/pcores" '
	function rd(f,   l, r) { r = (getline l < f); close(f); return r < 0 ? "\001" : r == 0 ? "" : l }
	BEGIN {
		while ((getline l < online) > 0) on[l + 0] = 1
		while ((getline l < pcores) > 0) pc[l + 0] = 1
	}
	{
		cpu = $1
		sib = rd(c "/cpu" cpu "/topology/thread_siblings_list")
		if (sib == "\001") sib = rd(c "/cpu" cpu "/topology/core_cpus_list")
		if (sib == "\001") sib = cpu
		first = ""
		n = split(sib, part, ",")
		for (i = 1; i <= n; i++) {
			m = split(part[i], r, "-")
			if (m == 1 && r[1] != "") { lo = r[1] + 0; hi = lo } else if (m == 2) { lo = r[1] + 0; hi = r[2] + 0 } else continue
			for (j = lo; j <= hi; j++) if ((j in on) && (first == "" || j < first)) first = j
		}
		if (first != "" && first == cpu + 0 && ((cpu + 0) in pc)) print cpu
	}' "$tmp/online" >"$tmp/reps"
	reserve=1
	[ "$(cat "$tmp/hybrid")" = hybrid ] && reserve=0
	nodes=$(ls -d "$root"/sys/devices/system/node/node[0-9]* 2>/dev/null | sed 's/.*node//' | sort -n)
	if [ -z "$nodes" ]; then
		sort -n "$tmp/reps" >"$tmp/nreps"
		cnt=$(wc -l <"$tmp/nreps")
		[ "$cnt" -le "$reserve" ] && reserve=0
		# No node directory: a kernel without NUMA, one node 0.
		echo "0 $(tail -n +$((reserve + 1)) "$tmp/nreps" | compress)"
		return
	fi
	# A CPU that several nodes claim (broken firmware) belongs to the first.
	: >"$tmp/taken"
	for id in $nodes; do
		expand "$(cat "$root/sys/devices/system/node/node$id/cpulist" 2>/dev/null)" >"$tmp/ncpus"
		grep -Fxf "$tmp/ncpus" "$tmp/reps" | grep -vFxf "$tmp/taken" | sort -n >"$tmp/nreps"
		cat "$tmp/nreps" >>"$tmp/taken"
		cnt=$(wc -l <"$tmp/nreps")
		[ "$cnt" -eq 0 ] && continue
		r=$reserve
		[ "$cnt" -le "$r" ] && r=0
		echo "$id $(tail -n +$((r + 1)) "$tmp/nreps" | compress)"
	done
}

