/* probe/numa.c - NUMA nodes as the kernel numbers them: CPUs, memory, distances */
#include "config.h"
#include "probe/probe.h"
#include "lib/output.h"
#include "lib/util.h"
#include "read/hwloc.h"
#include "read/path.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "/sys/devices/system/node"

/*
 * Sources, in order of trust:
 *   node/online (else the nodeN directories)   which nodes exist
 *   nodeN/cpulist (else nodeN/cpumap)          CPUs, intersected with cpu/online
 *   nodeN/meminfo "Node N MemTotal: X kB"      memory
 *   nodeN/distance                             one row of the SLIT, node order
 * No node directory at all (UMA kernels, old ARM boards, some captures)
 * means one node holding every online CPU and /proc/meminfo's MemTotal.
 * hwloc's NUMA node count is a cross-check only.
 */

struct node {
	unsigned id;
	hwloc_bitmap_t cpus;   /* raw, as sysfs lists them; NULL: unreadable */
	char cpus_path[512];   /* the file they came from */
	int has_mem;           /* memory_bytes known */
	uint64_t mem;          /* bytes */
	int mem_err;           /* why memory is unknown: -errno */
	long *dist;            /* one row; NULL: unreadable or invalid */
	size_t ndist;
	int dist_err;          /* why dist is NULL: -errno, or 0 when read but invalid */
	char dist_why[640];    /* what is wrong with a row that was read */
};

/*** Parsers (exposed for unit tests through probe/probe.h) ***/

/* "Node 0 MemTotal:       16316152 kB" anywhere in a nodeN/meminfo or
 * "MemTotal:       16316152 kB" in /proc/meminfo: bytes. */
int numa_parse_memtotal(const char *text, uint64_t *bytes)
{
	const char *p = text;
	while ((p = strstr(p, "MemTotal:"))) {
		const char *ls = p;
		uint64_t kb = 0;
		int digits = 0;
		/* Must start a line, possibly after "Node N ". */
		while (ls > text && ls[-1] != '\n')
			ls--;
		if (ls != p && strncmp(ls, "Node ", 5)) {
			p += 9;
			continue;
		}
		p += 9;
		while (*p == ' ' || *p == '\t')
			p++;
		while (isdigit((unsigned char)*p)) {
			if (kb > (UINT64_MAX / 1024 - 9) / 10)
				return -ERANGE;
			kb = kb * 10 + (uint64_t)(*p++ - '0');
			digits++;
		}
		if (!digits)
			return -EINVAL;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "kB", 2) || (p[2] && p[2] != '\n' && !isspace((unsigned char)p[2])))
			return -EINVAL;
		*bytes = kb * 1024;
		return 0;
	}
	return -EINVAL;
}

/* "10 21 21" into a new array; -EINVAL on anything but decimal numbers
 * between 1 and 65535 separated by blanks. */
