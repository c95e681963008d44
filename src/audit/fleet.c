/* audit/fleet.c - fleet aggregation: schema-check reports, count, spread, render */
#include "config.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "audit/fleet.h"
#include "lib/jindex.h"
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
		free(f->rows[i].bad);
	}
	free(f->check_by_serial);
	free(f->rows);
	for (i = 0; i < f->achecks; i++) {
		free(f->checks[i].id);
		free(f->checks[i].key);
		free(f->checks[i].hkey);
	}
	free(f->checks);
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

/*** Per-check hash (FNV-1a, open addressing, power-of-two size) ***/

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct check_agg *check_slot(struct check_agg *tab, size_t size, const char *hkey)
{
	size_t i = hash_str(hkey) & (size - 1);
	while (tab[i].hkey && strcmp(tab[i].hkey, hkey))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

/* The row of check id, or of id's per-key finding key (key may be NULL). */
static struct check_agg *check_get(struct fleet *f, const char *id, const char *key)
{
	char *hkey = key ? xasprintf("%s\n%s", id, key) : xstrdup(id);
	struct check_agg *c;
	if (2 * (f->nchecks + 1) > f->achecks) {
		size_t i, n = f->achecks * 2;
		struct check_agg *tab = xcalloc(n, sizeof(*tab));
		for (i = 0; i < f->achecks; i++)
			if (f->checks[i].hkey)
				*check_slot(tab, n, f->checks[i].hkey) = f->checks[i];
		free(f->checks);
		f->checks = tab;
		f->achecks = n;
	}
	c = check_slot(f->checks, f->achecks, hkey);
	if (!c->hkey) {
		c->hkey = hkey;
		c->id = xstrdup(id);
		c->key = key ? xstrdup(key) : NULL;
		c->serial = (uint32_t)f->nchecks++;
	} else
		free(hkey);
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

/*** Facts that should be uniform across the fleet (outliers) ***/

/* How many values of a list fact (accelerators, NICs) are looked at. */
#define UF_LIST_MAX 256
/* Longest value kept; longer ones are cut (a value is for people to compare). */
#define UF_VALUE_MAX 200

/* Object paths ("cpu.smt.active") are the fact tree's: facts_get(). */
#define jpath facts_get

/* Copy s into buf with control characters as '?', at most n - 1 bytes. */
static void copy_printable(char *buf, size_t n, const char *s)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < n; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	buf[i] = '\0';
}

static const char *fmt_num(char *buf, size_t n, double x);

/* A scalar as a value string; NULL for null, absent, objects and arrays. */
static const char *scalar_str(const cJSON *j, char *buf, size_t n)
{
	if (cJSON_IsNumber(j))
		return isfinite(j->valuedouble) ? fmt_num(buf, n, j->valuedouble) : NULL;
	if (cJSON_IsBool(j))
		return cJSON_IsTrue(j) ? "true" : "false";
	if (cJSON_IsString(j)) {
		copy_printable(buf, n, j->valuestring);
		return buf;
	}
	return NULL;
}

static uint64_t hash_str(const char *s);

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
			i = hash_str(f->uf[k].name) & (n - 1);
			while (f->uf_hash[i])
				i = (i + 1) & (n - 1);
			f->uf_hash[i] = (uint32_t)k + 1;
		}
	}
	i = hash_str(name) & (f->uf_ahash - 1);
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
	char buf[UF_VALUE_MAX + 1];
	size_t i;
	if (!s)
		return;
	copy_printable(buf, sizeof(buf), s);
	if (2 * (u->nvalues + 1) > u->ahash) {
		size_t n = u->ahash ? 2 * u->ahash : 16;
		free(u->hash);
		u->hash = xcalloc(n, sizeof(*u->hash));
		u->ahash = n;
		for (i = 0; i < u->nvalues; i++) {
			size_t h = hash_str(u->values[i]) & (n - 1);
			while (u->hash[h])
				h = (h + 1) & (n - 1);
			u->hash[h] = (uint32_t)i + 1;
		}
	}
	i = hash_str(buf) & (u->ahash - 1);
	while (u->hash[i] && strcmp(u->values[u->hash[i] - 1], buf))
		i = (i + 1) & (u->ahash - 1);
	if (!u->hash[i]) {
		if (u->nvalues == u->avalues) {
			u->avalues = u->avalues ? 2 * u->avalues : 4;
			u->values = xrealloc(u->values, u->avalues * sizeof(*u->values));
			u->counts = xrealloc(u->counts, u->avalues * sizeof(*u->counts));
		}
		u->values[u->nvalues] = xstrdup(buf);
		u->counts[u->nvalues] = 0;
		u->hash[i] = (uint32_t)++u->nvalues;
	}
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
					fmt_num(b, sizeof(b), v[k]), post);
		k += run;
	}
	if (unknown && len + 1 < n)
		len += (size_t)snprintf(buf + len, n - len, "%s%zu down", len ? ", " : "", unknown);
	if (!nv && !unknown)
		snprintf(buf, n, "none");
	return buf;
}

