/* fuzz-sweep.c - `plan --bench`: a sweep document, as text, through the same
 * steps as the command (the raw text's check, JSON, the sweep's numbers:
 * plan_sweep_refusal()) and then planned with llama.cpp and with vLLM over
 * a fixed two-node machine (8 CPUs a node, one kept for the OS).  The
 * oracle, checked in process: every worker's threads is an integer from 1
 * to its node's 7 cores; a worker whose threads came from the bench knee
 * has the knee its node's entry gives; the text of the plan has no raw
 * control character; and the sanitizers' (a number cast out of range). */
#include "config.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "audit/plan.h"
#include "render/render.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char facts_text[] =
	"{\"host\":{\"hostname\":\"fuzz\"},"
	"\"cpu\":{\"online\":\"0-15\",\"hybrid\":false,\"core_cpus\":[\"0\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\","
	"\"8\",\"9\",\"10\",\"11\",\"12\",\"13\",\"14\",\"15\"]},"
	"\"numa\":{\"nodes\":[{\"id\":0,\"cpus\":\"0-7\",\"memory_bytes\":17179869184},"
	"{\"id\":1,\"cpus\":\"8-15\",\"memory_bytes\":17179869184}]}}";
static cJSON *facts;

static int raw_ctrl(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			return 1;
	return 0;
}

/* The knee the sweep gives node id (its last entry naming it, as the
 * planner reads them), or -1. */
static long long knee_of(const cJSON *nodes, long long id)
{
	const cJSON *n;
	long long v, k = -1;
	cJSON_ArrayForEach(n, nodes)
		if (fj_int(cJSON_GetObjectItemCaseSensitive(n, "node"), 0, 1023, &v) > 0 && v == id &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(n, "knee_threads")))
			fj_int(cJSON_GetObjectItemCaseSensitive(n, "knee_threads"), 1, 65536, &k);
	return k;
}

static void check_plan(const cJSON *plan, const cJSON *nodes)
{
	const cJSON *w;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	struct doc d;
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(plan, "workers")) {
		long long t, id;
		if (fj_int(cJSON_GetObjectItemCaseSensitive(w, "threads"), 1, 7, &t) <= 0)
			abort();   /* threads out of the node's cores */
		if (fj_int(cJSON_GetObjectItemCaseSensitive(w, "node"), 0, 1, &id) <= 0)
			abort();
		if (fj_get_str(w, "threads_from") && !strcmp(fj_get_str(w, "threads_from"), "bench knee") &&
		    knee_of(nodes, id) != t)
			abort();   /* a knee the sweep does not give */
	}
	memset(&d, 0, sizeof(d));
	d.json = (cJSON *)plan;
	mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	plan_render_text(mem, &d);
	if (fclose(mem) != 0 || !buf || strlen(buf) != len || raw_ctrl(buf))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const runtimes[] = { "llama.cpp", "vllm" };
	const char *why;
	char *text, *refusal;
	const cJSON *nodes;
	cJSON *doc, *plan;
	size_t i;
	if (size > (1u << 20))
		return 0;
	if (!facts && !(facts = cJSON_Parse(facts_text)))
		abort();
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	/* As plan --bench reads it (audit_load_doc, cmd/plan.c). */
	if (json_bad_offset(text, size, &why) >= 0 || !(doc = cJSON_ParseWithLength(text, size))) {
		free(text);
		return 0;
	}
	free(text);
	nodes = facts_get(cJSON_GetObjectItemCaseSensitive(doc, "bench"), "sweep.nodes");
	if (!nodes || (refusal = plan_sweep_refusal(nodes, "bench.sweep.nodes"))) {
		if (nodes)
			free(refusal);
		cJSON_Delete(doc);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(runtimes); i++) {
		struct plan_opts o = { .command = NULL, .reserve = -1, .unit = NULL, .ctx = -1 };
		o.runtime = plan_runtime_find(runtimes[i]);
		o.bench = doc;
		plan = plan_build(facts, NULL, NULL, &o);
		json_clean(plan, 1);
		check_plan(plan, nodes);
		cJSON_Delete(plan);
	}
	cJSON_Delete(doc);
	return 0;
}
