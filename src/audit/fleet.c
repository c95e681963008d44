/* audit/fleet.c - fleet aggregation: schema-check reports, count, spread */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const report_status_names[ST_N] = { "pass", "warn", "fail", "unknown", "skip", "info" };

const char *const report_figure_csv_names[FIG_N] = {
	"cpu_cores", "memory_channels_populated", "memory_channels_total",
	"memory_theoretical_bytes_per_s", "bench_bytes_per_s", "accelerators",
	"accelerator_link_width_min", "accelerators_narrow_link",
};

static const struct {
	const char *key;
	int histogram;
} spread_desc[SP_N] = {
	[SP_BENCH_BW] = { "bench.bandwidth.bytes_per_s", 0 },
	[SP_CHANNELS_POPULATED] = { "memory.channels.populated", 1 },
	[SP_CHANNELS_TOTAL] = { "memory.channels.total", 1 },
	[SP_MEM_THEORETICAL] = { "memory.bandwidth.theoretical_bytes_per_s", 1 },
	[SP_ACCEL_WIDTH_CURRENT] = { "pci.accelerators[].link.width.current", 1 },
	[SP_ACCEL_WIDTH_MAX] = { "pci.accelerators[].link.width.max", 1 },
	[SP_CPU_CORES] = { "cpu.cores", 1 },
};

/* How many failing nodes a check names before "+N more". */
#define FAIL_SHOWN ((int)ARRAY_SIZE(((struct check_agg *)0)->fail_nodes))

void fleet_init(struct fleet *f)
{
	size_t i;
	memset(f, 0, sizeof(*f));
	for (i = 0; i < SP_N; i++) {
		f->sp[i].key = spread_desc[i].key;
		f->sp[i].histogram = spread_desc[i].histogram;
	}
}

void fleet_skip(struct fleet *f, const char *file, const char *why)
{
	if (f->skipped == f->abad) {
		f->abad = f->abad ? 2 * f->abad : 16;
		f->bad = xrealloc(f->bad, f->abad * sizeof(*f->bad));
	}
	f->bad[f->skipped].file = xstrdup(file);
	f->bad[f->skipped].why = xstrdup(why);
	f->skipped++;
}

void fleet_release(struct fleet *f)
{
	size_t i;
	for (i = 0; i < f->skipped; i++) {
		free(f->bad[i].file);
		free(f->bad[i].why);
	}
	free(f->bad);
	for (i = 0; i < f->nrows; i++) {
		free(f->rows[i].hostname);
		free(f->rows[i].file);
		free(f->rows[i].bad);
	}
	free(f->check_by_serial);
	free(f->rows);
	for (i = 0; i < f->nchecks; i++) {
		free(f->checks[i].id);
		free(f->checks[i].key);
		free(f->checks[i].hkey);
	}
	free(f->checks);
	free(f->check_hash);
	for (i = 0; i < SP_N; i++)
		free(f->sp[i].v);
	for (i = 0; i < f->nuf; i++) {
		struct uniform_fact *u = &f->uf[i];
		size_t k;
		for (k = 0; k < u->nvalues; k++)
			free(u->values[k]);
		free(u->values);
		free(u->counts);
		free(u->hash);
		free(u->val);
		free(u->num);
		free(u->order);
		free(u->name);
	}
	free(f->uf);
	free(f->uf_hash);
	for (i = 0; i < f->nprofiles; i++)
		free(f->profiles[i].name);
	free(f->profiles);
	memset(f, 0, sizeof(*f));
}

/*** Schema checks ***/

static const char *type_name(const cJSON *j)
{
	if (!j)
		return "missing";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsObject(j))
		return "an object";
	return "invalid";
}

static int want_type(const cJSON *j, int (*is)(const cJSON *), const char *key, const char *what,
		     char **why)
{
	if (j && is(j))
		return 0;
	if (!j)
		*why = xasprintf("no '%s' key", key);
	else
		*why = xasprintf("'%s' is %s, not %s", key, type_name(j), what);
	return -1;
}

/* A non-negative integer that fits an int. */
static int want_count(const cJSON *j, const char *key, int max, int *out, char **why)
{
	double d;
	if (want_type(j, cJSON_IsNumber, key, "a number", why) < 0)
		return -1;
	d = j->valuedouble;
	if (!(d >= 0 && d <= max) || d != floor(d)) {
		*why = xasprintf("'%s' is %g, not an integer from 0 to %d", key, d, max);
		return -1;
	}
	*out = (int)d;
	return 0;
}

