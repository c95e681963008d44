/* bench/bench.c - the bench as a library call: model bytes per token, node bandwidth, decode ceiling */
#include "config.h"
#include "bench/bench.h"
#include "read/gguf.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_SIZE (1ull << 30)
#define DEFAULT_CTX 4096
#define SMALL_BUFFER (64ull << 20)   /* below this, caches inflate the figure */
#define MIN_SAMPLES 3                /* fewer: no spread to judge the median by */
#define MAX_SPREAD 1.5               /* max / min of the samples above this: unreliable */

/*** Helpers ***/

/* MemAvailable from /proc/meminfo, in bytes. */
static int mem_available(struct sysroot *sr, uint64_t *out)
{
	char *buf, *p;
	int r = sr_read_fresh(sr, "/proc/meminfo", &buf, NULL);
	unsigned long long kb;
	if (r < 0)
		return r;
	p = strstr(buf, "\nMemAvailable:");
	r = p && sscanf(p + 14, "%llu", &kb) == 1 ? 0 : -EINVAL;
	if (!r)
		*out = (uint64_t)kb * 1024;
	free(buf);
	return r;
}

static void num_or_null(cJSON *obj, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(obj, key, v);
	else
		cJSON_AddNullToObject(obj, key);
}

/* Where the mapped file's pages sit now (after the copy touched them):
 * {"sampled_pages": n, "nodes": {"0": fraction, ...}}; NULL with errno
 * set when move_pages(2) cannot say (qemu-user has none: ENOSYS). */
static cJSON *page_cache_nodes(const uint8_t *map, uint64_t from, uint64_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t first = from / pg, last = (from + len + pg - 1) / pg, npages = last - first, i;
	unsigned long n = npages < 4096 ? npages : 4096;
	void **pages;
	int *status, e;
	cJSON *j = NULL, *nodes;
	if (!n || pg <= 0) {
		errno = EINVAL;
		return NULL;
	}
	pages = xcalloc(n, sizeof(*pages));
	status = xcalloc(n, sizeof(*status));
	for (i = 0; i < n; i++)
		pages[i] = (void *)(map + (first + i * npages / n) * pg);
	if (numa_move_pages(0, n, pages, NULL, status, 0) == 0) {
		int counts[1024] = { 0 }, other = 0;
		j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "sampled_pages", n);
		nodes = cJSON_AddObjectToObject(j, "nodes");
		for (i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < 1024)
				counts[status[i]]++;
			else
				other++;
		}
		for (i = 0; i < 1024; i++)
			if (counts[i]) {
				char k[16];
				snprintf(k, sizeof(k), "%d", (int)i);
				cJSON_AddNumberToObject(nodes, k, (double)counts[i] / n);
			}
		cJSON_AddNumberToObject(j, "not_resident", (double)other / n);
	}
	e = errno;
	free(pages);
	free(status);
	errno = e;
	return j;
}

static void add_note(cJSON *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(cJSON *notes, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
}

/* A bandwidth for a note: GB/s, or MB/s under 1 GB/s. */
static const char *gbs_str(double v, char *buf, size_t n)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.1f GB/s", v / 1e9);
	else
		snprintf(buf, n, "%.3g MB/s", v / 1e6);
	return buf;
}

/* " (load average 15.6 over 2 CPUs)" from /proc/loadavg, or "". */
static void load_str(struct sysroot *sr, char *out, size_t n)
{
	char *buf;
	double l1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	*out = '\0';
	if (sr_read_fresh(sr, "/proc/loadavg", &buf, NULL) < 0)
		return;
	if (sscanf(buf, "%lf", &l1) == 1 && ncpu > 0)
		snprintf(out, n, " (load average %.1f over %ld CPU%s)", l1, ncpu, ncpu == 1 ? "" : "s");
	free(buf);
}

/* Whether the samples of one measurement can be trusted: 1 yes, 0 a spread
 * too wide (a busy machine), -1 too few samples to tell.  Adds the note. */
static int judge_samples(cJSON *notes, const char *what, int n, double min, double max, const char *load)
{
	char a[32], b[32];
	if (n < MIN_SAMPLES) {
		add_note(notes, "%s: only %d sample%s in the time budget, so the spread cannot be judged; "
			 "give more --seconds or a smaller --size", what, n, n == 1 ? "" : "s");
		return -1;
	}
	if (!(min > 0) || max > MAX_SPREAD * min) {
		add_note(notes, "%s: the samples range from %s to %s: the machine is busy%s and the "
			 "figure is unreliable", what, gbs_str(min, a, sizeof(a)), gbs_str(max, b, sizeof(b)),
			 load);
		return 0;
	}
	return 1;
}

