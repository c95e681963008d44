/* lib/facts.c - the fact tree, gaps, evidence and conflicts */
#include "config.h"
#include "lib/facts.h"

#include <math.h>
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void facts_init(struct facts *f)
{
	f->root = cJSON_CreateObject();
	f->gaps = cJSON_CreateArray();
	f->evidence = cJSON_CreateObject();
	f->conflicts = cJSON_CreateArray();
	f->gapset = NULL;
	f->ngapset = f->agapset = 0;
	f->evlists = NULL;
	f->nevlists = f->aevlists = 0;
	f->evset = NULL;
	f->nevset = f->aevset = 0;
	if (!f->root || !f->gaps || !f->evidence || !f->conflicts)
		die("out of memory");
}

void facts_release(struct facts *f)
{
	free(f->gapset);
	free(f->evlists);
	free(f->evset);
	cJSON_Delete(f->root);
	cJSON_Delete(f->gaps);
	cJSON_Delete(f->evidence);
	cJSON_Delete(f->conflicts);
	memset(f, 0, sizeof(*f));
}

cJSON *facts_obj(struct facts *f, const char *path)
{
	cJSON *cur = f->root;
	char *copy = xstrdup(path), *save = NULL, *tok;
	for (tok = strtok_r(copy, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, tok);
		if (!next || !cJSON_IsObject(next)) {
			if (next)
				cJSON_DeleteItemFromObjectCaseSensitive(cur, tok);
			next = cJSON_AddObjectToObject(cur, tok);
			if (!next)
				die("out of memory");
		}
		cur = next;
	}
	free(copy);
	return cur;
}

const cJSON *facts_get(const cJSON *root, const char *path)
{
	const cJSON *cur = root;
	const char *p = path;
	char key[256];
	while (cur && *p) {
		size_t n = strcspn(p, ".[");
		if (n >= sizeof(key))
			return NULL;
		if (n) {
			memcpy(key, p, n);
			key[n] = '\0';
			cur = cJSON_GetObjectItemCaseSensitive(cur, key);
			p += n;
		}
		while (cur && *p == '[') {
			char *end;
			long i = strtol(p + 1, &end, 10);
			if (*end != ']' || i < 0)
				return NULL;
			cur = cJSON_GetArrayItem(cur, (int)i);
			p = end + 1;
		}
		if (*p == '.')
			p++;
	}
	return cur;
}

#define FNV_BASIS 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

static uint64_t hash_more(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * FNV_PRIME;
	return h;
}

static uint64_t hash_str(const char *s)
{
	return hash_more(FNV_BASIS, s);   /* FNV-1a */
}

/* The hash of "a\nb", without writing it out, from ha = hash_str(a). */
static uint64_t hash_pair(uint64_t ha, const char *b)
{
	return hash_more((ha ^ '\n') * FNV_PRIME, b);
}

/* Whether "a1\na2" and "b1\nb2" are the same string. */
static int pair_eq(const char *a1, const char *a2, const char *b1, const char *b2)
{
	const char *a = a1, *b = b1;
	int ina = 0, inb = 0;
	for (;;) {
		char ca = *a ? *a : ina ? '\0' : '\n';
		char cb = *b ? *b : inb ? '\0' : '\n';
		if (ca != cb)
			return 0;
		if (!ca)
			return 1;
		if (*a)
			a++;
		else
			a = a2, ina = 1;
		if (*b)
			b++;
		else
			b = b2, inb = 1;
	}
}

/*
 * An open-addressing set of "x\ny" keys whose strings live in the fact
 * tree: a slot holds the key's hash and the two items it is read from
 * (a gap: its "fact" and "reason" members; evidence: its list, by name,
 * and the path in it).  The strings are read through the items, so a
 * slot stays right whatever happens to them later.
 */
struct facts_slot {
	uint64_t hash;
	const cJSON *a, *b;
};

static void slots_grow(struct facts_slot **tab, size_t n, size_t *a)
{
	size_t na, i, j;
	struct facts_slot *nt;
	if (2 * (n + 1) <= *a)
		return;
	na = *a ? *a * 2 : 64;
	nt = xcalloc(na, sizeof(*nt));
	for (j = 0; j < *a; j++)
		if ((*tab)[j].a) {
			for (i = (*tab)[j].hash & (na - 1); nt[i].a; i = (i + 1) & (na - 1))
				;
			nt[i] = (*tab)[j];
		}
	free(*tab);
	*tab = nt;
	*a = na;
}

void facts_gap(struct facts *f, const char *fact, const char *fmt, ...)
{
	va_list ap;
	char *reason;
	cJSON *g, *fi, *ri;
	uint64_t h;
	size_t i;
	va_start(ap, fmt);
	reason = xvasprintf(fmt, ap);
	va_end(ap);
	/* The same fact and reason twice (e.g. one file for many CPUs) is one gap. */
	slots_grow(&f->gapset, f->ngapset, &f->agapset);
	h = hash_pair(hash_str(fact), reason);
	for (i = h & (f->agapset - 1); f->gapset[i].a; i = (i + 1) & (f->agapset - 1))
		if (f->gapset[i].hash == h &&
		    pair_eq(f->gapset[i].a->valuestring, f->gapset[i].b->valuestring, fact, reason)) {
			free(reason);
			return;
		}
	g = cJSON_CreateObject();
	fi = cJSON_CreateString(fact);
	ri = cJSON_CreateString(reason);
	if (!g || !fi || !ri)
		die("out of memory");
	/* Literal keys, not copied (cJSON_StringIsConst). */
	cJSON_AddItemToObjectCS(g, "fact", fi);
	cJSON_AddItemToObjectCS(g, "reason", ri);
	cJSON_AddItemToArray(f->gaps, g);
	f->gapset[i].hash = h;
	f->gapset[i].a = fi;
	f->gapset[i].b = ri;
	f->ngapset++;
	free(reason);
}

