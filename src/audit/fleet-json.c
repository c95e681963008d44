/* audit/fleet-json.c - the fleet as the report document (report --format json) */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

	fleet_nodes_by_exit(f, by);
	o = cJSON_AddObjectToObject(root, "nodes");
	cJSON_AddNumberToObject(o, "count", (double)f->nrows);
	for (i = 0; i < 4; i++)
		cJSON_AddNumberToObject(o, fleet_exit_names[i], (double)by[i]);
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
	nw = fleet_worst_nodes(f, top, &worst);
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
