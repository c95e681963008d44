/* audit/plan-runtime.c - launch lines in a runtime's own terms (llama.cpp, vLLM's
 * CPU backend), the thread knee measured by bench --sweep, and whether the
 * model fits each worker's node.  Pure: the plan, the facts and what
 * cmd/plan.c read (model, bench document) in, the plan amended. */
#include "config.h"
#include "audit/plan.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"
#include "lib/fmath.h"

#include "lib/bitmap.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define DEFAULT_CTX 4096
/* Of a node's memory, what a worker may plan for: the rest is the OS's,
 * the runtime's compute buffers' and the page cache's. */
#define NODE_SHARE 0.9
#define MODEL_PLACEHOLDER "<model.gguf>"

static const char *hb(double v, char *buf, size_t n)
{
	return human_bytes(v, buf, n);
}

/* The numa.nodes entry of node id, or NULL. */
static const cJSON *node_fact(const cJSON *facts, int id)
{
	const cJSON *n;
	double d;
	cJSON_ArrayForEach(n, facts_get(facts, "numa.nodes"))
		if (fj_get_num(n, "id", &d) && (int)d == id)
			return n;
	return NULL;
}

/* A worker's node id, or -1 when it has none (the nodes are unknown). */
static int worker_node(const cJSON *w)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(w, "node");
	return cJSON_IsNumber(n) ? (int)n->valuedouble : -1;
}

static void argv_add(cJSON *argv, const char *s)
{
	cJSON_AddItemToArray(argv, cJSON_CreateString(s));
}

static void argv_addf(cJSON *argv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void argv_addf(cJSON *argv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	argv_add(argv, s);
	free(s);
}

/* A cpulist as the plain hex mask llama.cpp's -C takes ("0xfe"). */
static char *cpu_mask_hex(const char *list)
{
	bitmap_t set = bitmap_alloc();
	struct strbuf sb = STRBUF_INIT;
	int last, nib;
	if (parse_cpulist(list, set) < 0 || bitmap_iszero(set)) {
		bitmap_free(set);
		return NULL;
	}
	last = bitmap_last(set);
	strbuf_addstr(&sb, "0x");
	for (nib = last / 4; nib >= 0; nib--) {
		unsigned v = 0, b;
		for (b = 0; b < 4; b++)
			if (bitmap_isset(set, (unsigned)(nib * 4) + b))
				v |= 1u << b;
		strbuf_addf(&sb, "%x", v);
	}
	bitmap_free(set);
	return strbuf_detach(&sb);
}

/* The model's figures at the planned context. */
struct sizing {
	int have_model;
	double weights;     /* bytes */
	double kv;          /* bytes at ctx; 0 when unknown */
	int kv_known;
	uint64_t ctx;
	int ctx_given;
};

static void sizing(const struct plan_opts *o, struct sizing *z)
{
	memset(z, 0, sizeof(*z));
	z->ctx_given = o->ctx >= 0;
	z->ctx = o->ctx >= 0 ? (uint64_t)o->ctx
		: o->model && o->model->n_ctx_train && o->model->n_ctx_train < DEFAULT_CTX
		? o->model->n_ctx_train : DEFAULT_CTX;
	if (!o->model)
		return;
	z->have_model = 1;
	z->weights = (double)o->model->weight_bytes;
	z->kv_known = o->model->kv_bytes_per_pos > 0;
	z->kv = (double)o->model->kv_bytes_per_pos * (double)z->ctx;
}

/*** The thread knee from bench --sweep ***/

static const cJSON *sweep_nodes(const cJSON *bench)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(bench, "bench");
	if (!b)
		b = facts_get(cJSON_GetObjectItemCaseSensitive(bench, "facts"), "bench");
	return facts_get(b, "sweep.nodes");
}

