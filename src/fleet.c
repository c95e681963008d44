/* fleet.c - fleet aggregation: schema-check reports, count, spread, render */
#include "config.h"
#include "output.h"
#include "fleet.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const report_status_names[ST_N] = { "pass", "warn", "fail", "unknown", "skip" };

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
	f->achecks = 64;
	f->checks = xcalloc(f->achecks, sizeof(*f->checks));
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
	}
	free(f->rows);
	for (i = 0; i < f->achecks; i++)
		free(f->checks[i].id);
	free(f->checks);
	for (i = 0; i < SP_N; i++)
		free(f->sp[i].v);
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

/* Names printed to a terminal must not carry escape sequences. */
static int has_ctrl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int status_index(const char *s)
{
	int i;
	for (i = 0; i < ST_N; i++)
		if (!strcmp(s, report_status_names[i]))
			return i;
	return -1;
}

/*** Per-check hash (FNV-1a, open addressing, power-of-two size) ***/

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct check_agg *check_slot(struct check_agg *tab, size_t size, const char *id)
{
	size_t i = hash_str(id) & (size - 1);
	while (tab[i].id && strcmp(tab[i].id, id))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static struct check_agg *check_get(struct fleet *f, const char *id)
{
	struct check_agg *c;
	if (2 * (f->nchecks + 1) > f->achecks) {
		size_t i, n = f->achecks * 2;
		struct check_agg *tab = xcalloc(n, sizeof(*tab));
		for (i = 0; i < f->achecks; i++)
			if (f->checks[i].id)
				*check_slot(tab, n, f->checks[i].id) = f->checks[i];
		free(f->checks);
		f->checks = tab;
		f->achecks = n;
	}
	c = check_slot(f->checks, f->achecks, id);
	if (!c->id) {
		c->id = xstrdup(id);
		f->nchecks++;
	}
	return c;
}

static void spread_add(struct spread *s, double v)
{
	if (isnan(v)) {
		s->missing++;
		return;
	}
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 256;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n++] = v;
}

/*** Adding one report ***/

static const char *const fig_paths[] = {
	[FIG_CPU_CORES] = "cpu.cores",
	[FIG_CHANNELS_POPULATED] = "memory.channels.populated",
	[FIG_CHANNELS_TOTAL] = "memory.channels.total",
	[FIG_MEM_THEORETICAL] = "memory.bandwidth.theoretical_bytes_per_s",
	[FIG_BENCH_BW] = "bench.bandwidth.bytes_per_s",
};

