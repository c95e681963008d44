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
			MK(fp, "\"><td><code>");
			mk_text(fp, u->name);
			MK(fp, "</code></td><td>");
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

/* One bar per distinct value of a sorted spread. */
static void spread_bars(FILE *fp, const struct spread *s, const char *title, const char *pre)
{
	size_t k, n = 0, cap = 24;
	char **labels = xcalloc(cap, sizeof(*labels));
	size_t *counts = xcalloc(cap, sizeof(*counts));
	for (k = 0; k < s->n && n < cap;) {
		size_t run = 1;
		while (k + run < s->n && s->v[k + run] == s->v[k])
			run++;
		labels[n] = xasprintf("%s%.15g", pre, s->v[k]);
		counts[n++] = run;
		k += run;
	}
	svg_bars(fp, title, (const char *const *)labels, counts, n);
	for (k = 0; k < n; k++)
		free(labels[k]);
	free(labels);
	free(counts);
}

/* Measured bandwidth: ten bins from the lowest to the highest value. */
static void bandwidth_bars(FILE *fp, const struct spread *s)
{
	enum { BINS = 10 };
	char *labels[BINS];
	size_t counts[BINS] = { 0 }, k, n;
	double lo = s->v[0], hi = s->v[s->n - 1], w;
	n = hi > lo ? BINS : 1;
	w = (hi - lo) / (double)n;
	for (k = 0; k < s->n; k++) {
		size_t b = w > 0 ? (size_t)((s->v[k] - lo) / w) : 0;
		counts[b < n ? b : n - 1]++;
	}
	for (k = 0; k < n; k++)
		labels[k] = xasprintf("%.0f", (lo + w * (double)k) / 1e9);
	svg_bars(fp, "Measured memory bandwidth, GB/s (bins from the lowest value; bar label is the bin's start)",
		 (const char *const *)labels, counts, n);
	for (k = 0; k < n; k++)
		free(labels[k]);
}

static void distributions(FILE *fp, const struct fleet *f)
{
	const struct spread *s;
	MK(fp, "<h2 id=\"distributions\">Distributions</h2>\n<div class=\"cards\">");
	s = &f->sp[SP_BENCH_BW];
	if (s->n)
		bandwidth_bars(fp, s);
	else
		mk_rawf(fp, "<p>Measured bandwidth: no node has it (%zu unknown; <code>check --bench</code> measures it).</p>",
			s->missing);
	s = &f->sp[SP_CHANNELS_POPULATED];
	if (s->n)
		spread_bars(fp, s, "Memory channels populated (nodes)", "");
	s = &f->sp[SP_ACCEL_WIDTH_CURRENT];
	if (s->n)
		spread_bars(fp, s, "Accelerator PCIe link width (accelerators)", "x");
	MK(fp, "</div>\n");
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

static void nodes_table(FILE *fp, const struct fleet *f, size_t top)
{
	size_t i, j, k, *order = xcalloc(f->nrows + 1, sizeof(*order));
	char b[64];
	(void)top;
	for (k = 0; k < f->nrows; k++)
		order[k] = k;
	sort_fleet = f;
	qsort(order, f->nrows, sizeof(*order), worse_first);
	MK(fp, "<h2 id=\"nodes\">Nodes</h2>\n<p class=\"note\">Worst first: critical, unknown, warning, ok.</p>\n<table id=\"nodes-table\"><thead><tr><th>Node</th><th class=\"n\">Exit</th>"
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
				mk_text(fp, f->uf[j].name);
				MK(fp, ": ");
				html_fact_value(fp, f->uf[j].name, fleet_row_value(&f->uf[j], i, b, sizeof(b)));
				MK(fp, "<br>");
			}
		MK(fp, "</td><td><code>");
		mk_text(fp, r->file);
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
	MK(fp, "<p><a href=\"#checks\">Checks</a> &middot; <a href=\"#outliers\">Outliers</a> &middot; "
	      "<a href=\"#distributions\">Distributions</a> &middot; <a href=\"#nodes\">Nodes</a></p>\n");
	checks_table(fp, f);
	outliers_table(fp, f);
	distributions(fp, f);
	nodes_table(fp, f, top);
	html_end(fp);
}