static void apply_knee(cJSON *plan, const struct plan_opts *o)
{
	const cJSON *nodes = sweep_nodes(o->bench), *n;
	cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(plan, "workers")) {
		int id = worker_node(w), threads = 0, knee = -1;
		double d, kbw = NAN;
		char hb1[32];
		char *s;
		const char *cpus = fj_get_str(w, "cpus");
		const char *cmd = o->command && *o->command ? o->command : PLAN_PLACEHOLDER;
		if (fj_get_num(w, "threads", &d))
			threads = (int)d;
		cJSON_ArrayForEach(n, nodes)
			if (fj_get_num(n, "node", &d) && (int)d == id && fj_get_num(n, "knee_threads", &d)) {
				knee = (int)d;
				if (!fj_get_num(n, "knee_bytes_per_s", &kbw))
					kbw = NAN;
			}
		if (knee < 1) {
			if (id >= 0)
				plan_note(plan, "node %d: the bench report has no thread knee for this node: -t stays "
				     "at one per core", id);
			continue;
		}
		if (knee >= threads) {
			plan_note(plan, "node %d: the measured knee (%d threads) is not below the worker's %d "
			     "cores: -t %d", id, knee, threads, threads);
			continue;
		}
		fj_set(w, "threads", cJSON_CreateNumber(knee));
		fj_set(w, "threads_from", cJSON_CreateString("bench knee"));
		s = xasprintf("numactl --physcpubind=%s --membind=%d -- %s -t %d", cpus ? cpus : "", id, cmd, knee);
		fj_set(w, "numactl", cJSON_CreateString(s));
		free(s);
		s = xasprintf("taskset -c %s %s -t %d", cpus ? cpus : "", cmd, knee);
		fj_set(w, "taskset", cJSON_CreateString(s));
		free(s);
		if (isfinite(kbw))
			snprintf(hb1, sizeof(hb1), ", %.1f GB/s", kbw / 1e9);
		else
			hb1[0] = '\0';
		plan_note(plan, "node %d: -t %d, not %d: bench --sweep measured 95%% of this node's best "
		     "bandwidth at %d threads%s (decode is bandwidth bound: more threads only contend)",
		     id, knee, threads, knee, hb1);
	}
}

/*** Fit: weights plus KV cache against each worker's node ***/

static void add_finding(cJSON *plan, int node, double need, double have, const char *text)
{
	cJSON *fs = cJSON_GetObjectItemCaseSensitive(plan, "findings"), *f;
	if (!fs)
		fs = cJSON_AddArrayToObject(plan, "findings");
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "id", "plan.model_fit");
	cJSON_AddStringToObject(f, "status", "fail");
	cJSON_AddNumberToObject(f, "node", node);
	cJSON_AddNumberToObject(f, "observed", need);
	cJSON_AddNumberToObject(f, "expected", na_floor(have));
	cJSON_AddStringToObject(f, "text", text);
	cJSON_AddItemToArray(fs, f);
}

/* shards: the workers a copy of the model is split over (vLLM's tensor
 * parallel size; 1 for llama.cpp, where every worker holds it all). */
