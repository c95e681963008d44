/* cmd/bench.c - `nodeaudit bench`: GGUF model bytes per token, node bandwidth, decode ceiling */
#include "config.h"
#include "bench/bench.h"
#include "cmd/cli.h"
#include "read/gguf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_SECONDS 5.0

/*** Options ***/

enum { OPT_SIZE = 256, OPT_THREADS, OPT_NODES, OPT_CTX, OPT_SECONDS, OPT_KV_TYPE, OPT_DRY_RUN, OPT_SWEEP };

/* "512M", "1G", "4096", "16k": binary multiples. */
static int parse_size(const char *s, uint64_t *out)
{
	char buf[64];
	size_t n = strlen(s);
	unsigned shift = 0;
	uint64_t v;
	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	}
	if (shift)
		buf[n - 1] = '\0';
	if (parse_u64(buf, &v) < 0)
		return -EINVAL;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/* The KV cache types llama.cpp accepts for --cache-type-k/v. */
static const char *const kv_types[] = { "f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl" };

static int kv_type_id(const char *name, uint32_t *id)
{
	uint32_t i;
	size_t k;
	for (k = 0; k < ARRAY_SIZE(kv_types); k++)
		if (!strcasecmp(name, kv_types[k]))
			for (i = 0; i < GGML_TYPE_COUNT; i++)
				if (!strcasecmp(ggml_type(i)->name, name)) {
					*id = i;
					return 0;
				}
	return -1;
}

static int bench_option(void *args, int val, const char *arg)
{
	struct bench_opts *o = args;
	uint64_t v;
	double d;
	int64_t s;
	switch (val) {
	case OPT_SIZE:
		if (parse_size(arg, &v) < 0 || v == 0)
			return usage_error("bench", "--size takes a byte count such as 512M or 1G, not '%s'", arg);
		o->size = v;
		return 0;
	case OPT_THREADS:
		if (parse_s64(arg, &s) < 0 || s < 1 || s > 4096)
			return usage_error("bench", "--threads takes a number from 1 to 4096, not '%s'", arg);
		o->threads = (int)s;
		return 0;
	case OPT_NODES: {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		int r = parse_cpulist(arg, set);
		int empty = hwloc_bitmap_iszero(set);
		hwloc_bitmap_free(set);
		if (r < 0 || empty)
			return usage_error("bench", "--nodes takes a node list such as 0 or 0-1,3, not '%s'", arg);
		o->nodes = arg;
		return 0;
	}
	case OPT_CTX:
		if (parse_s64(arg, &s) < 0 || s < 0 || s > (1ll << 30))
			return usage_error("bench", "--ctx takes a context length from 0 to 2^30, not '%s'", arg);
		o->ctx = s;
		return 0;
	case OPT_SECONDS:
		if (parse_duration(arg, &d) < 0)
			return usage_error("bench", "--seconds takes a duration from 0.1 to 3600 seconds "
					   "(such as 5, 0.5 or 2m), not '%s'", arg);
		o->seconds = d;
		return 0;
	case OPT_KV_TYPE:
		if (kv_type_id(arg, &o->kv_type) < 0)
			return usage_error("bench", "--kv-type takes f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, "
					   "q5_1 or iq4_nl, not '%s'", arg);
		return 0;
	case OPT_DRY_RUN:
		o->dry_run = 1;
		return 0;
	case OPT_SWEEP:
		o->sweep = 1;
		return 0;
	}
	return -1;
}

/*** The command ***/

static void bench_init(void *args)
{
	struct bench_opts *o = args;
	o->ctx = -1;
	o->seconds = DEFAULT_SECONDS;
	o->kv_type = 1;
}

