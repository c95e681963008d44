/* audit/plan-runtime.c - launch lines in a runtime's own terms (llama.cpp, vLLM's
 * CPU backend), the thread knee measured by bench --sweep, and whether the
 * model fits each worker's node.  Pure: the plan, the facts and what
 * cmd/plan.c read (model, bench document) in, the plan amended. */
#include "config.h"
#include "audit/plan.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <hwloc.h>
#include <limits.h>
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
	long long d;
	cJSON_ArrayForEach(n, facts_get(facts, "numa.nodes"))
		if (fj_int(cJSON_GetObjectItemCaseSensitive(n, "id"), 0, INT_MAX, &d) == 1 && d == id)
			return n;
	return NULL;
}

/* A worker's node id, or -1 when it has none (the nodes are unknown). */
static int worker_node(const cJSON *w)
{
	long long n;
	return fj_int(cJSON_GetObjectItemCaseSensitive(w, "node"), 0, INT_MAX, &n) == 1 ? (int)n : -1;
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
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct strbuf sb = STRBUF_INIT;
	int last, nib;
	if (parse_cpulist(list, set) < 0 || hwloc_bitmap_iszero(set)) {
		hwloc_bitmap_free(set);
		return NULL;
	}
	last = hwloc_bitmap_last(set);
	strbuf_addstr(&sb, "0x");
	for (nib = last / 4; nib >= 0; nib--) {
		unsigned v = 0, b;
		for (b = 0; b < 4; b++)
			if (hwloc_bitmap_isset(set, (unsigned)(nib * 4) + b))
				v |= 1u << b;
		strbuf_addf(&sb, "%x", v);
	}
	hwloc_bitmap_free(set);
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
	cJSON_AddNumberToObject(f, "expected", floor(have));
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
				double fitctx = floor((budget - z->weights / shards) / (z->kv / shards / (double)z->ctx));
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
		     "'memlock unlimited' in /etc/security/limits.conf, then lock the weights (-lm mlock; "
		     "--mlock before llama.cpp's --load-mode)",
		     hb(soft->valuedouble, a, sizeof(a)), hb(z->weights, b, sizeof(b)));
		return 0;
	}
	plan_note(plan, "no --mlock: RLIMIT_MEMLOCK is unknown (process.limits); add it when 'ulimit -l' "
	     "in the worker's environment covers the model (-lm mlock; --mlock before llama.cpp's "
	     "--load-mode)");
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

/* GGML_MAX_N_THREADS: llama.cpp's -C keeps 128 hex digits, CPUs 0-511; a
 * longer mask parses and pins the wrong CPUs (common/common.cpp
 * parse_cpu_mask). */
#define LLAMA_MASK_CPUS 512

/* A model path as a runtime's argument: a relative path that starts with
 * '-' gets "./" so that no parser can read it as an option. */
char *plan_path_arg(const char *path)
{
	return path[0] == '-' ? xasprintf("./%s", path) : xstrdup(path);
}

/* -lm's value for the intent (mmap or not, lock or not); NULL: the default
 * (auto: mmap where the device allows it). */
static const char *load_mode(int mlock, int no_mmap)
{
	if (no_mmap)
		return mlock ? "mlock" : "none";
	return mlock ? "mmap+mlock" : NULL;
}

struct llama_line {
	const char *model;
	int threads, threads_batch, mlock, no_mmap, load_mode_syntax;
	const struct sizing *z;
};

static void llama_tail(cJSON *argv, const struct llama_line *l, int no_mmap)
{
	argv_add(argv, "llama-server");
	argv_add(argv, "-m");
	argv_add(argv, l->model);
	argv_add(argv, "-t");
	argv_addf(argv, "%d", l->threads);
	argv_add(argv, "-tb");
	argv_addf(argv, "%d", l->threads_batch);
	if (l->z->ctx_given) {
		argv_add(argv, "-c");
		argv_addf(argv, "%llu", (unsigned long long)l->z->ctx);
	}
	if (l->load_mode_syntax) {
		const char *lm = load_mode(l->mlock, no_mmap);
		if (lm) {
			argv_add(argv, "-lm");
			argv_add(argv, lm);
		}
	} else {
		/* --no-mmap first: the builds that took both spellings mapped
		 * "--mlock --no-mmap", in that order, to no lock (llama.cpp PR
		 * 26133); before them the two were independent. */
		if (no_mmap)
			argv_add(argv, "--no-mmap");
		if (l->mlock)
			argv_add(argv, "--mlock");
	}
}

