/* probe/probe.c - run the probes in order over one sysroot; shape their output */
#include "config.h"
#include "probe/probe.h"
#include "lib/output.h"
#include "read/hwloc.h"
#include "read/hwloc.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The order of the run and of the output.  Later probes read earlier facts
 * (PCI locality needs the NUMA nodes; every probe, host.virtualized and
 * host.arch). */
const struct prober probers[] = {
	{ "host", probe_host },
	{ "cpu", probe_cpu },
	{ "numa", probe_numa },
	{ "memory", probe_memory },
	{ "pci", probe_pci },
	{ "kernel", probe_kernel },
	{ "process", probe_process },
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

static int run_one(struct probe_ctx *ctx, size_t i)
{
	struct timespec t0, t1;
	size_t nread = ctx->sr.nread, k;
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
	return 0;
}

/* Live, libcpuid's child starts first: its CPUID round on every CPU (on a
 * VM each CPUID traps to the hypervisor) overlaps the probes before the
 * CPU probe, which takes its answer. */
int probe_run(struct probe_ctx *ctx, const struct probe_opts *opts, const char *only)
{
	size_t i;
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = opts;
	if (sysroot_open(&ctx->sr, opts->sysroot) < 0)
		return -1;
	facts_init(&ctx->facts);
	if (ctx->sr.live && !opts->cpuid_dump && named(only, "cpu")) {
		struct cpuid_info early;
		if (cpuid_start(NULL, &ctx->cpuid, &early) < 0)
			ctx->cpuid.pid = 0;   /* the CPU probe tries again and says why */
	}
	for (i = 0; i < nprobers; i++) {
		if (!named(only, probers[i].name) && strcmp(probers[i].name, "host"))
			continue;
		if (run_one(ctx, i) < 0)
			return -1;
	}
	return 0;
}

void probe_release(struct probe_ctx *ctx)
{
	cpuid_cancel(&ctx->cpuid);
	if (ctx->topo)
		hwloc_topology_destroy(ctx->topo);
	if (ctx->bind_topo)
		hwloc_topology_destroy(ctx->bind_topo);
	facts_release(&ctx->facts);   /* its tree may have moved into a document */
	sysroot_close(&ctx->sr);
}

/* The facts move into the document: ctx keeps none (its tree, gaps,
 * conflicts and evidence are NULL after). */
cJSON *probe_json(struct probe_ctx *ctx)
{
	cJSON *j = cJSON_CreateObject(), *tool, *it;
	cJSON_AddStringToObject(j, "schema", "nodeaudit.probe/1");
	tool = cJSON_AddObjectToObject(j, "tool");
	cJSON_AddStringToObject(tool, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
	/* Each member appended with its key as it is (an object's members
	 * are an array's items with names). */
	while (ctx->facts.root && (it = ctx->facts.root->child))
		cJSON_AddItemToArray(j, cJSON_DetachItemViaPointer(ctx->facts.root, it));
	if (ctx->facts.gaps)
		cJSON_AddItemToObject(j, "gaps", ctx->facts.gaps);
	if (ctx->facts.conflicts)
		cJSON_AddItemToObject(j, "conflicts", ctx->facts.conflicts);
	if (ctx->facts.evidence)
		cJSON_AddItemToObject(j, "evidence", ctx->facts.evidence);
	ctx->facts.gaps = ctx->facts.conflicts = ctx->facts.evidence = NULL;
	return j;
}
