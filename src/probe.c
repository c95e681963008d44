/* probe.c - run the probes in order over one sysroot; shape their output */
#include "config.h"
#include "probe.h"
#include "output.h"
#include "src-hwloc.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Order matters: later probes read earlier facts (memory bandwidth needs the
 * CPU packages, PCI locality needs the NUMA nodes). */
const struct prober probers[] = {
	{ "host", probe_host, text_host },
	{ "cpu", probe_cpu, text_cpu },
	{ "numa", probe_numa, text_numa },
	{ "memory", probe_memory, text_memory },
	{ "pci", probe_pci, text_pci },
	{ "kernel", probe_kernel, text_kernel },
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
		if (!named(only, probers[i].name) && strcmp(probers[i].name, "host"))
			continue;
		if (probers[i].fn(ctx) < 0)
			return -1;
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

hwloc_topology_t probe_topology(struct probe_ctx *ctx)
{
	hwloc_topology_t t;
	if (ctx->topo || ctx->topo_failed)
		return ctx->topo;
	/* A sysroot: hwloc reads a private, checked copy of its inputs in a
	 * child (src-hwloc.c says why); nothing it does reaches our process
	 * but the topology. */
	if (!ctx->sr.live) {
		ctx->topo = hwloc_load_sysroot(&ctx->sr, &ctx->facts);
		ctx->topo_failed = !ctx->topo;
		return ctx->topo;
	}
	/* Live: the Linux backend alone, so that a snapshot replays to the
	 * same topology (the x86 backend would run CPUID on *this* host). */
	setenv("HWLOC_COMPONENTS", "linux,stop", 1);
	/* hwloc's own complaints go to stderr; ours are gaps. */
	setenv("HWLOC_HIDE_ERRORS", "2", 1);
	if (hwloc_topology_init(&t) < 0) {
		ctx->topo_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc: cannot initialise a topology");
		return NULL;
	}
	hwloc_set_filters(t);
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

void probe_text(FILE *out, const struct probe_ctx *ctx)
{
	size_t i;
	const cJSON *g;
	for (i = 0; i < nprobers; i++)
		if (probers[i].text)
			probers[i].text(out, ctx->facts.root);
	if (cJSON_GetArraySize(ctx->facts.conflicts) > 0) {
		tx_section(out, "Sources that disagree");
		cJSON_ArrayForEach(g, ctx->facts.conflicts) {
			const cJSON *fa = cJSON_GetObjectItemCaseSensitive(g, "fact");
			const cJSON *no = cJSON_GetObjectItemCaseSensitive(g, "note");
			fprintf(out, "  %-22s %s\n", cJSON_IsString(fa) ? fa->valuestring : "?",
				cJSON_IsString(no) ? no->valuestring : "");
		}
	}
	if (cJSON_GetArraySize(ctx->facts.gaps) > 0) {
		tx_section(out, "Unknown (with the reason)");
		cJSON_ArrayForEach(g, ctx->facts.gaps) {
			const cJSON *fa = cJSON_GetObjectItemCaseSensitive(g, "fact");
			const cJSON *re = cJSON_GetObjectItemCaseSensitive(g, "reason");
			fprintf(out, "  %-22s %s\n", cJSON_IsString(fa) ? fa->valuestring : "?",
				cJSON_IsString(re) ? re->valuestring : "");
		}
	}
}