/* Which llama-server syntax, said in the plan. */
static int llama_syntax(cJSON *plan, const struct plan_opts *o)
{
	const struct plan_syntax *sx = o->syntax;
	cJSON *s = cJSON_AddObjectToObject(plan, "runtime_syntax");
	int lm = sx ? sx->load_mode : 1;
	cJSON_AddStringToObject(s, "load", lm ? "-lm/--load-mode" : "--no-mmap/--mlock");
	if (sx && sx->bin) {
		cJSON_AddStringToObject(s, "from", sx->bin);
		if (sx->version)
			cJSON_AddStringToObject(s, "version", sx->version);
		else
			cJSON_AddNullToObject(s, "version");
		plan_note(plan, "llama.cpp: '%s --help' %s, so the lines use %s", sx->bin,
			  lm ? "has -lm/--load-mode" : "has --no-mmap/--mlock and no --load-mode",
			  lm ? "-lm (none, mlock, mmap+mlock)" : "--no-mmap and --mlock");
	} else {
		const char *why = sx && sx->why ? sx->why : "no llama-server was asked";
		cJSON_AddNullToObject(s, "from");
		cJSON_AddStringToObject(s, "assumed_because", why);
		plan_note(plan, "llama.cpp: today's syntax is assumed (-lm/--load-mode, which replaced --mmap, "
			  "--no-mmap, --mlock and --direct-io): %s; a llama-server older than that wants "
			  "--no-mmap/--mlock instead: give --runtime-bin PATH and the plan asks it", why);
	}
	return lm;
}

/* The worker's CPUs as -C's mask, or NULL with the reason in why. */
static char *llama_mask(const char *cpus, const char **why)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *mask = NULL;
	if (!cpus || parse_cpulist(cpus, set) < 0 || hwloc_bitmap_iszero(set))
		*why = "the worker has no CPU list";
	else if (hwloc_bitmap_last(set) >= LLAMA_MASK_CPUS)
		*why = "a CPU is at 512 or above, beyond the 128 hex digits llama.cpp's -C keeps "
		       "(GGML_MAX_N_THREADS): a longer mask would pin the wrong CPUs";
	else
		mask = cpu_mask_hex(cpus);
	hwloc_bitmap_free(set);
	return mask;
}

static void llama_options(cJSON *plan)
{
	cJSON *opts = cJSON_AddArrayToObject(plan, "runtime_options"), *e;
	e = cJSON_CreateObject();
	cJSON_AddItemToObject(e, "args", cJSON_CreateStringArray((const char *[]){ "--prio", "2" }, 2));
	cJSON_AddStringToObject(e, "why", "high priority for the server's threads: a token's latency is "
				"the slowest thread's, and a preempted one stalls the rest at the barrier; needs "
				"CAP_SYS_NICE (or root), else llama.cpp warns and runs at normal priority");
	cJSON_AddItemToArray(opts, e);
	e = cJSON_CreateObject();
	cJSON_AddItemToObject(e, "args", cJSON_CreateStringArray((const char *[]){ "--poll", "100" }, 2));
	cJSON_AddStringToObject(e, "why", "threads spin for work instead of sleeping (default 50): less "
				"wake-up latency between an agent's short requests, at the cost of the worker's "
				"cores at 100% while idle; leave it at the default on a shared node");
	cJSON_AddItemToArray(opts, e);
}

