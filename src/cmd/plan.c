/* cmd/plan.c - `nodeaudit plan`: the fixes, as text, sh, sysctl, systemd or json */
#include "config.h"
#include "audit/audit.h"
#include "cmd/cli.h"
#include "read/gguf.h"
#include "read/hfmodel.h"
#include "read/runbin.h"
#include "audit/plan.h"
#include "lib/output.h"
#include "lib/quote.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_COMMAND = 256, OPT_RESERVE, OPT_UNIT, OPT_REPORT, OPT_PROFILE, OPT_RUNTIME, OPT_MODEL,
	OPT_CTX, OPT_BENCH, OPT_RUNTIME_BIN };

struct plan_args {
	struct plan_opts o;
	const char *report;
	const char *profile;
	const char *model;
	const char *bench;
	const char *runtime_bin;
	struct plan_syntax syntax;
	struct hf_model hf;
	char *bin_found, *version;
};

static void plan_init(void *args)
{
	struct plan_args *a = args;
	a->o.reserve = -1;
	a->o.ctx = -1;
}

static int plan_option(void *args, int key, const char *arg)
{
	struct plan_args *a = args;
	uint64_t v;
	switch (key) {
	case OPT_COMMAND: a->o.command = arg; return 0;
	case OPT_UNIT:
		if (!systemd_unit_ok(arg)) {
			char b1[48];
			return usage_error("plan", "--unit takes a unit name of letters, digits and : _ . - "
					   "(not starting with - or .), not '%s'", str_shown(arg, b1, sizeof(b1)));
		}
		a->o.unit = arg;
		return 0;
	case OPT_RESERVE:
		if (parse_u64(arg, &v) < 0 || v > 1024)
			return usage_error("plan", "--reserve takes a number of cores (0-1024), not '%s'", arg);
		a->o.reserve = (int)v;
		return 0;
	case OPT_REPORT: a->report = arg; return 0;
	case OPT_PROFILE: a->profile = arg; return 0;
	case OPT_RUNTIME:
		a->o.runtime = plan_runtime_find(arg);
		if (!a->o.runtime)
			return usage_error("plan", "--runtime takes llama.cpp or vllm, not '%s'", arg);
		return 0;
	case OPT_MODEL: a->model = arg; return 0;
	case OPT_CTX: {
		int64_t s;
		if (parse_s64(arg, &s) < 0 || s < 1 || s > (1ll << 30))
			return usage_error("plan", "--ctx takes a context length from 1 to 2^30, not '%s'", arg);
		a->o.ctx = s;
		return 0;
	}
	case OPT_BENCH: a->bench = arg; return 0;
	case OPT_RUNTIME_BIN: a->runtime_bin = arg; return 0;
	}
	return -1;
}

/* The model's figures for the planner: weights from the tensor table, KV
 * cache per position (f16) from the metadata, as bench reads them. */