/*
 * A key figure under facts: absent or null gives NaN; a number >= 0 is taken;
 * anything else (also an intermediate that is not an object) makes the report
 * bad, since a wrong type there means it was not written by nodeaudit.
 */
static int want_figure(const cJSON *base, const char *prefix, const char *path, double *out,
		       char **why)
{
	char buf[128], *p, *dot;
	const cJSON *j = base;
	snprintf(buf, sizeof(buf), "%s", path);
	*out = NAN;
	for (p = buf; j; p = dot + 1) {
		dot = strchr(p, '.');
		if (dot)
			*dot = '\0';
		if (!cJSON_IsObject(j)) {
			if (cJSON_IsNull(j))
				return 0;
			if (dot)
				*dot = '.';
			*why = xasprintf("'%s%.*s' is %s, not an object", prefix, (int)(p - buf - 1), buf,
					 type_name(j));
			return -1;
		}
		j = cJSON_GetObjectItemCaseSensitive(j, p);
		if (!dot)
			break;
		*dot = '.';
	}
	if (!j || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsNumber(j)) {
		*why = xasprintf("'%s%s' is %s, not a number", prefix, path, type_name(j));
		return -1;
	}
	if (!(j->valuedouble >= 0) || isinf(j->valuedouble)) {
		*why = xasprintf("'%s%s' is %g, not a number >= 0", prefix, path, j->valuedouble);
		return -1;
	}
	*out = j->valuedouble;
	return 0;
}

/* Names printed to a terminal must not carry escape sequences: C0, DEL,
 * C1 (an 8-bit CSI is ESC [) and invalid UTF-8, as the one cleaner knows them. */
static int has_ctrl(const char *s)
{
	return str_ctrl(s) >= 0;
}

static int status_index(const char *s)
{
	int i;
	for (i = 0; i < ST_N; i++)
		if (!strcmp(s, report_status_names[i]))
			return i;
	return -1;
}

/*** Adding one report ***/

static const char *const fig_paths[] = {
	[FIG_CPU_CORES] = "cpu.cores",
	[FIG_CHANNELS_POPULATED] = "memory.channels.populated",
	[FIG_CHANNELS_TOTAL] = "memory.channels.total",
	[FIG_MEM_THEORETICAL] = "memory.bandwidth.theoretical_bytes_per_s",
	[FIG_BENCH_BW] = "bench.bandwidth.bytes_per_s",
};

/* What fleet_add takes from a report while it checks it, before it keeps anything. */
struct report_in {
	struct node_row row;
	const cJSON *findings;
	double wcur[64], wmax[64];   /* link widths of the first 64 accelerators */
	size_t naccel;
};

/* The schema, and host.hostname. */
static int want_head(const cJSON *root, struct report_in *in, char **why)
{
	const cJSON *j, *host;
	if (!cJSON_IsObject(root)) {
		*why = xasprintf("the report is %s, not an object", type_name(root));
		return -1;
	}
	j = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (want_type(j, cJSON_IsString, "schema", "a string", why) < 0)
		return -1;
	if (strcmp(j->valuestring, REPORT_SCHEMA)) {
		*why = xasprintf("schema is '%.60s', not '" REPORT_SCHEMA "'", j->valuestring);
		return -1;
	}
	host = cJSON_GetObjectItemCaseSensitive(root, "host");
	if (want_type(host, cJSON_IsObject, "host", "an object", why) < 0)
		return -1;
	j = cJSON_GetObjectItemCaseSensitive(host, "hostname");
	if (cJSON_IsNull(j)) {   /* the schema allows it: keep_row() names the node by its file */
		in->row.hostname = NULL;
		return 0;
	}
	if (want_type(j, cJSON_IsString, "host.hostname", "a string or null", why) < 0)
		return -1;
	if (!*j->valuestring || has_ctrl(j->valuestring)) {
		*why = xasprintf("'host.hostname' is %s", *j->valuestring ? "not printable" : "empty");
		return -1;
	}
	in->row.hostname = j->valuestring;
	return 0;
}