static void plan_fit(cJSON *plan, const cJSON *facts, const struct sizing *z, int shards,
		     const char *runtime)
{
	cJSON *fit = cJSON_AddObjectToObject(plan, "fit"), *per;
	const cJSON *w;
	double need = (z->weights + z->kv) / shards;
	int all = 1, known = 1, nworkers = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "workers"));
	char a[32], b[32], c[32];

	cJSON_AddNumberToObject(fit, "weights_bytes", z->weights);
	fj_num_or_null(fit, "kv_bytes", z->kv_known, z->kv);
	cJSON_AddNumberToObject(fit, "ctx", (double)z->ctx);
	cJSON_AddNumberToObject(fit, "shards", shards);
	cJSON_AddNumberToObject(fit, "need_bytes_per_worker", need);
	cJSON_AddNumberToObject(fit, "node_share", NODE_SHARE);
	if (!z->kv_known)
		plan_note(plan, "the model's KV cache size is unknown (its GGUF lacks the attention keys): "
		     "the fit counts the weights only");
	per = cJSON_AddArrayToObject(fit, "workers");
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(plan, "workers")) {
		int id = worker_node(w);
		const cJSON *n = id >= 0 ? node_fact(facts, id) : NULL;
		cJSON *e = cJSON_CreateObject();
		double mem, budget;
		cJSON_AddItemToArray(per, e);
		if (id >= 0)
			cJSON_AddNumberToObject(e, "node", id);
		else
			cJSON_AddNullToObject(e, "node");
		cJSON_AddNumberToObject(e, "need_bytes", need);
		if (!n || !fj_get_num(n, "memory_bytes", &mem) || mem <= 0) {
			const cJSON *t = facts_get(facts, "memory.total_bytes");
			if (id < 0 && cJSON_IsNumber(t) && t->valuedouble > 0) {
				mem = t->valuedouble;
			} else {
				cJSON_AddNullToObject(e, "memory_bytes");
				cJSON_AddNullToObject(e, "fits");
				known = 0;
				plan_note(plan, "fit: the memory of node %d is unknown: not checked there", id);
				continue;
			}
		}
		budget = mem * NODE_SHARE;
		cJSON_AddNumberToObject(e, "memory_bytes", mem);
		cJSON_AddBoolToObject(e, "fits", need <= budget);
		if (need <= budget)
			continue;
		all = 0;
		{
			struct strbuf sb = STRBUF_INIT;
			double wmax = budget > z->kv / shards ? (budget - z->kv / shards) * shards : 0;
			double machine = 0, mm;
			const cJSON *nn;
			char *s;
			cJSON_ArrayForEach(nn, facts_get(facts, "numa.nodes"))
				if (fj_get_num(nn, "memory_bytes", &mm) && mm > 0)
					machine += mm * NODE_SHARE;
			strbuf_addf(&sb, "node %d: the %s needs %s (%s of weights", id,
				    shards > 1 ? "worker's shard" : "model", hb(need, a, sizeof(a)),
				    hb(z->weights / shards, b, sizeof(b)));
			if (z->kv_known)
				strbuf_addf(&sb, " + %s of KV cache at --ctx %llu", hb(z->kv / shards, c, sizeof(c)),
					    (unsigned long long)z->ctx);
			strbuf_addf(&sb, "), more than %.0f%% of the node's %s. What to do: a smaller quant "
				    "(at most %s of weights fits at this context)", NODE_SHARE * 100,
				    hb(mem, a, sizeof(a)), hb(wmax, b, sizeof(b)));
			if (z->weights / shards < budget && z->kv_known && z->kv > 0) {
				double fitctx = na_floor((budget - z->weights / shards) / (z->kv / shards / (double)z->ctx));
				strbuf_addf(&sb, "; a shorter context (at most %.0f positions fit)", fitctx);
			}
			if (!strcmp(runtime, "llama.cpp") && nworkers > 1 && machine >= need)
				strbuf_addf(&sb, "; fewer workers, each over more nodes (one over all %d nodes with "
					    "numactl --interleave=all: %s usable)", nworkers, hb(machine, c, sizeof(c)));
			else if (!strcmp(runtime, "vllm") && machine >= z->weights + z->kv)
				strbuf_addf(&sb, "; fewer, larger ranks, each interleaving its memory over more "
					    "nodes (numactl --interleave): %s usable in all", hb(machine, c, sizeof(c)));
			s = strbuf_detach(&sb);
			add_finding(plan, id, need, budget, s);
			free(s);
		}
	}
	if (known)
		cJSON_AddBoolToObject(fit, "fits", all);
	else if (!all)
		cJSON_AddBoolToObject(fit, "fits", 0);
	else
		cJSON_AddNullToObject(fit, "fits");
}

/*** RLIMIT_MEMLOCK and the page cache ***/

