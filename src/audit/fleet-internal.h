/* audit/fleet-internal.h - what the fleet's files share: the hashes, the uniform facts, numbers */
#ifndef NODEAUDIT_FLEET_INTERNAL_H
#define NODEAUDIT_FLEET_INTERNAL_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "audit/fleet.h"

/* audit/fleet-index.c */
/* FNV-1a, for the open-addressing tables (power-of-two sizes). */
uint64_t fleet_hash_str(const char *s);
/* The row of check id, or of id's per-key finding key (key may be NULL). */
struct check_agg *fleet_check_get(struct fleet *f, const char *id, const char *key);
/* One value of a spread; NaN counts as missing. */
void fleet_spread_add(struct spread *s, double v);
/* qsort() comparator of doubles, ascending. */
int fleet_cmp_double(const void *a, const void *b);

/* audit/fleet-uniform.c */
/* The facts of one report that should not differ across a fleet, for the
 * row being added (f->nrows). */
void fleet_uf_add_report(struct fleet *f, const cJSON *root);
/* The profile a report was checked against ("unknown" when it does not say). */
void fleet_add_profile(struct fleet *f, const cJSON *root);
/* Sort the uniform facts by name and find each one's majority or median. */
void fleet_uf_finish(struct fleet *f);

#endif