/* summary: the count of each status, and the exit. */
static int want_summary(const cJSON *root, struct report_in *in, char **why)
{
	const cJSON *j, *summary;
	int i;
	summary = cJSON_GetObjectItemCaseSensitive(root, "summary");
	if (want_type(summary, cJSON_IsObject, "summary", "an object", why) < 0)
		return -1;
	for (i = 0; i < ST_N; i++) {
		char key[32];
		j = cJSON_GetObjectItemCaseSensitive(summary, report_status_names[i]);
		snprintf(key, sizeof(key), "summary.%s", report_status_names[i]);
		if (i == ST_INFO && !j)   /* info findings came later: optional */
			continue;
		if (want_count(j, key, 1000000, &in->row.count[i], why) < 0)
			return -1;
	}
	if (want_count(cJSON_GetObjectItemCaseSensitive(summary, "exit"), "summary.exit", 3,
		       &in->row.exit, why) < 0)
		return -1;
	return 0;
}

/* findings: each an object with a printable id, a known status and maybe a key. */
static int want_findings(const cJSON *root, struct report_in *in, char **why)
{
	const cJSON *findings, *it;
	size_t k;
	findings = cJSON_GetObjectItemCaseSensitive(root, "findings");
	if (want_type(findings, cJSON_IsArray, "findings", "an array", why) < 0)
		return -1;
	k = 0;
	cJSON_ArrayForEach(it, findings) {
		const cJSON *id, *st;
		char key[48];
		snprintf(key, sizeof(key), "findings[%zu]", k);
		if (want_type(it, cJSON_IsObject, key, "an object", why) < 0)
			return -1;
		id = cJSON_GetObjectItemCaseSensitive(it, "id");
		st = cJSON_GetObjectItemCaseSensitive(it, "status");
		snprintf(key, sizeof(key), "findings[%zu].id", k);
		if (want_type(id, cJSON_IsString, key, "a string", why) < 0)
			return -1;
		if (!*id->valuestring || has_ctrl(id->valuestring)) {
			*why = xasprintf("'%s' is %s", key, *id->valuestring ? "not printable" : "empty");
			return -1;
		}
		snprintf(key, sizeof(key), "findings[%zu].status", k);
		if (want_type(st, cJSON_IsString, key, "a string", why) < 0)
			return -1;
		if (status_index(st->valuestring) < 0) {
			*why = xasprintf("'%s' is '%.20s', not pass, warn, fail, unknown, skip or info", key,
					 st->valuestring);
			return -1;
		}
		/* per-key findings (kernel.sysctl): the key names the row */
		st = cJSON_GetObjectItemCaseSensitive(it, "key");
		snprintf(key, sizeof(key), "findings[%zu].key", k);
		if (st && !cJSON_IsNull(st)) {
			if (want_type(st, cJSON_IsString, key, "a string", why) < 0)
				return -1;
			if (!*st->valuestring || has_ctrl(st->valuestring)) {
				*why = xasprintf("'%s' is %s", key, *st->valuestring ? "not printable" : "empty");
				return -1;
			}
		}
		k++;
	}
	in->findings = findings;
	return 0;
}

/* facts.pci.accelerators: their count and link widths, when the report has them. */
static int want_accels(const cJSON *facts, struct report_in *in, char **why)
{
	const cJSON *j, *accels, *it;
	size_t k;
	in->row.fig[FIG_ACCELERATORS] = in->row.fig[FIG_ACCEL_WIDTH_MIN] = in->row.fig[FIG_ACCEL_NARROW] = NAN;
	j = cJSON_GetObjectItemCaseSensitive(facts, "pci");
	if (j && !cJSON_IsNull(j) && want_type(j, cJSON_IsObject, "facts.pci", "an object", why) < 0)
		return -1;
	accels = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "accelerators") : NULL;
	if (accels && !cJSON_IsNull(accels)) {
		double narrow = 0, wmin = NAN;
		if (want_type(accels, cJSON_IsArray, "facts.pci.accelerators", "an array", why) < 0)
			return -1;
		k = 0;
		cJSON_ArrayForEach(it, accels) {
			char key[64];
			double cur, max;
			snprintf(key, sizeof(key), "facts.pci.accelerators[%zu]", k);
			if (want_type(it, cJSON_IsObject, key, "an object", why) < 0)
				return -1;
			snprintf(key, sizeof(key), "facts.pci.accelerators[%zu].", k);
			if (want_figure(it, key, "link.width.current", &cur, why) < 0 ||
			    want_figure(it, key, "link.width.max", &max, why) < 0)
				return -1;
			if (in->naccel < ARRAY_SIZE(in->wcur)) {
				in->wcur[in->naccel] = cur;
				in->wmax[in->naccel] = max;
				in->naccel++;
			}
			if (!isnan(cur) && (isnan(wmin) || cur < wmin))
				wmin = cur;
			if (!isnan(cur) && !isnan(max) && cur < max)
				narrow++;
			k++;
		}
		in->row.fig[FIG_ACCELERATORS] = (double)k;
		in->row.fig[FIG_ACCEL_WIDTH_MIN] = wmin;
		in->row.fig[FIG_ACCEL_NARROW] = narrow;
	}
	return 0;
}