/* 1: --mlock can lock the model, 0: it cannot (note says why), -1: unknown. */
static int mlock_allowed(cJSON *plan, const cJSON *facts, const struct sizing *z)
{
	const cJSON *soft = facts_get(facts, "process.limits.memlock.soft");
	char a[32], b[32];
	if (!z->have_model)
		return -1;
	if (cJSON_IsTrue(facts_get(facts, "process.capabilities.ipc_lock")))
		plan_note(plan, "--mlock: this process has CAP_IPC_LOCK, which ignores RLIMIT_MEMLOCK; the "
		     "decision follows the limit, which binds a worker without it");
	if (cJSON_IsString(soft) && !strcmp(soft->valuestring, "unlimited")) {
		plan_note(plan, "--mlock: RLIMIT_MEMLOCK is unlimited here, so the weights are locked in RAM "
		     "(never paged out)");
		return 1;
	}
	if (cJSON_IsNumber(soft)) {
		if (soft->valuedouble >= z->weights) {
			plan_note(plan, "--mlock: RLIMIT_MEMLOCK (%s) covers the %s of weights",
			     hb(soft->valuedouble, a, sizeof(a)), hb(z->weights, b, sizeof(b)));
			return 1;
		}
		plan_note(plan, "no --mlock: RLIMIT_MEMLOCK is %s, the weights are %s (llama.cpp warns and "
		     "runs unlocked); raise it first: LimitMEMLOCK=infinity in the unit, or "
		     "'memlock unlimited' in /etc/security/limits.conf, then add --mlock",
		     hb(soft->valuedouble, a, sizeof(a)), hb(z->weights, b, sizeof(b)));
		return 0;
	}
	plan_note(plan, "no --mlock: RLIMIT_MEMLOCK is unknown (process.limits); add it when 'ulimit -l' "
	     "in the worker's environment covers the model");
	return -1;
}

/* The node the bench found most of the model's page cache on, or -1. */
static int page_cache_node(const struct plan_opts *o)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(o->bench, "bench"), *n;
	double best = 0;
	int id = -1;
	if (!b)
		b = facts_get(cJSON_GetObjectItemCaseSensitive(o->bench, "facts"), "bench");
	cJSON_ArrayForEach(n, facts_get(b, "model.page_cache.nodes")) {
		uint64_t v;
		if (cJSON_IsNumber(n) && n->valuedouble > best && parse_u64(n->string, &v) == 0) {
			best = n->valuedouble;
			id = (int)v;
		}
	}
	return best > 0.5 ? id : -1;
}

/*** llama.cpp ***/

static void llama_tail(cJSON *argv, const char *model, int threads, const struct sizing *z,
		       int mlock, int no_mmap)
{
	argv_add(argv, "llama-server");
	argv_add(argv, "-m");
	argv_add(argv, model);
	argv_add(argv, "-t");
	argv_addf(argv, "%d", threads);
	if (z->ctx_given) {
		argv_add(argv, "-c");
		argv_addf(argv, "%llu", (unsigned long long)z->ctx);
	}
	if (mlock)
		argv_add(argv, "--mlock");
	if (no_mmap)
		argv_add(argv, "--no-mmap");
}