int numa_parse_distances(const char *text, long **out, size_t *n)
{
	const char *p = text;
	long *v = NULL;
	size_t cnt = 0, alloc = 0;
	*out = NULL;
	*n = 0;
	for (;;) {
		long x = 0;
		int digits = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n') {
			p++;
			while (isspace((unsigned char)*p))
				p++;
			if (*p)   /* a second line: not a distance row */
				goto bad;
		}
		if (!*p)
			break;
		while (isdigit((unsigned char)*p)) {
			x = x * 10 + (*p++ - '0');
			if (x > 65535)
				goto bad;
			digits++;
		}
		if (!digits || x < 1 || (*p && !isspace((unsigned char)*p)))
			goto bad;
		if (cnt == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			if (alloc > SR_MAX_CPUS)
				goto bad;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[cnt++] = x;
	}
	if (!cnt)
		goto bad;
	*out = v;
	*n = cnt;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

/*** Reading ***/

static int node_ids(struct probe_ctx *ctx, hwloc_bitmap_t ids, const char **src)
{
	struct path_cxt pc;
	char **names;
	size_t n, i;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, NODE_DIR);
	pc_setobj(&pc, facts_obj(&ctx->facts, "numa"), "numa");
	r = pc_read_cpulist(&pc, ids, "online");
	if (r == 0 && hwloc_bitmap_last(ids) >= SR_MAX_NODES)
		/* Node numbers stop at 1023: 0-65535 is not 65536 nodes to read. */
		pc_gap(&pc, "online", "%s: node numbers stop at %d", pc.path, SR_MAX_NODES - 1);
	else if (r == 0 && !hwloc_bitmap_iszero(ids)) {
		*src = NODE_DIR "/online";
		return 0;
	} else if (r < 0 && r != -ENOENT)
		pc_gap_read(&pc, "online", r);
	/* No (usable) online file: the nodeN directories say which exist. */
	hwloc_bitmap_zero(ids);
	if (pc_list(&pc, &names, &n, "%s", pc.dir) < 0)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		uint64_t id;
		if (!strncmp(names[i], "node", 4) && isdigit((unsigned char)names[i][4]) &&
		    parse_u64(names[i] + 4, &id) == 0 && id < SR_MAX_NODES)
			hwloc_bitmap_set(ids, (unsigned)id);
		else if (!strncmp(names[i], "node", 4) && isdigit((unsigned char)names[i][4]))
			pc_gap(&pc, "online", NODE_DIR "/%.40s: not a node number below %d", names[i], SR_MAX_NODES);
	}
	sr_free_list(names, n);
	*src = NODE_DIR;
	return hwloc_bitmap_iszero(ids) ? -ENOENT : 0;
}

/* Whether every "node..." entry of the node directory is "node" and a
 * decimal number without leading zeros (hwloc reads "node010" as 8). */
static int node_names_plain(struct sysroot *sr)
{
	struct path_cxt pc;
	char **names;
	size_t n, i;
	int plain = 1;
	pc_init(&pc, sr, NULL);
	if (pc_list(&pc, &names, &n, NODE_DIR) < 0)
		return 0;
	for (i = 0; i < n && plain; i++) {
		const char *p = names[i] + 4;
		if (strncmp(names[i], "node", 4))
			continue;
		if (!isdigit((unsigned char)*p) || (*p == '0' && p[1]) || strlen(p) > 4)
			plain = 0;
		for (; plain && *p; p++)
			if (!isdigit((unsigned char)*p))
				plain = 0;
	}
	sr_free_list(names, n);
	return plain;
}

static void read_node(struct probe_ctx *ctx, struct node *nd, size_t idx)
{
	struct path_cxt pc;
	char *s;
	size_t len;
	int r;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, NODE_DIR "/node%u", nd->id);
	pc_setobj(&pc, NULL, "numa.nodes[%zu]", idx);
	nd->cpus = hwloc_bitmap_alloc();
	r = pc_read_cpulist(&pc, nd->cpus, "cpulist");
	if (r == -ENOENT)   /* Older kernels and some captures have the mask only. */
		r = pc_read_cpumask(&pc, nd->cpus, "cpumap");
	snprintf(nd->cpus_path, sizeof(nd->cpus_path), "%s", pc.path);
	if (r < 0) {
		pc_gap_read(&pc, "cpus", r);
		hwloc_bitmap_free(nd->cpus);
		nd->cpus = NULL;
	}

	r = pc_read(&pc, &s, &len, "meminfo");
	if (r == 0) {
		/* A NUL byte means binary garbage, whatever text precedes it. */
		r = memchr(s, '\0', len) ? -EINVAL : numa_parse_memtotal(s, &nd->mem);
		free(s);
	}
	if (r == 0)
		nd->has_mem = 1;
	nd->mem_err = r;   /* the gap is the caller's: one node may use /proc/meminfo */

	r = pc_read(&pc, &s, &len, "distance");
	if (r == 0) {
		r = memchr(s, '\0', len) ? -EINVAL : numa_parse_distances(s, &nd->dist, &nd->ndist);
		free(s);
		if (r < 0)
			snprintf(nd->dist_why, sizeof(nd->dist_why),
				 "%s: unparsable (expected numbers separated by blanks)", pc.path);
		r = 0;
	}
	nd->dist_err = r;
}