static int plan_read_model(struct plan_args *a, const char *path, struct plan_model *pm)
{
	struct gguf_file g;
	struct gguf_model m;
	const char *rt = a->o.runtime ? a->o.runtime->name : NULL;
	int e;
	if (hf_is_dir(path)) {
		struct hf_model *h = &a->hf;
		if (rt && !strcmp(rt, "llama.cpp"))
			return error("'%s' is a checkpoint directory: llama.cpp loads one GGUF file (convert it "
				     "with llama.cpp's convert_hf_to_gguf.py)", path);
		if (hf_model_read(path, h) < 0)
			return error("%s", h->err);
		memset(pm, 0, sizeof(*pm));
		pm->path = path;
		pm->checkpoint = 1;
		pm->heads = h->heads;
		pm->kv_heads = h->kv_heads;
		pm->layers = h->layers;
		pm->hidden = h->hidden;
		pm->head_dim = h->head_dim;
		pm->dtype = h->dtype;
		pm->weight_bytes = h->weight_bytes;
		pm->kv_bytes_per_pos = hf_kv_bytes_per_pos(h);
		pm->n_ctx_train = h->max_pos;
		return 0;
	}
	if (rt && !strcmp(rt, "vllm") && access(path, F_OK) < 0)
		return error("cannot read '%s': %s", path, strerror(errno));
	if (rt && !strcmp(rt, "vllm"))
		return error("'%s': vLLM's CPU backend cannot load a GGUF file: plan it with --runtime "
			     "llama.cpp, or give --model a Hugging Face checkpoint directory", path);
	e = gguf_open(&g, path);
	if (e == GGUF_EIO) {
		error("cannot read '%s': %s", path, g.err);
		gguf_close(&g);
		return -1;
	}
	if (e == 0)
		e = gguf_model_summary(&g, &m);
	if (e < 0) {
		error("'%s': %s", path, g.err);
		gguf_close(&g);
		return -1;
	}
	memset(pm, 0, sizeof(*pm));
	pm->path = path;
	pm->weight_bytes = m.tensor_bytes;
	/* f16: 2 bytes per element, blocks of one (ggml type 1). */
	pm->kv_bytes_per_pos = m.kv_known ? m.kv_elems_per_pos / ggml_type(1)->blck * ggml_type(1)->bytes : 0;
	pm->n_ctx_train = m.has_n_ctx_train ? m.n_ctx_train : 0;
	gguf_close(&g);
	return 0;
}

/* --format tuned -o DIR: a profile is a directory, tuned.conf in it, the
 * directory's name the profile's.  DIR is made (0755) when missing and -o
 * becomes DIR/tuned.conf, written atomically like any -o file. */
static int plan_tuned_output(void)
{
	static char *conf;
	struct stat st;
	if (!G.output || !strcmp(G.output, "-"))
		return 0;
	if (output_refused(G.output, G.probe.sysroot) < 0)
		return -1;
	if (mkdir(G.output, 0755) < 0 && errno != EEXIST)
		return error("cannot create directory '%s': %s", G.output, strerror(errno));
	if (stat(G.output, &st) < 0 || !S_ISDIR(st.st_mode))
		return error("-o '%s': --format tuned writes a profile directory (tuned.conf in it), and this "
			     "is not a directory", G.output);
	free(conf);
	conf = xasprintf("%s%stuned.conf", G.output, str_endswith(G.output, "/") ? "" : "/");
	G.output = conf;
	return 0;
}

/* One file of the systemd plan under dir, written atomically; its path
 * printed.  0, or -1 after one line. */
static int write_unit_file(const char *dir, const char *sub, const char *name, const cJSON *plan,
			   const cJSON *worker)
{
	struct output out;
	char *d = sub ? xasprintf("%s/%s", dir, sub) : xstrdup(dir);
	char *path = xasprintf("%s/%s", d, name);
	int r;
	if (sub && mkdir(d, 0755) < 0 && errno != EEXIST) {
		r = error("cannot create '%s': %s", d, strerror(errno));
		goto done;
	}
	if ((r = output_open(&out, path, G.probe.sysroot)) < 0)
		goto done;
	if (worker)
		plan_render_systemd_dropin(out.fp, plan, worker);
	else
		plan_render_systemd_template(out.fp, plan, 1);
	if ((r = output_close(&out, 1)) == 0)
		printf("%s\n", path);
done:
	free(path);
	free(d);
	return r;
}

/*
 * plan --format systemd -o DIR (a directory, or a name ending in '/'):
 * the files themselves under DIR as under /etc/systemd/system -- the
 * template unit NAME@.service and NAME@INSTANCE.service.d/90-nodeaudit.conf
 * per worker -- each path printed.  0, or -1 after one line.
 */
