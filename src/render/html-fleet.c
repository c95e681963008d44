/* render/html-fleet.c - `report --format html`: the fleet as one self-contained page */
#include "config.h"
#include "audit/fleet.h"
#include "render/html.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How many nodes one outlier value names before "+N more" (the node table has all). */
#define HTML_OUTLIER_NAMES 200

static const char *const exit_names[4] = { "ok", "warning", "critical", "unknown" };
static const char *const exit_class[4] = { "pass", "warn", "fail", "unknown" };

static void node_link(FILE *fp, const char *host)
{
	MK(fp, "<a href=\"#");
	mk_id(fp, "node-", host);
	MK(fp, "\">");
	mk_text(fp, host);
	MK(fp, "</a>");
}

static void card(FILE *fp, const char *id, const char *cls, const char *label, size_t n)
{
	MK(fp, "<div");
	mk_attrf(fp, "class", "card %s", cls);
	MK(fp, "><b");
	mk_attr(fp, "id", id);
	mk_rawf(fp, ">%zu</b>", n);
	mk_text(fp, label);
	MK(fp, "</div>");
}

static void check_name(FILE *fp, const struct check_agg *c)
{
	html_check_id(fp, c->id);
	if (c->key) {
		MK(fp, " <code>");
		mk_text(fp, c->key);
		MK(fp, "</code>");
	}
}

static void headline(FILE *fp, const struct fleet *f)
{
	size_t by[4] = { 0 }, i;
	int e = fleet_exit(f);
	for (i = 0; i < f->nrows; i++)
		by[f->rows[i].exit]++;
	MK(fp, "<h1>");
	mk_textf(fp, "Fleet: %zu node%s", f->nrows, f->nrows == 1 ? "" : "s");
	MK(fp, "</h1>\n");
	{
		/* One word for the fleet (its exit status), and the nodes that make it so. */
		static const char *const word[4] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
		size_t k = 0;
		MK(fp, "<p");
		mk_attrf(fp, "class", "verdict %s", exit_class[e]);
		MK(fp, " id=\"verdict\"><b>");
		mk_text(fp, word[e]);
		MK(fp, "</b>");
		if (e > 0) {
			mk_textf(fp, ": %zu of %zu node%s %s", by[e], f->nrows, f->nrows == 1 ? "" : "s", exit_names[e]);
			for (i = 0; i < f->nrows; i++)
				if (f->rows[i].exit == e) {
					if (k == 5) {
						MK(fp, ", ...");
						break;
					}
					mk_text(fp, k++ ? ", " : " (");
					node_link(fp, f->rows[i].hostname);
				}
			if (k)
				MK(fp, ")");
		} else
			mk_rawf(fp, ": every node passes");
		MK(fp, "</p>\n<div class=\"cards\">");
	}
	card(fp, "count-nodes", "", "nodes", f->nrows);
	card(fp, "count-files", "", "files read", f->files);
	card(fp, "count-skipped", f->skipped ? "warn" : "", "files skipped", f->skipped);
	for (i = 0; i < 4; i++) {
		char id[32];
		snprintf(id, sizeof(id), "count-%s", exit_names[i]);
		card(fp, id, by[i] ? exit_class[i] : "", exit_names[i], by[i]);
	}
	card(fp, "count-outlier-facts", fleet_outlier_facts(f) ? "warn" : "", "facts with outliers",
	     fleet_outlier_facts(f));
	MK(fp, "</div>\n<p>Fleet exit status: <span");
	mk_attrf(fp, "class", "st %s", exit_class[e]);
	mk_rawf(fp, " id=\"fleet-exit\">%d</span> (", e);
	mk_text(fp, exit_names[e]);
	MK(fp, ")</p>\n");
	if (f->nprofiles > 1) {
		MK(fp, "<p class=\"mixed\" id=\"profiles-mixed\"><b>Mixed profiles:</b> these reports were checked "
		      "against different profiles, so their findings do not compare:");
		for (i = 0; i < f->nprofiles; i++) {
			mk_text(fp, i ? ", " : " ");
			MK(fp, "<code>");
			mk_text(fp, f->profiles[i].name);
			mk_rawf(fp, "</code> (%zu)", f->profiles[i].count);
		}
		MK(fp, "</p>\n");
	} else if (f->nprofiles == 1) {
		MK(fp, "<p>Profile: <code>");
		mk_text(fp, f->profiles[0].name);
		MK(fp, "</code></p>\n");
	}
	if (f->skipped) {
		MK(fp, "<h2>Skipped files</h2>\n<ul>");
		for (i = 0; i < f->skipped; i++) {
			MK(fp, "<li><code>");
			mk_text(fp, f->bad[i].file);
			MK(fp, "</code>: ");
			mk_text(fp, f->bad[i].why);
			MK(fp, "</li>");
		}
		MK(fp, "</ul>\n");
	}
}

