/* probe/cpu.c - CPU facts: packages, cores, threads, SMT, core kinds, ISA,
 * caches, frequencies, virtualization.
 *
 * sysfs and /proc/cpuinfo are the primary sources (they replay from a
 * snapshot); hwloc's CPU kinds and libcpuid are cross-checks whose
 * disagreement is reported as a conflict, never silently preferred. */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/sources.h"
#include "probe/cpu-kinds.h"
#include "read/libcpuid.h"
#include "read/smbios.h"
#include "lib/output.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPUDIR "/sys/devices/system/cpu"

/* ---- /proc/cpuinfo ---- */

struct ci_proc {
	int id;
	char *vendor, *model, *flags;   /* flags: x86 "flags" or ARM "Features" */
	char *microcode;                 /* x86 "microcode" revision, as printed */
	long implementer, part;          /* -1 unknown */
	int64_t phys, coreid;            /* -1 unknown */
	int nfields;                     /* lines of its own block */
	int shared;                      /* its block is one printed for several */
};

struct cpuinfo {
	struct ci_proc *p;
	size_t n;
	struct ci_proc g;     /* lines outside any processor block (ARMv7) */
	int read_ok;
	int increasing;       /* ci_increasing(): 0 not asked, 1 yes, -1 no */
	/* The one (implementer << 12 | part) printed for several processors
	 * (a global or shared block), -1 none: the MIDR of whichever CPU read
	 * the file, not evidence for any other. */
	long one_part;
};

/* Whether the processor blocks are in strictly increasing order (asked
 * once, kept in ci->increasing). */
static int ci_increasing(const struct cpuinfo *ci)
{
	size_t i;
	if (ci->increasing)
		return ci->increasing > 0;
	for (i = 1; i < ci->n && ci->p[i - 1].id < ci->p[i].id; i++)
		;
	((struct cpuinfo *)ci)->increasing = i >= ci->n ? 1 : -1;
	return ci->increasing > 0;
}

static void ci_init_proc(struct ci_proc *p, int id)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->implementer = p->part = -1;
	p->phys = p->coreid = -1;
}

