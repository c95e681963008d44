/* probe/probe.c - run the probes in order over one sysroot; shape their output */
#include "config.h"
#include "probe/probe.h"
#include "lib/output.h"
#include "read/hwloc.h"
#include "read/hwloc-lib.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The order of the output.  Later probes read earlier facts (PCI locality
 * needs the NUMA nodes; every probe, host.virtualized and host.arch); the
 * CPU probe's facts are read by none, and probe_run() runs it last. */
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

/* Move the items added to c (an array, or an object's members) since
 * index from to index at, in their order: the items between at and from
 * go to the end instead, each detached by its pointer and appended (cJSON
 * appends keep its list invariants; inserting does not work on an
 * object's members).  The moved items alone are written: after hwloc's
 * fork every page written again is a fault. */
static void move_tail(cJSON *c, int at, int from)
{
	cJSON *it, *next;
	int k;
	if (from >= cJSON_GetArraySize(c) || at >= from)
		return;
	it = cJSON_GetArrayItem(c, at);
	for (k = at; k < from && it; k++, it = next) {
		next = it->next;
		cJSON_AddItemToArray(c, cJSON_DetachItemViaPointer(c, it));
	}
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

/* The heap the probes are about to fill, faulted in at once (heap_warm()):
 * 128 KiB and 6 KiB a CPU (their blocks came to 130 KiB on 2 CPUs and 440
 * to 920 KiB on hwloc's and util-linux's 64- to 256-CPU captures), by the
 * online CPUs, read here unrecorded (the probes that read them say so). */
static void warm_heap(struct probe_ctx *ctx)
{
	char *s = NULL;
	bitmap_t set;
	int n = 0;
	if (sr_read_unrecorded(&ctx->sr, "/sys/devices/system/cpu/online", &s, NULL) == 0) {
		set = bitmap_alloc();
		if (parse_cpulist(s, set) == 0)
			n = bitmap_weight(set);
		bitmap_free(set);
	}
	free(s);
	heap_warm((128u << 10) + (size_t)(n > 0 && n <= SR_MAX_CPUS ? n : 1) * (6u << 10));
}

/*
 * The CPU probe runs last, and its facts, gaps, conflicts and evidence
 * are then moved to where the table's order puts them (after host's), so
 * the output is as if it had run second.  No later probe reads its facts.
 * Live, libcpuid's thread starts first: its CPUID round on every CPU
 * (about 2 ms on the reference VM, where each CPUID traps to the
 * hypervisor) overlaps the NUMA, memory, PCI and kernel probes instead of
 * holding up the CPU probe.
 */
int probe_run(struct probe_ctx *ctx, const struct probe_opts *opts, const char *only)
{
	size_t i, cpu = nprobers;
	int at[4] = { 0, 0, 0, 0 }, from[4];
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = opts;
	if (sysroot_open(&ctx->sr, opts->sysroot) < 0)
		return -1;
	warm_heap(ctx);
	facts_init(&ctx->facts);
	if (ctx->sr.live && !opts->cpuid_dump && named(only, "cpu")) {
		struct cpuid_info early;
		if (cpuid_start(NULL, &ctx->cpuid, &early) < 0)
			ctx->cpuid.pid = 0;   /* the CPU probe tries again and says why */
	}
	for (i = 0; i < nprobers; i++) {
		if (!named(only, probers[i].name) && strcmp(probers[i].name, "host"))
			continue;
		if (!strcmp(probers[i].name, "cpu")) {
			cpu = i;
			at[0] = cJSON_GetArraySize(ctx->facts.root);
			at[1] = cJSON_GetArraySize(ctx->facts.gaps);
			at[2] = cJSON_GetArraySize(ctx->facts.conflicts);
			at[3] = cJSON_GetArraySize(ctx->facts.evidence);
			continue;
		}
		if (run_one(ctx, i) < 0)
			return -1;
	}
	if (cpu < nprobers) {
		from[0] = cJSON_GetArraySize(ctx->facts.root);
		from[1] = cJSON_GetArraySize(ctx->facts.gaps);
		from[2] = cJSON_GetArraySize(ctx->facts.conflicts);
		from[3] = cJSON_GetArraySize(ctx->facts.evidence);
		if (run_one(ctx, cpu) < 0)
			return -1;
		move_tail(ctx->facts.root, at[0], from[0]);
		move_tail(ctx->facts.gaps, at[1], from[1]);
		move_tail(ctx->facts.conflicts, at[2], from[2]);
		move_tail(ctx->facts.evidence, at[3], from[3]);
	}
	return 0;
}

void probe_release(struct probe_ctx *ctx)
{
	cpuid_cancel(&ctx->cpuid);
	/* On a one-shot command's way out the memory is the kernel's to take
	 * back; an unpacked archive's directory is still removed (by
	 * sysroot_close(), which frees the read layer's cache too). */
	if (!exit_frees()) {
		if (ctx->sr.tmpdir)
			sysroot_close(&ctx->sr);
		return;
	}
	if (ctx->topo)
		HW.topology_destroy(ctx->topo);
	if (ctx->bind_topo)
		HW.topology_destroy(ctx->bind_topo);
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