/* facts: the key figures. */
static int want_facts(const cJSON *root, struct report_in *in, char **why)
{
	const cJSON *facts;
	int i;
	facts = cJSON_GetObjectItemCaseSensitive(root, "facts");
	if (want_type(facts, cJSON_IsObject, "facts", "an object", why) < 0)
		return -1;
	for (i = 0; i < (int)ARRAY_SIZE(fig_paths); i++)
		if (want_figure(facts, "facts.", fig_paths[i], &in->row.fig[i], why) < 0)
			return -1;
	return want_accels(facts, in, why);
}

/* A report whose host.hostname is null (a capture without one) is named by
 * its file: "r/node17.json" -> "node17". */
static char *name_by_file(const char *file)
{
	const char *b = strrchr(file, '/');
	size_t n;
	b = b && b[1] ? b + 1 : file;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".json"))
		n -= 5;
	return xstrndup(b, n);
}

/* The row kept, and each finding counted under its check (the row being added
 * is f->rows[f->nrows]). */
static void keep_row(struct fleet *f, const char *file, struct report_in *in)
{
	const cJSON *it;
	int idx;
	if (f->nrows == f->arows) {
		f->arows = f->arows ? 2 * f->arows : 256;
		f->rows = xrealloc(f->rows, f->arows * sizeof(*f->rows));
	}
	in->row.hostname = in->row.hostname ? xstrdup(in->row.hostname) : name_by_file(file);
	in->row.file = xstrdup(file);
	f->rows[f->nrows] = in->row;
	cJSON_ArrayForEach(it, in->findings) {
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(it, "key");
		struct check_agg *c = fleet_check_get(f, cJSON_GetObjectItemCaseSensitive(it, "id")->valuestring,
						      cJSON_IsString(key) ? key->valuestring : NULL);
		idx = status_index(cJSON_GetObjectItemCaseSensitive(it, "status")->valuestring);
		c->count[idx]++;
		if (idx == ST_FAIL && c->nfail_shown < FAIL_SHOWN)
			c->fail_nodes[c->nfail_shown++] = f->nrows;
		if (idx == ST_WARN && c->nwarn_shown < FAIL_SHOWN)
			c->warn_nodes[c->nwarn_shown++] = f->nrows;
		if (idx == ST_WARN || idx == ST_FAIL || idx == ST_UNKNOWN) {
			struct node_row *r = &f->rows[f->nrows];
			if (!(r->nbad & (r->nbad - 1)) || !r->nbad)   /* 0, 1, 2, 4, ...: grow */
				r->bad = xrealloc(r->bad, (r->nbad ? 2 * r->nbad : 1) * sizeof(*r->bad));
			r->bad[r->nbad++] = c->serial << 3 | (uint32_t)idx;
		}
	}
}

static void add_spreads(struct fleet *f, const struct report_in *in)
{
	size_t k;
	fleet_spread_add(&f->sp[SP_BENCH_BW], in->row.fig[FIG_BENCH_BW]);
	fleet_spread_add(&f->sp[SP_CHANNELS_POPULATED], in->row.fig[FIG_CHANNELS_POPULATED]);
	fleet_spread_add(&f->sp[SP_CHANNELS_TOTAL], in->row.fig[FIG_CHANNELS_TOTAL]);
	fleet_spread_add(&f->sp[SP_MEM_THEORETICAL], in->row.fig[FIG_MEM_THEORETICAL]);
	fleet_spread_add(&f->sp[SP_CPU_CORES], in->row.fig[FIG_CPU_CORES]);
	for (k = 0; k < in->naccel; k++) {
		fleet_spread_add(&f->sp[SP_ACCEL_WIDTH_CURRENT], in->wcur[k]);
		fleet_spread_add(&f->sp[SP_ACCEL_WIDTH_MAX], in->wmax[k]);
	}
}