/*** The work ***/

static cJSON *model_json(const struct gguf_file *g, const struct gguf_model *m, const struct bench_opts *o,
			 uint64_t ctx, uint64_t kv_per_pos, uint64_t kv_bytes, uint64_t per_token)
{
	cJSON *j = cJSON_CreateObject(), *ty;
	uint32_t i;
	cJSON_AddStringToObject(j, "path", g->path);
	fj_str_or_null(j, "architecture", m->arch[0] ? m->arch : NULL);
	cJSON_AddNumberToObject(j, "gguf_version", g->version);
	cJSON_AddNumberToObject(j, "tensor_count", (double)g->n_tensors);
	fj_num_or_null(j, "layers", m->has_n_layer, (double)m->n_layer);
	fj_num_or_null(j, "embedding_length", m->has_n_embd, (double)m->n_embd);
	fj_num_or_null(j, "context_length", m->has_n_ctx_train, (double)m->n_ctx_train);
	cJSON_AddNumberToObject(j, "tensor_bytes", (double)m->tensor_bytes);
	ty = cJSON_AddObjectToObject(j, "types");
	for (i = 0; i < GGML_TYPE_COUNT; i++)
		if (m->type_bytes[i])
			cJSON_AddNumberToObject(ty, ggml_type(i)->name, (double)m->type_bytes[i]);
	cJSON_AddBoolToObject(j, "tied_embeddings", m->tied);
	cJSON_AddBoolToObject(j, "moe", m->moe);
	cJSON_AddNumberToObject(j, "weight_bytes_per_token", (double)m->weight_bytes_per_token);
	cJSON_AddNumberToObject(j, "ctx", (double)ctx);
	cJSON_AddStringToObject(j, "kv_type", ggml_type(o->kv_type)->name);
	fj_num_or_null(j, "kv_bytes_per_position", m->kv_known, (double)kv_per_pos);
	fj_num_or_null(j, "kv_bytes_per_token", m->kv_known, (double)kv_bytes);
	cJSON_AddNumberToObject(j, "bytes_per_token", (double)per_token);
	return j;
}

/* What the steps of bench_run() share. */
struct bench_state {
	struct probe_ctx *ctx;
	const struct bench_opts *o;
	struct gguf_file g;
	struct gguf_model m;
	struct membw_opts mo;
	struct membw_result r;
	hwloc_topology_t topo;
	cJSON *notes, *mj;
	int have_model, *ids, nids, reliable;
	uint64_t per_token, avail, size, want, ctxlen, kv_per_pos, kv_bytes;
	double peak_bps;
};

/* The model first: a malformed file stops everything.  0, or -1 after one line. */
static int bench_model(struct bench_state *st)
{
	const struct bench_opts *o = st->o;
	struct gguf_model *m = &st->m;
	const struct ggml_type_info *kt = ggml_type(o->kv_type);
	int e = gguf_open(&st->g, o->model);
	if (e == GGUF_EIO) {
		error("cannot read '%s': %s", o->model, st->g.err);
		return -1;
	}
	if (e == 0)
		e = gguf_model_summary(&st->g, m);
	if (e < 0) {
		error("'%s': %s", o->model, st->g.err);
		return -1;
	}
	st->have_model = 1;
	st->ctxlen = o->ctx >= 0 ? (uint64_t)o->ctx
		: m->has_n_ctx_train && m->n_ctx_train < DEFAULT_CTX ? m->n_ctx_train : DEFAULT_CTX;
	/* Checked: a model's metadata may ask for more than 64 bits hold. */
	if (__builtin_mul_overflow(m->kv_elems_per_pos / kt->blck, (uint64_t)kt->bytes, &st->kv_per_pos) ||
	    __builtin_mul_overflow(st->kv_per_pos, st->ctxlen, &st->kv_bytes) ||
	    __builtin_add_overflow(m->weight_bytes_per_token, m->kv_known ? st->kv_bytes : 0, &st->per_token)) {
		error("'%s': the KV cache of %llu positions (%llu elements per position, %s) "
		      "overflows 64 bits: not a model this machine can hold", o->model,
		      (unsigned long long)st->ctxlen, (unsigned long long)m->kv_elems_per_pos, kt->name);
		return -1;
	}
	if (!m->kv_known) {
		facts_gap(&st->ctx->facts, "bench.model.kv_bytes_per_token", "%s", m->note);
		add_note(st->notes, "%s; the ceiling counts the weights only", m->note);
	}
	if (m->has_n_ctx_train && st->ctxlen > m->n_ctx_train)
		add_note(st->notes, "--ctx %llu is beyond the model's training context (%llu)",
			 (unsigned long long)st->ctxlen, (unsigned long long)m->n_ctx_train);
	if (m->moe)
		add_note(st->notes, "mixture of experts: expert tensors counted at expert_used_count / "
			 "expert_count");
	st->want = st->g.size - st->g.data_offset < st->g.data_bytes ? st->g.size - st->g.data_offset
								      : st->g.data_bytes;
	st->mj = model_json(&st->g, m, o, st->ctxlen, st->kv_per_pos, st->kv_bytes, st->per_token);
	return 0;
}

