/* probe/cpu-packages.c - packages (sockets): masks, ids and witnesses; package_cpus */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"
#include "read/smbios.h"
#include "read/hwloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* SMBIOS processor sockets that hold a CPU, from the sysroot's own table;
 * -1 when there is none or its firmware is emulated (a hypervisor writes
 * what it likes there). */
static int smbios_sockets(struct cpu_state *st)
{
	char *ep = NULL, *tab = NULL, *err = NULL;
	size_t eplen = 0, tlen = 0, i;
	struct smbios_info si;
	struct path_cxt pc = st->pc;
	int n = -1;
	memset(&si, 0, sizeof(si));
	pc_setdir(&pc, "/sys/firmware/dmi/tables");
	if (pc_read(&pc, &ep, &eplen, "smbios_entry_point") == 0 &&
	    pc_read(&pc, &tab, &tlen, "DMI") == 0 &&
	    smbios_parse_split((uint8_t *)ep, eplen, (uint8_t *)tab, tlen, &si, &err) == 0 &&
	    si.nprocs > 0 && !smbios_hypervisor(&si)) {
		n = 0;
		for (i = 0; i < si.nprocs; i++)
			n += si.procs[i].populated;
		if (!n)
			n = -1;
	}
	smbios_free(&si);
	free(err);
	free(ep);
	free(tab);
	return n;
}

/* The CPUs sharing the last-level (data or unified) cache of a CPU, as
 * the kernel lists them (sizes may be missing; the span is what counts):
 * of the highest level whose cache is not an instruction cache and lists
 * the CPU, the first such index.  The levels first, then the candidates
 * from the highest down, so that a lower level's type is not read at all
 * (the CPU probe read every index's level and its L2's and L3's type and
 * list already).  Returns the level, 0 when unknown. */
static int llc_span(struct cpu_state *st, int id, hwloc_bitmap_t set)
{
	struct path_cxt pc = st->pc;
	char **names, *t = NULL;
	size_t n = 0, i;
	uint64_t *lvl;
	int best = 0, want;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	pc_setdir(&pc, CPUDIR "/cpu%d/cache", id);
	names = cpu_cache_indexes(st, pc.dir, &n, NULL, NULL);
	lvl = xcalloc(n + 1, sizeof(*lvl));
	for (i = 0; i < n; i++)
		if (strncmp(names[i], "index", 5) || pc_read_u64(&pc, &lvl[i], "%s/level", names[i]) < 0 ||
		    lvl[i] > 8)
			lvl[i] = 0;
	for (want = 8; want > 0 && !best; want--)
		for (i = 0; i < n && !best; i++) {
			int instr, r;
			if (lvl[i] != (uint64_t)want)
				continue;
			instr = pc_read_str(&pc, &t, "%s/type", names[i]) == 0 && !strcmp(t, "Instruction");
			free(t);
			t = NULL;
			if (instr)
				continue;
			r = pc_read_cpulist(&pc, s, "%s/shared_cpu_list", names[i]);
			if (r == -ENOENT)
				r = pc_read_cpumask(&pc, s, "%s/shared_cpu_map", names[i]);
			if (r == 0 && hwloc_bitmap_isset(s, id)) {
				best = want;
				hwloc_bitmap_and(set, s, st->online);
			}
		}
	sr_free_list(names, n);
	free(lvl);
	hwloc_bitmap_free(s);
	return best;
}

/* Merge the kernel's package groups that set spans (into the first); the
 * number of groups it spans. */
static int merge_span(hwloc_bitmap_t *grp, int ng, hwloc_const_bitmap_t set, int *merged)
{
	int j, first = -1, span = 0;
	for (j = 0; j < ng; j++)
		if (grp[j] && hwloc_bitmap_intersects(grp[j], set)) {
			span++;
			if (first < 0)
				first = j;
			else {
				hwloc_bitmap_or(grp[first], grp[first], grp[j]);
				hwloc_bitmap_free(grp[j]);
				grp[j] = NULL;
				(*merged)++;
			}
		}
	return span;
}

/* Sockets by the device tree's cpu-map (Documentation/devicetree/bindings/
 * cpu/cpu-topology.txt): its socketN nodes, or 1 when it has clusters but
 * no socket; 0 when there is no cpu-map. */