int fleet_add(struct fleet *f, const char *file, const cJSON *root, char **why)
{
	struct report_in in;

	*why = NULL;
	memset(&in, 0, sizeof(in));
	if (want_head(root, &in, why) < 0 || want_summary(root, &in, why) < 0 ||
	    want_findings(root, &in, why) < 0 || want_facts(root, &in, why) < 0)
		return -1;

	/* Valid: now aggregate.  Nothing below can fail. */
	keep_row(f, file, &in);
	fleet_uf_add_report(f, root);
	fleet_add_profile(f, root);
	f->nrows++;
	add_spreads(f, &in);
	return 0;
}

/*** Finishing: sort checks and spreads ***/

/* Most fails first, then warns, then unknowns, then by ID. */
static int cmp_check(const void *a, const void *b)
{
	const struct check_agg *x = a, *y = b;
	if (x->count[ST_FAIL] != y->count[ST_FAIL])
		return y->count[ST_FAIL] - x->count[ST_FAIL];
	if (x->count[ST_WARN] != y->count[ST_WARN])
		return y->count[ST_WARN] - x->count[ST_WARN];
	if (x->count[ST_UNKNOWN] != y->count[ST_UNKNOWN])
		return y->count[ST_UNKNOWN] - x->count[ST_UNKNOWN];
	return strcmp(x->hkey, y->hkey);
}

void fleet_finish(struct fleet *f)
{
	size_t i, n = f->nchecks;
	if (f->sorted)
		return;
	free(f->check_hash);   /* the indexes change with the order */
	f->check_hash = NULL;
	f->check_ahash = 0;
	if (n)   /* qsort() must not see a NULL array, even empty */
		qsort(f->checks, n, sizeof(*f->checks), cmp_check);
	f->check_by_serial = xcalloc(n + 1, sizeof(*f->check_by_serial));
	for (i = 0; i < n; i++)
		f->check_by_serial[f->checks[i].serial] = i;
	for (i = 0; i < SP_N; i++)
		if (f->sp[i].n)
			qsort(f->sp[i].v, f->sp[i].n, sizeof(double), fleet_cmp_double);
	fleet_uf_finish(f);
	f->sorted = 1;
}

int fleet_exit(const struct fleet *f)
{
	size_t i;
	int worst = 0;
	for (i = 0; i < f->nrows; i++) {
		int e = f->rows[i].exit == 3 ? 2 : f->rows[i].exit;
		if (e > worst)
			worst = e;
	}
	return worst;
}

/* Worst nodes: most fails, then warns, then unknowns, then hostname, file. */
static int cmp_row(const void *a, const void *b)
{
	const struct node_row *x = *(struct node_row *const *)a, *y = *(struct node_row *const *)b;
	int r;
	if (x->count[ST_FAIL] != y->count[ST_FAIL])
		return y->count[ST_FAIL] - x->count[ST_FAIL];
	if (x->count[ST_WARN] != y->count[ST_WARN])
		return y->count[ST_WARN] - x->count[ST_WARN];
	if (x->count[ST_UNKNOWN] != y->count[ST_UNKNOWN])
		return y->count[ST_UNKNOWN] - x->count[ST_UNKNOWN];
	r = strcmp(x->hostname, y->hostname);
	return r ? r : strcmp(x->file, y->file);
}

/* The nodes with at least one fail, warn or unknown finding (or a non-zero
 * exit), worst first, at most top of them.  Returns the count. */
size_t fleet_worst_nodes(const struct fleet *f, size_t top, const struct node_row ***out)
{
	const struct node_row **v = xcalloc(f->nrows + 1, sizeof(*v));
	size_t i, n = 0;
	for (i = 0; i < f->nrows; i++) {
		const struct node_row *r = &f->rows[i];
		if (r->count[ST_FAIL] || r->count[ST_WARN] || r->count[ST_UNKNOWN] || r->exit)
			v[n++] = r;
	}
	qsort(v, n, sizeof(*v), cmp_row);
	*out = v;
	return n < top ? n : top;
}

const char *const fleet_exit_names[4] = { "ok", "warning", "critical", "unknown" };

void fleet_nodes_by_exit(const struct fleet *f, size_t by[4])
{
	size_t i;
	memset(by, 0, 4 * sizeof(*by));
	for (i = 0; i < f->nrows; i++)
		by[f->rows[i].exit]++;
}
