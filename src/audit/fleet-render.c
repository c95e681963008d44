/* audit/fleet-render.c - the fleet as text, JSON and CSV */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Bandwidth for people: decimal GB/s as vendors quote it. */
static const char *fmt_fig(char *buf, size_t n, const struct spread *s, double x)
{
	if (strstr(s->key, "bytes_per_s"))
		snprintf(buf, n, "%.1f GB/s", x / 1e9);
	else
		fleet_fmt_num(buf, n, x);
	return buf;
}

/* How many nodes an outlier line names in text before "(+N more)". */
#define OUTLIER_NAMES 10
/* How many values of one fact text lists before a summary line. */
#define OUTLIER_VALUES 10

static void outliers_text(FILE *fp, const struct fleet *f)
{
	size_t i, k, n, *rows, shown_values;
	char b1[64], b2[64];
	tx_section(fp, "Outliers");
	for (i = 0; i < f->nuf; i++) {
		const struct uniform_fact *u = &f->uf[i];
		if (!u->ndiffer)
			continue;
		n = fleet_outlier_rows(f, u, &rows);
		if (u->measured) {
			fprintf(fp, "  %s%s%s: %zu of %zu nodes differ by more than %.0f%% (fleet median: %s):",
				c_yellow(), u->name, c_reset(), n, f->nrows, 100 * UNIFORM_TOLERANCE,
				fleet_majority_value(u, b1, sizeof(b1)));
			for (k = 0; k < n && k < OUTLIER_NAMES; k++)
				fprintf(fp, "%s %s (%s)", k ? "," : "", f->rows[rows[k]].hostname,
					fleet_row_value(u, rows[k], b2, sizeof(b2)));
			if (n > OUTLIER_NAMES)
				fprintf(fp, " (+%zu more)", n - OUTLIER_NAMES);
			fputc('\n', fp);
			free(rows);
			continue;
		}
		k = 0;
		for (shown_values = 0; shown_values < u->norder && k < n; shown_values++) {
			size_t v = u->order[shown_values], c = u->counts[v], j;
			if (shown_values == OUTLIER_VALUES) {
				fprintf(fp, "  %s%s%s: %zu more values on %zu nodes\n", c_yellow(), u->name,
					c_reset(), u->norder - shown_values, n - k);
				break;
			}
			fprintf(fp, "  %s%s%s: %zu of %zu node%s %s %s (fleet: %s):", c_yellow(), u->name,
				c_reset(), c, f->nrows, f->nrows == 1 ? "" : "s", c == 1 ? "has" : "have",
				u->values[v], u->values[u->majority]);
			for (j = 0; j < c; j++)
				if (j < OUTLIER_NAMES)
					fprintf(fp, "%s %s", j ? "," : "", f->rows[rows[k + j]].hostname);
			if (c > OUTLIER_NAMES)
				fprintf(fp, " (+%zu more)", c - OUTLIER_NAMES);
			fputc('\n', fp);
			k += c;
		}
		free(rows);
	}
	n = fleet_outlier_facts(f);
	if (!n)
		fprintf(fp, "  (none: the %zu facts compared are the same on every node that has them)\n",
			f->nuf);
}

/* "Fleet: N nodes from M files", the exit, the nodes by exit, the profiles. */
static void text_head(FILE *fp, const struct fleet *f)
{
	size_t by[4], i;
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
	if (f->nprofiles == 1)
		tx_kv(fp, "profile", "%s", f->profiles[0].name);
	else if (f->nprofiles > 1) {
		fprintf(fp, "  %-22s %sMIXED%s:", "profiles", c_yellow(), c_reset());
		for (i = 0; i < f->nprofiles; i++)
			fprintf(fp, "%s %s (%zu node%s)", i ? "," : "", f->profiles[i].name,
				f->profiles[i].count, f->profiles[i].count == 1 ? "" : "s");
		fputc('\n', fp);
	}
}

/* One line per check: its counts, its failing and warning nodes. */
static void text_checks(FILE *fp, const struct fleet *f)
{
	size_t i, k;

	tx_section(fp, "Checks");
	fprintf(fp, "  %-34s %5s %5s %5s %5s %5s %5s  %s\n", "ID", "PASS", "WARN", "FAIL", "UNKN", "SKIP",
		"INFO", "FAILING NODES");
	for (i = 0; i < f->nchecks; i++) {
		const struct check_agg *c = &f->checks[i];
		const char *col = c->count[ST_FAIL] ? c_red() : c->count[ST_WARN] ? c_yellow() : "";
		char idk[256];
		snprintf(idk, sizeof(idk), "%s%s%s", c->id, c->key ? " " : "", c->key ? c->key : "");
		fprintf(fp, "  %s%-34s%s %5d %5d %5d %5d %5d %5d", col, idk, *col ? c_reset() : "",
			c->count[ST_PASS], c->count[ST_WARN], c->count[ST_FAIL], c->count[ST_UNKNOWN],
			c->count[ST_SKIP], c->count[ST_INFO]);
		for (k = 0; k < (size_t)c->nfail_shown; k++)
			fprintf(fp, "%s%s", k ? ", " : "  ", f->rows[c->fail_nodes[k]].hostname);
		if (c->count[ST_FAIL] > c->nfail_shown)
			fprintf(fp, " (+%d more)", c->count[ST_FAIL] - c->nfail_shown);
		/* The warning nodes too, after the failing ones. */
		for (k = 0; k < (size_t)c->nwarn_shown; k++)
			fprintf(fp, "%s%s", k ? ", " : c->nfail_shown ? "; warn: " : "  warn: ",
				f->rows[c->warn_nodes[k]].hostname);
		if (c->count[ST_WARN] > c->nwarn_shown)
			fprintf(fp, " (+%d more)", c->count[ST_WARN] - c->nwarn_shown);
		fputc('\n', fp);
	}
	if (!f->nchecks)
		fprintf(fp, "  (no findings)\n");
}