static void build_llama(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	cJSON *w, *workers = cJSON_GetObjectItemCaseSensitive(plan, "workers");
	struct sizing z;
	struct llama_line l = { 0 };
	int n = cJSON_GetArraySize(workers), pc = o->bench ? page_cache_node(o) : -1, masked = 0;
	char *model = plan_path_arg(o->model ? o->model->path : MODEL_PLACEHOLDER);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	sizing(o, &z);
	l.z = &z;
	l.model = model;
	l.load_mode_syntax = llama_syntax(plan, o);
	l.mlock = mlock_allowed(plan, facts, &z) == 1;
	if (n > 1)
		plan_note(plan, "no mmap: with one worker per node each loads its own copy into its node's "
		     "memory; mapped, the one page-cache copy sits on one node and the other workers "
		     "read it across the interconnect");
	cJSON_ArrayForEach(w, workers) {
		cJSON *argv, *alt;
		int id = worker_node(w);
		const char *cpus = fj_get_str(w, "cpus"), *why = NULL;
		char *mask;
		double d;
		l.threads = fj_get_num(w, "threads", &d) ? (int)d : 1;
		l.threads_batch = cpus && parse_cpulist(cpus, set) == 0 && !hwloc_bitmap_iszero(set)
			? hwloc_bitmap_weight(set) : l.threads;
		l.no_mmap = n > 1;
		if (!cpus || !*cpus) {
			plan_note(plan, "node %d: the worker has no CPU: no launch line", id);
			continue;
		}
		fj_set(w, "threads_batch", cJSON_CreateNumber(l.threads_batch));
		if (n == 1 && pc >= 0 && id >= 0 && pc != id) {
			l.no_mmap = 1;
			plan_note(plan, "no mmap: the bench found the model's page cache on node %d, the worker "
			     "runs on node %d: loaded privately, its copy lands on its own node", pc, id);
		}
		argv = cJSON_CreateArray();
		argv_add(argv, "numactl");
		argv_addf(argv, "--physcpubind=%s", cpus);
		if (id >= 0)
			argv_addf(argv, "--membind=%d", id);
		argv_add(argv, "--");
		llama_tail(argv, &l, l.no_mmap);
		argv_add(argv, "--numa");
		argv_add(argv, "numactl");
		cJSON_AddItemToObject(w, "command", argv);
		cJSON_AddObjectToObject(w, "env");
		/* Where numactl is not installed: llama.cpp's own affinity masks
		 * for both thread pools; memory then follows first touch by the
		 * pinned threads, hence no mmap. */
		alt = cJSON_CreateArray();
		llama_tail(alt, &l, 1);
		mask = llama_mask(cpus, &why);
		if (mask) {
			argv_add(alt, "-C");
			argv_add(alt, mask);
			argv_add(alt, "--cpu-strict");
			argv_add(alt, "1");
			argv_add(alt, "--cpu-mask-batch");
			argv_add(alt, mask);
			argv_add(alt, "--cpu-strict-batch");
			argv_add(alt, "1");
			masked++;
		} else {
			plan_note(plan, "node %d: no -C in the line without numactl: %s; the numactl line is the "
				  "only binding for this worker", id, why);
		}
		cJSON_AddItemToObject(w, "command_without_numactl", alt);
		free(mask);
	}
	plan_note(plan, "llama.cpp: whether numactl is installed on the node is not probed: each worker "
	     "has a numactl line (--physcpubind and --membind bind the threads and the memory; the "
	     "reliable binding) and one with llama.cpp's own masks (-C, --cpu-mask-batch, strict; no "
	     "mmap, so that the pinned threads' first touch places the weights). Some llama.cpp builds "
	     "parse -C and do not apply it (llama.cpp issues 26997, 28650): prefer the numactl line");
	plan_note(plan, "llama.cpp: -t is the decode threads (decode is bandwidth bound: the knee from "
		  "bench --sweep where given), -tb the prompt threads, one per physical core of the "
		  "worker (prompt processing is compute bound)");
	llama_options(plan);
	if (!o->model)
		plan_note(plan, "the model is a placeholder: give it with --model FILE.gguf (its size decides "
		     "the lock and the fit)");
	else
		plan_fit(plan, facts, &z, 1, "llama.cpp");
	hwloc_bitmap_free(set);
	free(model);
}