int fleet_add(struct fleet *f, const char *file, const cJSON *root, char **why)
{
	const cJSON *j, *host, *findings, *summary, *facts, *accels, *it;
	struct node_row row;
	double wcur[64], wmax[64];   /* link widths of the first 64 accelerators */
	size_t naccel = 0, k;
	int i, idx;

	*why = NULL;
	memset(&row, 0, sizeof(row));
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
	if (want_type(j, cJSON_IsString, "host.hostname", "a string", why) < 0)
		return -1;
	if (!*j->valuestring || has_ctrl(j->valuestring)) {
		*why = xasprintf("'host.hostname' is %s", *j->valuestring ? "not printable" : "empty");
		return -1;
	}
	row.hostname = j->valuestring;

	summary = cJSON_GetObjectItemCaseSensitive(root, "summary");
	if (want_type(summary, cJSON_IsObject, "summary", "an object", why) < 0)
		return -1;
	for (i = 0; i < ST_N; i++) {
		char key[32];
		snprintf(key, sizeof(key), "summary.%s", report_status_names[i]);
		if (want_count(cJSON_GetObjectItemCaseSensitive(summary, report_status_names[i]), key,
			       1000000, &row.count[i], why) < 0)
			return -1;
	}
	if (want_count(cJSON_GetObjectItemCaseSensitive(summary, "exit"), "summary.exit", 3,
		       &row.exit, why) < 0)
		return -1;

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
			*why = xasprintf("'%s' is '%.20s', not pass, warn, fail, unknown or skip", key,
					 st->valuestring);
			return -1;
		}
		k++;
	}

	facts = cJSON_GetObjectItemCaseSensitive(root, "facts");
	if (want_type(facts, cJSON_IsObject, "facts", "an object", why) < 0)
		return -1;
	for (i = 0; i < (int)ARRAY_SIZE(fig_paths); i++)
		if (want_figure(facts, "facts.", fig_paths[i], &row.fig[i], why) < 0)
			return -1;

	row.fig[FIG_ACCELERATORS] = row.fig[FIG_ACCEL_WIDTH_MIN] = row.fig[FIG_ACCEL_NARROW] = NAN;
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
			if (naccel < ARRAY_SIZE(wcur)) {
				wcur[naccel] = cur;
				wmax[naccel] = max;
				naccel++;
			}
			if (!isnan(cur) && (isnan(wmin) || cur < wmin))
				wmin = cur;
			if (!isnan(cur) && !isnan(max) && cur < max)
				narrow++;
			k++;
		}
		row.fig[FIG_ACCELERATORS] = (double)k;
		row.fig[FIG_ACCEL_WIDTH_MIN] = wmin;
		row.fig[FIG_ACCEL_NARROW] = narrow;
	}

	/* Valid: now aggregate.  Nothing below can fail. */
	if (f->nrows == f->arows) {
		f->arows = f->arows ? 2 * f->arows : 256;
		f->rows = xrealloc(f->rows, f->arows * sizeof(*f->rows));
	}
	row.hostname = xstrdup(row.hostname);
	row.file = xstrdup(file);
	f->rows[f->nrows] = row;
	cJSON_ArrayForEach(it, findings) {
		struct check_agg *c = check_get(f, cJSON_GetObjectItemCaseSensitive(it, "id")->valuestring);
		idx = status_index(cJSON_GetObjectItemCaseSensitive(it, "status")->valuestring);
		c->count[idx]++;
		if (idx == ST_FAIL && c->nfail_shown < FAIL_SHOWN)
			c->fail_nodes[c->nfail_shown++] = f->nrows;
	}
	f->nrows++;
	spread_add(&f->sp[SP_BENCH_BW], row.fig[FIG_BENCH_BW]);
	spread_add(&f->sp[SP_CHANNELS_POPULATED], row.fig[FIG_CHANNELS_POPULATED]);
	spread_add(&f->sp[SP_CHANNELS_TOTAL], row.fig[FIG_CHANNELS_TOTAL]);
	spread_add(&f->sp[SP_MEM_THEORETICAL], row.fig[FIG_MEM_THEORETICAL]);
	spread_add(&f->sp[SP_CPU_CORES], row.fig[FIG_CPU_CORES]);
	for (k = 0; k < naccel; k++) {
		spread_add(&f->sp[SP_ACCEL_WIDTH_CURRENT], wcur[k]);
		spread_add(&f->sp[SP_ACCEL_WIDTH_MAX], wmax[k]);
	}
	return 0;
}

/*** Finishing: sort checks and spreads ***/

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

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
	return strcmp(x->id, y->id);
}

