/* audit/fleet-index.c - the fleet's hashing: the per-check table; spreads' values, sorted */
#include "config.h"
#include "audit/fleet-internal.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*** Per-check hash (FNV-1a and a final mix, open addressing, power-of-two size) ***/

uint64_t fleet_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	/* murmur3's finaliser: FNV-1a's low bits, which the tables index
	 * by, vary little between keys that differ in their last bytes
	 * ("x.k1", "x.k2"): long runs in the linear probing. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* The slot of hkey in f's index: its entry's, or the empty one where it
 * goes. */
static uint32_t *check_slot(const struct fleet *f, const char *hkey, uint64_t h)
{
	size_t i = h & (f->check_ahash - 1);
	while (f->check_hash[i] && strcmp(f->checks[f->check_hash[i] - 1].hkey, hkey))
		i = (i + 1) & (f->check_ahash - 1);
	return &f->check_hash[i];
}

/*
 * The row of check id, or of id's per-key finding key (key may be NULL).
 * The rows lie in an array of their own, in the order first seen; the
 * hash holds only their indexes, so that growing it moves 4 bytes a row,
 * not a row (136 bytes: 100,000 sysctl findings made it a 35 MB table
 * copied at each doubling and faulted in page by page).
 */
struct check_agg *fleet_check_get(struct fleet *f, const char *id, const char *key)
{
	char buf[256], *hkey = buf;
	struct check_agg *c;
	uint32_t *slot;
	uint64_t h;
	if ((size_t)snprintf(buf, sizeof(buf), key ? "%s\n%s" : "%s", id, key) >= sizeof(buf))
		hkey = key ? xasprintf("%s\n%s", id, key) : xstrdup(id);
	h = fleet_hash_str(hkey);
	if (2 * (f->nchecks + 1) > f->check_ahash) {
		size_t k, n = f->check_ahash ? 2 * f->check_ahash : 128;
		free(f->check_hash);
		f->check_hash = xcalloc(n, sizeof(*f->check_hash));
		f->check_ahash = n;
		for (k = 0; k < f->nchecks; k++)
			*check_slot(f, f->checks[k].hkey, fleet_hash_str(f->checks[k].hkey)) = (uint32_t)k + 1;
	}
	slot = check_slot(f, hkey, h);
	if (*slot) {
		if (hkey != buf)
			free(hkey);
		return &f->checks[*slot - 1];
	}
	if (f->nchecks == f->achecks) {
		f->achecks = f->achecks ? 2 * f->achecks : 64;
		f->checks = xrealloc(f->checks, f->achecks * sizeof(*f->checks));
	}
	c = &f->checks[f->nchecks];
	memset(c, 0, sizeof(*c));
	c->hkey = hkey == buf ? xstrdup(buf) : hkey;
	c->id = xstrdup(id);
	c->key = key ? xstrdup(key) : NULL;
	c->serial = (uint32_t)f->nchecks;
	*slot = (uint32_t)++f->nchecks;
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