/* A row is usable when it has one entry per node and the node's own entry
 * is the smallest.  Returns 1, or 0 with the reason in nd->dist_why. */
static int check_row(struct node *nd, size_t idx, size_t nnodes)
{
	size_t j;
	if (!nd->dist)
		return 0;
	if (nd->ndist != nnodes) {
		snprintf(nd->dist_why, sizeof(nd->dist_why),
			 NODE_DIR "/node%u/distance: %zu entries for %zu nodes", nd->id, nd->ndist, nnodes);
		return 0;
	}
	for (j = 0; j < nnodes; j++)
		if (nd->dist[j] < nd->dist[idx]) {
			snprintf(nd->dist_why, sizeof(nd->dist_why),
				 NODE_DIR "/node%u/distance: the distance to itself (%ld) is not the smallest",
				 nd->id, nd->dist[idx]);
			return 0;
		}
	return 1;
}

/* The CPUs with a cpuN directory, less those whose cpuN/online is 0. */
static int cpu_dirs(struct sysroot *sr, hwloc_bitmap_t set)
{
	struct path_cxt pc;
	char **names;
	size_t n, i;
	hwloc_bitmap_zero(set);
	pc_init(&pc, sr, NULL);
	pc_setdir(&pc, "/sys/devices/system/cpu");
	if (pc_list(&pc, &names, &n, "%s", pc.dir) < 0)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		uint64_t id, on;
		if (strncmp(names[i], "cpu", 3) || !isdigit((unsigned char)names[i][3]) ||
		    parse_u64(names[i] + 3, &id) < 0 || id >= SR_MAX_CPUS)
			continue;
		if (pc_read_u64(&pc, &on, "%s/online", names[i]) == 0 && on == 0)
			continue;
		hwloc_bitmap_set(set, (unsigned)id);
	}
	sr_free_list(names, n);
	return hwloc_bitmap_iszero(set) ? -ENOENT : 0;
}

/* The whole machine as one node (no node directory, or unusable node data). */
static void one_node(struct probe_ctx *ctx, cJSON *numa, unsigned id,
		     hwloc_const_bitmap_t cpus, const char *cpus_src, const char *why)
{
	struct path_cxt pc;
	cJSON *nodes, *n = cJSON_CreateObject();
	cJSON *d;
	char *s;
	uint64_t mem;
	int r;

	cJSON_AddNumberToObject(numa, "node_count", 1);
	nodes = cJSON_AddArrayToObject(numa, "nodes");
	cJSON_AddItemToArray(nodes, n);
	cJSON_AddNumberToObject(n, "id", id);
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, n, "numa.nodes[0]");
	fj_list(n, "cpus", cpus);
	fj_num_or_null(n, "cpu_count", cpus != NULL, cpus ? hwloc_bitmap_weight(cpus) : 0);
	if (!cpus)
		pc_gap(&pc, "cpus", "the online CPUs are unknown");
	else
		pc_evidence_of(&pc, "cpus", cpus_src);
	r = pc_read(&pc, &s, NULL, "/proc/meminfo");
	if (r == 0) {
		r = numa_parse_memtotal(s, &mem);
		free(s);
	}
	fj_num_or_null(n, "memory_bytes", r == 0, r == 0 ? (double)mem : 0);
	if (r == -EINVAL)
		pc_gap(&pc, "memory_bytes", "%s: unparsable (no 'MemTotal: N kB' line)", pc.path);
	else
		pc_record(&pc, "memory_bytes", r);
	/* One node: its distance to itself is the local distance by definition. */
	d = cJSON_AddArrayToObject(n, "distances");
	cJSON_AddItemToArray(d, cJSON_CreateNumber(10));
	pc_evidence_of(&pc, "distances", "(one node: local distance 10)");
	cJSON_AddArrayToObject(numa, "cpuless_nodes");
	pc_setobj(&pc, numa, "numa");
	pc_evidence_of(&pc, "node_count", why);
}