static int write_systemd_dir(const char *dir, cJSON *plan)
{
	const char *unit = plan_systemd_unit(plan);
	const cJSON *w;
	char *name = xasprintf("%s@.service", unit), *d = xstrdup(dir);
	size_t n = strlen(d);
	int r;
	struct stat sb;
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	dir = d;
	if (output_refused(dir, G.probe.sysroot) < 0) {
		free(name);
		free(d);
		return -1;
	}
	if (stat(dir, &sb) < 0 && mkdir(dir, 0755) < 0) {
		error("cannot create '%s': %s", dir, strerror(errno));
		free(name);
		free(d);
		return -1;
	}
	json_clean(plan, 1);   /* as the runner does before a renderer */
	r = write_unit_file(dir, NULL, name, plan, NULL);
	free(name);
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(plan, "workers")) {
		char inst[32], *sub;
		if (r < 0 || !plan_systemd_worker_ok(w))
			continue;
		plan_systemd_instance(w, inst, sizeof(inst));
		sub = xasprintf("%s@%s.service.d", unit, inst);
		r = write_unit_file(dir, sub, "90-nodeaudit.conf", plan, w);
		free(sub);
	}
	if (r == 0 && verbosity >= 0)
		fprintf(stderr, "nodeaudit: copy them under /etc/systemd/system, then systemctl daemon-reload\n");
	free(d);
	return r;
}

/* -o names a directory: an existing one, or a name ending in '/'. */
static int output_is_dir(const char *o)
{
	struct stat sb;
	return o && ((stat(o, &sb) == 0 && S_ISDIR(sb.st_mode)) || str_endswith(o, "/"));
}

/* The first line of text that holds needle, into a malloc'd string. */
static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *b, *e;
	if (!p)
		return NULL;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchrnul(p, '\n');
	return xstrndup(b, (size_t)(e - b));
}

/* llama.cpp's syntax from the llama-server the node runs: --runtime-bin, else
 * llama-server on $PATH when the plan is for this machine (no --sysroot, no
 * --report); without one, today's (-lm/--load-mode), said so in the plan. */
static int plan_syntax(struct plan_args *a)
{
	struct plan_syntax *s = &a->syntax;
	const char *bin = a->runtime_bin;
	char *err = NULL, *out = NULL;
	int st;
	s->load_mode = 1;
	a->o.syntax = s;
	if (!bin) {
		if (a->report || G.probe.sysroot) {
			s->why = a->report ? "the plan is from a saved report" : "the plan is for a --sysroot, "
				"not this machine";
			return 0;
		}
		bin = a->bin_found = runbin_lookup("llama-server");
		if (!bin) {
			s->why = "no llama-server on $PATH";
			return 0;
		}
	}
	if (runbin_capture(bin, "--help", 20, &out, &st, &err) < 0) {
		if (a->runtime_bin) {
			error("--runtime-bin: %s", err);
			free(err);
			return -1;
		}
		free(err);
		s->why = "llama-server on $PATH could not be asked";
		return 0;
	}
	if (strstr(out, "--load-mode"))
		s->load_mode = 1;
	else if (strstr(out, "--no-mmap") || strstr(out, "--mlock"))
		s->load_mode = 0;
	else {
		char b[64];
		free(out);
		if (a->runtime_bin)
			return error("--runtime-bin: '%s --help' names neither --load-mode nor --no-mmap: not a "
				     "llama-server", str_shown(bin, b, sizeof(b)));
		s->why = "llama-server on $PATH names neither --load-mode nor --no-mmap in its --help";
		return 0;
	}
	free(out);
	s->bin = bin;
	if (runbin_capture(bin, "--version", 20, &out, &st, &err) < 0)
		free(err);
	else {
		a->version = line_with(out, "version:");
		s->version = a->version;
		free(out);
	}
	return 0;
}

/* A 'bench --sweep --format json' document with a sweep whose figures are
 * in range, or NULL after one line. */