/* The facts of one report that should not differ across a fleet. */
static void uf_add_report(struct fleet *f, const cJSON *root)
{
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(root, "facts"), *j, *it, *sysctl;
	char buf[UF_VALUE_MAX + 1], b[64];
	size_t len;
	struct uniform_fact *u;
	struct jindex six;  /* kernel.sysctl by name: a report may carry tens of thousands */

	f->uf_hint = 0;
	uf_set_path(f, facts, "cpu.packages", "cpu.packages");
	uf_set_path(f, facts, "cpu.cores", "cpu.cores");
	uf_set_path(f, facts, "cpu.smt.active", "cpu.smt.active");
	/* core kinds: "performance 4 cores, efficiency 8 cores" */
	j = jpath(facts, "cpu.kinds");
	j = cJSON_IsArray(j) ? j : NULL;
	len = 0;
	buf[0] = '\0';
	cJSON_ArrayForEach(it, j) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
		const char *c = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "cores"), b, sizeof(b));
		if (len + 1 < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %s cores", len ? ", " : "",
						cJSON_IsString(nm) ? nm->valuestring : "unknown",
						c ? c : "unknown");
	}
	uf_set(f, "cpu.kinds", len ? buf : NULL);
	/* NUMA layout: the CPUs of each node */
	j = jpath(facts, "numa.nodes");
	j = cJSON_IsArray(j) ? j : NULL;
	len = 0;
	cJSON_ArrayForEach(it, j) {
		const char *c = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "cpus"), b, sizeof(b));
		if (len + 1 < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " | " : "",
						c && *c ? c : "no cpus");
	}
	uf_set(f, "numa.nodes[].cpus", len ? buf : NULL);
	uf_set_path(f, facts, "memory.installed_bytes", "memory.installed_bytes");
	uf_set_path(f, facts, "memory.channels.populated", "memory.channels.populated");
	uf_set_path(f, facts, "memory.speed.configured_mts", "memory.speed.configured_mts");
	uf_set_path(f, facts, "memory.ecc.mode", "memory.ecc.mode");
	j = jpath(facts, "pci.accelerators");
	uf_set(f, "pci.accelerators", cJSON_IsArray(j) ? fmt_num(b, sizeof(b), cJSON_GetArraySize(j)) : NULL);
	uf_set(f, "pci.accelerators[].link.width.current",
	       multiset(j, "link.width.current", "x", "", 0, buf, sizeof(buf)));
	uf_set(f, "pci.accelerators[].link.speed_gts.current",
	       multiset(j, "link.speed_gts.current", "", " GT/s", 0, buf, sizeof(buf)));
	j = jpath(facts, "pci.nics");
	uf_set(f, "pci.nics", cJSON_IsArray(j) ? fmt_num(b, sizeof(b), cJSON_GetArraySize(j)) : NULL);
	uf_set(f, "pci.nics[].link.width.current", multiset(j, "link.width.current", "x", "", 0, buf, sizeof(buf)));
	uf_set(f, "pci.nics[].speed_mbps", multiset(j, "speed_mbps", "", " Mb/s", 1, buf, sizeof(buf)));
	uf_set_path(f, facts, "platform.bios.vendor", "platform.bios.vendor");
	uf_set_path(f, facts, "platform.bios.version", "platform.bios.version");
	/* The machine, the CPU model and its microcode: a node of another
	 * model or on older microcode is an outlier even when the counts agree. */
	uf_set_path(f, facts, "platform.system.product", "platform.system.product");
	uf_set_path(f, facts, "cpu.model_name", "cpu.model_name");
	uf_set_path(f, facts, "cpu.microcode", "cpu.microcode");
	j = jpath(facts, "platform.sockets");
	j = cJSON_IsArray(j) ? j : NULL;
	len = 0;
	buf[0] = '\0';
	cJSON_ArrayForEach(it, j) {
		const char *v = scalar_str(cJSON_GetObjectItemCaseSensitive(it, "version"), b, sizeof(b));
		if (v && len + 1 < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " | " : "", v);
	}
	uf_set(f, "platform.sockets[].version", len ? buf : NULL);
	uf_set_path(f, root, "host.kernel", "host.kernel");
	/* the sysctls the profile checks: one fact per kernel.sysctl finding key */
	sysctl = jpath(facts, "kernel.sysctl");
	jindex_init(&six, cJSON_IsObject(sysctl) ? sysctl : NULL, 1);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "findings")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(it, "key");
		const cJSON *v;
		char name[160];
		if (strcmp(id->valuestring, "kernel.sysctl") || !cJSON_IsString(key))
			continue;
		v = jindex_get(&six, key->valuestring);
		if (!v)
			v = cJSON_GetObjectItemCaseSensitive(it, "observed");
		snprintf(name, sizeof(name), "kernel.sysctl.%s", key->valuestring);
		uf_set(f, name, scalar_str(v, buf, sizeof(buf)));
	}
	jindex_release(&six);
	/* measured: compared with a tolerance */
	u = uf_get(f, "bench.bandwidth.bytes_per_s", 1);
	j = jpath(facts, "bench.bandwidth.bytes_per_s");
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