static void build_llama(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	cJSON *w, *workers = cJSON_GetObjectItemCaseSensitive(plan, "workers");
	struct sizing z;
	int n = cJSON_GetArraySize(workers), mlock, pc = o->bench ? page_cache_node(o) : -1;
	const char *model = o->model ? o->model->path : MODEL_PLACEHOLDER;

	sizing(o, &z);
	mlock = mlock_allowed(plan, facts, &z) == 1;
	if (n > 1)
		plan_note(plan, "--no-mmap: with one worker per node each loads its own copy into its node's "
		     "memory; mapped, the one page-cache copy sits on one node and the other workers "
		     "read it across the interconnect");
	cJSON_ArrayForEach(w, workers) {
		cJSON *argv = cJSON_CreateArray(), *alt = cJSON_CreateArray();
		int id = worker_node(w), threads = 1, no_mmap = n > 1;
		const char *cpus = fj_get_str(w, "cpus");
		char *mask = cpus ? cpu_mask_hex(cpus) : NULL;
		double d;
		if (fj_get_num(w, "threads", &d))
			threads = (int)d;
		if (n == 1 && pc >= 0 && id >= 0 && pc != id) {
			no_mmap = 1;
			plan_note(plan, "--no-mmap: the bench found the model's page cache on node %d, the worker "
			     "runs on node %d: loaded privately, its copy lands on its own node", pc, id);
		}
		argv_add(argv, "numactl");
		argv_addf(argv, "--physcpubind=%s", cpus ? cpus : "");
		if (id >= 0)
			argv_addf(argv, "--membind=%d", id);
		argv_add(argv, "--");
		llama_tail(argv, model, threads, &z, mlock, no_mmap);
		argv_add(argv, "--numa");
		argv_add(argv, "numactl");
		cJSON_AddItemToObject(w, "command", argv);
		cJSON_AddObjectToObject(w, "env");
		/* Where numactl is not installed: llama.cpp's own affinity mask;
		 * memory then follows first touch by the pinned threads. */
		llama_tail(alt, model, threads, &z, mlock, 1);
		argv_add(alt, "-C");
		argv_add(alt, mask ? mask : "");
		argv_add(alt, "--cpu-strict");
		argv_add(alt, "1");
		cJSON_AddItemToObject(w, "command_without_numactl", alt);
		free(mask);
	}
	plan_note(plan, "llama.cpp: whether numactl is installed on the node is not probed: each worker "
	     "has a numactl line (--membind keeps its memory on its node) and one with llama.cpp's own "
	     "mask (-C, --cpu-strict 1; --no-mmap so that the pinned threads' first touch places "
	     "the weights)");
	if (!o->model)
		plan_note(plan, "the model is a placeholder: give it with --model FILE.gguf (its size decides "
		     "--mlock and the fit)");
	else
		plan_fit(plan, facts, &z, 1, "llama.cpp");
}

/*** vLLM (CPU backend) ***/

/* What the vLLM launch shares: the ranks' bind list, their CPUs and nodes. */
struct vllm {
	cJSON *plan, *workers, *env, *launch;
	struct strbuf bind;
	bitmap_t resv, all, s, mems;
	struct sizing z;
	int tp, nodes_known;
	double kvspace;
};

/* One rank per worker, in worker order: its bind list, CPUs and node, and
 * the KV cache space the smallest node leaves. */
static void vllm_ranks(struct vllm *v, const cJSON *facts)
{
	cJSON *w;
	int rank = 0;
	cJSON_ArrayForEach(w, v->workers) {
		int id = worker_node(w);
		const char *cpus = fj_get_str(w, "cpus"), *r = fj_get_str(w, "reserved_cpus");
		if (rank)
			strbuf_addstr(&v->bind, "|");
		strbuf_addstr(&v->bind, cpus ? cpus : "");
		if (cpus && parse_cpulist(cpus, v->s) == 0)
			bitmap_or(v->all, v->all, v->s);
		if (r && *r && parse_cpulist(r, v->s) == 0) {
			bitmap_or(v->resv, v->resv, v->s);
			bitmap_or(v->all, v->all, v->s);
		}
		if (id >= 0)
			bitmap_set(v->mems, (unsigned)id);
		else
			v->nodes_known = 0;
		if (v->z.have_model && id >= 0) {
			const cJSON *n = node_fact(facts, id);
			double mem;
			if (n && fj_get_num(n, "memory_bytes", &mem) && mem > 0) {
				double left = mem * NODE_SHARE - v->z.weights / v->tp;
				if (left < v->kvspace)
					v->kvspace = left;
			}
		}
		cJSON_AddNumberToObject(w, "rank", rank++);
	}
}