static cJSON *plan_load_bench(const char *path)
{
	cJSON *bench = audit_load_doc(path, "nodeaudit.bench/1",
				      "a 'nodeaudit bench --sweep --format json' document", 64u << 20);
	char *why;
	if (!bench)
		return NULL;
	if (!facts_get(cJSON_GetObjectItemCaseSensitive(bench, "bench"), "sweep.nodes")) {
		cJSON_Delete(bench);
		error("'%s' has no thread sweep (bench.sweep.nodes): run 'nodeaudit bench --sweep --format json'",
		      path);
		return NULL;
	}
	why = plan_sweep_refusal(facts_get(cJSON_GetObjectItemCaseSensitive(bench, "bench"), "sweep.nodes"),
				 "bench.sweep.nodes");
	if (why) {
		error("'%s': %s", path, why);
		free(why);
		cJSON_Delete(bench);
		return NULL;
	}
	return bench;
}

static int plan_cmd_run(struct invocation *inv)
{
	struct plan_args *a = inv->args;
	cJSON *report;
	const cJSON *facts, *findings, *p;
	const char *profile;
	int code;
	struct plan_model model;
	cJSON *bench = NULL;

	if (a->model && plan_read_model(a, a->model, &model) < 0)
		return -1;
	if (a->runtime_bin && (!a->o.runtime || strcmp(a->o.runtime->name, "llama.cpp")))
		return usage_error("plan", "--runtime-bin goes with --runtime llama.cpp");
	if (a->o.runtime && !strcmp(a->o.runtime->name, "llama.cpp") && plan_syntax(a) < 0)
		return -1;
	if (a->model)
		a->o.model = &model;
	if (a->bench) {
		if (!(bench = plan_load_bench(a->bench)))
			return -1;
		a->o.bench = bench;
	}
	if (a->report) {
		if (G.probe.sysroot)
			return usage_error("plan", "--report and --sysroot exclude each other");
		report = audit_load_doc(a->report, "nodeaudit.report/1",
					"a 'nodeaudit check --format json' report", 256u << 20);
		if (!report) {
			cJSON_Delete(bench);
			return -1;
		}
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(report, "facts"))) {
			cJSON_Delete(report);
			cJSON_Delete(bench);
			return error("'%s' is not a 'nodeaudit check --format json' report (no facts)", a->report);
		}
		{
			char *why = plan_report_refusal(report);
			if (why) {
				error("'%s': %s", a->report, why);
				free(why);
				cJSON_Delete(report);
				cJSON_Delete(bench);
				return -1;
			}
		}
	} else {
		struct audit_opts ao = { .profile = a->profile, .fail_on = "warn" };
		if (audit_run(&ao, &G.probe, &report, &code) < 0) {
			cJSON_Delete(bench);
			return -1;
		}
	}
	facts = cJSON_GetObjectItemCaseSensitive(report, "facts");
	/* The report's host sits beside its facts: put it where the planner looks. */
	if (!cJSON_GetObjectItemCaseSensitive(facts, "host") && cJSON_GetObjectItemCaseSensitive(report, "host"))
		cJSON_AddItemToObject((cJSON *)facts, "host",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "host"), 1));
	findings = cJSON_GetObjectItemCaseSensitive(report, "findings");
	p = cJSON_GetObjectItemCaseSensitive(report, "profile");
	profile = fj_get_str(p, "name");
	/* A 'check --bench' report that swept carries the knee itself. */
	if (!a->o.bench && facts_get(facts, "bench.sweep.nodes"))
		a->o.bench = report;
	inv->doc.json = plan_build(facts, findings, profile, &a->o);
	if (inv->format && inv->format->render == plan_render_tuned && plan_tuned_output() < 0) {
		cJSON_Delete(report);
		cJSON_Delete(bench);
		return -1;
	}
	/* Why this profile when none was given (a virtual guest): the same
	 * choice as check's, said where the plan names its profile. */
	if (fj_get_str(p, "chosen") && inv->doc.json)
		cJSON_AddStringToObject(inv->doc.json, "profile_chosen", fj_get_str(p, "chosen"));
	a->o.bench = NULL;
	a->o.model = NULL;
	a->o.syntax = NULL;
	cJSON_Delete(report);
	cJSON_Delete(bench);
	if (inv->doc.json && inv->format && inv->format->render == plan_render_systemd && output_is_dir(G.output)) {
		if (write_systemd_dir(G.output, inv->doc.json) < 0)
			return -1;
		inv->format = NULL;   /* written: nothing left for the runner to render */
	}
	return EXIT_OK;
}

