/* lib/jindex.h - a JSON object's members sorted by key, for lookups in log n */
#ifndef NODEAUDIT_JINDEX_H
#define NODEAUDIT_JINDEX_H

#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * An object's members sorted by key, the first of each key kept (what
 * cJSON_GetObjectItemCaseSensitive() finds), so that looking up each key of
 * an object of n keys costs n log n, not n squared (diff's object
 * comparison, the fleet's sysctls).  An object of fewer than min keys is
 * searched as it is.
 */
struct jmember {
	const cJSON *item;
	size_t pos;
};

struct jindex {
	const cJSON *obj;
	struct jmember *m;   /* NULL: search obj itself */
	size_t n;
};

void jindex_init(struct jindex *ix, const cJSON *obj, size_t min);
const cJSON *jindex_get(const struct jindex *ix, const char *key);
void jindex_release(struct jindex *ix);

#endif
