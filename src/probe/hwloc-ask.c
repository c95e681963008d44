/* probe/hwloc-ask.c - hwloc asked for a second reading: when, why (-v), loaded once */
#include "config.h"
#include "probe/probe.h"
#include "read/hwloc.h"
#include "read/hwloc.h"
#include "lib/util.h"

#include <stdlib.h>

int probe_hwloc_asked(int settled)
{
	/* NODEAUDIT_HWLOC_ALWAYS is for the test suite: the inputs of hostile
	 * sysroots reach hwloc's fence even where the facts are settled. */
	static int always = -1;
	if (always < 0)
		always = getenv("NODEAUDIT_HWLOC_ALWAYS") != NULL;
	return !settled || always;
}

hwloc_topology_t probe_topology(struct probe_ctx *ctx)
{
	/* hwloc's second reading of the topology, live or not, goes through
	 * the same door: a private, checked copy of its inputs made through
	 * the read layer (which has read most of them already, and does not
	 * read them again), loaded in a child (read/hwloc.c says why).  So a
	 * snapshot replays to the same answer, and no sysfs file is read
	 * twice in a run. */
	if (ctx->topo || ctx->topo_failed)
		return ctx->topo;
	ctx->topo = hwloc_load_sysroot(&ctx->sr, &ctx->facts);
	ctx->topo_failed = !ctx->topo;
	return ctx->topo;
}

hwloc_topology_t probe_topology_for(struct probe_ctx *ctx, const char *part, const char *why)
{
	debug("hwloc asked by %s: %s", part, why);
	return probe_topology(ctx);
}

hwloc_topology_t probe_bind_topology(struct probe_ctx *ctx)
{
	hwloc_topology_t t;
	const char *why;
	if (!ctx->sr.live)
		return probe_topology(ctx);
	if (ctx->bind_topo || ctx->bind_failed)
		return ctx->bind_topo;
	if ((why = hwloc_api_mismatch())) {
		ctx->bind_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc not run: %s", why);
		return NULL;
	}
	/* Live: the Linux backend alone, so that the placement matches what
	 * a snapshot shows (the x86 backend would run CPUID on this host). */
	setenv("HWLOC_COMPONENTS", "linux,stop", 1);
	/* hwloc's own complaints go to stderr; ours are gaps. */
	setenv("HWLOC_HIDE_ERRORS", "2", 1);
	if (hwloc_topology_init(&t) < 0) {
		ctx->bind_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc: cannot initialise a topology");
		return NULL;
	}
	hwloc_set_filters(t);
	if (hwloc_topology_load(t) < 0) {
		hwloc_topology_destroy(t);
		ctx->bind_failed = 1;
		facts_gap(&ctx->facts, "cpu", "hwloc: cannot load the topology of '%s'", ctx->sr.root);
		return NULL;
	}
	ctx->bind_topo = t;
	return t;
}
