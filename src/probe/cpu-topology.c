/* probe/cpu-topology.c - per-CPU sysfs: online, ids, siblings, cpufreq, MIDR; cores */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* First failure per fact only, so a 1024-CPU garbled capture gives one
 * gap: the file st->pc named last. */
static void gap_once(struct cpu_state *st, int *done, const char *key, int err)
{
	if (*done)
		return;
	*done = 1;
	pc_gap_read(&st->pc, key, err);
}

static int is_cpu_dir(const char *name, int *id)
{
	uint64_t v;
	if (strncmp(name, "cpu", 3) || !isdigit((unsigned char)name[3]))
		return 0;
	if (parse_u64(name + 3, &v) || v >= SR_MAX_CPUS)
		return 0;
	*id = (int)v;
	return 1;
}

/* Online CPUs: cpu/online, else the cpuN directories (cpuN/online = 0 drops
 * one), else the processors /proc/cpuinfo lists. */
void cpu_read_online(struct cpu_state *st, const struct cpuinfo *ci)
{
	struct path_cxt *pc = &st->pc;
	char **names = NULL;
	size_t n = 0, i;
	int r = pc_read_cpulist(pc, st->online, "online");
	if (r == 0 && !hwloc_bitmap_iszero(st->online)) {
		pc_evidence(pc, "online");
		return;
	}
	if (r != -ENOENT)
		pc_gap_read(pc, "online", r ? r : -EINVAL);
	hwloc_bitmap_zero(st->online);
	if (pc_list(pc, &names, &n, "%s", pc->dir) == 0) {
		for (i = 0; i < n; i++) {
			int id;
			uint64_t on;
			if (!is_cpu_dir(names[i], &id))
				continue;
			if (pc_read_u64(pc, &on, "cpu%d/online", id) == 0 && on == 0)
				continue;
			hwloc_bitmap_set(st->online, id);
		}
		sr_free_list(names, n);
	}
	if (!hwloc_bitmap_iszero(st->online)) {
		pc_evidence_of(pc, "online", CPUDIR "/cpu*/ (no cpu/online file: the CPU "
			       "directories present, less those with online = 0)");
		return;
	}
	for (i = 0; i < ci->n; i++)
		hwloc_bitmap_set(st->online, ci->p[i].id);
	if (!hwloc_bitmap_iszero(st->online))
		pc_evidence_of(pc, "online", "/proc/cpuinfo (no CPU directories in sysfs)");
}

/* The order a CPU's names are tried in: the one the last CPU answered to
 * (pref) first, then the kernel's own order, newest first -- as hwloc
 * settles the names once, from the first CPU.  A 2.6 kernel has only the
 * masks, and every other CPU then skips the four names it lacks. */
static size_t try_order(size_t k, int pref)
{
	if (k == 0)
		return (size_t)pref;
	return k <= (size_t)pref ? k - 1 : k;
}

static int read_sib(struct cpu_state *st, struct pcpu *p)
{
	static const char *const names[] = { "core_cpus_list", "thread_siblings_list", "core_cpus",
					     "thread_siblings" };
	size_t k;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	for (k = 0; k < ARRAY_SIZE(names); k++) {
		size_t i = try_order(k, st->sib_pref);
		int r;
		r = i < 2 ? pc_read_cpulist(&st->pc, s, "cpu%d/topology/%s", p->id, names[i])
			  : pc_read_cpumask(&st->pc, s, "cpu%d/topology/%s", p->id, names[i]);
		if (r == 0 && hwloc_bitmap_isset(s, p->id)) {
			hwloc_bitmap_and(s, s, st->online);
			p->sib = s;
			st->sib_pref = (int)i;
			return 0;
		}
		if (r == 0 || (r != -ENOENT))
			r = r ? r : -EINVAL;
		if (r != -ENOENT) {
			hwloc_bitmap_free(s);
			return r;      /* garbled: do not try the next name */
		}
	}
	hwloc_bitmap_free(s);
	return -ENOENT;
}