/* VLLM_CPU_KVCACHE_SPACE, or a note why not. */
static void vllm_kvcache(struct vllm *v)
{
	cJSON *plan = v->plan;
	double kvspace = v->kvspace;
	char a[32];
	if (!v->z.have_model)
		plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: give --model FILE.gguf, and it is sized from "
		     "each node's memory less the worker's weight shard");
	else if (!isfinite(kvspace))
		plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: the nodes' memory is unknown");
	else if (kvspace < GIB)
		plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: less than 1 GiB is left on the smallest "
		     "node once its weight shard is loaded (see the fit)");
	else {
		char val[32];
		snprintf(val, sizeof(val), "%.0f", na_floor(kvspace / GIB));
		cJSON_AddStringToObject(v->env, "VLLM_CPU_KVCACHE_SPACE", val);
		plan_note(plan, "VLLM_CPU_KVCACHE_SPACE=%s (GiB per rank): %.0f%% of the smallest worker node's "
		     "memory less its 1/%d share of the %s of weights", val, NODE_SHARE * 100, v->tp,
		     hb(v->z.weights, a, sizeof(a)));
	}
}

/* The API server on the reserved cores; then the one launch, each worker's
 * command and env. */
static void vllm_launch(struct vllm *v, const struct plan_opts *o)
{
	cJSON *plan = v->plan, *launch = v->launch, *w;
	const char *model = o->model ? o->model->path : "<model>";
	char buf[8192];
	/* On hybrids nothing is reserved per node: the E-cores keep house. */
	if (bitmap_iszero(v->resv)) {
		const char *h = fj_get_str(cJSON_GetObjectItemCaseSensitive(plan, "housekeeping"), "cpus");
		if (h && *h && parse_cpulist(h, v->s) == 0)
			bitmap_copy(v->resv, v->s);
	}
	bitmap_or(v->all, v->all, v->resv);
	if (!bitmap_iszero(v->resv)) {
		argv_add(launch, "taskset");
		argv_add(launch, "-c");
		argv_add(launch, cpulist_str(v->resv, buf, sizeof(buf)));
		plan_note(plan, "vLLM: the API server runs on the housekeeping cores (taskset -c %s); the ranks' "
		     "OpenMP threads on their bind lists. VLLM_CPU_NUM_OF_RESERVED_CPU is left unset: it "
		     "applies to automatic binding, and the bind list leaves the reserved cores out already", buf);
	} else
		plan_note(plan, "vLLM: no core is reserved for the API server (--reserve 0): it competes with "
		     "rank 0's threads; the docs keep one or two cores for it");
	argv_add(launch, "vllm");
	argv_add(launch, "serve");
	argv_add(launch, model);
	argv_add(launch, "--tensor-parallel-size");
	argv_addf(launch, "%d", v->tp);
	if (v->z.ctx_given) {
		argv_add(launch, "--max-model-len");
		argv_addf(launch, "%llu", (unsigned long long)v->z.ctx);
	}
	cJSON_ArrayForEach(w, v->workers) {
		cJSON_AddItemToObject(w, "command", cJSON_Duplicate(launch, 1));
		cJSON_AddItemToObject(w, "env", cJSON_Duplicate(v->env, 1));
	}
}

