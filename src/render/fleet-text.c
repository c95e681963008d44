/* render/fleet-text.c - the fleet as text (report) */
#include "config.h"
#include "audit/fleet.h"
#include "render/render.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

	fleet_nodes_by_exit(f, by);
	fprintf(fp, "%sFleet%s: %zu node%s from %zu file%s", c_bold(), c_reset(), f->nrows,
		f->nrows == 1 ? "" : "s", f->files, f->files == 1 ? "" : "s");
	if (f->skipped)
		fprintf(fp, " (%zu skipped)", f->skipped);
	fputc('\n', fp);
	tx_kv(fp, "exit", "%d (%s)", e, fleet_exit_names[e]);
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
		/* Whole: the key is a profile's (a sysctl name of any length). */
		char *idk = xasprintf("%s%s%s", c->id, c->key ? " " : "", c->key ? c->key : "");
		fprintf(fp, "  %s%-34s%s %5d %5d %5d %5d %5d %5d", col, idk, *col ? c_reset() : "",
			c->count[ST_PASS], c->count[ST_WARN], c->count[ST_FAIL], c->count[ST_UNKNOWN],
			c->count[ST_SKIP], c->count[ST_INFO]);
		free(idk);
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
	nw = fleet_worst_nodes(f, top, &worst);
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
