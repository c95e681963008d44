/* probe.c - run the probes in order over one sysroot; shape their output */
#include "config.h"
#include "probe.h"
#include "output.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ftw.h>
#include <sys/stat.h>

/* Order matters: later probes read earlier facts (memory bandwidth needs the
 * CPU packages, PCI locality needs the NUMA nodes). */
const struct prober probers[] = {
	{ "host", probe_host },
	{ "cpu", probe_cpu },
	{ "numa", probe_numa },
	{ "memory", probe_memory },
	{ "pci", probe_pci },
	{ "kernel", probe_kernel },
};
const size_t nprobers = ARRAY_SIZE(probers);

static int named(const char *only, const char *name)
{
	size_t n = strlen(name);
	const char *p = only;
	if (!only)
		return 1;
	while ((p = strstr(p, name))) {
		if ((p == only || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

int probe_run(struct probe_ctx *ctx, const struct probe_opts *opts, const char *only)
{
	size_t i;
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = opts;
	if (sysroot_open(&ctx->sr, opts->sysroot) < 0)
		return -1;
	facts_init(&ctx->facts);
	for (i = 0; i < nprobers; i++) {
		struct timespec t0, t1;
		size_t nread = ctx->sr.nread, k;
		if (!named(only, probers[i].name) && strcmp(probers[i].name, "host"))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (probers[i].fn(ctx) < 0)
			return -1;
		/* -v: what each probe read and how long it took; -vv: every file. */
		if (verbosity >= 1) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			debug("probe %s: %.2f ms, %zu file%s read", probers[i].name,
			      (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
			      ctx->sr.nread - nread, ctx->sr.nread - nread == 1 ? "" : "s");
			if (verbosity >= 2)
				for (k = nread; k < ctx->sr.nread; k++)
					debug("  read %s", ctx->sr.read[k]);
		}
	}
	return 0;
}

void probe_release(struct probe_ctx *ctx)
{
	if (ctx->topo)
		hwloc_topology_destroy(ctx->topo);
	if (ctx->facts.root)
		facts_release(&ctx->facts);
	sysroot_close(&ctx->sr);
}

/* hwloc opens sysroot files without O_NONBLOCK: a FIFO or a device where a
 * sysfs file should be would block it for ever.  Find one before it does. */
static const char *special_found;
static char special_path[512];

static int find_special(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct stat t;
	(void)st;
	(void)ftw;
	if (flag == FTW_F || flag == FTW_SL) {
		if (stat(path, &t) == 0 && !S_ISREG(t.st_mode) && !S_ISDIR(t.st_mode)) {
			snprintf(special_path, sizeof(special_path), "%s", path);
			special_found = special_path;
			return 1;
		}
	}
	return 0;
}

static const char *sysroot_special_file(const struct sysroot *sr)
{
	static const char *const trees[] = {
		"sys/devices/system/cpu", "sys/devices/system/node", "proc/cpuinfo", "proc/meminfo",
		"proc/mounts", "proc/self", "sys/fs/cgroup", "sys/class/dmi", "sys/devices/virtual/dmi",
		"sys/kernel/mm", "proc/hwloc-nofile-info",
	};
	size_t i;
	special_found = NULL;
	for (i = 0; i < ARRAY_SIZE(trees) && !special_found; i++) {
		char *p = xasprintf("%s/%s", sr->root, trees[i]);
		struct stat st;
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				nftw(p, find_special, 32, FTW_PHYS);
			else
				find_special(p, &st, S_ISLNK(st.st_mode) ? FTW_SL : FTW_F, NULL);
		}
		free(p);
	}
	return special_found;
}

hwloc_topology_t probe_topology(struct probe_ctx *ctx)
{
	hwloc_topology_t t;
	if (ctx->topo || ctx->topo_failed)
		return ctx->topo;
	/* The Linux backend alone, live or not, so that a snapshot replays to
	 * the same topology (the x86 backend would run CPUID on *this* host). */
	setenv("HWLOC_COMPONENTS", "linux,stop", 1);
	/* hwloc's own complaints about a capture go to stderr; ours are gaps. */
	setenv("HWLOC_HIDE_ERRORS", "2", 1);
	if (!ctx->sr.live) {
		const char *bad = sysroot_special_file(&ctx->sr);
		if (bad) {
			ctx->topo_failed = 1;
			facts_gap(&ctx->facts, "cpu", "hwloc not run: '%s' is not a regular file", bad);
			return NULL;
		}
		setenv("HWLOC_FSROOT", ctx->sr.root, 1);
		setenv("HWLOC_THISSYSTEM", "0", 1);
	}
	if (hwloc_topology_init(&t) < 0) {
		ctx->topo_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc: cannot initialise a topology");
		return NULL;
	}
	/* Only what we use: no I/O objects (PCI comes from libpci), no misc. */
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (hwloc_topology_load(t) < 0) {
		hwloc_topology_destroy(t);
		ctx->topo_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc: cannot load the topology of '%s'", ctx->sr.root);
		return NULL;
	}
	ctx->topo = t;
	return t;
}

static void add_copy(cJSON *dst, const char *key, const cJSON *src)
{
	if (src)
		cJSON_AddItemToObject(dst, key, cJSON_Duplicate(src, 1));
}

cJSON *probe_json(const struct probe_ctx *ctx)
{
	cJSON *j = cJSON_CreateObject(), *tool, *it;
	cJSON_AddStringToObject(j, "schema", "nodeaudit.probe/1");
	tool = cJSON_AddObjectToObject(j, "tool");
	cJSON_AddStringToObject(tool, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
	cJSON_ArrayForEach(it, ctx->facts.root)
		add_copy(j, it->string, it);
	add_copy(j, "gaps", ctx->facts.gaps);
	add_copy(j, "conflicts", ctx->facts.conflicts);
	add_copy(j, "evidence", ctx->facts.evidence);
	return j;
}