/* The kernel's package mask of a CPU: package_cpus_list (5.x), else
 * core_siblings_list, else the hex masks (in try_order()).  One that does
 * not hold the CPU itself is garbled and ignored (the count then falls
 * back to the ids). */
static void read_pkgset(struct cpu_state *st, struct pcpu *p)
{
	static const char *const names[] = { "package_cpus_list", "core_siblings_list",
					     "package_cpus", "core_siblings" };
	size_t k;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	for (k = 0; k < ARRAY_SIZE(names); k++) {
		size_t i = try_order(k, st->pkg_pref);
		int r;
		r = i < 2 ? pc_read_cpulist(&st->pc, s, "cpu%d/topology/%s", p->id, names[i])
			  : pc_read_cpumask(&st->pc, s, "cpu%d/topology/%s", p->id, names[i]);
		if (r == -ENOENT)
			continue;
		if (r == 0 && hwloc_bitmap_isset(s, p->id)) {
			hwloc_bitmap_and(s, s, st->online);
			p->pkgset = s;
			st->pkg_pref = (int)i;
			return;
		}
		break;
	}
	hwloc_bitmap_free(s);
}

/* A CPU without a cpufreq directory of its own (old kernels linked it to
 * the policy owner's, and captures may drop the link) has the clocks of
 * the CPU whose policy lists it in related_cpus. */
static void policy_share(struct cpu_state *st)
{
	int i, j;
	for (i = 0; i < st->nc; i++) {
		struct pcpu *p = &st->c[i];
		if (p->max_khz)
			continue;
		for (j = 0; j < st->nc; j++) {
			struct pcpu *o = &st->c[j];
			if (j == i || !o->policy || !hwloc_bitmap_isset(o->policy, (unsigned)p->id))
				continue;
			p->max_khz = o->max_khz;
			if (!p->base_khz)
				p->base_khz = o->base_khz;
			if (!p->driver && o->driver)
				p->driver = xstrdup(o->driver);
			if (!p->governor && o->governor)
				p->governor = xstrdup(o->governor);
			break;
		}
	}
}

/* arm64: the CPU's part (implementer << 12 | part) from its MIDR_EL1, else
 * from its own /proc/cpuinfo block. */
static void read_midr(struct cpu_state *st, const struct cpuinfo *ci, const struct ci_proc *cp, struct pcpu *p)
{
	char *m = NULL;
	uint64_t midr;
	if (pc_read_str(&st->pc, &m, "cpu%d/regs/identification/midr_el1", p->id) == 0 &&
	    sscanf(m, "%" SCNx64, &midr) == 1 && midr)
		p->part = (long)(((midr >> 24) & 0xff) << 12 | ((midr >> 4) & 0xfff));
	free(m);
	/* Only a processor's own block names its MIDR: a global or shared
	 * one is the reading CPU's (ci_share_blocks). */
	if (p->part < 0 && cp && !cp->shared) {
		long impl = cp->implementer >= 0 ? cp->implementer : ci->g.implementer;
		long part = cp->part;
		if (impl >= 0 && impl <= 0xff && part >= 0 && part <= 0xfff)
			p->part = impl << 12 | part;
	}
}