static int plan_cmd(struct invocation *inv)
{
	struct plan_args *a = inv->args;
	int r = plan_cmd_run(inv);
	a->o.syntax = NULL;
	free(a->bin_found);
	free(a->version);
	a->bin_found = a->version = NULL;
	return r;
}

static const struct cmd_option plan_options[] = {
	{ "command", OPT_COMMAND, "CMD", "the worker command (default: a marked placeholder)" },
	{ "reserve", OPT_RESERVE, "N", "cores per node kept for the OS and the orchestrator" },
	{ "unit", OPT_UNIT, "NAME", "systemd template unit for the drop-ins (default inference-worker)" },
	{ "report", OPT_REPORT, "FILE", "plan from a saved 'check --format json' report" },
	{ "profile", OPT_PROFILE, "NAME", "the profile whose findings are fixed (default agent-cpu-inference; agent-vm-guest on a virtual guest)" },
	{ "runtime", OPT_RUNTIME, "NAME", "launch lines in a runtime's own terms: llama.cpp or vllm" },
	{ "model", OPT_MODEL, "PATH", "the model: a GGUF file (llama.cpp) or a Hugging Face checkpoint\n"
	  "directory (vLLM), which sizes --mlock, the KV cache, vLLM's tensor\n"
	  "parallelism and the fit per node" },
	{ "ctx", OPT_CTX, "N", "context length the fit counts the KV cache at (and -c/--max-model-len)" },
	{ "bench", OPT_BENCH, "FILE", "a 'bench --sweep --format json' document: its knee per node\n"
	  "becomes -t where below the cores" },
	{ "runtime-bin", OPT_RUNTIME_BIN, "PATH", "the llama-server whose --help decides the syntax (default:\n"
	  "llama-server on $PATH, when planning for this machine)" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format plan_formats[] = {
	{ "text", plan_render_text },
	{ "json", render_json },
	{ "sh", plan_render_sh },
	{ "sysctl", plan_render_sysctl },
	{ "systemd", plan_render_systemd },
	{ "kubelet", plan_render_kubelet },
	{ "tuned", plan_render_tuned },
	{ NULL, NULL },
};

const struct command cmd_plan = {
	.name = "plan",
	.summary = "the fixes: numactl/taskset per NUMA node, sysctl.d, kernel command line, systemd, BIOS",
	.synopsis = "[--command CMD] [--reserve N] [--unit NAME] [--report FILE] [--profile NAME]\n"
		    "[--runtime NAME] [--model PATH] [--ctx N] [--bench FILE] [--runtime-bin PATH]",
	.description =
		"Print the fixes for this node; never change anything.  One inference worker\n"
		"per NUMA node with CPUs, one hardware thread per physical core (P-cores only\n"
		"on hybrid CPUs), N cores per node reserved for the OS (default 1; the E-cores\n"
		"on hybrids), one feeder per accelerator on its local node, and the settings\n"
		"that the check found wrong.  --runtime llama.cpp|vllm adds each worker's\n"
		"launch in that runtime's terms (argv and environment), sized from --model\n"
		"and --ctx, with a finding when the model does not fit a worker's node.\n",
	.options = plan_options,
	.formats = plan_formats,
	.format_help = "sh: a runtime script; sysctl: an /etc/sysctl.d file; systemd: the template unit and "
		       "a drop-in per worker (-o DIR writes them as files under DIR); kubelet: a "
		       "KubeletConfiguration fragment; tuned: a tuned profile (-o DIR writes DIR/tuned.conf)",
	.min_operands = 0, .max_operands = 0,
	.flags = CMD_PROBES,
	.args_size = sizeof(struct plan_args),
	.init = plan_init,
	.option = plan_option,
	.run = plan_cmd,
};
