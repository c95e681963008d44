/* render/bench.c - the bench document as text */
#include "config.h"
#include "audit/report.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "render/render.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>


static double jnum(const cJSON *root, const char *path)
{
	const cJSON *j = facts_get(root, path);
	return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

static const char *gbs(double v, char *buf, size_t n)
{
	if (isfinite(v) && v >= 1e9)
		snprintf(buf, n, "%.1f GB/s", v / 1e9);
	else if (isfinite(v))     /* a slow sample is never "0.0 GB/s" */
		snprintf(buf, n, "%.3g MB/s", v / 1e6);
	else
		snprintf(buf, n, "unknown");
	return buf;
}

void bench_render_text(FILE *fp, const struct doc *doc)
{
	const cJSON *root = doc->json, *gaps = cJSON_GetObjectItemCaseSensitive(root, "gaps");
	const cJSON *b = facts_get(root, "bench"), *m, *it;
	const cJSON *rel = facts_get(root, "bench.bandwidth.reliable");
	char a[64], c[64], d[64];
	double v;
	int ns;
	tx_section(fp, "Bench");
	m = cJSON_GetObjectItemCaseSensitive(b, "model");
	if (cJSON_IsObject(m)) {
		const cJSON *arch = cJSON_GetObjectItemCaseSensitive(m, "architecture");
		tx_kv(fp, "model", "%s (%s)", cJSON_GetObjectItemCaseSensitive(m, "path")->valuestring,
		      cJSON_IsString(arch) ? arch->valuestring : "architecture unknown");
		/* Sizes in human form first, the exact byte count after. */
		tx_kv(fp, "tensor bytes", "%s", report_value_text(jnum(m, "tensor_bytes"), "bytes", a, sizeof(a)));
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(m, "types"))
			tx_kv(fp, "", "%-8s %s", it->string, report_value_text(it->valuedouble, "bytes", a, sizeof(a)));
		v = jnum(m, "kv_bytes_per_token");
		tx_kv(fp, "bytes per token", "%s: %s weights + %s KV cache at ctx %.0f",
		      report_value_text(jnum(m, "bytes_per_token"), "bytes", d, sizeof(d)),
		      human_bytes(jnum(m, "weight_bytes_per_token"), a, sizeof(a)),
		      isfinite(v) ? human_bytes(v, c, sizeof(c)) : "unknown", jnum(m, "ctx"));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(b, "nodes")) {
		char k[32];
		snprintf(k, sizeof(k), "node %.0f", jnum(it, "node"));
		tx_kv(fp, k, "%s (%s to %s; %.0f thread%s on CPUs %s)", gbs(jnum(it, "bytes_per_s"), a, sizeof(a)),
		      gbs(jnum(it, "min_bytes_per_s"), c, sizeof(c)), gbs(jnum(it, "max_bytes_per_s"), d, sizeof(d)),
		      jnum(it, "threads"), jnum(it, "threads") == 1 ? "" : "s",
		      cJSON_GetObjectItemCaseSensitive(it, "cpus")->valuestring);
	}
	/* The verdict on the spread is bench.bandwidth.reliable; its reason is a note. */
	ns = cJSON_GetArraySize(facts_get(b, "bandwidth.samples"));
	if (ns == 0)
		tx_kv(fp, "bandwidth", "not measured");
	else if (ns == 1)
		tx_kv(fp, "bandwidth", "%s (a single sample)%s", gbs(jnum(b, "bandwidth.bytes_per_s"), a, sizeof(a)),
		      cJSON_IsFalse(rel) ? ", unreliable" : "");
	else
		tx_kv(fp, "bandwidth", "%s (median of %d, %s to %s)%s",
		      gbs(jnum(b, "bandwidth.bytes_per_s"), a, sizeof(a)), ns,
		      gbs(jnum(b, "bandwidth.min_bytes_per_s"), c, sizeof(c)),
		      gbs(jnum(b, "bandwidth.max_bytes_per_s"), d, sizeof(d)),
		      cJSON_IsFalse(rel) ? ", unreliable" : "");
	it = cJSON_GetObjectItemCaseSensitive(b, "kernel");
	if (cJSON_IsString(it))
		tx_kv(fp, "kernel", "%s, %s per node", it->valuestring, human_bytes(jnum(b, "size_bytes"), a, sizeof(a)));
	v = jnum(b, "efficiency");
	if (isfinite(v))
		tx_kv(fp, "peak", "%s (%.0f%% reached)", gbs(jnum(b, "peak_bytes_per_s"), a, sizeof(a)), v * 100);
	else
		tx_kv(fp, "peak", "%s", gbs(jnum(b, "peak_bytes_per_s"), a, sizeof(a)));
	v = jnum(b, "predicted.tokens_per_s");
	if (isfinite(v))
		tx_kv(fp, "decode ceiling", "%.1f tokens/s at ctx %.0f", v, jnum(b, "model.ctx"));
	cJSON_ArrayForEach(m, facts_get(b, "sweep.nodes")) {
		/* bench --sweep: "node 0 sweep  1: 9.1 GB/s, 2: 17.0 GB/s, ...; knee 4 threads" */
		struct strbuf sb = STRBUF_INIT;
		const cJSON *p, *kt = cJSON_GetObjectItemCaseSensitive(m, "knee_threads");
		char k[32];
		snprintf(k, sizeof(k), "node %.0f sweep", jnum(m, "node"));
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(m, "points"))
			strbuf_addf(&sb, "%s%.0f: %s", sb.len ? ", " : "", jnum(p, "threads"),
				    gbs(jnum(p, "bytes_per_s"), a, sizeof(a)));
		if (cJSON_IsNumber(kt))
			strbuf_addf(&sb, "; knee %d thread%s (%s, of %.0f cores)", kt->valueint,
				    kt->valueint == 1 ? "" : "s", gbs(jnum(m, "knee_bytes_per_s"), c, sizeof(c)),
				    jnum(m, "cores"));
		else
			strbuf_addstr(&sb, "; knee unknown");
		tx_kv(fp, k, "%s", sb.buf ? sb.buf : "");
		strbuf_release(&sb);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(b, "notes"))
		if (verbosity >= 0)   /* -q: the figures only */
			tx_kv(fp, "note", "%s", it->valuestring);
	if (cJSON_GetArraySize(gaps) > 0) {
		tx_section(fp, "Unknown (with the reason)");
		cJSON_ArrayForEach(it, gaps)
			tx_kv(fp, cJSON_GetObjectItemCaseSensitive(it, "fact")->valuestring, "%s",
			      cJSON_GetObjectItemCaseSensitive(it, "reason")->valuestring);
	}
}
