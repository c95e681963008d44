/* lib/facts.c - the fact tree, gaps, evidence and conflicts */
#include "config.h"
#include "lib/facts.h"

#include <math.h>
#include "read/sysroot.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void facts_init(struct facts *f)
{
	f->root = cJSON_CreateObject();
	f->gaps = cJSON_CreateArray();
	f->evidence = cJSON_CreateObject();
	f->conflicts = cJSON_CreateArray();
	f->gapkeys = NULL;
	f->ngapkeys = f->agapkeys = 0;
	f->evlists = NULL;
	f->nevlists = f->aevlists = 0;
	f->evkeys = NULL;
	f->nevkeys = f->aevkeys = 0;
	if (!f->root || !f->gaps || !f->evidence || !f->conflicts)
		die("out of memory");
}

void facts_release(struct facts *f)
{
	size_t i;
	for (i = 0; i < f->agapkeys; i++)
		free(f->gapkeys[i]);
	free(f->gapkeys);
	free(f->evlists);
	for (i = 0; i < f->aevkeys; i++)
		free(f->evkeys[i]);
	free(f->evkeys);
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

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Add key (malloc'd, taken) to an open-addressing string set: 1 if it
 * was new, 0 (key freed) if it was there. */
static int strset_add(char ***tab, size_t *n, size_t *a, char *key)
{
	size_t i;
	if (2 * (*n + 1) > *a) {
		size_t na = *a ? *a * 2 : 64, j;
		char **nk = xcalloc(na, sizeof(*nk));
		for (j = 0; j < *a; j++)
			if ((*tab)[j]) {
				for (i = hash_str((*tab)[j]) & (na - 1); nk[i]; i = (i + 1) & (na - 1))
					;
				nk[i] = (*tab)[j];
			}
		free(*tab);
		*tab = nk;
		*a = na;
	}
	for (i = hash_str(key) & (*a - 1); (*tab)[i]; i = (i + 1) & (*a - 1))
		if (!strcmp((*tab)[i], key)) {
			free(key);
			return 0;
		}
	(*tab)[i] = key;
	(*n)++;
	return 1;
}

static int gapkey_add(struct facts *f, char *key)
{
	return strset_add(&f->gapkeys, &f->ngapkeys, &f->agapkeys, key);
}

void facts_gap(struct facts *f, const char *fact, const char *fmt, ...)
{
	va_list ap;
	char *reason;
	cJSON *g;
	va_start(ap, fmt);
	reason = xvasprintf(fmt, ap);
	va_end(ap);
	/* The same fact and reason twice (e.g. one file for many CPUs) is one gap. */
	if (!gapkey_add(f, xasprintf("%s\n%s", fact, reason))) {
		free(reason);
		return;
	}
	g = cJSON_CreateObject();
	cJSON_AddStringToObject(g, "fact", fact);
	cJSON_AddStringToObject(g, "reason", reason);
	cJSON_AddItemToArray(f->gaps, g);
	free(reason);
}

void facts_gap_read(struct facts *f, const char *fact, const char *path, int err)
{
	facts_gap(f, fact, "%s: %s", path, sr_reason(err));
}

/* The slot of fact's evidence list in f->evlists (NULL in it: none yet). */
static cJSON **evlist_slot(struct facts *f, const char *fact)
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
	for (i = hash_str(fact) & (f->aevlists - 1); f->evlists[i]; i = (i + 1) & (f->aevlists - 1))
		if (!strcmp(f->evlists[i]->string, fact))
			break;
	return &f->evlists[i];
}

void facts_evidence(struct facts *f, const char *fact, const char *path)
{
	cJSON **slot, *list;
	/* Each path once per fact, in constant time: a fact read from every
	 * CPU's files has thousands. */
	if (!strset_add(&f->evkeys, &f->nevkeys, &f->aevkeys, xasprintf("%s\n%s", fact, path)))
		return;
	slot = evlist_slot(f, fact);
	list = *slot;
	if (!list) {
		list = cJSON_AddArrayToObject(f->evidence, fact);
		*slot = list;
		f->nevlists++;
	}
	cJSON_AddItemToArray(list, cJSON_CreateString(path));
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