void facts_gap_read(struct facts *f, const char *fact, const char *path, int err)
{
	facts_gap(f, fact, "%s: %s", path, sr_reason(err));
}

void facts_gap_notdir(struct facts *f, const char *fact, const char *path, int err)
{
	facts_gap(f, fact, "%s: %s", path,
		  err == -ENOTDIR || err == -EISDIR || err == -ENODEV || err == 0 ? "not a directory" : sr_reason(err));
}

/* The slot of fact's evidence list in f->evlists (NULL in it: none yet);
 * hfact: hash_str(fact). */
static cJSON **evlist_slot(struct facts *f, const char *fact, uint64_t hfact)
{
	size_t i;
	if (2 * (f->nevlists + 1) > f->aevlists) {
		size_t na = f->aevlists ? f->aevlists * 2 : 256, j;
		cJSON **nl = xcalloc(na, sizeof(*nl));
		for (j = 0; j < f->aevlists; j++)
			if (f->evlists[j]) {
				for (i = hash_str(f->evlists[j]->string) & (na - 1); nl[i]; i = (i + 1) & (na - 1))
					;
				nl[i] = f->evlists[j];
			}
		free(f->evlists);
		f->evlists = nl;
		f->aevlists = na;
	}
	for (i = hfact & (f->aevlists - 1); f->evlists[i]; i = (i + 1) & (f->aevlists - 1))
		if (!strcmp(f->evlists[i]->string, fact))
			break;
	return &f->evlists[i];
}

void facts_evidence(struct facts *f, const char *fact, const char *path)
{
	cJSON **slot, *list, *item;
	uint64_t hfact = hash_str(fact), h;
	size_t i;
	/* Each path once per fact, in constant time: a fact read from every
	 * CPU's files has thousands. */
	slots_grow(&f->evset, f->nevset, &f->aevset);
	h = hash_pair(hfact, path);
	for (i = h & (f->aevset - 1); f->evset[i].a; i = (i + 1) & (f->aevset - 1))
		if (f->evset[i].hash == h &&
		    pair_eq(f->evset[i].a->string, f->evset[i].b->valuestring, fact, path))
			return;
	slot = evlist_slot(f, fact, hfact);
	list = *slot;
	if (!list) {
		list = cJSON_AddArrayToObject(f->evidence, fact);
		*slot = list;
		f->nevlists++;
	}
	item = cJSON_CreateString(path);
	if (!list || !item)
		die("out of memory");
	cJSON_AddItemToArray(list, item);
	f->evset[i].hash = h;
	f->evset[i].a = list;
	f->evset[i].b = item;
	f->nevset++;
}

void facts_conflict(struct facts *f, const char *fact, const char *chosen_source,
		    const char *other_source, const char *fmt, ...)
{
	va_list ap;
	char *note;
	cJSON *c = cJSON_CreateObject();
	va_start(ap, fmt);
	note = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(c, "fact", fact);
	cJSON_AddStringToObject(c, "chosen", chosen_source);
	cJSON_AddStringToObject(c, "other", other_source);
	cJSON_AddStringToObject(c, "note", note);
	cJSON_AddItemToArray(f->conflicts, c);
	free(note);
}

void fj_set(cJSON *obj, const char *key, cJSON *item)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
	else
		cJSON_AddItemToObject(obj, key, item);
}

void fj_num(cJSON *obj, const char *key, double v)
{
	fj_set(obj, key, cJSON_CreateNumber(v));
}

void fj_num_or_null(cJSON *obj, const char *key, int has, double v)
{
	fj_set(obj, key, has ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

void fj_str_or_null(cJSON *obj, const char *key, const char *s)
{
	fj_set(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void fj_bool_or_null(cJSON *obj, const char *key, int v)
{
	fj_set(obj, key, v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v));
}

const char *fj_get_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int fj_get_num(const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v))
		return 0;
	*out = v->valuedouble;
	return 1;
}

int fj_int(const cJSON *v, long long lo, long long hi, long long *out)
{
	if (!cJSON_IsNumber(v))
		return 0;
	if (!num_int_ok(v->valuedouble, lo, hi))
		return -1;
	*out = (long long)v->valuedouble;
	return 1;
}

char *fj_int_refusal(const cJSON *v, const char *key, long long lo, long long hi)
{
	long long x;
	if (fj_int(v, lo, hi, &x) >= 0)
		return NULL;
	return xasprintf("%s is %.15g, not an integer from %lld to %lld", key, v->valuedouble, lo, hi);
}

const char *facts_str(const cJSON *root, const char *path)
{
	const cJSON *j = facts_get(root, path);
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

double facts_num(const cJSON *root, const char *path)
{
	const cJSON *j = facts_get(root, path);
	return cJSON_IsNumber(j) && isfinite(j->valuedouble) ? j->valuedouble : NAN;
}