/*
 * hwloc's count, where it can differ from ours.  hwloc 2.9 counts the
 * nodes of node/online (topology-linux.c, list_sysfsnode()) and keeps
 * each one that has CPUs or memory: when our count came from that same
 * list and every node's cpulist and meminfo were read, with CPUs or
 * memory in each, its answer is ours by construction, and loading it
 * would only read those files again.  Otherwise (no node/online, no node
 * directory, overlapping lists, a node unreadable or empty) it is asked.
 */
static void cross_check_hwloc(struct probe_ctx *ctx, int count, int settled, const char *why)
{
	hwloc_topology_t t;
	int h;
	if (!probe_hwloc_asked(settled))
		return;
	t = probe_topology_for(ctx, "the NUMA probe", settled ? "NODEAUDIT_HWLOC_ALWAYS is set" : why);
	if (!t)
		return;
	h = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	if (h >= 0 && h != count)
		facts_conflict(&ctx->facts, "numa.node_count", "sysfs", "hwloc",
			       "sysfs gives %d NUMA node%s, hwloc %d", count, count == 1 ? "" : "s", h);
}

/* node/has_cpu and node/has_memory are the kernel's own summary of which
 * nodes have online CPUs and memory: a node they disagree about is
 * reported (the per-node files win).  Unreadable or empty: nothing to
 * compare. */
static void cross_check_state(struct probe_ctx *ctx, const struct node *nd, size_t nn,
			      const char *file)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct path_cxt pc;
	const char *path = pc.path;
	size_t i;
	int cpu = !strcmp(file, "has_cpu");
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, NODE_DIR);
	/* Empty is seen on real machines (a ghw capture of a Ryzen desktop
	 * has an empty has_cpu): the kernel did not fill it, nothing to say. */
	if (pc_read_cpulist(&pc, set, "%s", file) == 0 && !hwloc_bitmap_iszero(set))
		for (i = 0; i < nn; i++) {
			int listed = hwloc_bitmap_isset(set, nd[i].id), has;
			if (cpu && !nd[i].cpus)
				continue;
			if (!cpu && !nd[i].has_mem)
				continue;
			has = cpu ? !hwloc_bitmap_iszero(nd[i].cpus) : nd[i].mem > 0;
			if (has == listed)
				continue;
			pc_setobj(&pc, NULL, "numa.nodes[%zu]", i);
			facts_conflict(&ctx->facts, pc_fact(&pc, cpu ? "cpus" : "memory_bytes"),
				       cpu ? nd[i].cpus_path : "node meminfo", path,
				       "node %u %s in %s, but its %s says %s", nd[i].id,
				       listed ? "is listed" : "is not listed", path,
				       cpu ? "CPU list" : "meminfo",
				       has ? (cpu ? "it has online CPUs" : "it has memory")
					   : (cpu ? "it has no online CPU" : "it has no memory"));
		}
	hwloc_bitmap_free(set);
}

/* The online CPUs into online: cpu/online, else (captures without it,
 * ghw's) the cpuN directories whose online file does not say 0; where
 * they came from in *src.  1 when known, else 0. */
