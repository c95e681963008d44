/* lib/bitmap.h - sets of small integers (CPUs, NUMA nodes, package ids) */
#ifndef NODEAUDIT_LIB_BITMAP_H
#define NODEAUDIT_LIB_BITMAP_H

#include <stddef.h>

/*
 * The subset of hwloc's bitmap API that nodeaudit uses, with hwloc's
 * meaning for each call (tests/unit/test-bitmap.c checks every one against
 * libhwloc's own on random sets), but finite sets only: there is no
 * hwloc_bitmap_fill() or _not(), so no set is ever infinite.  Every run
 * uses sets and most never load libhwloc (read/hwloc-lib.h: it is loaded
 * the first time a command asks hwloc itself, with libudev and libm
 * behind it, about 0.35 ms of every run's start on the reference VM).
 *
 * A set of up to 128 members lives in its own block; a larger one grows
 * an array.  Allocation failure ends the program, as xmalloc() does: no
 * call returns NULL or an error.
 */
typedef struct bitmap_s *bitmap_t;
typedef const struct bitmap_s *const_bitmap_t;

bitmap_t bitmap_alloc(void);
void bitmap_free(bitmap_t set);
bitmap_t bitmap_dup(const_bitmap_t set);            /* NULL for NULL */
void bitmap_copy(bitmap_t dst, const_bitmap_t src);
void bitmap_zero(bitmap_t set);
void bitmap_set(bitmap_t set, unsigned i);
void bitmap_clr(bitmap_t set, unsigned i);
void bitmap_set_range(bitmap_t set, unsigned lo, unsigned hi);  /* lo..hi, both in */
int bitmap_isset(const_bitmap_t set, unsigned i);
int bitmap_iszero(const_bitmap_t set);
int bitmap_weight(const_bitmap_t set);
int bitmap_first(const_bitmap_t set);               /* -1: empty */
int bitmap_last(const_bitmap_t set);                /* -1: empty */
int bitmap_next(const_bitmap_t set, int prev);      /* after prev (-1: the first); -1: none */
/* res = a op b; res may be a or b. */
void bitmap_or(bitmap_t res, const_bitmap_t a, const_bitmap_t b);
void bitmap_and(bitmap_t res, const_bitmap_t a, const_bitmap_t b);
void bitmap_andnot(bitmap_t res, const_bitmap_t a, const_bitmap_t b);
int bitmap_intersects(const_bitmap_t a, const_bitmap_t b);
int bitmap_isequal(const_bitmap_t a, const_bitmap_t b);
int bitmap_isincluded(const_bitmap_t sub, const_bitmap_t super);
/* "0-3,8,10-11" ("" when empty), as snprintf(): the length it needs. */
int bitmap_list_snprintf(char *buf, size_t n, const_bitmap_t set);
/* The same, malloc'd into *s: its length. */
int bitmap_list_asprintf(char **s, const_bitmap_t set);

/* for each member id of set, in increasing order */
#define bitmap_foreach_begin(id, set) \
	do { \
		for (id = bitmap_first(set); (unsigned)(id) != (unsigned)-1; id = bitmap_next(set, id)) {
#define bitmap_foreach_end() \
		} \
	} while (0)

#endif