static void ci_set(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static void ci_copy(char **dst, const char *src)
{
	if (!*dst && src)
		*dst = xstrdup(src);
}

/* Older kernels (arm64 before 3.19, some 32-bit ARM) print every
 * "processor : N" line first and then one block for all of them: the run
 * of empty processors before a block shares it.  Its Features (the
 * kernel's hwcaps, one set for the system) apply to each; its CPU
 * implementer and part are the MIDR of the CPU that read the file, so they
 * are kept as one_part and belong to no processor. */
static void ci_share_blocks(struct cpuinfo *ci)
{
	size_t i = 0, j, k;
	ci->one_part = -1;
	while (i < ci->n) {
		for (j = i; j < ci->n && ci->p[j].nfields == 0; j++)
			;
		if (j > i && j < ci->n) {
			struct ci_proc *b = &ci->p[j];
			for (k = i; k <= j; k++) {
				ci->p[k].shared = 1;
				if (k == j)
					continue;
				ci_copy(&ci->p[k].vendor, b->vendor);
				ci_copy(&ci->p[k].model, b->model);
				ci_copy(&ci->p[k].flags, b->flags);
			}
			if (b->implementer >= 0 && b->part >= 0)
				ci->one_part = b->implementer << 12 | b->part;
		}
		i = j + 1;
	}
	if (ci->one_part < 0 && ci->g.implementer >= 0 && ci->g.part >= 0)
		ci->one_part = ci->g.implementer << 12 | ci->g.part;
}

static void ci_parse(struct cpuinfo *ci, char *buf)
{
	char *line, *next;
	struct ci_proc *cur = NULL;
	size_t alloc = 0;
	ci_init_proc(&ci->g, -1);
	/* A blank line ends a processor block: what follows (ARMv7's Features,
	 * CPU part, Hardware) is global. */
	for (line = buf; line; line = next) {
		char *colon, *k, *v;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		colon = strchr(line, ':');
		uint64_t u;
		int64_t s;
		if (!colon) {
			cur = NULL;
			continue;
		}
		*colon = '\0';
		k = strtrim(line);
		v = strsquash(colon + 1);
		if (!strcmp(k, "processor") && parse_u64(v, &u) == 0 && u < SR_MAX_CPUS) {
			if (ci->n == alloc) {
				alloc = alloc ? 2 * alloc : 64;
				ci->p = xrealloc(ci->p, alloc * sizeof(*ci->p));
			}
			cur = &ci->p[ci->n++];
			ci_init_proc(cur, (int)u);
			continue;
		}
		{
			struct ci_proc *p = cur ? cur : &ci->g;
			p->nfields++;
			if (!strcmp(k, "vendor_id"))
				ci_set(&p->vendor, v);
			else if (!strcmp(k, "model name") || !strcmp(k, "Processor"))
				ci_set(&p->model, v);
			else if (!strcmp(k, "flags") || !strcmp(k, "Features"))
				ci_set(&p->flags, v);
			else if (!strcmp(k, "microcode"))
				ci_set(&p->microcode, v);
			else if (!strcmp(k, "CPU implementer") && sscanf(v, "%li", &p->implementer) != 1)
				p->implementer = -1;
			else if (!strcmp(k, "CPU part") && sscanf(v, "%li", &p->part) != 1)
				p->part = -1;
			else if (!strcmp(k, "physical id") && parse_s64(v, &s) == 0)
				p->phys = s;
			else if (!strcmp(k, "core id") && parse_s64(v, &s) == 0)
				p->coreid = s;
		}
	}
	ci_share_blocks(ci);
}

static void ci_free(struct cpuinfo *ci)
{
	size_t i;
	for (i = 0; i < ci->n; i++) {
		free(ci->p[i].vendor);
		free(ci->p[i].model);
		free(ci->p[i].flags);
		free(ci->p[i].microcode);
	}
	free(ci->p);
	free(ci->g.vendor);
	free(ci->g.model);
	free(ci->g.flags);
	free(ci->g.microcode);
}

size_t cpuinfo_parse_count(const char *text)
{
	struct cpuinfo ci;
	char *buf = xstrdup(text);
	size_t n;
	memset(&ci, 0, sizeof(ci));
	ci_parse(&ci, buf);
	n = ci.n;
	ci_free(&ci);
	free(buf);
	return n;
}

static const struct ci_proc *ci_find(const struct cpuinfo *ci, int id)
{
	size_t i, lo = 0, hi = ci->n;
	/* The kernel lists processors in increasing order: where they are
	 * (p[] strictly increasing, checked at both ends of the search), a
	 * binary search finds the one block of id, so that 4096 CPUs do not
	 * cost 4096 squared.  Otherwise the first block of id, in order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ci->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ci->n && ci->p[lo].id == id && (lo == 0 || ci->p[lo - 1].id < id) &&
	    (lo + 1 == ci->n || ci->p[lo + 1].id > id) && ci_increasing(ci))
		return &ci->p[lo];
	for (i = 0; i < ci->n; i++)
		if (ci->p[i].id == id)
			return &ci->p[i];
	return NULL;
}

/* A field of a processor, or of the global block when it lacks it. */
static const char *ci_str(const struct cpuinfo *ci, const struct ci_proc *p, size_t off)
{
	const char *s = p ? *(char *const *)((const char *)p + off) : NULL;
	return s ? s : *(char *const *)((const char *)&ci->g + off);
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;
	while (p && (p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}

/* ---- per-CPU sysfs ---- */

struct pcpu {
	int id;
	int64_t pkg, core_id;
	int pkg_ok, core_ok;
	hwloc_bitmap_t sib;      /* online threads of its core, NULL unknown */
	hwloc_bitmap_t l2;       /* online CPUs sharing its L2, NULL unknown */
	hwloc_bitmap_t pkgset;   /* online CPUs of its package (kernel mask), NULL unknown */
	hwloc_bitmap_t policy;   /* cpufreq related_cpus: CPUs sharing its policy, NULL unknown */
	uint64_t base_khz, max_khz, capacity;
	long part;
	char *driver, *governor;
	int core;
};

struct cache_inst {
	int level;
	int first;              /* the set's first CPU: compared before the sets */
	hwloc_bitmap_t set;
	uint64_t size;
};

struct cpu_state {
	struct probe_ctx *ctx;
	struct sysroot *sr;
	struct facts *f;
	hwloc_bitmap_t online;
	struct pcpu *c;
	int nc;
	struct ck_core *cores;
	int ncores;           /* -1 unknown */
	struct cache_inst *ci;
	size_t nci, aci;
	int arm, x86;
	int bad_pkg, bad_core;   /* a gap names the garbled file already */
	long one_part;           /* cpuinfo's one MIDR for all CPUs, -1 none */
};

static int rd_u64(struct sysroot *sr, uint64_t *v, const char *fmt, int cpu)
{
	char path[160];
	snprintf(path, sizeof(path), fmt, cpu);
	return sr_read_u64(sr, path, v);
}

static int rd_str(struct sysroot *sr, char **v, const char *fmt, int cpu)
{
	char path[160];
	snprintf(path, sizeof(path), fmt, cpu);
	return sr_read_str(sr, path, v);
}

/* First failure per fact only, so a 1024-CPU garbled capture gives one gap. */
static void gap_once(struct facts *f, int *done, const char *fact, const char *fmt, int cpu, int err)
{
	char path[160];
	if (*done)
		return;
	*done = 1;
	snprintf(path, sizeof(path), fmt, cpu);
	facts_gap_read(f, fact, path, err);
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
static void read_online(struct cpu_state *st, const struct cpuinfo *ci)
{
	char **names = NULL;
	size_t n = 0, i;
	int r = sr_read_cpulist(st->sr, CPUDIR "/online", st->online);
	if (r == 0 && !hwloc_bitmap_iszero(st->online)) {
		facts_evidence(st->f, "cpu.online", CPUDIR "/online");
		return;
	}
	if (r != -ENOENT)
		facts_gap_read(st->f, "cpu.online", CPUDIR "/online", r ? r : -EINVAL);
	hwloc_bitmap_zero(st->online);
	if (sr_list(st->sr, CPUDIR, &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			int id;
			uint64_t on;
			if (!is_cpu_dir(names[i], &id))
				continue;
			if (rd_u64(st->sr, &on, CPUDIR "/cpu%d/online", id) == 0 && on == 0)
				continue;
			hwloc_bitmap_set(st->online, id);
		}
		sr_free_list(names, n);
	}
	if (!hwloc_bitmap_iszero(st->online)) {
		facts_evidence(st->f, "cpu.online", CPUDIR "/cpu*/ (no cpu/online file: the CPU "
			       "directories present, less those with online = 0)");
		return;
	}
	for (i = 0; i < ci->n; i++)
		hwloc_bitmap_set(st->online, ci->p[i].id);
	if (!hwloc_bitmap_iszero(st->online))
		facts_evidence(st->f, "cpu.online", "/proc/cpuinfo (no CPU directories in sysfs)");
}

static int read_sib(struct cpu_state *st, struct pcpu *p)
{
	static const char *const lists[] = { "core_cpus_list", "thread_siblings_list" };
	static const char *const masks[] = { "core_cpus", "thread_siblings" };
	char path[160];
	size_t i;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	for (i = 0; i < 4; i++) {
		int r;
		if (i < 2) {
			snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/%s", p->id, lists[i]);
			r = sr_read_cpulist(st->sr, path, s);
		} else {
			snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/%s", p->id, masks[i - 2]);
			r = sr_read_cpumask(st->sr, path, s);
		}
		if (r == 0 && hwloc_bitmap_isset(s, p->id)) {
			hwloc_bitmap_and(s, s, st->online);
			p->sib = s;
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

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	default: break;
	}
	return *end ? 0 : (uint64_t)v;
}

static void read_caches(struct cpu_state *st, struct pcpu *p, int *bad)
{
	char dir[128], path[192], **names = NULL, *s = NULL;
	size_t n = 0, i, j;
	snprintf(dir, sizeof(dir), CPUDIR "/cpu%d/cache", p->id);
	if (sr_list(st->sr, dir, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		uint64_t lvl, size;
		int r, instr, first;
		hwloc_bitmap_t set;
		if (strncmp(names[i], "index", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/level", dir, names[i]);
		if ((r = sr_read_u64(st->sr, path, &lvl)) < 0) {
			if (!*bad && r != -ENOENT) {
				*bad = 1;
				facts_gap_read(st->f, "cpu.caches", path, r);
			}
			continue;
		}
		if (lvl != 2 && lvl != 3)
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, names[i]);
		instr = sr_read_str(st->sr, path, &s) == 0 && !strcmp(s, "Instruction");
		free(s);
		s = NULL;
		if (instr)
			continue;
		snprintf(path, sizeof(path), "%s/%s/size", dir, names[i]);
		r = sr_read_str(st->sr, path, &s);
		size = r == 0 ? parse_size(s) : 0;
		free(s);
		s = NULL;
		if (!size) {
			if (!*bad) {
				*bad = 1;
				facts_gap_read(st->f, "cpu.caches", path, r ? r : -EINVAL);
			}
			continue;
		}
		set = hwloc_bitmap_alloc();
		snprintf(path, sizeof(path), "%s/%s/shared_cpu_list", dir, names[i]);
		r = sr_read_cpulist(st->sr, path, set);
		if (r == -ENOENT) {
			snprintf(path, sizeof(path), "%s/%s/shared_cpu_map", dir, names[i]);
			r = sr_read_cpumask(st->sr, path, set);
		}
		if (r < 0 || !hwloc_bitmap_isset(set, p->id)) {
			if (!*bad) {
				*bad = 1;
				facts_gap_read(st->f, "cpu.caches", path, r ? r : -EINVAL);
			}
			hwloc_bitmap_free(set);
			continue;
		}
		hwloc_bitmap_and(set, set, st->online);
		first = hwloc_bitmap_first(set);
		for (j = 0; j < st->nci; j++)
			if (st->ci[j].level == (int)lvl && st->ci[j].first == first &&
			    hwloc_bitmap_isequal(st->ci[j].set, set))
				break;
		if (j == st->nci) {
			if (st->nci == st->aci) {
				st->aci = st->aci ? 2 * st->aci : 16;
				st->ci = xrealloc(st->ci, st->aci * sizeof(*st->ci));
			}
			st->ci[j].level = (int)lvl;
			st->ci[j].first = first;
			st->ci[j].set = hwloc_bitmap_dup(set);
			st->ci[j].size = size;
			st->nci++;
		}
		if (lvl == 2 && !p->l2)
			p->l2 = hwloc_bitmap_dup(set);
		hwloc_bitmap_free(set);
	}
	sr_free_list(names, n);
}

/* The kernel's package mask of a CPU: package_cpus_list (5.x), else
 * core_siblings_list, else the hex masks.  One that does not hold the CPU
 * itself is garbled and ignored (the count then falls back to the ids). */
static void read_pkgset(struct cpu_state *st, struct pcpu *p)
{
	static const char *const names[] = { "package_cpus_list", "core_siblings_list",
					     "package_cpus", "core_siblings" };
	char path[160];
	size_t i;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int r;
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/%s", p->id, names[i]);
		r = i < 2 ? sr_read_cpulist(st->sr, path, s) : sr_read_cpumask(st->sr, path, s);
		if (r == -ENOENT)
			continue;
		if (r == 0 && hwloc_bitmap_isset(s, p->id)) {
			hwloc_bitmap_and(s, s, st->online);
			p->pkgset = s;
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

static void read_cpus(struct cpu_state *st, const struct cpuinfo *ci)
{
	int id, k = 0;
	int bad_sib = 0, bad_freq = 0, bad_cache = 0, bad_cap = 0;
	int *bad_pkg = &st->bad_pkg, *bad_core = &st->bad_core;
	st->nc = hwloc_bitmap_weight(st->online);
	st->c = xcalloc(st->nc ? st->nc : 1, sizeof(*st->c));
	hwloc_bitmap_foreach_begin(id, st->online) {
		struct pcpu *p = &st->c[k++];
		uint64_t v;
		int64_t s;
		char path[160];
		int r;
		const struct ci_proc *cp = ci_find(ci, id);
		p->id = id;
		p->part = -1;
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/physical_package_id", id);
		r = sr_read_s64(st->sr, path, &s);
		if (r == 0) {
			p->pkg = s;
			p->pkg_ok = 1;
		} else if (r != -ENOENT)
			gap_once(st->f, bad_pkg, "cpu.packages", CPUDIR "/cpu%d/topology/physical_package_id", id, r);
		if (!p->pkg_ok && cp && cp->phys >= 0) {
			p->pkg = cp->phys;
			p->pkg_ok = 2;
		}
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/core_id", id);
		r = sr_read_s64(st->sr, path, &s);
		if (r == 0) {
			p->core_id = s;
			p->core_ok = 1;
		} else if (r != -ENOENT)
			gap_once(st->f, bad_core, "cpu.cores", CPUDIR "/cpu%d/topology/core_id", id, r);
		if (!p->core_ok && cp && cp->coreid >= 0) {
			p->core_id = cp->coreid;
			p->core_ok = 2;
		}
		read_pkgset(st, p);
		r = read_sib(st, p);
		if (r < 0 && r != -ENOENT)
			gap_once(st->f, *bad_core ? &bad_sib : bad_core, "cpu.cores", CPUDIR "/cpu%d/topology/thread_siblings_list", id, r);
		if ((r = rd_u64(st->sr, &v, CPUDIR "/cpu%d/cpufreq/base_frequency", id)) == 0 && v)
			p->base_khz = v;
		else if (r != -ENOENT)
			gap_once(st->f, &bad_freq, "cpu.base_mhz", CPUDIR "/cpu%d/cpufreq/base_frequency", id, r ? r : -EINVAL);
		if ((r = rd_u64(st->sr, &v, CPUDIR "/cpu%d/cpufreq/cpuinfo_max_freq", id)) == 0 && v)
			p->max_khz = v;
		else if (r != -ENOENT)
			gap_once(st->f, &bad_freq, "cpu.max_mhz", CPUDIR "/cpu%d/cpufreq/cpuinfo_max_freq", id, r ? r : -EINVAL);
		if ((r = rd_u64(st->sr, &v, CPUDIR "/cpu%d/cpu_capacity", id)) == 0 && v)
			p->capacity = v;
		else if (r != -ENOENT)
			gap_once(st->f, &bad_cap, "cpu.kinds", CPUDIR "/cpu%d/cpu_capacity", id, r ? r : -EINVAL);
		if (p->max_khz) {
			static const char *const pol[] = { "related_cpus", "affected_cpus" };
			size_t q;
			p->policy = hwloc_bitmap_alloc();
			for (q = 0; q < ARRAY_SIZE(pol); q++) {
				snprintf(path, sizeof(path), CPUDIR "/cpu%d/cpufreq/%s", id, pol[q]);
				if (sr_read_cpulist(st->sr, path, p->policy) == 0 &&
				    hwloc_bitmap_isset(p->policy, (unsigned)id))
					break;
			}
			if (q == ARRAY_SIZE(pol)) {
				hwloc_bitmap_free(p->policy);
				p->policy = NULL;
			}
		}
		if (rd_str(st->sr, &p->driver, CPUDIR "/cpu%d/cpufreq/scaling_driver", id) < 0 || !*p->driver) {
			free(p->driver);
			p->driver = NULL;
		}
		if (rd_str(st->sr, &p->governor, CPUDIR "/cpu%d/cpufreq/scaling_governor", id) < 0 ||
		    !*p->governor) {
			free(p->governor);
			p->governor = NULL;
		}
		if (st->arm) {
			char *m = NULL;
			uint64_t midr;
			if (rd_str(st->sr, &m, CPUDIR "/cpu%d/regs/identification/midr_el1", id) == 0 &&
			    sscanf(m, "%" SCNx64, &midr) == 1 && midr)
				p->part = (long)(((midr >> 24) & 0xff) << 12 | ((midr >> 4) & 0xfff));
			free(m);
			/* Only a processor's own block names its MIDR: a global
			 * or shared one is the reading CPU's (ci_share_blocks). */
			if (p->part < 0 && cp && !cp->shared) {
				long impl = cp->implementer >= 0 ? cp->implementer : ci->g.implementer;
				long part = cp->part;
				if (impl >= 0 && impl <= 0xff && part >= 0 && part <= 0xfff)
					p->part = impl << 12 | part;
			}
		}
		read_caches(st, p, &bad_cache);
	} hwloc_bitmap_foreach_end();
	policy_share(st);
}

/* Cores: by the kernel's sibling lists; else by (package, core_id). */
static void group_cores(struct cpu_state *st)
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

/* ---- facts ---- */

static const char *vendor_name(const char *vendor_id, long implementer)
{
	static const struct { const char *id; const char *name; } x86[] = {
		{ "GenuineIntel", "Intel" }, { "AuthenticAMD", "AMD" }, { "HygonGenuine", "Hygon" },
		{ "CentaurHauls", "Centaur" }, { "Shanghai", "Zhaoxin" }, { "GenuineTMx86", "Transmeta" },
	};
	static const struct { long id; const char *name; } arm[] = {
		{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "Fujitsu" },
		{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x50, "APM" }, { 0x51, "Qualcomm" },
		{ 0x53, "Samsung" }, { 0x56, "Marvell" }, { 0x61, "Apple" }, { 0x69, "Intel" },
		{ 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
	};
	size_t i;
	if (vendor_id) {
		for (i = 0; i < ARRAY_SIZE(x86); i++)
			if (!strcmp(vendor_id, x86[i].id))
				return x86[i].name;
		return vendor_id;
	}
	for (i = 0; i < ARRAY_SIZE(arm); i++)
		if (arm[i].id == implementer)
			return arm[i].name;
	return NULL;
}

/* Whether a and b hold the same words (brand strings are space-padded). */
static int same_words(const char *a, const char *b)
{
	char *x = xstrdup(a), *y = xstrdup(b);
	int same = !strcmp(strsquash(x), strsquash(y));
	free(x);
	free(y);
	return same;
}

#include "read/libcpuid-rows.h"

/* Whether libcpuid's codename is its own row for this CPU, not a guess.
 * libcpuid scores every row of its table and returns the best one's name
 * even when no row is of this model: Ice Lake-SP (model 106, no row in
 * 0.6.2) comes out "P-III Xeon (Cascades)", a Rocket Lake VM with a plain
 * "Xeon" brand "Xeon (Wolfdale)".  So the name must be that of a row of
 * this very model (lc_rows), and not of a model it misnames (the hybrids,
 * whose names it mixes up; Zen 4 parts it calls "Raphael" whatever they
 * are).  Otherwise the codename is null with the reason (probe_cpu()). */
int codename_trusted(const struct cpuid_type *t)
{
	size_t i;
	int fam, xfam;
	if (!t->codename[0] || strstr(t->codename, "Unknown") || strstr(t->codename, "unknown"))
		return 0;
	if (t->intel) {
		if (t->family == 15)
			return 1;
		if (t->family != 6)
			return 0;
		/* Up to Comet/Rocket/Tiger Lake; not the hybrids, not Sapphire Rapids. */
		if (!(t->ext_model < 0x8f || t->ext_model == 0xa5 || t->ext_model == 0xa6 ||
		      t->ext_model == 0xa7))
			return 0;
		fam = 6;
		xfam = 6;
	} else if (t->amd) {
		if (t->ext_family < 0x17)
			return 1;
		if (t->ext_family == 0x19 &&
		    !((t->ext_model >= 0x00 && t->ext_model <= 0x0f) ||
		      (t->ext_model >= 0x20 && t->ext_model <= 0x3f) ||
		      (t->ext_model >= 0x50 && t->ext_model <= 0x5f)))
			return 0;
		fam = 15;
		xfam = t->ext_family;
	} else
		return 0;
	for (i = 0; i < ARRAY_SIZE(lc_rows); i++)
		if (lc_rows[i].family == fam && lc_rows[i].ext_family == xfam &&
		    lc_rows[i].key == t->ext_model && !strcmp(lc_rows[i].codename, t->codename))
			return 1;
	return 0;
}

static const char *purpose_name(int p)
{
	return p == 1 ? "performance" : p == 2 ? "efficiency" : "general";
}

/* libcpuid's view: from --cpuid-dump, the snapshot's copy, or live on x86. */
static int run_libcpuid(struct cpu_state *st, struct cpuid_info *info, const char **src)
{
	struct sysroot *sr = st->sr;
	const char *dump = st->ctx->opts->cpuid_dump;
	char *buf = NULL, *cut, tmpl[] = "/tmp/nodeaudit-cpuid.XXXXXX";
	size_t len = 0;
	int fd, r, kind;
	memset(info, 0, sizeof(*info));
	if (side_in_snapshot(st->ctx, SIDE_CPUID)) {
		r = sr_read(sr, side_sources[SIDE_CPUID].snapshot_path, &buf, &len);
		if (r < 0) {
			facts_gap_read(st->f, "cpu.libcpuid", side_sources[SIDE_CPUID].snapshot_path, r);
			return -1;
		}
		*src = "snapshot";
	} else if (dump) {
		r = side_read_option(st->ctx, SIDE_CPUID, &buf, &len);
		if (r < 0)
			return error("cannot read '%s': %s", dump, r == -EFBIG ? "larger than a CPUID dump can be" :
				     input_strerror(-r)) * 2;
		*src = "dump";
	} else if (sr->live) {
		*src = "live";
		r = st->ctx->cpuid.pid > 0 ? cpuid_wait(&st->ctx->cpuid, info, "this CPU")
					   : cpuid_collect(NULL, info);
		if (r == -ENOTSUP)
			return -1;   /* not x86: nothing to say */
		if (r < 0) {
			facts_gap(st->f, "cpu.libcpuid", "%s", info->err);
			return -1;
		}
		return 0;
	} else
		return -1;

	if (memchr(buf, '\0', len)) {
		facts_gap(st->f, "cpu.libcpuid", "'%s': unparsable (binary data in a CPUID dump)",
			  dump ? dump : "/nodeaudit/cpuid.raw");
		free(buf);
		return -1;
	}
	kind = cpuid_dump_kind(buf);
	if (kind != CPUID_DUMP_X86) {
		facts_gap(st->f, "cpu.libcpuid", "'%s': unsupported: %s", dump ? dump : "/nodeaudit/cpuid.raw",
			  kind == CPUID_DUMP_ARM ? "an ARM CPUID dump (this libcpuid reads x86 dumps only)"
			  : "not an x86 libcpuid raw dump");
		free(buf);
		return -1;
	}
	/* Test files carry expected values after a line of 80 dashes. */
	if ((cut = strstr(buf, "\n--------------------------------------------------------------------------------")))
		cut[1] = '\0';
	fd = mkstemp(tmpl);
	if (fd < 0 || write(fd, buf, strlen(buf)) != (ssize_t)strlen(buf)) {
		facts_gap(st->f, "cpu.libcpuid", "cannot write a temporary file: %s", strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmpl);
		}
		free(buf);
		return -1;
	}
	close(fd);
	free(buf);
	r = cpuid_collect(tmpl, info);
	unlink(tmpl);
	if (r < 0) {
		facts_gap(st->f, "cpu.libcpuid", "%s", info->err);
		return -1;
	}
	return 0;
}

static const struct { const char *flag, *name; } isa_x86[] = {
	{ "avx", "avx" }, { "avx2", "avx2" }, { "fma", "fma" }, { "f16c", "f16c" },
	{ "avx512f", "avx512f" }, { "avx512bw", "avx512bw" }, { "avx512vl", "avx512vl" },
	{ "avx512_vnni", "avx512_vnni" }, { "avx_vnni", "avx_vnni" }, { "avx512_bf16", "avx512_bf16" },
	{ "avx512_fp16", "avx512_fp16" }, { "amx_tile", "amx_tile" }, { "amx_int8", "amx_int8" },
	{ "amx_bf16", "amx_bf16" },
}, isa_arm[] = {
	{ "asimd", "neon" }, { "neon", "neon" }, { "asimddp", "dotprod" }, { "i8mm", "i8mm" },
	{ "sve", "sve" }, { "sve2", "sve2" }, { "bf16", "bf16" }, { "sme", "sme" },
};

/* Flags every online CPU has (kernels print the same list for all, but a
 * capture may be edited or truncated). */
static void probe_isa(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, const char **first)
{
	cJSON *a;
	size_t i, nt = st->x86 ? ARRAY_SIZE(isa_x86) : ARRAY_SIZE(isa_arm);
	int id, any = 0;
	hwloc_bitmap_t none = hwloc_bitmap_alloc();
	*first = NULL;
	if (!ci->read_ok) {
		fj_set(cpu, "isa", cJSON_CreateNull());
		hwloc_bitmap_free(none);
		return;   /* the gap for /proc/cpuinfo is already there */
	}
	hwloc_bitmap_foreach_begin(id, st->online) {
		const char *fl = ci_str(ci, ci_find(ci, id), offsetof(struct ci_proc, flags));
		if (fl) {
			any = 1;
			if (!*first)
				*first = fl;
		} else
			hwloc_bitmap_set(none, (unsigned)id);
	} hwloc_bitmap_foreach_end();
	if (!any || (!st->x86 && !st->arm)) {
		fj_set(cpu, "isa", cJSON_CreateNull());
		facts_gap(st->f, "cpu.isa", any ? "/proc/cpuinfo: the architecture is neither x86 nor ARM"
			  : "/proc/cpuinfo: no flags or Features line");
		hwloc_bitmap_free(none);
		return;
	}
	/* An online CPU without flags (no block of its own, none shared) is
	 * unknown, not a CPU that lacks them: what all CPUs have is unknown. */
	if (!hwloc_bitmap_iszero(none)) {
		char b[256];
		fj_set(cpu, "isa", cJSON_CreateNull());
		facts_gap(st->f, "cpu.isa", "/proc/cpuinfo has no flags or Features for online CPU%s %s",
			  hwloc_bitmap_weight(none) == 1 ? "" : "s", cpulist_str(none, b, sizeof(b)));
		hwloc_bitmap_free(none);
		return;
	}
	hwloc_bitmap_free(none);
	a = cJSON_CreateArray();
	for (i = 0; i < nt; i++) {
		const char *flag = st->x86 ? isa_x86[i].flag : isa_arm[i].flag;
		const char *name = st->x86 ? isa_x86[i].name : isa_arm[i].name;
		int all = 1, dup = 0;
		const cJSON *e;
		hwloc_bitmap_foreach_begin(id, st->online) {
			const char *fl = ci_str(ci, ci_find(ci, id), offsetof(struct ci_proc, flags));
			if (!fl || !has_word(fl, flag))
				all = 0;
		} hwloc_bitmap_foreach_end();
		cJSON_ArrayForEach(e, a)
			if (!strcmp(e->valuestring, name))
				dup = 1;
		if (all && !dup)
			cJSON_AddItemToArray(a, cJSON_CreateString(name));
	}
	fj_set(cpu, "isa", a);
	facts_evidence(st->f, "cpu.isa", "/proc/cpuinfo");
}

/* The instances of one level grouped by (size, CPUs sharing it), largest
 * first: a hybrid's L2 is 4 x 1.25 MiB for 2 CPUs + 2 x 2 MiB for 4. */
static void cache_groups(struct cpu_state *st, int lvl, cJSON *o)
{
	struct { uint64_t size; int cpus, n; } g[64];
	int ng = 0, j, k;
	size_t i;
	cJSON *arr;
	for (i = 0; i < st->nci; i++) {
		struct cache_inst *c = &st->ci[i];
		int w = hwloc_bitmap_weight(c->set);
		if (c->level != lvl)
			continue;
		for (j = 0; j < ng; j++)
			if (g[j].size == c->size && g[j].cpus == w)
				break;
		if (j == ng) {
			if (ng == (int)ARRAY_SIZE(g))
				continue;
			g[ng].size = c->size;
			g[ng].cpus = w;
			g[ng++].n = 0;
		}
		g[j].n++;
	}
	for (j = 1; j < ng; j++)   /* insertion sort: size, then CPUs, descending */
		for (k = j; k > 0 && (g[k].size > g[k - 1].size ||
				      (g[k].size == g[k - 1].size && g[k].cpus > g[k - 1].cpus)); k--) {
			__typeof__(g[0]) t = g[k];
			g[k] = g[k - 1];
			g[k - 1] = t;
		}
	arr = cJSON_AddArrayToObject(o, "groups");
	for (j = 0; j < ng; j++) {
		cJSON *e = cJSON_CreateObject();
		fj_num(e, "size_bytes", (double)g[j].size);
		fj_num(e, "instances", g[j].n);
		fj_num(e, "cpus_per_instance", g[j].cpus);
		cJSON_AddItemToArray(arr, e);
	}
}

static void probe_caches(struct cpu_state *st, cJSON *cpu)
{
	cJSON *caches = cJSON_AddObjectToObject(cpu, "caches");
	int lvl;
	for (lvl = 2; lvl <= 3; lvl++) {
		char key[4];
		uint64_t max = 0, total = 0;
		int inst = 0, per = 0, uniform = 1;
		size_t i;
		snprintf(key, sizeof(key), "l%d", lvl);
		for (i = 0; i < st->nci; i++) {
			struct cache_inst *c = &st->ci[i];
			int w = hwloc_bitmap_weight(c->set);
			if (c->level != lvl)
				continue;
			if (inst && c->size != max)
				uniform = 0;
			if (c->size > max)
				max = c->size;
			if (w > per)
				per = w;
			total += c->size;
			inst++;
		}
		if (!inst) {
			fj_set(caches, key, cJSON_CreateNull());
			facts_gap(st->f, lvl == 2 ? "cpu.caches.l2" : "cpu.caches.l3",
				  "no level-%d cache in " CPUDIR "/cpu*/cache", lvl);
			continue;
		}
		{
			cJSON *o = cJSON_AddObjectToObject(caches, key);
			fj_num(o, "size_bytes", (double)max);
			fj_num(o, "instances", inst);
			fj_num(o, "cpus_per_instance", per);
			fj_num(o, "total_bytes", (double)total);
			cJSON_AddBoolToObject(o, "uniform", uniform);
			cache_groups(st, lvl, o);
			/* Which CPUs share each instance (the drawings' L3 groups). */
			{
				cJSON *arr = cJSON_AddArrayToObject(o, "instance_cpus");
				char buf[4096];
				for (i = 0; i < st->nci; i++)
					if (st->ci[i].level == lvl)
						cJSON_AddItemToArray(arr, cJSON_CreateString(
							cpulist_str(st->ci[i].set, buf, sizeof(buf))));
			}
		}
	}
	facts_evidence(st->f, "cpu.caches", CPUDIR "/cpu*/cache/index*/{level,type,size,shared_cpu_list}");
}

/* The online CPUs of each package, by first CPU (for the drawings): the
 * kernel's package masks, else the package ids; null when they do not give
 * as many packages as cpu.packages says (whose gap or conflict says why). */
static void package_cpus(struct cpu_state *st, cJSON *cpu)
{
	const cJSON *np = cJSON_GetObjectItemCaseSensitive(cpu, "packages");
	hwloc_bitmap_t grp[256];
	int64_t ids[256];
	int ng = 0, i, j, ok = st->nc > 0;
	char buf[4096];
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
			hwloc_bitmap_and(grp[j], grp[j], st->online);
			cJSON_AddItemToArray(arr, cJSON_CreateString(cpulist_str(grp[j], buf, sizeof(buf))));
		}
		facts_evidence(st->f, "cpu.package_cpus", CPUDIR "/cpu*/topology/{package_cpus_list,physical_package_id}");
	} else {
		fj_set(cpu, "package_cpus", cJSON_CreateNull());
		facts_gap(st->f, "cpu.package_cpus", "the CPUs of each package are unknown (see cpu.packages)");
	}
	for (j = 0; j < ng; j++)
		hwloc_bitmap_free(grp[j]);
}

static void set_str_or_mixed(cJSON *o, const char *key, const char *const *vals, int n)
{
	int i;
	const char *v = NULL;
	for (i = 0; i < n; i++) {
		if (!vals[i])
			continue;
		if (v && strcmp(v, vals[i])) {
			fj_str_or_null(o, key, "mixed");
			return;
		}
		v = vals[i];
	}
	fj_str_or_null(o, key, v);
}

/* Whether hwloc's CPU kinds could be more than one: hwloc 2.9's Linux
 * backend forms them from cpu_capacity, cpufreq/cpuinfo_max_freq and
 * cpufreq/base_frequency alone (its x86 backend, which reads CPUID, is
 * not loaded), so where each of these is the same on every online CPU
 * (or absent from all) it finds one kind or none. */
static int kinds_inputs_vary(const struct cpu_state *st)
{
	int i;
	for (i = 1; i < st->nc; i++)
		if (st->c[i].capacity != st->c[0].capacity || st->c[i].max_khz != st->c[0].max_khz ||
		    st->c[i].base_khz != st->c[0].base_khz)
			return 1;
	return 0;
}

/* Compare with hwloc's CPU kinds (same sysfs, its own rules).  With one
 * kind of ours and inputs that leave hwloc one kind at most, there is
 * nothing to compare, and hwloc is not loaded to read them again. */
static void crosscheck_hwloc(struct cpu_state *st, const struct ck_result *res,
			     hwloc_bitmap_t *sets, int nk)
{
	hwloc_topology_t t;
	int nr, i, j, same = 1;
	hwloc_bitmap_t s;
	char buf[256];
	struct strbuf sb = STRBUF_INIT;
	if (!probe_hwloc_asked(nk <= 1 && !kinds_inputs_vary(st)))
		return;
	t = probe_topology_for(st->ctx, "the CPU kinds", nk > 1 ? "we find more than one kind"
			       : kinds_inputs_vary(st) ? "cpu_capacity or cpufreq differ across CPUs"
			       : "NODEAUDIT_HWLOC_ALWAYS is set");
	if (!t)
		return;
	nr = hwloc_cpukinds_get_nr(t, 0);
	if (nr <= 0 || (nr == 1 && nk <= 1))
		return;
	s = hwloc_bitmap_alloc();
	for (i = 0; i < nr; i++) {
		hwloc_cpukinds_get_info(t, (unsigned)i, s, NULL, NULL, NULL, 0);
		hwloc_bitmap_and(s, s, st->online);
		if (i)
			strbuf_addstr(&sb, " / ");
		strbuf_addstr(&sb, cpulist_str(s, buf, sizeof(buf)));
		for (j = 0; j < nk; j++)
			if (hwloc_bitmap_isequal(s, sets[j]))
				break;
		if (j == nk)
			same = 0;
	}
	if (nr != nk || !same)
		facts_conflict(st->f, "cpu.kinds", ck_source_name(res->source), "hwloc cpukinds",
			       "hwloc reports %d CPU kind%s (%s), %s gives %d", nr, nr == 1 ? "" : "s",
			       sb.buf ? sb.buf : "", ck_source_name(res->source), nk);
	strbuf_release(&sb);
	hwloc_bitmap_free(s);
}

static void probe_kinds(struct cpu_state *st, cJSON *cpu, const struct cpuid_info *lib)
{
	struct ck_result res;
	cJSON *arr;
	hwloc_bitmap_t sets[CK_MAX_KINDS];
	double kmax = 0, kbase = 0;
	int k, i, has_max = 0, has_base = 0;
	char buf[4096], nm[32];

	if (st->ncores < 0) {
		fj_set(cpu, "kinds", cJSON_CreateNull());
		fj_bool_or_null(cpu, "hybrid", -1);
		facts_gap(st->f, "cpu.kinds", "cores are unknown (topology files missing or unreadable)");
		facts_gap(st->f, "cpu.hybrid", "cores are unknown (topology files missing or unreadable)");
		goto freq;
	}
	ck_classify(st->cores, (size_t)st->ncores, &res);
	if (res.nkinds == 0) {
		fj_set(cpu, "kinds", cJSON_CreateNull());
		facts_gap(st->f, "cpu.kinds", "%s", res.note);
		if (lib && lib->ok && lib->ntypes > 0) {
			int lh = 0;
			for (i = 0; i < lib->ntypes; i++)
				if (lib->t[i].purpose != 0)
					lh = 1;
			fj_bool_or_null(cpu, "hybrid", lh);
			facts_evidence(st->f, "cpu.hybrid", "libcpuid core purposes");
		} else {
			fj_bool_or_null(cpu, "hybrid", -1);
			facts_gap(st->f, "cpu.hybrid", "core kinds are unknown");
		}
		ck_result_release(&res);
		goto freq;
	}
	arr = cJSON_AddArrayToObject(cpu, "kinds");
	for (k = 0; k < res.nkinds; k++) {
		cJSON *o = cJSON_CreateObject();
		int cores = 0, threads = 0, nd = 0;
		uint64_t mx = 0, bs = 0;
		const char **drv = xcalloc((size_t)st->nc + 1, sizeof(*drv));
		const char **gov = xcalloc((size_t)st->nc + 1, sizeof(*gov));
		char fact[64];
		sets[k] = hwloc_bitmap_alloc();
		for (i = 0; i < st->nc; i++) {
			struct pcpu *p = &st->c[i];
			if (res.kind[p->core] != k)
				continue;
			hwloc_bitmap_set(sets[k], p->id);
			threads++;
			if (st->cores[p->core].first_cpu == p->id)
				cores++;
			if (p->max_khz > mx)
				mx = p->max_khz;
			if (p->base_khz > bs)
				bs = p->base_khz;
			drv[nd] = p->driver;
			gov[nd++] = p->governor;
		}
		cJSON_AddStringToObject(o, "name", ck_kind_name(res.nkinds, k, res.source, nm, sizeof(nm)));
		cJSON_AddStringToObject(o, "cpus", cpulist_str(sets[k], buf, sizeof(buf)));
		fj_num(o, "cores", cores);
		fj_num(o, "threads", threads);
		fj_num_or_null(o, "max_mhz", mx > 0, (double)mx / 1000.0);
		fj_num_or_null(o, "base_mhz", bs > 0, (double)bs / 1000.0);
		if (mx > 0 && (!has_max || mx / 1000.0 > kmax)) {
			kmax = mx / 1000.0;
			has_max = 1;
		}
		if (bs > 0 && (!has_base || bs / 1000.0 > kbase)) {
			kbase = bs / 1000.0;
			has_base = 1;
		}
		cJSON_AddStringToObject(o, "source", ck_source_name(res.source));
		if (res.source == CK_MIDR) {
			const char *pn = NULL;
			for (i = 0; i < st->ncores; i++)
				if (res.kind[i] == k) {
					pn = ck_arm_part_name(st->cores[i].part, NULL);
					break;
				}
			fj_str_or_null(o, "core_type", pn);
		} else if (st->arm && st->one_part >= 0) {
			/* One CPU part printed for all CPUs is the reading CPU's:
			 * it names the cores only where they are one kind. */
			const char *pn = res.nkinds == 1 ? ck_arm_part_name(st->one_part, NULL) : NULL;
			fj_str_or_null(o, "core_type", pn);
			snprintf(fact, sizeof(fact), "cpu.kinds[%d].core_type", k);
			if (pn)
				facts_evidence(st->f, fact, "/proc/cpuinfo: one CPU part for all CPUs, and one kind of core");
			else if (res.nkinds > 1)
				facts_gap(st->f, fact, "/proc/cpuinfo prints one CPU part (0x%03lx, the MIDR of "
					  "the CPU that read it) for all CPUs: not evidence for these",
					  st->one_part & 0xfff);
			else
				facts_gap(st->f, fact, "CPU part 0x%03lx of implementer 0x%02lx is not a known core",
					  st->one_part & 0xfff, st->one_part >> 12);
		}
		set_str_or_mixed(o, "driver", drv, nd);
		set_str_or_mixed(o, "governor", gov, nd);
		snprintf(fact, sizeof(fact), "cpu.kinds[%d].max_mhz", k);
		if (!mx)
			facts_gap(st->f, fact, "no cpufreq cpuinfo_max_freq for these CPUs");
		snprintf(fact, sizeof(fact), "cpu.kinds[%d].base_mhz", k);
		if (!bs)
			facts_gap(st->f, fact, "no cpufreq base_frequency for these CPUs");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "driver"))) {
			snprintf(fact, sizeof(fact), "cpu.kinds[%d].driver", k);
			facts_gap(st->f, fact, "no cpufreq scaling_driver for these CPUs");
		}
		cJSON_AddItemToArray(arr, o);
		free(drv);
		free(gov);
	}
	fj_bool_or_null(cpu, "hybrid", res.nkinds > 1);
	{
		static const char *const paths[] = {
			[CK_MIDR] = CPUDIR "/cpu*/regs/identification/midr_el1 or /proc/cpuinfo CPU part",
			[CK_BASE_FREQ] = CPUDIR "/cpu*/cpufreq/base_frequency",
			[CK_CAPACITY] = CPUDIR "/cpu*/cpu_capacity",
			[CK_MAX_FREQ] = CPUDIR "/cpu*/cpufreq/cpuinfo_max_freq",
			[CK_TOPOLOGY] = CPUDIR "/cpu*/{topology/thread_siblings_list,cache/index*/shared_cpu_list}",
		};
		if (res.source > CK_NONE && res.source <= CK_TOPOLOGY)
			facts_evidence(st->f, "cpu.kinds", paths[res.source]);
		facts_evidence(st->f, "cpu.kinds", res.note);
	}
	crosscheck_hwloc(st, &res, sets, res.nkinds);
	/* libcpuid's core purposes, when it has them for this machine. */
	if (lib && lib->ok && lib->ntypes > 0) {
		int lh = 0;
		for (i = 0; i < lib->ntypes; i++)
			if (lib->t[i].purpose != 0)
				lh = 1;
		if (lh != (res.nkinds > 1))
			facts_conflict(st->f, "cpu.hybrid", ck_source_name(res.source), "libcpuid",
				       "libcpuid reports %s, %s gives %d kind%s",
				       lh ? "performance and efficiency cores" : "one core type",
				       ck_source_name(res.source), res.nkinds, res.nkinds == 1 ? "" : "s");
		else if (lh && res.nkinds == 2) {
			int lp = 0, mine = 0;
			for (i = 0; i < lib->ntypes; i++)
				if (lib->t[i].purpose == 1)
					lp += lib->t[i].cores;
			for (i = 0; i < st->ncores; i++)
				if (res.kind[i] == 0)
					mine++;
			if (lp != mine)
				facts_conflict(st->f, "cpu.kinds", ck_source_name(res.source), "libcpuid",
					       "libcpuid counts %d performance cores, %s %d", lp,
					       ck_source_name(res.source), mine);
		}
	}
	for (k = 0; k < res.nkinds; k++)
		hwloc_bitmap_free(sets[k]);
	ck_result_release(&res);
freq:
	fj_num_or_null(cpu, "max_mhz", has_max, kmax);
	if (!has_max)
		facts_gap(st->f, "cpu.max_mhz", "no cpufreq cpuinfo_max_freq (no cpufreq driver, or a VM)");
	fj_num_or_null(cpu, "base_mhz", has_base, kbase);
	if (!has_base)
		facts_gap(st->f, "cpu.base_mhz", "no cpufreq base_frequency (only intel_pstate exposes it)");
}

/* The microcode revision of the online CPUs: /proc/cpuinfo's "microcode"
 * line (x86), else cpuN/microcode/version; "0x..." when every CPU has the
 * same, "mixed" with a conflict when they differ (a late load that missed
 * some), null with a gap when unknown. */
static void probe_microcode(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu)
{
	uint64_t rev = 0, v;
	int id, first = 1, mixed = 0, from_sysfs = 0, missing = 0;
	hwloc_bitmap_foreach_begin(id, st->online) {
		const struct ci_proc *p = ci->read_ok ? ci_find(ci, id) : NULL;
		char *s = NULL, *end;
		int ok = 0;
		if (p && p->microcode) {
			errno = 0;
			v = strtoull(p->microcode, &end, 16);
			ok = !errno && end != p->microcode && !*end;
		}
		if (!ok && rd_str(st->sr, &s, CPUDIR "/cpu%d/microcode/version", id) == 0) {
			errno = 0;
			v = strtoull(s, &end, 16);
			ok = !errno && end != s && !*end;
			from_sysfs = 1;
		}
		free(s);
		if (!ok) {
			missing = 1;
			continue;
		}
		if (!first && v != rev)
			mixed = 1;
		if (first || v > rev)
			rev = v;
		first = 0;
	} hwloc_bitmap_foreach_end();
	if (first || missing) {
		fj_set(cpu, "microcode", cJSON_CreateNull());
		facts_gap(st->f, "cpu.microcode", first ? "no microcode revision in /proc/cpuinfo or "
			  CPUDIR "/cpu*/microcode/version (x86 kernels print it)"
			  : "the microcode revision of some online CPUs is unknown");
		return;
	}
	if (mixed) {
		fj_str_or_null(cpu, "microcode", "mixed");
		facts_conflict(st->f, "cpu.microcode", "/proc/cpuinfo", "/proc/cpuinfo",
			       "the online CPUs run different microcode revisions (highest 0x%" PRIx64
			       "): a late load that did not reach every CPU", rev);
	} else {
		char b[32];
		snprintf(b, sizeof(b), "0x%" PRIx64, rev);
		fj_str_or_null(cpu, "microcode", b);
	}
	facts_evidence(st->f, "cpu.microcode", from_sysfs ? CPUDIR "/cpu*/microcode/version" : "/proc/cpuinfo");
}

/* SMBIOS processor sockets that hold a CPU, from the sysroot's own table;
 * -1 when there is none or its firmware is emulated (a hypervisor writes
 * what it likes there). */
static int smbios_sockets(struct cpu_state *st)
{
	char *ep = NULL, *tab = NULL, *err = NULL;
	size_t eplen = 0, tlen = 0, i;
	struct smbios_info si;
	int n = -1;
	memset(&si, 0, sizeof(si));
	if (sr_read(st->sr, "/sys/firmware/dmi/tables/smbios_entry_point", &ep, &eplen) == 0 &&
	    sr_read(st->sr, "/sys/firmware/dmi/tables/DMI", &tab, &tlen) == 0 &&
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
 * the kernel lists them (sizes may be missing; the span is what counts).
 * Returns the level, 0 when unknown. */
static int llc_span(struct cpu_state *st, int id, hwloc_bitmap_t set)
{
	char dir[128], path[192], **names = NULL, *t = NULL;
	size_t n = 0, i;
	int best = 0;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	snprintf(dir, sizeof(dir), CPUDIR "/cpu%d/cache", id);
	if (sr_list(st->sr, dir, &names, &n) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t lvl;
		int instr, r;
		if (strncmp(names[i], "index", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/level", dir, names[i]);
		if (sr_read_u64(st->sr, path, &lvl) < 0 || (int)lvl <= best || lvl > 8)
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, names[i]);
		instr = sr_read_str(st->sr, path, &t) == 0 && !strcmp(t, "Instruction");
		free(t);
		t = NULL;
		if (instr)
			continue;
		snprintf(path, sizeof(path), "%s/%s/shared_cpu_list", dir, names[i]);
		r = sr_read_cpulist(st->sr, path, s);
		if (r == -ENOENT) {
			snprintf(path, sizeof(path), "%s/%s/shared_cpu_map", dir, names[i]);
			r = sr_read_cpumask(st->sr, path, s);
		}
		if (r == 0 && hwloc_bitmap_isset(s, id)) {
			best = (int)lvl;
			hwloc_bitmap_and(set, s, st->online);
		}
	}
	sr_free_list(names, n);
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
	size_t i, j, n;
	char **names;
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		int sockets = 0, clusters = 0;
		names = NULL;
		n = 0;
		if (sr_list(st->sr, maps[i], &names, &n) < 0)
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
	size_t d, i, n;
	char **names, path[256];
	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		uint64_t *aff;
		size_t na = 0, k, j;
		int aff0_zero = 1, npk = 0;
		names = NULL;
		n = 0;
		if (sr_list(st->sr, dirs[d], &names, &n) < 0)
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
			snprintf(path, sizeof(path), "%s/%s/device_type", dirs[d], names[i]);
			if (sr_read(st->sr, path, &t, &len) < 0 || len < 3 || memcmp(t, "cpu", 3)) {
				free(t);
				continue;
			}
			free(t);
			snprintf(path, sizeof(path), "%s/%s/reg", dirs[d], names[i]);
			if (sr_read(st->sr, path, &b, &len) < 0 || (len != 4 && len != 8)) {
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
	char **names = NULL, path[160], buf[256];
	size_t n = 0, k;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	struct strbuf sb = STRBUF_INIT;
	/* NUMA nodes do not span packages. */
	if (sr_list(st->sr, "/sys/devices/system/node", &names, &n) == 0) {
		for (k = 0; k < n; k++) {
			int sp;
			if (strncmp(names[k], "node", 4) || !isdigit((unsigned char)names[k][4]))
				continue;
			snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist", names[k]);
			if (sr_read_cpulist(st->sr, path, s) < 0)
				continue;
			hwloc_bitmap_and(s, s, st->online);
			if ((sp = merge_span(grp, ng, s, merged)) > 1)
				facts_conflict(st->f, "cpu.packages", "NUMA node span", "package masks",
					       "NUMA %s (CPUs %s) spans %d of the kernel's packages: on arm64 "
					       "these are clusters of one chip", names[k],
					       cpulist_str(s, buf, sizeof(buf)), sp);
		}
		sr_free_list(names, n);
	}
	/* Nor do dies (die_id -1: the kernel does not know the die). */
	for (i = 0; i < st->nc; i++) {
		int64_t die;
		int sp;
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/die_id", st->c[i].id);
		if (sr_read_s64(st->sr, path, &die) < 0 || die < 0)
			continue;
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/die_cpus_list", st->c[i].id);
		if (sr_read_cpulist(st->sr, path, s) < 0)
			continue;
		hwloc_bitmap_and(s, s, st->online);
		if ((sp = merge_span(grp, ng, s, merged)) > 1)
			facts_conflict(st->f, "cpu.packages", "die span", "package masks",
				       "die %" PRId64 " (CPUs %s) spans %d of the kernel's packages", die,
				       cpulist_str(s, buf, sizeof(buf)), sp);
	}
	for (i = 0; i < st->nc && cluster; i++) {
		snprintf(path, sizeof(path), CPUDIR "/cpu%d/topology/cluster_id", st->c[i].id);
		cluster = sr_exists(st->sr, path);
	}
	if (cluster || sr_exists(st->sr, "/sys/firmware/acpi/tables/PPTT"))
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
		facts_gap(st->f, "cpu.packages", "the kernel gives %d package masks, which arm64 kernels "
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
		facts_conflict(st->f, "cpu.packages", w[0].name, w[j].name,
			       "the package count cannot be settled: %s", sb.buf);
		facts_gap(st->f, "cpu.packages", "the witnesses of the package count disagree (%s)", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	facts_evidence(st->f, "cpu.packages", sb.buf);
	strbuf_release(&sb);
	return w[0].n;
}

/* Packages (sockets), counted as lscpu counts them: the distinct package
 * masks (package_cpus, core_siblings) of the online CPUs.  Not
 * physical_package_id, which some kernels fill with a cluster id (older
 * arm64), with -1 (sparc64, POWER) or with one id for CPUs of different
 * packages (Itanium).  The ids, the last-level cache span, the SMBIOS
 * sockets and hwloc cross-check the count; every disagreement is a
 * conflict.  Without masks the ids decide; without either, null. */
static void count_packages(struct cpu_state *st, cJSON *cpu)
{
	hwloc_bitmap_t *grp = xcalloc((size_t)st->nc + 1, sizeof(*grp));
	int64_t *ids = xcalloc((size_t)st->nc + 1, sizeof(*ids));
	int ng = 0, masks = st->nc > 0, nid = 0, ids_ok = st->nc > 0, ids_neg = 0, n = -1;
	int i, j, k, lvl, merged = 0, smb = -2, arm_n = 0;
	const char *src = NULL;
	char buf[256];
	hwloc_bitmap_t llc = hwloc_bitmap_alloc(), done = hwloc_bitmap_alloc();

	for (i = 0; i < st->nc; i++)
		if (!st->c[i].pkgset)
			masks = 0;
	for (i = 0; masks && i < st->nc; i++) {
		for (j = 0; j < ng && !hwloc_bitmap_isequal(grp[j], st->c[i].pkgset); j++)
			if (hwloc_bitmap_intersects(grp[j], st->c[i].pkgset))
				masks = 0;      /* overlapping masks: not a partition */
		if (masks && j == ng)
			grp[ng++] = hwloc_bitmap_dup(st->c[i].pkgset);
	}
	for (i = 0; i < st->nc; i++) {
		if (!st->c[i].pkg_ok) {
			ids_ok = 0;
			continue;
		}
		if (st->c[i].pkg < 0) {
			ids_neg++;
			continue;
		}
		for (k = 0; k < nid && ids[k] != st->c[i].pkg; k++)
			;
		if (k == nid)
			ids[nid++] = st->c[i].pkg;
	}
	if (ids_neg)
		ids_ok = 0;

	/* A last-level cache shared across the kernel's packages: on arm64
	 * the "packages" are clusters of one chip, merged here; elsewhere the
	 * disagreement is only reported. */
	for (i = 0; masks && ng > 1 && i < st->nc; i++) {
		int first = -1, span = 0;
		if (hwloc_bitmap_isset(done, st->c[i].id) || !(lvl = llc_span(st, st->c[i].id, llc)))
			continue;
		hwloc_bitmap_or(done, done, llc);
		for (j = 0; j < ng; j++)
			if (grp[j] && hwloc_bitmap_intersects(grp[j], llc)) {
				span++;
				if (first < 0)
					first = j;
				else if (st->arm) {
					hwloc_bitmap_or(grp[first], grp[first], grp[j]);
					hwloc_bitmap_free(grp[j]);
					grp[j] = NULL;
					merged++;
				}
			}
		if (span > 1)
			facts_conflict(st->f, "cpu.packages", st->arm ? "last-level cache span" : "package masks",
				       st->arm ? "package masks" : "last-level cache span",
				       "the L%d cache of CPUs %s spans %d of the kernel's packages%s", lvl,
				       cpulist_str(llc, buf, sizeof(buf)), span,
				       st->arm ? ": on arm64 these are clusters of one chip, counted as one package"
				       : "");
	}
	if (masks && st->arm && ng > 1) {
		smb = smbios_sockets(st);
		arm_n = arm_packages(st, grp, ng, &merged, smb);
	}
	if (masks && arm_n < 0) {
		n = -1;
		if (ids_ok && nid > 0)
			facts_evidence(st->f, "cpu.packages", "physical_package_id is not a witness on arm64 "
				       "(a cluster id on kernels without cluster_id)");
	} else if (masks) {
		n = arm_n > 0 ? arm_n : ng - merged;
		src = CPUDIR "/cpu*/topology/{package_cpus_list,core_siblings_list}";
		if (ids_ok && nid != n)
			facts_conflict(st->f, "cpu.packages", "package masks", "physical_package_id",
				       "physical_package_id gives %d distinct id%s, %s %d package%s", nid,
				       nid == 1 ? "" : "s", arm_n > 0 ? "the arm64 witnesses (see the evidence)"
				       : merged ? "the kernel's package masks (package_cpus, core_siblings) and the "
				       "last-level cache" : "the kernel's package masks (package_cpus, core_siblings)",
				       n, n == 1 ? "" : "s");
		else if (ids_neg == st->nc)
			facts_evidence(st->f, "cpu.packages", "physical_package_id is -1 (no package id): "
				       "counted from the package masks");
	} else if (ids_ok) {
		n = nid;
		src = st->c[0].pkg_ok == 2 ? "/proc/cpuinfo" : CPUDIR "/cpu*/topology/physical_package_id";
	}
	fj_num_or_null(cpu, "packages", n > 0, n);
	if (n > 0)
		facts_evidence(st->f, "cpu.packages", src);
	else if (arm_n < 0)
		;   /* arm_packages() said why */
	else if (!st->bad_pkg)
		facts_gap(st->f, "cpu.packages", "%s", ids_neg
			  ? "physical_package_id is -1 (the kernel does not know the package) and there are no "
			    "package masks (package_cpus, core_siblings) to count"
			  : "no package masks or physical_package_id in " CPUDIR "/cpu*/topology and no "
			    "physical id in /proc/cpuinfo");

	if (smb == -2)
		smb = n > 0 ? smbios_sockets(st) : -1;
	if (n > 0 && arm_n == 0 && smb > 0 && smb != n)
		facts_conflict(st->f, "cpu.packages", "sysfs", "SMBIOS processor records",
			       "the SMBIOS table has %d populated processor socket%s, the kernel %d package%s",
			       smb, smb == 1 ? "" : "s", n, n == 1 ? "" : "s");
	/* hwloc groups PUs by the same package masks: where the masks
	 * partition the online CPUs, agree with every physical_package_id and
	 * no cache merged two of them, its count is ours by construction and
	 * it is not loaded to read them again. */
	if (n > 0 && probe_hwloc_asked(masks && !merged && ids_ok && !ids_neg && nid == n)) {
		hwloc_topology_t t = probe_topology_for(
			st->ctx, "the package count",
			!masks ? "no package masks" : merged ? "a cache spans packages"
			: !ids_ok || ids_neg ? "no usable physical_package_id"
			: nid != n ? "package ids and masks disagree" : "NODEAUDIT_HWLOC_ALWAYS is set");
		int hp = 0;
		hwloc_obj_t o = NULL;
		while (t && (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, o)))
			hp += hwloc_bitmap_intersects(o->cpuset, st->online);
		if (hp > 0 && hp != n)
			facts_conflict(st->f, "cpu.packages", "sysfs", "hwloc",
				       "hwloc counts %d package%s, sysfs %d", hp, hp == 1 ? "" : "s", n);
	}
	for (j = 0; j < ng; j++)
		hwloc_bitmap_free(grp[j]);
	free(grp);
	free(ids);
	hwloc_bitmap_free(llc);
	hwloc_bitmap_free(done);
}

/* Whether a CPUID dump is of another CPU than /proc/cpuinfo's first
 * processor (vendor, or brand string): the reason, malloc'd, else NULL. */
static char *dump_other_cpu(const struct cpuinfo *ci, const struct cpuid_info *lib)
{
	const struct cpuid_type *t = NULL;
	const char *vid, *model;
	int i;
	for (i = 0; i < lib->ntypes; i++)
		if (!t || lib->t[i].purpose == 1)
			t = &lib->t[i];
	if (!t || !ci->read_ok)
		return NULL;
	vid = ci_str(ci, &ci->p[0], offsetof(struct ci_proc, vendor));
	model = ci_str(ci, &ci->p[0], offsetof(struct ci_proc, model));
	if (vid && t->vendor[0] && strcmp(vid, t->vendor))
		return xasprintf("the CPUID dump's vendor is '%s', /proc/cpuinfo's '%s': not this CPU",
				 t->vendor, vid);
	if (model && t->brand[0] && !same_words(model, t->brand)) {
		char *b = strsquash(xstrdup(t->brand)), *o;
		o = xasprintf("the CPUID dump is of '%s', /proc/cpuinfo names '%s': not this CPU", b, model);
		free(b);
		return o;
	}
	return NULL;
}

/* AMD family 15h (Bulldozer to Excavator) pairs two integer cores in a
 * compute unit that shares one FPU and the front end: AMD counts both as
 * cores, Linux (topoext) shows the pair as one core with two threads.  The
 * figures stay the kernel's; the other reading is noted. */
static void note_compute_units(struct cpu_state *st)
{
	char *buf = NULL, *p;
	int tpc = 0, i;
	long fam = -1;
	if (!st->x86 || st->ncores <= 0 || sr_read(st->sr, "/proc/cpuinfo", &buf, NULL) < 0)
		return;
	if (strstr(buf, "AuthenticAMD") && (p = strstr(buf, "\ncpu family")) && (p = strchr(p, ':')))
		fam = strtol(p + 1, NULL, 10);
	free(buf);
	if (fam != 0x15)
		return;
	for (i = 0; i < st->ncores; i++)
		if (st->cores[i].nthreads > tpc)
			tpc = st->cores[i].nthreads;
	if (tpc == 2)
		facts_conflict(st->f, "cpu.cores", "sysfs", "AMD core count",
			       "AMD family 15h: each of these %d cores is a compute unit of two integer cores "
			       "sharing one FPU; AMD counts %d cores, the kernel %d cores of 2 threads",
			       st->ncores, 2 * st->ncores, st->ncores);
	else
		facts_conflict(st->f, "cpu.cores", "sysfs", "AMD compute units",
			       "AMD family 15h: these %d cores pair into compute units of two integer cores "
			       "sharing one FPU (%d FPUs)", st->ncores, st->ncores / 2);
}

int probe_cpu(struct probe_ctx *ctx)
{
	struct cpu_state st;
	struct cpuinfo ci;
	struct cpuid_info lib;
	const char *libsrc = NULL, *flags = NULL, *arch;
	cJSON *cpu, *smt;
	char *buf = NULL, lst[4096];
	int r, i, lib_ok;
	size_t j, len = 0;
	char *foreign = NULL;
	int foreign_dump = 0;

	memset(&st, 0, sizeof(st));
	memset(&ci, 0, sizeof(ci));
	st.ctx = ctx;
	st.sr = &ctx->sr;
	st.f = &ctx->facts;
	st.online = hwloc_bitmap_alloc();
	cpu = facts_obj(st.f, "cpu");

	r = sr_read(st.sr, "/proc/cpuinfo", &buf, &len);
	if (r == 0 && memchr(buf, '\0', len) == NULL) {
		ci_parse(&ci, buf);
		ci.read_ok = ci.n > 0;
		if (!ci.read_ok)
			facts_gap(st.f, "cpu.isa", "/proc/cpuinfo: unparsable (no processor entry)");
	} else
		facts_gap_read(st.f, "cpu.isa", "/proc/cpuinfo", r ? r : -EINVAL);
	free(buf);

	arch = cJSON_GetStringValue(facts_get(st.f->root, "host.arch"));
	if (arch) {
		st.x86 = !strcmp(arch, "x86_64") || !strcmp(arch, "i686") || !strcmp(arch, "i386");
		st.arm = !strncmp(arch, "aarch64", 7) || !strncmp(arch, "arm", 3);
	} else if (ci.read_ok) {
		st.x86 = ci_str(&ci, &ci.p[0], offsetof(struct ci_proc, vendor)) != NULL;
		st.arm = ci.p[0].implementer >= 0 || ci.g.implementer >= 0;
	}

	st.one_part = ci.read_ok ? ci.one_part : -1;
	read_online(&st, &ci);
	read_cpus(&st, &ci);
	group_cores(&st);

	/* Counts. */
	fj_str_or_null(cpu, "online", hwloc_bitmap_iszero(st.online) ? NULL
		       : cpulist_str(st.online, lst, sizeof(lst)));
	if (hwloc_bitmap_iszero(st.online))
		facts_gap(st.f, "cpu.online", "no " CPUDIR "/online, no CPU directories and no /proc/cpuinfo");
	count_packages(&st, cpu);
	package_cpus(&st, cpu);
	note_compute_units(&st);
	fj_num_or_null(cpu, "cores", st.ncores >= 0 && st.nc > 0, st.ncores);
	if ((st.ncores < 0 || st.nc == 0) && !st.bad_core)
		facts_gap(st.f, "cpu.cores", "no thread sibling lists or core ids in " CPUDIR
			  "/cpu*/topology or /proc/cpuinfo");
	else if (st.ncores >= 0 && st.nc > 0)
		facts_evidence(st.f, "cpu.cores", CPUDIR "/cpu*/topology/{core_cpus_list,thread_siblings_list,core_id}");
	fj_num_or_null(cpu, "threads", st.nc > 0, st.nc);
	/* The hardware threads of each physical core, in core order: what a
	 * placement plan needs to take one thread per core. */
	if (st.ncores > 0 && st.nc > 0) {
		cJSON *list = cJSON_AddArrayToObject(cpu, "core_cpus");
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		char lbuf[4096];
		int k;
		for (k = 0; k < st.ncores; k++) {
			hwloc_bitmap_zero(set);
			for (i = 0; i < st.nc; i++)
				if (st.c[i].core == k)
					hwloc_bitmap_set(set, (unsigned)st.c[i].id);
			cJSON_AddItemToArray(list, cJSON_CreateString(cpulist_str(set, lbuf, sizeof(lbuf))));
		}
		hwloc_bitmap_free(set);
		facts_evidence(st.f, "cpu.core_cpus", CPUDIR "/cpu*/topology/{core_cpus_list,thread_siblings_list,core_id}");
	} else {
		fj_set(cpu, "core_cpus", cJSON_CreateNull());
		facts_gap(st.f, "cpu.core_cpus", "the physical cores are unknown (see cpu.cores)");
	}

	/* SMT. */
	smt = cJSON_AddObjectToObject(cpu, "smt");
	{
		char *ctl = NULL;
		uint64_t act;
		int tpc = 0, active = -1;
		for (i = 0; st.ncores > 0 && i < st.ncores; i++)
			if (st.cores[i].nthreads > tpc)
				tpc = st.cores[i].nthreads;
		r = sr_read_u64(st.sr, CPUDIR "/smt/active", &act);
		if (r == 0 && act <= 1) {
			active = (int)act;
			facts_evidence(st.f, "cpu.smt.active", CPUDIR "/smt/active");
		} else {
			if (r != -ENOENT)
				facts_gap_read(st.f, "cpu.smt.active", CPUDIR "/smt/active", r ? r : -EINVAL);
			if (tpc > 0) {
				active = tpc > 1;
				facts_evidence(st.f, "cpu.smt.active", CPUDIR "/cpu*/topology/thread_siblings_list");
			}
		}
		fj_bool_or_null(smt, "active", active);
		if (active < 0)
			facts_gap(st.f, "cpu.smt.active", "no smt/active and no thread sibling lists");
		fj_num_or_null(smt, "threads_per_core", tpc > 0, tpc);
		if (tpc <= 0)
			facts_gap(st.f, "cpu.smt.threads_per_core", "cores are unknown");
		r = sr_read_str(st.sr, CPUDIR "/smt/control", &ctl);
		if (r == 0 && (!strcmp(ctl, "on") || !strcmp(ctl, "off") || !strcmp(ctl, "forceoff") ||
			       !strcmp(ctl, "notsupported") || !strcmp(ctl, "notimplemented"))) {
			fj_str_or_null(smt, "control", ctl);
			facts_evidence(st.f, "cpu.smt.control", CPUDIR "/smt/control");
		} else {
			fj_str_or_null(smt, "control", NULL);
			facts_gap_read(st.f, "cpu.smt.control", CPUDIR "/smt/control", r ? r : -EINVAL);
		}
		free(ctl);
	}

	/* libcpuid (cross-check; codename). */
	r = run_libcpuid(&st, &lib, &libsrc);
	if (r == -2) {
		lib_ok = 0;
		r = -EINVAL;
		goto out;
	}
	lib_ok = r == 0;
	r = 0;
	/* A --cpuid-dump of another CPU: said once, and nothing of it is
	 * compared with this machine's counts.  A snapshot's own copy is of
	 * the captured machine (a VM's CPUID brand may differ from its
	 * cpuinfo): only its codename is withheld. */
	if (lib_ok && libsrc && strcmp(libsrc, "live") && (foreign = dump_other_cpu(&ci, &lib)) &&
	    !strcmp(libsrc, "dump")) {
		foreign_dump = 1;
		facts_conflict(st.f, "cpu.libcpuid", ctx->opts->cpuid_dump, "/proc/cpuinfo", "%s", foreign);
	}
	if (lib_ok && libsrc && !strcmp(libsrc, "dump"))
		facts_evidence(st.f, "cpu.libcpuid", ctx->opts->cpuid_dump);
	if (lib_ok) {
		int bad = lib.ntypes < 1, tot = 0;
		for (i = 0; i < lib.ntypes; i++) {
			if (lib.t[i].cores < 1 || lib.t[i].threads < lib.t[i].cores)
				bad = 1;
			tot += lib.t[i].threads;
		}
		if (bad) {
			lib_ok = 0;
			facts_gap(st.f, "cpu.libcpuid", "libcpuid found no usable CPU in the %s",
				  !strcmp(libsrc, "live") ? "CPUID data" : "dump");
		} else if (st.nc > 0 && tot != st.nc && !foreign_dump)
			facts_conflict(st.f, "cpu.threads", "sysfs", "libcpuid",
				       "libcpuid counts %d logical CPUs, sysfs %d online", tot, st.nc);
	}
	if (libsrc && lib_ok) {
		cJSON *l = cJSON_AddObjectToObject(cpu, "libcpuid"), *ta = cJSON_AddArrayToObject(l, "types");
		cJSON_AddStringToObject(l, "source", libsrc);
		for (i = 0; i < lib.ntypes; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "purpose", purpose_name(lib.t[i].purpose));
			fj_num(o, "cores", lib.t[i].cores);
			fj_num(o, "threads", lib.t[i].threads);
			/* libcpuid's guesses are not shown (codename_trusted()). */
			fj_str_or_null(o, "codename", codename_trusted(&lib.t[i]) ? lib.t[i].codename : NULL);
			cJSON_AddItemToArray(ta, o);
		}
	} else if (libsrc)
		fj_set(cpu, "libcpuid", cJSON_CreateNull());

	probe_kinds(&st, cpu, lib_ok && !foreign_dump ? &lib : NULL);
	probe_isa(&st, &ci, cpu, &flags);
	/* The kernel may hide what the CPU has (clearcpuid=, a hypervisor's
	 * CPUID masking is seen by both): report it, keep /proc/cpuinfo. */
	if (lib_ok && libsrc && strcmp(libsrc, "dump") && lib.ntypes > 0 && flags && st.x86) {
		static const char *const fl[] = { "avx2", "avx512f" };
		size_t q;
		for (q = 0; q < ARRAY_SIZE(fl); q++) {
			int has_lib = q == 0 ? lib.t[0].avx2 : lib.t[0].avx512f;
			int has_ci = has_word(flags, fl[q]);
			if (has_lib != has_ci)
				facts_conflict(st.f, "cpu.isa", "/proc/cpuinfo", "libcpuid",
					       "CPUID %s %s, /proc/cpuinfo %s", has_lib ? "has" : "lacks",
					       fl[q], has_ci ? "lists it" : "does not list it");
		}
	}

	/* Vendor, model, codename. */
	{
		const struct ci_proc *p0 = st.nc > 0 ? ci_find(&ci, st.c[0].id) : NULL;
		const char *vid = ci.read_ok ? ci_str(&ci, p0 ? p0 : &ci.p[0], offsetof(struct ci_proc, vendor)) : NULL;
		const char *model = ci.read_ok ? ci_str(&ci, p0 ? p0 : &ci.p[0], offsetof(struct ci_proc, model)) : NULL;
		long impl = -1;
		const char *v;
		char *armmodel = NULL;
		if (st.nc > 0 && st.c[0].part >= 0)
			impl = st.c[0].part >> 12;
		else if (ci.one_part >= 0)
			impl = ci.one_part >> 12;   /* the vendor, not the core */
		v = vid ? vendor_name(vid, -1) : impl >= 0 ? vendor_name(NULL, impl) : NULL;
		if (!v && lib_ok && lib.ntypes > 0 && lib.t[0].vendor[0])
			v = vendor_name(lib.t[0].vendor, -1);
		fj_str_or_null(cpu, "vendor", v);
		if (!v)
			facts_gap(st.f, "cpu.vendor", "/proc/cpuinfo names no vendor_id or CPU implementer");
		if (st.arm && st.nc > 0 && (!model || !strncmp(model, "ARMv", 4))) {
			/* arm64 cpuinfo has no model name: the core names, biggest first. */
			const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(cpu, "kinds"), *kd;
			struct strbuf sb = STRBUF_INIT;
			int unknown = 0;
			cJSON_ArrayForEach(kd, kinds) {
				const char *ct = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kd, "core_type"));
				if (!ct) {
					unknown = 1;
					break;
				}
				if (sb.len)
					strbuf_addstr(&sb, " + ");
				strbuf_addstr(&sb, ct);
			}
			if (!unknown && sb.len)
				armmodel = strbuf_detach(&sb);
			strbuf_release(&sb);
			if (armmodel)
				model = armmodel;
		}
		fj_str_or_null(cpu, "model_name", model);
		if (!model)
			facts_gap(st.f, "cpu.model_name", "/proc/cpuinfo has no model name and the core type is unknown");
		{
			const struct cpuid_type *t = NULL;
			const char *other = NULL;
			for (i = 0; lib_ok && i < lib.ntypes; i++)
				if (!t || lib.t[i].purpose == 1)
					t = &lib.t[i];
			/* A dump of another CPU than the probed one (--cpuid-dump
			 * with a sysroot or on a live host) must not name it. */
			if (foreign)
				other = xstrdup(foreign);
			if (other) {
				fj_str_or_null(cpu, "codename", NULL);
				facts_gap(st.f, "cpu.codename", "%s", other);
				free((char *)other);
			} else if (t && codename_trusted(t)) {
				fj_str_or_null(cpu, "codename", t->codename);
				facts_evidence(st.f, "cpu.codename", "libcpuid");
			} else {
				fj_str_or_null(cpu, "codename", NULL);
				if (t && t->codename[0])
					facts_gap(st.f, "cpu.codename", "no row of libcpuid's table for this CPU "
						  "(family %d, model %d) is named '%s': that is the nearest "
						  "row's guess, not this CPU's codename", t->ext_family,
						  t->ext_model, t->codename);
				else
					facts_gap(st.f, "cpu.codename", t ? "libcpuid names no codename for this CPU"
						  : "no CPUID source (live x86, --cpuid-dump or a snapshot's copy)");
			}
		}
		free(armmodel);
	}

	probe_microcode(&st, &ci, cpu);
	probe_caches(&st, cpu);
out:

	for (i = 0; i < st.nc; i++) {
		hwloc_bitmap_free(st.c[i].sib);
		hwloc_bitmap_free(st.c[i].l2);
		hwloc_bitmap_free(st.c[i].pkgset);
		hwloc_bitmap_free(st.c[i].policy);
		free(st.c[i].driver);
		free(st.c[i].governor);
	}
	for (j = 0; j < st.nci; j++)
		hwloc_bitmap_free(st.ci[j].set);
	free(st.ci);
	free(st.c);
	free(st.cores);
	hwloc_bitmap_free(st.online);
	ci_free(&ci);
	free(foreign);
	return r;
}