static int read_online(struct probe_ctx *ctx, hwloc_bitmap_t online, const char **src)
{
	struct sysroot *sr = &ctx->sr;
	struct path_cxt pc;
	int has_online, r;
	pc_init(&pc, sr, &ctx->facts);
	pc_setobj(&pc, NULL, "cpu");   /* the CPU probe's fact, read here for --only numa too */
	r = pc_read_cpulist(&pc, online, "/sys/devices/system/cpu/online");
	has_online = r == 0;
	if (r < 0 && r != -ENOENT)
		pc_gap_read(&pc, "online", r);
	*src = "/sys/devices/system/cpu/online";
	if (!has_online && cpu_dirs(sr, online) == 0) {
		/* Captures without cpu/online (ghw's): the cpuN directories
		 * whose online file does not say 0. */
		has_online = 1;
		*src = "/sys/devices/system/cpu";
	}
	return has_online;
}

/* Each node of ids, read; *nn of them. */
static struct node *read_nodes(struct probe_ctx *ctx, hwloc_const_bitmap_t ids, size_t *nn)
{
	struct node *nd;
	size_t i = 0;
	unsigned id;
	*nn = (size_t)hwloc_bitmap_weight(ids);
	nd = xcalloc(*nn, sizeof(*nd));
	hwloc_bitmap_foreach_begin(id, ids) {
		nd[i].id = id;
		read_node(ctx, &nd[i], i);
		i++;
	} hwloc_bitmap_foreach_end();
	return nd;
}

static void free_nodes(struct node *nd, size_t nn)
{
	size_t i;
	for (i = 0; i < nn; i++) {
		if (nd[i].cpus)
			hwloc_bitmap_free(nd[i].cpus);
		free(nd[i].dist);
	}
	free(nd);
}

/* A CPU belongs to exactly one node.  Firmware that puts every CPU in
 * every node (seen on SGI Altix) makes the node split meaningless: 1 (and
 * a conflict) when two nodes list a CPU, else 0. */
static int nodes_overlap(struct facts *f, const struct node *nd, size_t nn)
{
	hwloc_bitmap_t tmp = hwloc_bitmap_alloc();
	size_t i, j;
	int overlap = 0;
	for (i = 0; i < nn && !overlap; i++)
		for (j = i + 1; j < nn && !overlap; j++)
			if (nd[i].cpus && nd[j].cpus && hwloc_bitmap_intersects(nd[i].cpus, nd[j].cpus)) {
				char *both;
				hwloc_bitmap_and(tmp, nd[i].cpus, nd[j].cpus);
				both = cpulist_dup(tmp);
				overlap = 1;
				facts_conflict(f, "numa.node_count", "one node", "sysfs node CPU lists",
					       "nodes %u and %u both list CPUs %s: the firmware's NUMA "
					       "description is invalid, so the %zu nodes are reported as one",
					       nd[i].id, nd[j].id, both, nn);
				free(both);
			}
	hwloc_bitmap_free(tmp);
	return overlap;
}

/* Overlapping nodes, reported as one holding all their (online) CPUs. */
static void overlapping_as_one(struct probe_ctx *ctx, cJSON *numa, const struct node *nd, size_t nn,
			       hwloc_const_bitmap_t online, const char *online_src)
{
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, NULL, "numa.nodes[0]");   /* one_node()'s */
	for (i = 0; i < nn; i++)
		if (nd[i].cpus) {
			hwloc_bitmap_or(all, all, nd[i].cpus);
			pc_evidence_of(&pc, "cpus", nd[i].cpus_path);
		}
	if (online)
		hwloc_bitmap_and(all, all, online);
	one_node(ctx, numa, nd[0].id, all, online_src, NODE_DIR " (overlapping CPU lists: one node)");
	cross_check_hwloc(ctx, 1, 0, "the nodes' CPU lists overlap: we count one node, hwloc its own");
	hwloc_bitmap_free(all);
}

/* numa.nodes[i].cpus and cpu_count (the online ones), and whether it is
 * CPU-less. */