/*** vLLM (CPU backend) ***/

/* Docker's /dev/shm is 64 MB; vLLM's docker examples for the CPU backend
 * give 4g (PyTorch's processes share tensors through it, the CPU ranks
 * all-reduce through it). */
#define VLLM_SHM "4g"

/* vLLM's checks on a tensor-parallel size tp:
 *  - vllm/config (ModelConfig.verify_with_parallel_config): "Total number
 *    of attention heads (H) must be divisible by tensor parallel size (tp)";
 *  - vllm/model_executor/layers/linear.py (QKVParallelLinear.__init__):
 *    the KV heads are split (divide(kv, tp)) when tp < kv, else replicated
 *    (divide(tp, kv)): one must divide the other. */
int plan_vllm_tp_ok(uint64_t heads, uint64_t kv, int tp)
{
	if (tp < 1 || !heads || heads % (uint64_t)tp)
		return 0;
	if (!kv)
		return 1;
	return (uint64_t)tp < kv ? kv % (uint64_t)tp == 0 : (uint64_t)tp % kv == 0;
}

struct vllm {
	cJSON *plan, *workers;
	struct sizing z;
	const struct plan_model *m;
	int n, tp, groups, nodes_known;
	double budget_min;      /* the smallest worker node's memory x NODE_SHARE; NAN unknown */
	hwloc_bitmap_t all, mems, s, resv;
};

/* The memory of worker w's node, or NAN. */
static double worker_mem(const cJSON *facts, const cJSON *w)
{
	const cJSON *n = worker_node(w) >= 0 ? node_fact(facts, worker_node(w)) : NULL;
	double mem;
	if (n && fj_get_num(n, "memory_bytes", &mem) && mem > 0)
		return mem;
	if (worker_node(w) < 0 && fj_get_num(facts_get(facts, "memory"), "total_bytes", &mem) && mem > 0)
		return mem;
	return NAN;
}

/* Tensor parallel or one replica per node, and why. */
static void vllm_choose(struct vllm *v, cJSON *par)
{
	const struct plan_model *m = v->m;
	double need = v->z.weights + v->z.kv;
	char a[32], b[32], *why = NULL;
	int t;
	v->tp = 1;
	if (!m)
		why = xstrdup("no --model: one replica per node (no cross-node traffic); give --model DIR, a "
			      "Hugging Face checkpoint, and a model that does not fit one node is split by "
			      "tensor parallelism");
	else if (!isfinite(v->budget_min))
		why = xstrdup("the nodes' memory is unknown, so whether the model fits one node is too: one "
			      "replica per node");
	else if (need <= v->budget_min)
		why = xasprintf("the model (%s with its KV cache at --ctx %llu) fits one node (%s usable on "
				"the smallest): one replica per node; tensor parallelism across nodes would put "
				"a cross-node all-reduce in every layer", hb(need, a, sizeof(a)),
				(unsigned long long)v->z.ctx, hb(v->budget_min, b, sizeof(b)));
	else {
		for (t = 2; t <= v->n; t++)
			if (plan_vllm_tp_ok(m->heads, m->kv_heads, t) && need / t <= v->budget_min)
				break;
		if (t <= v->n) {
			v->tp = t;
			why = xasprintf("the model (%s with its KV cache at --ctx %llu) does not fit one node (%s "
					"usable): tensor parallel %d, the smallest size that divides its %llu "
					"attention heads (and %llu KV heads) and fits", hb(need, a, sizeof(a)),
					(unsigned long long)v->z.ctx, hb(v->budget_min, b, sizeof(b)), t,
					(unsigned long long)m->heads, (unsigned long long)m->kv_heads);
		} else {
			for (t = v->n; t > 1 && !plan_vllm_tp_ok(m->heads, m->kv_heads, t); t--)
				;
			v->tp = t;
			why = xasprintf("the model (%s) fits no split over these %d nodes (see the fit): tensor "
					"parallel %d, the largest size that divides its %llu attention heads and "
					"%llu KV heads", hb(need, a, sizeof(a)), v->n, t,
					(unsigned long long)m->heads, (unsigned long long)m->kv_heads);
		}
	}
	v->groups = v->n / v->tp;
	cJSON_AddStringToObject(par, "mode", v->tp > 1 ? "tensor" : "replicas");
	cJSON_AddNumberToObject(par, "tensor_parallel_size", v->tp);
	cJSON_AddNumberToObject(par, "replicas", v->groups);
	cJSON_AddStringToObject(par, "why", why);
	plan_note(v->plan, "vLLM: %s", why);
	free(why);
}