static int dt_sockets(struct cpu_state *st)
{
	static const char *const maps[] = { "/sys/firmware/devicetree/base/cpus/cpu-map",
					    "/proc/device-tree/cpus/cpu-map" };
	struct path_cxt pc = st->pc;
	size_t i, j, n;
	char **names;
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		int sockets = 0, clusters = 0;
		names = NULL;
		n = 0;
		if (pc_list(&pc, &names, &n, "%s", maps[i]) < 0)
			continue;
		for (j = 0; j < n; j++) {
			if (!strncmp(names[j], "socket", 6))
				sockets++;
			else if (!strncmp(names[j], "cluster", 7))
				clusters++;
		}
		sr_free_list(names, n);
		if (sockets || clusters)
			return sockets ? sockets : 1;
	}
	return 0;
}

/* Packages by the MPIDR affinity of the device tree's cpu nodes (their reg
 * holds MPIDR's affinity fields).  Cores that number their threads in
 * Aff0 as 0 everywhere (DynamIQ, MT) are clustered at Aff2 and packaged
 * at Aff3; the others (Aff0 the core of its cluster, Aff1 the cluster) at
 * Aff2 and Aff3.  The number of distinct package-level values; 0 when the
 * device tree has no cpu nodes. */
static int dt_mpidr_packages(struct cpu_state *st)
{
	static const char *const dirs[] = { "/sys/firmware/devicetree/base/cpus", "/proc/device-tree/cpus" };
	struct path_cxt pc = st->pc;
	size_t d, i, n;
	char **names;
	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		uint64_t *aff;
		size_t na = 0, k, j;
		int aff0_zero = 1, npk = 0;
		names = NULL;
		n = 0;
		pc_setdir(&pc, "%s", dirs[d]);
		if (pc_list(&pc, &names, &n, "%s", pc.dir) < 0)
			continue;
		aff = xcalloc(n ? n : 1, sizeof(*aff));
		for (i = 0; i < n; i++) {
			char *b = NULL, *t = NULL;
			size_t len = 0;
			const unsigned char *u;
			uint64_t v = 0;
			if (strncmp(names[i], "cpu@", 4))
				continue;
			/* Only the nodes of device_type "cpu" (not idle states). */
			if (pc_read(&pc, &t, &len, "%s/device_type", names[i]) < 0 || len < 3 || memcmp(t, "cpu", 3)) {
				free(t);
				continue;
			}
			free(t);
			if (pc_read(&pc, &b, &len, "%s/reg", names[i]) < 0 || (len != 4 && len != 8)) {
				free(b);
				continue;
			}
			u = (const unsigned char *)b;
			for (k = 0; k < len; k++)
				v = v << 8 | u[k];
			free(b);
			aff[na++] = v;
			if (v & 0xff)
				aff0_zero = 0;
		}
		sr_free_list(names, n);
		if (!na) {
			free(aff);
			continue;
		}
		for (k = 0; k < na; k++) {
			/* package level: Aff3 (bits 32-39), plus Aff2 for classic cores */
			uint64_t key = (aff[k] >> 32 & 0xff) << 8 | (aff0_zero ? 0 : (aff[k] >> 16 & 0xff));
			for (j = 0; j < k; j++) {
				uint64_t kj = (aff[j] >> 32 & 0xff) << 8 | (aff0_zero ? 0 : (aff[j] >> 16 & 0xff));
				if (kj == key)
					break;
			}
			if (j == k)
				npk++;
		}
		free(aff);
		return npk;
	}
	return 0;
}

struct pkg_witness {
	const char *name;
	int n;
};

/* arm64 kernels before cluster_id (5.16) without ACPI PPTT put a cluster
 * (DT cpu-map, MPIDR affinity level 1) in physical_package_id and the
 * package masks, so the kernel's count of more than one package is a
 * witness only where cluster_id or a PPTT shows that clusters are kept
 * apart.  The others: the groups that a last-level cache, a NUMA node or a
 * die spans (merged already, *merged of them), the device tree's sockets,
 * the SMBIOS sockets.  One count when they agree; -1 with a conflict when
 * they do not or when there is none. */