static void node_cpus(struct path_cxt *pc, struct node *nd, hwloc_const_bitmap_t online, cJSON *cpuless)
{
	cJSON *n = pc->obj;
	if (nd->cpus) {
		/* Offline CPUs still appear in the node's list. */
		if (online)
			hwloc_bitmap_and(nd->cpus, nd->cpus, online);
		fj_list(n, "cpus", nd->cpus);
		pc_evidence_of(pc, "cpus", nd->cpus_path);
		cJSON_AddNumberToObject(n, "cpu_count", hwloc_bitmap_weight(nd->cpus));
		if (hwloc_bitmap_iszero(nd->cpus))
			cJSON_AddItemToArray(cpuless, cJSON_CreateNumber(nd->id));
	} else {
		fj_set(n, "cpus", cJSON_CreateNull());
		fj_set(n, "cpu_count", cJSON_CreateNull());
	}
}

/* numa.nodes[i].memory_bytes: its meminfo, or /proc/meminfo for a lone node. */
static void node_memory(struct path_cxt *pc, struct node *nd, size_t nn)
{
	pc_name(pc, "meminfo");
	if (nd->has_mem)
		pc_evidence(pc, "memory_bytes");
	if (!nd->has_mem && nn == 1 && nd->mem_err == -ENOENT) {
		/* A lone node holds all the memory: captures that kept only
		 * cpumap under node/ still have /proc/meminfo. */
		char *m;
		if (pc_read(pc, &m, NULL, "/proc/meminfo") == 0) {
			if (numa_parse_memtotal(m, &nd->mem) == 0) {
				nd->has_mem = 1;
				pc_evidence(pc, "memory_bytes");
			}
			free(m);
		}
		pc_name(pc, "meminfo");   /* a gap names the node's own file */
	}
	if (!nd->has_mem) {
		if (nd->mem_err == -EINVAL)
			pc_gap(pc, "memory_bytes", "%s: unparsable (no 'MemTotal: N kB' line)", pc->path);
		else
			pc_gap_read(pc, "memory_bytes", nd->mem_err);
	}
	fj_num_or_null(pc->obj, "memory_bytes", nd->has_mem, (double)nd->mem);
}

/* numa.nodes[i].distances: its row of the SLIT, or null with a gap. */
static void node_distances(struct path_cxt *pc, struct node *nd, size_t i, size_t nn)
{
	cJSON *n = pc->obj;
	size_t j;
	pc_name(pc, "distance");
	if (nn == 1 && nd->dist_err == -ENOENT) {
		/* One node: the local distance, by definition (ACPI SLIT). */
		cJSON *d = cJSON_AddArrayToObject(n, "distances");
		cJSON_AddItemToArray(d, cJSON_CreateNumber(10));
		pc_evidence_of(pc, "distances", "(one node: local distance 10)");
	} else if (check_row(nd, i, nn)) {
		cJSON *d = cJSON_AddArrayToObject(n, "distances");
		for (j = 0; j < nn; j++)
			cJSON_AddItemToArray(d, cJSON_CreateNumber((double)nd->dist[j]));
		pc_evidence(pc, "distances");
	} else {
		fj_set(n, "distances", cJSON_CreateNull());
		if (nd->dist_err < 0)
			pc_gap_read(pc, "distances", nd->dist_err);
		else
			pc_gap(pc, "distances", "%s", nd->dist_why);
	}
}