static void text_worst(FILE *fp, const struct fleet *f, size_t top)
{
	const struct node_row **worst;
	size_t i, nw;

	tx_section(fp, "Worst nodes");
	nw = worst_nodes(f, top, &worst);
	for (i = 0; i < nw; i++)
		fprintf(fp, "  %-24s fail %d, warn %d, unknown %d, exit %d  %s\n", worst[i]->hostname,
			worst[i]->count[ST_FAIL], worst[i]->count[ST_WARN], worst[i]->count[ST_UNKNOWN],
			worst[i]->exit, worst[i]->file);
	if (!nw)
		fprintf(fp, "  %s\n", worst[0] ? "(not listed: --top 0)" : "(none: every node passed)");
	free(worst);
}

/* Each figure's min, median and max, and its histogram. */
static void text_spreads(FILE *fp, const struct fleet *f)
{
	size_t i, k;
	char b1[64], b2[64], b3[64];

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

void fleet_text(FILE *fp, const struct fleet *f, size_t top)
{
	text_head(fp, f);
	fputc('\n', fp);
	text_checks(fp, f);
	fputc('\n', fp);
	text_worst(fp, f, top);
	fputc('\n', fp);
	outliers_text(fp, f);
	fputc('\n', fp);
	text_spreads(fp, f);
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

/*
 * "outliers": {"compared": N, "tolerance": 0.1, "facts": [{"fact", "fleet",
 * "nodes", "known", "differ", "measured", "values": [{"value", "count",
 * "nodes": [hostnames]}]}]}: only the facts with nodes that differ, every
 * such node named.  Values are strings; a measured fact has numbers.
 */
static cJSON *outliers_json(const struct fleet *f)
{
	cJSON *o = cJSON_CreateObject(), *a, *c, *vals, *v = NULL, *names = NULL;
	size_t i, k, n, *rows;
	cJSON_AddNumberToObject(o, "compared", (double)f->nuf);
	cJSON_AddNumberToObject(o, "tolerance", UNIFORM_TOLERANCE);
	a = cJSON_AddArrayToObject(o, "facts");
	for (i = 0; i < f->nuf; i++) {
		const struct uniform_fact *u = &f->uf[i];
		uint32_t last = UNIFORM_NONE;
		if (!u->ndiffer)
			continue;
		c = cJSON_CreateObject();
		cJSON_AddItemToArray(a, c);
		cJSON_AddStringToObject(c, "fact", u->name);
		if (u->measured)
			cJSON_AddNumberToObject(c, "fleet", u->median);
		else
			cJSON_AddStringToObject(c, "fleet", u->values[u->majority]);
		cJSON_AddBoolToObject(c, "measured", u->measured);
		cJSON_AddNumberToObject(c, "nodes", (double)f->nrows);
		cJSON_AddNumberToObject(c, "known", (double)u->nknown);
		cJSON_AddNumberToObject(c, "differ", (double)u->ndiffer);
		vals = cJSON_AddArrayToObject(c, "values");
		n = fleet_outlier_rows(f, u, &rows);
		for (k = 0; k < n; k++) {
			size_t r = rows[k];
			if (u->measured || u->val[r] != last) {
				v = cJSON_CreateObject();
				cJSON_AddItemToArray(vals, v);
				if (u->measured) {
					cJSON_AddNumberToObject(v, "value", u->num[r]);
					cJSON_AddNumberToObject(v, "count", 1);
				} else {
					last = u->val[r];
					cJSON_AddStringToObject(v, "value", u->values[last]);
					cJSON_AddNumberToObject(v, "count", (double)u->counts[last]);
				}
				names = cJSON_AddArrayToObject(v, "nodes");
			}
			cJSON_AddItemToArray(names, cJSON_CreateString(f->rows[r].hostname));
		}
		free(rows);
	}
	return o;
}

/* schema, tool and inputs (the skipped files and why). */
static void json_inputs(cJSON *root, const struct fleet *f)
{
	cJSON *o, *a, *c;
	size_t i;

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
}

/* nodes by exit, the fleet's exit, the profiles. */
static void json_nodes(cJSON *root, const struct fleet *f)
{
	cJSON *o, *a, *c;
	size_t by[4], i;

	nodes_by_exit(f, by);
	o = cJSON_AddObjectToObject(root, "nodes");
	cJSON_AddNumberToObject(o, "count", (double)f->nrows);
	for (i = 0; i < 4; i++)
		cJSON_AddNumberToObject(o, exit_names[i], (double)by[i]);
	cJSON_AddNumberToObject(root, "exit", fleet_exit(f));
	a = cJSON_AddArrayToObject(root, "profiles");
	for (i = 0; i < f->nprofiles; i++) {
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", f->profiles[i].name);
		cJSON_AddNumberToObject(c, "nodes", (double)f->profiles[i].count);
		cJSON_AddItemToArray(a, c);
	}
	cJSON_AddBoolToObject(root, "profiles_mixed", f->nprofiles > 1);
}

/* One object per check: counts, failing and warning nodes. */
static void json_checks(cJSON *root, const struct fleet *f)
{
	cJSON *a, *c, *x;
	size_t i, k;

	a = cJSON_AddArrayToObject(root, "checks");
	for (i = 0; i < f->nchecks; i++) {
		const struct check_agg *ck = &f->checks[i];
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "id", ck->id);
		if (ck->key)
			cJSON_AddStringToObject(c, "key", ck->key);
		add_counts(c, ck->count);
		x = cJSON_AddArrayToObject(c, "failing_nodes");
		for (k = 0; k < (size_t)ck->nfail_shown; k++)
			cJSON_AddItemToArray(x, cJSON_CreateString(f->rows[ck->fail_nodes[k]].hostname));
		cJSON_AddNumberToObject(c, "failing_more", ck->count[ST_FAIL] - ck->nfail_shown);
		x = cJSON_AddArrayToObject(c, "warning_nodes");
		for (k = 0; k < (size_t)ck->nwarn_shown; k++)
			cJSON_AddItemToArray(x, cJSON_CreateString(f->rows[ck->warn_nodes[k]].hostname));
		cJSON_AddNumberToObject(c, "warning_more", ck->count[ST_WARN] - ck->nwarn_shown);
		cJSON_AddItemToArray(a, c);
	}
}

static void json_worst(cJSON *root, const struct fleet *f, size_t top)
{
	cJSON *a, *c;
	const struct node_row **worst;
	size_t i, nw;

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
}

/* Each figure's count, unknowns, min, median, max and histogram. */
static void json_spreads(cJSON *root, const struct fleet *f)
{
	cJSON *o, *c, *x;
	size_t i, k;

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
}

cJSON *fleet_json(const struct fleet *f, size_t top)
{
	cJSON *root = cJSON_CreateObject();

	json_inputs(root, f);
	json_nodes(root, f);
	json_checks(root, f);
	json_worst(root, f, top);
	cJSON_AddItemToObject(root, "outliers", outliers_json(f));
	json_spreads(root, f);
	return root;
}

void csv_field(FILE *fp, const char *s)
{
	int formula = *s && strchr("=+-@\t\r", *s);
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	if (formula)
		fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void fleet_csv(FILE *fp, const struct fleet *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;
	int k;
	char b[64];
	fputs("hostname,file,exit", fp);
	for (k = 0; k < ST_N; k++)
		fprintf(fp, ",%s", report_status_names[k]);
	for (k = 0; k < FIG_N; k++)
		fprintf(fp, ",%s", report_figure_csv_names[k]);
	fputs(",outliers\r\n", fp);
	for (i = 0; i < f->nrows; i++) {
		const struct node_row *r = &f->rows[i];
		csv_field(fp, r->hostname);
		fputc(',', fp);
		csv_field(fp, r->file);
		fprintf(fp, ",%d", r->exit);
		for (k = 0; k < ST_N; k++)
			fprintf(fp, ",%d", r->count[k]);
		for (k = 0; k < FIG_N; k++)
			fprintf(fp, ",%s", fleet_fmt_num(b, sizeof(b), r->fig[k]));
		/* the facts where this node differs from the fleet: fact=value;... */
		sb.len = 0;
		for (j = 0; j < f->nuf; j++)
			if (fleet_row_differs(&f->uf[j], i)) {
				const char *v = fleet_row_value(&f->uf[j], i, b, sizeof(b));
				if (f->uf[j].measured)
					v = fleet_fmt_num(b, sizeof(b), f->uf[j].num[i]);
				strbuf_addf(&sb, "%s%s=%s", sb.len ? ";" : "", f->uf[j].name, v);
			}
		fputc(',', fp);
		csv_field(fp, sb.len ? sb.buf : "");
		fputs("\r\n", fp);
	}
	strbuf_release(&sb);
}
