/* audit/fleet-uniform.c - the facts that should be the same on every node: outliers; the profiles */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/facts.h"
#include "lib/jindex.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*** Facts that should be uniform across the fleet (outliers) ***/

/* How many values of a list fact (accelerators, NICs) are looked at. */
#define UF_LIST_MAX 256
/* The buffer of a list fact's multiset ("7 at x16, 1 at x8"): a few
 * distinct figures, far under this. */
#define UF_VALUE_MAX 512

/* Object paths ("cpu.smt.active") are the fact tree's: facts_get(). */
#define jpath facts_get

/* s with control characters as '?', whole (a CPU list, a model name: a value
 * cut would be a wrong value). */
static char *dup_printable(const char *s)
{
	char *d = xstrdup(s), *p;
	for (p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return d;
}

/* Integers as integers; anything else with 15 significant digits. */
const char *fleet_fmt_num(char *buf, size_t n, double x)
{
	if (isnan(x))
		snprintf(buf, n, "%s", "");
	else if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.15g", x);
	return buf;
}

/* A scalar as a value string; NULL for null, absent, objects and arrays. */
static const char *scalar_str(const cJSON *j, char *buf, size_t n)
{
	if (cJSON_IsNumber(j))
		return isfinite(j->valuedouble) ? fleet_fmt_num(buf, n, j->valuedouble) : NULL;
	if (cJSON_IsBool(j))
		return cJSON_IsTrue(j) ? "true" : "false";
	if (cJSON_IsString(j))
		return j->valuestring;   /* uf_set() copies it whole, controls replaced */
	return NULL;
}

static void uf_grow_rows(struct uniform_fact *u, size_t need)
{
	size_t i, n;
	if (need <= u->arow)
		return;
	n = u->arow ? u->arow : 8;
	while (n < need)
		n *= 2;
	if (u->measured) {
		u->num = xrealloc(u->num, n * sizeof(*u->num));
		for (i = u->arow; i < n; i++)
			u->num[i] = NAN;
	} else {
		u->val = xrealloc(u->val, n * sizeof(*u->val));
		for (i = u->arow; i < n; i++)
			u->val[i] = UNIFORM_NONE;
	}
	u->arow = n;
}

/* The slot of name in the facts' hash (FNV-1a, open addressing): empty
 * (0) when it is not there.  The table is (re)built from uf when missing
 * or half full, so that a report of 60000 sysctl findings costs n, not n
 * squared. */
static uint32_t *uf_slot(struct fleet *f, const char *name)
{
	size_t i;
	if (!f->uf_hash || 2 * (f->nuf + 1) > f->uf_ahash) {
		size_t k, n = f->uf_ahash ? f->uf_ahash : 64;
		while (2 * (f->nuf + 1) > n)
			n *= 2;
		free(f->uf_hash);
		f->uf_hash = xcalloc(n, sizeof(*f->uf_hash));
		f->uf_ahash = n;
		for (k = 0; k < f->nuf; k++) {
			i = fleet_hash_str(f->uf[k].name) & (n - 1);
			while (f->uf_hash[i])
				i = (i + 1) & (n - 1);
			f->uf_hash[i] = (uint32_t)k + 1;
		}
	}
	i = fleet_hash_str(name) & (f->uf_ahash - 1);
	while (f->uf_hash[i] && strcmp(f->uf[f->uf_hash[i] - 1].name, name))
		i = (i + 1) & (f->uf_ahash - 1);
	return &f->uf_hash[i];
}

static struct uniform_fact *uf_get(struct fleet *f, const char *name, int measured)
{
	struct uniform_fact *u;
	uint32_t *slot;
	/* Reports list their facts in the same order: try the one after the last. */
	if (f->uf_hint < f->nuf && !strcmp(f->uf[f->uf_hint].name, name)) {
		u = &f->uf[f->uf_hint++];
		uf_grow_rows(u, f->nrows + 1);
		return u;
	}
	slot = uf_slot(f, name);
	if (*slot) {
		f->uf_hint = *slot;
		uf_grow_rows(&f->uf[*slot - 1], f->nrows + 1);
		return &f->uf[*slot - 1];
	}
	*slot = (uint32_t)f->nuf + 1;
	if (f->nuf == f->auf) {
		f->auf = f->auf ? 2 * f->auf : 32;
		f->uf = xrealloc(f->uf, f->auf * sizeof(*f->uf));
	}
	u = &f->uf[f->nuf++];
	memset(u, 0, sizeof(*u));
	u->name = xstrdup(name);
	u->measured = measured;
	f->uf_hint = f->nuf;
	uf_grow_rows(u, f->nrows + 1);
	return u;
}

/* Record value s (NULL: unknown) of fact name for the row being added. */
static void uf_set(struct fleet *f, const char *name, const char *s)
{
	struct uniform_fact *u = uf_get(f, name, 0);
	char *buf;
	size_t i;
	if (!s)
		return;
	buf = dup_printable(s);
	if (2 * (u->nvalues + 1) > u->ahash) {
		size_t n = u->ahash ? 2 * u->ahash : 16;
		free(u->hash);
		u->hash = xcalloc(n, sizeof(*u->hash));
		u->ahash = n;
		for (i = 0; i < u->nvalues; i++) {
			size_t h = fleet_hash_str(u->values[i]) & (n - 1);
			while (u->hash[h])
				h = (h + 1) & (n - 1);
			u->hash[h] = (uint32_t)i + 1;
		}
	}
	i = fleet_hash_str(buf) & (u->ahash - 1);
	while (u->hash[i] && strcmp(u->values[u->hash[i] - 1], buf))
		i = (i + 1) & (u->ahash - 1);
	if (!u->hash[i]) {
		if (u->nvalues == u->avalues) {
			u->avalues = u->avalues ? 2 * u->avalues : 4;
			u->values = xrealloc(u->values, u->avalues * sizeof(*u->values));
			u->counts = xrealloc(u->counts, u->avalues * sizeof(*u->counts));
		}
		u->values[u->nvalues] = buf;
		buf = NULL;
		u->counts[u->nvalues] = 0;
		u->hash[i] = (uint32_t)++u->nvalues;
	}
	free(buf);
	if (u->val[f->nrows] != UNIFORM_NONE)   /* the same fact twice: keep the first */
		return;
	u->val[f->nrows] = u->hash[i] - 1;
	u->counts[u->hash[i] - 1]++;
}

static void uf_set_path(struct fleet *f, const cJSON *root, const char *name, const char *path)
{
	char buf[64];
	uf_set(f, name, scalar_str(jpath(root, path), buf, sizeof(buf)));
}

static int cmp_double_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/*
 * A list fact as a multiset: "7 at x16, 1 at x8" (widest first), "none" for
 * an empty list; NULL (not compared) when the list or the figure of one of
 * its entries is unknown, since a value unread is not a value that differs.
 * With down set, an entry whose operstate is not "up" counts as "down"
 * (a NIC link has no speed then).
 */
static const char *multiset(const cJSON *list, const char *path, const char *pre,
			    const char *post, int down, char *buf, size_t n)
{
	double v[UF_LIST_MAX];
	size_t nv = 0, unknown = 0, k, len = 0;
	const cJSON *it;
	char b[64];
	if (!cJSON_IsArray(list))
		return NULL;
	cJSON_ArrayForEach(it, list) {
		const cJSON *x = jpath(it, path), *op = jpath(it, "operstate");
		if (down && cJSON_IsString(op) && strcmp(op->valuestring, "up"))
			unknown++;
		else if (cJSON_IsNumber(x) && isfinite(x->valuedouble)) {
			if (nv < UF_LIST_MAX)
				v[nv++] = x->valuedouble;
		} else
			return NULL;
	}
	buf[0] = '\0';
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_double_desc);
	for (k = 0; k < nv && len + 1 < n;) {
		size_t run = 1;
		while (k + run < nv && v[k + run] == v[k])
			run++;
		len += (size_t)snprintf(buf + len, n - len, "%s%zu at %s%s%s", len ? ", " : "", run, pre,
					fleet_fmt_num(b, sizeof(b), v[k]), post);
		k += run;
	}
	if (unknown && len + 1 < n)
		len += (size_t)snprintf(buf + len, n - len, "%s%zu down", len ? ", " : "", unknown);
	if (!nv && !unknown)
		snprintf(buf, n, "none");
	return buf;
}

