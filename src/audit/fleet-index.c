/* audit/fleet-index.c - the fleet's hashing: the per-check table; spreads' values, sorted */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*** Per-check hash (FNV-1a, open addressing, power-of-two size) ***/

uint64_t fleet_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct check_agg *check_slot(struct check_agg *tab, size_t size, const char *hkey)
{
	size_t i = fleet_hash_str(hkey) & (size - 1);
	while (tab[i].hkey && strcmp(tab[i].hkey, hkey))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

/* The row of check id, or of id's per-key finding key (key may be NULL). */
struct check_agg *fleet_check_get(struct fleet *f, const char *id, const char *key)
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

void fleet_spread_add(struct spread *s, double v)
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

int fleet_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double spread_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}