/* VLLM_CPU_KVCACHE_SPACE for a replica whose smallest node has budget bytes
 * usable: what its weight shard and the runtime's own reserve leave. */
static void vllm_kvcache(struct vllm *v, cJSON *env, double budget, int first)
{
	cJSON *plan = v->plan;
	double shard = v->z.weights / v->tp, reserve = shard / 10 > GIB ? shard / 10 : GIB, left;
	char a[32], b[32], c[32];
	if (!v->z.have_model) {
		if (first)
			plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: give --model DIR, and it is sized from "
				  "each node's memory less the weight shard and the runtime's reserve");
		return;
	}
	if (!isfinite(budget)) {
		if (first)
			plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: the nodes' memory is unknown");
		return;
	}
	left = budget - shard - reserve;
	if (left < GIB) {
		if (first)
			plan_note(plan, "VLLM_CPU_KVCACHE_SPACE not set: less than 1 GiB is left on the smallest "
				  "node once its weight shard and the runtime's reserve are counted (see the fit)");
		return;
	}
	{
		char val[32];
		snprintf(val, sizeof(val), "%.0f", floor(left / GIB));
		cJSON_AddStringToObject(env, "VLLM_CPU_KVCACHE_SPACE", val);
		if (first)
			plan_note(plan, "VLLM_CPU_KVCACHE_SPACE=%s (GiB per rank): %.0f%% of the smallest node's "
				  "memory (the rest is the OS's and the page cache's) less the %s weight shard "
				  "and a reserve of %s for the runtime's activations and buffers (a tenth of the "
				  "shard, at least 1 GiB; check the rank's resident size under load)", val,
				  NODE_SHARE * 100, hb(shard, a, sizeof(a)), hb(reserve, b, sizeof(b)));
		if (first && v->z.kv_known && v->z.kv / v->tp > left)
			plan_note(plan, "VLLM_CPU_KVCACHE_SPACE: less than one sequence at --ctx %llu fits (%s "
				  "of KV cache per rank)", (unsigned long long)v->z.ctx,
				  hb(v->z.kv / v->tp, c, sizeof(c)));
	}
}