/* Nodes under test: --nodes, or every node with CPUs.  0, or -1 after one line. */
static int bench_nodes(struct bench_state *st)
{
	const struct bench_opts *o = st->o;
	hwloc_topology_t topo;
	hwloc_bitmap_t want_nodes;
	hwloc_obj_t n = NULL;
	unsigned id;

	topo = st->topo = probe_bind_topology(st->ctx);
	if (!topo) {
		const char *why;
		if ((why = hwloc_api_mismatch()))
			error("bench: hwloc places its threads, and it cannot be used: %s", why);
		else
			error("bench: cannot load the topology of this machine (hwloc)");
		return -1;
	}
	want_nodes = hwloc_bitmap_alloc();
	if (o->nodes)
		parse_cpulist(o->nodes, want_nodes);
	st->ids = xcalloc(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) + 1, sizeof(*st->ids));
	while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n))) {
		if (o->nodes ? !hwloc_bitmap_isset(want_nodes, n->os_index)
			     : hwloc_bitmap_iszero(n->cpuset))
			continue;
		st->ids[st->nids++] = (int)n->os_index;
		hwloc_bitmap_clr(want_nodes, n->os_index);
	}
	id = hwloc_bitmap_first(want_nodes);
	hwloc_bitmap_free(want_nodes);
	if (o->nodes && (int)id != -1) {
		error("bench: --nodes: this machine has no NUMA node %u", id);
		return -1;
	}
	if (!st->nids) {
		error("bench: no NUMA node with CPUs to test");
		return -1;
	}
	return 0;
}

/* The memory budget: one copy per node, half of the available memory kept
 * free.  0, or -1 after one line. */
static int bench_budget(struct bench_state *st)
{
	const struct bench_opts *o = st->o;
	uint64_t size, avail = 0, want = st->want;
	int nids = st->nids;
	char hb[32], hb2[32];

	if (mem_available(&st->ctx->sr, &avail) < 0) {
		error("bench: cannot read MemAvailable from '/proc/meminfo'; give --size");
		if (!o->size)
			return -1;
		avail = 0;
	}
	st->avail = avail;
	size = o->size ? o->size : DEFAULT_SIZE;
	if (!o->size && avail && size > avail / 2 / nids)
		size = avail / 2 / nids / (1u << 20) * (1u << 20);
	if (st->have_model) {
		if (want > size)
			add_note(st->notes, "the model's %s of tensor data is more than the %s budget: "
				 "streaming its first %s", human_bytes(want, hb, sizeof(hb)),
				 human_bytes(size, hb2, sizeof(hb2)), hb2);
		else
			size = want ? want : 4096;
	}
	st->size = size;
	if (avail && size > avail / 2 / nids) {
		error("bench: %d cop%s of %s would not fit in half of the %s of available memory; "
		      "use a smaller --size", nids, nids == 1 ? "y" : "ies",
		      human_bytes(size, hb, sizeof(hb)), human_bytes(avail, hb2, sizeof(hb2)));
		return -1;
	}
	/* Only a measurement can be of the caches: a dry run measures nothing. */
	if (size < SMALL_BUFFER && !o->dry_run)
		add_note(st->notes, "a buffer of %s per node fits in caches: the figure is not memory "
			 "bandwidth", human_bytes(size, hb, sizeof(hb)));
	return 0;
}

/* The peak from the memory probe. */
static void bench_peak(struct bench_state *st)
{
	const cJSON *peak = facts_get(st->ctx->facts.root, "memory.bandwidth.theoretical_bytes_per_s");
	if (cJSON_IsNumber(peak) && peak->valuedouble > 0)
		st->peak_bps = peak->valuedouble;
	else
		facts_gap(&st->ctx->facts, "bench.peak_bytes_per_s", "the theoretical peak is unknown "
			  "(memory.bandwidth.theoretical_bytes_per_s)");
	if (isfinite(st->peak_bps) && st->o->nodes)
		add_note(st->notes, "the peak is the whole machine's; --nodes tests part of it");
}