/* core kinds: "performance 4 cores, efficiency 8 cores" */
static void uf_kinds(struct fleet *f, const cJSON *facts)
{
	const cJSON *j, *it;
	struct strbuf sb = STRBUF_INIT;
	char b[64];
	j = jpath(facts, "cpu.kinds");
	j = cJSON_IsArray(j) ? j : NULL;
	cJSON_ArrayForEach(it, j) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
		const char *c = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "cores"), b, sizeof(b));
		strbuf_addf(&sb, "%s%s %s core%s", sb.len ? ", " : "", cJSON_IsString(nm) ? nm->valuestring : "unknown",
			    c ? c : "unknown", c && !strcmp(c, "1") ? "" : "s");
	}
	uf_set(f, "cpu.kinds", sb.len ? sb.buf : NULL);
	strbuf_release(&sb);
}

/* NUMA layout: the CPUs of each node, every list whole ("0,2,4,...,254"). */
static void uf_numa(struct fleet *f, const cJSON *facts)
{
	const cJSON *j, *it;
	struct strbuf sb = STRBUF_INIT;
	char b[64];
	j = jpath(facts, "numa.nodes");
	j = cJSON_IsArray(j) ? j : NULL;
	cJSON_ArrayForEach(it, j) {
		const char *c = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "cpus"), b, sizeof(b));
		strbuf_addf(&sb, "%s%s", sb.len ? " | " : "", c && *c ? c : "no cpus");
	}
	uf_set(f, "numa.nodes[].cpus", sb.len ? sb.buf : NULL);
	strbuf_release(&sb);
}

