/* render/plan-runtime.c - the runtime's launch lines, its environment and the
 * model's fit, for the text plan: each argument shell-quoted where it needs
 * it, so that a line pasted into sh runs the argv of the JSON plan. */
#include "config.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/quote.h"
#include "render/render.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* Letters, digits and these need no quoting in sh. */
static int sh_plain(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=,:+-@%")
		== strlen(s);
}

/* One shell word into sb; -1 (nothing added) when s is not one line, which
 * no quoting can keep to one line of the script (lib/quote.h's rule). */
static int sh_word(struct strbuf *sb, const char *s)
{
	char *q;
	if (sh_plain(s)) {
		strbuf_addstr(sb, s);
		return 0;
	}
	q = sh_quote(s);
	if (!q)
		return -1;
	strbuf_addstr(sb, q);
	free(q);
	return 0;
}

/* "NAME=value" words of env, then argv, one line; a word that is not one
 * line refuses the whole line (a comment says so). */
static void sh_line(FILE *out, const char *indent, const cJSON *env, const cJSON *argv)
{
	const cJSON *it;
	struct strbuf sb = STRBUF_INIT;
	int first = 1, bad = 0;
	strbuf_addstr(&sb, indent);
	cJSON_ArrayForEach(it, env) {
		if (!cJSON_IsString(it) || !it->string)
			continue;
		/* The names are ours (VLLM_...): only the value can need quotes. */
		strbuf_addf(&sb, "%s%s=", first ? "" : " ", it->string);
		bad |= sh_word(&sb, it->valuestring) < 0;
		first = 0;
	}
	cJSON_ArrayForEach(it, argv) {
		if (!cJSON_IsString(it))
			continue;
		if (!first)
			strbuf_add(&sb, " ", 1);
		bad |= sh_word(&sb, it->valuestring) < 0;
		first = 0;
	}
	if (bad) {
		fprintf(out, "%s# refused: a word of this line is not one line of text\n", indent);
	} else {
		fputs(sb.buf, out);
		fputc('\n', out);
	}
	strbuf_release(&sb);
}

/* vLLM: each replica's line (at its rank 0), the container line. */
static void render_vllm(FILE *out, const cJSON *plan, const cJSON *workers)
{
	const cJSON *w, *it;
	const cJSON *ctr = cJSON_GetObjectItemCaseSensitive(plan, "container");
	const cJSON *par = cJSON_GetObjectItemCaseSensitive(plan, "parallel");
	double d;
	int tp = fj_get_num(par, "tensor_parallel_size", &d) ? (int)d : 1;
	if (tp > 1)
		tx_section(out, "Launch (vLLM CPU backend: tensor parallel, one rank per worker)");
	else
		tx_section(out, "Launch (vLLM CPU backend: one replica per worker)");
	cJSON_ArrayForEach(w, workers) {
		const cJSON *node = cJSON_GetObjectItemCaseSensitive(w, "node");
		double rank, rep;
		if (!fj_get_num(w, "rank", &rank) || rank != 0 || !fj_get_num(w, "replica", &rep))
			continue;
		if (cJSON_IsNumber(node))
			fprintf(out, "  replica %d (from node %d):\n", (int)rep, node->valueint);
		else
			fprintf(out, "  replica %d:\n", (int)rep);
		sh_line(out, "    ", cJSON_GetObjectItemCaseSensitive(w, "env"),
			cJSON_GetObjectItemCaseSensitive(w, "command"));
	}
	if (ctr) {
		struct strbuf sb = STRBUF_INIT;
		int bad = 0;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ctr, "docker_args")) {
			if (!cJSON_IsString(it))
				continue;
			strbuf_add(&sb, " ", 1);
			bad |= sh_word(&sb, it->valuestring) < 0;
		}
		fprintf(out, "  in a container: docker run%s ...\n", bad ? " (refused: a word is not one line)" : sb.buf ? sb.buf : "");
		strbuf_release(&sb);
		fputs("    Docker's default seccomp profile allows", out);
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ctr, "seccomp_allow"))
			if (cJSON_IsString(it))
				fprintf(out, " %s", it->valuestring);
		fputs(" with SYS_NICE\n", out);
	}
}