/* Whether the samples (all nodes', each node's) can be trusted: st->reliable. */
static void bench_judge(struct bench_state *st)
{
	struct membw_result *r = &st->r;
	char load[80], what[32];
	int i;
	load_str(&st->ctx->sr, load, sizeof(load));
	st->reliable = judge_samples(st->notes, "bandwidth", r->nsamples, r->min, r->max, load);
	for (i = 0; r->nnodes > 1 && i < r->nnodes; i++) {
		int k;
		snprintf(what, sizeof(what), "node %d", r->nodes[i].node);
		k = judge_samples(st->notes, what, r->nodes[i].nsamples, r->nodes[i].min,
				  r->nodes[i].max, load);
		/* Any spread too wide: unreliable; else any too few: unknown. */
		if (k == 0 || st->reliable == 0)
			st->reliable = 0;
		else if (k < 0)
			st->reliable = -1;
	}
}

/* The measurement (none for --dry-run).  0, or -1 after one line. */
static int bench_measure(struct bench_state *st)
{
	const struct bench_opts *o = st->o;
	struct membw_opts *mo = &st->mo;
	if (o->dry_run) {
		facts_gap(&st->ctx->facts, "bench.bandwidth.bytes_per_s", "--dry-run: not measured");
		return 0;
	}
	mo->size = st->size;
	mo->threads = o->threads;
	mo->nodes = st->ids;
	mo->nnodes = st->nids;
	mo->seconds = o->seconds;
	mo->progress = isatty(STDERR_FILENO) && verbosity >= 0;
	if (st->have_model) {
		mo->src = st->g.map + st->g.data_offset;
		mo->src_len = st->size < st->want ? st->size : st->want;
	}
	if (membw_run(st->topo, mo, &st->r) < 0)
		return -1;
	if (st->r.note[0])
		add_note(st->notes, "%s", st->r.note);
	bench_judge(st);
	if (st->have_model) {
		cJSON *pc = page_cache_nodes(st->g.map, st->g.data_offset, mo->src_len);
		if (pc)
			cJSON_AddItemToObject(st->mj, "page_cache", pc);
		else {
			int e = errno;
			cJSON_AddNullToObject(st->mj, "page_cache");
			facts_gap(&st->ctx->facts, "bench.model.page_cache", "move_pages(2) cannot say where "
				  "the model's pages are: %s", strerror(e));
		}
		cJSON_AddNumberToObject(st->mj, "streamed_bytes", (double)mo->src_len);
	}
	return 0;
}

/* bench.bandwidth: the median, the spread, reliable, the samples. */
static void bandwidth_json(struct bench_state *st, cJSON *out)
{
	const struct bench_opts *o = st->o;
	const struct membw_result *r = &st->r;
	cJSON *bw, *samples;
	int i;
	bw = cJSON_AddObjectToObject(out, "bandwidth");
	num_or_null(bw, "bytes_per_s", o->dry_run ? NAN : r->bytes_per_s);
	num_or_null(bw, "min_bytes_per_s", o->dry_run ? NAN : r->min);
	num_or_null(bw, "max_bytes_per_s", o->dry_run ? NAN : r->max);
	if (st->reliable >= 0)
		cJSON_AddBoolToObject(bw, "reliable", st->reliable);
	else {
		cJSON_AddNullToObject(bw, "reliable");
		if (o->dry_run)
			facts_gap(&st->ctx->facts, "bench.bandwidth.reliable", "--dry-run: not measured");
		else
			facts_gap(&st->ctx->facts, "bench.bandwidth.reliable", "fewer than %d samples: no "
				  "spread to judge the median by", MIN_SAMPLES);
	}
	samples = cJSON_AddArrayToObject(bw, "samples");
	for (i = 0; i < r->nsamples; i++)
		cJSON_AddItemToArray(samples, cJSON_CreateNumber(r->samples[i]));
}

