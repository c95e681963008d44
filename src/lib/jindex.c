/* lib/jindex.c - a JSON object's members sorted by key (lib/jindex.h) */
#include "config.h"
#include "lib/jindex.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static int cmp_member(const void *x, const void *y)
{
	const struct jmember *a = x, *b = y;
	int c = strcmp(a->item->string, b->item->string);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

void jindex_init(struct jindex *ix, const cJSON *obj, size_t min)
{
	const cJSON *it;
	size_t n = 0, i, k;
	ix->obj = obj;
	ix->m = NULL;
	ix->n = 0;
	cJSON_ArrayForEach(it, obj)
		n += it->string != NULL;
	if (!n || n < min)
		return;
	ix->m = xcalloc(n, sizeof(*ix->m));
	cJSON_ArrayForEach(it, obj)
		if (it->string) {
			ix->m[ix->n].item = it;
			ix->m[ix->n].pos = ix->n;
			ix->n++;
		}
	/* Stable by position, so the first of a repeated key survives. */
	qsort(ix->m, ix->n, sizeof(*ix->m), cmp_member);
	for (i = k = 0; i < ix->n; i++)
		if (!k || strcmp(ix->m[k - 1].item->string, ix->m[i].item->string))
			ix->m[k++] = ix->m[i];
	ix->n = k;
}

static int cmp_key_member(const void *key, const void *y)
{
	return strcmp(key, ((const struct jmember *)y)->item->string);
}

const cJSON *jindex_get(const struct jindex *ix, const char *key)
{
	const struct jmember *hit;
	if (!ix->m)
		return ix->obj ? cJSON_GetObjectItemCaseSensitive(ix->obj, key) : NULL;
	hit = bsearch(key, ix->m, ix->n, sizeof(*ix->m), cmp_key_member);
	return hit ? hit->item : NULL;
}

void jindex_release(struct jindex *ix)
{
	free(ix->m);
	ix->m = NULL;
	ix->n = 0;
}
