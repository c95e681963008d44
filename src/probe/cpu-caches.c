/* probe/cpu-caches.c - L2 and L3: each CPU's cache/index* into instances; cpu.caches */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The names of a CPU's cache/index* directories, in order.  The kernel
 * numbers them from index0 without a gap (one a cache leaf; hwloc reads
 * index0 up the same way), so where index0 is there they are found by
 * reading each one's level, the first file read anyway, up to the first
 * one missing: the other CPUs' then come in the batch of the first one's
 * files (read/batch.c), where a listing of each cache directory would
 * cost an open and two getdents64 a CPU.  A tree without index0 (reduced
 * captures keep only the cache a test needs) is listed.
 *
 * The walk ends at the first index that is not a directory, whatever the
 * error (a file, a FIFO, a link to itself where a directory belongs answer
 * ENOTDIR or ELOOP for ever, never ENOENT), and at CPU_MAX_CACHE_INDEX;
 * such a non-directory (or the cache directory itself being one) is put in
 * *err (its errno, negative) and *bad (its path, malloc'd) when they are
 * given, for the caller's gap.
 */
char **cpu_cache_indexes(struct cpu_state *st, const char *dir, size_t *n, int *err, char **bad)
{
	struct path_cxt pc = st->pc;
	char **names = NULL;
	uint64_t lvl;
	size_t k;
	int r, e = 0;
	*n = 0;
	pc_setdir(&pc, "%s", dir);
	for (k = 0; k < CPU_MAX_CACHE_INDEX; k++) {
		r = pc_read_u64(&pc, &lvl, "index%zu/level", k);
		if (r == 0 || r == -EINVAL || r == -ERANGE)
			continue;
		/* A missing level in an index directory that is there is that
		 * index's gap (below), not the end. */
		if (pc_is_dir(&pc, "index%zu", k))
			continue;
		if (r != -ENOENT)
			e = r;
		break;
	}
	if (k == 0) {
		e = pc_list(&pc, &names, n, "%s", dir);
		if (e < 0) {
			*n = 0;
			if (e != -ENOENT) {
				if (err)
					*err = e == -EISDIR ? -ENOTDIR : e;
				if (bad) {
					/* The highest directory on the way that is
					 * not one: cpuN itself where that is a file. */
					char *b = xstrdup(dir), *slash;
					while ((slash = strrchr(b, '/')) && slash != b) {
						*slash = '\0';
						if (pc_is_dir(&pc, "%s", b)) {
							*slash = '/';
							break;
						}
					}
					*bad = b;
				}
			}
		}
		return names;
	}
	if (e < 0) {
		if (err)
			*err = e;
		if (bad)
			*bad = xstrdup(pc.path);
	}
	names = xmalloc(k * sizeof(*names));
	for (*n = 0; *n < k; (*n)++)
		names[*n] = xasprintf("index%zu", *n);
	return names;
}

/* The first garbled cache file of the run is the gap: the one pc named last. */
static void cache_gap(struct path_cxt *pc, int *bad, int err)
{
	if (*bad)
		return;
	*bad = 1;
	pc_gap_read(pc, "caches", err);
}

void cpu_read_caches(struct cpu_state *st, struct pcpu *p, int *bad)
{
	struct path_cxt pc = st->pc;
	char **names = NULL, *s = NULL, *notdir = NULL;
	size_t n = 0, i, j;
	int err = 0;
	pc_setdir(&pc, CPUDIR "/cpu%d/cache", p->id);
	names = cpu_cache_indexes(st, pc.dir, &n, &err, &notdir);
	if (notdir) {
		if (!*bad) {
			*bad = 1;
			facts_gap_notdir(st->f, pc_fact(&pc, "caches"), notdir, err);
		}
		free(notdir);
	}
	for (i = 0; i < n; i++) {
		uint64_t lvl, size;
		int r, instr, first;
		hwloc_bitmap_t set;
		if (strncmp(names[i], "index", 5))
			continue;
		if ((r = pc_read_u64(&pc, &lvl, "%s/level", names[i])) < 0) {
			if (r != -ENOENT)
				cache_gap(&pc, bad, r);
			continue;
		}
		if (lvl != 2 && lvl != 3)
			continue;
		instr = pc_read_str(&pc, &s, "%s/type", names[i]) == 0 && !strcmp(s, "Instruction");
		free(s);
		s = NULL;
		if (instr)
			continue;
		r = pc_read_str(&pc, &s, "%s/size", names[i]);
		size = r == 0 ? parse_size(s) : 0;
		free(s);
		s = NULL;
		if (!size) {
			cache_gap(&pc, bad, r ? r : -EINVAL);
			continue;
		}
		set = hwloc_bitmap_alloc();
		r = pc_read_cpulist(&pc, set, "%s/shared_cpu_list", names[i]);
		if (r == -ENOENT)
			r = pc_read_cpumask(&pc, set, "%s/shared_cpu_map", names[i]);
		if (r < 0 || !hwloc_bitmap_isset(set, p->id)) {
			cache_gap(&pc, bad, r ? r : -EINVAL);
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

void cpu_probe_caches(struct cpu_state *st, cJSON *cpu)
{
	cJSON *caches = cJSON_AddObjectToObject(cpu, "caches");
	struct path_cxt cc = st->pc;
	int lvl;
	pc_setobj(&cc, caches, "cpu.caches");
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
			pc_gap(&cc, key, "no level-%d cache in " CPUDIR "/cpu*/cache", lvl);
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
				for (i = 0; i < st->nci; i++)
					if (st->ci[i].level == lvl) {
						char *l = cpulist_dup(st->ci[i].set);
						cJSON_AddItemToArray(arr, cJSON_CreateString(l));
						free(l);
					}
			}
		}
	}
	pc_evidence_of(&st->pc, "caches", CPUDIR "/cpu*/cache/index*/{level,type,size,shared_cpu_list}");
}