/* bench.nodes[]: each node's threads, CPUs and figures. */
static void nodes_json(const struct bench_state *st, cJSON *out)
{
	const struct membw_result *r = &st->r;
	cJSON *nodes = cJSON_AddArrayToObject(out, "nodes");
	int i;
	for (i = 0; i < r->nnodes; i++) {
		cJSON *n = cJSON_CreateObject(), *s;
		int k;
		cJSON_AddNumberToObject(n, "node", r->nodes[i].node);
		cJSON_AddNumberToObject(n, "threads", r->nodes[i].threads);
		cJSON_AddStringToObject(n, "cpus", r->nodes[i].cpus);
		num_or_null(n, "bytes_per_s", r->nodes[i].bytes_per_s);
		num_or_null(n, "min_bytes_per_s", r->nodes[i].min);
		num_or_null(n, "max_bytes_per_s", r->nodes[i].max);
		s = cJSON_AddArrayToObject(n, "samples");
		for (k = 0; k < r->nodes[i].nsamples; k++)
			cJSON_AddItemToArray(s, cJSON_CreateNumber(r->nodes[i].samples[k]));
		cJSON_AddItemToArray(nodes, n);
	}
}

/* bench.sweep (bench/sweep.c) when asked.  0, or -1 after one line. */
static int sweep_json(struct bench_state *st, cJSON *out)
{
	const struct bench_opts *o = st->o;
	if (o->sweep && !o->dry_run) {
		if (bench_sweep(st->topo, &st->mo, out, st->notes) < 0)
			return -1;
	} else if (o->sweep) {
		cJSON_AddNullToObject(out, "sweep");
		facts_gap(&st->ctx->facts, "bench.sweep", "--dry-run: not measured");
	}
	return 0;
}

/* The rest of the bench.* keys: model, peak, efficiency, predicted, threads,
 * seconds, size, kernel, passes and the notes (st->notes handed over). */
static void result_json(struct bench_state *st, cJSON *out)
{
	const struct bench_opts *o = st->o;
	const struct membw_result *r = &st->r;
	cJSON *pred;
	if (st->mj) {
		cJSON_AddItemToObject(out, "model", st->mj);
		st->mj = NULL;
	} else
		cJSON_AddNullToObject(out, "model");
	num_or_null(out, "peak_bytes_per_s", st->peak_bps);
	num_or_null(out, "efficiency", o->dry_run ? NAN : r->bytes_per_s / st->peak_bps);
	pred = cJSON_AddObjectToObject(out, "predicted");
	num_or_null(pred, "tokens_per_s", st->have_model && st->per_token && !o->dry_run
		    ? r->bytes_per_s / (double)st->per_token : NAN);
	if (!st->have_model)
		facts_gap(&st->ctx->facts, "bench.predicted.tokens_per_s", "no model given (bench MODEL.gguf)");
	if (o->dry_run)
		cJSON_AddNullToObject(out, "threads");
	else
		cJSON_AddNumberToObject(out, "threads", r->threads);
	cJSON_AddNumberToObject(out, "seconds", o->dry_run ? 0 : r->seconds);
	cJSON_AddNumberToObject(out, "size_bytes", (double)st->size);
	fj_str_or_null(out, "kernel", o->dry_run ? NULL : r->kernel);
	/* Which instruction set it ran, and how wide (SVE's: the hardware's). */
	fj_str_or_null(out, "kernel_isa", o->dry_run ? NULL : r->isa);
	if (o->dry_run)
		cJSON_AddNullToObject(out, "kernel_vector_bits");
	else
		cJSON_AddNumberToObject(out, "kernel_vector_bits", r->vector_bits);
	if (o->dry_run)
		cJSON_AddNullToObject(out, "passes_per_sample");
	else
		cJSON_AddNumberToObject(out, "passes_per_sample", r->passes);
	cJSON_AddItemToObject(out, "notes", st->notes);
	st->notes = NULL;
}

int bench_run(struct probe_ctx *ctx, const struct bench_opts *o, cJSON *out)
{
	struct bench_state st;
	int ret = -1;

	memset(&st, 0, sizeof(st));
	st.ctx = ctx;
	st.o = o;
	st.reliable = -1;
	st.peak_bps = NAN;
	st.g.fd = -1;
	st.g.path = NULL;
	st.notes = cJSON_CreateArray();

	if (o->model && bench_model(&st) < 0)
		goto done;
	if (bench_nodes(&st) < 0 || bench_budget(&st) < 0)
		goto done;
	bench_peak(&st);
	if (bench_measure(&st) < 0)
		goto done;
	bandwidth_json(&st, out);
	nodes_json(&st, out);
	if (sweep_json(&st, out) < 0)
		goto done;
	result_json(&st, out);
	ret = 0;
done:
	cJSON_Delete(st.notes);
	cJSON_Delete(st.mj);
	membw_result_free(&st.r);
	free(st.ids);
	if (o->model)
		gguf_close(&st.g);
	return ret;
}