/* In a container: binding needs CAP_SYS_NICE and the NUMA system calls. */
static void vllm_container(struct vllm *v, const cJSON *facts)
{
	cJSON *plan = v->plan, *ctr;
	char buf[8192];
	ctr = cJSON_AddObjectToObject(plan, "container");
	{
		cJSON *d = cJSON_AddArrayToObject(ctr, "docker_args"), *sc;
		argv_add(d, "--cap-add");
		argv_add(d, "SYS_NICE");
		argv_add(d, "--security-opt");
		argv_add(d, "seccomp=PROFILE.json");
		argv_add(d, "--cpuset-cpus");
		argv_add(d, cpulist_str(v->all, buf, sizeof(buf)));
		if (v->nodes_known) {
			argv_add(d, "--cpuset-mems");
			argv_add(d, cpulist_str(v->mems, buf, sizeof(buf)));
		}
		sc = cJSON_AddArrayToObject(ctr, "seccomp_allow");
		argv_add(sc, "get_mempolicy");
		argv_add(sc, "set_mempolicy");
		argv_add(sc, "mbind");
		argv_add(sc, "migrate_pages");
		argv_add(sc, "move_pages");
		cJSON_AddStringToObject(ctr, "why",
			"the ranks bind their threads and memory with sched_setaffinity and the NUMA system "
			"calls: without CAP_SYS_NICE and a seccomp profile that allows get_mempolicy and "
			"migrate_pages, binding silently weakens");
	}
	{
		const cJSON *nice = facts_get(facts, "process.capabilities.sys_nice");
		const cJSON *gm = facts_get(facts, "process.mempolicy.get_mempolicy");
		if (cJSON_IsFalse(nice))
			plan_note(plan, "this process lacks CAP_SYS_NICE: a vLLM started the same way cannot bind "
			     "its memory (docker: --cap-add SYS_NICE)");
		if (cJSON_IsString(gm) && !strcmp(gm->valuestring, "denied"))
			plan_note(plan, "get_mempolicy is denied here (seccomp): vLLM's NUMA binding needs it; "
			     "allow it in the container's seccomp profile");
	}
}

static void build_vllm(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	struct vllm v = { .plan = plan, .bind = STRBUF_INIT, .nodes_known = 1, .kvspace = INFINITY };
	const int tp = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "workers"));

	v.workers = cJSON_GetObjectItemCaseSensitive(plan, "workers");
	v.env = cJSON_CreateObject();
	v.launch = cJSON_CreateArray();
	v.resv = bitmap_alloc();
	v.all = bitmap_alloc();
	v.s = bitmap_alloc();
	v.mems = bitmap_alloc();
	v.tp = tp;
	sizing(o, &v.z);
	vllm_ranks(&v, facts);
	cJSON_AddStringToObject(v.env, "VLLM_CPU_OMP_THREADS_BIND", v.bind.buf ? v.bind.buf : "");
	vllm_kvcache(&v);
	vllm_launch(&v, o);
	if (o->model && str_endswith(o->model->path, ".gguf"))
		plan_note(plan, "vLLM reads a GGUF file with the tokenizer of the model it came from: add "
		     "--tokenizer ORIGINAL-MODEL to the launch");
	cJSON_AddItemToObject(plan, "env", v.env);
	cJSON_AddNumberToObject(plan, "tensor_parallel_size", tp);
	cJSON_AddItemToObject(plan, "launch", v.launch);
	plan_note(plan, "vLLM: one process starts all %d rank%s (one per worker, in worker order); each "
	     "worker's command and env are that one launch", tp, tp == 1 ? "" : "s");
	vllm_container(&v, facts);
	if (v.z.have_model)
		plan_fit(plan, facts, &v.z, tp > 0 ? tp : 1, "vllm");
	strbuf_release(&v.bind);
	bitmap_free(v.resv);
	bitmap_free(v.all);
	bitmap_free(v.s);
	bitmap_free(v.mems);
}

/*** The table ***/

const struct plan_runtime plan_runtimes[] = {
	{ "llama.cpp", "llama-server", build_llama },
	{ "vllm", "vllm", build_vllm },
	{ NULL, NULL, NULL },
};

const struct plan_runtime *plan_runtime_find(const char *name)
{
	const struct plan_runtime *r;
	for (r = plan_runtimes; r->name; r++)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

void plan_runtime_apply(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	if (o->bench)
		apply_knee(plan, o);
	if (!o->runtime) {
		if (o->model)
			plan_note(plan, "--model without --runtime: the model only sizes a runtime's plan");
		return;
	}
	cJSON_AddStringToObject(plan, "runtime", o->runtime->name);
	fj_set(plan, "command", cJSON_CreateString(o->runtime->program));
	if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "workers"))) {
		plan_note(plan, "no %s launch: no worker could be placed", o->runtime->name);
		return;
	}
	o->runtime->build(plan, facts, o);
}