static int cmp_double(const void *a, const void *b);

static void uf_finish(struct fleet *f)
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
				qsort(v, n, sizeof(*v), cmp_double);
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
		fmt_num(buf, n, x);
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
static void add_profile(struct fleet *f, const cJSON *root)
{
	const cJSON *name = jpath(root, "profile.name");
	char buf[128];
	size_t i;
	if (cJSON_IsString(name) && *name->valuestring)
		copy_printable(buf, sizeof(buf), name->valuestring);
	else
		snprintf(buf, sizeof(buf), "unknown");
	for (i = 0; i < f->nprofiles; i++)
		if (!strcmp(f->profiles[i].name, buf)) {
			f->profiles[i].count++;
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
		return;
	}
	f->profiles = xrealloc(f->profiles, (f->nprofiles + 1) * sizeof(*f->profiles));
	f->profiles[f->nprofiles].name = xstrdup(buf);
	f->profiles[f->nprofiles].count = 1;
	f->nprofiles++;
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
		j = cJSON_GetObjectItemCaseSensitive(summary, report_status_names[i]);
		snprintf(key, sizeof(key), "summary.%s", report_status_names[i]);
		if (i == ST_INFO && !j)   /* info findings came later: optional */
			continue;
		if (want_count(j, key, 1000000, &row.count[i], why) < 0)
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
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(it, "key");
		struct check_agg *c = check_get(f, cJSON_GetObjectItemCaseSensitive(it, "id")->valuestring,
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
	uf_add_report(f, root);
	add_profile(f, root);
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
	return strcmp(x->hkey, y->hkey);
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
	f->check_by_serial = xcalloc(n + 1, sizeof(*f->check_by_serial));
	for (i = 0; i < n; i++)
		f->check_by_serial[f->checks[i].serial] = i;
	for (i = 0; i < SP_N; i++)
		if (f->sp[i].n)
			qsort(f->sp[i].v, f->sp[i].n, sizeof(double), cmp_double);
	uf_finish(f);
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
	if (f->nprofiles == 1)
		tx_kv(fp, "profile", "%s", f->profiles[0].name);
	else if (f->nprofiles > 1) {
		fprintf(fp, "  %-22s %sMIXED%s:", "profiles", c_yellow(), c_reset());
		for (i = 0; i < f->nprofiles; i++)
			fprintf(fp, "%s %s (%zu node%s)", i ? "," : "", f->profiles[i].name,
				f->profiles[i].count, f->profiles[i].count == 1 ? "" : "s");
		fputc('\n', fp);
	}

	fputc('\n', fp);
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
	outliers_text(fp, f);

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
	a = cJSON_AddArrayToObject(root, "profiles");
	for (i = 0; i < f->nprofiles; i++) {
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", f->profiles[i].name);
		cJSON_AddNumberToObject(c, "nodes", (double)f->profiles[i].count);
		cJSON_AddItemToArray(a, c);
	}
	cJSON_AddBoolToObject(root, "profiles_mixed", f->nprofiles > 1);

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

	cJSON_AddItemToObject(root, "outliers", outliers_json(f));

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
			fprintf(fp, ",%s", fmt_num(b, sizeof(b), r->fig[k]));
		/* the facts where this node differs from the fleet: fact=value;... */
		sb.len = 0;
		for (j = 0; j < f->nuf; j++)
			if (fleet_row_differs(&f->uf[j], i)) {
				const char *v = fleet_row_value(&f->uf[j], i, b, sizeof(b));
				if (f->uf[j].measured)
					v = fmt_num(b, sizeof(b), f->uf[j].num[i]);
				strbuf_addf(&sb, "%s%s=%s", sb.len ? ";" : "", f->uf[j].name, v);
			}
		fputc(',', fp);
		csv_field(fp, sb.len ? sb.buf : "");
		fputs("\r\n", fp);
	}
	strbuf_release(&sb);
}
