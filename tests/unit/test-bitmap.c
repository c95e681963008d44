/* test-bitmap.c - lib/bitmap.c against libhwloc's own bitmaps: every call
 * nodeaudit makes, on edge cases and on random sets, must answer as
 * hwloc_bitmap_*() does (this program links libhwloc itself) */
#include "config.h"
#include "lib/bitmap.h"
#include "tap.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

/* A random set of up to 40 members below limit (or of whole runs). */
static void random_pair(bitmap_t a, hwloc_bitmap_t h, unsigned limit)
{
	int n = rand() % 40, k;
	bitmap_zero(a);
	hwloc_bitmap_zero(h);
	for (k = 0; k < n; k++) {
		unsigned i = (unsigned)rand() % limit;
		if (rand() % 4 == 0) {
			unsigned j = i + (unsigned)rand() % 200;
			bitmap_set_range(a, i, j);
			hwloc_bitmap_set_range(h, i, (int)j);
		} else if (rand() % 5 == 0) {
			bitmap_clr(a, i);
			hwloc_bitmap_clr(h, i);
		} else {
			bitmap_set(a, i);
			hwloc_bitmap_set(h, i);
		}
	}
}

/* Whether our set holds what hwloc's does, member for member and as text. */
static int same(const_bitmap_t a, hwloc_const_bitmap_t h)
{
	char x[8192], y[8192];
	int i, j;
	for (i = bitmap_first(a), j = hwloc_bitmap_first(h); i >= 0 || j >= 0;
	     i = bitmap_next(a, i), j = hwloc_bitmap_next(h, j))
		if (i != j)
			return 0;
	if (bitmap_weight(a) != hwloc_bitmap_weight(h) || bitmap_last(a) != hwloc_bitmap_last(h) ||
	    bitmap_iszero(a) != hwloc_bitmap_iszero(h))
		return 0;
	if (bitmap_list_snprintf(x, sizeof(x), a) != hwloc_bitmap_list_snprintf(y, sizeof(y), h))
		return 0;
	return !strcmp(x, y);
}

static void test_edges(void)
{
	bitmap_t a = bitmap_alloc(), b;
	char buf[64], *s = NULL;
	is_int(bitmap_first(a), -1, "empty: first -1");
	is_int(bitmap_last(a), -1, "empty: last -1");
	is_int(bitmap_next(a, -1), -1, "empty: next -1");
	is_int(bitmap_weight(a), 0, "empty: weight 0");
	ok(bitmap_iszero(a), "empty: zero");
	is_int(bitmap_list_snprintf(buf, sizeof(buf), a), 0, "empty: list length 0");
	is_str(buf, "", "empty: list ''");
	bitmap_set(a, 0);
	bitmap_set(a, 63);
	bitmap_set(a, 64);
	bitmap_set(a, 65535);
	is_int(bitmap_weight(a), 4, "bits at word edges: weight");
	is_int(bitmap_next(a, 0), 63, "next after 0: 63");
	is_int(bitmap_next(a, 64), 65535, "next after 64: 65535");
	is_int(bitmap_next(a, 65535), -1, "next after the last: -1");
	is_int(bitmap_last(a), 65535, "last: 65535");
	is_int(bitmap_list_asprintf(&s, a), 13, "list of 4 members: its length");
	is_str(s, "0,63-64,65535", "list joins 63 and 64");
	free(s);
	/* Truncation as snprintf: the length needed, a terminated prefix. */
	is_int(bitmap_list_snprintf(buf, 5, a), 13, "truncated: the length needed");
	is_str(buf, "0,63", "truncated: a terminated prefix");
	b = bitmap_dup(a);
	ok(bitmap_isequal(a, b), "dup is equal");
	bitmap_clr(b, 65535);
	ok(bitmap_isincluded(b, a) && !bitmap_isincluded(a, b), "inclusion, both ways");
	ok(bitmap_isequal(b, b), "equal to itself");
	bitmap_zero(b);
	bitmap_set(b, 1);
	ok(!bitmap_intersects(a, b), "disjoint sets do not intersect");
	bitmap_or(b, b, a);   /* aliased result */
	is_int(bitmap_weight(b), 5, "or into its own operand");
	bitmap_andnot(b, b, a);
	is_int(bitmap_first(b), 1, "andnot leaves the member a lacks");
	is_int(bitmap_weight(b), 1, "andnot: one left");
	bitmap_set_range(b, 5, 4);
	is_int(bitmap_weight(b), 1, "an empty range adds nothing");
	ok(bitmap_dup(NULL) == NULL, "dup of NULL is NULL");
	bitmap_free(NULL);
	bitmap_free(a);
	bitmap_free(b);
}

static void test_random(void)
{
	bitmap_t a = bitmap_alloc(), b = bitmap_alloc(), r = bitmap_alloc();
	hwloc_bitmap_t ha = hwloc_bitmap_alloc(), hb = hwloc_bitmap_alloc(), hr = hwloc_bitmap_alloc();
	int round, bad_set = 0, bad_ops = 0, bad_rel = 0, bad_copy = 0;
	srand(24);
	for (round = 0; round < 4000; round++) {
		unsigned limit = round % 3 == 0 ? 100 : round % 3 == 1 ? 1000 : 70000;
		random_pair(a, ha, limit);
		random_pair(b, hb, round % 7 == 0 ? 64 : limit);
		bad_set += !same(a, ha) || !same(b, hb);
		bitmap_or(r, a, b);
		hwloc_bitmap_or(hr, ha, hb);
		bad_ops += !same(r, hr);
		bitmap_and(r, a, b);
		hwloc_bitmap_and(hr, ha, hb);
		bad_ops += !same(r, hr);
		bitmap_andnot(r, a, b);
		hwloc_bitmap_andnot(hr, ha, hb);
		bad_ops += !same(r, hr);
		bitmap_copy(r, a);
		bitmap_and(r, r, b);   /* res aliasing its first operand */
		hwloc_bitmap_copy(hr, ha);
		hwloc_bitmap_and(hr, hr, hb);
		bad_ops += !same(r, hr);
		bad_rel += bitmap_intersects(a, b) != hwloc_bitmap_intersects(ha, hb);
		bad_rel += bitmap_isequal(a, b) != hwloc_bitmap_isequal(ha, hb);
		bad_rel += bitmap_isincluded(a, b) != hwloc_bitmap_isincluded(ha, hb);
		bad_rel += bitmap_isincluded(r, a) != hwloc_bitmap_isincluded(hr, ha);
		bad_rel += bitmap_isset(a, (unsigned)round) != hwloc_bitmap_isset(ha, (unsigned)round);
		bitmap_copy(r, b);
		bitmap_copy(r, a);   /* a shorter set copied over a longer one */
		bad_copy += !bitmap_isequal(r, a) || !same(r, ha);
	}
	is_int(bad_set, 0, "4000 random sets: members, weight, last, zero and text as hwloc's");
	is_int(bad_ops, 0, "or, and, andnot (and aliased and) as hwloc's");
	is_int(bad_rel, 0, "intersects, isequal, isincluded, isset as hwloc's");
	is_int(bad_copy, 0, "copy over a larger set");
	bitmap_free(a);
	bitmap_free(b);
	bitmap_free(r);
	hwloc_bitmap_free(ha);
	hwloc_bitmap_free(hb);
	hwloc_bitmap_free(hr);
}

int main(void)
{
	test_edges();
	test_random();
	return done_testing();
}