/* One replica: workers [g*tp, g*tp+tp), one vllm serve, its env. */
static void vllm_replica(struct vllm *v, const cJSON *facts, const struct plan_opts *o, int g,
			 cJSON **top_env, cJSON **top_launch)
{
	cJSON *env = cJSON_CreateObject(), *launch = cJSON_CreateArray(), *w;
	struct strbuf bind = STRBUF_INIT;
	double budget = INFINITY;
	int i, r = 0;
	char *model = plan_path_arg(o->model ? o->model->path : "<model>");
	for (i = g * v->tp; i < (g + 1) * v->tp; i++) {
		const char *cpus;
		double mem;
		w = cJSON_GetArrayItem(v->workers, i);
		cpus = fj_get_str(w, "cpus");
		strbuf_addf(&bind, "%s%s", i > g * v->tp ? "|" : "", cpus ? cpus : "");
		mem = worker_mem(facts, w);
		budget = isfinite(mem) && mem * NODE_SHARE < budget ? mem * NODE_SHARE : isfinite(mem) ? budget : NAN;
	}
	cJSON_AddStringToObject(env, "VLLM_CPU_OMP_THREADS_BIND", bind.buf ? bind.buf : "");
	vllm_kvcache(v, env, budget, g == 0);
	argv_add(launch, "vllm");
	argv_add(launch, "serve");
	argv_add(launch, model);
	argv_add(launch, "--tensor-parallel-size");
	argv_addf(launch, "%d", v->tp);
	if (v->z.ctx_given) {
		argv_add(launch, "--max-model-len");
		argv_addf(launch, "%llu", (unsigned long long)v->z.ctx);
	}
	if (v->groups > 1) {
		argv_add(launch, "--port");
		argv_addf(launch, "%d", 8000 + g);
	}
	for (i = g * v->tp; i < (g + 1) * v->tp; i++) {
		w = cJSON_GetArrayItem(v->workers, i);
		cJSON_AddNumberToObject(w, "replica", g);
		cJSON_AddNumberToObject(w, "rank", r++);
		cJSON_AddItemToObject(w, "command", cJSON_Duplicate(launch, 1));
		cJSON_AddItemToObject(w, "env", cJSON_Duplicate(env, 1));
	}
	if (g == 0) {
		*top_env = env;
		*top_launch = launch;
	} else {
		cJSON_Delete(env);
		cJSON_Delete(launch);
	}
	strbuf_release(&bind);
	free(model);
}

/* In a container: binding needs CAP_SYS_NICE; the page of NUMA system calls
 * Docker's default seccomp profile opens with it. */
static void vllm_container(struct vllm *v, const cJSON *facts)
{
	cJSON *plan = v->plan, *ctr = cJSON_AddObjectToObject(plan, "container"), *d, *sc;
	char *l;
	d = cJSON_AddArrayToObject(ctr, "docker_args");
	argv_add(d, "--cap-add");
	argv_add(d, "SYS_NICE");
	argv_add(d, "--shm-size");
	argv_add(d, VLLM_SHM);
	argv_add(d, "--cpuset-cpus");
	argv_add(d, l = cpulist_dup(v->all));
	free(l);
	if (v->nodes_known) {
		argv_add(d, "--cpuset-mems");
		argv_add(d, l = cpulist_dup(v->mems));
		free(l);
	}
	cJSON_AddStringToObject(ctr, "seccomp", "docker-default");
	sc = cJSON_AddArrayToObject(ctr, "seccomp_allow");
	argv_add(sc, "get_mempolicy");
	argv_add(sc, "mbind");
	argv_add(sc, "set_mempolicy");
	cJSON_AddStringToObject(ctr, "why",
		"the ranks bind their threads (sched_setaffinity) and memory (set_mempolicy, mbind: "
		"vLLM's init_cpu_threads_env) themselves. Docker's default seccomp profile allows "
		"get_mempolicy, mbind and set_mempolicy to a container with CAP_SYS_NICE, so no profile "
		"of its own is needed; it denies migrate_pages, so the pages a rank touched before it "
		"bound itself stay where they are (vLLM warns). --shm-size: Docker's /dev/shm is 64 MB");
	{
		const cJSON *nice = facts_get(facts, "process.capabilities.sys_nice");
		const cJSON *gm = facts_get(facts, "process.mempolicy.get_mempolicy");
		if (cJSON_IsFalse(nice))
			plan_note(plan, "this process lacks CAP_SYS_NICE: a vLLM started the same way cannot bind "
			     "its memory (docker: --cap-add SYS_NICE)");
		if (cJSON_IsString(gm) && !strcmp(gm->valuestring, "denied"))
			plan_note(plan, "get_mempolicy is denied here (seccomp): vLLM's NUMA binding needs it; "
			     "Docker's default profile allows it with CAP_SYS_NICE");
	}
}