static void checks_table(FILE *fp, const struct fleet *f)
{
	size_t i, k;
	int s;
	MK(fp, "<h2 id=\"checks\">Checks</h2>\n<table id=\"checks-table\"><thead><tr><th>Check</th>");
	for (s = 0; s < ST_N; s++)
	{
		MK(fp, "<th class=\"n\">");
		mk_text(fp, report_status_names[s]);
		MK(fp, "</th>");
	}
	MK(fp, "<th>Failing and warning nodes</th></tr></thead><tbody>\n");
	for (i = 0; i < f->nchecks; i++) {
		const struct check_agg *c = &f->checks[i];
		MK(fp, "<tr");
		mk_attr(fp, "class", c->count[ST_FAIL] ? "fail" : c->count[ST_WARN] ? "warn" : "");
		mk_attr(fp, "data-check", c->id);
		mk_attr(fp, "data-key", c->key ? c->key : "");
		MK(fp, "><td>");
		check_name(fp, c);
		MK(fp, "</td>");
		for (s = 0; s < ST_N; s++)
		{
			MK(fp, "<td class=\"n\"");
			mk_attr(fp, "data-status", report_status_names[s]);
			mk_rawf(fp, ">%d</td>", c->count[s]);
		}
		MK(fp, "<td>");
		for (k = 0; k < (size_t)c->nfail_shown; k++) {
			if (k)
				MK(fp, ", ");
			node_link(fp, f->rows[c->fail_nodes[k]].hostname);
		}
		if (c->count[ST_FAIL] > c->nfail_shown)
			mk_rawf(fp, " (+%d more)", c->count[ST_FAIL] - c->nfail_shown);
		for (k = 0; k < (size_t)c->nwarn_shown; k++) {
			mk_text(fp, k ? ", " : c->nfail_shown ? "; warn: " : "warn: ");
			node_link(fp, f->rows[c->warn_nodes[k]].hostname);
		}
		if (c->count[ST_WARN] > c->nwarn_shown)
			mk_rawf(fp, " (+%d more)", c->count[ST_WARN] - c->nwarn_shown);
		MK(fp, "</td></tr>\n");
	}
	MK(fp, "</tbody></table>\n");
	if (!f->nchecks)
		MK(fp, "<p>No findings.</p>\n");
}

static void outliers_table(FILE *fp, const struct fleet *f)
{
	size_t i, k, n, *rows;
	char b1[64], b2[64];
	MK(fp, "<h2 id=\"outliers\">Outliers</h2>\n");
	if (!fleet_outlier_facts(f)) {
		mk_rawf(fp, "<p id=\"no-outliers\">None: the %zu facts compared are the same on every node that has "
			"them.</p>\n", f->nuf);
		return;
	}
	mk_rawf(fp, "<p class=\"note\">Facts that should be the same across the fleet; measured figures differ when "
		"more than %.0f%% from the fleet median.</p>\n<table id=\"outliers-table\"><thead><tr><th>Fact</th>"
		"<th>Value</th><th class=\"n\">Nodes</th><th>Fleet</th><th>Which</th></tr></thead><tbody>\n",
		100 * UNIFORM_TOLERANCE);
	for (i = 0; i < f->nuf; i++) {
		const struct uniform_fact *u = &f->uf[i];
		if (!u->ndiffer)
			continue;
		n = fleet_outlier_rows(f, u, &rows);
		for (k = 0; k < n;) {
			size_t c = 1, j;
			if (!u->measured)
				c = u->counts[u->val[rows[k]]];
			MK(fp, "<tr class=\"warn\" data-fact=\"");
			mk_text(fp, u->name);
			MK(fp, "\"><td>");
			html_check_id(fp, u->name);
			MK(fp, "</td><td>");
			html_fact_value(fp, u->name, fleet_row_value(u, rows[k], b1, sizeof(b1)));
			mk_rawf(fp, "</td><td class=\"n\">%zu</td><td>", c);
			html_fact_value(fp, u->name, fleet_majority_value(u, b2, sizeof(b2)));
			if (u->measured)
				MK(fp, " (median)");
			MK(fp, "</td><td>");
			for (j = 0; j < c && j < HTML_OUTLIER_NAMES; j++) {
				if (j)
					MK(fp, ", ");
				node_link(fp, f->rows[rows[k + j]].hostname);
			}
			if (c > HTML_OUTLIER_NAMES)
				mk_rawf(fp, " (+%zu more)", c - HTML_OUTLIER_NAMES);
			MK(fp, "</td></tr>\n");
			k += c;
		}
		free(rows);
	}
	MK(fp, "</tbody></table>\n");
}