void fleet_finish(struct fleet *f)
{
	size_t i, n = 0;
	if (f->sorted)
		return;
	for (i = 0; i < f->achecks; i++)
		if (f->checks[i].id)
			f->checks[n++] = f->checks[i];
	for (i = n; i < f->achecks; i++)
		memset(&f->checks[i], 0, sizeof(f->checks[i]));
	if (n)   /* qsort() must not see a NULL array, even empty */
		qsort(f->checks, n, sizeof(*f->checks), cmp_check);
	for (i = 0; i < SP_N; i++)
		if (f->sp[i].n)
			qsort(f->sp[i].v, f->sp[i].n, sizeof(double), cmp_double);
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

double spread_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
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
static size_t worst_nodes(const struct fleet *f, size_t top, const struct node_row ***out)
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

static void nodes_by_exit(const struct fleet *f, size_t by[4])
{
	size_t i;
	memset(by, 0, 4 * sizeof(*by));
	for (i = 0; i < f->nrows; i++)
		by[f->rows[i].exit]++;
}

/*** Rendering ***/

static const char *const exit_names[4] = { "ok", "warning", "critical", "unknown" };

/* Integers as integers; anything else with 15 significant digits. */
static const char *fmt_num(char *buf, size_t n, double x)
{
	if (isnan(x))
		snprintf(buf, n, "%s", "");
	else if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.15g", x);
	return buf;
}

/* Bandwidth for people: decimal GB/s as vendors quote it. */
static const char *fmt_fig(char *buf, size_t n, const struct spread *s, double x)
{
	if (strstr(s->key, "bytes_per_s"))
		snprintf(buf, n, "%.1f GB/s", x / 1e9);
	else
		fmt_num(buf, n, x);
	return buf;
}

void fleet_text(FILE *fp, const struct fleet *f, size_t top)
{
	const struct node_row **worst;
	size_t by[4], i, nw, k;
	char b1[64], b2[64], b3[64];
	int e = fleet_exit(f);

	nodes_by_exit(f, by);
	fprintf(fp, "%sFleet%s: %zu node%s from %zu file%s", c_bold(), c_reset(), f->nrows,
		f->nrows == 1 ? "" : "s", f->files, f->files == 1 ? "" : "s");
	if (f->skipped)
		fprintf(fp, " (%zu skipped)", f->skipped);
	fputc('\n', fp);
	tx_kv(fp, "exit", "%d (%s)", e, exit_names[e]);
	tx_kv(fp, "nodes by exit", "ok %zu, warning %zu, critical %zu, unknown %zu", by[0], by[1],
	      by[2], by[3]);

	fputc('\n', fp);
	tx_section(fp, "Checks");
	fprintf(fp, "  %-34s %5s %5s %5s %5s %5s  %s\n", "ID", "PASS", "WARN", "FAIL", "UNKN", "SKIP",
		"FAILING NODES");
	for (i = 0; i < f->nchecks; i++) {
		const struct check_agg *c = &f->checks[i];
		const char *col = c->count[ST_FAIL] ? c_red() : c->count[ST_WARN] ? c_yellow() : "";
		fprintf(fp, "  %s%-34s%s %5d %5d %5d %5d %5d", col, c->id, *col ? c_reset() : "",
			c->count[ST_PASS], c->count[ST_WARN], c->count[ST_FAIL], c->count[ST_UNKNOWN],
			c->count[ST_SKIP]);
		for (k = 0; k < (size_t)c->nfail_shown; k++)
			fprintf(fp, "%s%s", k ? ", " : "  ", f->rows[c->fail_nodes[k]].hostname);
		if (c->count[ST_FAIL] > c->nfail_shown)
			fprintf(fp, " (+%d more)", c->count[ST_FAIL] - c->nfail_shown);
		fputc('\n', fp);
	}
	if (!f->nchecks)
		fprintf(fp, "  (no findings)\n");

	fputc('\n', fp);
	tx_section(fp, "Worst nodes");
	nw = worst_nodes(f, top, &worst);
	for (i = 0; i < nw; i++)
		fprintf(fp, "  %-24s fail %d, warn %d, unknown %d, exit %d  %s\n", worst[i]->hostname,
			worst[i]->count[ST_FAIL], worst[i]->count[ST_WARN], worst[i]->count[ST_UNKNOWN],
			worst[i]->exit, worst[i]->file);
	if (!nw)
		fprintf(fp, "  %s\n", worst[0] ? "(not listed: --top 0)" : "(none: every node passed)");
	free(worst);

	fputc('\n', fp);
	tx_section(fp, "Spreads");
	for (i = 0; i < SP_N; i++) {
		const struct spread *s = &f->sp[i];
		fprintf(fp, "  %s\n", s->key);
		if (!s->n) {
			fprintf(fp, "    no values (%zu unknown)\n", s->missing);
			continue;
		}
		fprintf(fp, "    min %s, median %s, max %s (%zu value%s, %zu unknown)\n",
			fmt_fig(b1, sizeof(b1), s, s->v[0]),
			fmt_fig(b2, sizeof(b2), s, spread_median(s->v, s->n)),
			fmt_fig(b3, sizeof(b3), s, s->v[s->n - 1]), s->n, s->n == 1 ? "" : "s", s->missing);
		if (!s->histogram)
			continue;
		fprintf(fp, "   ");
		for (k = 0; k < s->n;) {
			size_t run = 1;
			while (k + run < s->n && s->v[k + run] == s->v[k])
				run++;
			fprintf(fp, " %s: %zu%s", fmt_fig(b1, sizeof(b1), s, s->v[k]), run,
				k + run < s->n ? "," : "");
			k += run;
		}
		fputc('\n', fp);
	}
}

static void add_counts(cJSON *o, const int count[ST_N])
{
	int i;
	for (i = 0; i < ST_N; i++)
		cJSON_AddNumberToObject(o, report_status_names[i], count[i]);
}

static void add_num_or_null(cJSON *o, const char *key, double x)
{
	if (isnan(x))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, x);
}