void cpu_read_cpus(struct cpu_state *st, const struct cpuinfo *ci)
{
	struct path_cxt *pc = &st->pc;
	int id, k = 0;
	int bad_sib = 0, bad_freq = 0, bad_cache = 0, bad_cap = 0;
	int *bad_pkg = &st->bad_pkg, *bad_core = &st->bad_core;
	st->nc = hwloc_bitmap_weight(st->online);
	st->c = xcalloc(st->nc ? st->nc : 1, sizeof(*st->c));
	hwloc_bitmap_foreach_begin(id, st->online) {
		struct pcpu *p = &st->c[k++];
		uint64_t v;
		int64_t s;
		int r;
		const struct ci_proc *cp = ci_find(ci, id);
		p->id = id;
		p->part = -1;
		r = pc_read_s64(pc, &s, "cpu%d/topology/physical_package_id", id);
		if (r == 0) {
			p->pkg = s;
			p->pkg_ok = 1;
		} else if (r != -ENOENT)
			gap_once(st, bad_pkg, "packages", r);
		if (!p->pkg_ok && cp && cp->phys >= 0) {
			p->pkg = cp->phys;
			p->pkg_ok = 2;
		}
		r = pc_read_s64(pc, &s, "cpu%d/topology/core_id", id);
		if (r == 0) {
			p->core_id = s;
			p->core_ok = 1;
		} else if (r != -ENOENT)
			gap_once(st, bad_core, "cores", r);
		if (!p->core_ok && cp && cp->coreid >= 0) {
			p->core_id = cp->coreid;
			p->core_ok = 2;
		}
		read_pkgset(st, p);
		r = read_sib(st, p);
		if (r < 0 && r != -ENOENT) {
			pc_name(pc, "cpu%d/topology/thread_siblings_list", id);
			gap_once(st, *bad_core ? &bad_sib : bad_core, "cores", r);
		}
		if ((r = pc_read_u64(pc, &v, "cpu%d/cpufreq/base_frequency", id)) == 0 && v)
			p->base_khz = v;
		else if (r != -ENOENT)
			gap_once(st, &bad_freq, "base_mhz", r ? r : -EINVAL);
		/* ACPI CPPC's nominal frequency (MHz; Documentation/admin-guide/
		 * acpi/cppc_sysfs.rst): the base frequency of arm64 servers
		 * (Kunpeng, Altra, Graviton, Grace), where no intel_pstate is. */
		else if ((r = pc_read_u64(pc, &v, "cpu%d/acpi_cppc/nominal_freq", id)) == 0 && v &&
			 v < 100000) {
			p->base_khz = v * 1000;
			st->base_cppc = 1;
		} else if (r != -ENOENT)
			gap_once(st, &bad_freq, "base_mhz", r ? r : -EINVAL);
		if ((r = pc_read_u64(pc, &v, "cpu%d/cpufreq/cpuinfo_max_freq", id)) == 0 && v)
			p->max_khz = v;
		else if (r != -ENOENT)
			gap_once(st, &bad_freq, "max_mhz", r ? r : -EINVAL);
		if ((r = pc_read_u64(pc, &v, "cpu%d/cpu_capacity", id)) == 0 && v)
			p->capacity = v;
		else if (r != -ENOENT)
			gap_once(st, &bad_cap, "kinds", r ? r : -EINVAL);
		if (p->max_khz) {
			static const char *const pol[] = { "related_cpus", "affected_cpus" };
			size_t q;
			p->policy = hwloc_bitmap_alloc();
			for (q = 0; q < ARRAY_SIZE(pol); q++)
				if (pc_read_cpulist(pc, p->policy, "cpu%d/cpufreq/%s", id, pol[q]) == 0 &&
				    hwloc_bitmap_isset(p->policy, (unsigned)id))
					break;
			if (q == ARRAY_SIZE(pol)) {
				hwloc_bitmap_free(p->policy);
				p->policy = NULL;
			}
		}
		if (pc_read_str(pc, &p->driver, "cpu%d/cpufreq/scaling_driver", id) < 0 || !*p->driver) {
			free(p->driver);
			p->driver = NULL;
		}
		if (pc_read_str(pc, &p->governor, "cpu%d/cpufreq/scaling_governor", id) < 0 || !*p->governor) {
			free(p->governor);
			p->governor = NULL;
		}
		if (st->arm)
			read_midr(st, ci, cp, p);
		cpu_read_caches(st, p, &bad_cache);
	} hwloc_bitmap_foreach_end();
	policy_share(st);
}