static int arm_packages(struct cpu_state *st, hwloc_bitmap_t *grp, int ng, int *merged, int smb)
{
	struct pkg_witness w[6];
	int nw = 0, i, j, cluster = st->nc > 0, dt, mp, agree = 1;
	struct path_cxt pc = st->pc;
	char **names = NULL;
	size_t n = 0, k;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	struct strbuf sb = STRBUF_INIT;
	/* NUMA nodes do not span packages. */
	if (pc_list(&pc, &names, &n, "/sys/devices/system/node") == 0) {
		for (k = 0; k < n; k++) {
			int sp;
			if (strncmp(names[k], "node", 4) || !isdigit((unsigned char)names[k][4]))
				continue;
			if (pc_read_cpulist(&pc, s, "/sys/devices/system/node/%s/cpulist", names[k]) < 0)
				continue;
			hwloc_bitmap_and(s, s, st->online);
			if ((sp = merge_span(grp, ng, s, merged)) > 1) {
				char *l = cpulist_dup(s);
				pc_conflict(&st->pc, "packages", "NUMA node span", "package masks",
					       "NUMA %s (CPUs %s) spans %d of the kernel's packages: on arm64 "
					       "these are clusters of one chip", names[k], l, sp);
				free(l);
			}
		}
		sr_free_list(names, n);
	}
	/* Nor do dies (die_id -1: the kernel does not know the die). */
	for (i = 0; i < st->nc; i++) {
		int64_t die;
		int sp;
		if (pc_read_s64(&pc, &die, "cpu%d/topology/die_id", st->c[i].id) < 0 || die < 0)
			continue;
		if (pc_read_cpulist(&pc, s, "cpu%d/topology/die_cpus_list", st->c[i].id) < 0)
			continue;
		hwloc_bitmap_and(s, s, st->online);
		if ((sp = merge_span(grp, ng, s, merged)) > 1) {
			char *l = cpulist_dup(s);
			pc_conflict(&st->pc, "packages", "die span", "package masks",
				       "die %" PRId64 " (CPUs %s) spans %d of the kernel's packages", die, l, sp);
			free(l);
		}
	}
	for (i = 0; i < st->nc && cluster; i++)
		cluster = pc_exists(&pc, "cpu%d/topology/cluster_id", st->c[i].id);
	if (cluster || pc_exists(&pc, "/sys/firmware/acpi/tables/PPTT"))
		w[nw++] = (struct pkg_witness){ cluster ? "the kernel's package masks (cluster_id "
						"keeps clusters apart)" : "the kernel's package masks "
						"(from the ACPI PPTT)", ng };
	if (*merged)
		w[nw++] = (struct pkg_witness){ "the last-level caches, NUMA nodes and dies that "
						"span the kernel's packages", ng - *merged };
	if ((dt = dt_sockets(st)) > 0)
		w[nw++] = (struct pkg_witness){ "the device tree's cpu-map", dt };
	if ((mp = dt_mpidr_packages(st)) > 0)
		w[nw++] = (struct pkg_witness){ "the MPIDR affinity of the device tree's cpu nodes", mp };
	if (smb > 0)
		w[nw++] = (struct pkg_witness){ "the SMBIOS processor records", smb };
	for (i = 0; i < nw; i++) {
		if (w[i].n != w[0].n)
			agree = 0;
		strbuf_addf(&sb, "%s%s: %d", i ? "; " : "", w[i].name, w[i].n);
	}
	hwloc_bitmap_free(s);
	if (nw == 0) {
		pc_gap(&st->pc, "packages", "the kernel gives %d package masks, which arm64 kernels "
			  "without cluster_id or an ACPI PPTT fill with clusters, and nothing else (a shared "
			  "cache, NUMA node, die, device tree cpu-map, SMBIOS) tells how many packages "
			  "there are", ng);
		strbuf_release(&sb);
		return -1;
	}
	if (!agree) {
		for (j = 1; j < nw; j++)
			if (w[j].n != w[0].n)
				break;
		pc_conflict(&st->pc, "packages", w[0].name, w[j].name,
			       "the package count cannot be settled: %s", sb.buf);
		pc_gap(&st->pc, "packages", "the witnesses of the package count disagree (%s)", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	pc_evidence_of(&st->pc, "packages", sb.buf);
	strbuf_release(&sb);
	return w[0].n;
}

/* The state cpu_count_packages()'s steps share. */
struct pkg_count {
	hwloc_bitmap_t *grp;     /* the kernel's package masks, distinct (NULL: merged away) */
	int64_t *ids;            /* the distinct physical_package_id values */
	int ng, masks, nid, ids_ok, ids_neg, n;
	int merged, smb, arm_n;
	const char *src;
};

/* The distinct package masks, when every online CPU has one and they
 * partition the CPUs (masks 0 otherwise). */
static void pkg_masks(struct cpu_state *st, struct pkg_count *pc)
{
	int i, j;
	for (i = 0; i < st->nc; i++)
		if (!st->c[i].pkgset)
			pc->masks = 0;
	for (i = 0; pc->masks && i < st->nc; i++) {
		for (j = 0; j < pc->ng && !hwloc_bitmap_isequal(pc->grp[j], st->c[i].pkgset); j++)
			if (hwloc_bitmap_intersects(pc->grp[j], st->c[i].pkgset))
				pc->masks = 0;      /* overlapping masks: not a partition */
		if (pc->masks && j == pc->ng)
			pc->grp[pc->ng++] = hwloc_bitmap_dup(st->c[i].pkgset);
	}
}

/* The distinct physical_package_id values (ids_ok 0 when some CPU has
 * none, or -1). */
static void pkg_ids(struct cpu_state *st, struct pkg_count *pc)
{
	int i, k;
	for (i = 0; i < st->nc; i++) {
		if (!st->c[i].pkg_ok) {
			pc->ids_ok = 0;
			continue;
		}
		if (st->c[i].pkg < 0) {
			pc->ids_neg++;
			continue;
		}
		for (k = 0; k < pc->nid && pc->ids[k] != st->c[i].pkg; k++)
			;
		if (k == pc->nid)
			pc->ids[pc->nid++] = st->c[i].pkg;
	}
	if (pc->ids_neg)
		pc->ids_ok = 0;
}

/* A last-level cache shared across the kernel's packages: on arm64
 * the "packages" are clusters of one chip, merged here; elsewhere the
 * disagreement is only reported. */
static void pkg_llc_merge(struct cpu_state *st, struct pkg_count *pc)
{
	int i, j, lvl;
	hwloc_bitmap_t llc = hwloc_bitmap_alloc(), done = hwloc_bitmap_alloc();
	for (i = 0; pc->masks && pc->ng > 1 && i < st->nc; i++) {
		int first = -1, span = 0;
		if (hwloc_bitmap_isset(done, st->c[i].id) || !(lvl = llc_span(st, st->c[i].id, llc)))
			continue;
		hwloc_bitmap_or(done, done, llc);
		for (j = 0; j < pc->ng; j++)
			if (pc->grp[j] && hwloc_bitmap_intersects(pc->grp[j], llc)) {
				span++;
				if (first < 0)
					first = j;
				else if (st->arm) {
					hwloc_bitmap_or(pc->grp[first], pc->grp[first], pc->grp[j]);
					hwloc_bitmap_free(pc->grp[j]);
					pc->grp[j] = NULL;
					pc->merged++;
				}
			}
		if (span > 1) {
			char *l = cpulist_dup(llc);
			pc_conflict(&st->pc, "packages", st->arm ? "last-level cache span" : "package masks",
				       st->arm ? "package masks" : "last-level cache span",
				       "the L%d cache of CPUs %s spans %d of the kernel's packages%s", lvl, l, span,
				       st->arm ? ": on arm64 these are clusters of one chip, counted as one package"
				       : "");
			free(l);
		}
	}
	hwloc_bitmap_free(llc);
	hwloc_bitmap_free(done);
}

/* The count (n, and src its evidence): the masks (on arm64 with the
 * witnesses of arm_packages()), else the ids. */
static void pkg_decide(struct cpu_state *st, struct pkg_count *pc)
{
	if (pc->masks && st->arm && pc->ng > 1) {
		pc->smb = smbios_sockets(st);
		pc->arm_n = arm_packages(st, pc->grp, pc->ng, &pc->merged, pc->smb);
	}
	if (pc->masks && pc->arm_n < 0) {
		pc->n = -1;
		if (pc->ids_ok && pc->nid > 0)
			pc_evidence_of(&st->pc, "packages", "physical_package_id is not a witness on arm64 "
				       "(a cluster id on kernels without cluster_id)");
	} else if (pc->masks) {
		pc->n = pc->arm_n > 0 ? pc->arm_n : pc->ng - pc->merged;
		pc->src = CPUDIR "/cpu*/topology/{package_cpus_list,core_siblings_list}";
		if (pc->ids_ok && pc->nid != pc->n)
			pc_conflict(&st->pc, "packages", "package masks", "physical_package_id",
				       "physical_package_id gives %d distinct id%s, %s %d package%s", pc->nid,
				       pc->nid == 1 ? "" : "s", pc->arm_n > 0 ? "the arm64 witnesses (see the evidence)"
				       : pc->merged ? "the kernel's package masks (package_cpus, core_siblings) and the "
				       "last-level cache" : "the kernel's package masks (package_cpus, core_siblings)",
				       pc->n, pc->n == 1 ? "" : "s");
		else if (pc->ids_neg == st->nc)
			pc_evidence_of(&st->pc, "packages", "physical_package_id is -1 (no package id): "
				       "counted from the package masks");
	} else if (pc->ids_ok) {
		pc->n = pc->nid;
		pc->src = st->c[0].pkg_ok == 2 ? "/proc/cpuinfo" : CPUDIR "/cpu*/topology/physical_package_id";
	}
}

/* cpu.packages, with its evidence or gap. */
static void pkg_fact(struct cpu_state *st, cJSON *cpu, const struct pkg_count *pc)
{
	fj_num_or_null(cpu, "packages", pc->n > 0, pc->n);
	if (pc->n > 0)
		pc_evidence_of(&st->pc, "packages", pc->src);
	else if (pc->arm_n < 0)
		;   /* arm_packages() said why */
	else if (!st->bad_pkg)
		pc_gap(&st->pc, "packages", "%s", pc->ids_neg
			  ? "physical_package_id is -1 (the kernel does not know the package) and there are no "
			    "package masks (package_cpus, core_siblings) to count"
			  : "no package masks or physical_package_id in " CPUDIR "/cpu*/topology and no "
			    "physical id in /proc/cpuinfo");
}

/* The SMBIOS sockets against the count. */
static void pkg_vs_smbios(struct cpu_state *st, struct pkg_count *pc)
{
	if (pc->smb == -2)
		pc->smb = pc->n > 0 ? smbios_sockets(st) : -1;
	if (pc->n > 0 && pc->arm_n == 0 && pc->smb > 0 && pc->smb != pc->n)
		pc_conflict(&st->pc, "packages", "sysfs", "SMBIOS processor records",
			       "the SMBIOS table has %d populated processor socket%s, the kernel %d package%s",
			       pc->smb, pc->smb == 1 ? "" : "s", pc->n, pc->n == 1 ? "" : "s");
}

/* hwloc 2.x's Linux backend makes one Package object per distinct
 * package mask (package_cpus, or core_siblings on older kernels) of the
 * online CPUs; physical_package_id only labels it (look_sysfscpu() in
 * topology-linux.c).  So where the masks partition the online CPUs and
 * our count is theirs (no cache, die or arm64 witness changed it), its
 * count is ours by construction, whatever the ids say (their
 * disagreement is our own conflict already), and it is not loaded to
 * read the same masks again. */
static void pkg_vs_hwloc(struct cpu_state *st, const struct pkg_count *pc)
{
	int masks = pc->masks, merged = pc->merged, n = pc->n;
	if (n > 0 && probe_hwloc_asked(masks && !merged && pc->ng == n)) {
		hwloc_topology_t t = probe_topology_for(
			st->ctx, "the package count",
			!masks ? "no package masks that partition the online CPUs"
			: merged ? "a cache spans packages"
			: pc->ng != n ? "the arm64 witnesses count otherwise than the package masks"
			: "NODEAUDIT_HWLOC_ALWAYS is set");
		int hp = 0;
		hwloc_obj_t o = NULL;
		hwloc_bitmap_t s = hwloc_bitmap_alloc();
		while (t && (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, o))) {
			hwloc_bitmap_copy(s, o->cpuset);
			hp += hwloc_bitmap_intersects(s, st->online);
		}
		hwloc_bitmap_free(s);
		if (hp > 0 && hp != n)
			pc_conflict(&st->pc, "packages", "sysfs", "hwloc",
				       "hwloc counts %d package%s, sysfs %d", hp, hp == 1 ? "" : "s", n);
	}
}

/* Packages (sockets), counted as lscpu counts them: the distinct package
 * masks (package_cpus, core_siblings) of the online CPUs.  Not
 * physical_package_id, which some kernels fill with a cluster id (older
 * arm64), with -1 (sparc64, POWER) or with one id for CPUs of different
 * packages (Itanium).  The ids, the last-level cache span, the SMBIOS
 * sockets and hwloc cross-check the count; every disagreement is a
 * conflict.  Without masks the ids decide; without either, null. */
void cpu_count_packages(struct cpu_state *st, cJSON *cpu)
{
	struct pkg_count pc = {
		.grp = xcalloc((size_t)st->nc + 1, sizeof(*pc.grp)),
		.ids = xcalloc((size_t)st->nc + 1, sizeof(*pc.ids)),
		.masks = st->nc > 0, .ids_ok = st->nc > 0, .n = -1, .smb = -2,
	};
	int j;

	pkg_masks(st, &pc);
	pkg_ids(st, &pc);
	pkg_llc_merge(st, &pc);
	pkg_decide(st, &pc);
	pkg_fact(st, cpu, &pc);
	pkg_vs_smbios(st, &pc);
	pkg_vs_hwloc(st, &pc);
	for (j = 0; j < pc.ng; j++)
		hwloc_bitmap_free(pc.grp[j]);
	free(pc.grp);
	free(pc.ids);
}

/* The online CPUs of each package, by first CPU (for the drawings): the
 * kernel's package masks, else the package ids; null when they do not give
 * as many packages as cpu.packages says (whose gap or conflict says why). */
void cpu_package_cpus(struct cpu_state *st, cJSON *cpu)
{
	const cJSON *np = cJSON_GetObjectItemCaseSensitive(cpu, "packages");
	hwloc_bitmap_t grp[256];
	int64_t ids[256];
	int ng = 0, i, j, ok = st->nc > 0;
	for (i = 0; i < st->nc && ok; i++) {
		const struct pcpu *c = &st->c[i];
		for (j = 0; j < ng; j++)
			if (c->pkgset ? hwloc_bitmap_isset(grp[j], (unsigned)c->id) ||
					hwloc_bitmap_isequal(grp[j], c->pkgset)
				      : c->pkg_ok && c->pkg >= 0 && ids[j] == c->pkg)
				break;
		if (j == ng) {
			if (ng == (int)ARRAY_SIZE(grp) || (!c->pkgset && !(c->pkg_ok && c->pkg >= 0))) {
				ok = 0;
				break;
			}
			grp[ng] = c->pkgset ? hwloc_bitmap_dup(c->pkgset) : hwloc_bitmap_alloc();
			ids[ng++] = c->pkg;
		}
		hwloc_bitmap_set(grp[j], (unsigned)c->id);
	}
	if (ok && cJSON_IsNumber(np) && np->valueint == ng) {
		cJSON *arr = cJSON_AddArrayToObject(cpu, "package_cpus");
		for (j = 1; j < ng; j++)   /* by first CPU */
			for (i = j; i > 0 && hwloc_bitmap_first(grp[i]) < hwloc_bitmap_first(grp[i - 1]); i--) {
				hwloc_bitmap_t t = grp[i];
				grp[i] = grp[i - 1];
				grp[i - 1] = t;
			}
		for (j = 0; j < ng; j++) {
			/* Whole: a package of 1024 interleaved CPUs is a list
			 * of 4.5 KB (a buffer cut it mid-number). */
			char *l;
			hwloc_bitmap_and(grp[j], grp[j], st->online);
			l = cpulist_dup(grp[j]);
			cJSON_AddItemToArray(arr, cJSON_CreateString(l));
			free(l);
		}
		pc_evidence_of(&st->pc, "package_cpus", CPUDIR "/cpu*/topology/{package_cpus_list,physical_package_id}");
	} else {
		fj_set(cpu, "package_cpus", cJSON_CreateNull());
		pc_gap(&st->pc, "package_cpus", "the CPUs of each package are unknown (see cpu.packages)");
	}
	for (j = 0; j < ng; j++)
		hwloc_bitmap_free(grp[j]);
}