cJSON *fleet_json(const struct fleet *f, size_t top)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *c, *x;
	const struct node_row **worst;
	size_t by[4], i, k, nw;

	cJSON_AddStringToObject(root, "schema", FLEET_SCHEMA);
	o = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(o, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(o, "version", PACKAGE_VERSION);
	o = cJSON_AddObjectToObject(root, "inputs");
	cJSON_AddNumberToObject(o, "files", (double)f->files);
	cJSON_AddNumberToObject(o, "usable", (double)f->nrows);
	cJSON_AddNumberToObject(o, "skipped", (double)f->skipped);
	a = cJSON_AddArrayToObject(o, "skipped_files");
	for (i = 0; i < f->skipped; i++) {
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "file", f->bad[i].file);
		cJSON_AddStringToObject(c, "reason", f->bad[i].why);
		cJSON_AddItemToArray(a, c);
	}

	nodes_by_exit(f, by);
	o = cJSON_AddObjectToObject(root, "nodes");
	cJSON_AddNumberToObject(o, "count", (double)f->nrows);
	for (i = 0; i < 4; i++)
		cJSON_AddNumberToObject(o, exit_names[i], (double)by[i]);
	cJSON_AddNumberToObject(root, "exit", fleet_exit(f));

	a = cJSON_AddArrayToObject(root, "checks");
	for (i = 0; i < f->nchecks; i++) {
		const struct check_agg *ck = &f->checks[i];
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "id", ck->id);
		add_counts(c, ck->count);
		x = cJSON_AddArrayToObject(c, "failing_nodes");
		for (k = 0; k < (size_t)ck->nfail_shown; k++)
			cJSON_AddItemToArray(x, cJSON_CreateString(f->rows[ck->fail_nodes[k]].hostname));
		cJSON_AddNumberToObject(c, "failing_more", ck->count[ST_FAIL] - ck->nfail_shown);
		cJSON_AddItemToArray(a, c);
	}

	a = cJSON_AddArrayToObject(root, "worst_nodes");
	nw = worst_nodes(f, top, &worst);
	for (i = 0; i < nw; i++) {
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "hostname", worst[i]->hostname);
		cJSON_AddStringToObject(c, "file", worst[i]->file);
		add_counts(c, worst[i]->count);
		cJSON_AddNumberToObject(c, "exit", worst[i]->exit);
		cJSON_AddItemToArray(a, c);
	}
	free(worst);

	o = cJSON_AddObjectToObject(root, "spreads");
	for (i = 0; i < SP_N; i++) {
		const struct spread *s = &f->sp[i];
		c = cJSON_AddObjectToObject(o, s->key);
		cJSON_AddNumberToObject(c, "count", (double)s->n);
		cJSON_AddNumberToObject(c, "unknown", (double)s->missing);
		add_num_or_null(c, "min", s->n ? s->v[0] : NAN);
		add_num_or_null(c, "median", spread_median(s->v, s->n));
		add_num_or_null(c, "max", s->n ? s->v[s->n - 1] : NAN);
		if (!s->histogram)
			continue;
		x = cJSON_AddArrayToObject(c, "histogram");
		for (k = 0; k < s->n;) {
			size_t run = 1;
			cJSON *h = cJSON_CreateObject();
			while (k + run < s->n && s->v[k + run] == s->v[k])
				run++;
			cJSON_AddNumberToObject(h, "value", s->v[k]);
			cJSON_AddNumberToObject(h, "count", (double)run);
			cJSON_AddItemToArray(x, h);
			k += run;
		}
	}
	return root;
}

void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void fleet_csv(FILE *fp, const struct fleet *f)
{
	size_t i;
	int k;
	char b[64];
	fputs("hostname,file,exit", fp);
	for (k = 0; k < ST_N; k++)
		fprintf(fp, ",%s", report_status_names[k]);
	for (k = 0; k < FIG_N; k++)
		fprintf(fp, ",%s", report_figure_csv_names[k]);
	fputs("\r\n", fp);
	for (i = 0; i < f->nrows; i++) {
		const struct node_row *r = &f->rows[i];
		csv_field(fp, r->hostname);
		fputc(',', fp);
		csv_field(fp, r->file);
		fprintf(fp, ",%d", r->exit);
		for (k = 0; k < ST_N; k++)
			fprintf(fp, ",%d", r->count[k]);
		for (k = 0; k < FIG_N; k++)
			fprintf(fp, ",%s", fmt_num(b, sizeof(b), r->fig[k]));
		fputs("\r\n", fp);
	}
}