static void build_vllm(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	struct vllm v = { .plan = plan, .nodes_known = 1, .budget_min = INFINITY, .m = o->model };
	cJSON *w, *par, *env = NULL, *launch = NULL;
	int g;

	v.workers = cJSON_GetObjectItemCaseSensitive(plan, "workers");
	v.n = cJSON_GetArraySize(v.workers);
	v.all = hwloc_bitmap_alloc();
	v.mems = hwloc_bitmap_alloc();
	v.s = hwloc_bitmap_alloc();
	v.resv = hwloc_bitmap_alloc();
	sizing(o, &v.z);
	cJSON_ArrayForEach(w, v.workers) {
		const char *cpus = fj_get_str(w, "cpus"), *r = fj_get_str(w, "reserved_cpus");
		double mem = worker_mem(facts, w);
		if (cpus && parse_cpulist(cpus, v.s) == 0)
			hwloc_bitmap_or(v.all, v.all, v.s);
		if (r && *r && parse_cpulist(r, v.s) == 0) {
			hwloc_bitmap_or(v.all, v.all, v.s);
			hwloc_bitmap_or(v.resv, v.resv, v.s);
		}
		if (worker_node(w) >= 0)
			hwloc_bitmap_set(v.mems, (unsigned)worker_node(w));
		else
			v.nodes_known = 0;
		if (!isfinite(mem))
			v.budget_min = NAN;
		else if (mem * NODE_SHARE < v.budget_min)
			v.budget_min = mem * NODE_SHARE;
	}
	{
		/* On hybrids nothing is reserved per node: the E-cores keep house. */
		const char *h = fj_get_str(cJSON_GetObjectItemCaseSensitive(plan, "housekeeping"), "cpus");
		if (hwloc_bitmap_iszero(v.resv) && h && *h && parse_cpulist(h, v.s) == 0) {
			hwloc_bitmap_or(v.all, v.all, v.s);
			hwloc_bitmap_or(v.resv, v.resv, v.s);
		}
	}
	par = cJSON_AddObjectToObject(plan, "parallel");
	vllm_choose(&v, par);
	for (g = 0; g < v.groups; g++)
		vllm_replica(&v, facts, o, g, &env, &launch);
	if (v.n % v.tp)
		plan_note(plan, "vLLM: %d worker%s left without a rank (%d nodes are not a multiple of tensor "
			  "parallel %d)", v.n % v.tp, v.n % v.tp == 1 ? "" : "s", v.n, v.tp);
	cJSON_AddNumberToObject(plan, "tensor_parallel_size", v.tp);
	if (v.groups == 1) {
		cJSON_AddItemToObject(plan, "env", env);
		cJSON_AddItemToObject(plan, "launch", launch);
		if (v.tp == 1)
			plan_note(plan, "vLLM: one process, one rank; the worker's command and env are that launch");
		else
			plan_note(plan, "vLLM: one process starts all %d ranks (one per worker, in worker order); "
				  "each worker's command and env are that one launch", v.tp);
	} else {
		cJSON_Delete(env);
		cJSON_Delete(launch);
		plan_note(plan, "vLLM: %d processes, one per replica, on ports 8000-%d: put a load balancer "
			  "in front", v.groups, 8000 + v.groups - 1);
	}
	if (hwloc_bitmap_iszero(v.resv))
		plan_note(plan, "vLLM: no core is reserved for the API server (--reserve 0): it competes with "
			  "the ranks' threads; the docs keep one or two cores for it");
	else {
		char *l = cpulist_dup(v.resv);
		plan_note(plan, "vLLM: the API server is not pinned: taskset on vllm serve would narrow the "
			  "affinity its ranks inherit and that vLLM's automatic binding reads "
			  "(sched_getaffinity); the bind list keeps the ranks' OpenMP threads off the reserved "
			  "cores (%s), where the API server then runs", l);
		free(l);
	}
	vllm_container(&v, facts);
	if (v.z.have_model)
		plan_fit(plan, facts, &v.z, v.tp, "vllm");
	hwloc_bitmap_free(v.all);
	hwloc_bitmap_free(v.mems);
	hwloc_bitmap_free(v.s);
	hwloc_bitmap_free(v.resv);
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