static int bench_cmd(struct invocation *inv)
{
	struct bench_opts *o = inv->args;
	struct probe_ctx ctx;
	cJSON *doc, *gaps, *it, *tool;

	if (inv->noperands)
		o->model = inv->operands[0];
	if (G.probe.sysroot)
		return usage_error("bench", "bench measures this machine: it cannot use --sysroot");
	/* The memory probe gives the theoretical peak (host always runs). */
	if (probe_run(&ctx, &G.probe, "memory") < 0) {
		probe_release(&ctx);
		return -1;
	}
	if (bench_run(&ctx, o, facts_obj(&ctx.facts, "bench")) < 0) {
		probe_release(&ctx);
		return -1;
	}
	/* Only the gaps of the bench and of the peak it needed. */
	gaps = cJSON_CreateArray();
	cJSON_ArrayForEach(it, ctx.facts.gaps) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(it, "fact");
		if (cJSON_IsString(f) && (str_startswith(f->valuestring, "bench") ||
					  str_startswith(f->valuestring, "memory.bandwidth")))
			cJSON_AddItemToArray(gaps, cJSON_Duplicate(it, 1));
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "nodeaudit.bench/1");
	tool = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(tool, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(doc, "host", cJSON_Duplicate(facts_get(ctx.facts.root, "host"), 1));
	cJSON_AddItemToObject(doc, "bench", cJSON_Duplicate(facts_get(ctx.facts.root, "bench"), 1));
	cJSON_AddItemToObject(doc, "gaps", gaps);
	inv->doc.json = doc;
	probe_release(&ctx);
	return EXIT_OK;
}

static const struct cmd_option bench_options[] = {
	{ "size", OPT_SIZE, "BYTES", "bytes per node (K, M, G suffixes; default 1G, at most half\n"
	  "of the available memory); a larger model is streamed in part" },
	{ "threads", OPT_THREADS, "N", "threads per node (default: one per physical core)" },
	{ "nodes", OPT_NODES, "LIST", "NUMA nodes to test (default: every node with CPUs)" },
	{ "ctx", OPT_CTX, "N", "context length for the KV cache reads (default: 4096 or\n"
	  "the model's training context when smaller)" },
	{ "seconds", OPT_SECONDS, "S", "time budget (default 5; 0.5, 90s or 2m also work)" },
	{ "kv-type", OPT_KV_TYPE, "T", "KV cache type: f16 (default), f32, bf16, q8_0, q4_0, q4_1,\n"
	  "q5_0, q5_1, iq4_nl" },
	{ "dry-run", OPT_DRY_RUN, NULL, "read the model and print its figures; measure nothing" },
	{ "sweep", OPT_SWEEP, NULL, "also each node at 1, 2, 4, ... threads up to its cores (and its\n"
	  "SMT threads): the knee, the fewest threads reaching 95% of its best" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format bench_formats[] = {
	{ "text", bench_render_text },
	{ "json", render_json },
	{ NULL, NULL },
};

const struct command cmd_bench = {
	.name = "bench",
	.summary = "GGUF memory-bandwidth microbenchmark and decode tokens/s ceiling",
	.synopsis = "[MODEL.gguf] [--size BYTES] [--threads N] [--nodes LIST] [--ctx N] [--seconds S]\n"
		    "[--kv-type T] [--dry-run] [--sweep]",
	.description =
		"Copy the model's tensor data (or a synthetic buffer) into the memory of each\n"
		"NUMA node under test, stream it with one pinned thread per physical core,\n"
		"and report the bandwidth per node and in total (median of repeats, with the\n"
		"spread), the share of the theoretical peak, and the decode ceiling:\n"
		"  tokens/s = bandwidth / bytes read per token\n"
		"  bytes per token = all tensors but token_embd (one row of it; all of it\n"
		"  when there is no output.weight) + KV cache at --ctx (layers x ctx x\n"
		"  head_count_kv x (key_length + value_length) x element size)\n"
		"--sweep measures each node again at 1, 2, 4, ... threads up to its physical\n"
		"cores and its SMT threads (each point a share of --seconds): the knee is the\n"
		"fewest threads reaching 95% of the node's best ('plan --bench' uses it as -t).\n",
	.options = bench_options,
	.formats = bench_formats,
	.min_operands = 0, .max_operands = 1,
	.flags = CMD_PROBES,
	.args_size = sizeof(struct bench_opts),
	.init = bench_init,
	.option = bench_option,
	.run = bench_cmd,
};