/* Accelerators and NICs: how many, their links. */
static void uf_pci(struct fleet *f, const cJSON *facts)
{
	const cJSON *j;
	char buf[UF_VALUE_MAX + 1], b[64];
	j = jpath(facts, "pci.accelerators");
	uf_set(f, "pci.accelerators", cJSON_IsArray(j) ? fleet_fmt_num(b, sizeof(b), cJSON_GetArraySize(j)) : NULL);
	uf_set(f, "pci.accelerators[].link.width.current",
	       multiset(j, "link.width.current", "x", "", 0, buf, sizeof(buf)));
	uf_set(f, "pci.accelerators[].link.speed_gts.current",
	       multiset(j, "link.speed_gts.current", "", " GT/s", 0, buf, sizeof(buf)));
	j = jpath(facts, "pci.nics");
	uf_set(f, "pci.nics", cJSON_IsArray(j) ? fleet_fmt_num(b, sizeof(b), cJSON_GetArraySize(j)) : NULL);
	uf_set(f, "pci.nics[].link.width.current", multiset(j, "link.width.current", "x", "", 0, buf, sizeof(buf)));
	uf_set(f, "pci.nics[].speed_mbps", multiset(j, "speed_mbps", "", " Mb/s", 1, buf, sizeof(buf)));
}

/* The version of each socket's CPU, as SMBIOS says it. */
static void uf_sockets(struct fleet *f, const cJSON *facts)
{
	const cJSON *j, *it;
	struct strbuf sb = STRBUF_INIT;
	char b[64];
	j = jpath(facts, "platform.sockets");
	j = cJSON_IsArray(j) ? j : NULL;
	cJSON_ArrayForEach(it, j) {
		const char *v = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "version"), b, sizeof(b));
		if (v)
			strbuf_addf(&sb, "%s%s", sb.len ? " | " : "", v);
	}
	uf_set(f, "platform.sockets[].version", sb.len ? sb.buf : NULL);
	strbuf_release(&sb);
}

/* the sysctls the profile checks: one fact per kernel.sysctl finding key */
static void uf_sysctls(struct fleet *f, const cJSON *root, const cJSON *facts)
{
	const cJSON *it, *sysctl;
	char buf[64];
	struct jindex six;  /* kernel.sysctl by name: a report may carry tens of thousands */
	sysctl = jpath(facts, "kernel.sysctl");
	jindex_init(&six, cJSON_IsObject(sysctl) ? sysctl : NULL, 1);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "findings")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(it, "key");
		const cJSON *v;
		char *name;
		if (strcmp(id->valuestring, "kernel.sysctl") || !cJSON_IsString(key))
			continue;
		v = jindex_get(&six, key->valuestring);
		if (!v)
			v = cJSON_GetObjectItemCaseSensitive(it, "observed");
		/* Whole: two long names cut alike would be counted as one. */
		name = xasprintf("kernel.sysctl.%s", key->valuestring);
		uf_set(f, name, scalar_str(v, buf, sizeof(buf)));
		free(name);
	}
	jindex_release(&six);
}