/* numa.node_count, online, possible, nodes[] and cpuless_nodes[]. */
static void nodes_json(struct probe_ctx *ctx, cJSON *numa, struct node *nd, size_t nn,
		       hwloc_const_bitmap_t ids, hwloc_const_bitmap_t online)
{
	hwloc_bitmap_t possible = hwloc_bitmap_alloc();
	struct path_cxt pc;
	cJSON *nodes, *cpuless;
	size_t i;
	cJSON_AddNumberToObject(numa, "node_count", (double)nn);
	fj_list(numa, "online", ids);
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, NODE_DIR);
	if (pc_read_cpulist(&pc, possible, "possible") == 0)
		fj_list(numa, "possible", possible);
	nodes = cJSON_AddArrayToObject(numa, "nodes");
	cpuless = cJSON_AddArrayToObject(numa, "cpuless_nodes");
	for (i = 0; i < nn; i++) {
		cJSON *n = cJSON_CreateObject();
		cJSON_AddItemToArray(nodes, n);
		cJSON_AddNumberToObject(n, "id", nd[i].id);
		pc_setdir(&pc, NODE_DIR "/node%u", nd[i].id);
		pc_setobj(&pc, n, "numa.nodes[%zu]", i);
		node_cpus(&pc, &nd[i], online, cpuless);
		node_memory(&pc, &nd[i], nn);
		node_distances(&pc, &nd[i], i, nn);
	}
	hwloc_bitmap_free(possible);
}

/* hwloc asked where its count may differ from ours. */
static void cross_check_nodes(struct probe_ctx *ctx, const struct node *nd, size_t nn, const char *ids_src)
{
	/* Without node/online hwloc lists the nodeN names as we do
	 * (strtoul of what follows "node"): the same nodes where each
	 * name is a plain decimal number. */
	int settled = ids_src && (!strcmp(ids_src, NODE_DIR "/online") || node_names_plain(&ctx->sr));
	const char *why = settled ? NULL : "node/online unusable and node names hwloc may read otherwise";
	char buf[4096];
	size_t i;
	for (i = 0; i < nn && settled; i++)
		if (!(nd[i].cpus && !hwloc_bitmap_iszero(nd[i].cpus)) && !(nd[i].has_mem && nd[i].mem)) {
			settled = 0;
			snprintf(buf, sizeof(buf), "node %u has no CPU or memory we could read: "
				 "hwloc keeps or drops it by its own rule", nd[i].id);
			why = buf;
		}
	cross_check_hwloc(ctx, (int)nn, settled, why);
}

int probe_numa(struct probe_ctx *ctx)
{
	struct path_cxt pc;
	struct facts *f = &ctx->facts;
	cJSON *numa = facts_obj(f, "numa");
	hwloc_bitmap_t online = hwloc_bitmap_alloc(), ids = hwloc_bitmap_alloc();
	struct node *nd = NULL;
	size_t nn = 0;
	const char *ids_src = NULL, *online_src;
	int has_online = read_online(ctx, online, &online_src);
	int is_dir;

	pc_init(&pc, &ctx->sr, f);
	pc_setobj(&pc, numa, "numa");
	is_dir = pc_is_dir(&pc, NODE_DIR) > 0;
	if (!is_dir || node_ids(ctx, ids, &ids_src) < 0) {
		hwloc_bitmap_t cpus = has_online ? online : NULL;
		one_node(ctx, numa, 0, cpus, online_src, is_dir
			 ? NODE_DIR " (no nodes listed: one node assumed)"
			 : NODE_DIR " (absent: one node assumed)");
		/* No node directory at all: hwloc makes one node of the
		 * machine's memory, as we do. */
		cross_check_hwloc(ctx, 1, !is_dir && pc_exists(&pc, NODE_DIR) <= 0,
				  "no node listed: we assume one node, hwloc counts its own");
		goto out;
	}
	pc_evidence_of(&pc, "node_count", ids_src);
	nd = read_nodes(ctx, ids, &nn);
	if (nodes_overlap(f, nd, nn)) {
		overlapping_as_one(ctx, numa, nd, nn, has_online ? online : NULL, online_src);
		goto out;
	}
	nodes_json(ctx, numa, nd, nn, ids, has_online ? online : NULL);
	cross_check_state(ctx, nd, nn, "has_cpu");
	cross_check_state(ctx, nd, nn, "has_memory");
	cross_check_nodes(ctx, nd, nn, ids_src);
out:
	free_nodes(nd, nn);
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(ids);
	return 0;
}
