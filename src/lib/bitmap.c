/* lib/bitmap.c - sets of small integers (lib/bitmap.h) */
#include "config.h"
#include "lib/bitmap.h"
#include "lib/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WBITS (sizeof(unsigned long) * CHAR_BIT)
#define INLINE_WORDS 2

struct bitmap_s {
	unsigned long *w;      /* words [0, cap): inl, or a malloc'd array */
	unsigned cap;
	unsigned long inl[INLINE_WORDS];
};

bitmap_t bitmap_alloc(void)
{
	bitmap_t s = xmalloc(sizeof(*s));
	s->w = s->inl;
	s->cap = INLINE_WORDS;
	memset(s->inl, 0, sizeof(s->inl));
	return s;
}

void bitmap_free(bitmap_t s)
{
	if (!s)
		return;
	if (s->w != s->inl)
		free(s->w);
	free(s);
}

/* Room for word k (zeroed). */
static void grow(bitmap_t s, unsigned k)
{
	unsigned cap = s->cap;
	unsigned long *w;
	if (k < cap)
		return;
	while (cap <= k)
		cap *= 2;
	w = xmalloc(cap * sizeof(*w));
	memcpy(w, s->w, s->cap * sizeof(*w));
	memset(w + s->cap, 0, (cap - s->cap) * sizeof(*w));
	if (s->w != s->inl)
		free(s->w);
	s->w = w;
	s->cap = cap;
}

static unsigned long word(const_bitmap_t s, unsigned k)
{
	return k < s->cap ? s->w[k] : 0;
}

bitmap_t bitmap_dup(const_bitmap_t src)
{
	bitmap_t s;
	if (!src)
		return NULL;
	s = bitmap_alloc();
	bitmap_copy(s, src);
	return s;
}

void bitmap_copy(bitmap_t dst, const_bitmap_t src)
{
	unsigned k;
	if (dst == src)
		return;
	grow(dst, src->cap - 1);
	for (k = 0; k < dst->cap; k++)
		dst->w[k] = word(src, k);
}

void bitmap_zero(bitmap_t s)
{
	memset(s->w, 0, s->cap * sizeof(*s->w));
}

void bitmap_set(bitmap_t s, unsigned i)
{
	grow(s, (unsigned)(i / WBITS));
	s->w[i / WBITS] |= 1ul << (i % WBITS);
}

void bitmap_clr(bitmap_t s, unsigned i)
{
	if (i / WBITS < s->cap)
		s->w[i / WBITS] &= ~(1ul << (i % WBITS));
}

void bitmap_set_range(bitmap_t s, unsigned lo, unsigned hi)
{
	unsigned k, klo = (unsigned)(lo / WBITS), khi = (unsigned)(hi / WBITS);
	if (hi < lo)
		return;
	grow(s, khi);
	for (k = klo; k <= khi; k++) {
		unsigned long m = ~0ul;
		if (k == klo)
			m &= ~0ul << (lo % WBITS);
		if (k == khi && hi % WBITS != WBITS - 1)
			m &= (1ul << (hi % WBITS + 1)) - 1;
		s->w[k] |= m;
	}
}

int bitmap_isset(const_bitmap_t s, unsigned i)
{
	return (int)(word(s, (unsigned)(i / WBITS)) >> (i % WBITS) & 1);
}

int bitmap_iszero(const_bitmap_t s)
{
	unsigned k;
	for (k = 0; k < s->cap; k++)
		if (s->w[k])
			return 0;
	return 1;
}

int bitmap_weight(const_bitmap_t s)
{
	unsigned k;
	int n = 0;
	for (k = 0; k < s->cap; k++)
		n += __builtin_popcountl(s->w[k]);
	return n;
}

int bitmap_first(const_bitmap_t s)
{
	return bitmap_next(s, -1);
}

int bitmap_last(const_bitmap_t s)
{
	unsigned k;
	for (k = s->cap; k-- > 0;)
		if (s->w[k])
			return (int)(k * WBITS + (WBITS - 1 - (unsigned)__builtin_clzl(s->w[k])));
	return -1;
}

int bitmap_next(const_bitmap_t s, int prev)
{
	unsigned i = prev < 0 ? 0 : (unsigned)prev + 1, k;
	unsigned long m;
	if (prev >= INT_MAX)
		return -1;
	k = (unsigned)(i / WBITS);
	if (k >= s->cap)
		return -1;
	m = s->w[k] & (~0ul << (i % WBITS));
	for (;;) {
		if (m) {
			unsigned long b = k * WBITS + (unsigned)__builtin_ctzl(m);
			return b > INT_MAX ? -1 : (int)b;
		}
		if (++k >= s->cap)
			return -1;
		m = s->w[k];
	}
}

/* res = a op b, word by word, over the longer of the two. */
enum { OP_OR, OP_AND, OP_ANDNOT };
static void combine(bitmap_t res, const_bitmap_t a, const_bitmap_t b, int op)
{
	unsigned n = a->cap > b->cap ? a->cap : b->cap, k;
	grow(res, n - 1);
	for (k = 0; k < res->cap; k++) {
		unsigned long x = word(a, k), y = word(b, k);
		res->w[k] = op == OP_OR ? x | y : op == OP_AND ? x & y : x & ~y;
	}
}

void bitmap_or(bitmap_t res, const_bitmap_t a, const_bitmap_t b)
{
	combine(res, a, b, OP_OR);
}

void bitmap_and(bitmap_t res, const_bitmap_t a, const_bitmap_t b)
{
	combine(res, a, b, OP_AND);
}

void bitmap_andnot(bitmap_t res, const_bitmap_t a, const_bitmap_t b)
{
	combine(res, a, b, OP_ANDNOT);
}

int bitmap_intersects(const_bitmap_t a, const_bitmap_t b)
{
	unsigned n = a->cap < b->cap ? a->cap : b->cap, k;
	for (k = 0; k < n; k++)
		if (a->w[k] & b->w[k])
			return 1;
	return 0;
}

int bitmap_isequal(const_bitmap_t a, const_bitmap_t b)
{
	unsigned n = a->cap > b->cap ? a->cap : b->cap, k;
	for (k = 0; k < n; k++)
		if (word(a, k) != word(b, k))
			return 0;
	return 1;
}

int bitmap_isincluded(const_bitmap_t sub, const_bitmap_t super)
{
	unsigned k;
	for (k = 0; k < sub->cap; k++)
		if (sub->w[k] & ~word(super, k))
			return 0;
	return 1;
}

int bitmap_list_snprintf(char *buf, size_t n, const_bitmap_t s)
{
	size_t len = 0;
	int a = bitmap_first(s);
	if (n)
		buf[0] = '\0';
	while (a >= 0) {
		int b = a, next;
		char part[32];
		int k;
		while ((next = bitmap_next(s, b)) == b + 1)
			b = next;
		k = b > a ? snprintf(part, sizeof(part), "%s%d-%d", len ? "," : "", a, b)
			  : snprintf(part, sizeof(part), "%s%d", len ? "," : "", a);
		if (n && len < n - 1)
			snprintf(buf + len, n - len, "%s", part);
		len += (size_t)k;
		a = next;
	}
	return len > INT_MAX ? INT_MAX : (int)len;
}

int bitmap_list_asprintf(char **out, const_bitmap_t s)
{
	int len = bitmap_list_snprintf(NULL, 0, s);
	*out = xmalloc((size_t)len + 1);
	return bitmap_list_snprintf(*out, (size_t)len + 1, s);
}