/* The facts of one report that should not differ across a fleet. */
void fleet_uf_add_report(struct fleet *f, const cJSON *root)
{
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(root, "facts"), *j;
	struct uniform_fact *u;

	f->uf_hint = 0;
	uf_set_path(f, facts, "cpu.packages", "cpu.packages");
	uf_set_path(f, facts, "cpu.cores", "cpu.cores");
	uf_set_path(f, facts, "cpu.smt.active", "cpu.smt.active");
	uf_kinds(f, facts);
	uf_numa(f, facts);
	uf_set_path(f, facts, "memory.installed_bytes", "memory.installed_bytes");
	uf_set_path(f, facts, "memory.channels.populated", "memory.channels.populated");
	uf_set_path(f, facts, "memory.speed.configured_mts", "memory.speed.configured_mts");
	uf_set_path(f, facts, "memory.ecc.mode", "memory.ecc.mode");
	uf_pci(f, facts);
	uf_set_path(f, facts, "platform.bios.vendor", "platform.bios.vendor");
	uf_set_path(f, facts, "platform.bios.version", "platform.bios.version");
	/* The machine, the CPU model and its microcode: a node of another
	 * model or on older microcode is an outlier even when the counts agree. */
	uf_set_path(f, facts, "platform.system.product", "platform.system.product");
	uf_set_path(f, facts, "cpu.model_name", "cpu.model_name");
	uf_set_path(f, facts, "cpu.microcode", "cpu.microcode");
	uf_sockets(f, facts);
	uf_set_path(f, root, "host.kernel", "host.kernel");
	uf_sysctls(f, root, facts);
	/* measured: compared with a tolerance */
	u = uf_get(f, "bench.bandwidth.bytes_per_s", 1);
	j = jpath(facts, "bench.bandwidth.bytes_per_s");
	if (cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble >= 0)
		u->num[f->nrows] = j->valuedouble;
	/* the decode ceiling bench predicts from it (the fleet page's histogram) */
	u = uf_get(f, "bench.predicted.tokens_per_s", 1);
	j = jpath(facts, "bench.predicted.tokens_per_s");
	if (cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble >= 0)
		u->num[f->nrows] = j->valuedouble;
}

static int cmp_uf(const void *a, const void *b)
{
	return strcmp(((const struct uniform_fact *)a)->name, ((const struct uniform_fact *)b)->name);
}

static const struct uniform_fact *sort_uf_base;
static int cmp_minority(const void *a, const void *b)
{
	const struct uniform_fact *u = sort_uf_base;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (u->counts[x] != u->counts[y])
		return u->counts[x] < u->counts[y] ? 1 : -1;
	return strcmp(u->values[x], u->values[y]);
}

void fleet_uf_finish(struct fleet *f)
{
	size_t i, r, k;
	if (f->nuf)
		qsort(f->uf, f->nuf, sizeof(*f->uf), cmp_uf);
	free(f->uf_hash);   /* its indices are of the order before the sort */
	f->uf_hash = NULL;
	f->uf_ahash = 0;
	for (i = 0; i < f->nuf; i++) {
		struct uniform_fact *u = &f->uf[i];
		uf_grow_rows(u, f->nrows);
		if (u->measured) {
			double *v = xcalloc(f->nrows + 1, sizeof(*v));
			size_t n = 0;
			for (r = 0; r < f->nrows; r++)
				if (!isnan(u->num[r]))
					v[n++] = u->num[r];
			if (n)
				qsort(v, n, sizeof(*v), fleet_cmp_double);
			u->nknown = n;
			u->median = spread_median(v, n);
			free(v);
			for (r = 0; r < f->nrows; r++)
				if (fleet_row_differs(u, r))
					u->ndiffer++;
			continue;
		}
		u->majority = UNIFORM_NONE;
		for (k = 0; k < u->nvalues; k++) {
			u->nknown += u->counts[k];
			if (u->majority == UNIFORM_NONE || u->counts[k] > u->counts[u->majority] ||
			    (u->counts[k] == u->counts[u->majority] &&
			     strcmp(u->values[k], u->values[u->majority]) < 0))
				u->majority = (uint32_t)k;
		}
		if (u->majority == UNIFORM_NONE)
			continue;
		u->ndiffer = u->nknown - u->counts[u->majority];
		u->order = xcalloc(u->nvalues, sizeof(*u->order));
		for (k = 0; k < u->nvalues; k++)
			if (k != u->majority)
				u->order[u->norder++] = (uint32_t)k;
		sort_uf_base = u;
		if (u->norder)
			qsort(u->order, u->norder, sizeof(*u->order), cmp_minority);
	}
}