/* Cores: by the kernel's sibling lists; else by (package, core_id). */
void cpu_group_cores(struct cpu_state *st)
{
	int i, j, by_sib = 1, by_id = 1;
	st->cores = xcalloc(st->nc ? st->nc : 1, sizeof(*st->cores));
	st->ncores = 0;
	for (i = 0; i < st->nc; i++) {
		if (!st->c[i].sib)
			by_sib = 0;
		if (!st->c[i].core_ok || !st->c[i].pkg_ok)
			by_id = 0;
	}
	if (!by_sib && !by_id) {
		st->ncores = -1;
		return;
	}
	for (i = 0; i < st->nc; i++) {
		struct pcpu *p = &st->c[i];
		for (j = 0; j < i; j++) {
			struct pcpu *q = &st->c[j];
			if (by_sib ? hwloc_bitmap_isset(q->sib, p->id)
				   : (q->pkg == p->pkg && q->core_id == p->core_id))
				break;
		}
		if (j < i) {
			p->core = st->c[j].core;
			st->cores[p->core].nthreads++;
			if (p->max_khz > st->cores[p->core].max_khz)
				st->cores[p->core].max_khz = p->max_khz;
			continue;
		}
		p->core = st->ncores++;
		st->cores[p->core].first_cpu = p->id;
		st->cores[p->core].nthreads = 1;
		st->cores[p->core].base_khz = p->base_khz;
		st->cores[p->core].max_khz = p->max_khz;
		st->cores[p->core].capacity = p->capacity;
		st->cores[p->core].part = p->part;
	}
	/* How many cores share each core's L2. */
	for (i = 0; i < st->nc; i++) {
		struct pcpu *p = &st->c[i];
		int n = 0;
		if (st->cores[p->core].first_cpu != p->id || !p->l2)
			continue;
		for (j = 0; j < st->nc; j++)
			if (st->cores[st->c[j].core].first_cpu == st->c[j].id &&
			    hwloc_bitmap_isset(p->l2, st->c[j].id))
				n++;
		st->cores[p->core].l2_cores = n;
	}
}

/*
 * cpu.clusters and cpu.cluster_cpus (ARM): the kernel's clusters, CPUs
 * that share a level below the package (topology/cluster_cpus_list,
 * Linux 5.16 and later, from the ACPI PPTT or the device tree): on
 * Kunpeng 920 the 4 cores that share a slice of L3 tags, 32 in a
 * two-socket server.  One list per cluster, of its online CPUs, in the
 * order of their first CPU.  Where the firmware describes no cluster the
 * kernel gives each core its own, and that is what is said.
 */
void cpu_probe_clusters(struct cpu_state *st, cJSON *cpu)
{
	hwloc_bitmap_t *sets = NULL, s;
	size_t n = 0, i;
	int k, missing = -1;
	if (!st->arm || st->nc == 0)
		return;
	s = hwloc_bitmap_alloc();
	for (k = 0; k < st->nc && missing < 0; k++) {
		int id = st->c[k].id;
		hwloc_bitmap_zero(s);
		if (pc_read_cpulist(&st->pc, s, "cpu%d/topology/cluster_cpus_list", id) < 0 ||
		    !hwloc_bitmap_isset(s, (unsigned)id)) {
			missing = id;
			break;
		}
		hwloc_bitmap_and(s, s, st->online);
		for (i = 0; i < n && !hwloc_bitmap_isequal(sets[i], s); i++)
			;
		if (i == n) {
			sets = xrealloc(sets, (n + 1) * sizeof(*sets));
			sets[n++] = hwloc_bitmap_dup(s);
		}
	}
	if (missing >= 0) {
		fj_set(cpu, "clusters", cJSON_CreateNull());
		pc_gap(&st->pc, "clusters", "%s: missing or not listing the CPU (kernels before 5.16 do not say)",
		       st->pc.path);
	} else {
		cJSON *a = cJSON_CreateArray();
		fj_num(cpu, "clusters", (double)n);
		for (i = 0; i < n; i++) {
			char *l = cpulist_dup(sets[i]);
			cJSON_AddItemToArray(a, cJSON_CreateString(l));
			free(l);
		}
		fj_set(cpu, "cluster_cpus", a);
		pc_evidence_of(&st->pc, "clusters", CPUDIR "/cpu*/topology/cluster_cpus_list");
	}
	for (i = 0; i < n; i++)
		hwloc_bitmap_free(sets[i]);
	free(sets);
	hwloc_bitmap_free(s);
}
