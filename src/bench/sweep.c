/* bench/sweep.c - bench --sweep: each node's bandwidth at 1, 2, 4, ... threads
 * up to its physical cores (and its SMT count), and the knee: the fewest
 * threads reaching 95% of the node's best.  Decode is bandwidth bound, so
 * past the knee more threads only contend for the same memory channels. */
#include "config.h"
#include "bench/bench.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNEE_SHARE 0.95
#define MIN_POINT_SECONDS 0.1

/* A node's physical cores and the PUs of it this process may use. */
static void node_counts(hwloc_topology_t topo, int node, int *cores, int *pus)
{
	hwloc_obj_t n = NULL, c = NULL;
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	*cores = *pus = 0;
	while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
		if ((int)n->os_index == node)
			break;
	if (n) {
		hwloc_bitmap_t hset;
		hwloc_allowed_cpus(topo, allowed);
		hwloc_bitmap_copy(set, n->cpuset);
		hwloc_bitmap_and(set, set, allowed);
		*pus = hwloc_bitmap_weight(set);
		hset = hwloc_bitmap_dup(set);
		while ((c = hwloc_get_next_obj_inside_cpuset_by_type(topo, hset, HWLOC_OBJ_CORE, c)))
			(*cores)++;
		hwloc_bitmap_free(hset);
	}
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
}

/* 1, 2, 4, ... below cores, then cores, then pus when SMT adds threads. */
static int sweep_counts(int cores, int pus, int *out, int max)
{
	int n = 0, t;
	for (t = 1; t < cores && n < max - 2; t *= 2)
		out[n++] = t;
	if (cores > 0)
		out[n++] = cores;
	if (pus > cores)
		out[n++] = pus;
	return n;
}

int bench_sweep(hwloc_topology_t topo, const struct membw_opts *base, cJSON *out, cJSON *notes)
{
	cJSON *sw = cJSON_AddObjectToObject(out, "sweep"), *nodes;
	int i, total = 0, counts[64][40], ncounts[64];
	int nn = base->nnodes < 64 ? base->nnodes : 64;
	double per;
	cJSON_AddNumberToObject(sw, "knee_share", KNEE_SHARE);
	nodes = cJSON_AddArrayToObject(sw, "nodes");
	for (i = 0; i < nn; i++) {
		int cores, pus;
		node_counts(topo, base->nodes[i], &cores, &pus);
		ncounts[i] = sweep_counts(cores, pus, counts[i], 40);
		total += ncounts[i];
	}
	if (base->nnodes > nn)
		cJSON_AddItemToArray(notes, cJSON_CreateString("the sweep covers the first 64 nodes"));
	/* Its own time budget, as much again as the main measurement's. */
	per = base->seconds / (total ? total : 1);
	if (per < MIN_POINT_SECONDS)
		per = MIN_POINT_SECONDS;
	for (i = 0; i < nn; i++) {
		cJSON *n = cJSON_CreateObject(), *pts = NULL;
		double best = 0, *bw = xcalloc((size_t)ncounts[i] + 1, sizeof(*bw));
		int k, knee = -1, cores, pus;
		node_counts(topo, base->nodes[i], &cores, &pus);
		cJSON_AddNumberToObject(n, "node", base->nodes[i]);
		cJSON_AddNumberToObject(n, "cores", cores);
		cJSON_AddNumberToObject(n, "pus", pus);
		pts = cJSON_AddArrayToObject(n, "points");
		cJSON_AddItemToArray(nodes, n);
		for (k = 0; k < ncounts[i]; k++) {
			struct membw_opts mo = *base;
			struct membw_result r;
			cJSON *p;
			mo.nodes = &base->nodes[i];
			mo.nnodes = 1;
			mo.threads = counts[i][k];
			mo.seconds = per;
			mo.progress = 0;
			if (membw_run(topo, &mo, &r) < 0) {
				free(bw);
				return -1;
			}
			bw[k] = r.bytes_per_s;
			p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "threads", counts[i][k]);
			if (isfinite(r.bytes_per_s))
				cJSON_AddNumberToObject(p, "bytes_per_s", r.bytes_per_s);
			else
				cJSON_AddNullToObject(p, "bytes_per_s");
			cJSON_AddNumberToObject(p, "samples", r.nsamples);
			cJSON_AddItemToArray(pts, p);
			if (isfinite(r.bytes_per_s) && r.bytes_per_s > best)
				best = r.bytes_per_s;
			membw_result_free(&r);
		}
		for (k = 0; k < ncounts[i] && best > 0; k++)
			if (isfinite(bw[k]) && bw[k] >= KNEE_SHARE * best) {
				knee = counts[i][k];
				break;
			}
		if (knee > 0) {
			cJSON_AddNumberToObject(n, "knee_threads", knee);
			cJSON_AddNumberToObject(n, "knee_bytes_per_s", bw[k]);
			cJSON_AddNumberToObject(n, "best_bytes_per_s", best);
		} else {
			cJSON_AddNullToObject(n, "knee_threads");
			cJSON_AddNullToObject(n, "knee_bytes_per_s");
			cJSON_AddNullToObject(n, "best_bytes_per_s");
		}
		free(bw);
	}
	return 0;
}
