/* bench/bench.h - the memory-bandwidth microbenchmark and the decode tokens/s ceiling */
#ifndef NODEAUDIT_BENCH_H
#define NODEAUDIT_BENCH_H

#include <stdint.h>
#include "read/hwloc.h"
#include <cjson/cJSON.h>
#include "probe/probe.h"

/*** The measurement (bench/membw.c) ***/

struct membw_opts {
	uint64_t size;            /* bytes streamed per node (rounded up to whole pages per thread) */
	int threads;              /* per node; 0: one per physical core */
	const int *nodes;         /* NUMA node ids under test */
	int nnodes;
	double seconds;           /* time budget for everything */
	const uint8_t *src;       /* bytes to copy into each node's buffer (a model), or NULL */
	uint64_t src_len;         /* <= size; the rest is zero */
	int progress;             /* progress lines on stderr */
};

struct membw_node {
	int node;
	int threads;
	char *cpus;               /* the CPUs the threads are pinned to ("0-3,8"), whole */
	double bytes_per_s;       /* median */
	double min, max;          /* spread of the samples */
	double *samples;
	int nsamples;
};

struct membw_result {
	struct membw_node *nodes;
	int nnodes;
	double bytes_per_s;       /* all nodes at once (= the node's for one node) */
	double min, max;
	double *samples;
	int nsamples;
	int threads;              /* total */
	uint64_t streamed_bytes;  /* per node per pass */
	unsigned passes;          /* over the buffer per sample (> 1 for buffers in caches) */
	char kernel[48];          /* the variant chosen: "avx512 16 streams prefetch" */
	char isa[16];             /* its instruction set: avx512f, avx2, sse2, sve, neon, generic */
	int vector_bits;          /* its vector width (SVE's: the hardware's) */
	double seconds;           /* wall time used */
	char note[160];           /* a caveat for the report, or "" */
};

/* Returns 0, or -1 after printing one line (no CPUs, out of memory,
 * interrupted by SIGINT). */
int membw_run(hwloc_topology_t topo, const struct membw_opts *o, struct membw_result *r);
void membw_result_free(struct membw_result *r);

/*** The command's work (cmd/bench.c), also for `check --bench` ***/

struct bench_opts {
	const char *model;        /* GGUF path or NULL */
	uint64_t size;            /* 0: default budget */
	int threads;              /* 0: one per physical core */
	const char *nodes;        /* list ("0,1", "0-3") or NULL: every node with CPUs */
	int64_t ctx;              /* -1: min(4096, training context) */
	double seconds;
	uint32_t kv_type;         /* ggml type id of the KV cache (1 = F16) */
	int dry_run;              /* parse the model only, measure nothing */
	int sweep;                /* also each node at 1, 2, 4, ... threads (bench/sweep.c) */
};

/* Run the benchmark on the live machine (ctx already probed: memory facts
 * are read for the peak) and fill `out` with the bench.* keys of nodeaudit(1) (bench)
 * (bandwidth, nodes, model, peak_bytes_per_s, efficiency, predicted,
 * threads, seconds).  Unknown values are null with a gap in ctx->facts.
 * Returns 0, or -1 after printing one line (a malformed model, no memory). */
int bench_run(struct probe_ctx *ctx, const struct bench_opts *o, cJSON *out);

/* bench --sweep (bench/sweep.c): out.sweep = {knee_share, nodes[]: {node,
 * cores, pus, points[]: {threads, bytes_per_s, samples}, knee_threads,
 * knee_bytes_per_s, best_bytes_per_s}}, each point one membw_run of base on
 * one node.  0, or -1 after printing one line. */
int bench_sweep(hwloc_topology_t topo, const struct membw_opts *base, cJSON *out, cJSON *notes);

#endif