/* llama.cpp: the syntax, each worker's two lines, the optional options. */
static void render_llama(FILE *out, const cJSON *plan, const cJSON *workers)
{
	const cJSON *w, *it;
	const cJSON *sx = cJSON_GetObjectItemCaseSensitive(plan, "runtime_syntax");
	tx_section(out, "Launch (llama.cpp: one server per worker)");
	if (sx) {
		const char *from = fj_get_str(sx, "from"), *load = fj_get_str(sx, "load");
		if (from)
			fprintf(out, "  syntax: %s, from %s --help\n", load ? load : "?", from);
		else
			fprintf(out, "  syntax: %s, assumed (%s)\n", load ? load : "?",
				fj_get_str(sx, "assumed_because") ? fj_get_str(sx, "assumed_because") : "?");
	}
	cJSON_ArrayForEach(w, workers) {
		const cJSON *node = cJSON_GetObjectItemCaseSensitive(w, "node");
		if (!cJSON_GetObjectItemCaseSensitive(w, "command"))
			continue;
		if (cJSON_IsNumber(node))
			fprintf(out, "  node %d:\n", node->valueint);
		else
			fputs("  all CPUs:\n", out);
		sh_line(out, "    ", cJSON_GetObjectItemCaseSensitive(w, "env"),
			cJSON_GetObjectItemCaseSensitive(w, "command"));
		if (cJSON_GetObjectItemCaseSensitive(w, "command_without_numactl")) {
			fputs("    without numactl:\n", out);
			sh_line(out, "    ", NULL, cJSON_GetObjectItemCaseSensitive(w, "command_without_numactl"));
		}
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "runtime_options")) {
		const cJSON *arg;
		struct strbuf sb = STRBUF_INIT;
		cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(it, "args"))
			if (cJSON_IsString(arg)) {
				strbuf_add(&sb, " ", 1);
				sh_word(&sb, arg->valuestring);
			}
		fprintf(out, "  may add%s: %s\n", sb.buf ? sb.buf : "",
			fj_get_str(it, "why") ? fj_get_str(it, "why") : "");
		strbuf_release(&sb);
	}
}

void plan_render_runtime_text(FILE *out, const cJSON *plan)
{
	const char *rt = fj_get_str(plan, "runtime");
	const cJSON *workers = cJSON_GetObjectItemCaseSensitive(plan, "workers"), *w, *fit, *it;
	char a[32], b[32];
	if (!rt || !cJSON_GetArraySize(workers))
		return;
	if (!strcmp(rt, "vllm"))
		render_vllm(out, plan, workers);
	else
		render_llama(out, plan, workers);
	fit = cJSON_GetObjectItemCaseSensitive(plan, "fit");
	if (fit) {
		const cJSON *kv = cJSON_GetObjectItemCaseSensitive(fit, "kv_bytes");
		double d;
		tx_section(out, "Fit (weights + KV cache against each worker's node)");
		fprintf(out, "  weights %s", human_bytes(fj_get_num(fit, "weights_bytes", &d) ? d : 0, a, sizeof(a)));
		if (cJSON_IsNumber(kv))
			fprintf(out, ", KV cache %s at ctx %d", human_bytes(kv->valuedouble, b, sizeof(b)),
				fj_get_num(fit, "ctx", &d) ? (int)d : 0);
		else
			fputs(", KV cache unknown", out);
		if (fj_get_num(fit, "shards", &d) && d > 1)
			fprintf(out, ", split over %d ranks", (int)d);
		fputc('\n', out);
		cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(fit, "workers")) {
			const cJSON *node = cJSON_GetObjectItemCaseSensitive(w, "node");
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(w, "fits");
			double need = 0, mem = 0;
			fj_get_num(w, "need_bytes", &need);
			if (cJSON_IsNumber(node))
				fprintf(out, "  node %d: ", node->valueint);
			else
				fputs("  all CPUs: ", out);
			if (!fj_get_num(w, "memory_bytes", &mem)) {
				fprintf(out, "needs %s; the node's memory is unknown\n", human_bytes(need, a, sizeof(a)));
				continue;
			}
			fprintf(out, "needs %s of %s: %s\n", human_bytes(need, a, sizeof(a)),
				human_bytes(mem, b, sizeof(b)), cJSON_IsTrue(f) ? "fits" : "DOES NOT FIT");
		}
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "findings")) {
		const char *t = fj_get_str(it, "text");
		if (t)
			fprintf(out, "  [%s] %s: %s\n", fj_get_str(it, "status") ? fj_get_str(it, "status") : "?",
				fj_get_str(it, "id") ? fj_get_str(it, "id") : "?", t);
	}
}