int fleet_row_differs(const struct uniform_fact *u, size_t r)
{
	if (u->measured)
		return !isnan(u->num[r]) && !isnan(u->median) &&
		       fabs(u->num[r] - u->median) > UNIFORM_TOLERANCE * u->median;
	return u->val[r] != UNIFORM_NONE && u->val[r] != u->majority;
}

size_t fleet_outlier_facts(const struct fleet *f)
{
	size_t i, n = 0;
	for (i = 0; i < f->nuf; i++)
		n += f->uf[i].ndiffer > 0;
	return n;
}

const char *fleet_fmt_measured(char *buf, size_t n, const char *name, double x)
{
	if (isnan(x))
		snprintf(buf, n, "unknown");
	else if (strstr(name, "bytes_per_s"))
		snprintf(buf, n, "%.1f GB/s", x / 1e9);
	else
		fleet_fmt_num(buf, n, x);
	return buf;
}

const char *fleet_row_value(const struct uniform_fact *u, size_t r, char *buf, size_t n)
{
	if (u->measured)
		return fleet_fmt_measured(buf, n, u->name, u->num[r]);
	return u->val[r] == UNIFORM_NONE ? "unknown" : u->values[u->val[r]];
}

const char *fleet_majority_value(const struct uniform_fact *u, char *buf, size_t n)
{
	if (u->measured)
		return fleet_fmt_measured(buf, n, u->name, u->median);
	return u->majority == UNIFORM_NONE ? "unknown" : u->values[u->majority];
}

/*
 * The rows that differ on fact u grouped by value, for rendering in linear
 * time: rows[] lists row indexes, value by value in u->order (measured: in
 * row order, one group).  Returns the count; free(*rows).
 */
size_t fleet_outlier_rows(const struct fleet *f, const struct uniform_fact *u, size_t **rows)
{
	size_t *v = xcalloc(u->ndiffer + 1, sizeof(*v));
	size_t r, k, n = 0;
	if (u->measured) {
		for (r = 0; r < f->nrows; r++)
			if (fleet_row_differs(u, r))
				v[n++] = r;
	} else if (u->ndiffer) {
		/* counting sort by position in u->order */
		size_t *pos = xcalloc(u->nvalues, sizeof(*pos)), *start = xcalloc(u->nvalues + 1, sizeof(*start));
		for (k = 0; k < u->norder; k++)
			pos[u->order[k]] = k;
		for (k = 0; k < u->norder; k++)
			start[k + 1] = start[k] + u->counts[u->order[k]];
		for (r = 0; r < f->nrows; r++)
			if (fleet_row_differs(u, r))
				v[start[pos[u->val[r]]]++] = r;
		n = u->ndiffer;
		free(pos);
		free(start);
	}
	*rows = v;
	return n;
}

/* The profile a report was checked against ("unknown" when it does not say). */
void fleet_add_profile(struct fleet *f, const cJSON *root)
{
	const cJSON *name = jpath(root, "profile.name");
	/* Whole: a profile's name has no limit, and two cut alike would count as one. */
	char *buf = cJSON_IsString(name) && *name->valuestring ? dup_printable(name->valuestring)
								: xstrdup("unknown");
	size_t i;
	for (i = 0; i < f->nprofiles; i++)
		if (!strcmp(f->profiles[i].name, buf)) {
			f->profiles[i].count++;
			free(buf);
			return;
		}
	if (f->nprofiles >= 64) {   /* a fleet of this many profiles is not one fleet */
		for (i = 0; i < f->nprofiles; i++)
			if (!strcmp(f->profiles[i].name, "(others)"))
				break;
		if (i == f->nprofiles)
			i--;
		f->profiles[i].count++;
		if (strcmp(f->profiles[i].name, "(others)")) {
			free(f->profiles[i].name);
			f->profiles[i].name = xstrdup("(others)");
		}
		free(buf);
		return;
	}
	f->profiles = xrealloc(f->profiles, (f->nprofiles + 1) * sizeof(*f->profiles));
	f->profiles[f->nprofiles].name = buf;
	f->profiles[f->nprofiles].count = 1;
	f->nprofiles++;
}