/*** At a glance: the node x check grid and the distributions ***/

/* A figure per node from a uniform fact: NaN where unknown. */
static double uf_value(const struct fleet *f, const char *name, size_t r)
{
	size_t i;
	for (i = 0; i < f->nuf; i++) {
		const struct uniform_fact *u = &f->uf[i];
		char *end;
		double v;
		if (strcmp(u->name, name))
			continue;
		if (u->measured)
			return u->num ? u->num[r] : NAN;
		if (!u->val || u->val[r] == UNIFORM_NONE)
			return NAN;
		v = strtod(u->values[u->val[r]], &end);
		return *end || end == u->values[u->val[r]] ? NAN : v;
	}
	return NAN;
}

enum { U_COUNT, U_BYTES, U_GBS, U_TOKS };

static void label_of(double v, int unit, char *buf, size_t n)
{
	if (unit == U_BYTES)
		html_human(v, "bytes", buf, n);
	else if (unit == U_GBS)
		snprintf(buf, n, "%.0f", v / 1e9);
	else
		snprintf(buf, n, "%.4g", v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A histogram of v (n known values, sorted here): a bar per value when
 * there are at most 10, else 10 bins from the lowest value. */
static void histogram(FILE *fp, const char *title, double *v, size_t n, size_t missing, int unit, const char *none)
{
	enum { BINS = 10 };
	char *labels[BINS], b[48];
	size_t counts[BINS] = { 0 }, k, nl = 0, distinct = 0;
	if (!n) {
		MK(fp, "<figure class=\"chart empty\"><figcaption>");
		mk_textf(fp, "%s: no node has it (%zu unknown; %s).", title, missing, none);
		MK(fp, "</figcaption></figure>\n");
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	for (k = 0; k < n; k++)
		distinct += !k || v[k] != v[k - 1];
	if (distinct <= BINS) {
		for (k = 0; k < n; k++) {
			if (!k || v[k] != v[k - 1]) {
				label_of(v[k], unit, b, sizeof(b));
				labels[nl] = xstrdup(b);
				counts[nl++] = 0;
			}
			counts[nl - 1]++;
		}
	} else {
		double lo = v[0], w = (v[n - 1] - v[0]) / BINS;
		for (k = 0; k < BINS; k++) {
			label_of(lo + w * (double)k, unit, b, sizeof(b));
			labels[k] = xstrdup(b);
		}
		nl = BINS;
		for (k = 0; k < n; k++) {
			size_t i = w > 0 ? (size_t)((v[k] - lo) / w) : 0;
			counts[i < BINS ? i : BINS - 1]++;
		}
	}
	{
		char *t = missing ? xasprintf("%s (%zu node%s; unknown on %zu)", title, n, n == 1 ? "" : "s", missing) :
				    xasprintf("%s (%zu node%s)", title, n, n == 1 ? "" : "s");
		svg_bars(fp, t, (const char *const *)labels, counts, nl);
		free(t);
	}
	for (k = 0; k < nl; k++)
		free(labels[k]);
}

static void distributions(FILE *fp, const struct fleet *f)
{
	double *v;
	size_t r, n = f->nrows, miss = 0;
	const struct spread *s;
	/* A spread may hold more values than nodes (one per accelerator). */
	for (r = 0; r < SP_N; r++)
		if (f->sp[r].n > n)
			n = f->sp[r].n;
	v = xcalloc(n + 1, sizeof(*v));
	n = 0;
	MK(fp, "<div class=\"glance\" id=\"distributions\">");
	/* Cores. */
	s = &f->sp[SP_CPU_CORES];
	for (r = 0; r < s->n; r++)
		v[n++] = s->v[r];
	histogram(fp, "Cores per node", v, n, s->missing, U_COUNT, "cpu.cores");
	/* Memory per core: installed (else total) over cores. */
	n = 0;
	for (r = 0; r < f->nrows; r++) {
		double mem = uf_value(f, "memory.installed_bytes", r), cores = uf_value(f, "cpu.cores", r);
		if (isfinite(mem) && cores > 0)
			v[n++] = mem / cores;
		else
			miss++;
	}
	histogram(fp, "Memory per core", v, n, miss, U_BYTES, "memory.installed_bytes from SMBIOS and cpu.cores");
	/* Measured bandwidth. */
	s = &f->sp[SP_BENCH_BW];
	for (n = 0, r = 0; r < s->n; r++)
		v[n++] = s->v[r];
	histogram(fp, "Measured memory bandwidth, GB/s", v, n, s->missing, U_GBS, "check --bench measures it");
	/* The decode ceiling. */
	for (n = 0, miss = 0, r = 0; r < f->nrows; r++) {
		double t = uf_value(f, "bench.predicted.tokens_per_s", r);
		if (isfinite(t))
			v[n++] = t;
		else
			miss++;
	}
	histogram(fp, "Decode ceiling, tokens/s", v, n, miss, U_TOKS, "check --bench --bench-model MODEL.gguf predicts it");
	s = &f->sp[SP_CHANNELS_POPULATED];
	if (s->n) {
		for (n = 0, r = 0; r < s->n; r++)
			v[n++] = s->v[r];
		histogram(fp, "Memory channels populated", v, n, s->missing, U_COUNT, "");
	}
	s = &f->sp[SP_ACCEL_WIDTH_CURRENT];
	if (s->n) {
		for (n = 0, r = 0; r < s->n; r++)
			v[n++] = s->v[r];
		histogram(fp, "Accelerator PCIe link width (accelerators)", v, n, s->missing, U_COUNT, "");
	}
	MK(fp, "</div>\n");
	free(v);
}

/* Worst first: critical, unknown, warning, ok; then more fails, warnings
 * and unknowns; then by host name (the input order breaks the last ties). */
static const struct fleet *sort_fleet;

static int worse_first(const void *pa, const void *pb)
{
	static const int rank[4] = { 3, 2, 0, 1 };   /* by exit: ok, warning, critical, unknown */
	const struct node_row *a = &sort_fleet->rows[*(const size_t *)pa], *b = &sort_fleet->rows[*(const size_t *)pb];
	int ra = a->exit >= 0 && a->exit < 4 ? rank[a->exit] : 1, rb = b->exit >= 0 && b->exit < 4 ? rank[b->exit] : 1, c;
	if (ra != rb)
		return ra - rb;
	if (a->count[ST_FAIL] != b->count[ST_FAIL])
		return b->count[ST_FAIL] - a->count[ST_FAIL];
	if (a->count[ST_WARN] != b->count[ST_WARN])
		return b->count[ST_WARN] - a->count[ST_WARN];
	if (a->count[ST_UNKNOWN] != b->count[ST_UNKNOWN])
		return b->count[ST_UNKNOWN] - a->count[ST_UNKNOWN];
	if ((c = strcmp(a->hostname, b->hostname)))
		return c;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* The fleet at a glance: a row per node (worst first), a column per check
 * that some node did not pass (most failures first), each cell coloured by
 * that node's status for that check. */
#define GRID_ROWS 60
#define GRID_COLS 48

static int check_order(const void *pa, const void *pb)
{
	const struct check_agg *a = &sort_fleet->checks[*(const size_t *)pa], *b = &sort_fleet->checks[*(const size_t *)pb];
	if (a->count[ST_FAIL] != b->count[ST_FAIL])
		return b->count[ST_FAIL] - a->count[ST_FAIL];
	if (a->count[ST_WARN] != b->count[ST_WARN])
		return b->count[ST_WARN] - a->count[ST_WARN];
	if (a->count[ST_UNKNOWN] != b->count[ST_UNKNOWN])
		return b->count[ST_UNKNOWN] - a->count[ST_UNKNOWN];
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static void clip_name(const char *s, size_t n, char *out, size_t len)
{
	size_t i = 0, k = 0;
	while (s[i] && k < n) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k++;
	}
	snprintf(out, len, "%.*s%s", (int)i, s, s[i] ? "..." : "");
}

static void grid(FILE *fp, const struct fleet *f, const size_t *order)
{
	static const char *const fill[ST_N] = { "#aceebb", "#fae17d", "#ff8182", "#d0d7de", "#ffffff", "#ffffff" };
	size_t *cols = xcalloc(f->nchecks + 1, sizeof(*cols)), nc = 0, i, k, j;
	size_t nr = f->nrows < GRID_ROWS ? f->nrows : GRID_ROWS;
	const int cw = 16, ch = 16, left = 150, top = 118;
	int w, h;
	char b[24 * 4 + 4];   /* 24 characters of up to 4 bytes, and "..." */
	for (i = 0; i < f->nchecks; i++)
		if (f->checks[i].count[ST_FAIL] || f->checks[i].count[ST_WARN] || f->checks[i].count[ST_UNKNOWN])
			cols[nc++] = i;
	qsort(cols, nc, sizeof(*cols), check_order);
	if (nc > GRID_COLS)
		nc = GRID_COLS;
	w = left + (int)nc * cw + 130;
	h = top + (int)nr * ch + 8;
	MK(fp, "<figure class=\"grid\" id=\"grid\">");
	if (!nc) {
		MK(fp, "<figcaption>Every node passes every check (no grid to draw).</figcaption></figure>\n");
		free(cols);
		return;
	}
	mk_rawf(fp, "<svg role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>", w, h, w, h);
	mk_textf(fp, "Nodes against checks: %zu nodes, %zu checks not passed everywhere", f->nrows, nc);
	MK(fp, "</title>");
	for (j = 0; j < nc; j++) {
		const struct check_agg *c = &f->checks[cols[j]];
		int x = left + (int)j * cw + cw / 2;
		mk_rawf(fp, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-55 %d %d)\" font-size=\"10\">", x, top - 4, x, top - 4);
		clip_name(c->id, 24, b, sizeof(b));
		mk_text(fp, b);
		MK(fp, "<title>");
		mk_textf(fp, "%s%s%s: %d fail, %d warn, %d unknown", c->id, c->key ? " " : "", c->key ? c->key : "",
			 c->count[ST_FAIL], c->count[ST_WARN], c->count[ST_UNKNOWN]);
		MK(fp, "</title></text>");
	}
	for (k = 0; k < nr; k++) {
		const struct node_row *r = &f->rows[order[k]];
		int y = top + (int)k * ch;
		MK(fp, "<g class=\"row\"");
		mk_attr(fp, "data-node", r->hostname);
		MK(fp, ">");
		mk_rawf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">", left - 6, y + ch - 4);
		clip_name(r->hostname, 20, b, sizeof(b));
		mk_text(fp, b);
		MK(fp, "<title>");
		mk_text(fp, r->hostname);
		MK(fp, "</title></text>");
		for (j = 0; j < nc; j++) {
			const struct check_agg *c = &f->checks[cols[j]];
			int st = ST_PASS;
			for (i = 0; i < r->nbad; i++)
				if (r->bad[i] >> 3 == c->serial)
					st = (int)(r->bad[i] & 7);
			MK(fp, "<rect");
			mk_rawf(fp, " x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", left + (int)j * cw, y, cw - 1, ch - 1);
			mk_attr(fp, "fill", fill[st < ST_N ? st : ST_UNKNOWN]);
			mk_attr(fp, "data-status", report_status_names[st < ST_N ? st : ST_UNKNOWN]);
			MK(fp, "><title>");
			mk_textf(fp, "%s: %s%s%s: %s", r->hostname, c->id, c->key ? " " : "", c->key ? c->key : "",
				 st == ST_PASS ? "passed (no finding against it)" : report_status_names[st]);
			MK(fp, "</title></rect>");
		}
		mk_rawf(fp, "<text x=\"%d\" y=\"%d\" font-size=\"10\">", left + (int)nc * cw + 6, y + ch - 4);
		mk_textf(fp, "%d fail \xc2\xb7 %d warn", r->count[ST_FAIL], r->count[ST_WARN]);
		MK(fp, "</text></g>");
	}
	MK(fp, "</svg><figcaption>");
	mk_textf(fp, "Nodes (worst first) against the checks some node did not pass (most failures first): red fail, "
		 "yellow warn, grey unknown, green no finding.%s", f->nrows > nr || nc == GRID_COLS ?
		 " The first ones only; the tables below have all." : "");
	MK(fp, "</figcaption></figure>\n");
	free(cols);
}

static size_t *worst_order(const struct fleet *f)
{
	size_t k, *order = xcalloc(f->nrows + 1, sizeof(*order));
	for (k = 0; k < f->nrows; k++)
		order[k] = k;
	sort_fleet = f;
	qsort(order, f->nrows, sizeof(*order), worse_first);
	return order;
}

static void glance(FILE *fp, const struct fleet *f)
{
	size_t *order = worst_order(f);
	MK(fp, "<h2 id=\"glance\">At a glance</h2>\n<div class=\"glance\">");
	grid(fp, f, order);
	MK(fp, "<div>");
	distributions(fp, f);
	MK(fp, "</div></div>\n");
	free(order);
}

static void nodes_table(FILE *fp, const struct fleet *f, size_t top)
{
	size_t i, j, k, *order = worst_order(f);
	char b[64];
	(void)top;
	MK(fp, "<h2 id=\"nodes\">Nodes</h2>\n<p class=\"note\">Worst first: critical, unknown, warning, ok.</p>\n<table id=\"nodes-table\"><colgroup><col style=\"width:15%\"><col style=\"width:5%\">"
	   "<col style=\"width:5%\"><col style=\"width:5%\"><col style=\"width:6%\"><col style=\"width:30%\">"
	   "<col style=\"width:20%\"><col style=\"width:14%\"></colgroup><thead><tr><th>Node</th><th class=\"n\">Exit</th>"
	      "<th class=\"n\">fail</th><th class=\"n\">warn</th><th class=\"n\">unknown</th><th>Findings not passed</th>"
	      "<th>Differs from the fleet</th><th>Report</th></tr></thead><tbody>\n");
	for (k = 0; k < f->nrows; k++) {
		const struct node_row *r = &f->rows[i = order[k]];
		MK(fp, "<tr id=\"");
		mk_id(fp, "node-", r->hostname);
		MK(fp, "\"");
		mk_attr(fp, "class", exit_class[r->exit]);
		MK(fp, "><td>");
		mk_text(fp, r->hostname);
		mk_rawf(fp, "</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>",
			r->exit, r->count[ST_FAIL], r->count[ST_WARN], r->count[ST_UNKNOWN]);
		if (r->nbad)
			MK(fp, "<ul class=\"vals\">");
		for (j = 0; j < r->nbad; j++) {
			const struct check_agg *c = &f->checks[f->check_by_serial[r->bad[j] >> 3]];
			const char *st = report_status_names[r->bad[j] & 7];
			MK(fp, "<li><i");
			mk_attrf(fp, "class", "st %s", st);
			MK(fp, ">");
			mk_text(fp, st);
			MK(fp, "</i> ");
			html_check_id(fp, c->id);
			if (c->key) {
				MK(fp, " ");
				mk_text(fp, c->key);
			}
			MK(fp, "</li>");
		}
		if (r->nbad)
			MK(fp, "</ul>");
		MK(fp, "</td><td>");
		for (j = 0; j < f->nuf; j++)
			if (fleet_row_differs(&f->uf[j], i)) {
				html_check_id(fp, f->uf[j].name);
				MK(fp, ": ");
				html_fact_value(fp, f->uf[j].name, fleet_row_value(&f->uf[j], i, b, sizeof(b)));
				MK(fp, "<br>");
			}
		/* The report's file name, its path in the title. */
		MK(fp, "</td><td><code");
		mk_attr(fp, "title", r->file);
		MK(fp, ">");
		mk_text(fp, strrchr(r->file, '/') && strrchr(r->file, '/')[1] ? strrchr(r->file, '/') + 1 : r->file);
		MK(fp, "</code></td></tr>\n");
	}
	MK(fp, "</tbody></table>\n");
	free(order);
}

void fleet_html(FILE *fp, const struct fleet *f, size_t top)
{
	char title[64];
	snprintf(title, sizeof(title), "nodeaudit fleet report: %zu nodes", f->nrows);
	html_begin(fp, title);
	headline(fp, f);
	MK(fp, "<p><a href=\"#glance\">At a glance</a> &middot; <a href=\"#checks\">Checks</a> &middot; "
	      "<a href=\"#outliers\">Outliers</a> &middot; <a href=\"#nodes\">Nodes</a></p>\n");
	glance(fp, f);
	checks_table(fp, f);
	outliers_table(fp, f);
	nodes_table(fp, f, top);
	html_end(fp);
}
